//! The minting core every source of IDs is built on: the packed state and its one rule
//! ([`rule`]), where the state lives ([`cell`]), how a state and node become an ID
//! ([`packing`]), the per-owner tick cache ([`tick_cache`]) and its form in ID terms
//! for the thread-local hot path ([`hot_tick`]), the engine that reads the clock
//! and runs the CAS loop ([`minter`]), how a blocked call waits ([`wait`]), why a call could
//! not mint ([`MintError`], `error.rs`); the rollback policy it follows is the clock's
//! ([`Rollback`](crate::clock::Rollback)).

pub(crate) mod cell;
mod error;
pub(crate) mod hot_tick;
pub(crate) mod minter;
pub(crate) mod packing;
pub(crate) mod rule;
pub(crate) mod tick_cache;
pub(crate) mod wait;

pub use self::error::MintError;
