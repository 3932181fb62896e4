//! The one place that names loom: the generator's shared state, the shard slots, the fence's
//! window and locks, the manual clock and the thread-local shard registry import their
//! atomics, locks, spin hints and thread-locals from here, so `RUSTFLAGS="--cfg loom"` swaps
//! in loom's model-checked versions without touching the algorithm, and feature
//! `portable-atomic` swaps in `portable_atomic::AtomicU64` for targets without native 64-bit
//! atomics.

#[cfg(loom)]
pub(crate) use loom::{
    hint::spin_loop,
    sync::atomic::{AtomicU64, Ordering},
    thread::yield_now,
};

#[cfg(not(loom))]
pub(crate) use core::hint::spin_loop;
#[cfg(all(not(loom), not(feature = "portable-atomic")))]
pub(crate) use core::sync::atomic::{AtomicU64, Ordering};
#[cfg(all(not(target_has_atomic = "64"), not(feature = "portable-atomic")))]
compile_error!(
    "this target has no native 64-bit atomics: enable snowmint's `portable-atomic` feature"
);
// The same API on targets without native 64-bit atomics (feature `portable-atomic`).
#[cfg(all(not(loom), feature = "portable-atomic"))]
pub(crate) use portable_atomic::{AtomicU64, Ordering};
#[cfg(all(not(loom), feature = "std"))]
pub(crate) use std::thread::yield_now;

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

#[cfg(all(not(loom), feature = "std"))]
pub(crate) use std::sync::{atomic::AtomicBool, Mutex, MutexGuard};

/// What a thread-local made with [`exiting_thread_local`] does when its thread ends.
#[cfg(feature = "std")]
pub(crate) trait ThreadExit {
    /// Hands back what the thread held; the value stays readable (and empty) afterwards.
    fn thread_exit(&self);
}

/// A thread-local with a `const` initializer whose type has no drop glue, so that std reads
/// it with no liveness check (a plain `#[thread_local]` static that outlives every
/// destructor); its [`ThreadExit::thread_exit`] runs at thread exit once
/// [`arm_thread_exit`] was called on the thread.
#[cfg(all(not(loom), feature = "std"))]
macro_rules! exiting_thread_local {
    ($vis:vis static $name:ident: $t:ty = $init:expr;) => {
        std::thread_local! { $vis static $name: $t = const { $init }; }
    };
}

/// Under loom, a thread-local whose value calls [`ThreadExit::thread_exit`] when dropped:
/// loom tears down all of a thread's thread-locals before dropping any, so a hook in
/// another thread-local could not reach it.
#[cfg(loom)]
macro_rules! exiting_thread_local {
    ($vis:vis static $name:ident: $t:ty = $init:expr;) => {
        loom::thread_local! {
            $vis static $name: $crate::sync::ExitOnDrop<$t> = $crate::sync::ExitOnDrop($init);
        }
    };
}

#[cfg(feature = "std")]
pub(crate) use exiting_thread_local;

/// Calls the thread's exit hook when std destroys it at thread exit.
#[cfg(all(not(loom), feature = "std"))]
struct ExitHook(core::cell::Cell<Option<fn()>>);

#[cfg(all(not(loom), feature = "std"))]
impl Drop for ExitHook {
    fn drop(&mut self) {
        if let Some(hook) = self.0.get() {
            hook();
        }
    }
}

#[cfg(all(not(loom), feature = "std"))]
std::thread_local! {
    static EXIT_HOOK: ExitHook = const { ExitHook(core::cell::Cell::new(None)) };
}

/// Makes `hook` run when this thread ends (one hook per thread: the shard registry's).
/// `false` if the thread is already ending: then nothing that needs handing back may be
/// taken.
#[cfg(all(not(loom), feature = "std"))]
pub(crate) fn arm_thread_exit(hook: fn()) -> bool {
    EXIT_HOOK.try_with(|h| h.0.set(Some(hook))).is_ok()
}

/// Under loom the value's own drop runs the hook ([`ExitOnDrop`]): nothing to arm.
#[cfg(loom)]
pub(crate) fn arm_thread_exit(_hook: fn()) -> bool {
    true
}

/// A loom thread-local's value that runs [`ThreadExit::thread_exit`] when dropped.
#[cfg(loom)]
pub(crate) struct ExitOnDrop<T: ThreadExit>(pub(crate) T);

#[cfg(loom)]
impl<T: ThreadExit> Drop for ExitOnDrop<T> {
    fn drop(&mut self) {
        self.0.thread_exit();
    }
}

#[cfg(loom)]
impl<T: ThreadExit> core::ops::Deref for ExitOnDrop<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}
