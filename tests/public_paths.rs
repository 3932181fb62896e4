//! Every public path of the crate resolves: the root's names, its public modules and theirs,
//! each imported under the features it needs; the test is that this compiles. A path that
//! moves or goes fails here, so the move shows in review beside its CHANGELOG.md entry.
//! `tests/surface.rs` holds the same surface against ARCHITECTURE.md's map and the root's
//! budget of names.
//!
//! The lease layer's paths (`snowmint::{lease, redis, etcd}`) moved to the `snowmint-lease`
//! crate (CHANGELOG.md).

// The imports are the test: none is used.
#![allow(unused_imports)]

use snowmint::clock as _;
use snowmint::clock::Clock as _;
#[cfg(feature = "js")]
use snowmint::clock::JsClock as _;
#[cfg(feature = "alloc")]
use snowmint::clock::ManualClock as _;
use snowmint::clock::Rollback as _;
#[cfg(feature = "std")]
use snowmint::clock::TscClock as _;
#[cfg(feature = "std")]
use snowmint::clock::TscClockBuilder as _;
#[cfg(feature = "std")]
use snowmint::clock::TscClockError as _;
#[cfg(feature = "std")]
use snowmint::clock::WallClock as _;
use snowmint::docs as _;
use snowmint::docs::cli as _;
use snowmint::docs::encodings as _;
use snowmint::docs::fleets as _;
use snowmint::docs::generators as _;
use snowmint::docs::layouts as _;
use snowmint::docs::migrating as _;
use snowmint::docs::no_std as _;
use snowmint::docs::proof as _;
use snowmint::docs::servers as _;
use snowmint::docs::time as _;
use snowmint::encoding as _;
use snowmint::encoding::EncodedId as _;
#[cfg(feature = "alloc")]
use snowmint::encoding::ParseEncodingError as _;
use snowmint::encoding::ParseErrorKind as _;
#[cfg(feature = "std")]
use snowmint::fence as _;
#[cfg(feature = "std")]
use snowmint::fence::behind as _;
#[cfg(feature = "std")]
use snowmint::fence::ceil_millis as _;
#[cfg(feature = "std")]
use snowmint::fence::events as _;
#[cfg(feature = "std")]
use snowmint::fence::resume_after as _;
#[cfg(feature = "std")]
use snowmint::fence::wait_past as _;
#[cfg(feature = "std")]
use snowmint::fence::Cause as _;
#[cfg(feature = "std")]
use snowmint::fence::FenceCause as _;
#[cfg(feature = "std")]
use snowmint::fence::FenceError as _;
#[cfg(feature = "std")]
use snowmint::fence::Fenced as _;
#[cfg(feature = "std")]
use snowmint::fence::FileGuard as _;
#[cfg(feature = "std")]
use snowmint::fence::GuardError as _;
#[cfg(feature = "std")]
use snowmint::fence::Keeper as _;
#[cfg(feature = "std")]
use snowmint::fence::Note as _;
#[cfg(feature = "std")]
use snowmint::fence::Renewal as _;
#[cfg(feature = "std")]
use snowmint::integrations as _;
#[cfg(feature = "std")]
use snowmint::integrations::asynchronous as _;
#[cfg(feature = "std")]
use snowmint::integrations::asynchronous::next_id_with as _;
#[cfg(feature = "std")]
use snowmint::integrations::asynchronous::next_ids_with as _;
#[cfg(feature = "std")]
use snowmint::integrations::asynchronous::retry_with as _;
#[cfg(feature = "tokio")]
use snowmint::integrations::asynchronous::IdSourceAsync as _;
#[cfg(feature = "metrics")]
use snowmint::integrations::describe_metrics as _;
#[cfg(feature = "postgres")]
use snowmint::integrations::postgres as _;
#[cfg(feature = "rayon")]
use snowmint::integrations::rayon as _;
#[cfg(feature = "rayon")]
use snowmint::integrations::rayon::with_shards as _;
#[cfg(feature = "rayon")]
use snowmint::integrations::rayon::ParallelIdExt as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_bytes as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_bytes::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_bytes::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_bytes::Bytes16 as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::option as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::option::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::option::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::vec as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::vec::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_string::vec::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64 as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::option as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::option::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::option::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::serialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::vec as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::vec::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::integrations::serde::as_u64::vec::serialize as _;
#[cfg(feature = "sqlx")]
use snowmint::integrations::sqlx as _;
use snowmint::layout as _;
use snowmint::layout::Field as _;
use snowmint::layout::LayoutBuilder as _;
use snowmint::layout::Order as _;
use snowmint::layout::TimeGrid as _;
#[cfg(feature = "std")]
use snowmint::node as _;
#[cfg(feature = "std")]
use snowmint::node::Checked as _;
#[cfg(feature = "std")]
use snowmint::node::EnvVar as _;
#[cfg(feature = "std")]
use snowmint::node::Fixed as _;
#[cfg(feature = "std")]
use snowmint::node::NodeError as _;
#[cfg(feature = "std")]
use snowmint::node::NodeSource as _;
#[cfg(feature = "ip")]
use snowmint::node::PrivateIpv4 as _;
#[cfg(feature = "std")]
use snowmint::node::StatefulSetOrdinal as _;
#[cfg(feature = "std")]
use snowmint::shard as _;
#[cfg(feature = "std")]
use snowmint::shard::OwnedShard as _;
#[cfg(feature = "std")]
use snowmint::shard::UlidShard as _;
#[cfg(feature = "std")]
use snowmint::shard::Uuid7Shard as _;
use snowmint::source as _;
use snowmint::source::FillError as _;
use snowmint::source::IdBatch as _;
use snowmint::source::MintFailure as _;
use snowmint::source::SourceBuilder as _;
use snowmint::BigintError as _;
use snowmint::Decoded as _;
use snowmint::Encoding as _;
use snowmint::Generator as _;
use snowmint::GeneratorBuilder as _;
use snowmint::Id as _;
use snowmint::Id128Error as _;
use snowmint::IdSource as _;
use snowmint::Layout as _;
use snowmint::LayoutError as _;
use snowmint::MintError as _;
use snowmint::ParseIdError as _;
use snowmint::Parts as _;
#[cfg(feature = "std")]
use snowmint::ShardError as _;
#[cfg(feature = "std")]
use snowmint::ShardedGenerator as _;
#[cfg(feature = "std")]
use snowmint::ShardedGeneratorBuilder as _;
use snowmint::Ulid as _;
#[cfg(feature = "std")]
use snowmint::UlidGenerator as _;
use snowmint::Uuid7 as _;
#[cfg(feature = "std")]
use snowmint::Uuid7Generator as _;

#[test]
fn every_public_path_resolves() {
    // Nothing to run: the imports above are the test.
}
