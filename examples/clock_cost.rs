//! What one reading of the default `TscClock` costs, in a tight loop: the cheap reading
//! (`recent_unix_nanos`, what a generator stamps IDs with) and the exact one
//! (`now_unix_nanos`), each as the median of three runs.
//!
//! ```text
//! cargo run --release --example clock_cost -- 100000000
//! ```
//!
//! The argument is the number of cheap readings per run (default 10^8); exact readings are a
//! tenth of that. Each result is folded into a sum so that the loop cannot be optimised away,
//! and the clock is passed through `black_box` so that the load is not hoisted out of it.

use std::hint::black_box;
use std::time::Instant;

use snowmint::clock::{Clock, TscClock};

/// Nanoseconds per call of `read` over `calls` calls.
fn per_call(calls: u64, read: impl Fn() -> u64) -> f64 {
    let start = Instant::now();
    let mut sum = 0_u64;
    for _ in 0..calls {
        sum = sum.wrapping_add(read());
    }
    let elapsed = start.elapsed();
    black_box(sum);
    elapsed.as_nanos() as f64 / calls as f64
}

/// The median of three runs of `per_call`.
fn median_of_3(calls: u64, read: impl Fn() -> u64) -> (f64, [f64; 3]) {
    let mut runs = [0.0; 3];
    for run in &mut runs {
        *run = per_call(calls, &read);
    }
    let mut sorted = runs;
    sorted.sort_by(f64::total_cmp);
    (sorted[1], runs)
}

fn main() {
    let calls: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("the number of calls, an integer"))
        .unwrap_or(100_000_000);
    let clock = TscClock::shared();
    let (recent, runs) = median_of_3(calls, || black_box(&clock).recent_unix_nanos());
    println!("recent_unix_nanos: {recent:.3} ns/call (median of {runs:.3?}, {calls} calls each)");
    let exact_calls = (calls / 10).max(1);
    let (now, runs) = median_of_3(exact_calls, || black_box(&clock).now_unix_nanos());
    println!(
        "now_unix_nanos:    {now:.3} ns/call (median of {runs:.3?}, {exact_calls} calls each)"
    );
    // For scale: what a process-id check on every exact reading would add (a system call).
    let pid_calls = (calls / 100).max(1);
    let (pid, runs) = median_of_3(pid_calls, || u64::from(std::process::id()));
    println!("std::process::id:  {pid:.3} ns/call (median of {runs:.3?}, {pid_calls} calls each)");
}
