//! How far the time in snowmint's IDs is from the wall clock, and how far its clock is.
//!
//! Mints continuously for SECONDS (default 600) with the default generator (Twitter layout,
//! the shared `TscClock`), and reports, as the largest, p50 and p99:
//! - for every ID: the distance between its tick, the interval `[t, t + unit)`, and
//!   `SystemTime::now()` read right after minting it (0 when the wall clock is inside the
//!   tick), split into "ID behind" (stamped earlier than the wall clock) and "ID ahead";
//! - the same distance to the interval `[before, after]` of two `SystemTime` reads around
//!   the mint: a thread preempted between minting and reading the clock inflates the first
//!   figure but not this one, which keeps only what the ID's time itself is off by;
//! - every 1,024 IDs: `TscClock::now_unix_nanos()` against the midpoint of the tightest of
//!   three `SystemTime` brackets around it (readings whose bracket is wider than 20 µs, a
//!   preemption, are counted and left out), and how much the cheap `recent_unix_nanos()`
//!   reading lagged the exact one.
//!
//! With `--paced` it mints the way a slow server does instead:
//! one ID per millisecond, plus a burst of 5,000 IDs at each whole second, so that most IDs
//! come from a minter that has been idle; it then also counts the IDs more than 1 ms behind
//! or ahead of the wall clock.
//!
//! ```text
//! cargo run --release --example clock_accuracy -- 600
//! cargo run --release --example clock_accuracy -- 600 --paced
//! ```

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snowmint::clock::Clock;
use snowmint::{Generator, Id, Layout};

/// Width of one histogram bucket.
const BUCKET_NANOS: u64 = 100;
/// Buckets cover 0 to 50 ms; beyond, only the count and the largest are kept.
const BUCKETS: usize = 500_000;
/// IDs between two clock comparisons.
const IDS_PER_CLOCK_SAMPLE: u32 = 1_024;
/// A TSC-vs-SystemTime comparison whose bracket is wider than this was interrupted.
const MAX_BRACKET_NANOS: u64 = 20_000;

/// A histogram of nanosecond distances with 100 ns resolution, exact maximum.
struct Histogram {
    counts: Vec<u64>,
    overflow: u64,
    total: u64,
    max: u64,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS],
            overflow: 0,
            total: 0,
            max: 0,
        }
    }

    fn record(&mut self, nanos: u64) {
        self.total += 1;
        self.max = self.max.max(nanos);
        match self.counts.get_mut((nanos / BUCKET_NANOS) as usize) {
            Some(c) => *c += 1,
            None => self.overflow += 1,
        }
    }

    /// The upper edge of the bucket holding quantile `q`, or `None` when it lies beyond the
    /// histogram's range (then only the maximum is known).
    fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return Some(0);
        }
        let rank = ((self.total as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(((i as u64 + 1) * BUCKET_NANOS).min(self.max));
            }
        }
        None
    }

    /// How many recorded distances exceed `nanos` (a multiple of the bucket width).
    fn count_over(&self, nanos: u64) -> u64 {
        let from = (nanos / BUCKET_NANOS) as usize;
        self.counts.iter().skip(from).sum::<u64>() + self.overflow
    }

    fn line(&self, what: &str) -> String {
        // Quantiles are known to a bucket: print its upper edge as a bound.
        let q = |q| match self.quantile(q) {
            Some(n) => format!("≤ {}", fmt_nanos(n)),
            None => "> 50 ms".to_owned(),
        };
        format!(
            "{what:<44} max {:>10}  p50 {:>10}  p99 {:>10}  (n = {})",
            fmt_nanos(self.max),
            q(0.50),
            q(0.99),
            self.total
        )
    }
}

fn fmt_nanos(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.3} ms", n as f64 / 1e6)
    } else if n >= 1_000 {
        format!("{:.1} µs", n as f64 / 1e3)
    } else {
        format!("{n} ns")
    }
}

fn system_unix_nanos() -> u64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Distances of ID ticks from a wall-clock interval.
struct Distances {
    /// |distance| of every ID (0 when the tick and the interval overlap).
    all: Histogram,
    /// Only IDs whose tick ended before the interval began.
    behind: Histogram,
    /// Only IDs whose tick began after the interval ended.
    ahead: Histogram,
}

impl Distances {
    fn new() -> Distances {
        Distances {
            all: Histogram::new(),
            behind: Histogram::new(),
            ahead: Histogram::new(),
        }
    }

    /// Records the distance between the tick `[tick_start, tick_end)` and the wall-clock
    /// interval `[from, to]`.
    fn record(&mut self, tick_start: u64, tick_end: u64, from: u64, to: u64) {
        let d = if tick_end <= from {
            let d = from - tick_end + 1;
            self.behind.record(d);
            d
        } else if tick_start > to {
            let d = tick_start - to;
            self.ahead.record(d);
            d
        } else {
            0
        };
        self.all.record(d);
    }

    fn print(&self, what: &str) {
        println!("{}", self.all.line(what));
        println!(
            "{}",
            self.behind.line("  of which ID behind the wall clock")
        );
        println!(
            "{}",
            self.ahead.line("  of which ID ahead of the wall clock")
        );
    }
}

struct Report {
    /// ID ticks against `SystemTime::now()` read right after minting.
    after_mint: Distances,
    /// ID ticks against `[SystemTime before minting, SystemTime after]`.
    bracketed: Distances,
    /// TSC readings whose bracket was too wide to compare.
    tsc_discarded: u64,
    /// |TscClock::now_unix_nanos() - SystemTime|.
    tsc_vs_system: Histogram,
    /// Width of the tightest SystemTime bracket around each TSC read (the comparison's error).
    bracket: Histogram,
    /// now_unix_nanos() - recent_unix_nanos().
    recent_lag: Histogram,
    /// The largest signed TSC - SystemTime seen, both ways.
    tsc_ahead_max: u64,
    tsc_behind_max: u64,
}

impl Report {
    fn print(&self, elapsed: Duration) {
        let ids = self.after_mint.all.total;
        let rate = ids as f64 / elapsed.as_secs_f64();
        println!(
            "after {:.0} s: {ids} IDs, {:.2} M/s ({:.1}% of the layout's cap; each ID also pays two SystemTime reads)",
            elapsed.as_secs_f64(),
            rate / 1e6,
            rate / Layout::TWITTER.capacity_per_second() * 100.0
        );
        self.after_mint
            .print("ID tick vs SystemTime read after minting");
        self.bracketed
            .print("ID tick vs SystemTime before..after minting");
        println!(
            "{}",
            self.tsc_vs_system
                .line("TscClock::now_unix_nanos vs SystemTime")
        );
        println!(
            "{:<44} ahead max {}, behind max {}",
            "  signed (TSC - SystemTime)",
            fmt_nanos(self.tsc_ahead_max),
            fmt_nanos(self.tsc_behind_max)
        );
        println!(
            "{}",
            self.bracket.line("  bracket width (comparison error)")
        );
        println!(
            "{:<44} {} (bracket over {})",
            "  readings left out (preempted)",
            self.tsc_discarded,
            fmt_nanos(MAX_BRACKET_NANOS)
        );
        println!(
            "{}",
            self.recent_lag.line("recent_unix_nanos lag behind now")
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let paced = args.iter().any(|a| a == "--paced");
    let seconds: u64 = match args.iter().find(|a| *a != "--paced") {
        Some(s) => s
            .parse()
            .map_err(|e| format!("SECONDS must be a whole number, got {s:?}: {e}"))?,
        None => 600,
    };
    if paced {
        return run_paced(seconds);
    }
    let layout = Layout::TWITTER;
    let gen = Generator::new(layout, 0)?;
    let clock = gen.clock().clone();
    let unit = layout.unit_nanos();
    println!(
        "minting for {seconds} s: Twitter layout ({}/{}/{} bits, {} ns ticks), TscClock ticker {:?}",
        layout.time_bits(),
        layout.node_bits(),
        layout.sequence_bits(),
        unit,
        clock.tick_period()
    );

    let mut r = Report {
        after_mint: Distances::new(),
        bracketed: Distances::new(),
        tsc_discarded: 0,
        tsc_vs_system: Histogram::new(),
        bracket: Histogram::new(),
        recent_lag: Histogram::new(),
        tsc_ahead_max: 0,
        tsc_behind_max: 0,
    };
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let mut next_report = start + Duration::from_secs(60);
    while Instant::now() < end {
        for _ in 0..IDS_PER_CLOCK_SAMPLE {
            let before = system_unix_nanos();
            let id: Id = gen.next_id()?;
            let after = system_unix_nanos();
            let tick_start = u64::try_from(layout.decode(id).unix_nanos())?;
            let tick_end = tick_start + unit;
            r.after_mint.record(tick_start, tick_end, after, after);
            r.bracketed.record(tick_start, tick_end, before, after);
        }
        // The tightest of three brackets around an exact TSC reading.
        let (mut width, mut tsc, mut mid) = (u64::MAX, 0, 0);
        for _ in 0..3 {
            let before = system_unix_nanos();
            let t = clock.now_unix_nanos();
            let after = system_unix_nanos();
            if after.saturating_sub(before) < width {
                width = after.saturating_sub(before);
                (tsc, mid) = (t, before + width / 2);
            }
        }
        r.bracket.record(width);
        if width <= MAX_BRACKET_NANOS {
            if tsc >= mid {
                r.tsc_ahead_max = r.tsc_ahead_max.max(tsc - mid);
            } else {
                r.tsc_behind_max = r.tsc_behind_max.max(mid - tsc);
            }
            r.tsc_vs_system.record(tsc.abs_diff(mid));
        } else {
            r.tsc_discarded += 1;
        }
        let recent = clock.recent_unix_nanos();
        let now = clock.now_unix_nanos();
        r.recent_lag.record(now.saturating_sub(recent));
        if Instant::now() >= next_report && next_report < end {
            r.print(start.elapsed());
            next_report += Duration::from_secs(60);
        }
    }
    println!("---- final ----");
    r.print(start.elapsed());
    Ok(())
}

/// IDs minted at each whole second of a paced run, on top of one per millisecond.
const BURST: u64 = 5_000;

/// `--paced`: one ID per millisecond and a burst of [`BURST`] each second, every ID compared
/// with `SystemTime` read right after it.
fn run_paced(seconds: u64) -> Result<(), Box<dyn std::error::Error>> {
    let layout = Layout::TWITTER;
    let gen = Generator::new(layout, 0)?;
    let unit = layout.unit_nanos();
    println!(
        "paced for {seconds} s: one ID per ms plus {BURST} at each second, Twitter layout, TscClock ticker {:?}",
        gen.clock().tick_period()
    );
    let mut after_mint = Distances::new();
    let mut bracketed = Distances::new();
    // For IDs more than 1 ms behind the wall clock read before minting: how far the cheap
    // reading (`recent_unix_nanos`, read right after) lagged that wall-clock reading, and how
    // long after the last burst the ID came.
    let mut late_cheap_lag = Histogram::new();
    let mut late_since_burst = Histogram::new();
    let start = Instant::now();
    let mut mint = |count: u64, since_burst_ms: u64| -> Result<(), Box<dyn std::error::Error>> {
        for _ in 0..count {
            let before = system_unix_nanos();
            let id: Id = gen.next_id()?;
            let after = system_unix_nanos();
            let tick_start = u64::try_from(layout.decode(id).unix_nanos())?;
            if tick_start + unit + 1_000_000 < before {
                let cheap = gen.clock().recent_unix_nanos();
                late_cheap_lag.record(before.saturating_sub(cheap));
                late_since_burst.record(since_burst_ms * 1_000_000);
            }
            after_mint.record(tick_start, tick_start + unit, after, after);
            bracketed.record(tick_start, tick_start + unit, before, after);
        }
        Ok(())
    };
    for ms in 0..seconds * 1_000 {
        let due = start + Duration::from_millis(ms);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        mint(if ms % 1_000 == 0 { 1 + BURST } else { 1 }, ms % 1_000)?;
    }
    println!("---- final ----");
    println!(
        "after {:.0} s: {} IDs",
        start.elapsed().as_secs_f64(),
        after_mint.all.total
    );
    after_mint.print("ID tick vs SystemTime read after minting");
    bracketed.print("ID tick vs SystemTime before..after minting");
    for (what, d) in [("read after", &after_mint), ("before..after", &bracketed)] {
        println!(
            "IDs more than 1 ms behind / ahead of SystemTime {what} minting: {} / {}",
            d.behind.count_over(1_000_000),
            d.ahead.count_over(1_000_000)
        );
    }
    println!(
        "{}",
        late_cheap_lag.line("  those (before..after): cheap reading's lag")
    );
    println!(
        "{}",
        late_since_burst.line("  those (before..after): time since the burst")
    );
    Ok(())
}
