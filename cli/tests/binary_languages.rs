//! The service's binary bodies read by Python (`struct`, `uuid`) and Node
//! (`Buffer.readBigUInt64BE`), each with its standard library only: `/ids` as big-endian
//! `u64`s and `/uuid7`, `/ulid` as 16 canonical bytes, checked against what the service
//! declares and what the Rust side reads. Skipped when `python3` or `node` is missing,
//! unless `SNOWMINT_REQUIRE_INTEROP` is set.

mod serve_support;

use std::collections::HashSet;
use std::process::Command;

use serve_support::Server;
use snowmint::{Id, Layout, Ulid, Uuid7};

const PYTHON: &str = r#"
import struct, sys, urllib.request, uuid
port = sys.argv[1]
def get(path):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Accept": "application/octet-stream"})
    with urllib.request.urlopen(req) as r:
        return r.headers, r.read()
headers, body = get("/ids?n=1000")
assert headers["Content-Type"] == "application/octet-stream", headers["Content-Type"]
print("layout", headers["X-Snowmint-Layout"])
print("node", headers["X-Snowmint-Node"])
for (i,) in struct.iter_unpack(">Q", body):
    print("id", i)
# The same numbers by int.from_bytes.
assert [int.from_bytes(body[k:k+8], "big") for k in range(0, len(body), 8)] == [i for (i,) in struct.iter_unpack(">Q", body)]
for kind in ("uuid7", "ulid"):
    _, body = get(f"/{kind}?n=100")
    for k in range(0, len(body), 16):
        print(kind, int.from_bytes(body[k:k+16], "big"))
_, body = get("/uuid7?n=1")
u = uuid.UUID(bytes=body)
print("uuid", u, u.version)
"#;

const NODE: &str = r#"
const http = require("http");
const port = process.argv[process.argv.length - 1];
function get(path) {
  return new Promise((resolve, reject) => {
    http.get({ host: "127.0.0.1", port, path, headers: { Accept: "application/octet-stream" } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve([res.headers, Buffer.concat(chunks)]));
    }).on("error", reject);
  });
}
(async () => {
  let [headers, body] = await get("/ids?n=1000");
  if (headers["content-type"] !== "application/octet-stream") throw new Error(headers["content-type"]);
  console.log("layout", headers["x-snowmint-layout"]);
  console.log("node", headers["x-snowmint-node"]);
  for (let k = 0; k < body.length; k += 8) console.log("id", body.readBigUInt64BE(k).toString());
  for (const kind of ["uuid7", "ulid"]) {
    [headers, body] = await get(`/${kind}?n=100`);
    for (let k = 0; k < body.length; k += 16) {
      const v = (body.readBigUInt64BE(k) << 64n) | body.readBigUInt64BE(k + 8);
      console.log(kind, v.toString());
    }
  }
  [headers, body] = await get("/uuid7?n=1");
  const h = body.toString("hex");
  console.log("uuid", `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, parseInt(h[12], 16));
})().catch((e) => { console.error(e); process.exit(1); });
"#;

const TWITTER: &str =
    "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";

/// Whether `program` runs; when not, the test is skipped unless interop is required.
fn available(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SNOWMINT_REQUIRE_INTEROP").is_none(),
            "SNOWMINT_REQUIRE_INTEROP is set but {program} does not run"
        );
        eprintln!("skipped: no {program}");
    }
    found
}

/// Runs `program` on `script` against the server; its output's lines.
fn run(program: &str, flag: &str, script: &str, port: u16) -> Vec<String> {
    let out = Command::new(program)
        .args([flag, script, &port.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// What one client printed, checked.
fn check(lines: &[String]) {
    let value = |prefix: &str| -> Vec<&str> {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix(prefix).and_then(|l| l.strip_prefix(' ')))
            .collect()
    };
    assert_eq!(value("layout"), [TWITTER]);
    assert_eq!(value("node"), ["5"]);
    let ids: Vec<u64> = value("id").iter().map(|t| t.parse().unwrap()).collect();
    assert_eq!(ids.len(), 1_000);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 1_000);
    // The node above the shard bit is the declared one: the bytes were read in the right order.
    assert!(ids
        .iter()
        .all(|&id| Layout::TWITTER.decode(Id::from_u64(id)).node() >> 1 == 5));
    for kind in ["uuid7", "ulid"] {
        let values: Vec<u128> = value(kind).iter().map(|t| t.parse().unwrap()).collect();
        assert_eq!(values.len(), 100, "{kind}");
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{kind}");
        for &v in &values {
            if kind == "uuid7" {
                assert!(Uuid7::from_u128(v).is_ok(), "{v:x} is a UUIDv7");
            } else {
                // A ULID's time is its top 48 bits: now, not garbage.
                let ms = Ulid::from_u128(v).unix_millis();
                assert!(ms > 1_700_000_000_000 && ms < 4_000_000_000_000, "{ms}");
            }
        }
    }
    let uuid = value("uuid");
    let (text, version) = uuid[0].split_once(' ').unwrap();
    assert_eq!(version, "7");
    let parsed: Uuid7 = text
        .parse()
        .expect("the language's canonical text is a UUIDv7");
    assert_eq!(parsed.to_string(), text);
}

#[test]
fn python_reads_the_binary_bodies() {
    if !available("python3") {
        return;
    }
    let server = Server::start(&["--node", "5", "--workers", "1", "--shard-bits", "1"]);
    check(&run("python3", "-c", PYTHON, server.port));
}

#[test]
fn node_reads_the_binary_bodies() {
    if !available("node") {
        return;
    }
    let server = Server::start(&["--node", "5", "--workers", "1", "--shard-bits", "1"]);
    check(&run("node", "-e", NODE, server.port));
}
