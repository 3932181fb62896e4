//! Every public path of the release before the source moved into layer folders (the crate's
//! root, its public modules and theirs) still resolves: the folders moved, the paths did
//! not. Each path is imported under the features it needs; the test is that this compiles.
//! Listed from `cargo +nightly rustdoc -p snowmint --all-features -- -Z unstable-options
//! --output-format json` at that release.

// The imports are the test: none is used.
#![allow(unused_imports)]

#[cfg(feature = "std")]
use snowmint::asynchronous as _;
#[cfg(feature = "std")]
use snowmint::asynchronous::next_id_with as _;
#[cfg(feature = "std")]
use snowmint::asynchronous::next_ids_with as _;
#[cfg(feature = "std")]
use snowmint::asynchronous::retry_with as _;
#[cfg(feature = "tokio")]
use snowmint::asynchronous::IdSourceAsync as _;
#[cfg(feature = "metrics")]
use snowmint::describe_metrics as _;
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
#[cfg(feature = "etcd")]
use snowmint::etcd as _;
#[cfg(feature = "etcd")]
use snowmint::etcd::CallError as _;
#[cfg(feature = "etcd")]
use snowmint::etcd::Etcd as _;
#[cfg(feature = "etcd")]
use snowmint::etcd::EtcdLease as _;
#[cfg(feature = "etcd")]
use snowmint::etcd::Lease as _;
#[cfg(feature = "etcd")]
use snowmint::etcd::LeaseError as _;
#[cfg(any(feature = "redis", feature = "etcd"))]
use snowmint::lease as _;
#[cfg(any(feature = "redis", feature = "etcd"))]
use snowmint::lease::Backend as _;
#[cfg(any(feature = "redis", feature = "etcd"))]
use snowmint::lease::Lease as _;
#[cfg(any(feature = "redis", feature = "etcd"))]
use snowmint::lease::LeaseError as _;
#[cfg(feature = "std")]
use snowmint::node as _;
#[cfg(feature = "std")]
use snowmint::node::parse_number as _;
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
#[cfg(feature = "postgres")]
use snowmint::postgres as _;
#[cfg(feature = "rayon")]
use snowmint::rayon as _;
#[cfg(feature = "rayon")]
use snowmint::rayon::with_shards as _;
#[cfg(feature = "rayon")]
use snowmint::rayon::ParallelIdExt as _;
#[cfg(feature = "redis")]
use snowmint::redis as _;
#[cfg(feature = "redis")]
use snowmint::redis::Lease as _;
#[cfg(feature = "redis")]
use snowmint::redis::LeaseError as _;
#[cfg(feature = "redis")]
use snowmint::redis::Redis as _;
#[cfg(feature = "redis")]
use snowmint::redis::RedisLease as _;
#[cfg(feature = "serde")]
use snowmint::serde as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::option as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::option::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::option::serialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::serialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::vec as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::vec::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_string::vec::serialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64 as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::option as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::option::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::option::serialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::serialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::vec as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::vec::deserialize as _;
#[cfg(feature = "serde")]
use snowmint::serde::as_u64::vec::serialize as _;
#[cfg(feature = "sqlx")]
use snowmint::sqlx as _;
use snowmint::BigintError as _;
#[cfg(feature = "std")]
use snowmint::Cause as _;
use snowmint::Clock as _;
use snowmint::Decoded as _;
use snowmint::EncodedId as _;
use snowmint::Encoding as _;
#[cfg(feature = "std")]
use snowmint::FenceError as _;
#[cfg(feature = "std")]
use snowmint::Fenced as _;
use snowmint::Field as _;
#[cfg(feature = "std")]
use snowmint::FileGuard as _;
use snowmint::FillError as _;
use snowmint::Generator as _;
use snowmint::GeneratorBuilder as _;
#[cfg(feature = "std")]
use snowmint::GuardError as _;
use snowmint::Id as _;
use snowmint::IdBatch as _;
use snowmint::IdSource as _;
#[cfg(feature = "js")]
use snowmint::JsClock as _;
#[cfg(feature = "std")]
use snowmint::Keeper as _;
use snowmint::Layout as _;
use snowmint::LayoutBuilder as _;
use snowmint::LayoutError as _;
#[cfg(feature = "alloc")]
use snowmint::ManualClock as _;
use snowmint::MintError as _;
use snowmint::MintFailure as _;
#[cfg(feature = "std")]
use snowmint::NodeError as _;
#[cfg(feature = "std")]
use snowmint::NodeSource as _;
use snowmint::Order as _;
#[cfg(feature = "std")]
use snowmint::OwnedShard as _;
#[cfg(feature = "alloc")]
use snowmint::ParseEncodingError as _;
use snowmint::ParseErrorKind as _;
use snowmint::ParseIdError as _;
use snowmint::Parts as _;
#[cfg(feature = "std")]
use snowmint::Renewal as _;
use snowmint::Rollback as _;
#[cfg(feature = "std")]
use snowmint::ShardError as _;
#[cfg(feature = "std")]
use snowmint::ShardedGenerator as _;
#[cfg(feature = "std")]
use snowmint::ShardedGeneratorBuilder as _;
use snowmint::SourceBuilder as _;
use snowmint::TimeGrid as _;
#[cfg(feature = "std")]
use snowmint::TscClock as _;
#[cfg(feature = "std")]
use snowmint::TscClockBuilder as _;
#[cfg(feature = "std")]
use snowmint::TscClockError as _;
#[cfg(feature = "std")]
use snowmint::WallClock as _;

#[test]
fn every_public_path_from_before_the_move_still_resolves() {
    // Nothing to run: the imports above are the test.
}
