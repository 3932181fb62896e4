//! The owner token a lease writes into the store: unique to one lease of one process.

use std::sync::atomic::{AtomicU64, Ordering};

/// A token unique to one lease: host name, process, time and a counter.
pub(crate) fn owner_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Relaxed: only the value's uniqueness in this process matters, which any RMW gives.
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let host = crate::fleet::node::system_hostname().unwrap_or_else(|| "unknown-host".to_string());
    format!(
        "{host}/{}/{}/{n}",
        std::process::id(),
        crate::clock::system_unix_nanos()
    )
}

/// A random number for a namespace's record: std's randomly seeded hasher (the OS's
/// randomness), over the owner token.
pub(crate) fn incarnation(owner: &str) -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(owner)
}
