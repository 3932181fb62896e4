//! Time sources: the [`Clock`] trait, its implementations, and [`Rollback`], what a
//! generator does when its clock steps back. A generator takes the shared [`TscClock`] unless
//! given another.
//!
//! ```
//! use snowmint::clock::{Clock, ManualClock, Rollback};
//! use snowmint::{Generator, Layout};
//!
//! let clock = ManualClock::at_unix_millis(1_700_000_000_000);
//! let gen = Generator::with_clock(Layout::TWITTER, clock.clone())
//!     .on_rollback(Rollback::Wait)
//!     .build()?;
//! assert_eq!(Layout::TWITTER.decode(gen.next_id()?).unix_millis(), 1_700_000_000_000);
//! assert_eq!(clock.now_unix_nanos(), 1_700_000_000_000_000_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | file | holds |
//! |---|---|
//! | `clock.rs` | [`Clock`]: the two readings, the process default; clocks behind `&`, `Arc`, `Box` |
//! | `tsc.rs` | [`TscClock`]: the time-stamp counter, anchored to the OS clock |
//! | `tsc_builder.rs` | [`TscClockBuilder`]: its settings |
//! | `ticker.rs` | the thread that re-anchors the TSC clock |
//! | `error.rs` | [`TscClockError`]: why a TSC clock cannot start |
//! | `wall.rs` | [`WallClock`]: the OS clock on every call |
//! | `rollback.rs` | [`Rollback`]: what a generator does when its clock steps back |
//! | `manual.rs` | [`ManualClock`]: time set by hand, for tests |
//! | `js.rs` | `JsClock`: `Date.now()` in a browser (feature `js`) |

// Named for the trait it holds, as every room here is.
#[allow(clippy::module_inception)]
mod clock;
#[cfg(feature = "std")]
mod error;
#[cfg(feature = "js")]
mod js;
#[cfg(any(feature = "alloc", test))]
mod manual;
mod rollback;
#[cfg(feature = "std")]
mod ticker;
#[cfg(feature = "std")]
mod tsc;
#[cfg(feature = "std")]
mod tsc_builder;
#[cfg(feature = "std")]
mod wall;

pub use self::clock::Clock;
#[cfg(feature = "js")]
pub use self::js::JsClock;
#[cfg(any(feature = "alloc", test))]
pub use self::manual::ManualClock;
pub use self::rollback::Rollback;
#[cfg(feature = "std")]
pub(crate) use self::wall::system_unix_nanos;
#[cfg(feature = "std")]
pub use self::{
    error::TscClockError, tsc::TscClock, tsc_builder::TscClockBuilder, wall::WallClock,
};
