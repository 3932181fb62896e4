//! The peer crates, each set to the shape under test where its API allows, each with the
//! clock it ships (a peer's clock is part of what its users get).
//!
//! | crate | generators | clock | layouts |
//! | --- | --- | --- | --- |
//! | ferroid 2 | atomic (CAS), lock (`std::sync::Mutex`), basic (`Cell`, one thread) | `MonotonicClock`: an atomic a 1 ms ticker thread updates | any, by macro |
//! | snowflake_me 2 | one (CAS, `compare_exchange_weak`) | `jiff::Timestamp::now()` | any 63-bit split |
//! | snowdon 0.2 | lock-free (CAS) | `SystemTime::now()` | any, by trait; the machine ID is a type |
//! | snowflaked 1 | `sync::Generator` (`fetch_update`) | `SystemTime::elapsed()` | Twitter's only |
//!
//! Waiting: ferroid's `next_id` takes a back-off closure; like ferroid's own benches we pass
//! `spin_loop`. snowdon returns `SnowflakeExhaustion` instead of waiting: the wrapper
//! retries with `spin_loop`. snowflake_me and snowflaked wait by themselves.

use std::hint::spin_loop;
use std::time::{Duration, UNIX_EPOCH};

use ferroid::generator::{
    AtomicSnowflakeGenerator, BasicSnowflakeGenerator, LockSnowflakeGenerator,
};
use ferroid::id::{SnowflakeId, SnowflakeTwitterId};
use ferroid::time::{MonotonicClock, TWITTER_EPOCH};

use super::{Mint, Shape, Visit, TWITTER_EPOCH_MS};

ferroid::define_snowflake_id!(
    /// ferroid's form of [`Shape::Uncapped`].
    FerroidUncapped, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 0,
    sequence: 22
);

ferroid::define_snowflake_id!(
    /// ferroid's form of [`Shape::Uncapped4Node`].
    FerroidUncapped4Node, u64,
    reserved: 1,
    timestamp: 41,
    machine_id: 2,
    sequence: 20
);

// ---- ferroid ----

fn ferroid_clock() -> MonotonicClock {
    MonotonicClock::with_epoch(TWITTER_EPOCH)
}

impl<ID: SnowflakeId<Ty = u64>> Mint for AtomicSnowflakeGenerator<ID, MonotonicClock> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        self.next_id(|_| spin_loop()).to_raw()
    }
}

impl<ID: SnowflakeId<Ty = u64>> Mint for LockSnowflakeGenerator<ID, MonotonicClock> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        self.try_next_id(|_| spin_loop())
            .expect("ferroid lock poisoned")
            .to_raw()
    }
}

impl<ID: SnowflakeId<Ty = u64>> Mint for BasicSnowflakeGenerator<ID, MonotonicClock> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        self.next_id(|_| spin_loop()).to_raw()
    }
}

fn visit_ferroid<ID, V>(v: &mut V)
where
    ID: SnowflakeId<Ty = u64> + Send + Sync + 'static,
    V: Visit,
{
    v.shared("ferroid-atomic", |node| {
        AtomicSnowflakeGenerator::<ID, _>::new(node, ferroid_clock())
    });
    v.shared("ferroid-lock", |node| {
        LockSnowflakeGenerator::<ID, _>::new(node, ferroid_clock())
    });
    v.local("ferroid-basic", |node| {
        BasicSnowflakeGenerator::<ID, _>::new(node, ferroid_clock())
    });
}

// ---- snowflake_me ----

impl Mint for snowflake_me::Snowflake {
    #[inline(always)]
    fn mint(&self) -> u64 {
        self.next_id().expect("snowflake_me failed").as_u64()
    }
}

/// snowflake_me splits the node into a data-center and a machine field (each 0 to 16 bits);
/// the split does not change the bits of the ID.
pub fn snowflake_me(shape: Shape, node: u64) -> snowflake_me::Snowflake {
    let node_bits = shape.node_bits();
    let machine_bits = node_bits.min(5);
    let dc_bits = node_bits - machine_bits;
    let machine = u16::try_from(node & ((1 << machine_bits) - 1)).expect("5 bits");
    let dc = u16::try_from(node >> machine_bits).expect("node fits");
    snowflake_me::Snowflake::builder()
        .start_time(TWITTER_EPOCH_MS as i64)
        .bit_len_time(41)
        .bit_len_sequence(shape.sequence_bits())
        .bit_len_data_center_id(dc_bits)
        .bit_len_machine_id(machine_bits)
        .machine_id(&move || Ok(machine))
        .data_center_id(&move || Ok(dc))
        .finalize()
        .expect("snowflake_me accepts the shape")
}

// ---- snowdon ----

/// Twitter's epoch for snowdon.
pub struct SnowdonEpoch;

impl snowdon::Epoch for SnowdonEpoch {
    fn millis_since_unix() -> u64 {
        TWITTER_EPOCH_MS
    }
}

/// A snowdon layout with node 0 (snowdon asks for the machine ID as a type, through its
/// `MachineId` trait; [`SnowdonGen`] ORs the node in after minting instead).
pub struct SnowdonLayout<const NODE_BITS: u32, const SEQ_BITS: u32>;

impl<const NODE_BITS: u32, const SEQ_BITS: u32> snowdon::Layout
    for SnowdonLayout<NODE_BITS, SEQ_BITS>
{
    #[inline]
    fn construct_snowflake(timestamp: u64, sequence_number: u64) -> u64 {
        timestamp << (NODE_BITS + SEQ_BITS) | sequence_number
    }

    #[inline]
    fn timestamp(input: u64) -> u64 {
        input >> (NODE_BITS + SEQ_BITS)
    }

    #[inline]
    fn exceeds_timestamp(input: u64) -> bool {
        input >= 1 << 41
    }

    #[inline]
    fn sequence_number(input: u64) -> u64 {
        input & ((1 << SEQ_BITS) - 1)
    }

    #[inline]
    fn exceeds_sequence_number(input: u64) -> bool {
        input >= 1 << SEQ_BITS
    }

    #[inline]
    fn is_valid_snowflake(input: u64) -> bool {
        input < 1 << 63
    }
}

/// snowdon's lock-free generator, retrying on exhaustion, node ORed in.
pub struct SnowdonGen<L: snowdon::Layout> {
    gen: snowdon::Generator<L, SnowdonEpoch>,
    node_in_place: u64,
}

impl<L: snowdon::Layout> SnowdonGen<L> {
    fn new(shape: Shape, node: u64) -> Self {
        assert!(node < 1 << shape.node_bits(), "node {node} out of range");
        SnowdonGen {
            gen: snowdon::Generator::default(),
            node_in_place: node << shape.sequence_bits(),
        }
    }
}

impl<L: snowdon::Layout> Mint for SnowdonGen<L> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        loop {
            match self.gen.generate() {
                Ok(id) => return id.into_inner() | self.node_in_place,
                // This millisecond is used up, or SystemTime stepped back: try again.
                Err(snowdon::Error::SnowflakeExhaustion | snowdon::Error::NonMonotonicClock) => {
                    spin_loop()
                }
                Err(e) => panic!("snowdon failed: {e:?}"),
            }
        }
    }
}

// ---- snowflaked ----

impl Mint for snowflaked::sync::Generator {
    #[inline(always)]
    fn mint(&self) -> u64 {
        self.generate()
    }
}

fn snowflaked(node: u64) -> snowflaked::sync::Generator {
    snowflaked::Builder::new()
        .instance(u16::try_from(node).expect("10-bit node"))
        .epoch(UNIX_EPOCH + Duration::from_millis(TWITTER_EPOCH_MS))
        .build()
}

/// Offers every peer generator set to `shape`, or says why it cannot be.
pub fn visit<V: Visit>(shape: Shape, v: &mut V) {
    match shape {
        Shape::Uncapped => visit_ferroid::<FerroidUncapped, _>(v),
        Shape::Uncapped4Node => visit_ferroid::<FerroidUncapped4Node, _>(v),
        Shape::Twitter => visit_ferroid::<SnowflakeTwitterId, _>(v),
    }
    v.shared("snowflake_me", |node| snowflake_me(shape, node));
    match shape {
        Shape::Uncapped => v.shared("snowdon", |node| {
            SnowdonGen::<SnowdonLayout<0, 22>>::new(shape, node)
        }),
        Shape::Uncapped4Node => v.shared("snowdon", |node| {
            SnowdonGen::<SnowdonLayout<2, 20>>::new(shape, node)
        }),
        Shape::Twitter => v.shared("snowdon", |node| {
            SnowdonGen::<SnowdonLayout<10, 12>>::new(shape, node)
        }),
    }
    match shape {
        Shape::Twitter => v.shared("snowflaked", snowflaked),
        Shape::Uncapped | Shape::Uncapped4Node => v.unsupported(
            "snowflaked",
            "its layout is fixed at 41/10/12 (the 12-bit sequence is hard-coded in its state)",
        ),
    }
}
