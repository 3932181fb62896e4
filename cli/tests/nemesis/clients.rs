//! The clients and the history they write: one thread per slot asking its server for
//! `/ids?n=BATCH` in a loop, logging every answer with the process that gave it, when the
//! request was sent and when the answer was received (the wall clock of this process).
//! A client blocked on a paused server waits (up to `READ_WITHIN`): the answer it then gets
//! is an answer in flight across the pause.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::fleet::Fleet;
use crate::http;
use crate::settings::wall_nanos;

/// IDs a request asks for, and the pause between a client's requests.
pub const BATCH: u64 = 50;
const PACE: Duration = Duration::from_millis(5);
/// Longer than the longest pause, so that an answer across one is kept.
const READ_WITHIN: Duration = Duration::from_secs(15);

/// A 200 answer.
#[derive(Clone, Debug)]
pub struct Answer {
    pub slot: usize,
    pub process: u32,
    pub sent_ns: u64,
    pub received_ns: u64,
    pub ids: Vec<u64>,
}

/// Everything the clients saw.
#[derive(Default)]
pub struct History {
    pub answers: Vec<Answer>,
    /// Answers other than 200, by status (0: no answer: refused, reset, timed out).
    pub refused: std::collections::BTreeMap<u16, usize>,
}

pub struct Clients {
    stop: Arc<AtomicBool>,
    history: Arc<Mutex<History>>,
    threads: Vec<JoinHandle<()>>,
}

impl Clients {
    pub fn start(fleet: &Arc<Fleet>) -> Clients {
        let stop = Arc::new(AtomicBool::new(false));
        let history = Arc::new(Mutex::new(History::default()));
        let threads = (0..fleet.slots.len())
            .map(|slot| {
                let (fleet, stop, history) =
                    (Arc::clone(fleet), Arc::clone(&stop), Arc::clone(&history));
                std::thread::spawn(move || {
                    // Relaxed: a flag polled by the loop.
                    while !stop.load(Ordering::Relaxed) {
                        ask(&fleet, slot, &history);
                        std::thread::sleep(PACE);
                    }
                })
            })
            .collect();
        Clients {
            stop,
            history,
            threads,
        }
    }

    /// Stops the clients: the history.
    pub fn stop(mut self) -> History {
        self.halt();
        std::mem::take(&mut *self.history.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn halt(&mut self) {
        // Relaxed: see `start`.
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Also on a panic: the threads let go of the fleet, whose drop stops the servers.
impl Drop for Clients {
    fn drop(&mut self) {
        self.halt();
    }
}

fn ask(fleet: &Fleet, slot: usize, history: &Mutex<History>) {
    let Some((process, addr, port)) = fleet.target(slot) else {
        std::thread::sleep(Duration::from_millis(10));
        return;
    };
    let sent_ns = wall_nanos();
    let reply = http::get(&addr, port, &format!("/ids?n={BATCH}"), READ_WITHIN);
    let received_ns = wall_nanos();
    let ok = matches!(reply, Some((200, _)));
    let mut h = history.lock().unwrap_or_else(PoisonError::into_inner);
    match reply {
        Some((200, body)) => {
            let ids = body
                .lines()
                .map(|l| {
                    l.parse()
                        .unwrap_or_else(|_| panic!("not a decimal ID: {l:?}"))
                })
                .collect();
            h.answers.push(Answer {
                slot,
                process,
                sent_ns,
                received_ns,
                ids,
            });
        }
        Some((status, _)) => *h.refused.entry(status).or_default() += 1,
        None => *h.refused.entry(0).or_default() += 1,
    }
    drop(h);
    if !ok {
        // A server claiming, fenced or gone: ask again a little later.
        std::thread::sleep(Duration::from_millis(20));
    }
}
