//! The owner token a lease writes into the store: unique to one lease of one process.

use std::sync::atomic::{AtomicU64, Ordering};

/// A token unique to one lease: host name, process, time and a counter.
pub(crate) fn owner_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Relaxed: only the value's uniqueness in this process matters, which any RMW gives.
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let host = hostname().unwrap_or_else(|| "unknown-host".to_string());
    format!(
        "{host}/{}/{}/{n}",
        std::process::id(),
        snowmint::clock::Clock::now_unix_nanos(&snowmint::clock::WallClock)
    )
}

/// The machine's host name, for people reading the owner token (the process, time and
/// counter make it unique): the kernel's, else `$HOSTNAME`, else `/etc/hostname`.
fn hostname() -> Option<String> {
    let from_file = |p: &str| std::fs::read_to_string(p).ok();
    [
        from_file("/proc/sys/kernel/hostname"),
        std::env::var("HOSTNAME").ok(),
        from_file("/etc/hostname"),
    ]
    .into_iter()
    .flatten()
    .map(|h| h.trim().to_string())
    .find(|h| !h.is_empty())
}

/// A random number for a namespace's record: std's randomly seeded hasher (the OS's
/// randomness), over the owner token.
#[cfg_attr(not(any(feature = "redis", feature = "etcd")), allow(dead_code))]
pub(crate) fn incarnation(owner: &str) -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(owner)
}
