//! The properties every store must have (feature `conformance`), each a function that runs
//! against a real server through a [`Backend`] (the factory that opens the store's
//! sessions), and [`run_all`]. Each property works in a namespace of its own
//! (`conformance-PROPERTY-PID-NANOS`), so the suite can share a server with other tests;
//! it leaves its keys behind (marks never expire by design).
//!
//! A store author runs it from a test against a server the test starts:
//!
//! ```no_run
//! # #[cfg(feature = "redis")] {
//! use snowmint_lease::conformance;
//! use snowmint_lease::redis::RedisLease;
//!
//! let url = "redis://127.0.0.1:6379/";
//! let backend = RedisLease::builder(url)?.build()?.backend().clone();
//! // How the test makes the store forget a namespace (here: every key of the server).
//! let forget = |_namespace: &str| {
//!     let mut c = redis::Client::open(url).unwrap().get_connection().unwrap();
//!     let _: () = redis::cmd("FLUSHALL").query(&mut c).unwrap();
//! };
//! conformance::run_all(&backend, forget)?;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The properties:
//! - [`claims_are_exclusive`]: concurrent claimers (threads) never get one node twice.
//! - [`tokens_only_grow`]: a store with a fencing token raises it with every claim.
//! - [`marks_are_never_lowered`]: a renewal never lowers a node's mark.
//! - [`renewal_after_expiry_is_refused`]: a key that expired is not renewed.
//! - [`release_leaves_the_mark`]: the next holder of a released node gets its mark.
//! - [`settles_only_on_the_same_store`]: a store that forgot since a claim is not vouched
//!   for by that claim's wait.
//! - [`list_and_raise_floor`]: the operator's calls see holders and marks, and a raised
//!   floor lifts every mark and every later claim.
//! - [`a_far_floor_keeps_the_holder`]: a floor raised far past a holder's window does not
//!   end its lease.
//! - [`release_keeps_the_floor`]: a release never lowers a mark below the floor or one
//!   another writer raised.
//! - [`reset_floor_recovers`]: a reset lowers a wrong floor and the operator's marks, never
//!   a holder's mark, and keeps the holders.

use core::fmt;
use std::sync::{Arc, Barrier};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{Admin, Backend, LeaseError, Store};

/// The layout every holder session of the suite records (any text: only its equality
/// matters to the store).
const LAYOUT: &str = "conformance: 41+10+12 bits, unit 1000000 ns";
/// The TTL of the properties that do not wait for an expiry: long enough that no key
/// expires while a loaded machine runs them.
const LONG_TTL: Duration = Duration::from_secs(60);
/// The bound of each store call.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// A property a store does not have, or a store call that failed while checking it.
///
/// ```
/// # #[cfg(feature = "redis")] {
/// use snowmint_lease::conformance;
/// use snowmint_lease::redis::RedisLease;
/// // Nothing listens on port 1: the first call fails, and says so.
/// let backend = RedisLease::builder("redis://127.0.0.1:1/")?.build()?.backend().clone();
/// let failure = conformance::tokens_only_grow(&backend).unwrap_err();
/// assert_eq!(failure.property(), "tokens_only_grow");
/// assert!(failure.to_string().contains("could not"), "{failure}");
/// # }
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Failure {
    store: &'static str,
    property: &'static str,
    detail: String,
}

impl Failure {
    /// The property's name (its function's).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let backend = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1:1/")?.build()?.backend().clone();
    /// let f = snowmint_lease::conformance::marks_are_never_lowered(&backend).unwrap_err();
    /// assert_eq!(f.property(), "marks_are_never_lowered");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn property(&self) -> &str {
        self.property
    }

    /// What was seen.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let backend = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1:1/")?.build()?.backend().clone();
    /// let f = snowmint_lease::conformance::marks_are_never_lowered(&backend).unwrap_err();
    /// assert!(!f.detail().is_empty());
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "store {}: property {}: {}",
            self.store, self.property, self.detail
        )
    }
}

impl std::error::Error for Failure {}

/// One property's run: its store, its namespace, the failures it reports.
struct Run<'a, B: Backend> {
    backend: &'a B,
    property: &'static str,
    namespace: String,
}

impl<'a, B: Backend> Run<'a, B> {
    fn new(backend: &'a B, property: &'static str) -> Run<'a, B> {
        Run {
            backend,
            property,
            namespace: format!("conformance-{property}-{}-{}", std::process::id(), nanos()),
        }
    }

    fn fail(&self, detail: impl Into<String>) -> Failure {
        Failure {
            store: B::NAME,
            property: self.property,
            detail: detail.into(),
        }
    }

    /// `Err` unless `holds`, saying `detail`.
    fn check(&self, holds: bool, detail: impl FnOnce() -> String) -> Result<(), Failure> {
        if holds {
            Ok(())
        } else {
            Err(self.fail(detail()))
        }
    }

    /// A failed store call, as a failure of this property.
    fn call<T>(&self, what: &str, r: Result<T, LeaseError>) -> Result<T, Failure> {
        r.map_err(|e| self.fail(format!("{what}: {e}")))
    }

    /// A holder's session, owner `who`, with `ttl`.
    fn holder(&self, who: &str, ttl: Duration) -> Result<B::Store, Failure> {
        let owner = format!("conformance/{}/{}/{who}", std::process::id(), nanos());
        self.call(
            "open a session",
            self.backend
                .open(&self.namespace, &owner, ttl, IO_TIMEOUT, LAYOUT),
        )
    }

    /// An operator's session (no record checked or written).
    fn operator(&self) -> Result<B::Store, Failure> {
        let owner = format!("conformance/{}/{}/operator", std::process::id(), nanos());
        self.call(
            "open an operator's session",
            self.backend
                .open(&self.namespace, &owner, LONG_TTL, IO_TIMEOUT, ""),
        )
    }

    /// Claims a node of `first..=last`, which must be free.
    fn claim(
        &self,
        store: &mut B::Store,
        who: &str,
        first: u64,
        last: u64,
    ) -> Result<crate::Claim, Failure> {
        self.call("claim", store.claim(first, last))?
            .ok_or_else(|| {
                self.fail(format!(
                    "{who}'s claim of {first}..={last} found every node held, though one is free"
                ))
            })
    }
}

/// Now, Unix nanoseconds.
fn nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Now, Unix milliseconds.
fn now_millis() -> u64 {
    u64::try_from(nanos() / 1_000_000).unwrap_or(u64::MAX)
}

/// Eight threads, each with a session of its own, claim from four nodes at once (released
/// together by a barrier): exactly four get a node, no two the same, and the other four get
/// `Ok(None)`. The claims are held (TTL 60 s) until every thread has answered.
///
/// # Errors
/// A [`Failure`] if two claimers got one node, a claimer got none while a node was free,
/// or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::claims_are_exclusive(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn claims_are_exclusive<B: Backend>(backend: &B) -> Result<(), Failure> {
    const CLAIMERS: usize = 8;
    const NODES: u64 = 4;
    let run = Run::new(backend, "claims_are_exclusive");
    // The namespace's record first, so that the claimers race for nodes, not for it.
    let mut first = run.holder("first", LONG_TTL)?;
    let node = run
        .claim(&mut first, "the first claimer", 0, NODES - 1)?
        .node;
    run.call("release", first.release(None))?;
    run.check(node == 0, || {
        format!("the first claim of an empty range took node {node}, not its first (0)")
    })?;
    let barrier = Arc::new(Barrier::new(CLAIMERS));
    type Answer<S> = Result<(S, Option<u64>), Failure>;
    let answers: Vec<Answer<B::Store>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLAIMERS)
            .map(|i| {
                let barrier = Arc::clone(&barrier);
                let run = &run;
                s.spawn(move || {
                    let store = run.holder(&format!("claimer-{i}"), LONG_TTL);
                    // Every thread waits at the barrier, even one whose session failed.
                    barrier.wait();
                    let mut store = store?;
                    let node = run.call("claim", store.claim(0, NODES - 1))?;
                    Ok((store, node.map(|c| c.node)))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(run.fail("a claimer thread panicked")))
            })
            .collect()
    });
    let mut held = Vec::new();
    let mut nodes = Vec::new();
    for answer in answers {
        let (store, node) = answer?;
        nodes.extend(node);
        held.push(store);
    }
    let mut distinct = nodes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    run.check(distinct.len() == nodes.len(), || {
        format!(
            "{CLAIMERS} concurrent claimers of 0..={} got nodes {nodes:?}: one node twice",
            NODES - 1
        )
    })?;
    run.check(nodes.len() as u64 == NODES, || {
        format!(
            "{CLAIMERS} concurrent claimers of {NODES} free nodes got {} ({nodes:?}): every node \
             must go to exactly one claimer",
            nodes.len()
        )
    })?;
    // Held by the claimers: a ninth claimer gets none.
    let mut late = run.holder("late", LONG_TTL)?;
    let extra = run.call("claim", late.claim(0, NODES - 1))?;
    run.check(extra.is_none(), || {
        format!(
            "a claim while every node was held got node {:?}",
            extra.map(|c| c.node)
        )
    })?;
    for mut store in held {
        run.call("release", store.release(None))?;
    }
    Ok(())
}

/// Where the store has a fencing token ([`Store::token`] is `Some` after a claim), every
/// claim of the namespace gets a greater one than every claim before it (of any node, the
/// same node after a release too), and a renewal keeps it; where it has none, no claim has
/// one.
///
/// # Errors
/// A [`Failure`] if a token did not grow, appeared or vanished, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::tokens_only_grow(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tokens_only_grow<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "tokens_only_grow");
    let mut a = run.holder("a", LONG_TTL)?;
    let node_a = run.claim(&mut a, "a", 0, 7)?.node;
    let token_a = a.token();
    let mut b = run.holder("b", LONG_TTL)?;
    run.claim(&mut b, "b", 0, 7)?;
    let token_b = b.token();
    run.call("renew", a.renew(0))?;
    run.check(a.token() == token_a, || {
        format!(
            "a renewal changed the token from {token_a:?} to {:?}",
            a.token()
        )
    })?;
    run.call("release", a.release(None))?;
    let mut c = run.holder("c", LONG_TTL)?;
    let node_c = run.claim(&mut c, "c", node_a, node_a)?.node;
    let token_c = c.token();
    let tokens = [token_a, token_b, token_c];
    match token_a {
        None => run.check(tokens.iter().all(Option::is_none), || {
            format!("the first claim had no token, later ones did: {tokens:?}")
        })?,
        Some(_) => run.check(
            tokens.iter().all(Option::is_some) && token_a < token_b && token_b < token_c,
            || {
                format!(
                    "claims in turn (node {node_a}, another, node {node_c} again after its \
                     release) got tokens {tokens:?}: each must be greater than every one before"
                )
            },
        )?,
    }
    run.call("release", b.release(None))?;
    run.call("release", c.release(None))?;
    Ok(())
}

/// A renewal raises the node's mark to the time it asks for and never lowers it: asking
/// for a lower time, or 0 (extend only), leaves the mark where it was, and the operator's
/// [`Admin::list`] shows it.
///
/// # Errors
/// A [`Failure`] if a mark went down or was not raised, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::marks_are_never_lowered(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn marks_are_never_lowered<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "marks_are_never_lowered");
    let mut a = run.holder("a", LONG_TTL)?;
    let node = run.claim(&mut a, "a", 0, 0)?.node;
    let want = now_millis() + 30_000;
    let held = |r: Option<u64>| r.ok_or_else(|| run.fail("a renewal of a held node was refused"));
    let first = held(run.call("renew", a.renew(want))?)?;
    run.check(first >= want, || {
        format!("a renewal asking for mark {want} stored {first}")
    })?;
    for lower in [want - 10_000, 0] {
        let mark = held(run.call("renew", a.renew(lower))?)?;
        run.check(mark >= first, || {
            format!("a renewal asking for {lower} lowered the mark from {first} to {mark}")
        })?;
    }
    let state = run.call("list", run.operator()?.list())?;
    let listed = state.nodes.iter().find(|n| n.node == node);
    let listed_mark = listed.and_then(|n| n.mark_unix_millis);
    run.check(listed_mark.is_some_and(|m| m >= first), || {
        format!("the operator's list shows node {node} with mark {listed_mark:?}, below {first}")
    })?;
    run.call("release", a.release(Some(first)))?;
    Ok(())
}

/// A key left to expire is not renewed, even when no one claimed the node since: with the
/// backend's least TTL (at least 1 s), a renewal three TTLs plus a second after the last
/// one is refused (`Ok(None)`).
///
/// # Errors
/// A [`Failure`] if the late renewal succeeded, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::renewal_after_expiry_is_refused(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn renewal_after_expiry_is_refused<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "renewal_after_expiry_is_refused");
    let ttl = B::MIN_TTL.max(Duration::from_secs(1));
    let mut a = run.holder("a", ttl)?;
    run.claim(&mut a, "a", 0, 0)?;
    let renewed = run.call("renew", a.renew(now_millis() + 1_000))?;
    run.check(renewed.is_some(), || {
        "a renewal right after the claim was refused".to_string()
    })?;
    let wait = 3 * ttl + Duration::from_secs(1);
    std::thread::sleep(wait);
    let late = run.call("renew", a.renew(now_millis() + 1_000))?;
    run.check(late.is_none(), || {
        format!("a renewal {wait:?} after the last one (TTL {ttl:?}) was accepted, mark {late:?}")
    })?;
    Ok(())
}

/// A release leaves the mark it is given (the last time the holder issued, below the mark
/// its renewals recorded): the next claim of the node gets that mark, as not its own.
///
/// # Errors
/// A [`Failure`] if the next holder got another mark, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::release_leaves_the_mark(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn release_leaves_the_mark<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "release_leaves_the_mark");
    let mut a = run.holder("a", LONG_TTL)?;
    let node = run.claim(&mut a, "a", 0, 0)?.node;
    let now = now_millis();
    run.call("renew", a.renew(now + 20_000))?;
    let last_issued = now + 1_000;
    run.call("release", a.release(Some(last_issued)))?;
    let mut b = run.holder("b", LONG_TTL)?;
    let claim = run.claim(&mut b, "b", node, node)?;
    run.check(
        claim.mark == Some(last_issued) && !claim.mark_is_ours,
        || {
            format!(
                "node {node} released with mark {last_issued} was claimed next with mark {:?} \
             (ours: {})",
                claim.mark, claim.mark_is_ours
            )
        },
    )?;
    run.call("release", b.release(claim.mark))?;
    Ok(())
}

/// The forgetting rule's wait vouches only for the store it began on: the first claim of a
/// namespace is not vouched for; settling after it makes the next claim vouched for; after
/// the store forgot the namespace (`forget`, the test's way: a wipe, a restart without
/// persistence) the next claim is not vouched for, and when the store forgets again before
/// that claim settles, its settling does nothing (`Ok(false)`) and the claim after is
/// still not vouched for.
///
/// # Errors
/// A [`Failure`] if a claim was vouched for after the store forgot, a settle applied to a
/// store that changed, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "redis")] {
/// let url = "redis://127.0.0.1:6379/";
/// let backend = snowmint_lease::redis::RedisLease::builder(url)?.build()?.backend().clone();
/// snowmint_lease::conformance::settles_only_on_the_same_store(&backend, |_| {
///     let mut c = redis::Client::open(url).unwrap().get_connection().unwrap();
///     let _: () = redis::cmd("FLUSHALL").query(&mut c).unwrap();
/// })?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn settles_only_on_the_same_store<B: Backend>(
    backend: &B,
    mut forget: impl FnMut(&str),
) -> Result<(), Failure> {
    let run = Run::new(backend, "settles_only_on_the_same_store");
    let mut a = run.holder("a", LONG_TTL)?;
    let claim = run.claim(&mut a, "a", 0, 7)?;
    run.check(!claim.vouched, || {
        "the first claim of a new namespace was vouched for".to_string()
    })?;
    run.call("renew", a.renew(0))?;
    let settled = run.call("settle", a.settle())?;
    run.check(settled, || {
        "settling after the first claim, on the same store, did nothing".to_string()
    })?;
    let mut b = run.holder("b", LONG_TTL)?;
    let claim = run.claim(&mut b, "b", 0, 7)?;
    run.check(claim.vouched, || {
        "a claim after the namespace was settled was not vouched for".to_string()
    })?;
    forget(&run.namespace);
    let mut c = run.holder("c", LONG_TTL)?;
    let claim = run.claim(&mut c, "c", 0, 7)?;
    run.check(!claim.vouched, || {
        "a claim after the store forgot the namespace was vouched for".to_string()
    })?;
    forget(&run.namespace);
    let settled = run.call("settle", c.settle())?;
    run.check(!settled, || {
        "a claim's settling applied though the store forgot the namespace since the claim"
            .to_string()
    })?;
    let mut d = run.holder("d", LONG_TTL)?;
    let claim = run.claim(&mut d, "d", 0, 7)?;
    run.check(!claim.vouched, || {
        "a claim after a settle that did nothing was vouched for".to_string()
    })?;
    for mut store in [a, b, c, d] {
        run.call("release", store.release(None))?;
    }
    Ok(())
}

/// The operator's calls: [`Admin::list`] shows the namespace's record and a held node with
/// its holder and mark; [`Admin::raise_floor`] raises that mark and keeps the floor in the
/// record, never lowering either (a lower floor later changes nothing), and a later claim
/// of a node without a mark starts after the floor.
///
/// # Errors
/// A [`Failure`] if the list missed what is held, a raise missed a mark or lowered one, a
/// later claim started below the floor, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::list_and_raise_floor(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn list_and_raise_floor<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "list_and_raise_floor");
    let mut a = run.holder("a", LONG_TTL)?;
    let node = run.claim(&mut a, "a", 0, 0)?.node;
    let mark = run
        .call("renew", a.renew(now_millis() + 10_000))?
        .ok_or_else(|| run.fail("a renewal of a held node was refused"))?;
    let mut admin = run.operator()?;
    let state = run.call("list", admin.list())?;
    run.check(state.record.is_some(), || {
        "the list shows no record for a namespace with a claim".to_string()
    })?;
    let listed = state.nodes.iter().find(|n| n.node == node);
    run.check(
        listed.is_some_and(|n| n.holder.is_some() && n.mark_unix_millis >= Some(mark)),
        || format!("the list shows held node {node} (mark {mark}) as {listed:?}"),
    )?;
    let floor = mark + 60_000;
    let raised = run.call("raise the floor", admin.raise_floor(floor))?;
    run.check(
        raised.raised.contains(&node) && raised.floor_unix_millis == Some(floor),
        || {
            format!(
                "raising the floor to {floor} over node {node}'s mark {mark} reported {raised:?}"
            )
        },
    )?;
    let lower = run.call("raise the floor", admin.raise_floor(floor - 30_000))?;
    run.check(lower.raised.is_empty(), || {
        format!("a floor below the kept one raised marks: {lower:?}")
    })?;
    let state = run.call("list", admin.list())?;
    let listed = state.nodes.iter().find(|n| n.node == node);
    let record_floor = state.record.as_ref().and_then(|r| r.floor_unix_millis);
    run.check(
        listed.is_some_and(|n| n.mark_unix_millis >= Some(floor)) && record_floor >= Some(floor),
        || {
            format!(
                "after raising the floor to {floor} (and asking for a lower one), the list shows \
                 node {node} as {listed:?} and the record's floor {record_floor:?}"
            )
        },
    )?;
    let mut b = run.holder("b", LONG_TTL)?;
    let claim = run.claim(&mut b, "b", 1, 1)?;
    run.check(claim.mark >= Some(floor), || {
        format!(
            "a claim of a node without a mark after the floor {floor} got mark {:?}",
            claim.mark
        )
    })?;
    run.call("release", a.release(None))?;
    run.call("release", b.release(claim.mark))?;
    Ok(())
}

/// The farthest floor every store keeps exactly: 2^63 - 1 ms (PostgreSQL's `bigint`).
const FAR_FLOOR: u64 = i64::MAX as u64;

/// A floor raised far past a holder's window does not end its lease: with node 0 held and
/// renewed, [`Admin::raise_floor`] to 2^63 - 1 ms (the year 292 million; a typing slip's
/// size), then two renewals: each keeps the node (`Ok(Some(mark))`, the mark at or above
/// the floor), and the list shows the node still held by its holder.
///
/// # Errors
/// A [`Failure`] if a renewal after the raise was refused or reported a mark below the
/// floor, the list lost the holder, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::a_far_floor_keeps_the_holder(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn a_far_floor_keeps_the_holder<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "a_far_floor_keeps_the_holder");
    let mut a = run.holder("a", LONG_TTL)?;
    let node = run.claim(&mut a, "a", 0, 0)?.node;
    run.call("renew", a.renew(now_millis() + 10_000))?
        .ok_or_else(|| run.fail("a renewal of a held node was refused"))?;
    let mut admin = run.operator()?;
    let raised = run.call("raise the floor", admin.raise_floor(FAR_FLOOR))?;
    run.check(raised.floor_unix_millis == Some(FAR_FLOOR), || {
        format!("raising the floor to {FAR_FLOOR} reported {raised:?}")
    })?;
    for _ in 0..2 {
        let renewed = run.call("renew", a.renew(now_millis() + 10_000))?;
        run.check(renewed.is_some_and(|m| m >= FAR_FLOOR), || {
            format!(
                "after the floor was raised to {FAR_FLOOR}, a renewal of held node {node} \
                 answered {renewed:?} (the node is still held: it must be kept, with the mark)"
            )
        })?;
    }
    let state = run.call("list", admin.list())?;
    let listed = state.nodes.iter().find(|n| n.node == node);
    run.check(listed.is_some_and(|n| n.holder.is_some()), || {
        format!("after the far floor and two renewals, the list shows node {node} as {listed:?}")
    })?;
    run.call("release", a.release(Some(now_millis())))?;
    Ok(())
}

/// A release never lowers a mark below the namespace's floor or a mark another writer
/// raised: nodes 0 and 1 held and renewed to now + 10 s, the floor raised to now + 60 s
/// (raising both marks), node 1's holder renewing past it to now + 120 s (its own mark
/// now); both released with a last time of about now: node 0's mark stays at the floor
/// at least, and node 1's comes down no lower than the floor.
///
/// # Errors
/// A [`Failure`] if a mark after a release is below the floor, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::release_keeps_the_floor(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn release_keeps_the_floor<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "release_keeps_the_floor");
    let now = now_millis();
    let (mut a, mut b) = (run.holder("a", LONG_TTL)?, run.holder("b", LONG_TTL)?);
    run.claim(&mut a, "a", 0, 0)?;
    run.claim(&mut b, "b", 1, 1)?;
    run.call("renew", a.renew(now + 10_000))?;
    run.call("renew", b.renew(now + 10_000))?;
    let floor = now + 60_000;
    let mut admin = run.operator()?;
    run.call("raise the floor", admin.raise_floor(floor))?;
    let renewed = run.call("renew", b.renew(now + 120_000))?;
    run.check(renewed >= Some(now + 120_000), || {
        format!(
            "a renewal past the floor to {} answered {renewed:?}",
            now + 120_000
        )
    })?;
    run.call("release", a.release(Some(now + 1_000)))?;
    run.call("release", b.release(Some(now + 2_000)))?;
    let state = run.call("list", admin.list())?;
    for node in [0, 1] {
        let mark = state
            .nodes
            .iter()
            .find(|n| n.node == node)
            .and_then(|n| n.mark_unix_millis);
        run.check(mark >= Some(floor), || {
            format!(
                "node {node} released (last time about now) after the floor was raised to \
                 {floor} has mark {mark:?}, below the floor"
            )
        })?;
    }
    Ok(())
}

/// [`Admin::reset_floor`] recovers a namespace from a far floor without lowering what a
/// holder recorded: node 0 held, node 1 released with a mark, the floor raised to 2^63 - 1
/// ms; a reset to now with marks at now + 120 s lowers the floor, brings both operator
/// marks down to now + 120 s (owner `reset-floor…`), keeps node 0's holder, and a claim of
/// a node without a mark starts after the new floor (not the far one); a holder's mark
/// above the marks' time survives a second reset.
///
/// # Errors
/// A [`Failure`] if the reset left the far floor or an operator's mark, lowered a holder's
/// mark, ended a hold, or a store call failed.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// snowmint_lease::conformance::reset_floor_recovers(&backend)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reset_floor_recovers<B: Backend>(backend: &B) -> Result<(), Failure> {
    let run = Run::new(backend, "reset_floor_recovers");
    let now = now_millis();
    let (mut a, mut b) = (run.holder("a", LONG_TTL)?, run.holder("b", LONG_TTL)?);
    run.claim(&mut a, "a", 0, 0)?;
    run.claim(&mut b, "b", 1, 1)?;
    run.call("renew", a.renew(now + 10_000))?;
    run.call("renew", b.renew(now + 10_000))?;
    run.call("release", b.release(Some(now + 5_000)))?;
    let mut admin = run.operator()?;
    run.call("raise the floor", admin.raise_floor(FAR_FLOOR))?;
    let marks = now + 120_000;
    let audit = "reset-floor:by=conformance;at=0;from=far;to=now";
    let reset = run.call("reset the floor", admin.reset_floor(now, marks, audit))?;
    run.check(
        reset.floor_was == Some(FAR_FLOOR)
            && reset.floor_unix_millis == Some(now)
            && reset.reset.contains(&0)
            && reset.reset.contains(&1),
        || format!("resetting the floor {FAR_FLOOR} to {now}, marks {marks}, reported {reset:?}"),
    )?;
    let state = run.call("list", admin.list())?;
    let record_floor = state.record.as_ref().and_then(|r| r.floor_unix_millis);
    run.check(record_floor == Some(now), || {
        format!("after a reset to {now}, the record's floor is {record_floor:?}")
    })?;
    for node in [0, 1] {
        let listed = state.nodes.iter().find(|n| n.node == node);
        run.check(
            listed.is_some_and(|n| {
                n.mark_unix_millis == Some(marks)
                    && n.mark_owner.as_deref() == Some(audit)
                    && (node == 1 || n.holder.is_some())
            }),
            || format!("after a reset with marks {marks}, node {node} is {listed:?}"),
        )?;
    }
    let renewed = run.call("renew", a.renew(now + 200_000))?;
    run.check(renewed == Some(now + 200_000), || {
        format!("a renewal of the held node after the reset answered {renewed:?}")
    })?;
    let again = run.call("reset the floor", admin.reset_floor(now, marks, audit))?;
    run.check(
        !again.reset.contains(&0) && !again.reset.contains(&1),
        || format!("a second reset changed a holder's higher mark or an unchanged one: {again:?}"),
    )?;
    let mut c = run.holder("c", LONG_TTL)?;
    let claim = run.claim(&mut c, "c", 2, 2)?;
    run.check(claim.mark == Some(now), || {
        format!(
            "a claim of a node without a mark after the reset to {now} got mark {:?}",
            claim.mark
        )
    })?;
    run.call("release", a.release(Some(now)))?;
    run.call("release", c.release(None))?;
    Ok(())
}

/// Every property, in turn: the first failure, or `Ok(())`. `forget` makes the store forget
/// a namespace (see [`settles_only_on_the_same_store`]); it may forget more (every key of
/// the server) as long as the server stays the one `backend` reaches.
///
/// # Errors
/// The first property's [`Failure`].
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// let backend = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?.backend().clone();
/// let forget = |namespace: &str| {
///     std::process::Command::new("etcdctl")
///         .args(["del", "--prefix", &format!("snowmint/{namespace}/")])
///         .env("ETCDCTL_API", "3")
///         .status()
///         .unwrap();
/// };
/// snowmint_lease::conformance::run_all(&backend, forget)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_all<B: Backend>(backend: &B, forget: impl FnMut(&str)) -> Result<(), Failure> {
    claims_are_exclusive(backend)?;
    tokens_only_grow(backend)?;
    marks_are_never_lowered(backend)?;
    release_leaves_the_mark(backend)?;
    settles_only_on_the_same_store(backend, forget)?;
    list_and_raise_floor(backend)?;
    a_far_floor_keeps_the_holder(backend)?;
    release_keeps_the_floor(backend)?;
    reset_floor_recovers(backend)?;
    renewal_after_expiry_is_refused(backend)?;
    Ok(())
}
