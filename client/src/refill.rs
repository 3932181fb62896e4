//! [`Feed`]: the prefetch buffer and the thread that refills it, shared by the blocking
//! [`Client`](crate::Client) and the [`AsyncClient`](crate::AsyncClient).
//!
//! The refill thread sleeps until the buffer falls to the low-water mark (a consumer wakes
//! it), then asks the services for batches until the buffer is full. A round asks each
//! service in turn, starting with the one that answered last, until one gives IDs; a round
//! in which all fail is recorded ([`Outcome`]) and followed by a pause. After each round it
//! wakes the consumers waiting on an empty buffer, blocking and async alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use snowmint::Id;

use crate::error::{Cause, Error, Failure};
use crate::ring::Ring;
use crate::settings::Settings;
use crate::wire::Connection;

/// The longest the refill thread sleeps before it looks at the buffer again unasked.
const IDLE_CHECK: Duration = Duration::from_millis(250);

/// What the last round of requests ended with.
#[derive(Debug, Clone, Default)]
struct Outcome {
    /// Rounds finished so far.
    rounds: u64,
    /// The last round's failures, one per service; empty when it gave IDs (even after a
    /// fail-over).
    failures: Vec<Failure>,
}

/// The buffer, the refill thread's signals and the last round's outcome.
pub struct Feed {
    ring: Ring,
    settings: Settings,
    low_water: u64,
    /// Set by a consumer that took the buffer to the low-water mark; cleared by the thread
    /// when it starts refilling.
    wanted: AtomicBool,
    closed: AtomicBool,
    /// The refill thread sleeps on this.
    wake: Condvar,
    /// Consumers waiting on an empty buffer sleep on this; it guards the last outcome.
    done: Condvar,
    outcome: Mutex<Outcome>,
    /// The async consumers' wake-up, sent with `done`'s.
    pub(crate) notify: tokio::sync::Notify,
}

/// Where a consumer waiting on an empty buffer stands: the round count when it started.
pub struct Waiting {
    started: Instant,
    rounds: u64,
}

impl Feed {
    /// The feed and its refill thread (which stops once [`close`](Self::close) is called).
    pub fn start(settings: Settings) -> std::io::Result<Arc<Feed>> {
        let feed = Feed::new(settings);
        let thread = Arc::clone(&feed);
        std::thread::Builder::new()
            .name("snowmint-client-refill".to_owned())
            .spawn(move || thread.run())?;
        Ok(feed)
    }

    /// The feed without its thread.
    fn new(settings: Settings) -> Arc<Feed> {
        Arc::new(Feed {
            ring: Ring::new(settings.capacity),
            low_water: settings.low_water as u64,
            settings,
            // The buffer starts empty: fill it at once.
            wanted: AtomicBool::new(true),
            closed: AtomicBool::new(false),
            wake: Condvar::new(),
            done: Condvar::new(),
            outcome: Mutex::new(Outcome::default()),
            notify: tokio::sync::Notify::new(),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// IDs in the buffer now.
    pub fn buffered(&self) -> usize {
        self.ring.len() as usize
    }

    /// An ID from the buffer, if it holds one; wakes the refill thread when this took the
    /// buffer to the low-water mark.
    #[inline]
    pub fn take(&self) -> Option<Id> {
        let (id, below) = self.pop()?;
        if below {
            self.want();
        }
        Some(id)
    }

    /// An ID from the buffer, and whether taking it left the buffer at the low-water mark
    /// or below (the caller then calls [`want`](Self::want), never with the outcome's lock
    /// held: `want` takes it).
    #[inline]
    fn pop(&self) -> Option<(Id, bool)> {
        let (id, left) = self.ring.pop()?;
        Some((Id::from_u64(id), left <= self.low_water))
    }

    /// Asks the refill thread for more, unless already asked.
    fn want(&self) {
        // Relaxed load first, so that most takes below the mark write nothing; the swap is
        // AcqRel so that it and the thread's clearing are ordered.
        if !self.wanted.load(Ordering::Relaxed) && !self.wanted.swap(true, Ordering::AcqRel) {
            // Taking the lock orders this wake-up after the thread's check of `wanted`.
            drop(self.lock());
            self.wake.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, Outcome> {
        self.outcome.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a wait on an empty buffer.
    pub fn begin_wait(&self) -> Waiting {
        self.want();
        Waiting {
            started: Instant::now(),
            rounds: self.lock().rounds,
        }
    }

    /// After a failed [`take`](Self::take): `Ok(deadline)` to keep waiting until then,
    /// or the error that ends the wait: a round that finished since it began found every
    /// service failing, or the wait is over.
    pub fn verdict(&self, waiting: &Waiting) -> Result<Instant, Error> {
        let outcome = self.lock();
        self.verdict_locked(waiting, &outcome)
    }

    fn verdict_locked(&self, waiting: &Waiting, outcome: &Outcome) -> Result<Instant, Error> {
        let waited = waiting.started.elapsed();
        if outcome.rounds > waiting.rounds && !outcome.failures.is_empty() {
            return Err(error(&outcome.failures, waited));
        }
        let deadline = waiting.started + self.settings.max_wait;
        if Instant::now() >= deadline {
            let failures = if outcome.rounds > 0 {
                outcome.failures.clone()
            } else {
                Vec::new()
            };
            return Err(error(&failures, waited));
        }
        Ok(deadline)
    }

    /// Blocks until an ID comes, or the wait fails.
    pub fn next_blocking(&self) -> Result<Id, Error> {
        if let Some(id) = self.take() {
            return Ok(id);
        }
        let waiting = self.begin_wait();
        let mut outcome = self.lock();
        loop {
            if let Some((id, below)) = self.pop() {
                drop(outcome);
                if below {
                    self.want();
                }
                return Ok(id);
            }
            let deadline = self.verdict_locked(&waiting, &outcome)?;
            let left = deadline.saturating_duration_since(Instant::now());
            outcome = self
                .done
                .wait_timeout(outcome, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Stops the refill thread (after its request in flight, if any).
    pub fn close(&self) {
        // Release: pairs with the thread's Acquire load; the lock orders it before the
        // thread's check.
        self.closed.store(true, Ordering::Release);
        drop(self.lock());
        self.wake.notify_one();
    }

    fn is_closed(&self) -> bool {
        // Acquire: pairs with `close`'s Release store.
        self.closed.load(Ordering::Acquire)
    }

    /// The refill thread.
    fn run(&self) {
        let services = &self.settings.services;
        let mut connections: Vec<Connection> =
            services.iter().map(|_| Connection::default()).collect();
        let mut current = 0;
        let mut ids = Vec::with_capacity(self.settings.batch);
        loop {
            if self.is_closed() {
                return;
            }
            // Sleep until asked (or a while: a wake-up lost to a race costs at most this).
            {
                let mut outcome = self.lock();
                // Acquire: pairs with the consumers' swap.
                while !self.wanted.load(Ordering::Acquire)
                    && !self.is_closed()
                    && self.ring.len() > self.low_water
                {
                    outcome = self
                        .wake
                        .wait_timeout(outcome, IDLE_CHECK)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
            if self.is_closed() {
                return;
            }
            // Release: pairs with the consumers' Acquire swap; a take after this asks again.
            self.wanted.store(false, Ordering::Release);
            // Fill to the capacity, a batch at a time.
            loop {
                let room = self.ring.room() as usize;
                if room == 0 || self.is_closed() {
                    break;
                }
                let n = room.min(self.settings.batch);
                let mut failures = Vec::new();
                let mut got = false;
                for k in 0..services.len() {
                    let i = (current + k) % services.len();
                    ids.clear();
                    match connections[i].fetch(
                        &services[i],
                        &self.settings.expected,
                        n,
                        self.settings.request_timeout,
                        &mut ids,
                    ) {
                        Ok(()) => {
                            current = i;
                            got = true;
                            break;
                        }
                        Err(cause) => failures.push(Failure {
                            url: services[i].url.clone(),
                            cause,
                        }),
                    }
                }
                if got {
                    self.ring.put(ids.drain(..));
                    // A round that gave IDs failed nobody, whichever services it skipped.
                    failures.clear();
                }
                self.finish_round(failures);
                if !got {
                    self.pause();
                    break;
                }
            }
        }
    }

    /// Records a round's outcome and wakes every consumer waiting.
    fn finish_round(&self, failures: Vec<Failure>) {
        {
            let mut outcome = self.lock();
            outcome.rounds += 1;
            outcome.failures = failures;
        }
        self.done.notify_all();
        self.notify.notify_waiters();
    }

    /// The pause after a failed round; cut short by `close`.
    fn pause(&self) {
        let until = Instant::now() + self.settings.retry;
        let mut outcome = self.lock();
        while !self.is_closed() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            outcome = self
                .wake
                .wait_timeout(outcome, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// The error a wait ends with: a mismatch when a service that answered was refused for one,
/// else unavailability.
fn error(failures: &[Failure], waited: Duration) -> Error {
    for failure in failures {
        if let Cause::Mismatch(m) = &failure.cause {
            return Error::Mismatch(m.clone());
        }
    }
    Error::Unavailable {
        failures: failures.to_vec(),
        waited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expected::Expected;
    use std::sync::mpsc;

    /// A consumer waiting on an empty buffer, woken by a refill that leaves the buffer below
    /// the mark, asks for more without deadlocking on the lock it waited under. The refill
    /// thread's part is played by this test: no thread runs.
    #[test]
    fn a_woken_consumer_below_the_mark_asks_for_more() {
        let settings = Settings::new(["http://127.0.0.1:9"], Expected::layout("x=1"))
            .unwrap()
            .capacity(10)
            .low_water(5)
            .batch(1)
            .max_wait(Duration::from_secs(600));
        let feed = Feed::new(settings);
        let consumer = Arc::clone(&feed);
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(consumer.next_blocking());
        });
        // The thread clears the request once the consumer has made it, then refills.
        while !feed.wanted.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(50));
        feed.wanted.store(false, Ordering::Release);
        feed.ring.put([42]);
        feed.finish_round(Vec::new());
        let got = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("the consumer returns: no deadlock");
        assert_eq!(got, Ok(Id::from_u64(42)));
        assert!(feed.wanted.load(Ordering::Acquire), "it asked for more");
    }
}
