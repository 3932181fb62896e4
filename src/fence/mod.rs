//! Fences: any source of IDs minting only inside a window its keeper has secured.
//!
//! A keeper (a Redis lease, a local high-water-mark file, or one of your own) secures two
//! things and keeps renewing them from a background thread:
//!
//! - a **deadline**, in the source clock's nanoseconds: until then the keeper can prove it
//!   holds the node (for a lease: the last renewal's send time plus the TTL minus a safety
//!   margin). After it, minting fails with [`FenceError::Fenced`].
//! - a **limit** on the IDs' time, recorded durably *before* it is used (in Redis, or in the
//!   file): no ID stamped later than the limit ever leaves the source. The next owner of
//!   the node reads the limit (or, after a clean release, the last time actually issued),
//!   waits until its clock has passed it, and continues after it.
//!
//! The deadline is in the source clock's time, read through its cheap reading: a clock
//! stepped back extends it by the step ([`TscClock`](crate::clock::TscClock) slews backward
//! corrections at 500 µs per second; [`WallClock`](crate::clock::WallClock) follows at once), a clock
//! stepped forward shortens it. Uniqueness rests on the limit alone: the old owner's IDs are
//! all at or before it and the new owner's all after, whatever the two clocks read and
//! however long a process is paused between a check and its mint. The deadline makes a
//! cut-off process stop early instead of minting on borrowed time.
//!
//! | file | holds |
//! |---|---|
//! | `fenced.rs` | [`Fenced`]: the wrapper and its calls (`fenced/cause.rs`: [`Fenced::fence_cause`]) |
//! | `fence_cause.rs` | [`FenceCause`]: why a fence refuses now |
//! | `gate.rs` | what the renewal thread shares with the minting threads: the checks, the refusals, the renewals |
//! | `window.rs` | the deadline and the admitted ID range the hot path checks |
//! | `keeper.rs` | the [`Keeper`] trait and [`Renewal`] |
//! | `mark.rs` | the mark arithmetic: resuming after a mark, waiting past a floor |
//! | `file_guard.rs`, `mark_file.rs`, `guard_error.rs` | [`FileGuard`], its file format and its [`GuardError`] |
//! | `error.rs` | [`FenceError`], [`Note`] |
//! | `events.rs` | [`events`]: the lease events, for keepers that lease from a store |
//!
//! # Writing a keeper
//! [`Fenced::start`] fences a source with any [`Keeper`]. A keeper that must work before the
//! first ID (claim a node, wait past its mark) does that work with the mark arithmetic here
//! ([`resume_after`] to build the source after the mark, [`behind`] and [`wait_past`] to wait
//! for its clock, [`ceil_millis`] to round its limits), then hands over the window it proved
//! with [`Fenced::start_proven`]. Its reasons are [`Cause`]s ([`Note`] for plain text), its
//! events the [`events`] functions. The `snowmint-lease` crate is built this way.

mod error;
pub mod events;
mod fence_cause;
mod fenced;
mod file_guard;
mod gate;
mod guard_error;
mod keeper;
mod mark;
mod mark_file;
mod window;

pub use self::error::{FenceError, Note};
pub use self::fence_cause::FenceCause;
pub use self::fenced::Fenced;
pub use self::file_guard::FileGuard;
pub use self::guard_error::GuardError;
pub use self::keeper::{Cause, Keeper, Renewal};
pub use self::mark::{behind, ceil_millis, resume_after, wait_past};
