//! [`Layout`]: which bits of an ID hold the time, the node and the sequence, in which
//! [`Order`], counted on which [`TimeGrid`]: the type, its fields and what they allow.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::{SystemTime, UNIX_EPOCH};

use super::divisor::Divisor;

/// Nanoseconds per millisecond, for the conversions of the whole layout module.
pub(super) const NANOS_PER_MILLI: u64 = 1_000_000;

/// The order of the fields below the time field, which is always on top so that IDs sort by
/// time.
///
/// ```
/// use snowmint::Layout;
/// use snowmint::layout::Order;
/// assert_eq!(Layout::TWITTER.order(), Order::TimeNodeSequence);
/// assert_eq!(Layout::SONYFLAKE.order(), Order::TimeSequenceNode);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// `time | node | sequence`, as Twitter, Discord and Instagram.
    TimeNodeSequence,
    /// `time | sequence | node`, as Sonyflake (machine ID in the low bits).
    TimeSequenceNode,
}

/// Where a layout's ticks start: how a time becomes the time field and back.
///
/// The two rules give the same ticks whenever the epoch is a whole number of units after
/// 1970 (every preset's is); they differ by one tick for some times when it is not (a start
/// time of `2023-01-01T00:00:00.005Z` with 10 ms ticks, say). Match the code that minted the
/// IDs: sonyflake counts on the Unix grid, Twitter, Discord and bwmarrin/snowflake from the
/// epoch.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use snowmint::Layout;
/// use snowmint::layout::TimeGrid;
///
/// // sonyflake with a start time 5 ms past a 10 ms boundary.
/// let start = UNIX_EPOCH + Duration::from_millis(1_672_531_200_005); // 2023-01-01T00:00:00.005Z
/// let sony = Layout::SONYFLAKE.to_builder().epoch(start).build()?;
/// let epoch_grid = sony.to_builder().time_grid(TimeGrid::Epoch).build()?;
/// let t = UNIX_EPOCH + Duration::from_secs(1_685_577_600); // 2023-06-01T00:00:00Z
/// // Go: elapsed = t/unit - start/unit = 168557760000 - 167253120000.
/// assert_eq!(sony.ticks_at(t)?, 1_304_640_000);
/// // Counted from the start time: (t - start)/unit.
/// assert_eq!(epoch_grid.ticks_at(t)?, 1_304_639_999);
/// # Ok::<(), snowmint::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeGrid {
    /// Ticks count from the epoch: the tick of `t` is `(t - epoch) / unit`, and tick `k`
    /// starts at `epoch + k * unit` (Twitter, Discord, Instagram, bwmarrin/snowflake).
    Epoch,
    /// Ticks lie on a grid of whole units from 1970, as sonyflake's `elapsed = t/unit -
    /// start/unit` (each side divided separately): tick `k` starts at
    /// `(epoch/unit + k) * unit`, so the first tick starts at the epoch rounded down to the
    /// grid.
    Unix,
}

/// The shape of an ID: field widths, field order, time unit, epoch and time grid.
///
/// A layout is a small `Copy` value that belongs to a generator and travels with the code
/// that decodes its IDs; nothing about it is global, so one process can mint and decode
/// several layouts side by side. Layouts are validated when built: the fields must fit the
/// width (63 bits by default, so IDs stay positive as `i64`), the unit must be non-zero and
/// the expiry date (when the time field overflows) must be known.
///
/// Every conversion between times and ticks (decoding, composing, range bounds, minting)
/// goes through [`tick_of_unix_nanos`](Self::tick_of_unix_nanos) and
/// [`tick_start_unix_nanos`](Self::tick_start_unix_nanos) or their `SystemTime` forms, on the
/// layout's [`TimeGrid`].
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use snowmint::Layout;
///
/// let twitter = Layout::TWITTER;
/// assert_eq!((twitter.time_bits(), twitter.node_bits(), twitter.sequence_bits()), (41, 10, 12));
/// assert_eq!(twitter.unit(), Duration::from_millis(1));
/// // The time field overflows on 2080-07-10 (at 17:30:30.209Z)...
/// assert_eq!(twitter.expiry_unix_millis(), 1_288_834_974_657 + (1 << 41));
/// // ...and one node mints at most 4,096 IDs per millisecond.
/// assert_eq!(twitter.capacity_per_second(), 4_096_000.0);
///
/// // A custom layout, checked at compile time because it is a constant:
/// const MINE: Layout = Layout::builder()
///     .time_bits(40)
///     .node_bits(8)
///     .sequence_bits(15)
///     .unit(Duration::from_micros(100))
///     .epoch_unix_millis(1_700_000_000_000)
///     .build_const();
/// assert_eq!(MINE.max_node(), 255);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(super) time_bits: u8,
    pub(super) node_bits: u8,
    pub(super) sequence_bits: u8,
    pub(super) max_bits: u8,
    pub(super) order: Order,
    pub(super) grid: TimeGrid,
    pub(super) epoch_nanos: u64,
    /// Where tick 0 starts, in Unix nanoseconds: the epoch, or on the Unix grid the epoch
    /// rounded down to a whole unit. Computed once when built, so that both grids cost the
    /// same (one subtraction) on the minting path.
    pub(super) origin_nanos: u64,
    pub(super) unit: Divisor,
    pub(super) time_shift: u8,
    pub(super) node_shift: u8,
    pub(super) sequence_shift: u8,
}

impl Layout {
    /// Bits of the time field.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.time_bits(), 39);
    /// ```
    pub const fn time_bits(&self) -> u8 {
        self.time_bits
    }

    /// Bits of the node field.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.node_bits(), 16);
    /// ```
    pub const fn node_bits(&self) -> u8 {
        self.node_bits
    }

    /// Bits of the sequence field.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.sequence_bits(), 8);
    /// ```
    pub const fn sequence_bits(&self) -> u8 {
        self.sequence_bits
    }

    /// The most bits an ID of this layout may use.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.max_bits(), 63);
    /// ```
    pub const fn max_bits(&self) -> u8 {
        self.max_bits
    }

    /// The field order below the time field.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::DISCORD.order(), snowmint::layout::Order::TimeNodeSequence);
    /// ```
    pub const fn order(&self) -> Order {
        self.order
    }

    /// Where the layout's ticks start.
    ///
    /// ```
    /// use snowmint::Layout;
    /// use snowmint::layout::TimeGrid;
    /// assert_eq!(Layout::SONYFLAKE.time_grid(), TimeGrid::Unix);
    /// assert_eq!(Layout::TWITTER.time_grid(), TimeGrid::Epoch);
    /// ```
    pub const fn time_grid(&self) -> TimeGrid {
        self.grid
    }

    /// The length of one tick.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.unit(), std::time::Duration::from_millis(10));
    /// ```
    pub const fn unit(&self) -> Duration {
        Duration::from_nanos(self.unit.get())
    }

    /// The length of one tick in nanoseconds.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.unit_nanos(), 1_000_000);
    /// ```
    pub const fn unit_nanos(&self) -> u64 {
        self.unit.get()
    }

    /// The epoch, in nanoseconds since the Unix epoch.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::DISCORD.epoch_unix_nanos(), 1_420_070_400_000_000_000);
    /// ```
    pub const fn epoch_unix_nanos(&self) -> u64 {
        self.epoch_nanos
    }

    /// The epoch, in milliseconds since the Unix epoch (rounded down).
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::INSTAGRAM.epoch_unix_millis(), 1_314_220_021_721);
    /// ```
    pub const fn epoch_unix_millis(&self) -> u64 {
        self.epoch_nanos / NANOS_PER_MILLI
    }

    /// The epoch.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// assert_eq!(snowmint::Layout::DISCORD.epoch(), UNIX_EPOCH + Duration::from_secs(1_420_070_400));
    /// ```
    #[cfg(feature = "std")]
    pub fn epoch(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(self.epoch_nanos)
    }

    /// The largest time field value, in ticks.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.max_ticks(), (1 << 41) - 1);
    /// ```
    pub const fn max_ticks(&self) -> u64 {
        mask(self.time_bits)
    }

    /// The largest node number.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.max_node(), 1023);
    /// ```
    pub const fn max_node(&self) -> u64 {
        mask(self.node_bits)
    }

    /// The largest sequence number.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.max_sequence(), 4095);
    /// ```
    pub const fn max_sequence(&self) -> u64 {
        mask(self.sequence_bits)
    }

    /// How many IDs one node can mint per tick: `2^sequence_bits`.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.ids_per_tick(), 256);
    /// ```
    pub const fn ids_per_tick(&self) -> u64 {
        self.max_sequence() + 1
    }

    /// How many IDs one node can mint per second at most (the layout's cap).
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::INSTAGRAM.capacity_per_second(), 1_024_000.0);
    /// ```
    pub fn capacity_per_second(&self) -> f64 {
        self.ids_per_tick() as f64 * 1e9 / self.unit.get() as f64
    }
}

/// `2^bits - 1`, for 0 to 64 bits.
const fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}
