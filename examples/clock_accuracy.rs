//! How far the time in snowmint's IDs is from the wall clock, and how far its clock is.
//!
//! Mints continuously for SECONDS (default 600) with the default generator (Twitter layout,
//! the shared `TscClock`), and reports:
//! - for every ID: the distance between its tick, the interval `[t, t + unit)`, and
//!   `SystemTime::now()` read right after minting it (0 when the wall clock is inside the
//!   tick), as the largest, p50 and p99, split into "ID behind" (stamped earlier than the
//!   wall clock) and "ID ahead" (stamped later);
//! - every 1,024 IDs: `TscClock::now_unix_nanos()` against the midpoint of two
//!   `SystemTime::now()` reads around it (the largest, p50, p99), and how much the cheap
//!   `recent_unix_nanos()` reading lagged the exact one.
//!
//! ```text
//! cargo run --release --example clock_accuracy -- 600
//! ```

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snowmint::{Clock, Generator, Id, Layout};

/// Width of one histogram bucket.
const BUCKET_NANOS: u64 = 100;
/// Buckets cover 0 to 50 ms; beyond, only the count and the largest are kept.
const BUCKETS: usize = 500_000;
/// IDs between two clock comparisons.
const IDS_PER_CLOCK_SAMPLE: u32 = 1_024;

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

    fn line(&self, what: &str) -> String {
        let q = |q| match self.quantile(q) {
            Some(n) => fmt_nanos(n),
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

struct Report {
    /// |distance| of every ID's tick from the wall clock (0 inside the tick).
    id_distance: Histogram,
    /// The same, only IDs stamped before the wall clock's tick.
    id_behind: Histogram,
    /// The same, only IDs stamped after it.
    id_ahead: Histogram,
    /// |TscClock::now_unix_nanos() - SystemTime|.
    tsc_vs_system: Histogram,
    /// Width of the two SystemTime reads bracketing each TSC read (the comparison's error).
    bracket: Histogram,
    /// now_unix_nanos() - recent_unix_nanos().
    recent_lag: Histogram,
    /// The largest signed TSC - SystemTime seen, both ways.
    tsc_ahead_max: u64,
    tsc_behind_max: u64,
}

impl Report {
    fn print(&self, elapsed: Duration) {
        println!("after {:.0} s:", elapsed.as_secs_f64());
        println!(
            "{}",
            self.id_distance.line("ID tick vs SystemTime after minting")
        );
        println!(
            "{}",
            self.id_behind.line("  of which ID behind the wall clock")
        );
        println!(
            "{}",
            self.id_ahead.line("  of which ID ahead of the wall clock")
        );
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
            "{}",
            self.recent_lag.line("recent_unix_nanos lag behind now")
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|e| format!("SECONDS must be a whole number, got {s:?}: {e}"))?,
        None => 600,
    };
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
        id_distance: Histogram::new(),
        id_behind: Histogram::new(),
        id_ahead: Histogram::new(),
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
            let id: Id = gen.next_id()?;
            let wall = system_unix_nanos();
            let tick_start = u64::try_from(layout.decode(id).unix_nanos())?;
            let tick_end = tick_start + unit;
            let distance = if wall < tick_start {
                r.id_ahead.record(tick_start - wall);
                tick_start - wall
            } else if wall >= tick_end {
                // The wall clock has left the ID's tick: the ID is older by this much.
                r.id_behind.record(wall - tick_end + 1);
                wall - tick_end + 1
            } else {
                0
            };
            r.id_distance.record(distance);
        }
        let before = system_unix_nanos();
        let tsc = clock.now_unix_nanos();
        let after = system_unix_nanos();
        let recent = clock.recent_unix_nanos();
        let now = clock.now_unix_nanos();
        let mid = before + (after.saturating_sub(before)) / 2;
        if tsc >= mid {
            r.tsc_ahead_max = r.tsc_ahead_max.max(tsc - mid);
        } else {
            r.tsc_behind_max = r.tsc_behind_max.max(mid - tsc);
        }
        r.tsc_vs_system.record(tsc.abs_diff(mid));
        r.bracket.record(after.saturating_sub(before));
        r.recent_lag.record(now.saturating_sub(recent));
        if Instant::now() >= next_report {
            r.print(start.elapsed());
            next_report += Duration::from_secs(60);
        }
    }
    println!("---- final ----");
    r.print(start.elapsed());
    Ok(())
}
