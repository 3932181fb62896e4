//! `fill` on every source: unique, increasing IDs across tick ends, one reservation per tick,
//! and on error a filled prefix of exactly the count reported, the rest of the slice as it
//! was, and the next fill carrying on above it. Only `ManualClock` (and one test with a
//! thread moving it): these run under miri too (`cargo +nightly miri test --test fill`).

use std::sync::Arc;
use std::time::Duration;

use snowmint::clock::{ManualClock, Rollback};
use snowmint::fence::{FenceError, Fenced, Keeper, Renewal};
use snowmint::source::FillError;
use snowmint::{Generator, Id, IdSource, Layout, MintError, ShardedGenerator};

/// 8 IDs per 1 ms tick and 4 node numbers: a fill of a few dozen IDs spans ticks. The time
/// field lasts far past 2050 from its 2020 epoch.
const SMALL: Layout = Layout::builder()
    .time_bits(50)
    .node_bits(2)
    .sequence_bits(3)
    .max_bits(64)
    .epoch_unix_millis(1_600_000_000_000)
    .build_const();

/// 2023-11-14T22:13:20Z.
const NOW_MS: u64 = 1_700_000_000_000;

/// What no source issues (every state is above 0): marks the slots a fill left alone.
const UNTOUCHED: Id = Id::MIN;

fn clock() -> ManualClock {
    ManualClock::at_unix_millis(NOW_MS)
}

/// A generator on `clock` that never waits, with `lead` ticks of lead.
fn generator(clock: &ManualClock, lead: u64) -> Generator<ManualClock> {
    Generator::builder(SMALL)
        .clock(clock.clone())
        .node(1)
        .lead_ticks(lead)
        .max_wait(Duration::ZERO)
        .build()
        .expect("a valid generator")
}

fn sharded(clock: &ManualClock, lead: u64) -> ShardedGenerator<ManualClock> {
    ShardedGenerator::builder(SMALL)
        .clock(clock.clone())
        .shard_bits(2)
        .lead_ticks(lead)
        .max_wait(Duration::ZERO)
        .build()
        .expect("a valid sharded generator")
}

fn assert_increasing(ids: &[Id]) {
    if let Some(w) = ids.windows(2).find(|w| w[0] >= w[1]) {
        panic!("{} followed by {}", w[0], w[1]);
    }
}

/// The ticks `ids` span, in order, with how many IDs each holds.
fn ticks(ids: &[Id]) -> Vec<(u64, usize)> {
    let mut out: Vec<(u64, usize)> = Vec::new();
    for &id in ids {
        let t = SMALL.decode(id).ticks();
        match out.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
    out
}

/// Fills the whole slice within the lead (three ticks of 8), then, the ticks used up, stops
/// with the count written: for any source of `SMALL` with a lead of 2 on a clock that
/// stands still, whose next 3 ticks are fresh.
fn check_spans_and_stops<S: IdSource>(source: &S) -> Vec<Id>
where
    S::Error: std::fmt::Debug,
{
    let mut ids = vec![UNTOUCHED; 24];
    source
        .fill(&mut ids)
        .expect("three ticks of 8 fit the lead");
    assert_increasing(&ids);
    let spans: Vec<usize> = ticks(&ids).iter().map(|t| t.1).collect();
    assert_eq!(spans, [8, 8, 8], "whole ticks, one after the other");
    let mut more = vec![UNTOUCHED; 5];
    let err = source.fill(&mut more).expect_err("the lead is used up");
    assert_eq!(err.filled(), 0);
    assert!(more.iter().all(|&id| id == UNTOUCHED));
    ids
}

#[test]
fn a_generator_fills_across_ticks_and_stops_at_the_lead() {
    let clock = clock();
    let gen = generator(&clock, 2);
    let ids = check_spans_and_stops(&gen);
    assert!(ids.iter().all(|&id| SMALL.decode(id).node() == 1));
    assert_eq!(
        gen.last_id(),
        ids.last().copied(),
        "no state taken beyond the IDs"
    );
}

#[test]
fn a_thread_local_shard_fills_across_ticks_and_stops_at_the_lead() {
    let clock = clock();
    let gen = sharded(&clock, 2);
    let ids = check_spans_and_stops(&gen);
    let shard = gen.local_shard().expect("the thread took a shard");
    assert!(ids.iter().all(|&id| SMALL.decode(id).node() == shard));
}

#[test]
fn an_owned_shard_fills_across_ticks_and_stops_at_the_lead() {
    let clock = clock();
    let gen = sharded(&clock, 2);
    let (a, b) = (gen.own_shard().unwrap(), gen.own_shard().unwrap());
    let ids_a = check_spans_and_stops(&a);
    let ids_b = check_spans_and_stops(&b);
    assert!(
        ids_a.iter().all(|id| !ids_b.contains(id)),
        "shards never share an ID"
    );
    assert_eq!(a.last_id(), ids_a.last().copied());
}

#[test]
fn through_references_arcs_and_boxes_fill_is_the_source_s() {
    let clock = clock();
    let gen = generator(&clock, 0);
    let mut ids = [UNTOUCHED; 3];
    IdSource::fill(&&gen, &mut ids[..1]).unwrap();
    let arc = Arc::new(gen);
    IdSource::fill(&arc, &mut ids[1..2]).unwrap();
    let boxed = Box::new(Arc::try_unwrap(arc).expect("the only handle"));
    IdSource::fill(&boxed, &mut ids[2..]).unwrap();
    assert_increasing(&ids);
    assert_eq!(boxed.last_id(), Some(ids[2]));
}

/// Exhausted part-way: the count written comes with the error, those IDs are the tick's
/// rest, the slots after them are left alone, and the next fill goes on above them.
#[test]
fn a_fill_that_runs_out_reports_what_it_wrote_and_the_next_carries_on() {
    let clock = clock();
    let gen = generator(&clock, 0);
    let mut first = [UNTOUCHED; 3];
    gen.fill(&mut first).unwrap();
    let mut ids = [UNTOUCHED; 20];
    let err = gen.fill(&mut ids).unwrap_err();
    assert_eq!(err.filled(), 5, "the tick's 8 IDs less the 3 taken");
    assert!(matches!(err.error(), MintError::Exhausted { .. }), "{err}");
    assert!(ids[5..].iter().all(|&id| id == UNTOUCHED));
    assert_increasing(&[&first[..], &ids[..5]].concat());
    assert_eq!(
        gen.last_id(),
        Some(ids[4]),
        "issued state ends at the last ID written"
    );

    clock.advance(Duration::from_millis(1));
    let err = gen.fill(&mut ids[5..]).unwrap_err();
    assert_eq!(err.filled(), 8, "the next tick, whole");
    assert_increasing(&[&first[..], &ids[..13]].concat());
    assert!(ids[13..].iter().all(|&id| id == UNTOUCHED));
}

/// A clock stepped back: under `Rollback::Wait` nothing is written; under `Continue` the
/// last tick's rest is, then the fill stops. Neither writes an ID at or below the last one.
#[test]
fn a_clock_stepped_back_stops_a_fill_per_the_rollback_policy() {
    for (policy, want) in [(Rollback::Wait, 0), (Rollback::Continue, 6)] {
        let clock = clock();
        let gen = Generator::builder(SMALL)
            .clock(clock.clone())
            .on_rollback(policy)
            .max_wait(Duration::ZERO)
            .build()
            .unwrap();
        let before = gen.next_ids(2).unwrap().last().unwrap();
        clock.rewind(Duration::from_secs(1));
        let mut ids = [UNTOUCHED; 10];
        let err = gen.fill(&mut ids).unwrap_err();
        assert_eq!(err.filled(), want, "{policy:?}");
        assert!(
            matches!(err.error(), MintError::ClockBehind { .. }),
            "{policy:?}: {err}"
        );
        assert_increasing(&[&[before][..], &ids[..want]].concat());
        assert!(ids[want..].iter().all(|&id| id == UNTOUCHED));
    }
}

/// A fill waits for the next tick as `next_ids` does: a thread moves the clock on while it
/// waits, and the fill completes across the tick.
#[test]
fn a_fill_waits_for_the_next_tick_as_next_ids_does() {
    let clock = clock();
    let gen = Generator::builder(SMALL)
        .clock(clock.clone())
        .max_wait(Duration::from_secs(30))
        .build()
        .unwrap();
    let mover = {
        let clock = clock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            clock.advance(Duration::from_millis(1));
        })
    };
    let mut ids = [UNTOUCHED; 12];
    gen.fill(&mut ids)
        .expect("the clock moves on while it waits");
    mover.join().unwrap();
    assert_increasing(&ids);
    assert_eq!(ticks(&ids).iter().map(|t| t.1).collect::<Vec<_>>(), [8, 4]);
}

/// A keeper that secures up to a fixed time and never expires.
struct Until(u64);

impl Keeper for Until {
    fn renew(&mut self, _now: u64) -> Renewal {
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

/// A fenced source's fill goes through its checks: it stops at the secured limit, with the
/// IDs up to it written, even where the source's lead would allow more.
#[test]
fn a_fenced_fill_stops_at_the_secured_limit() {
    let clock = clock();
    let limit = NOW_MS + 1;
    let fenced = Fenced::start_manual(generator(&clock, 3), 1, Until(limit)).unwrap();
    let mut ids = [UNTOUCHED; 40];
    let err: FillError<FenceError> = fenced.fill(&mut ids).unwrap_err();
    assert_eq!(err.filled(), 16, "the two ticks up to the limit");
    assert!(ids[..16]
        .iter()
        .all(|&id| SMALL.decode(id).unix_millis() <= limit));
    assert_increasing(&ids[..16]);
    assert!(ids[16..].iter().all(|&id| id == UNTOUCHED));
    // Through the trait: the same checks.
    let err = IdSource::fill(&fenced, &mut ids[16..]).unwrap_err();
    assert_eq!(err.filled(), 0);
}

/// An empty slice takes nothing.
#[test]
fn an_empty_fill_takes_nothing() {
    let clock = clock();
    let gen = generator(&clock, 0);
    gen.fill(&mut []).unwrap();
    assert_eq!(gen.last_id(), None);
}
