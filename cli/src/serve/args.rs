//! The flags of `snowmint serve`, and the value parsers only they use.

use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::time::Duration;

use crate::escape::quoted;
use crate::layout_arg::{self, NamedLayout};
use crate::node_arg::NodeArgs;
use crate::store_args::StoreArgs;
use crate::tls::TlsArgs;
use crate::value::{self, duration};

/// The largest `--max-batch`: a million IDs is a 21 MB text body, minted in about a quarter
/// of a second by one shard of Twitter's layout; larger batches belong in several requests.
pub const MAX_BATCH_LIMIT: u64 = 1_000_000;

/// Run an HTTP ID service: GET /id, /ids?n=N, /uuid7?n=N, /ulid?n=N, /decode/{id}, /livez,
/// /readyz, /healthz, /metrics, / (the status page).
///
/// The minting routes (/id, /ids, /uuid7, /ulid) answer GET only (HEAD gets 405: it would
/// mint IDs nobody reads); /decode/{id} reads any encoding `snowmint decode` reads, UUIDv7
/// and ULID too (?from=ENCODING to name it). With --grpc-listen, the same service also
/// answers gRPC on a port of its own (snowmint.v1.IdService from
/// proto/snowmint/v1/snowmint.proto, with grpc.health.v1 and reflection).
///
/// One process serves IDs to clients in any language over HTTP/1.1. It mints on a sharded
/// generator: the node field is split into a node number (from --node, --node-from or a
/// Redis lease) and shard bits below it, one shard per worker thread (a fixed node lends an
/// idle worker's shard to a busy one), so workers never wait for each other. With --lease, the node number is leased from Redis or etcd and renewed in the
/// background. The service listens before it claims the node: until it mints, /livez
/// answers 200 and /readyz, /id and /ids 503 naming what it waits for (with Retry-After).
/// While the lease cannot be renewed the service answers 503 (with Retry-After) instead of
/// minting, and /readyz and /healthz fail. SIGTERM or Ctrl-C stops it
/// gracefully: no new connections, requests in flight finish (for at most --grace), the
/// lease is released with its mark, exit status 0. A lease lost to another process (this one
/// was paused or cut off from Redis past its TTL) stops the service the same way, with exit
/// status 1, for its supervisor to start it anew.
///
/// Plaintext HTTP by default; with --tls-cert and --tls-key it speaks HTTPS only, and the
/// gRPC listener TLS (with --tls-client-ca both require client certificates from that CA),
/// the files reloaded on SIGHUP and when they change.
#[derive(Debug, clap::Args)]
#[command(mut_arg("node", |a| a.help(
    "The node number: the node bits above the shard bits (0 to 127 for twitter with 3 shard \
     bits, the default on 2 CPUs) [default: 0]"
)))]
#[command(mut_arg("node_from", |a| a.help(
    "Take the host number from the environment (SNOWMINT_NODE), the network or the host name"
)))]
pub struct Args {
    /// The address and port to listen on (port 0: a free port, printed at start)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7007", value_parser = value::text(listen_addr))]
    pub listen: SocketAddr,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    pub layout: NamedLayout,

    #[command(flatten)]
    pub node: NodeArgs,

    #[command(flatten)]
    pub lease: LeaseArgs,

    /// The most IDs one GET /ids may ask for (n above it is refused with 400)
    #[arg(long, value_name = "N", default_value = "10000", value_parser = value::text(max_batch))]
    pub max_batch: u64,

    /// Worker threads serving requests, each minting on a shard of its own [default: twice
    /// the number of CPUs: a shard mints at most the layout's rate (4,096,000 IDs/s for
    /// twitter), and workers spend much of their time in system calls]
    #[arg(long, value_name = "N", value_parser = value::text(workers))]
    pub workers: Option<usize>,

    /// Node bits that number shards, below the node [default: the fewest that give every
    /// worker a shard of its own, plus the shared overflow shard]
    #[arg(long, value_name = "BITS", value_parser = value::text(shard_bits))]
    pub shard_bits: Option<u8>,

    /// Future ticks each shard may borrow when its tick is used up, so that a burst does
    /// not wait out tokio's 1 ms timer at every tick: IDs are then stamped at most this many
    /// ticks ahead of the clock. The rate over time stays the layout's cap per shard
    #[arg(long, value_name = "TICKS", default_value = "2", value_parser = value::text(lead_ticks))]
    pub lead_ticks: u64,

    /// The longest a request waits for IDs when its shard's tick is used up or the clock
    /// stepped back; past it the request gets 503
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = value::text(duration))]
    pub max_wait: Duration,

    /// The most connections open at once. At the cap a new connection takes the place of
    /// the oldest one with no request in flight (an idle or half-open socket); while every
    /// one has a request in flight, 16 more are taken that answer only /livez, /readyz,
    /// /healthz and /metrics, and past those a connection is closed at once [default: 1024,
    /// or the open-file limit (ulimit -n) less 64 when that is lower]
    #[arg(long, value_name = "N", value_parser = value::text(max_connections))]
    pub max_connections: Option<usize>,

    /// How long a new connection may take to send its first request's whole head; past it
    /// the connection is closed (silent or slow clients hold no descriptor for long)
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = value::text(timeout))]
    pub header_timeout: Duration,

    /// How long a keep-alive connection may take from an answer to the next request's
    /// whole head before it is closed (at least --header-timeout)
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = value::text(timeout))]
    pub idle_timeout: Duration,

    #[command(flatten)]
    pub tls: TlsArgs,

    /// After SIGTERM or Ctrl-C, how long requests in flight may take before the server
    /// closes their connections and exits anyway
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = value::text(duration))]
    pub grace: Duration,

    #[command(flatten)]
    pub grpc: GrpcArgs,
}

/// The flags of the gRPC listener (`--grpc-listen`; see proto/snowmint/v1/snowmint.proto).
#[derive(Debug, Clone, clap::Args)]
pub struct GrpcArgs {
    /// Also serve gRPC (snowmint.v1.IdService, grpc.health.v1, reflection) on this address
    /// and port, HTTP/2 (TLS with --tls-cert and --tls-key, as HTTPS); off unless given. A
    /// port of its own: the HTTP/1.1
    /// listener keeps its limits and timeouts, and HTTP/2's long-lived connections and
    /// streams get theirs (port 0: a free port, printed at start)
    #[arg(long, value_name = "ADDR", value_parser = value::text(listen_addr))]
    pub grpc_listen: Option<SocketAddr>,

    /// The most gRPC connections open at once; past it new connections wait in the
    /// kernel's accept queue until one closes
    #[arg(long, value_name = "N", default_value = "256", requires = "grpc_listen", value_parser = value::text(max_connections))]
    pub grpc_max_connections: usize,

    /// The most calls (streams) open at once on one gRPC connection (HTTP/2's
    /// SETTINGS_MAX_CONCURRENT_STREAMS: a client past it waits)
    #[arg(long, value_name = "N", default_value = "128", requires = "grpc_listen", value_parser = value::text(max_streams))]
    pub grpc_max_streams: u32,

    /// The most IDs one chunk of StreamIds may hold (the client picks its chunk size up to
    /// this): 1 to 131072, so that a chunk of 16-byte IDs stays within the 4 MiB message
    /// every gRPC client accepts by default
    #[arg(long, value_name = "N", default_value = "65536", requires = "grpc_listen", value_parser = value::text(max_chunk))]
    pub grpc_max_chunk: u32,

    /// How long a unary gRPC call may take before it is cancelled (streams are not bound
    /// by it: they end when the client stops them, their count is reached, or the service
    /// stops)
    #[arg(long, value_name = "DURATION", default_value = "10s", requires = "grpc_listen", value_parser = value::text(timeout))]
    pub grpc_timeout: Duration,
}

/// The flags of a node number leased from Redis or etcd.
#[derive(Debug, Clone, clap::Args)]
pub struct LeaseArgs {
    /// Lease the node number from Redis (redis://HOST:PORT/DB, rediss:// for TLS) or from an
    /// etcd cluster (etcd://HOST:PORT,HOST:PORT,..., etcds:// for TLS), renewed in the background, released on exit (instead
    /// of --node or --node-from). The service listens first; a start the store cannot vouch
    /// for (a new namespace, a store that may have lost writes) then waits one --ttl plus the
    /// margin before it mints, GET /readyz saying so meanwhile
    #[arg(long, value_name = "URL", conflicts_with_all = ["node", "node_from"])]
    pub lease: Option<String>,

    #[command(flatten)]
    pub store: StoreArgs,

    /// The node numbers this service may lease, FIRST-LAST [default: every node number the
    /// layout and shard bits leave, at most 65,536]. While every one is held, the claim is
    /// tried again for up to two TTLs (a crashed holder's lease lapses within one)
    #[arg(long, value_name = "FIRST-LAST", requires = "lease", value_parser = value::text(node_range))]
    pub nodes: Option<RangeInclusive<u64>>,

    /// How long the lease lives without renewal (Redis 30ms to 1 day, etcd 1s to 1 day);
    /// renewed every third of it.
    /// A crashed service's node number is free again after this long
    #[arg(long, value_name = "DURATION", default_value = "10s", requires = "lease", value_parser = value::text(duration))]
    pub ttl: Duration,

    /// How much before the lease would expire minting stops, when renewals fail [default: a
    /// fifth of the TTL; at most half]
    #[arg(long, value_name = "DURATION", requires = "lease", value_parser = value::text(duration))]
    pub margin: Option<Duration>,

    /// At start, the longest to wait for this clock to pass the mark the node number's last
    /// owner left; a clock further behind is an error
    #[arg(long, value_name = "DURATION", default_value = "10s", requires = "lease", value_parser = value::text(duration))]
    pub lease_wait: Duration,
}

fn listen_addr(text: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|_| {
        format!(
            "{} is not an address to listen on: expected IP:PORT, e.g. 127.0.0.1:7007, 0.0.0.0:7007 or [::1]:7007",
            quoted(text)
        )
    })
}

/// A plain decimal number in `range`, or an error naming `what` and the range.
fn number_in(text: &str, range: RangeInclusive<u64>, what: &str) -> Result<u64, String> {
    value::number(text)
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "{} is not {what}: allowed {} to {}",
                quoted(text),
                range.start(),
                range.end()
            )
        })
}

fn max_connections(text: &str) -> Result<usize, String> {
    number_in(text, 1..=1_000_000, "a number of connections").map(|n| n as usize)
}

/// A timeout: a duration from 1 ms to 1 hour.
fn timeout(text: &str) -> Result<Duration, String> {
    let d = duration(text)?;
    if d < Duration::from_millis(1) || d > Duration::from_secs(3600) {
        return Err(format!(
            "{} is not a timeout: allowed 1ms to 1h",
            quoted(text)
        ));
    }
    Ok(d)
}

fn max_streams(text: &str) -> Result<u32, String> {
    number_in(text, 1..=65_536, "a number of streams").map(|n| n as u32)
}

/// The largest `--grpc-max-chunk`: 131,072 16-byte IDs are 2 MiB, half the 4 MiB message
/// gRPC clients accept by default.
pub const MAX_CHUNK_LIMIT: u32 = 131_072;

fn max_chunk(text: &str) -> Result<u32, String> {
    number_in(text, 1..=u64::from(MAX_CHUNK_LIMIT), "a chunk size (IDs)").map(|n| n as u32)
}

fn max_batch(text: &str) -> Result<u64, String> {
    number_in(text, 1..=MAX_BATCH_LIMIT, "a batch size")
}

fn workers(text: &str) -> Result<usize, String> {
    number_in(text, 1..=1024, "a number of worker threads").map(|n| n as usize)
}

fn shard_bits(text: &str) -> Result<u8, String> {
    number_in(text, 1..=16, "a number of shard bits")
        .map(|n| n as u8)
        .map_err(|e| e + " (and at most the layout's node bits)")
}

fn lead_ticks(text: &str) -> Result<u64, String> {
    number_in(text, 0..=1_000, "a number of ticks")
}

fn node_range(text: &str) -> Result<RangeInclusive<u64>, String> {
    let bad = || {
        format!(
            "{} is not a range of node numbers: expected FIRST-LAST in plain decimal digits, FIRST <= LAST, e.g. 0-99",
            quoted(text)
        )
    };
    let (first, last) = text.split_once('-').ok_or_else(bad)?;
    let first = crate::value::parse_number(first).ok_or_else(bad)?;
    let last = crate::value::parse_number(last).ok_or_else(bad)?;
    if first > last {
        return Err(bad());
    }
    Ok(first..=last)
}

/// The shard bits for `workers` worker threads: the fewest whose exclusive shards (all but
/// the overflow shard) number at least `workers`, at most the layout's node bits and 16.
pub fn default_shard_bits(workers: usize, node_bits: u8) -> u8 {
    let mut bits = 1_u8;
    while ((1_u64 << bits) - 1) < workers as u64 && bits < 16 {
        bits += 1;
    }
    bits.min(node_bits.min(16)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worker_gets_a_shard_and_the_overflow_is_extra() {
        assert_eq!(default_shard_bits(1, 10), 1);
        assert_eq!(default_shard_bits(2, 10), 2);
        assert_eq!(default_shard_bits(3, 10), 2);
        assert_eq!(default_shard_bits(4, 10), 3);
        assert_eq!(default_shard_bits(64, 10), 7);
        // Never more than the layout has.
        assert_eq!(default_shard_bits(64, 5), 5);
        assert_eq!(default_shard_bits(100_000, 22), 16);
    }

    #[test]
    fn ranges_and_sizes_are_checked() {
        assert_eq!(node_range("0-99"), Ok(0..=99));
        assert_eq!(node_range("7-7"), Ok(7..=7));
        for bad in ["9-1", "1", "-5", "a-b", "01-5", "1-+5", "1..5"] {
            assert!(node_range(bad).is_err(), "{bad}");
        }
        assert_eq!(max_batch("1"), Ok(1));
        assert!(max_batch("0").unwrap_err().contains("allowed 1 to 1000000"));
        assert!(max_batch("1000001").is_err());
        assert!(workers("0").is_err());
        assert!(shard_bits("17").is_err());
        assert!(listen_addr("localhost:80").is_err());
        assert_eq!(
            listen_addr("[::1]:0").unwrap(),
            "[::1]:0".parse::<SocketAddr>().unwrap()
        );
    }
}
