//! The local restart guard: the mark is written ahead of every ID handed out, a restart
//! continues after it, a clock behind it waits (bounded), and a guard that cannot write
//! fences.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use snowmint::clock::{Clock, ManualClock, WallClock};
use snowmint::fence::{FenceError, FileGuard, GuardError};
use snowmint::{Generator, Id, Layout};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("snowmint-guard-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn wall_millis() -> u64 {
    WallClock.now_unix_nanos() / 1_000_000
}

/// The wall clock shifted by a settable number of milliseconds.
#[derive(Clone, Default)]
struct SkewedClock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock for SkewedClock {
    fn now_unix_nanos(&self) -> u64 {
        let wall = WallClock.now_unix_nanos() as i64;
        (wall + self.offset_ms.load(Ordering::Relaxed) * 1_000_000) as u64
    }
}

#[test]
fn every_id_handed_out_is_covered_by_the_mark_on_disk() {
    let dir = temp_dir("covered");
    let path = dir.join("node.hwm");
    let guard = FileGuard::new(&path).window(Duration::from_millis(20));
    let gen = guard
        .start(Generator::builder(Layout::TWITTER).clock(WallClock).node(1))
        .expect("start");
    // Mint for at least 300 ms (so the 20 ms window must be renewed many times, by the
    // thread or on the spot) and at least 100 IDs (so many marks are checked): both are
    // bounds on the loop, not deadlines, so a loaded machine only makes it run longer.
    let end = Instant::now() + Duration::from_millis(300);
    let mut n = 0;
    let mut last = None;
    while Instant::now() < end || n < 100 {
        let id = gen.next_id().expect("mint");
        // Read after the ID was handed out: a crash now must leave a mark at or after it.
        let mark = guard.read_mark().expect("read").expect("a mark exists");
        assert!(
            mark >= Layout::TWITTER.decode(id).unix_millis(),
            "ID at {} past mark {mark}",
            Layout::TWITTER.decode(id).unix_millis()
        );
        assert!(last < Some(id));
        last = Some(id);
        n += 1;
        std::thread::sleep(Duration::from_micros(500));
    }
    drop(gen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_restart_continues_after_the_last_id_without_waiting_a_window() {
    let dir = temp_dir("clean");
    let path = dir.join("node.hwm");
    let guard = FileGuard::new(&path).window(Duration::from_secs(5));
    let gen = guard
        .start(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("start");
    let reserved = guard.read_mark().expect("read").expect("mark");
    assert!(
        reserved >= wall_millis() + 4_000,
        "the first write reserves the window ahead"
    );
    let ids: Vec<Id> = (0..5_000).map(|_| gen.next_id().expect("mint")).collect();
    let last = *ids.last().expect("minted");
    drop(gen);
    let mark = guard.read_mark().expect("read").expect("mark");
    let last_ms = Layout::TWITTER.decode(last).unix_millis();
    assert!(
        mark >= last_ms && mark < reserved,
        "release lowers the mark to the last ID ({last_ms} <= {mark} < {reserved})"
    );

    let again = guard
        .start(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("restart");
    assert!(again.next_id().expect("mint") > last);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_crash_leaves_the_reservation_and_a_clock_behind_it_waits_then_mints_above() {
    let dir = temp_dir("crash");
    let path = dir.join("node.hwm");
    // The state a crash leaves: the last reservation, here 300 ms ahead of this clock.
    let mark = wall_millis() + 300;
    std::fs::write(&path, format!("snowmint-high-water-mark-v1 {mark}\n")).expect("write");
    let started = Instant::now();
    let gen = FileGuard::new(&path)
        .start(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("start");
    assert!(
        wall_millis() > mark,
        "start returned {:?} after, before the clock passed the mark",
        started.elapsed()
    );
    let id = gen.next_id().expect("mint");
    assert!(Layout::TWITTER.decode(id).unix_millis() > mark);
    drop(gen);

    // A clock an hour behind the mark: refused at once, the file left as it was.
    let behind = SkewedClock::default();
    behind.offset_ms.store(-3_600_000, Ordering::Relaxed);
    let before = FileGuard::new(&path).read_mark().expect("read");
    let err = FileGuard::new(&path)
        .max_wait(Duration::from_secs(1))
        .start(Generator::builder(Layout::TWITTER).clock(behind))
        .unwrap_err();
    assert!(matches!(err, GuardError::MarkAhead { .. }), "{err:?}");
    assert!(
        err.to_string().contains("than the guard waits (1s)"),
        "{err}"
    );
    assert_eq!(FileGuard::new(&path).read_mark().expect("read"), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_or_unreadable_file_is_an_error_naming_it() {
    let dir = temp_dir("corrupt");
    let path = dir.join("node.hwm");
    std::fs::write(&path, "12345\n").expect("write");
    let err = FileGuard::new(&path)
        .start(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(matches!(err, GuardError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains(&path.display().to_string()));
    // A directory where the file should be cannot be read as one.
    let as_dir = dir.join("is-a-dir");
    std::fs::create_dir_all(&as_dir).expect("dir");
    let err = FileGuard::new(&as_dir)
        .start(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(err, GuardError::Io { action: "read", .. }),
        "{err:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clock_jump_is_covered_on_the_spot_and_an_unwritable_mark_fences() {
    let dir = temp_dir("jump");
    let path = dir.join("node.hwm");
    let clock = ManualClock::at_unix_millis(wall_millis());
    let gen = FileGuard::new(&path)
        .window(Duration::from_secs(60))
        .start(Generator::builder(Layout::TWITTER).clock(clock.clone()))
        .expect("start");
    gen.next_id().expect("mint");
    // The clock jumps past the window before the thread renews (every 30 s): the ID is
    // handed out only after the mark covering it is on disk.
    clock.advance(Duration::from_secs(120));
    let id = gen.next_id().expect("covered on the spot");
    let mark = FileGuard::new(&path)
        .read_mark()
        .expect("read")
        .expect("mark");
    assert!(mark >= Layout::TWITTER.decode(id).unix_millis());

    // Now the mark cannot be written: the next jump is refused, not risked.
    std::fs::remove_dir_all(&dir).expect("remove dir");
    clock.advance(Duration::from_secs(120));
    let err = gen.next_id().unwrap_err();
    assert!(matches!(err, FenceError::Fenced { .. }), "{err:?}");
    assert!(
        gen.last_id() > Some(id),
        "the refused ID was consumed, never handed out"
    );
}

/// The clock stepped back past the window while the guard runs, then a crash (no release),
/// then a restart of the same node on a clock between the stepped-back mark and the last ID
/// issued: the mark on disk never fell below what was issued, so the restart waits past it
/// and repeats no ID.
#[test]
fn a_clock_stepped_back_never_lowers_the_mark_so_a_crash_repeats_nothing() {
    let dir = temp_dir("stepback");
    let path = dir.join("node.hwm");
    let t0 = wall_millis();
    let window = Duration::from_millis(50);
    let clock = ManualClock::at_unix_millis(t0);
    let gen = FileGuard::new(&path)
        .window(window)
        .start(
            Generator::builder(Layout::TWITTER)
                .clock(clock.clone())
                .node(1),
        )
        .expect("start");
    // 20 IDs in each millisecond from t0 to t0 + 99.
    let mut issued = HashSet::new();
    for _ in 0..100 {
        for _ in 0..20 {
            assert!(issued.insert(gen.next_id().expect("held")));
        }
        clock.advance(Duration::from_millis(1));
    }
    let before = FileGuard::new(&path)
        .read_mark()
        .expect("read")
        .expect("mark");
    assert!(before >= t0 + 99, "the mark covers every ID issued");
    // The clock steps back 100 ms, and a renewal comes: it must not lower the mark.
    clock.rewind(Duration::from_millis(100));
    gen.renew();
    let after = FileGuard::new(&path)
        .read_mark()
        .expect("read")
        .expect("mark");
    assert!(after >= before, "the mark fell from {before} to {after}");
    // A crash: nothing released (the leaked renewal thread goes on renewing on the
    // stepped-back clock, as a process that has not crashed yet would).
    std::mem::forget(gen);

    // The restart, at t0 + 51: past the stepped-back mark (t0 + 50), before the last ID.
    let clock2 = ManualClock::at_unix_millis(t0 + 51);
    let ticking = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let ticker = {
        let (clock2, ticking) = (clock2.clone(), Arc::clone(&ticking));
        std::thread::spawn(move || {
            // Relaxed: a stop flag; nothing else is published with it.
            while ticking.load(Ordering::Relaxed) {
                clock2.advance(Duration::from_millis(1));
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let gen2 = FileGuard::new(&path)
        .window(window)
        .max_wait(Duration::from_secs(30))
        .start(
            Generator::builder(Layout::TWITTER)
                .clock(clock2.clone())
                .node(1),
        )
        .expect("restart");
    let mut repeated = 0;
    for _ in 0..2_000 {
        if issued.contains(&gen2.next_id().expect("held")) {
            repeated += 1;
        }
    }
    // Relaxed: see the ticker.
    ticking.store(false, Ordering::Relaxed);
    ticker.join().expect("ticker");
    assert_eq!(repeated, 0, "IDs issued before the crash handed out again");
    drop(gen2);
    let _ = std::fs::remove_dir_all(&dir);
}
