//! The rare things worth watching, each as one function that records a metric (feature
//! `metrics`, through the `metrics` 0.24 facade: the application installs the exporter) and
//! emits a trace event (feature `tracing`). With both features off every function is an
//! empty `#[inline(always)]` body and compiles to nothing. None is called per ID: only from
//! the cold paths (a blocked call's wait, an error returned, the overflow shard, a shard
//! taken or given back, a fence renewal, a lease, a source built, a clock re-anchored).
//!
//! Each rare thing is recorded once: a call that waits records one wait (however many
//! times it re-checks), a clock found behind is recorded once per call (when its wait starts,
//! or with the error if it never waits), and an error is counted only when it is returned to
//! the caller. The async calls ([`crate::integrations::asynchronous`]) hold back what their inner `try_`
//! calls would record ([`held_back`]) and record the same as a blocking call: a wait, then an
//! ID or one error.
//!
//! | Name | Kind | Labels | When |
//! |---|---|---|---|
//! | `snowmint_waits_total` | counter | `reason` = `exhausted` / `clock_behind` / `fenced` | a call starts waiting (`fenced`: async calls only) |
//! | `snowmint_wait_seconds` | histogram | `reason` | how long that wait lasted (given up or not) |
//! | `snowmint_clock_behind_seconds` | histogram | | a call found the clock behind the issued time, by this much (its count is the step-back count, its max the largest) |
//! | `snowmint_errors_total` | counter | `kind` = `exhausted` / `clock_behind` / `before_epoch` / `no_free_shard` / `expired` / `fenced` / `lost` | an error returned to the caller (`try_` calls included) |
//! | `snowmint_overflow_ids_total` | counter | | a `ShardedGenerator` minted from its shared overflow shard |
//! | `snowmint_shards_held` | gauge | | exclusive shards held now (by threads and `OwnedShard`s), across the process's sharded generators |
//! | `snowmint_lease_acquisitions_total` | counter | `namespace`, `backend` | a lease (Redis or etcd) took a node |
//! | `snowmint_lease_node` | gauge | `namespace` | the node number it took (the latest) |
//! | `snowmint_lease_take_backs_total` | counter | | a lapsed lease (expired, or forgotten by the store) took its node back |
//! | `snowmint_lease_floor_ahead_unix_millis` | gauge | | a renewal found its node's mark past its window (a raised floor): that mark, Unix ms |
//! | `snowmint_lease_restore_signs_total` | counter | | a claim found a sign of a restore from an older backup (etcd: a raft term below the mark's) and waited the forgetting rule |
//! | `snowmint_fence_renewals_total` | counter | `outcome` = `held` / `failed` / `lost` | a fenced source's keeper answered a renewal |
//! | `snowmint_layout_seconds_left` | gauge | `layout` | a source was built: the time left before its layout expires |
//! | `snowmint_clock_offset_seconds` | gauge | | a `TscClock` re-anchored: the wall clock minus the TSC reading |
//! | `snowmint_clock_step_max_seconds` | gauge | | a re-anchor: the largest step one took in this process |
//! | `snowmint_clock_cheap_age_seconds` | histogram | | a mint found the cheap reading late: its age |
//!
//! [`describe_metrics`] gives each family its HELP text and unit.
//!
//! Trace events (target `snowmint`): a wait for the next tick (or, async, for the fence)
//! that starts is `debug`, the clock found behind is `warn` when the call waits for it and
//! `error` when it is further behind than the call may wait (the error event); an error
//! returned is `debug` for a kind that waiting or a renewal can cure (`exhausted`, `fenced`,
//! and `lost`, whose cause was already an `error` event of its own) and `error` for a clock
//! behind, expiry, a clock before the epoch and no free shard; overflow use and a shard taken
//! or given back are `debug`; a fence renewal is `trace` when held, `warn` when it failed and
//! `error` when the node was lost; a lease taking a node is `info`. Fields: `unit_ms` and
//! `sequence_bits` of the layout, the node where one is known (`node`, `shard`), and the
//! amounts (`wait_us`, `behind_us`, `limit_unix_millis`, `mark_unix_millis`).//!
//! The events are the leaf every layer reports through: they import only the layout (for
//! its fields and presets), and each caller hands them plain values ([`Refusal`], a node
//! number, a limit), never a type of its own layer.
//!
//! | file | holds |
//! |---|---|
//! | `fields.rs` | what callers hand over (whose minting, why a wait, an error's kind), and the fields every event shares |
//! | `refusals.rs` | a wait started and ended, an error returned, and the async calls' holding back |
//! | `sources.rs` | the overflow shard, shards, fence renewals, leases, a layout near its expiry, the TSC clock |
//! | `describe.rs` | [`describe_metrics`] (feature `metrics`) |
//! | `noop.rs` | the same signatures without `std`: nothing is recorded |

#[cfg(feature = "metrics")]
mod describe;
mod fields;
#[cfg(not(feature = "std"))]
mod noop;
#[cfg(feature = "std")]
mod refusals;
#[cfg(feature = "std")]
mod sources;

#[cfg(feature = "metrics")]
pub use self::describe::describe_metrics;
pub(crate) use self::fields::{Kind, Refusal, WaitReason, Whose};
#[cfg(not(feature = "std"))]
pub(crate) use self::noop::{
    layout_in_use, mint_error, mint_error_after_wait, wait_ended, wait_started,
};
#[cfg(feature = "std")]
pub(crate) use self::refusals::{
    fence_refused, held_back, mint_error, mint_error_after_wait, wait_ended, wait_started, Held,
};
#[cfg(feature = "std")]
pub(crate) use self::sources::{
    cheap_reading_late, clock_reanchored, fence_renewal, layout_in_use, overflow_shard, shard_held,
    Renewed,
};
#[cfg(feature = "std")]
pub use self::sources::{
    lease_acquired, lease_floor_ahead, lease_record_settled, lease_restore_sign, lease_taken_back,
    lease_unvouched,
};
