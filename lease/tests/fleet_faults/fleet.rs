//! The store of one test (a redis-server, an etcd cluster or a PostgreSQL cluster) and the
//! minters of one test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::etcd_cluster;
use crate::minter::*;
use crate::netns::NetNs;
#[cfg(feature = "postgres")]
use crate::pg_cluster::Cluster;
use crate::redis_server::RedisServer;
use crate::settings::*;
use crate::stepped_clock::CLOCK_FILE;

/// The store of one test: a redis-server, an etcd cluster or a PostgreSQL cluster. The
/// PostgreSQL one runs with `fsync` off: its commits do not wait for a disk that other builds
/// keep busy (flushes there stalled every call past the I/O timeout for seconds), and every
/// claim waits the forgetting rule, as on a store that cannot vouch.
pub(crate) enum Store {
    Redis(RedisServer),
    Etcd(etcd_cluster::EtcdCluster),
    #[cfg(feature = "postgres")]
    Postgres(Cluster),
}

impl Store {
    /// Fresh servers, listening also on `extra` if given; `None` if not installed (skipped).
    pub(crate) fn start(backend: Backend, test: &str, extra: Option<&str>) -> Option<Store> {
        match backend {
            Backend::Redis => RedisServer::start_on(test, extra).map(Store::Redis),
            Backend::Etcd => etcd_cluster::EtcdCluster::start_with(test, extra).map(Store::Etcd),
            #[cfg(feature = "postgres")]
            Backend::Postgres => {
                let listen = extra.map_or("127.0.0.1".to_string(), |a| format!("127.0.0.1,{a}"));
                Cluster::start(
                    test,
                    &[("listen_addresses", listen.as_str()), ("fsync", "off")],
                    "host all all 0.0.0.0/0 trust",
                )
                .map(Store::Postgres)
            }
            #[cfg(not(feature = "postgres"))]
            Backend::Postgres => panic!("this test binary was built without feature `postgres`"),
        }
    }

    pub(crate) fn url_on(&self, host: &str) -> String {
        match self {
            Store::Redis(r) => r.url_on(host),
            Store::Etcd(e) => e.url_on(host),
            #[cfg(feature = "postgres")]
            Store::Postgres(c) => format!("postgres://postgres@{host}:{}/postgres", c.port),
        }
    }

    pub(crate) fn url(&self) -> String {
        self.url_on("127.0.0.1")
    }

    /// Waits until the store holds a claim on `node` of `namespace` (its holder key exists);
    /// panics after `within`.
    pub(crate) fn wait_held(&self, namespace: &str, node: u64, within: Duration) {
        let end = Instant::now() + within;
        while !self.holds(namespace, node) {
            assert!(
                Instant::now() < end,
                "nobody claimed node {node} within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub(crate) fn holds(&self, namespace: &str, node: u64) -> bool {
        match self {
            Store::Redis(r) => {
                r.command(&["EXISTS", &format!("snowmint:{namespace}:node:{node}")]) == ":1"
            }
            Store::Etcd(e) => e.has_key(&format!("snowmint/{namespace}/holder/{node}")),
            #[cfg(feature = "postgres")]
            Store::Postgres(c) => c
                .try_psql(&format!(
                    "SELECT count(*) FROM snowmint_lease_node WHERE namespace = '{namespace}' \
                     AND node = {node} AND holder IS NOT NULL AND expires_at > clock_timestamp()"
                ))
                .is_ok_and(|n| n == "1"),
        }
    }

    /// The store restarted with nothing it held: Redis without persistence, etcd wiped.
    pub(crate) fn restart_empty(&mut self) {
        match self {
            Store::Redis(r) => r.restart(),
            Store::Etcd(e) => e.wipe_and_restart_all(),
            #[cfg(feature = "postgres")]
            Store::Postgres(_) => unreachable!("no PostgreSQL test restarts it empty"),
        }
    }
}

/// The minters of one test, all killed on drop (also when the test fails).
pub(crate) struct Fleet {
    pub(crate) backend: Backend,
    pub(crate) namespace: String,
    pub(crate) dir: PathBuf,
    pub(crate) minters: Vec<Minter>,
    /// The CA, client certificate and user every minter reaches a secured store with.
    pub(crate) tls: Option<ChildTls>,
}

/// How a minter reaches a secured etcd cluster: passed in its environment, the password
/// too (never on a command line). An empty `user`: the client certificate's common name is
/// the user (etcd's certificate-as-user authentication, no password).
#[derive(Clone)]
#[cfg_attr(not(feature = "etcd"), allow(dead_code))]
pub(crate) struct ChildTls {
    pub(crate) ca: PathBuf,
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
    pub(crate) user: String,
    pub(crate) password: String,
}

#[cfg_attr(not(feature = "etcd"), allow(dead_code))]
impl ChildTls {
    const VARS: [&'static str; 5] = [
        "SNOWMINT_FAULT_CA",
        "SNOWMINT_FAULT_CERT",
        "SNOWMINT_FAULT_KEY",
        "SNOWMINT_FAULT_USER",
        "SNOWMINT_FAULT_PASSWORD",
    ];

    /// The settings in this process's environment, if the parent set them.
    pub(crate) fn from_env() -> Option<ChildTls> {
        let [ca, cert, key, user, password] = Self::VARS.map(|v| std::env::var(v).ok());
        Some(ChildTls {
            ca: ca?.into(),
            cert: cert?.into(),
            key: key?.into(),
            user: user?,
            password: password?,
        })
    }

    fn env(&self) -> [(&'static str, std::ffi::OsString); 5] {
        let [ca, cert, key, user, password] = Self::VARS;
        [
            (ca, self.ca.clone().into()),
            (cert, self.cert.clone().into()),
            (key, self.key.clone().into()),
            (user, self.user.clone().into()),
            (password, self.password.clone().into()),
        ]
    }
}

impl Fleet {
    pub(crate) fn new(backend: Backend, test: &str) -> Fleet {
        let dir = std::env::temp_dir().join(format!(
            "snowmint-faults-{test}-{}-{}",
            backend.name(),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Fleet {
            backend,
            namespace: format!("faults-{test}"),
            dir,
            minters: Vec::new(),
            tls: None,
        }
    }

    /// The same fleet, its minters reaching the store with `tls`.
    #[cfg(feature = "etcd")]
    pub(crate) fn secured(mut self, tls: ChildTls) -> Fleet {
        self.tls = Some(tls);
        self
    }

    /// Starts minter `name` on `nodes` of the store at `url`, inside `net` if given.
    pub(crate) fn spawn(
        &mut self,
        name: &str,
        url: &str,
        nodes: (u64, u64),
        net: Option<&NetNs>,
    ) -> usize {
        let exe = std::env::current_exe().expect("test binary");
        let mut cmd = match net {
            Some(net) => net.command(&exe),
            None => Command::new(&exe),
        };
        let stderr = self.dir.join(format!("{name}.stderr"));
        let log_file = std::fs::File::create(&stderr).expect("stderr file");
        cmd.args([
            "child_minter",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_BACKEND, self.backend.name())
        .env("SNOWMINT_FAULT_URL", url)
        .env("SNOWMINT_FAULT_NAMESPACE", &self.namespace)
        .env("SNOWMINT_FAULT_NODES", format!("{}-{}", nodes.0, nodes.1))
        .env("SNOWMINT_FAULT_TTL_MS", TTL.as_millis().to_string())
        .env("SNOWMINT_FAULT_MARGIN_MS", MARGIN.as_millis().to_string())
        .env(
            "SNOWMINT_FAULT_IO_TIMEOUT_MS",
            self.backend.io_timeout().as_millis().to_string(),
        )
        .env("SNOWMINT_FAULT_PACE_US", PACE.as_micros().to_string())
        .env("SNOWMINT_FAULT_BATCH", BATCH.to_string())
        .env("SNOWMINT_FAULT_THREADS", THREADS.to_string())
        .envs(self.tls.iter().flat_map(ChildTls::env))
        .envs(
            self.clock_file(name)
                .exists()
                .then(|| (CLOCK_FILE, self.clock_file(name))),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file);
        let mut child = cmd.spawn().expect("spawn a minter");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let log = Arc::new(Mutex::new(Log::default()));
        let reader = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                // Lines are handed to the log a pipe-read at a time, not one by one, so that
                // the test's thread polling the log meets the lock taken once per read, not
                // once per line (a lock is not fair, and beside a CPU hog every wait on it
                // is long).
                let mut reader = BufReader::with_capacity(1 << 16, stdout);
                let mut lines = Vec::new();
                loop {
                    let mut line = String::new();
                    let done = !matches!(reader.read_line(&mut line), Ok(n) if n > 0);
                    if !done {
                        lines.push(line);
                    }
                    if done || reader.buffer().is_empty() {
                        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                        for line in lines.drain(..) {
                            log.parse(line.trim_end_matches('\n'));
                        }
                    }
                    if done {
                        break;
                    }
                }
            })
        };
        self.minters.push(Minter {
            name: name.to_string(),
            child,
            stdin,
            log,
            reader: Some(reader),
            stderr,
            status: None,
            killed: false,
        });
        self.minters.len() - 1
    }

    /// The file of minter `name`'s clock offset (see `stepped_clock`).
    pub(crate) fn clock_file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.clock"))
    }

    /// Sets minter `name`'s clock offset to `ms`: before it is spawned, its clock starts so
    /// and it watches the file; after, it steps its clock when it next reads the file (and
    /// says so, `STEPPED`).
    pub(crate) fn set_clock(&self, name: &str, ms: i64) {
        std::fs::write(self.clock_file(name), ms.to_string()).expect("clock file");
    }

    pub(crate) fn get(&mut self, name: &str) -> &mut Minter {
        self.minters
            .iter_mut()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no minter {name}"))
    }

    /// Minters a, b and c on nodes 1, 2 and 3, all minting.
    pub(crate) fn spawn_three(
        &mut self,
        url_of: impl Fn(&str) -> String,
        net_for_a: Option<&NetNs>,
    ) {
        for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
            let node = i as u64 + 1;
            let net = if name == "a" { net_for_a } else { None };
            self.spawn(name, &url_of(name), (node, node), net);
        }
        for name in ["a", "b", "c"] {
            self.get(name)
                .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
        }
    }

    /// Stops every minter still running; returns each one's exit code (`None`: a signal).
    pub(crate) fn stop_all(&mut self) -> BTreeMap<String, Option<i32>> {
        // Close every stdin first, so that they all stop together.
        for m in &mut self.minters {
            m.stdin = None;
        }
        self.minters
            .iter_mut()
            .map(|m| (m.name.clone(), m.stop().code()))
            .collect()
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.minters.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
