//! A claim on a range whose every node is held: tried again until a crashed holder's lease
//! has lapsed, refused only once that is past.
//!
//! A process killed -9 leaves its node's key in the store until the key's TTL runs out, at
//! most one TTL after its last renewal, which came before this service's first try. A
//! service held to that node (`--nodes N-N`, a deploy that restarts it at once) would be
//! refused every node and stop; instead it claims again every [`retry_every`] until the key
//! is gone, and only a range still held past [`held_for_good_after`] (a live holder renews
//! its key) is an error, as before. `/readyz` says `claiming` meanwhile, and the log says
//! why, once.

use std::time::{Duration, Instant};

use snowmint_lease::LeaseError;

/// After how long a range still held is refused: two TTLs from the first refusal. A dead
/// holder's key lapses within one TTL of it (its last renewal came earlier); the second is
/// room for a loaded machine and for etcd, whose leases are counted by its leader.
pub fn held_for_good_after(ttl: Duration) -> Duration {
    ttl.saturating_mul(2)
}

/// How often to claim again: a twentieth of the TTL, 20 ms to 250 ms.
pub fn retry_every(ttl: Duration) -> Duration {
    (ttl / 20).clamp(Duration::from_millis(20), Duration::from_millis(250))
}

/// Calls `claim` until it returns anything but [`LeaseError::AllTaken`], or until the range
/// has been held for [`held_for_good_after`] the TTL; `say` is told once, at the first
/// refusal, what the service waits for.
pub fn claim_when_free<T>(
    ttl: Duration,
    mut claim: impl FnMut() -> Result<T, LeaseError>,
    say: impl FnOnce(String),
) -> Result<T, LeaseError> {
    let first = claim();
    let Err(LeaseError::AllTaken {
        first: lo,
        last: hi,
        ..
    }) = &first
    else {
        return first;
    };
    let until = Instant::now() + held_for_good_after(ttl);
    say(format!(
        "every node from {lo} to {hi} is held: claiming again every {:?} until a crashed \
         holder's lease lapses (at most one TTL, {:?}); refused if still held after {:?}",
        retry_every(ttl),
        ttl,
        held_for_good_after(ttl)
    ));
    loop {
        std::thread::sleep(retry_every(ttl));
        match claim() {
            Err(LeaseError::AllTaken { .. }) if Instant::now() < until => {}
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_taken() -> LeaseError {
        LeaseError::AllTaken {
            namespace: "ns".to_owned(),
            first: 5,
            last: 5,
            ttl: Duration::from_secs(1),
        }
    }

    #[test]
    fn a_range_freed_within_the_bound_is_claimed() {
        let mut tries = 0;
        let mut said = Vec::new();
        let got = claim_when_free(
            Duration::from_millis(400),
            || {
                tries += 1;
                if tries < 4 {
                    Err(all_taken())
                } else {
                    Ok(tries)
                }
            },
            |line| said.push(line),
        );
        assert_eq!(got.ok(), Some(4));
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("every node from 5 to 5 is held"),
            "{said:?}"
        );
    }

    #[test]
    fn a_range_held_past_the_bound_is_refused() {
        let started = Instant::now();
        let got: Result<(), _> =
            claim_when_free(Duration::from_millis(100), || Err(all_taken()), |_| {});
        assert!(matches!(got, Err(LeaseError::AllTaken { .. })));
        assert!(started.elapsed() >= held_for_good_after(Duration::from_millis(100)));
    }

    #[test]
    fn other_errors_and_successes_return_at_once() {
        let mut tries = 0;
        let got: Result<u8, LeaseError> = claim_when_free(
            Duration::from_secs(10),
            || {
                tries += 1;
                Ok(7)
            },
            |_| panic!("nothing to say"),
        );
        assert_eq!((got.ok(), tries), (Some(7), 1));
    }

    #[test]
    fn the_pace_stays_within_its_bounds() {
        assert_eq!(
            retry_every(Duration::from_millis(30)),
            Duration::from_millis(20)
        );
        assert_eq!(
            retry_every(Duration::from_secs(2)),
            Duration::from_millis(100)
        );
        assert_eq!(
            retry_every(Duration::from_secs(60)),
            Duration::from_millis(250)
        );
        assert_eq!(
            held_for_good_after(Duration::from_secs(10)),
            Duration::from_secs(20)
        );
    }
}
