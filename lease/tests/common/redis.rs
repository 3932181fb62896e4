//! A real `redis-server` for tests: started on a free loopback port in a temporary
//! directory, without persistence, and stopped, killed or restarted on the same port.
//!
//! The binary is `$SNOWMINT_REDIS_SERVER`, else `redis-server` on `PATH`. Without one, a
//! test is skipped with a message written straight to stderr (past the test harness's
//! capture), unless `SNOWMINT_REQUIRE_REDIS=1` (CI sets it), when it fails.

#![allow(dead_code)]

#[path = "../../../tests/common/server.rs"]
mod server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// TLS only (`--port 0 --tls-port PORT`), client certificates required (Redis's default).
#[derive(Clone)]
pub struct RedisTls {
    pub ca: PathBuf,
    /// The server's certificate and key.
    pub cert: (PathBuf, PathBuf),
    /// The certificate and key `redis-cli` presents for the harness's own commands.
    pub client: (PathBuf, PathBuf),
}

pub struct RedisServer {
    bin: String,
    tls: Option<RedisTls>,
    port: u16,
    dir: PathBuf,
    /// Another address to listen on besides loopback (the host side of a veth pair).
    extra_bind: Option<String>,
    child: Option<Child>,
}

impl RedisServer {
    /// A running server, or `None` if `redis-server` is not installed (and not required).
    pub fn start(test: &str) -> Option<RedisServer> {
        RedisServer::start_on(test, None)
    }

    /// As [`start`](Self::start), listening also on `extra_bind` (an address of this
    /// machine, such as the host side of a veth pair).
    pub fn start_on(test: &str, extra_bind: Option<&str>) -> Option<RedisServer> {
        RedisServer::start_full(test, extra_bind, None)
    }

    /// A running server that speaks only TLS, or `None` if `redis-server` is not installed
    /// (and not required). The harness's own commands go through `redis-cli --tls`.
    pub fn start_tls(test: &str, tls: RedisTls) -> Option<RedisServer> {
        RedisServer::start_full(test, None, Some(tls))
    }

    fn start_full(
        test: &str,
        extra_bind: Option<&str>,
        tls: Option<RedisTls>,
    ) -> Option<RedisServer> {
        let bin = server::binary(
            test,
            "SNOWMINT_REDIS_SERVER",
            "redis-server",
            "apt-get install redis-server",
            "SNOWMINT_REQUIRE_REDIS",
        )?;
        let dir = server::scratch_dir("redis", test);
        // A port can be taken between asking and binding: try a few.
        for _ in 0..5 {
            let mut server = RedisServer {
                bin: bin.clone(),
                tls: tls.clone(),
                port: server::free_port(),
                dir: dir.clone(),
                extra_bind: extra_bind.map(str::to_string),
                child: None,
            };
            if server.spawn() {
                return Some(server);
            }
        }
        panic!("redis-server did not start; see {}", dir.display());
    }

    pub fn url(&self) -> String {
        self.url_on("127.0.0.1")
    }

    /// The server's URL on `host` (loopback, or the extra address).
    pub fn url_on(&self, host: &str) -> String {
        let scheme = if self.tls.is_some() {
            "rediss"
        } else {
            "redis"
        };
        format!("{scheme}://{host}:{}/", self.port)
    }

    /// The server's URL for ACL user `user` (no password in it).
    pub fn url_as(&self, user: &str) -> String {
        let scheme = if self.tls.is_some() {
            "rediss"
        } else {
            "redis"
        };
        format!("{scheme}://{user}@127.0.0.1:{}/", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts the process on `self.port` and waits until it answers PING.
    fn spawn(&mut self) -> bool {
        let log = std::fs::File::create(self.dir.join("redis.log")).expect("log file");
        let mut bind = vec!["127.0.0.1"];
        bind.extend(self.extra_bind.as_deref());
        // Protected mode refuses clients from any address but loopback; the extra address
        // is reachable only from the test's own network namespace.
        let protected = if self.extra_bind.is_some() {
            "no"
        } else {
            "yes"
        };
        let port = self.port.to_string();
        let mut ports = vec!["--port", &port];
        if let Some(tls) = &self.tls {
            ports = vec!["--port", "0", "--tls-port", &port];
            ports.extend(["--tls-cert-file", path(&tls.cert.0)]);
            ports.extend(["--tls-key-file", path(&tls.cert.1)]);
            ports.extend(["--tls-ca-cert-file", path(&tls.ca)]);
        }
        let child = Command::new(&self.bin)
            .args(&ports)
            .arg("--bind")
            .args(&bind)
            .args(["--protected-mode", protected])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .args(["--daemonize", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("spawn redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.ping() {
                return true;
            }
            if let Some(Ok(Some(_))) = self.child.as_mut().map(|c| c.try_wait()) {
                self.child = None;
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
        false
    }

    fn ping(&self) -> bool {
        if self.tls.is_some() {
            return self.cli(&["PING"]).is_some_and(|out| out == "PONG");
        }
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
        let mut buf = [0_u8; 7];
        s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
    }

    /// Kills the server at once (SIGKILL: a crash, nothing flushed).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Sends the server `sig` (`-STOP`: it stops answering, every connection and key kept;
    /// `-CONT`: it answers again).
    pub fn signal(&self, sig: &str) {
        let pid = self.child.as_ref().expect("running").id().to_string();
        let ok = Command::new("kill")
            .args([sig, &pid])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill {sig} redis-server {pid} failed");
    }

    /// Starts it again on the same port, empty (it had no persistence).
    pub fn restart(&mut self) {
        self.kill();
        assert!(
            self.spawn(),
            "redis-server did not restart on port {}",
            self.port
        );
    }

    /// Writes an RDB snapshot now (`SAVE`) and keeps a copy of it, as a backup: its path.
    pub fn snapshot(&self, name: &str) -> PathBuf {
        assert_eq!(self.command(&["SAVE"]), "+OK", "SAVE failed");
        let copy = self.dir.join(format!("{name}.rdb"));
        std::fs::copy(self.dir.join("dump.rdb"), &copy).expect("copy the RDB file");
        copy
    }

    /// Kills the server and starts it again on the same port from the RDB file `snapshot`
    /// (made by [`snapshot`](Self::snapshot)): every write after it is lost, as after a
    /// restart that loaded an older snapshot, or a restore from a backup.
    pub fn restart_from(&mut self, snapshot: &std::path::Path) {
        self.kill();
        std::fs::copy(snapshot, self.dir.join("dump.rdb")).expect("put the RDB file back");
        assert!(
            self.spawn(),
            "redis-server did not restart from {} on port {}",
            snapshot.display(),
            self.port
        );
    }

    /// Runs a command over raw RESP and returns the reply's value line (a bulk string's
    /// value, an integer as `:N`, `$-1` for nil).
    pub fn command(&self, args: &[&str]) -> String {
        if self.tls.is_some() {
            return self.cli(args).expect("redis-cli answers");
        }
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let mut req = format!("*{}\r\n", args.len());
        for a in args {
            req.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        s.write_all(req.as_bytes()).expect("write");
        let mut out = Vec::new();
        let mut byte = [0_u8; 1];
        // Bulk strings: the length line, then the value line.
        let mut lines = 0;
        while s.read_exact(&mut byte).is_ok() {
            out.push(byte[0]);
            if out.ends_with(b"\r\n") {
                lines += 1;
                let first = out.first().copied();
                if lines == 1 && first != Some(b'$') || lines == 2 {
                    break;
                }
                if lines == 1 && out.starts_with(b"$-1") {
                    break;
                }
            }
        }
        let text = String::from_utf8_lossy(&out).trim_end().to_string();
        text.lines().last().unwrap_or("").to_string()
    }
}

impl RedisServer {
    /// One command through `redis-cli --tls` with the harness's certificate (not checking
    /// the server's, which some tests make bad on purpose): its output's last line, or
    /// `None` if it failed.
    fn cli(&self, args: &[&str]) -> Option<String> {
        let tls = self.tls.as_ref()?;
        let out = Command::new("redis-cli")
            .args([
                "--tls",
                "--insecure",
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
            ])
            .args(["--cacert", path(&tls.ca)])
            .args(["--cert", path(&tls.client.0), "--key", path(&tls.client.1)])
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
        (out.status.success()).then(|| text.lines().last().unwrap_or("").to_string())
    }
}

fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
