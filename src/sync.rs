//! The one place that names loom: the generator's shared state and the manual clock import
//! their atomics and spin hints from here, so `RUSTFLAGS="--cfg loom"` swaps in loom's
//! model-checked versions without touching the algorithm.

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
