//! [`describe_metrics`]: the HELP text and unit of every metric family (feature `metrics`).

/// Gives every metric family this crate records its HELP text and unit, for exporters that
/// show them (Prometheus' `# HELP` lines). Call it once, after installing the recorder;
/// without one it does nothing.
///
/// ```
/// snowmint::integrations::describe_metrics();
/// ```
#[cfg(feature = "metrics")]
pub fn describe_metrics() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_counter!(
        "snowmint_waits_total",
        Unit::Count,
        "Calls that waited for IDs (blocking, async or the ID service's retries), by reason: exhausted (the tick's sequence used up), clock_behind, fenced"
    );
    describe_histogram!(
        "snowmint_wait_seconds",
        Unit::Seconds,
        "How long each wait lasted, ended with IDs or an error, by reason"
    );
    describe_histogram!(
        "snowmint_clock_behind_seconds",
        Unit::Seconds,
        "How far behind the issued time a call found the clock (count: calls that met a step back)"
    );
    describe_counter!(
        "snowmint_errors_total",
        Unit::Count,
        "Errors returned to a caller (never a retry inside a call), by kind"
    );
    describe_counter!(
        "snowmint_overflow_ids_total",
        Unit::Count,
        "Mints from a sharded generator's shared overflow shard (a thread found every shard held)"
    );
    describe_gauge!(
        "snowmint_shards_held",
        Unit::Count,
        "Exclusive shards held now by threads and owned shards, across the process's sharded generators"
    );
    describe_counter!(
        "snowmint_fence_renewals_total",
        Unit::Count,
        "Renewals a fence's keeper answered, by outcome: held, failed, lost"
    );
    describe_counter!(
        "snowmint_lease_acquisitions_total",
        Unit::Count,
        "Nodes a Redis lease took, by namespace"
    );
    describe_gauge!(
        "snowmint_lease_node",
        "The node number the latest Redis lease took, by namespace"
    );
    describe_gauge!(
        "snowmint_lease_floor_ahead_unix_millis",
        "The highest mark a renewal found past its holder's window (a floor raised by `snowmint lease raise-floor`), Unix milliseconds: the holder keeps its node and mints below its window"
    );
    describe_counter!(
        "snowmint_lease_restore_signs_total",
        Unit::Count,
        "Claims that found a sign of a store restored from an older backup (etcd: a raft term below the node's mark's) and waited the forgetting rule"
    );
    describe_gauge!(
        "snowmint_layout_seconds_left",
        Unit::Seconds,
        "Time left before the layout's time field runs out, by layout: set when a source of it is built (snowmint serve refreshes it every second)"
    );
    describe_gauge!(
        "snowmint_clock_offset_seconds",
        Unit::Seconds,
        "At the latest re-anchor of the TSC clock: the wall clock minus the TSC reading"
    );
    describe_gauge!(
        "snowmint_clock_step_max_seconds",
        Unit::Seconds,
        "The largest step (either way) a re-anchor of the TSC clock took in this process"
    );
    describe_histogram!(
        "snowmint_clock_cheap_age_seconds",
        Unit::Seconds,
        "The age of the cheap (ticker) clock reading when a mint found it late and read the exact clock"
    );
}
