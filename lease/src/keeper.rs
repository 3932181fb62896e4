//! [`LeaseKeeper`]: renews a leased node from the fence's background thread, on any
//! [`Store`], and applies the forgetting rule when the store no longer holds the node.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::LeaseError;
use crate::store::Store;
use snowmint::fence::ceil_millis;
use snowmint::fence::{Keeper, Note, Renewal};

/// Renews a held node for a [`Fenced`](snowmint::fence::Fenced).
pub(crate) struct LeaseKeeper<S> {
    pub(crate) store: S,
    pub(crate) node: u64,
    pub(crate) ttl: Duration,
    pub(crate) margin: Duration,
    /// Every ID issued is after this time (Unix ms): the marks found at each claim, and the
    /// forgetting rule's wait after each claim of a key the store did not hold.
    pub(crate) floor: Option<u64>,
    /// Whether the last claim was unvouched and the namespace's record is still to be
    /// settled: at the first renewal that succeeds once the clock is past `floor`.
    pub(crate) unsettled: bool,
    /// The highest mark a renewal found past this holder's window (a raised floor), once
    /// reported: 0 if none.
    pub(crate) floor_ahead: u64,
}

/// Milliseconds of a duration, saturating.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The forgetting rule: after a claim the store does not vouch for (see
/// [`Claim::vouched`](crate::Claim::vouched): the namespace's record missing, not yet
/// settled, or settled by another Redis server, so the key may have been lost by a restart or
/// a fail-over rather than released or expired), mint only IDs stamped after
/// `claimed_unix_nanos + ttl + margin`. An earlier holder that still
/// believed it held the node recorded no mark later than its last renewal plus the TTL, and
/// its own deadline passed `margin` before that: by then it has fenced itself.
pub(crate) fn forgetting_floor(claimed_unix_nanos: u64, ttl: Duration, margin: Duration) -> u64 {
    ceil_millis(u128::from(claimed_unix_nanos))
        .saturating_add(millis(ttl))
        .saturating_add(millis(margin))
}

impl<S: Store> LeaseKeeper<S> {
    /// Extends the lease and records `now + ttl` as the mark. The window ends at `now + ttl`
    /// whatever the store holds: a mark further ahead (a floor raised past this holder) is
    /// reported once and never ends the lease, since every ID minted below it is below
    /// the floor, which every later claim starts after.
    fn renew_at(&mut self, now_nanos: u64) -> Result<Option<Renewal>, LeaseError> {
        let want = ceil_millis(u128::from(now_nanos)).saturating_add(millis(self.ttl));
        let stored = self.store.renew(want)?;
        if let Some(ahead) = stored.filter(|&s| s > want && s > self.floor_ahead) {
            self.floor_ahead = ahead;
            snowmint::fence::events::lease_floor_ahead(self.node, ahead);
        }
        Ok(stored.map(|stored| Renewal::Held {
            limit_unix_millis: stored.min(want),
            valid_until_nanos: self.valid_until(now_nanos),
            floor_unix_millis: None,
        }))
    }

    /// The deadline of a renewal sent after the clock read `sent_nanos`: the store expires
    /// the key no earlier than `ttl` after it received the renewal, so the hold is proven
    /// until `sent + ttl`; the margin covers the clocks' rates and the cheap reading's lag.
    pub(crate) fn valid_until(&self, sent_nanos: u64) -> u64 {
        let window = self.ttl.saturating_sub(self.margin);
        sent_nanos.saturating_add(u64::try_from(window.as_nanos()).unwrap_or(u64::MAX))
    }

    /// Settles the namespace's record once the forgetting rule's wait after an unvouched
    /// claim is over (the clock, read before a renewal that succeeded, past the floor). A
    /// failure is tried again at the next renewal.
    fn settle_when_due(&mut self, now_nanos: u64) {
        let past = self
            .floor
            .is_none_or(|floor| u128::from(now_nanos) > u128::from(floor) * 1_000_000);
        if self.unsettled && past {
            if let Ok(done) = self.store.settle() {
                self.unsettled = false;
                snowmint::fence::events::lease_record_settled(self.node, done);
            }
        }
    }

    /// The lease was not held any more (it expired, or the store lost it): claim the same
    /// node back if it is free, and mint again only after the forgetting rule's wait and
    /// after whoever held it meanwhile.
    fn take_back(&mut self, now_nanos: u64, since: Instant) -> Renewal {
        let node = self.node;
        let claim = match self.store.claim(node, node) {
            Ok(c) => c,
            Err(e) => return Renewal::Failed(Arc::new(e)),
        };
        let Some(claim) = claim else {
            return Renewal::Lost(Arc::new(Note::new(format!(
                "its lease lapsed and another owner holds node {node} now"
            ))));
        };
        // After the claim returned, on the source's clock (read before the renewal began,
        // plus the time the calls took): the rule counts from the claim.
        let took = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let claimed = now_nanos.saturating_add(took);
        let theirs = claim.mark.filter(|_| !claim.mark_is_ours);
        let rule = if claim.vouched {
            0
        } else {
            self.unsettled = true;
            forgetting_floor(claimed, self.ttl, self.margin)
        };
        let floor = rule.max(theirs.unwrap_or(0));
        snowmint::fence::events::lease_taken_back(node, floor);
        self.floor = self.floor.max(Some(floor));
        match self.renew_at(claimed) {
            Ok(Some(Renewal::Held {
                limit_unix_millis,
                valid_until_nanos,
                ..
            })) => Renewal::Held {
                limit_unix_millis,
                valid_until_nanos,
                floor_unix_millis: Some(floor),
            },
            Ok(_) => Renewal::Failed(Arc::new(Note::new(format!(
                "node {node} was taken back but slipped away at once"
            )))),
            Err(e) => Renewal::Failed(Arc::new(e)),
        }
    }
}

impl<S: Store> Keeper for LeaseKeeper<S> {
    fn renew(&mut self, now_nanos: u64) -> Renewal {
        let since = Instant::now();
        match self.renew_at(now_nanos) {
            Ok(Some(held)) => {
                self.settle_when_due(now_nanos);
                held
            }
            Ok(None) => self.take_back(now_nanos, since),
            Err(e) => Renewal::Failed(Arc::new(e)),
        }
    }

    fn release(&mut self, last_unix_millis: Option<u64>) {
        // Best effort: if the store cannot be reached, the lease expires by itself and the
        // mark stays at the last reservation, which is safe (the next owner waits a little).
        let _ = self.store.release(last_unix_millis.max(self.floor));
    }

    fn period(&self, ok: bool) -> Duration {
        if ok {
            self.ttl / 3
        } else {
            (self.ttl / 20).max(Duration::from_millis(5))
        }
    }

    fn token(&self) -> Option<u64> {
        self.store.token()
    }
}
