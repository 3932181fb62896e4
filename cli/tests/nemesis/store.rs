//! What the nemesis asks of a store, whichever it is: its URLs, and the faults it can suffer,
//! each done with the store's own tools or processes. One driver a store
//! (`store_redis.rs`, `store_etcd.rs`, `store_postgres.rs`).

use std::path::PathBuf;

use crate::schedule::Abilities;

/// A store of leases under the nemesis.
pub trait StoreDriver: Send {
    /// The `--lease` URL reaching the store at `host` (the servers use the store's own
    /// address, the operator loopback).
    fn url_on(&self, host: &str) -> String;
    fn abilities(&self) -> Abilities;
    /// Restarts the store, each process down for `down`: the time (Unix nanoseconds) from
    /// which until which no server could reach it, if there was one (Redis killed and
    /// started again empty, having no persistence; etcd's members killed and restarted from
    /// their data one at a time, a quorum kept throughout, so none).
    fn restart(&mut self, down: std::time::Duration) -> Option<(u64, u64)>;
    /// Deletes every key of the namespace's store with the store's own client.
    fn wipe(&mut self);
    /// Takes a backup now.
    fn snapshot(&mut self) -> PathBuf;
    /// Replaces the store by the backup `from` (stopped, restored, started).
    fn restore(&mut self, from: &std::path::Path);
    /// Kills the current leader, if the store has one: its index.
    fn kill_leader(&mut self) -> Option<usize>;
    /// Starts member `i` again from its data.
    fn restart_member(&mut self, i: usize);
    /// Fails over to a standby, if the store has one: the primary killed -9 and the standby
    /// promoted; the time (Unix nanoseconds) from which until which no server could write.
    fn promote(&mut self) -> Option<(u64, u64)> {
        None
    }
}
