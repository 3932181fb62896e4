//! A real `fork()`: the child keeps the shared `TscClock` but not its ticker thread. It must
//! get a ticker back (on its first late exact reading, or at once through
//! `restart_ticker_if_forked`) instead of stamping IDs with the time of the fork for good.
//!
//! Its own test binary with `harness = false`: when it forks, the only other thread in the
//! process is the clock's ticker, so the child inherits no lock held by a thread it lacks.
//! The library forbids `unsafe`; this test crate needs it for `fork` and `waitpid` alone.

#[cfg(unix)]
mod forked {
    use std::io::Write;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::time::{Duration, Instant};

    use snowmint::clock::{Clock, TscClock};
    use snowmint::{Generator, Layout};

    /// What a child checks: `Ok`, or why it failed.
    type Check = fn() -> Result<(), String>;

    /// Longer than two default tick periods plus 1 ms: the child's cheap reading is late.
    const PAUSE: Duration = Duration::from_millis(20);
    const MILLI: u64 = 1_000_000;
    /// How long to wait for a ticker before calling it missing: far beyond any scheduling
    /// delay on a loaded machine; a missing ticker never comes.
    const PATIENCE: Duration = Duration::from_secs(20);

    /// Waits, with cheap readings only (which only a ticker moves), until the cheap reading
    /// passes `past`; the reading, or why not.
    fn ticker_moves_past(clock: &TscClock, past: u64) -> Result<u64, String> {
        let start = Instant::now();
        loop {
            let recent = clock.recent_unix_nanos();
            if recent > past {
                return Ok(recent);
            }
            if start.elapsed() > PATIENCE {
                return Err(format!(
                    "the cheap reading stayed at {recent} for {PATIENCE:?}: no ticker runs"
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The child, left alone: frozen until an exact reading finds the cheap one late, then a
    /// ticker again, and IDs with the child's time.
    fn recovers_on_the_first_late_exact_reading() -> Result<(), String> {
        let clock = TscClock::shared();
        let frozen = clock.recent_unix_nanos();
        std::thread::sleep(PAUSE);
        let still = clock.recent_unix_nanos();
        if still != frozen {
            return Err(format!(
                "the cheap reading moved ({frozen} to {still}) before any exact reading: \
                 the child was not without a ticker, so this test tests nothing"
            ));
        }
        let exact = clock.now_unix_nanos();
        if exact < frozen + PAUSE.as_nanos() as u64 {
            return Err(format!("exact {exact} is not {PAUSE:?} past {frozen}"));
        }
        let published = clock.recent_unix_nanos();
        if published == frozen || published + MILLI < exact {
            return Err(format!(
                "after the exact reading {exact} the cheap one is {published} \
                 (frozen at {frozen}): the late exact reading published nothing"
            ));
        }
        let moved = ticker_moves_past(&clock, published + MILLI)?;
        let gen = Generator::new(Layout::TWITTER, 2).map_err(|e| e.to_string())?;
        let id = gen.next_id().map_err(|e| e.to_string())?;
        let stamped = Layout::TWITTER.decode(id).unix_millis();
        if stamped < moved / MILLI {
            return Err(format!(
                "an ID minted after the ticker came back says {stamped} ms, \
                 before the cheap reading {moved} ns"
            ));
        }
        if clock.restart_ticker_if_forked() {
            return Err("a second ticker was started".into());
        }
        Ok(())
    }

    /// The child that asks at once: a ticker right away, no exact reading needed.
    fn restarts_at_once_when_asked() -> Result<(), String> {
        let clock = TscClock::shared();
        if !clock.restart_ticker_if_forked() {
            return Err("restart_ticker_if_forked() did not see the fork".into());
        }
        let started = clock.recent_unix_nanos();
        ticker_moves_past(&clock, started + MILLI)?;
        Ok(())
    }

    /// Runs `child` in a forked child process; whether it succeeded, or why not.
    fn in_child(child: Check) -> Result<(), String> {
        std::io::stdout().flush().map_err(|e| e.to_string())?;
        std::io::stderr().flush().map_err(|e| e.to_string())?;
        // SAFETY: this binary has no test harness; the only other thread is the shared
        // clock's ticker, which takes no lock and allocates nothing while it runs (it
        // parks, reads the TSC and the vDSO clock, and stores atomics), so the child
        // inherits no lock held by a thread it does not have. Standard streams were
        // flushed above so that the child does not repeat buffered output.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(format!("fork failed: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            let code = match catch_unwind(AssertUnwindSafe(child)) {
                Ok(Ok(())) => 0,
                Ok(Err(why)) => {
                    eprintln!("child: {why}");
                    1
                }
                Err(_) => 2,
            };
            std::process::exit(code);
        }
        let mut status = 0;
        // SAFETY: `pid` is our child; `status` is a valid, writable c_int.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited != pid {
            return Err(format!(
                "waitpid failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
            (true, 0) => Ok(()),
            (true, code) => Err(format!("the child exited with {code} (its reason above)")),
            (false, _) => Err(format!("the child did not exit normally: status {status}")),
        }
    }

    /// 256 UUIDs' random bits (the 55 below the counter) from a generator made now.
    fn random_bits() -> Vec<u64> {
        let gen = snowmint::Uuid7Generator::new();
        (0..256)
            .map(|_| gen.next_uuid().rand_b() & ((1 << 55) - 1))
            .collect()
    }

    /// The file a child writes its random bits to, named for the parent.
    fn bits_file(parent: u32) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("snowmint_fork_rng_{parent}"))
    }

    /// The child: a generator made after the fork, its random bits written for the parent.
    fn child_draws_its_own_random_bits() -> Result<(), String> {
        let bits: Vec<String> = random_bits().iter().map(u64::to_string).collect();
        std::fs::write(
            bits_file(std::os::unix::process::parent_id()),
            bits.join("\n"),
        )
        .map_err(|e| format!("write the bits: {e}"))
    }

    /// The parent's thread has drawn random bits before the fork; after it, the parent and
    /// the child (on the copy of that thread) each make a generator: no bits in common
    /// (without the reseed both would draw the same stream, every value equal).
    fn random_bits_after_fork() -> Result<(), String> {
        random_bits();
        in_child(child_draws_its_own_random_bits)?;
        let parent: std::collections::HashSet<u64> = random_bits().into_iter().collect();
        let path = bits_file(std::process::id());
        let text = std::fs::read_to_string(&path).map_err(|e| format!("read the bits: {e}"))?;
        let _ = std::fs::remove_file(&path);
        let child: Vec<u64> = text.lines().filter_map(|l| l.parse().ok()).collect();
        if child.len() != 256 {
            return Err(format!("the child wrote {} values", child.len()));
        }
        let common = child.iter().filter(|b| parent.contains(b)).count();
        if common > 0 {
            return Err(format!(
                "{common} of 256 random values drawn by both processes"
            ));
        }
        Ok(())
    }

    pub fn main() {
        let clock = TscClock::shared();
        // The parent's ticker runs: that is what the child will lack.
        let first = clock.recent_unix_nanos();
        if let Err(why) = ticker_moves_past(&clock, first) {
            panic!("the parent's ticker: {why}");
        }
        let tests: [(&str, Check); 2] = [
            (
                "child_recovers_on_the_first_late_exact_reading",
                recovers_on_the_first_late_exact_reading,
            ),
            (
                "child_restarts_the_ticker_at_once_when_asked",
                restarts_at_once_when_asked,
            ),
        ];
        println!("\nrunning {} tests", tests.len() + 1);
        let mut failed = Vec::new();
        for (name, child) in tests {
            let result = in_child(child);
            println!(
                "test {name} ... {}",
                if result.is_ok() { "ok" } else { "FAILED" }
            );
            if let Err(why) = result {
                failed.push(format!("{name}: {why}"));
            }
        }
        let result = random_bits_after_fork();
        println!(
            "test random_bits_after_fork ... {}",
            if result.is_ok() { "ok" } else { "FAILED" }
        );
        if let Err(why) = result {
            failed.push(format!("random_bits_after_fork: {why}"));
        }
        // The parent still runs its own ticker and did not think itself forked.
        if clock.restart_ticker_if_forked() {
            failed.push("parent: restart_ticker_if_forked() started a second ticker".into());
        }
        let passed = tests.len() + 1 - failed.len().min(tests.len() + 1);
        for why in &failed {
            println!("\n---- {why}");
        }
        let verdict = if failed.is_empty() { "ok" } else { "FAILED" };
        println!(
            "\ntest result: {verdict}. {passed} passed; {} failed; 0 ignored; 0 measured; 0 filtered out\n",
            failed.len()
        );
        if !failed.is_empty() {
            std::process::exit(101);
        }
    }
}

fn main() {
    #[cfg(unix)]
    forked::main();
}
