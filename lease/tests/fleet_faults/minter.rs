//! A running child as the parent sees it: its output parsed into a [`Log`], its stderr,
//! signals, a kill -9, and waits for what it must do.

use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::settings::*;

pub(crate) struct Batch {
    pub(crate) node: u64,
    /// Wall-clock Unix nanos read just before the call and just after it returned.
    pub(crate) before: u64,
    pub(crate) after: u64,
    pub(crate) ids: Vec<u64>,
}

#[derive(Default)]
pub(crate) struct Log {
    pub(crate) batches: Vec<Batch>,
    pub(crate) node: Option<u64>,
    pub(crate) token: Option<u64>,
    pub(crate) lost: Option<String>,
    pub(crate) stats: Option<String>,
    pub(crate) no_lease: Option<String>,
    /// Batch lines cut short or garbled.
    pub(crate) torn: usize,
    /// Each clock offset the child applied, milliseconds, and when (wall nanos).
    pub(crate) stepped: Vec<(i64, u64)>,
    /// Each step of the claim (`claiming`, `forgetting`, `past-mark`), with until when it
    /// waits (Unix ms, 0 while claiming).
    pub(crate) progress: Vec<(String, u64)>,
}

impl Log {
    pub(crate) fn parse(&mut self, line: &str) {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("B") => {
                let nums: Option<Vec<u64>> = match line.strip_suffix(" .") {
                    Some(whole) => whole
                        .split_ascii_whitespace()
                        .skip(1)
                        .map(|w| w.parse().ok())
                        .collect(),
                    None => None,
                };
                // A line without its end mark (the child killed while writing it) or with
                // anything but numbers, or without an ID: counted, never read as IDs.
                let Some(nums) = nums.filter(|n| n.len() > 3) else {
                    self.torn += 1;
                    return;
                };
                let (node, before, after) = (nums[0], nums[1], nums[2]);
                let ids = nums[3..].to_vec();
                self.batches.push(Batch {
                    node,
                    before,
                    after,
                    ids,
                });
            }
            Some("ACQUIRED") => {
                self.node = words.next().and_then(|w| w.parse().ok());
                // "Some(N)" for etcd's create_revision, "-" for Redis.
                self.token = words.next().and_then(|w| {
                    w.trim_start_matches("Some(")
                        .trim_end_matches(')')
                        .parse()
                        .ok()
                });
            }
            Some("STEPPED") => {
                let mut num = || words.next().and_then(|w| w.parse().ok());
                if let (Some(ms), Some(at)) = (num(), num()) {
                    self.stepped.push((ms, at as u64));
                }
            }
            Some("PROGRESS") => {
                let kind = words.next().unwrap_or("?").to_string();
                let until = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                self.progress.push((kind, until));
            }
            Some("LOST") => self.lost = Some(line.to_string()),
            Some("STATS") => self.stats = Some(line.to_string()),
            Some("NOLEASE") => self.no_lease = Some(line.to_string()),
            // The harness's own lines.
            _ => {}
        }
    }
}

pub(crate) struct Minter {
    pub(crate) name: String,
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) log: Arc<Mutex<Log>>,
    pub(crate) reader: Option<JoinHandle<()>>,
    pub(crate) stderr: PathBuf,
    pub(crate) status: Option<ExitStatus>,
    /// Killed -9 by the test: its last line may be cut short.
    pub(crate) killed: bool,
}

impl Minter {
    pub(crate) fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Polls `cond` on the log until it holds; panics (with the child's stderr) after
    /// `within` or if the child exits first.
    pub(crate) fn wait_for(&mut self, what: &str, within: Duration, cond: impl Fn(&Log) -> bool) {
        let end = Instant::now() + within;
        loop {
            if cond(&self.log()) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Its last lines may still be in the pipe.
                std::thread::sleep(Duration::from_millis(100));
                if cond(&self.log()) {
                    return;
                }
                panic!(
                    "minter {} exited ({status}) before it {what}:\n{}",
                    self.name,
                    self.stderr_tail()
                );
            }
            assert!(
                Instant::now() < end,
                "minter {} has not {what} within {within:?}:\n{}",
                self.name,
                self.stderr_tail()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until the child has minted a batch asked for at or after `t` (wall nanos).
    pub(crate) fn wait_minted_after(&mut self, t: u64, within: Duration) {
        self.wait_for(&format!("minted after {t}"), within, |l| {
            l.batches.last().is_some_and(|b| b.before >= t)
        });
    }

    pub(crate) fn node(&self) -> u64 {
        self.log().node.expect("acquired")
    }

    pub(crate) fn token(&self) -> Option<u64> {
        self.log().token
    }

    pub(crate) fn first_batch_at(&self) -> u64 {
        self.log()
            .batches
            .first()
            .map(|b| b.before)
            .expect("minted")
    }

    pub(crate) fn max_id(&self) -> Option<u64> {
        self.log()
            .batches
            .iter()
            .flat_map(|b| b.ids.iter())
            .max()
            .copied()
    }

    pub(crate) fn min_id(&self) -> Option<u64> {
        self.log()
            .batches
            .iter()
            .flat_map(|b| b.ids.iter())
            .min()
            .copied()
    }

    pub(crate) fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill {sig} {} failed", self.child.id());
    }

    /// SIGKILL: a crash, nothing flushed or released.
    pub(crate) fn kill9(&mut self) {
        self.killed = true;
        let _ = self.child.kill();
        self.status = self.child.wait().ok();
    }

    /// Waits for the child to exit by itself.
    pub(crate) fn wait_exit(&mut self, within: Duration) -> ExitStatus {
        if let Some(s) = self.status {
            return s;
        }
        let end = Instant::now() + within;
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.status = Some(s);
                if let Some(r) = self.reader.take() {
                    let _ = r.join();
                }
                return s;
            }
            assert!(
                Instant::now() < end,
                "minter {} did not exit within {within:?}:\n{}",
                self.name,
                self.stderr_tail()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes the child's stdin (it stops minting, releases its node and exits) and waits.
    pub(crate) fn stop(&mut self) -> ExitStatus {
        self.stdin = None;
        self.wait_exit(WITHIN)
    }
}

impl Drop for Minter {
    fn drop(&mut self) {
        if self.status.is_none() {
            // SIGKILL ends a stopped child too.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}
