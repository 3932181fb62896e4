//! Readiness: what the service waits for before it mints, and why it stopped minting.
//!
//! A leased service listens before it claims its node: the claim runs on a thread of its
//! own ([`super::run`]), which records each step of [`Lease::acquire_with`] here as a
//! [`Phase`]. [`State`] joins that with the minter's health once the claim is done; `/readyz`,
//! `/id`, `/ids`, `/healthz`, `/metrics` and the status page all answer from it.
//!
//! [`Lease::acquire_with`]: snowmint_lease::Lease::acquire_with

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use snowmint_lease::AcquireProgress;

use super::problem::Problem;
use crate::time::display_millis;

/// Where the claim of a leased node stands, until the minter is ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Claiming a node in the store.
    Claiming,
    /// Node `node` is claimed, but the store cannot vouch that it lost no write: no ID
    /// before `until_unix_millis` (the forgetting rule); `why`, in the store's words, when it
    /// can say (PostgreSQL: the record settled on another system or timeline, `fsync` off).
    Forgetting {
        node: u64,
        until_unix_millis: u64,
        why: Option<String>,
    },
    /// Node `node` is claimed under a settled record, but the store shows a sign of a restore
    /// from an older backup (etcd: the mark's raft term `mark_term` above the answer's
    /// `term`): no ID before `until_unix_millis` (the forgetting rule).
    Restored {
        node: u64,
        until_unix_millis: u64,
        mark_term: u64,
        term: u64,
    },
    /// Node `node` is claimed and vouched for; this clock is behind the mark its last
    /// holder left, `until_unix_millis`.
    PastMark { node: u64, until_unix_millis: u64 },
    /// The claim failed for good: the service is stopping with this error.
    Failed(String),
}

impl Phase {
    /// The phase a step of the claim begins.
    pub fn of(step: AcquireProgress) -> Phase {
        match step {
            AcquireProgress::Forgetting {
                node,
                until_unix_millis,
                why,
            } => Phase::Forgetting {
                node,
                until_unix_millis,
                why,
            },
            AcquireProgress::Restored {
                node,
                until_unix_millis,
                mark_raft_term,
                raft_term,
            } => Phase::Restored {
                node,
                until_unix_millis,
                mark_term: mark_raft_term,
                term: raft_term,
            },
            AcquireProgress::PastMark {
                node,
                until_unix_millis,
            } => Phase::PastMark {
                node,
                until_unix_millis,
            },
            // `Claiming`, and any step a later library adds.
            _ => Phase::Claiming,
        }
    }

    /// The start-up log line of a wait (none for the claim itself, which the line saying
    /// where the service listens names): what it waits for, until when, how long, and why.
    pub fn log_line(&self, now_unix_millis: u64) -> Option<String> {
        match self {
            Phase::Forgetting {
                node,
                until_unix_millis,
                why,
            } => Some(format!(
                "node {node}: waiting for the forgetting rule until {} ({}): the store cannot vouch \
                 that it lost no write ({}), so no ID is minted before one TTL plus the margin has \
                 passed",
                display_millis(*until_unix_millis),
                seconds(left(*until_unix_millis, now_unix_millis)),
                unvouched_reason(why.as_deref()),
            )),
            Phase::Restored { node, .. } => Some(format!(
                "node {node}: {} ({}): {}",
                State::Starting(self.clone()).name(),
                seconds(left(self.until(), now_unix_millis)),
                self.restore_reason(),
            )),
            Phase::PastMark {
                node,
                until_unix_millis,
            } => Some(format!(
                "node {node}: waiting past the mark until {} ({}): the node's last holder issued \
                 IDs up to it, and this clock is behind it",
                display_millis(*until_unix_millis),
                seconds(left(*until_unix_millis, now_unix_millis)),
            )),
            Phase::Claiming | Phase::Failed(_) => None,
        }
    }
}

impl Phase {
    /// The end of a wait (0 for the claim or a failure).
    fn until(&self) -> u64 {
        match self {
            Phase::Forgetting {
                until_unix_millis, ..
            }
            | Phase::Restored {
                until_unix_millis, ..
            }
            | Phase::PastMark {
                until_unix_millis, ..
            } => *until_unix_millis,
            Phase::Claiming | Phase::Failed(_) => 0,
        }
    }

    /// Why a restore is suspected, and what the operator should do.
    fn restore_reason(&self) -> String {
        match self {
            Phase::Restored {
                mark_term, term, ..
            } => format!(
                "the node's mark was written under raft term {mark_term}, and the store answers \
                 under term {term}: a sign that the cluster was restored from an older backup, \
                 which may have lost later marks; run `snowmint lease raise-floor --to` the time \
                 of the loss"
            ),
            _ => String::new(),
        }
    }
}

/// Why a store could not vouch for a claim: its own words, else the usual causes.
fn unvouched_reason(why: Option<&str>) -> &str {
    why.unwrap_or("a new namespace, a wiped store, or a Redis server restarted or failed over")
}

/// The claim's progress, shared by the claiming thread (which writes it) and the handlers.
pub struct Progress {
    phase: Mutex<Phase>,
}

impl Progress {
    /// Claiming (or, for a fixed node, never read: its minter is ready from the start).
    pub fn new() -> Progress {
        Progress {
            phase: Mutex::new(Phase::Claiming),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn set(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner) = phase;
    }
}

/// The service's state, as `/readyz` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Minting, as `node`.
    Ready { node: u64 },
    /// Not minting yet: the lease's claim is under way, or failed.
    Starting(Phase),
    /// The lease cannot prove it holds `node` now: minting resumes once it does.
    Fenced { node: u64, cause: String },
    /// Another process holds `node`: this one mints no more, and stops.
    Lost { node: u64 },
}

/// How a not-ready service should be asked again while claiming, fenced or failing: often
/// enough to notice readiness soon, whole seconds as `Retry-After` has.
const RETRY_SOON: Duration = Duration::from_secs(1);

impl State {
    pub fn is_ready(&self) -> bool {
        matches!(self, State::Ready { .. })
    }

    /// The node, once claimed.
    pub fn node(&self) -> Option<u64> {
        match self {
            State::Ready { node } | State::Fenced { node, .. } | State::Lost { node } => {
                Some(*node)
            }
            State::Starting(
                Phase::Forgetting { node, .. }
                | Phase::Restored { node, .. }
                | Phase::PastMark { node, .. },
            ) => Some(*node),
            State::Starting(Phase::Claiming | Phase::Failed(_)) => None,
        }
    }

    /// The state's name: `ready`, `claiming`, `waiting for the forgetting rule until
    /// <RFC 3339>`, `waiting past the mark until <RFC 3339>`, `fenced: <cause>`, `lost`,
    /// `failed: <error>`.
    pub fn name(&self) -> String {
        match self {
            State::Ready { .. } => "ready".to_owned(),
            State::Starting(Phase::Claiming) => "claiming".to_owned(),
            State::Starting(Phase::Forgetting {
                until_unix_millis,
                why,
                ..
            }) => match why {
                Some(why) => format!(
                    "waiting for the forgetting rule until {}: {why}",
                    display_millis(*until_unix_millis)
                ),
                None => format!(
                    "waiting for the forgetting rule until {}",
                    display_millis(*until_unix_millis)
                ),
            },
            State::Starting(Phase::Restored {
                until_unix_millis,
                mark_term,
                term,
                ..
            }) => format!(
                "waiting for the forgetting rule until {}: raft term {term} below the mark's \
                 {mark_term} (a restore?)",
                display_millis(*until_unix_millis)
            ),
            State::Starting(Phase::PastMark {
                until_unix_millis, ..
            }) => format!(
                "waiting past the mark until {}",
                display_millis(*until_unix_millis)
            ),
            State::Starting(Phase::Failed(e)) => format!("failed: {e}"),
            State::Fenced { cause, .. } => format!("fenced: {cause}"),
            State::Lost { .. } => "lost".to_owned(),
        }
    }

    /// When to ask again: the wait's end (rounded up to whole seconds by [`Problem`]), a
    /// second while claiming or fenced, never once lost or failed.
    pub fn retry_after(&self, now_unix_millis: u64) -> Option<Duration> {
        match self {
            State::Ready { .. } | State::Lost { .. } | State::Starting(Phase::Failed(_)) => None,
            State::Starting(
                Phase::Forgetting {
                    until_unix_millis, ..
                }
                | Phase::Restored {
                    until_unix_millis, ..
                }
                | Phase::PastMark {
                    until_unix_millis, ..
                },
            ) => Some(left(*until_unix_millis, now_unix_millis).max(RETRY_SOON)),
            State::Starting(Phase::Claiming) | State::Fenced { .. } => Some(RETRY_SOON),
        }
    }

    /// For people: what the service does, and when it may mint. `place` names where the
    /// lease is claimed (`redis namespace "orders"`).
    pub fn explain(&self, place: &str, now_unix_millis: u64) -> String {
        match self {
            State::Ready { node } => format!("minting as node {node}"),
            State::Starting(Phase::Claiming) => format!(
                "not ready: claiming a node in {place}; no ID is minted before the claim is done"
            ),
            State::Starting(Phase::Forgetting {
                node,
                until_unix_millis,
                why,
            }) => format!(
                "not ready: node {node} is claimed in {place}, but the store cannot vouch that it \
                 lost no write ({}), so no ID is minted before {} ({} from now): the forgetting \
                 rule",
                unvouched_reason(why.as_deref()),
                display_millis(*until_unix_millis),
                seconds(left(*until_unix_millis, now_unix_millis)),
            ),
            State::Starting(phase @ Phase::Restored { node, .. }) => format!(
                "not ready: node {node} is claimed in {place}, but no ID is minted before {} ({} \
                 from now): {}",
                display_millis(phase.until()),
                seconds(left(phase.until(), now_unix_millis)),
                phase.restore_reason(),
            ),
            State::Starting(Phase::PastMark {
                node,
                until_unix_millis,
            }) => format!(
                "not ready: node {node} is claimed in {place}; its last holder issued IDs up to {}, \
                 which this clock has not passed yet ({} from now)",
                display_millis(*until_unix_millis),
                seconds(left(*until_unix_millis, now_unix_millis)),
            ),
            State::Starting(Phase::Failed(e)) => {
                format!("not ready: the lease could not be taken, and the service is stopping: {e}")
            }
            State::Fenced { node, cause } => {
                format!("node {node} is fenced: {cause}; minting resumes once the lease is secured again")
            }
            State::Lost { node } => format!(
                "node {node} was taken over by another process: this one mints no more, and stops \
                 for its supervisor to start it anew"
            ),
        }
    }

    /// The 503 a request gets while the service is not ready (`None` when it is).
    pub fn problem(&self, place: &str, now_unix_millis: u64) -> Option<Problem> {
        if self.is_ready() {
            return None;
        }
        Some(Problem {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: "unavailable",
            message: self.explain(place, now_unix_millis),
            retry_after: self.retry_after(now_unix_millis),
            state: Some(self.name()),
        })
    }
}

/// The wall clock, Unix milliseconds (the lease's times are on the minting clock, which
/// follows it).
pub fn now_unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// How long until `until`, from `now` (zero if past).
fn left(until_unix_millis: u64, now_unix_millis: u64) -> Duration {
    Duration::from_millis(until_unix_millis.saturating_sub(now_unix_millis))
}

/// `12.0 s`.
pub fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;

    use super::*;

    const NOW: u64 = 1_796_000_000_000;

    #[test]
    fn each_state_is_named_with_its_end_and_retry_after() {
        let waiting = State::Starting(Phase::Forgetting {
            node: 3,
            until_unix_millis: NOW + 11_500,
            why: None,
        });
        assert_eq!(
            waiting.name(),
            "waiting for the forgetting rule until 2026-11-30T00:53:31.500Z"
        );
        assert_eq!(waiting.node(), Some(3));
        assert_eq!(
            waiting.retry_after(NOW),
            Some(Duration::from_millis(11_500))
        );
        let response = waiting
            .problem("redis namespace \"x\"", NOW)
            .unwrap()
            .into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()["retry-after"], "12");
        let mark = State::Starting(Phase::PastMark {
            node: 1,
            until_unix_millis: NOW - 5,
        });
        assert!(mark.name().starts_with("waiting past the mark until "));
        // Past the end already: ask again soon, not at once.
        assert_eq!(mark.retry_after(NOW), Some(RETRY_SOON));
        let restored = State::Starting(Phase::Restored {
            node: 0,
            until_unix_millis: NOW + 2_000,
            mark_term: 5,
            term: 2,
        });
        assert_eq!(
            restored.name(),
            "waiting for the forgetting rule until 2026-11-30T00:53:22.000Z: raft term 2 below \
             the mark's 5 (a restore?)"
        );
        assert_eq!(restored.node(), Some(0));
        assert!(restored.explain("x", NOW).contains("raise-floor"));
        let unvouched = State::Starting(Phase::Forgetting {
            node: 3,
            until_unix_millis: NOW + 2_000,
            why: Some("fsync is off on the server: a crash may lose commits".into()),
        });
        assert_eq!(
            unvouched.name(),
            "waiting for the forgetting rule until 2026-11-30T00:53:22.000Z: fsync is off on the \
             server: a crash may lose commits"
        );
        let text = unvouched.explain("postgres namespace \"x\"", NOW);
        assert!(
            text.contains("(fsync is off on the server: a crash may lose commits)")
                && text.contains("(2.0 s from now)")
                && !text.contains("Redis"),
            "{text}"
        );
        assert_eq!(State::Starting(Phase::Claiming).name(), "claiming");
        assert_eq!(State::Starting(Phase::Claiming).node(), None);
        let fenced = State::Fenced {
            node: 2,
            cause: "connection refused".into(),
        };
        assert_eq!(fenced.name(), "fenced: connection refused");
        assert_eq!(fenced.retry_after(NOW), Some(RETRY_SOON));
        assert_eq!(State::Lost { node: 2 }.name(), "lost");
        assert_eq!(State::Lost { node: 2 }.retry_after(NOW), None);
        assert!(State::Ready { node: 2 }.problem("x", NOW).is_none());
    }

    #[test]
    fn a_wait_says_in_one_line_what_it_waits_for_and_how_long() {
        let line = Phase::Forgetting {
            node: 3,
            until_unix_millis: NOW + 12_000,
            why: None,
        }
        .log_line(NOW)
        .unwrap();
        assert!(
            line.starts_with(
                "node 3: waiting for the forgetting rule until 2026-11-30T00:53:32.000Z (12.0 s): \
                 the store cannot vouch that it lost no write"
            ),
            "{line}"
        );
        assert!(!line.contains('\n'));
        assert_eq!(Phase::Claiming.log_line(NOW), None);
        assert_eq!(
            Phase::of(AcquireProgress::PastMark {
                node: 4,
                until_unix_millis: 9
            }),
            Phase::PastMark {
                node: 4,
                until_unix_millis: 9
            }
        );
    }
}
