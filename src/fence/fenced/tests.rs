//! `Fenced` on a [`ManualClock`] with scripted keepers: every call mints the source's own
//! IDs inside the window, a window past its deadline refuses before minting, an ID past
//! the limit is refused with a tick as the hint, and the renewal thread renews every period
//! and stops when the fence is dropped.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use super::Fenced;
use crate::clock::ManualClock;
use crate::fence::{FenceError, Keeper, Renewal};
use crate::generator::Generator;
use crate::layout::Layout;
use crate::source::IdSource;

/// 2023-11-14T22:13:20Z: a whole second, so a limit a whole number of seconds later is the
/// start of a tick in every layout used here.
const T0: u64 = 1_700_000_000_000;
/// How long a liveness check waits for the renewal thread before calling it missing: far
/// beyond any scheduling delay on a loaded machine, and not a bound on how fast it runs.
const PATIENCE: Duration = Duration::from_secs(60);

/// A generator of node 3 on `clock`, waiting at most 7 ms (a value no default has).
fn source(layout: Layout, clock: &ManualClock) -> Generator<ManualClock> {
    Generator::builder(layout)
        .clock(clock.clone())
        .node(3)
        .max_wait(Duration::from_millis(7))
        .build()
        .unwrap()
}

/// Every renewal holds IDs up to `ahead_ms` past the renewal's clock reading, for
/// `valid_for` of the clock (`None`: forever); retries after 300 ms.
struct Grant {
    ahead_ms: u64,
    valid_for: Option<Duration>,
}

impl Keeper for Grant {
    fn renew(&mut self, now: u64) -> Renewal {
        Renewal::Held {
            limit_unix_millis: now / 1_000_000 + self.ahead_ms,
            valid_until_nanos: self
                .valid_for
                .map_or(u64::MAX, |d| now + d.as_nanos() as u64),
            floor_unix_millis: None,
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, ok: bool) -> Duration {
        if ok {
            Duration::from_secs(3_600)
        } else {
            Duration::from_millis(300)
        }
    }
}

/// Always holds IDs up to one fixed limit, with no deadline.
struct Fixed(u64);

impl Keeper for Fixed {
    fn renew(&mut self, _: u64) -> Renewal {
        Renewal::Held {
            limit_unix_millis: self.0,
            valid_until_nanos: u64::MAX,
            floor_unix_millis: None,
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        Duration::from_secs(3_600)
    }
}

#[test]
fn every_call_mints_the_source_s_ids_inside_the_window() {
    let clock = ManualClock::at_unix_millis(T0);
    let l = Layout::TWITTER;
    let fenced = Fenced::start_manual(
        source(l, &clock),
        3,
        Grant {
            ahead_ms: 1_000,
            valid_for: None,
        },
    )
    .unwrap();
    assert!(!fenced.is_fenced() && !fenced.is_lost());
    assert_eq!(fenced.last_id(), None);
    assert_eq!(IdSource::last_id(&fenced), None);
    assert_eq!(IdSource::max_wait(&fenced), Duration::from_millis(7));
    assert_eq!(fenced.limit_unix_millis(), Some(T0 + 1_000));
    let ids = [
        fenced.next_id().unwrap(),
        fenced.try_next_id().unwrap(),
        fenced.next_id_timeout(Duration::from_millis(1)).unwrap(),
        IdSource::next_id(&fenced).unwrap(),
        IdSource::try_next_id(&fenced).unwrap(),
        IdSource::next_id_timeout(&fenced, Duration::from_millis(1)).unwrap(),
    ];
    for (i, id) in ids.iter().enumerate() {
        let d = l.decode(*id);
        assert_eq!(
            (d.node(), d.unix_millis(), d.sequence()),
            (3, T0, i as u64),
            "call {i}"
        );
    }
    assert_eq!(fenced.last_id(), Some(ids[5]));
    assert_eq!(IdSource::last_id(&fenced), Some(ids[5]));
}

#[test]
fn a_window_past_its_deadline_refuses_before_minting() {
    let clock = ManualClock::at_unix_millis(T0);
    // A limit far ahead, a deadline one second away: only the deadline can refuse.
    let keeper = Grant {
        ahead_ms: 60_000,
        valid_for: Some(Duration::from_secs(1)),
    };
    let fenced = Fenced::start_manual(source(Layout::TWITTER, &clock), 3, keeper).unwrap();
    let first = fenced.next_id().unwrap();
    clock.advance(Duration::from_secs(2));
    assert!(fenced.is_fenced() && !fenced.is_lost());
    let refusals = [
        fenced.next_id().unwrap_err(),
        fenced.try_next_id().unwrap_err(),
        fenced
            .next_id_timeout(Duration::from_millis(1))
            .unwrap_err(),
        fenced.next_ids(4).unwrap_err(),
        fenced.try_next_ids(4).unwrap_err(),
    ];
    for e in refusals {
        let FenceError::Fenced {
            node,
            retry_after,
            cause,
        } = e
        else {
            panic!("not fenced: {e:?}");
        };
        // The keeper's retry period, not a tick: the refusal came from the deadline.
        assert_eq!((node, retry_after), (3, Duration::from_millis(300)));
        assert_eq!(
            cause.to_string(),
            "the hold's deadline passed before a renewal arrived"
        );
    }
    assert_eq!(
        fenced.last_id(),
        Some(first),
        "nothing was minted while fenced"
    );
    fenced.renew();
    assert!(!fenced.is_fenced());
    assert!(fenced.next_id().unwrap() > first);
}

#[test]
fn an_id_past_the_limit_is_refused_with_a_tick_as_the_hint() {
    let clock = ManualClock::at_unix_millis(T0);
    let l = Layout::SONYFLAKE; // 10 ms ticks
    let fenced = Fenced::start_manual(source(l, &clock), 3, Fixed(T0 + 1_000)).unwrap();
    assert!(fenced.next_id().is_ok());
    clock.advance(Duration::from_secs(2));
    assert!(
        !fenced.is_fenced(),
        "the deadline holds; only the limit refuses"
    );
    let e = fenced.next_id().unwrap_err();
    let FenceError::Fenced {
        node,
        retry_after,
        cause,
    } = &e
    else {
        panic!("not fenced: {e:?}");
    };
    assert_eq!((*node, *retry_after), (3, l.unit()));
    assert_eq!(
        cause.to_string(),
        format!(
            "the ID's time, {} ms (Unix), is outside the secured window, which ends at {} ms",
            T0 + 2_000,
            T0 + 1_000
        )
    );
}

#[test]
fn the_limit_and_debug_report_the_window() {
    let clock = ManualClock::at_unix_millis(T0);
    let never = Fenced::start_with(
        source(Layout::TWITTER, &clock),
        3,
        Box::new(Fixed(T0)),
        Some(Renewal::Failed(Arc::new(std::io::Error::other(
            "unreachable",
        )))),
        false,
    );
    assert_eq!(never.limit_unix_millis(), None, "no window yet");
    assert!(never.is_fenced());
    let text = format!("{never:?}");
    assert!(
        text.starts_with("Fenced {") && text.ends_with(", .. }"),
        "{text}"
    );
    assert!(
        text.contains("node: 3, fenced: true, limit_unix_millis: None"),
        "{text}"
    );
    let open = Fenced::start_manual(source(Layout::TWITTER, &clock), 3, Fixed(T0 + 5)).unwrap();
    assert_eq!(open.limit_unix_millis(), Some(T0 + 5));
    let text = format!("{open:?}");
    assert!(
        text.contains(&format!(
            "node: 3, fenced: false, limit_unix_millis: Some({})",
            T0 + 5
        )),
        "{text}"
    );
}

/// Counts renewals, sends each count, and waits `period` after a success.
struct Counting {
    renewals: Arc<AtomicU32>,
    sent: mpsc::Sender<u32>,
    period: fn(u32) -> Duration,
}

impl Counting {
    fn new(period: fn(u32) -> Duration) -> (Counting, Arc<AtomicU32>, mpsc::Receiver<u32>) {
        let (tx, rx) = mpsc::channel();
        let renewals = Arc::new(AtomicU32::new(0));
        let keeper = Counting {
            renewals: Arc::clone(&renewals),
            sent: tx,
            period,
        };
        (keeper, renewals, rx)
    }
}

impl Keeper for Counting {
    fn renew(&mut self, now: u64) -> Renewal {
        // Relaxed: a count the test reads after the thread is joined (or through the channel).
        let n = self.renewals.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self.sent.send(n);
        Renewal::Held {
            limit_unix_millis: now / 1_000_000 + 1_000,
            valid_until_nanos: u64::MAX,
            floor_unix_millis: None,
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        // Relaxed: as above.
        (self.period)(self.renewals.load(Ordering::Relaxed))
    }
}

#[test]
fn the_renewal_thread_renews_every_period() {
    let (keeper, _, rx) = Counting::new(|_| Duration::from_millis(1));
    let clock = ManualClock::at_unix_millis(T0);
    let fenced = Fenced::start(source(Layout::TWITTER, &clock), 3, keeper).unwrap();
    assert_eq!(rx.recv().unwrap(), 1, "start renews once");
    for n in 2..=4 {
        assert_eq!(rx.recv_timeout(PATIENCE), Ok(n), "the thread renews again");
    }
    drop(fenced);
}

#[test]
fn dropping_the_fence_stops_its_renewal_thread_before_its_period() {
    // An hour after the first renewal; after any later one (a thread that does not wait
    // for its period), a millisecond, so that such a thread shows itself and still ends.
    let (keeper, renewals, _rx) =
        Counting::new(|n| Duration::from_millis(if n <= 1 { 3_600_000 } else { 1 }));
    let clock = ManualClock::at_unix_millis(T0);
    let fenced = Fenced::start(source(Layout::TWITTER, &clock), 3, keeper).unwrap();
    // Time for a thread that renews without waiting to do so; correct code waits an hour,
    // so any delay here leaves the count at one.
    std::thread::sleep(Duration::from_millis(20));
    drop(fenced); // wakes the thread at once: this returns long before the hour
                  // Relaxed: the thread was joined by the drop.
    assert_eq!(
        renewals.load(Ordering::Relaxed),
        1,
        "only the renewal at start"
    );
}

/// A clock whose cheap reading froze (the ticker thread not yet scheduled after a pause)
/// while its exact reading moved on.
struct Frozen {
    exact: std::sync::atomic::AtomicU64,
    recent: u64,
}

impl crate::clock::Clock for Frozen {
    fn now_unix_nanos(&self) -> u64 {
        // Relaxed: one test thread sets and reads it.
        self.exact.load(Ordering::Relaxed)
    }
    fn recent_unix_nanos(&self) -> u64 {
        self.recent
    }
}

/// A process woken from a pause past its deadline: the cheap reading still says it is
/// early, but the exact reading after the mint says the deadline passed, so neither a
/// single ID nor a batch is handed out, and `is_fenced` agrees.
#[test]
fn a_mint_after_a_pause_past_the_deadline_is_refused_whatever_the_cheap_reading_says() {
    let t0 = T0 * 1_000_000;
    let clock = Arc::new(Frozen {
        exact: std::sync::atomic::AtomicU64::new(t0),
        recent: t0,
    });
    let gen = Generator::builder(Layout::TWITTER)
        .clock(Arc::clone(&clock))
        .node(3)
        .build()
        .unwrap();
    // A limit an hour ahead: only the deadline (1 s after the renewal) can refuse.
    let keeper = Grant {
        ahead_ms: 3_600_000,
        valid_for: Some(Duration::from_secs(1)),
    };
    let fenced = Fenced::start_manual(gen, 3, keeper).unwrap();
    assert!(fenced.next_id().is_ok() && !fenced.is_fenced());
    // The pause: five seconds pass by the exact reading; the cheap one stays where it was.
    clock.exact.store(t0 + 5_000_000_000, Ordering::Relaxed);
    assert!(
        matches!(fenced.next_id(), Err(FenceError::Fenced { .. })),
        "an ID minted after the deadline was handed out"
    );
    assert!(matches!(
        fenced.try_next_id(),
        Err(FenceError::Fenced { .. })
    ));
    assert!(matches!(
        fenced.next_ids(10),
        Err(FenceError::Fenced { .. })
    ));
    assert!(fenced.is_fenced());
    assert!(fenced.deadline_unix_nanos() <= t0 + 1_000_000_000);
}

/// Panics at its `panic_at`-th renewal (the first is the start's); the others hold for a
/// second of the clock; retries at once.
struct Flaky {
    calls: Arc<AtomicU32>,
    panic_at: u32,
}

impl Keeper for Flaky {
    fn renew(&mut self, now: u64) -> Renewal {
        // Relaxed: a count read by the test after the thread has renewed.
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        assert!(n != self.panic_at, "the keeper's store blew up");
        Renewal::Held {
            limit_unix_millis: now / 1_000_000 + 1_000,
            valid_until_nanos: now + 1_000_000_000,
            floor_unix_millis: None,
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        Duration::from_millis(1)
    }
}

#[test]
fn a_panicking_renewal_is_a_named_failure_and_renewals_go_on() {
    let clock = ManualClock::at_unix_millis(T0);
    let calls = Arc::new(AtomicU32::new(0));
    let keeper = Flaky {
        calls: Arc::clone(&calls),
        panic_at: 2,
    };
    // No thread: the renewals are this test's, one at a time.
    let fenced = Fenced::start_manual(source(Layout::TWITTER, &clock), 3, keeper).unwrap();
    assert!(fenced.next_id().is_ok());
    // The second renewal panics: caught, and the window is left as it was.
    fenced.renew();
    assert_eq!(calls.load(Ordering::Relaxed), 2);
    // Past the first window's deadline: the refusal names the panic.
    clock.advance(Duration::from_secs(2));
    match fenced.try_next_id() {
        Err(FenceError::Fenced { cause, .. }) => {
            assert!(cause.to_string().contains("panicked"), "{cause}")
        }
        other => panic!("expected a refusal naming the panic, got {other:?}"),
    }
    // The next renewal holds again.
    fenced.renew();
    assert!(fenced.next_id().is_ok(), "renewals go on after a panic");
}

#[test]
fn the_renewal_thread_survives_a_panicking_keeper() {
    let clock = ManualClock::at_unix_millis(T0);
    let calls = Arc::new(AtomicU32::new(0));
    let keeper = Flaky {
        calls: Arc::clone(&calls),
        panic_at: 2,
    };
    let fenced = Fenced::start(source(Layout::TWITTER, &clock), 3, keeper).unwrap();
    // The thread renews every millisecond: it must get past the panic of its first renewal.
    let end = std::time::Instant::now() + PATIENCE;
    while calls.load(Ordering::Relaxed) < 5 {
        assert!(std::time::Instant::now() < end, "the renewal thread died");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(fenced.next_id().is_ok());
}
