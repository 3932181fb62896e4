//! The published proto from other languages, for real: a Python client (grpcio 1.85.1, its
//! stubs generated at test time from proto/snowmint/v1/snowmint.proto by grpcio-tools) and
//! a Node client (`@grpc/grpc-js` 1.14.7 with `@grpc/proto-loader` 0.8.1, reading the
//! `.proto` itself) call every method of a spawned `snowmint serve --grpc-listen`: one ID
//! and a batch of each kind, a stream of packed big-endian chunks of each kind, decode, and
//! a bad count (INVALID_ARGUMENT). Each prints what it saw as JSON; the checks are here.
//!
//! The packages are installed into the repository's `target/interop/` (`node/` by `npm
//! install --prefix`, `py/` by `pip install --target`), as `.ci/run` does; without them the
//! test is skipped, or fails under `SNOWMINT_REQUIRE_INTEROP=1`.

mod grpc_support;
mod serve_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use grpc_support::grpc_port;
use serde_json::Value;
use serve_support::Server;

/// The repository's root.
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ is in the repository")
        .to_path_buf()
}

/// Where the packages are, if they are.
fn interop_dir() -> Option<PathBuf> {
    let dir = repo().join("target/interop");
    let ready = dir.join("node/node_modules/@grpc/grpc-js").is_dir()
        && dir.join("node/node_modules/@grpc/proto-loader").is_dir()
        && dir.join("py/grpc").is_dir()
        && dir.join("py/grpc_tools").is_dir();
    if ready {
        return Some(dir);
    }
    assert!(
        std::env::var_os("SNOWMINT_REQUIRE_INTEROP").is_none(),
        "SNOWMINT_REQUIRE_INTEROP is set but {} lacks grpcio, grpcio-tools, @grpc/grpc-js or \
         @grpc/proto-loader (see .ci/run)",
        dir.display()
    );
    eprintln!("skipped: no gRPC packages in {}", dir.display());
    None
}

/// Runs `command`; its standard output as JSON.
fn json_of(mut command: Command, what: &str) -> Value {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The Python client: `python3 SCRIPT STUBS PORT`.
const PYTHON: &str = r#"
import sys, json, struct, uuid
sys.path.insert(0, sys.argv[1])
import grpc
from snowmint.v1 import snowmint_pb2 as pb, snowmint_pb2_grpc as rpc

s = rpc.IdServiceStub(grpc.insecure_channel("127.0.0.1:" + sys.argv[2]))
out = {}
one = s.NextId(pb.NextIdRequest()).id
out["id"] = str(one)
ids = list(s.NextIds(pb.NextIdsRequest(count=1000)).ids)
out["ids_unique"] = len(set(ids + [one]))
u = s.NextUuid7(pb.NextId128Request())
out["uuid7_version"] = uuid.UUID(bytes=u.value).version
out["uuid7_text"] = str(uuid.UUID(bytes=u.value)) == u.text
for name, call in [("uuid7s", s.NextUuid7s), ("ulids", s.NextUlids)]:
    vs = [x.value for x in call(pb.NextIds128Request(count=100)).ids]
    out[name + "_ascending"] = len(vs) == 100 and all(a < b for a, b in zip(vs, vs[1:]))
l = s.NextUlid(pb.NextId128Request())
out["ulid"] = l.text
seen = set(); total = 0; chunks = 0
for chunk in s.StreamIds(pb.StreamIdsRequest(kind=pb.KIND_SNOWFLAKE, chunk_size=4096, count=50000)):
    vals = struct.unpack(">%dQ" % (len(chunk.packed) // 8), chunk.packed)
    seen.update(vals); total += len(vals); chunks += 1
out["stream"] = [total, len(seen), chunks]
for name, kind in [("uuid7", pb.KIND_UUID7), ("ulid", pb.KIND_ULID)]:
    vs = []
    for chunk in s.StreamIds(pb.StreamIdsRequest(kind=kind, chunk_size=100, count=1000)):
        vs += [chunk.packed[i:i + 16] for i in range(0, len(chunk.packed), 16)]
    out["stream_" + name] = len(vs) == 1000 and all(a < b for a, b in zip(vs, vs[1:]))
d = s.Decode(pb.DecodeRequest(id=str(one)))
out["decode"] = [d.id, d.layout, d.node, d.encoding]
out["decode_ulid"] = s.Decode(pb.DecodeRequest(id=l.text)).encoding
try:
    s.NextIds(pb.NextIdsRequest(count=0))
    out["bad"] = "accepted"
except grpc.RpcError as e:
    out["bad"] = [e.code().name, e.details()]
print(json.dumps(out))
"#;

/// The Node client: `node -e SCRIPT PROTO_DIR PORT`.
const NODE: &str = r#"
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");
const [protoDir, port] = process.argv.slice(1);
const def = loader.loadSync("snowmint/v1/snowmint.proto", {
  includeDirs: [protoDir], keepCase: true, longs: String, enums: String, defaults: true,
});
const v1 = grpc.loadPackageDefinition(def).snowmint.v1;
const s = new v1.IdService("127.0.0.1:" + port, grpc.credentials.createInsecure());
const call = (m, req) => new Promise((ok, fail) => s[m](req, (e, r) => (e ? fail(e) : ok(r))));
const stream = (req) => new Promise((ok, fail) => {
  const chunks = [];
  const c = s.StreamIds(req);
  c.on("data", (x) => chunks.push(x.packed));
  c.on("error", fail);
  c.on("end", () => ok(chunks));
});
const asc = (vs) => vs.every((v, i) => i === 0 || Buffer.compare(vs[i - 1], v) < 0);
(async () => {
  const out = {};
  const one = (await call("NextId", {})).id;
  out.id = one;
  const ids = (await call("NextIds", { count: 1000 })).ids;
  out.ids_unique = new Set([...ids, one]).size;
  const u = await call("NextUuid7", {});
  out.uuid7_version = u.value[6] >> 4;
  out.uuid7_text = u.value.toString("hex") === u.text.replace(/-/g, "");
  for (const [name, m] of [["uuid7s", "NextUuid7s"], ["ulids", "NextUlids"]]) {
    const vs = (await call(m, { count: 100 })).ids.map((x) => x.value);
    out[name + "_ascending"] = vs.length === 100 && asc(vs);
  }
  const l = await call("NextUlid", {});
  out.ulid = l.text;
  const seen = new Set();
  let total = 0;
  const chunks = await stream({ kind: "KIND_SNOWFLAKE", chunk_size: 4096, count: 50000 });
  for (const b of chunks) {
    for (let i = 0; i < b.length; i += 8) { seen.add(b.readBigUInt64BE(i)); total++; }
  }
  out.stream = [total, seen.size, chunks.length];
  for (const [name, kind] of [["uuid7", "KIND_UUID7"], ["ulid", "KIND_ULID"]]) {
    const vs = [];
    for (const b of await stream({ kind, chunk_size: 100, count: 1000 })) {
      for (let i = 0; i < b.length; i += 16) vs.push(b.subarray(i, i + 16));
    }
    out["stream_" + name] = vs.length === 1000 && asc(vs);
  }
  const d = await call("Decode", { id: one });
  out.decode = [d.id, d.layout, Number(d.node), d.encoding];
  out.decode_ulid = (await call("Decode", { id: l.text })).encoding;
  try {
    await call("NextIds", { count: 0 });
    out.bad = "accepted";
  } catch (e) {
    out.bad = [e.code === grpc.status.INVALID_ARGUMENT ? "INVALID_ARGUMENT" : String(e.code), e.details];
  }
  console.log(JSON.stringify(out));
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
"#;

/// What both clients must have seen, against node 5 and `--max-batch 1000`.
fn check(lang: &str, out: &Value) {
    let id: u64 = out["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(out["ids_unique"], 1001, "{lang}: {out}");
    assert_eq!(out["uuid7_version"], 7, "{lang}: {out}");
    for key in [
        "uuid7_text",
        "uuid7s_ascending",
        "ulids_ascending",
        "stream_uuid7",
        "stream_ulid",
    ] {
        assert_eq!(out[key], true, "{lang} {key}: {out}");
    }
    assert_eq!(out["ulid"].as_str().unwrap().len(), 26, "{lang}: {out}");
    // 50,000 IDs, all new, in 13 chunks (12 of 4,096 and the 848 left).
    assert_eq!(
        out["stream"],
        serde_json::json!([50_000, 50_000, 13]),
        "{lang}: {out}"
    );
    // Node 5 above 2 shard bits.
    let decode = &out["decode"];
    assert_eq!(decode[0], id.to_string(), "{lang}: {out}");
    assert_eq!(decode[1], "twitter", "{lang}: {out}");
    assert_eq!(decode[2].as_u64().unwrap() >> 2, 5, "{lang}: {out}");
    assert_eq!(decode[3], "decimal", "{lang}: {out}");
    assert_eq!(out["decode_ulid"], "ulid", "{lang}: {out}");
    assert_eq!(
        out["bad"],
        serde_json::json!([
            "INVALID_ARGUMENT",
            "count 0 is out of range: 1 to 1000 (--max-batch)"
        ]),
        "{lang}: {out}"
    );
}

/// Generates the Python stubs from the published proto into a directory of their own.
fn python_stubs(dir: &Path, py: &Path) -> PathBuf {
    let stubs = dir.join(format!("grpc-py-stubs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&stubs);
    std::fs::create_dir_all(&stubs).unwrap();
    let proto = repo().join("proto");
    let status = Command::new("python3")
        .env("PYTHONPATH", py)
        .args(["-m", "grpc_tools.protoc"])
        .arg(format!("-I{}", proto.display()))
        .arg(format!("--python_out={}", stubs.display()))
        .arg(format!("--grpc_python_out={}", stubs.display()))
        .arg(proto.join("snowmint/v1/snowmint.proto"))
        .status()
        .expect("python3 -m grpc_tools.protoc");
    assert!(status.success(), "grpc_tools.protoc: {status}");
    stubs
}

#[test]
fn python_and_node_clients_mint_batch_stream_and_decode() {
    let Some(dir) = interop_dir() else {
        return;
    };
    let server = Server::start(&[
        "--grpc-listen",
        "127.0.0.1:0",
        "--node",
        "5",
        "--workers",
        "2",
        "--max-batch",
        "1000",
    ]);
    let port = grpc_port(&server).to_string();

    let py = dir.join("py");
    let stubs = python_stubs(&dir, &py);
    let script = stubs.join("client.py");
    std::fs::write(&script, PYTHON).unwrap();
    let mut python = Command::new("python3");
    python
        .env("PYTHONPATH", &py)
        .arg(&script)
        .arg(&stubs)
        .arg(&port);
    let out = json_of(python, "the Python client");
    let _ = std::fs::remove_dir_all(&stubs);
    check("python", &out);

    let mut node = Command::new("node");
    node.env("NODE_PATH", dir.join("node/node_modules"))
        .args(["-e", NODE])
        .arg(repo().join("proto"))
        .arg(&port);
    let out = json_of(node, "the Node client");
    check("node", &out);
}
