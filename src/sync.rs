//! The one place that names loom: the generator's shared state, the shard slots, the fence's
//! window and locks, and the manual clock import their atomics, locks and spin hints from
//! here, so `RUSTFLAGS="--cfg loom"` swaps in loom's model-checked versions without touching
//! the algorithm.

#[cfg(loom)]
pub(crate) use loom::{
    hint::spin_loop,
    sync::atomic::{AtomicU64, Ordering},
    thread::yield_now,
};

#[cfg(not(loom))]
pub(crate) use std::{
    hint::spin_loop,
    sync::atomic::{AtomicU64, Ordering},
    thread::yield_now,
};

/// How many doublings of `spin_loop` a contended CAS retry backs off for. Under loom every
/// spin hint is a scheduling point, so backing off only multiplies the states to explore.
#[cfg(loom)]
pub(crate) const SPIN_DOUBLINGS: u32 = 0;
/// How many doublings of `spin_loop` a contended CAS retry backs off for: 2^6 = 64 hints,
/// about the time another core needs to finish its own CAS and move on.
#[cfg(not(loom))]
pub(crate) const SPIN_DOUBLINGS: u32 = 6;

#[cfg(loom)]
pub(crate) use loom::sync::{atomic::AtomicBool, Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::{atomic::AtomicBool, Mutex, MutexGuard};

/// A thread-local with a `const` initializer: std's const form (no lazy-init check on each
/// access), or loom's per-model-thread form.
#[cfg(not(loom))]
macro_rules! const_thread_local {
    ($vis:vis static $name:ident: $t:ty = $init:expr;) => {
        std::thread_local! { $vis static $name: $t = const { $init }; }
    };
}

/// A thread-local with a `const` initializer: std's const form (no lazy-init check on each
/// access), or loom's per-model-thread form.
#[cfg(loom)]
macro_rules! const_thread_local {
    ($vis:vis static $name:ident: $t:ty = $init:expr;) => {
        loom::thread_local! { $vis static $name: $t = $init; }
    };
}

pub(crate) use const_thread_local;
