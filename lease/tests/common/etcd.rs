//! A real 3-member etcd cluster for tests: started on free loopback ports, each member with
//! its own data directory in a temporary directory; members killed (SIGKILL) and restarted
//! from their data, the leader found, or the whole cluster wiped and started anew on the
//! same client ports (a store that forgets everything).
//!
//! The binary is `$SNOWMINT_ETCD`, else `etcd` on `PATH` (Debian's `etcd-server`, 3.4). Without
//! one, a test is skipped with a message written straight to stderr (past the test harness's
//! capture), unless `SNOWMINT_REQUIRE_ETCD=1` (CI sets it), when it fails.
//!
//! Readiness and status go over etcd's JSON gateway on the client ports, with `ureq`:
//! `GET /health` and `POST /v3/maintenance/status`.

#![allow(dead_code)]

#[path = "../../../tests/common/server.rs"]
mod server;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a member (or the cluster) may take to answer healthy after a start. A cold
/// 3-member cluster is ready in a few seconds; the rest is room for a loaded machine.
const READY_WITHIN: Duration = Duration::from_secs(30);

struct Member {
    name: String,
    /// `http://127.0.0.1:PORT` or `https://...`, and a client for it.
    client: Client,
    client_port: u16,
    peer_port: u16,
    data_dir: PathBuf,
    child: Option<Child>,
}

/// A member's base URL and the client that reaches it (a root token once auth is on).
#[derive(Clone)]
struct Client {
    base: String,
    agent: ureq::Agent,
    token: Option<String>,
}

impl Client {
    fn call(&self, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
        request(
            &self.agent,
            &self.base,
            method,
            path,
            body,
            self.token.as_deref(),
        )
    }
}

/// TLS on every URL, client and peer, with client certificates required both ways
/// (`--client-cert-auth`, `--peer-client-cert-auth`).
#[derive(Clone)]
pub struct Tls {
    pub ca: PathBuf,
    /// The certificate and key of member `i`'s client URL: `client_certs[i]`, else the last
    /// one (a bad one for some members lets one cluster show each handshake error).
    pub client_certs: Vec<(PathBuf, PathBuf)>,
    /// The certificate and key every member presents to its peers (as server and client).
    pub peer_cert: (PathBuf, PathBuf),
    /// How the harness itself connects: the CA's roots and the client certificate.
    pub harness: ureq::tls::TlsConfig,
}

pub struct EtcdCluster {
    bin: String,
    /// TLS settings, if the cluster is secured.
    tls: Option<Tls>,
    dir: PathBuf,
    /// `--initial-cluster-token`: a new one for every cluster made from empty data dirs.
    token: String,
    generation: u32,
    /// Another address the members' client ports listen on (the host side of a veth pair).
    extra_host: Option<String>,
    members: Vec<Member>,
}

/// One request to `host:port` over plain HTTP: the status code and the body, or `None` if
/// the member does not answer within the timeout.
pub fn http(host: &str, port: u16, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let base = format!("http://{host}:{port}");
    request(&agent(None), &base, method, path, body, None)
}

/// A client that gives statuses back, bounded by two seconds a call, with `tls` if given.
pub fn agent(tls: Option<ureq::tls::TlsConfig>) -> ureq::Agent {
    let mut config = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(2)))
        .http_status_as_error(false);
    if let Some(tls) = tls {
        config = config.tls_config(tls);
    }
    config.build().new_agent()
}

/// One request to `base` (`http://host:port` or `https://...`) with `agent`, carrying
/// `token` in `Authorization` if given.
pub fn request(
    agent: &ureq::Agent,
    base: &str,
    method: &str,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> Option<(u16, String)> {
    let url = format!("{base}{path}");
    let mut response = match method {
        "GET" => agent.get(&url).call().ok()?,
        _ => {
            let mut r = agent.post(&url).content_type("application/json");
            if let Some(token) = token {
                r = r.header("Authorization", token);
            }
            r.send(body).ok()?
        }
    };
    let code = response.status().as_u16();
    Some((code, response.body_mut().read_to_string().ok()?))
}

/// Standard base64, padded: how the JSON gateway takes keys and values.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Member {
    fn peer_url(&self) -> String {
        let scheme = if self.client.base.starts_with("https") {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://127.0.0.1:{}", self.peer_port)
    }

    /// Whether the member answers `/health` with `"health":"true"` (it has a leader).
    fn healthy(&self) -> bool {
        self.client
            .call("GET", "/health", "")
            .is_some_and(|(code, body)| code == 200 && body.contains("\"health\":\"true\""))
    }

    /// `(member_id, leader)` from the member's status, as etcd prints them (decimal strings).
    fn status(&self) -> Option<(String, String)> {
        let (code, body) = self.client.call("POST", "/v3/maintenance/status", "{}")?;
        if code != 200 {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(&body).ok()?;
        let member = v["header"]["member_id"].as_str()?.to_string();
        let leader = v["leader"].as_str()?.to_string();
        Some((member, leader))
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl EtcdCluster {
    /// A running cluster on loopback, or `None` if `etcd` is not installed (and not required).
    pub fn start(test: &str) -> Option<EtcdCluster> {
        EtcdCluster::start_with(test, None)
    }

    /// As [`start`](Self::start), the client ports listening also on `extra_host` (an
    /// address of this machine, such as the host side of a veth pair).
    pub fn start_with(test: &str, extra_host: Option<&str>) -> Option<EtcdCluster> {
        EtcdCluster::start_full(test, extra_host, None)
    }

    /// A running cluster with TLS on every URL and client certificates required, or `None`
    /// if `etcd` is not installed (and not required).
    pub fn start_tls(test: &str, tls: Tls) -> Option<EtcdCluster> {
        EtcdCluster::start_full(test, None, Some(tls))
    }

    fn start_full(test: &str, extra_host: Option<&str>, tls: Option<Tls>) -> Option<EtcdCluster> {
        let bin = server::binary(
            test,
            "SNOWMINT_ETCD",
            "etcd",
            "apt-get install etcd-server",
            "SNOWMINT_REQUIRE_ETCD",
        )?;
        let dir = server::scratch_dir("etcd", test);
        // A port can be taken between asking and binding: try a few times.
        for attempt in 0..3 {
            let mut cluster = EtcdCluster {
                bin: bin.clone(),
                tls: tls.clone(),
                dir: dir.clone(),
                token: String::new(),
                generation: attempt,
                extra_host: extra_host.map(str::to_string),
                members: (1..=3)
                    .map(|i| {
                        let client_port = server::free_port();
                        Member {
                            name: format!("m{i}"),
                            client: member_client(tls.as_ref(), client_port),
                            client_port,
                            peer_port: server::free_port(),
                            data_dir: dir.join(format!("g{attempt}-m{i}")),
                            child: None,
                        }
                    })
                    .collect(),
            };
            cluster.token = cluster.new_token();
            if cluster.spawn_all() {
                return Some(cluster);
            }
            // Dropping it would remove the directory with the logs of the next attempt.
            cluster.kill_all();
            std::mem::forget(cluster);
        }
        panic!("etcd did not start; see the logs in {}", dir.display());
    }

    fn new_token(&self) -> String {
        format!("snowmint-{}-{}", std::process::id(), self.generation)
    }

    /// The client endpoints, `127.0.0.1:PORT`.
    pub fn endpoints(&self) -> Vec<String> {
        self.endpoints_on("127.0.0.1")
    }

    /// The client endpoints on `host` (loopback, or the extra address).
    pub fn endpoints_on(&self, host: &str) -> Vec<String> {
        self.members
            .iter()
            .map(|m| format!("{host}:{}", m.client_port))
            .collect()
    }

    /// `etcd://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3` (`etcds://` with TLS).
    pub fn url(&self) -> String {
        self.url_on("127.0.0.1")
    }

    /// The cluster's URL with every endpoint on `host`.
    pub fn url_on(&self, host: &str) -> String {
        let scheme = if self.tls.is_some() { "etcds" } else { "etcd" };
        format!("{scheme}://{}", self.endpoints_on(host).join(","))
    }

    /// Adds etcd user `name` with a role of its own that may read and write the keys from
    /// `from` up to `to` (exclusive), `READWRITE`; before [`enable_auth`](Self::enable_auth)
    /// or after it (as root).
    pub fn add_user(&self, name: &str, password: &str, from: &str, to: &str) {
        let role = format!("{name}-role");
        self.admin("/v3/auth/role/add", &serde_json::json!({ "name": role }));
        self.admin(
            "/v3/auth/role/grant",
            &serde_json::json!({ "name": role, "perm": {
                "key": base64(from.as_bytes()),
                "range_end": base64(to.as_bytes()),
                "permType": "READWRITE",
            } }),
        );
        self.admin(
            "/v3/auth/user/add",
            &serde_json::json!({ "name": name, "password": password }),
        );
        self.admin(
            "/v3/auth/user/grant",
            &serde_json::json!({ "user": name, "role": role }),
        );
    }

    /// Adds etcd user `name` with no password (`etcdctl user add NAME --no-password`, etcd
    /// 3.4 and later): it can only be the common name of a client certificate. Its role may
    /// read and write the keys from `from` up to `to` (exclusive).
    pub fn add_certificate_user(&self, name: &str, from: &str, to: &str) {
        let role = format!("{name}-role");
        self.admin("/v3/auth/role/add", &serde_json::json!({ "name": role }));
        self.admin(
            "/v3/auth/role/grant",
            &serde_json::json!({ "name": role, "perm": {
                "key": base64(from.as_bytes()),
                "range_end": base64(to.as_bytes()),
                "permType": "READWRITE",
            } }),
        );
        self.admin(
            "/v3/auth/user/add",
            &serde_json::json!({ "name": name, "options": { "no_password": true } }),
        );
        self.admin(
            "/v3/auth/user/grant",
            &serde_json::json!({ "user": name, "role": role }),
        );
    }

    /// Turns etcd's authentication on with user `root` (password `root_password`, role
    /// `root`); the harness's own requests carry root's token from then on.
    pub fn enable_auth(&mut self, root_password: &str) {
        self.admin(
            "/v3/auth/user/add",
            &serde_json::json!({ "name": "root", "password": root_password }),
        );
        self.admin("/v3/auth/role/add", &serde_json::json!({ "name": "root" }));
        self.admin(
            "/v3/auth/user/grant",
            &serde_json::json!({ "user": "root", "role": "root" }),
        );
        self.admin("/v3/auth/enable", &serde_json::json!({}));
        let answer = self.admin(
            "/v3/auth/authenticate",
            &serde_json::json!({ "name": "root", "password": root_password }),
        );
        let token = answer["token"].as_str().expect("root's token").to_string();
        for m in &mut self.members {
            m.client.token = Some(token.clone());
        }
    }

    /// One administrative request, to each member in turn until one answers 200 (or says the
    /// user or role already exists: an earlier try applied), for at most [`READY_WITHIN`]: a
    /// loaded machine may time a member out.
    fn admin(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        let end = Instant::now() + READY_WITHIN;
        let mut last = String::new();
        while Instant::now() < end {
            for m in &self.members {
                match m.client.call("POST", path, &body.to_string()) {
                    Some((200, text)) => return serde_json::from_str(&text).expect("JSON"),
                    Some((_, text)) if text.contains("already exists") => {
                        return serde_json::json!({})
                    }
                    Some((code, text)) => last = format!("{code}: {text}"),
                    None => last = "no answer".to_string(),
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{path}: {last}");
    }

    pub fn client_port(&self, i: usize) -> u16 {
        self.members[i].client_port
    }

    /// The index of the leader, as the members report it (waits for an election).
    pub fn leader(&self) -> usize {
        let end = Instant::now() + READY_WITHIN;
        loop {
            let statuses: Vec<Option<(String, String)>> =
                self.members.iter().map(Member::status).collect();
            for (_, leader) in statuses.iter().flatten() {
                // "0": this member knows no leader now.
                if leader == "0" {
                    continue;
                }
                if let Some(i) = statuses
                    .iter()
                    .position(|s| s.as_ref().is_some_and(|(id, _)| id == leader))
                {
                    return i;
                }
            }
            assert!(Instant::now() < end, "no etcd member names a live leader");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills member `i` at once (SIGKILL: a crash).
    pub fn kill(&mut self, i: usize) {
        self.members[i].kill();
    }

    /// Starts member `i` again from its data directory, with the same flags, and waits until
    /// it has rejoined (answers healthy).
    pub fn restart(&mut self, i: usize) {
        self.members[i].kill();
        assert!(self.spawn(i), "etcd member m{} did not restart", i + 1);
        self.wait_healthy(&[i]);
    }

    /// Kills every member, deletes their data, and starts a new cluster (a new token) on
    /// the same client ports: the store forgets every key, lease and revision.
    pub fn wipe_and_restart_all(&mut self) {
        self.kill_all();
        for m in &self.members {
            let _ = std::fs::remove_dir_all(&m.data_dir);
        }
        self.generation += 1;
        self.token = self.new_token();
        assert!(
            self.spawn_all(),
            "the wiped etcd cluster did not start again; see {}",
            self.dir.display()
        );
    }

    /// Saves a snapshot of the cluster's data now (`etcdctl snapshot save`, from the first
    /// member), as a backup: its path.
    pub fn snapshot_save(&self, name: &str) -> PathBuf {
        let path = self.dir.join(format!("{name}.db"));
        let endpoint = format!("127.0.0.1:{}", self.members[0].client_port);
        let ok = Command::new(etcdctl())
            .env("ETCDCTL_API", "3")
            .args(["--endpoints", &endpoint, "snapshot", "save"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "etcdctl snapshot save failed");
        path
    }

    /// Kills every member and makes a new cluster from `snapshot` on the same ports (each
    /// member's data restored by `etcdctl snapshot restore`, a new cluster token), as an
    /// operator restores a backup: every write after the snapshot is lost, and the new
    /// cluster's raft term starts anew.
    pub fn restore_all_from(&mut self, snapshot: &std::path::Path) {
        self.kill_all();
        self.generation += 1;
        self.token = self.new_token();
        let initial_cluster = self
            .members
            .iter()
            .map(|m| format!("{}={}", m.name, m.peer_url()))
            .collect::<Vec<_>>()
            .join(",");
        for m in &mut self.members {
            let _ = std::fs::remove_dir_all(&m.data_dir);
            m.data_dir = self.dir.join(format!("g{}-{}", self.generation, m.name));
            let ok = Command::new(etcdctl())
                .env("ETCDCTL_API", "3")
                .arg("snapshot")
                .arg("restore")
                .arg(snapshot)
                .args(["--name", &m.name])
                .args(["--initial-cluster", &initial_cluster])
                .args(["--initial-cluster-token", &self.token])
                .args(["--initial-advertise-peer-urls", &m.peer_url()])
                .arg("--data-dir")
                .arg(&m.data_dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "etcdctl snapshot restore failed for {}", m.name);
        }
        assert!(
            self.spawn_all(),
            "the restored etcd cluster did not start; see {}",
            self.dir.display()
        );
    }

    /// Whether `key` is in the cluster now, as the first member that answers reads it.
    pub fn has_key(&self, key: &str) -> bool {
        let body = format!(r#"{{"key":"{}"}}"#, base64(key.as_bytes()));
        self.members
            .iter()
            .find_map(|m| m.client.call("POST", "/v3/kv/range", &body))
            .is_some_and(|(code, body)| code == 200 && body.contains(r#""kvs""#))
    }

    pub fn kill_all(&mut self) {
        for m in &mut self.members {
            m.kill();
        }
    }

    fn spawn_all(&mut self) -> bool {
        for i in 0..self.members.len() {
            if !self.spawn(i) {
                return false;
            }
        }
        let all: Vec<usize> = (0..self.members.len()).collect();
        self.try_wait_healthy(&all)
    }

    fn wait_healthy(&mut self, which: &[usize]) {
        assert!(
            self.try_wait_healthy(which),
            "etcd members {which:?} not healthy within {READY_WITHIN:?}; see {}",
            self.dir.display()
        );
    }

    fn try_wait_healthy(&mut self, which: &[usize]) -> bool {
        let end = Instant::now() + READY_WITHIN;
        while Instant::now() < end {
            if which.iter().all(|&i| self.members[i].healthy()) {
                return true;
            }
            for &i in which {
                if let Some(Ok(Some(_))) = self.members[i].child.as_mut().map(|c| c.try_wait()) {
                    // Exited: a port taken meanwhile, or bad flags (see its log).
                    self.members[i].child = None;
                    return false;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// Starts member `i`'s process (not waiting for it).
    fn spawn(&mut self, i: usize) -> bool {
        let initial_cluster = self
            .members
            .iter()
            .map(|m| format!("{}={}", m.name, m.peer_url()))
            .collect::<Vec<_>>()
            .join(",");
        let m = &self.members[i];
        let mut client_urls = m.client.base.clone();
        if let Some(host) = &self.extra_host {
            client_urls.push_str(&format!(",http://{host}:{}", m.client_port));
        }
        let mut tls_flags: Vec<std::ffi::OsString> = Vec::new();
        if let Some(tls) = &self.tls {
            let (cert, key) = &tls.client_certs[i.min(tls.client_certs.len() - 1)];
            let (peer_cert, peer_key) = &tls.peer_cert;
            for (flag, path) in [
                ("--cert-file", cert),
                ("--key-file", key),
                ("--trusted-ca-file", &tls.ca),
                ("--peer-cert-file", peer_cert),
                ("--peer-key-file", peer_key),
                ("--peer-trusted-ca-file", &tls.ca),
            ] {
                tls_flags.push(flag.into());
                tls_flags.push(path.into());
            }
            tls_flags.push("--client-cert-auth".into());
            tls_flags.push("--peer-client-cert-auth".into());
        }
        let log_path = self
            .dir
            .join(format!("{}-g{}.log", m.name, self.generation));
        let Ok(log) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
        else {
            return false;
        };
        let Ok(log2) = log.try_clone() else {
            return false;
        };
        let child = Command::new(&self.bin)
            .args(["--name", &m.name])
            .arg("--data-dir")
            .arg(&m.data_dir)
            .args(["--listen-peer-urls", &m.peer_url()])
            .args(["--initial-advertise-peer-urls", &m.peer_url()])
            .args(["--listen-client-urls", &client_urls])
            .args(["--advertise-client-urls", &client_urls])
            .args(["--initial-cluster", &initial_cluster])
            .args(["--initial-cluster-state", "new"])
            .args(["--initial-cluster-token", &self.token])
            .args(&tls_flags)
            // Fail-over in about half a second instead of the default's seconds.
            .args(["--heartbeat-interval", "50", "--election-timeout", "500"])
            .args([
                "--logger",
                "zap",
                "--log-outputs",
                "stderr",
                "--log-level",
                "warn",
            ])
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn();
        match child {
            Ok(c) => {
                self.members[i].child = Some(c);
                true
            }
            Err(_) => false,
        }
    }
}

/// `$SNOWMINT_ETCDCTL`, else `etcdctl` on `PATH` (it comes with etcd).
fn etcdctl() -> String {
    std::env::var("SNOWMINT_ETCDCTL").unwrap_or_else(|_| "etcdctl".to_string())
}

/// How the harness reaches a member on `port`: plain, or TLS with the harness's settings.
fn member_client(tls: Option<&Tls>, port: u16) -> Client {
    match tls {
        Some(tls) => Client {
            base: format!("https://127.0.0.1:{port}"),
            agent: agent(Some(tls.harness.clone())),
            token: None,
        },
        None => Client {
            base: format!("http://127.0.0.1:{port}"),
            agent: agent(None),
            token: None,
        },
    }
}

impl Drop for EtcdCluster {
    fn drop(&mut self) {
        self.kill_all();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
