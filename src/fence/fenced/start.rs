//! Starting a fence: [`Fenced::start_proven`], for a keeper that proved its first window
//! before the fence exists, and the one start every constructor goes through.

use std::sync::{Arc, Condvar, Mutex};

use crossbeam_utils::CachePadded;

use super::Fenced;
use crate::clock::Clock;
use crate::fence::error::{FenceError, Note};
use crate::fence::gate::{lock, Gate, Status};
use crate::fence::keeper::{Keeper, Renewal};
use crate::fence::window::Window;
use crate::source::IdSource;
use crate::sync;

impl<S: IdSource> Fenced<S>
where
    S::Clock: Clone + 'static,
    S::Error: Into<FenceError>,
{
    /// As [`start`](Self::start), with the first window already proven: `first` is the
    /// renewal a keeper made while it claimed the node (a lease that waited past the node's
    /// mark and renewed before handing over), applied as the first window instead of a
    /// renewal now; the renewal thread starts after the keeper's period. The fence's first
    /// call is refused if `first` is not [`Renewal::Held`] (until a renewal succeeds).
    ///
    /// This is how a keeper that must do work before the first ID (the `snowmint-lease`
    /// crate's Redis and etcd leases) hands its source over.
    ///
    /// ```
    /// # use std::time::Duration;
    /// use snowmint::fence::{Fenced, Keeper, Renewal};
    /// use snowmint::{Generator, Layout};
    /// # struct Generous;
    /// # impl Keeper for Generous {
    /// #     fn renew(&mut self, now: u64) -> Renewal {
    /// #         Renewal::Held { limit_unix_millis: now / 1_000_000 + 1_000, valid_until_nanos: u64::MAX, floor_unix_millis: None }
    /// #     }
    /// #     fn release(&mut self, _: Option<u64>) {}
    /// #     fn period(&self, _: bool) -> Duration { Duration::from_millis(500) }
    /// # }
    /// let mut keeper = Generous;
    /// let gen = Generator::new(Layout::TWITTER, 5)?;
    /// // The keeper's own first renewal, made before the fence exists.
    /// let first = keeper.renew(snowmint::clock::Clock::now_unix_nanos(gen.clock()));
    /// let fenced = Fenced::start_proven(gen, 5, keeper, first);
    /// assert!(fenced.next_id().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_proven(source: S, node: u64, keeper: impl Keeper, first: Renewal) -> Fenced<S> {
        Fenced::start_with(source, node, Box::new(keeper), Some(first), true)
    }

    /// Opens the first window (`first`, or one renewal now) and starts the renewal thread
    /// if `thread`.
    pub(crate) fn start_with(
        source: S,
        node: u64,
        mut keeper: Box<dyn Keeper>,
        first: Option<Renewal>,
        thread: bool,
    ) -> Fenced<S> {
        let clock = source.clock().clone();
        let first = first.unwrap_or_else(|| keeper.renew(clock.now_unix_nanos()));
        let ok = matches!(first, Renewal::Held { .. });
        let delay = keeper.period(ok);
        let retry = keeper.period(false);
        let gate = Arc::new(Gate {
            window: CachePadded::new(Window::closed()),
            layout: *source.layout(),
            clock,
            node,
            retry,
            token: sync::AtomicU64::new(keeper.token().unwrap_or(0)),
            keeper: sync::Mutex::new(keeper),
            status: sync::Mutex::new(Status::Failing(Arc::new(Note::new("not secured yet")))),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        gate.apply(first);
        let worker = if thread {
            let for_worker = Arc::clone(&gate);
            let worker = std::thread::Builder::new()
                .name("snowmint-keeper".to_string())
                .spawn(move || for_worker.run(delay))
                .ok();
            if worker.is_none() {
                // No thread: the window is only extended when an ID reaches its limit, and a
                // deadline (a lease) then lapses; say so in the errors.
                *lock(&gate.status) = Status::Failing(Arc::new(Note::new(
                    "the renewal thread could not be started",
                )));
            }
            worker
        } else {
            None
        };
        Fenced {
            source,
            gate,
            worker,
        }
    }
}
