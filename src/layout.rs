//! [`Layout`]: which bits of an ID hold the time, the node and the sequence.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::{SystemTime, UNIX_EPOCH};

use crate::id::Decoded;
use crate::divisor::Divisor;
use crate::error::{Field, LayoutError};
use crate::id::Id;
use crate::id::Parts;

const NANOS_PER_MILLI: u64 = 1_000_000;

/// The order of the fields below the time field, which is always on top so that IDs sort by
/// time.
///
/// ```
/// use snowmint::{Layout, Order};
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
/// use snowmint::{Layout, TimeGrid};
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
    time_bits: u8,
    node_bits: u8,
    sequence_bits: u8,
    max_bits: u8,
    order: Order,
    grid: TimeGrid,
    epoch_nanos: u64,
    /// Where tick 0 starts, in Unix nanoseconds: the epoch, or on the Unix grid the epoch
    /// rounded down to a whole unit. Computed once when built, so that both grids cost the
    /// same (one subtraction) on the minting path.
    origin_nanos: u64,
    unit: Divisor,
    time_shift: u8,
    node_shift: u8,
    sequence_shift: u8,
}

/// Builds a [`Layout`]; every method is `const` so layouts can be compile-time constants.
///
/// Starts from Twitter's layout (41 time / 10 node / 12 sequence bits, 1 ms, epoch
/// 2010-11-04T01:42:54.657Z, 63 bits, ticks counted from the epoch).
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Layout, LayoutError, Order, TimeGrid};
///
/// let layout = Layout::builder()
///     .time_bits(39)
///     .sequence_bits(8)
///     .node_bits(16)
///     .unit(Duration::from_millis(10))
///     .order(Order::TimeSequenceNode)
///     .epoch_unix_millis(1_409_529_600_000)
///     .time_grid(TimeGrid::Unix)
///     .build()?;
/// assert_eq!(layout, Layout::SONYFLAKE);
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use]
pub struct LayoutBuilder {
    time_bits: u8,
    node_bits: u8,
    sequence_bits: u8,
    max_bits: u8,
    order: Order,
    grid: TimeGrid,
    /// Exact, so that an epoch too late for a layout is reported as given.
    epoch_nanos: u128,
    epoch_before_unix: bool,
    unit_nanos: u128,
}

impl LayoutBuilder {
    /// Bits of the time field (1 to 64). Sonyflake v2's `Settings` derive it as
    /// `63 - BitsSequence - BitsMachineID`; here it is set explicitly.
    ///
    /// ```
    /// let l = snowmint::Layout::builder().time_bits(40).build_const();
    /// assert_eq!(l.time_bits(), 40);
    /// ```
    pub const fn time_bits(mut self, bits: u8) -> Self {
        self.time_bits = bits;
        self
    }

    /// Bits of the node field (0 to 63).
    ///
    /// ```
    /// let l = snowmint::Layout::builder().node_bits(5).build_const();
    /// assert_eq!(l.max_node(), 31);
    /// ```
    pub const fn node_bits(mut self, bits: u8) -> Self {
        self.node_bits = bits;
        self
    }

    /// Bits of the sequence field (0 to 63).
    ///
    /// ```
    /// let l = snowmint::Layout::builder().sequence_bits(8).build_const();
    /// assert_eq!(l.ids_per_tick(), 256);
    /// ```
    pub const fn sequence_bits(mut self, bits: u8) -> Self {
        self.sequence_bits = bits;
        self
    }

    /// The most bits an ID may use (1 to 64; default 63, so IDs are positive as `i64`).
    /// Use 64 for unsigned layouts, 53 for IDs that JavaScript numbers hold exactly.
    ///
    /// ```
    /// let l = snowmint::Layout::builder().time_bits(42).max_bits(64).build_const();
    /// assert_eq!(l.max_bits(), 64);
    /// ```
    pub const fn max_bits(mut self, bits: u8) -> Self {
        self.max_bits = bits;
        self
    }

    /// Field order below the time field.
    ///
    /// ```
    /// use snowmint::{Layout, Order};
    /// let l = Layout::builder().order(Order::TimeSequenceNode).build_const();
    /// assert_eq!(l.order(), Order::TimeSequenceNode);
    /// ```
    pub const fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Where ticks start (default [`TimeGrid::Epoch`]; the sonyflake presets and layouts
    /// derived from them use [`TimeGrid::Unix`]).
    ///
    /// ```
    /// use snowmint::{Layout, TimeGrid};
    /// let l = Layout::builder().time_grid(TimeGrid::Unix).build_const();
    /// assert_eq!(l.time_grid(), TimeGrid::Unix);
    /// ```
    pub const fn time_grid(mut self, grid: TimeGrid) -> Self {
        self.grid = grid;
        self
    }

    /// The length of one tick of the time field (at least 1 ns, below 2^64 ns).
    ///
    /// ```
    /// use std::time::Duration;
    /// let l = snowmint::Layout::builder().unit(Duration::from_millis(10)).build_const();
    /// assert_eq!(l.unit(), Duration::from_millis(10));
    /// ```
    pub const fn unit(mut self, unit: Duration) -> Self {
        self.unit_nanos = unit.as_nanos();
        self
    }

    /// The epoch (time zero of the time field), in milliseconds since the Unix epoch.
    ///
    /// ```
    /// let l = snowmint::Layout::builder().epoch_unix_millis(1_420_070_400_000).build_const();
    /// assert_eq!(l.epoch_unix_millis(), 1_420_070_400_000);
    /// ```
    pub const fn epoch_unix_millis(mut self, millis: u64) -> Self {
        // Exact: an epoch past year 2554 (u64 nanoseconds) is refused by name when built.
        self.epoch_nanos = millis as u128 * NANOS_PER_MILLI as u128;
        self.epoch_before_unix = false;
        self
    }

    /// The epoch in nanoseconds since the Unix epoch.
    ///
    /// ```
    /// let l = snowmint::Layout::builder().epoch_unix_nanos(1_500_000_000_123_456_789).build_const();
    /// assert_eq!(l.epoch_unix_nanos(), 1_500_000_000_123_456_789);
    /// ```
    pub const fn epoch_unix_nanos(mut self, nanos: u64) -> Self {
        self.epoch_nanos = nanos as u128;
        self.epoch_before_unix = false;
        self
    }

    /// The epoch as a `SystemTime` (for example Sonyflake's settable start time).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::Layout;
    /// let start = UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    /// let l = Layout::SONYFLAKE.to_builder().epoch(start).build()?;
    /// assert_eq!(l.epoch(), start);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn epoch(mut self, epoch: SystemTime) -> Self {
        match epoch.duration_since(UNIX_EPOCH) {
            Ok(since) => {
                self.epoch_nanos = since.as_nanos();
                self.epoch_before_unix = false;
            }
            Err(_) => self.epoch_before_unix = true,
        }
        self
    }

    /// Validates the layout's shape: every rule but "the epoch is not in the future", which
    /// needs the wall clock (see [`build`](Self::build)). `const`, for constants.
    ///
    /// ```
    /// use snowmint::{Layout, LayoutError};
    /// assert_eq!(Layout::builder().time_bits(0).validate(), Err(LayoutError::NoTimeBits));
    /// ```
    pub const fn validate(self) -> Result<Layout, LayoutError> {
        if self.max_bits == 0 || self.max_bits > 64 {
            return Err(LayoutError::MaxBitsOutOfRange {
                max_bits: self.max_bits,
            });
        }
        if self.time_bits == 0 {
            return Err(LayoutError::NoTimeBits);
        }
        // Each field on its own first, so that the message names the field asked for.
        let fields = [
            (Field::Time, self.time_bits, 64),
            (Field::Node, self.node_bits, 63),
            (Field::Sequence, self.sequence_bits, 63),
        ];
        let mut i = 0;
        while i < fields.len() {
            let (field, bits, max) = fields[i];
            if bits > max {
                return Err(LayoutError::FieldTooWide { field, bits, max });
            }
            i += 1;
        }
        let total = self.time_bits as u32 + self.node_bits as u32 + self.sequence_bits as u32;
        if total > self.max_bits as u32 {
            return Err(LayoutError::TooWide {
                total,
                max_bits: self.max_bits,
            });
        }
        if self.unit_nanos == 0 {
            return Err(LayoutError::ZeroUnit);
        }
        if self.unit_nanos > u64::MAX as u128 {
            return Err(LayoutError::UnitTooLong);
        }
        if self.epoch_before_unix {
            return Err(LayoutError::EpochBeforeUnixEpoch);
        }
        if self.epoch_nanos > u64::MAX as u128 {
            return Err(LayoutError::EpochTooLate {
                epoch_unix_millis: self.epoch_nanos / NANOS_PER_MILLI as u128,
            });
        }
        let epoch_nanos = self.epoch_nanos as u64;
        let unit = self.unit_nanos as u64;
        let origin_nanos = match self.grid {
            TimeGrid::Epoch => epoch_nanos,
            TimeGrid::Unix => epoch_nanos - epoch_nanos % unit,
        };
        // The expiry, origin + 2^time_bits ticks, must be a known date in u64 Unix millis.
        // time_bits <= 64 and unit < 2^64, so the product fits in u128 unless time_bits is 64
        // and the unit is large, which checked_mul catches.
        let ticks = 1_u128 << self.time_bits;
        let expiry = match ticks.checked_mul(self.unit_nanos) {
            Some(span) => span + origin_nanos as u128,
            None => return Err(LayoutError::ExpiryUnrepresentable),
        };
        if expiry / NANOS_PER_MILLI as u128 > u64::MAX as u128 {
            return Err(LayoutError::ExpiryUnrepresentable);
        }
        let (time_shift, node_shift, sequence_shift) = match self.order {
            Order::TimeNodeSequence => (self.node_bits + self.sequence_bits, self.sequence_bits, 0),
            Order::TimeSequenceNode => (self.node_bits + self.sequence_bits, 0, self.node_bits),
        };
        Ok(Layout {
            time_bits: self.time_bits,
            node_bits: self.node_bits,
            sequence_bits: self.sequence_bits,
            max_bits: self.max_bits,
            order: self.order,
            grid: self.grid,
            epoch_nanos,
            origin_nanos,
            unit: Divisor::new(unit),
            time_shift,
            node_shift,
            sequence_shift,
        })
    }

    /// Validates as [`validate`](Self::validate) and panics on a broken rule: in a `const`
    /// item the panic is a compile error, so constant layouts are checked at build time.
    ///
    /// ```
    /// const L: snowmint::Layout = snowmint::Layout::builder().node_bits(0).sequence_bits(22).build_const();
    /// assert_eq!(L.ids_per_tick(), 1 << 22);
    /// ```
    ///
    /// ```compile_fail
    /// // 41 + 10 + 13 = 64 bits do not fit the default 63.
    /// const L: snowmint::Layout = snowmint::Layout::builder().sequence_bits(13).build_const();
    /// ```
    pub const fn build_const(self) -> Layout {
        match self.validate() {
            Ok(layout) => layout,
            Err(LayoutError::NoTimeBits) => panic!("invalid layout: time_bits must be 1 to 64"),
            Err(LayoutError::FieldTooWide {
                field: Field::Time, ..
            }) => {
                panic!("invalid layout: time_bits must be 1 to 64")
            }
            Err(LayoutError::FieldTooWide { .. }) => {
                panic!("invalid layout: node_bits and sequence_bits must be 0 to 63")
            }
            Err(LayoutError::TooWide { .. }) => {
                panic!("invalid layout: time + node + sequence bits exceed max_bits")
            }
            Err(LayoutError::MaxBitsOutOfRange { .. }) => {
                panic!("invalid layout: max_bits must be 1 to 64")
            }
            Err(LayoutError::ZeroUnit) => panic!("invalid layout: the unit must be at least 1 ns"),
            Err(LayoutError::UnitTooLong) => {
                panic!("invalid layout: the unit must be below 2^64 ns")
            }
            Err(LayoutError::EpochBeforeUnixEpoch) => {
                panic!("invalid layout: the epoch is before 1970")
            }
            Err(LayoutError::EpochTooLate { .. }) => {
                panic!("invalid layout: the epoch is past 2554 (u64 Unix nanoseconds)")
            }
            Err(_) => panic!("invalid layout: the expiry does not fit in u64 Unix milliseconds"),
        }
    }

    /// Validates every rule, including (with `std`: without it there is no wall clock to ask)
    /// that the epoch is not in the future by the wall clock.
    ///
    /// ```
    /// use snowmint::{Layout, LayoutError};
    /// let far = Layout::builder().epoch_unix_millis(4_000_000_000_000).build();
    /// assert!(matches!(far, Err(LayoutError::EpochInFuture { .. })));
    /// ```
    pub fn build(self) -> Result<Layout, LayoutError> {
        let layout = self.validate()?;
        #[cfg(feature = "std")]
        let now_nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        #[cfg(feature = "std")]
        if layout.epoch_nanos > now_nanos {
            // Exact: validate refused every epoch past u64 nanoseconds.
            return Err(LayoutError::EpochInFuture {
                epoch_unix_millis: layout.epoch_unix_millis(),
                now_unix_millis: now_nanos / NANOS_PER_MILLI,
            });
        }
        Ok(layout)
    }
}

impl Layout {
    /// Twitter's Snowflake: 41 time bits of 1 ms from 2010-11-04T01:42:54.657Z, 10 node bits,
    /// 12 sequence bits; 63 bits; expires 2080-07-10.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.epoch_unix_millis(), 1_288_834_974_657);
    /// ```
    pub const TWITTER: Layout = Layout::builder().build_const();

    /// Sonyflake (v1, `github.com/sony/sonyflake`): 39 time bits of 10 ms from
    /// 2014-09-01T00:00:00Z, then 8 sequence bits and 16 machine bits in the low bits; 63
    /// bits; ticks on the [`TimeGrid::Unix`] as Go's `toSonyflakeTime`; expires 2188-11-16.
    /// Change the start time with `Layout::SONYFLAKE.to_builder().epoch(start).build()`: the
    /// grid comes along, so ticks agree with Go for any start time.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::SONYFLAKE.capacity_per_second(), 25_600.0);
    /// ```
    pub const SONYFLAKE: Layout = Layout::builder()
        .time_bits(39)
        .sequence_bits(8)
        .node_bits(16)
        .unit(Duration::from_millis(10))
        .order(Order::TimeSequenceNode)
        .epoch_unix_millis(1_409_529_600_000)
        .time_grid(TimeGrid::Unix)
        .build_const();

    /// Sonyflake v2 (`github.com/sony/sonyflake/v2`) with its default `Settings`: as
    /// [`SONYFLAKE`](Self::SONYFLAKE) but from 2025-01-01T00:00:00Z; expires 2199-03-19.
    /// v2's `BitsSequence`, `BitsMachineID` and `TimeUnit` map to `sequence_bits`,
    /// `node_bits` (with `time_bits(63 - sequence - machine)`) and `unit`, its `StartTime` to
    /// `epoch`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::Layout;
    /// // Settings{BitsSequence: 10, BitsMachineID: 12, TimeUnit: time.Millisecond}
    /// let mine = Layout::SONYFLAKE_V2
    ///     .to_builder()
    ///     .sequence_bits(10)
    ///     .node_bits(12)
    ///     .time_bits(63 - 10 - 12)
    ///     .unit(Duration::from_millis(1))
    ///     .build()?;
    /// assert_eq!(mine.time_grid(), snowmint::TimeGrid::Unix);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const SONYFLAKE_V2: Layout = Layout::SONYFLAKE
        .to_builder()
        .epoch_unix_millis(1_735_689_600_000)
        .build_const();

    /// Discord: 42 time bits of 1 ms from 2015-01-01T00:00:00Z, 10 node bits (5 worker and 5
    /// process bits: `node = worker << 5 | process`), 12 increment bits; all 64 bits
    /// (unsigned); expires 2154-05-15.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::DISCORD.max_bits(), 64);
    /// ```
    pub const DISCORD: Layout = Layout::builder()
        .time_bits(42)
        .max_bits(64)
        .epoch_unix_millis(1_420_070_400_000)
        .build_const();

    /// Instagram: 41 time bits of 1 ms from 2011-08-24T21:07:01.721Z, 13 shard bits, 10
    /// sequence bits; 64 bits; expires 2081-04-30.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::INSTAGRAM.max_node(), 8191);
    /// ```
    pub const INSTAGRAM: Layout = Layout::builder()
        .time_bits(41)
        .node_bits(13)
        .sequence_bits(10)
        .max_bits(64)
        .epoch_unix_millis(1_314_220_021_721)
        .build_const();

    /// Mastodon: 48 bits of milliseconds since 1970-01-01T00:00:00Z, then 16 sequence bits
    /// (`unix_ms << 16 | sequence`, as its `timestamp_id` SQL function); no node field; all
    /// 64 bits; expires in the year 10889.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::{Layout, Parts};
    /// let l = Layout::MASTODON;
    /// let t = UNIX_EPOCH + Duration::from_millis(1_575_776_913_849);
    /// assert_eq!(l.compose_at(t, Parts { node: 0, sequence: 40_911 })?.to_u64(), 1_575_776_913_849 << 16 | 40_911);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const MASTODON: Layout = Layout::builder()
        .time_bits(48)
        .node_bits(0)
        .sequence_bits(16)
        .max_bits(64)
        .epoch_unix_millis(0)
        .build_const();

    /// JavaScript-safe: 40 time bits of 1 ms from 2025-01-01T00:00:00Z, 4 node bits, 9
    /// sequence bits: every ID stays below 2^53 (`Number.MAX_SAFE_INTEGER`) until the layout
    /// expires on 2059-11-04, 34 years after its epoch; 512,000 IDs/s per node.
    ///
    /// ```
    /// use snowmint::{Layout, Parts};
    /// let js = Layout::JS53;
    /// assert_eq!(js.max_bits(), 53);
    /// let last = js.compose(js.max_ticks(), Parts { node: js.max_node(), sequence: js.max_sequence() })?;
    /// assert_eq!(last.to_u64(), (1 << 53) - 1);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const JS53: Layout = Layout::builder()
        .time_bits(40)
        .node_bits(4)
        .sequence_bits(9)
        .max_bits(53)
        .epoch_unix_millis(1_735_689_600_000)
        .build_const();

    /// The presets by name, for command lines and configuration files.
    ///
    /// ```
    /// use snowmint::Layout;
    /// assert!(Layout::PRESETS.iter().any(|&(name, l)| name == "sonyflake-v2" && l == Layout::SONYFLAKE_V2));
    /// ```
    pub const PRESETS: [(&'static str, Layout); 7] = [
        ("twitter", Layout::TWITTER),
        ("sonyflake", Layout::SONYFLAKE),
        ("sonyflake-v2", Layout::SONYFLAKE_V2),
        ("discord", Layout::DISCORD),
        ("instagram", Layout::INSTAGRAM),
        ("mastodon", Layout::MASTODON),
        ("js53", Layout::JS53),
    ];

    /// A preset by (case-sensitive) name, as listed in [`PRESETS`](Self::PRESETS).
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::preset("discord"), Some(snowmint::Layout::DISCORD));
    /// assert_eq!(snowmint::Layout::preset("nope"), None);
    /// ```
    pub fn preset(name: &str) -> Option<Layout> {
        Layout::PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, l)| l)
    }

    /// A builder starting from Twitter's layout.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::builder().build_const(), snowmint::Layout::TWITTER);
    /// ```
    pub const fn builder() -> LayoutBuilder {
        LayoutBuilder {
            time_bits: 41,
            node_bits: 10,
            sequence_bits: 12,
            max_bits: 63,
            order: Order::TimeNodeSequence,
            grid: TimeGrid::Epoch,
            epoch_nanos: 1_288_834_974_657 * NANOS_PER_MILLI as u128,
            epoch_before_unix: false,
            unit_nanos: NANOS_PER_MILLI as u128,
        }
    }

    /// A builder holding this layout, to derive a variant.
    ///
    /// ```
    /// use snowmint::Layout;
    /// let wide = Layout::TWITTER.to_builder().node_bits(11).sequence_bits(11).build_const();
    /// assert_eq!(wide.max_node(), 2047);
    /// ```
    pub const fn to_builder(&self) -> LayoutBuilder {
        LayoutBuilder {
            time_bits: self.time_bits,
            node_bits: self.node_bits,
            sequence_bits: self.sequence_bits,
            max_bits: self.max_bits,
            order: self.order,
            grid: self.grid,
            epoch_nanos: self.epoch_nanos as u128,
            epoch_before_unix: false,
            unit_nanos: self.unit.get() as u128,
        }
    }

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
    /// assert_eq!(snowmint::Layout::DISCORD.order(), snowmint::Order::TimeNodeSequence);
    /// ```
    pub const fn order(&self) -> Order {
        self.order
    }

    /// Where the layout's ticks start.
    ///
    /// ```
    /// use snowmint::{Layout, TimeGrid};
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

    /// When the time field overflows, in milliseconds since the Unix epoch (rounded down):
    /// no ID can be minted at or after this moment. A generator for a layout whose expiry
    /// has passed is refused when built ([`LayoutError::Expired`]); its old IDs still decode.
    ///
    /// ```
    /// // Sonyflake lasts 174 years from its start time.
    /// assert_eq!(snowmint::Layout::SONYFLAKE.expiry_unix_millis(), 1_409_529_600_000 + (1 << 39) * 10);
    /// ```
    pub const fn expiry_unix_millis(&self) -> u64 {
        // Validated when built: fits in u64 milliseconds.
        (self.expiry_unix_nanos() / NANOS_PER_MILLI as u128) as u64
    }

    /// When the time field overflows.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// let js = snowmint::Layout::JS53;
    /// assert_eq!(js.expiry(), UNIX_EPOCH + Duration::from_millis(js.expiry_unix_millis()));
    /// ```
    #[cfg(feature = "std")]
    pub fn expiry(&self) -> SystemTime {
        let nanos = self.expiry_unix_nanos();
        let secs = (nanos / 1_000_000_000) as u64;
        UNIX_EPOCH + Duration::new(secs, (nanos % 1_000_000_000) as u32)
    }

    /// How long the layout lasts from its epoch to its expiry.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.lifetime().as_millis(), 1 << 41);
    /// ```
    pub const fn lifetime(&self) -> Duration {
        let nanos = (self.max_ticks() as u128 + 1) * self.unit.get() as u128;
        Duration::new(
            (nanos / 1_000_000_000) as u64,
            (nanos % 1_000_000_000) as u32,
        )
    }

    pub(crate) const fn expiry_unix_nanos(&self) -> u128 {
        self.tick_start_unix_nanos(self.max_ticks()) + self.unit.get() as u128
    }

    /// Builds an ID from its time field (in ticks) and its other fields, named so that node
    /// and sequence cannot be swapped; each is checked against its bits.
    ///
    /// ```
    /// use snowmint::{Field, Layout, LayoutError, Parts};
    /// let l = Layout::TWITTER;
    /// let id = l.compose(1, Parts { node: 2, sequence: 3 })?;
    /// assert_eq!(id.to_u64(), 1 << 22 | 2 << 12 | 3);
    /// assert_eq!(
    ///     l.compose(0, Parts { node: 1024, sequence: 0 }),
    ///     Err(LayoutError::FieldOutOfRange { field: Field::Node, value: 1024, max: 1023 })
    /// );
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub const fn compose(&self, ticks: u64, parts: Parts) -> Result<Id, LayoutError> {
        let Parts { node, sequence } = parts;
        if ticks > self.max_ticks() {
            return Err(LayoutError::FieldOutOfRange {
                field: Field::Time,
                value: ticks,
                max: self.max_ticks(),
            });
        }
        if node > self.max_node() {
            return Err(LayoutError::FieldOutOfRange {
                field: Field::Node,
                value: node,
                max: self.max_node(),
            });
        }
        if sequence > self.max_sequence() {
            return Err(LayoutError::FieldOutOfRange {
                field: Field::Sequence,
                value: sequence,
                max: self.max_sequence(),
            });
        }
        Ok(Id::from_u64(self.pack(ticks, node, sequence)))
    }

    /// Builds an ID from a time (its tick on the layout's [`TimeGrid`]) and the other
    /// fields, by name. Sonyflake's `sf.Compose(t, sequence, machineID)` is
    /// `layout.compose_at(t, Parts { node: machine_id, sequence })`, the machine ID being the
    /// node.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::{Layout, Parts};
    /// let l = Layout::TWITTER;
    /// let at = UNIX_EPOCH + Duration::from_millis(l.epoch_unix_millis() + 5);
    /// assert_eq!(l.compose_at(at, Parts { node: 1, sequence: 0 })?, l.compose(5, Parts { node: 1, sequence: 0 })?);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn compose_at(&self, time: SystemTime, parts: Parts) -> Result<Id, LayoutError> {
        self.compose(self.ticks_at(time)?, parts)
    }

    /// The smallest ID of the tick holding `time`, for range queries: every ID minted at or
    /// after `time` (to tick precision) is `>=` it.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::Layout;
    /// let l = Layout::TWITTER;
    /// let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    /// let from = l.first_id_at(t)?;
    /// let to = l.last_id_at(t)?;
    /// assert_eq!(l.decode(from).time(), t);
    /// assert_eq!(to.to_u64() - from.to_u64(), (1 << 22) - 1);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn first_id_at(&self, time: SystemTime) -> Result<Id, LayoutError> {
        self.compose_at(time, Parts::default())
    }

    /// The largest ID of the tick holding `time`.
    ///
    /// ```
    /// use snowmint::Layout;
    /// let l = Layout::SONYFLAKE;
    /// let t = std::time::SystemTime::now();
    /// assert!(l.last_id_at(t)? > l.first_id_at(t)?);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn last_id_at(&self, time: SystemTime) -> Result<Id, LayoutError> {
        let parts = Parts {
            node: self.max_node(),
            sequence: self.max_sequence(),
        };
        self.compose_at(time, parts)
    }

    /// The tick holding `time` on the layout's [`TimeGrid`], checked against the first tick
    /// and the expiry.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::{Layout, LayoutError};
    /// let l = Layout::SONYFLAKE;
    /// assert_eq!(l.ticks_at(l.epoch() + Duration::from_millis(25))?, 2);
    /// assert!(matches!(l.ticks_at(UNIX_EPOCH), Err(LayoutError::TimeBeforeEpoch { .. })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn ticks_at(&self, time: SystemTime) -> Result<u64, LayoutError> {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(since) => since.as_nanos(),
            // Before 1970, so before every first tick (even of an epoch of 0): refused, with
            // the time as negative milliseconds, rather than clamped to 0.
            Err(before) => {
                let millis = before
                    .duration()
                    .as_nanos()
                    .div_ceil(NANOS_PER_MILLI as u128);
                return Err(LayoutError::TimeBeforeEpoch {
                    unix_millis: i64::try_from(millis).map_or(i64::MIN, |m| -m),
                    epoch_unix_millis: self.epoch_unix_millis(),
                });
            }
        };
        let unix_millis = nanos / NANOS_PER_MILLI as u128;
        let Some(since_origin) = nanos.checked_sub(self.origin_nanos as u128) else {
            return Err(LayoutError::TimeBeforeEpoch {
                // Below the origin, which is a u64 of nanoseconds.
                unix_millis: unix_millis as i64,
                epoch_unix_millis: self.epoch_unix_millis(),
            });
        };
        let ticks = since_origin / self.unit.get() as u128;
        if ticks > self.max_ticks() as u128 {
            return Err(LayoutError::TimeAfterExpiry {
                unix_millis: u64::try_from(unix_millis).unwrap_or(u64::MAX),
                expiry_unix_millis: self.expiry_unix_millis(),
            });
        }
        Ok(ticks as u64)
    }

    /// The tick holding the instant `unix_nanos` (nanoseconds since 1970) on the layout's
    /// [`TimeGrid`], or `None` before the first tick. Not checked against the expiry: a tick
    /// past [`max_ticks`](Self::max_ticks) means the layout has expired.
    ///
    /// This and [`tick_start_unix_nanos`](Self::tick_start_unix_nanos) are the one place
    /// where clock readings become ticks and back; generators call them on every ID, so this
    /// costs one subtraction and a division by multiplication, whatever the grid.
    ///
    /// ```
    /// use snowmint::Layout;
    /// let l = Layout::TWITTER;
    /// let epoch = l.epoch_unix_nanos();
    /// assert_eq!(l.tick_of_unix_nanos(epoch + 2_500_000), Some(2));
    /// assert_eq!(l.tick_of_unix_nanos(epoch - 1), None);
    /// ```
    #[inline]
    pub const fn tick_of_unix_nanos(&self, unix_nanos: u64) -> Option<u64> {
        match unix_nanos.checked_sub(self.origin_nanos) {
            Some(since) => Some(self.unit.div(since)),
            None => None,
        }
    }

    /// When tick `tick` starts, in nanoseconds since 1970, on the layout's [`TimeGrid`]:
    /// `origin + tick * unit`, where the origin is the epoch, or on the Unix grid the epoch
    /// rounded down to a whole unit (sonyflake's `(startTime + elapsed) * unit`).
    ///
    /// ```
    /// use snowmint::Layout;
    /// let l = Layout::SONYFLAKE;
    /// assert_eq!(l.tick_start_unix_nanos(0), l.epoch_unix_nanos() as u128);
    /// assert_eq!(l.tick_start_unix_nanos(3), l.epoch_unix_nanos() as u128 + 30_000_000);
    /// ```
    #[inline]
    pub const fn tick_start_unix_nanos(&self, tick: u64) -> u128 {
        self.origin_nanos as u128 + tick as u128 * self.unit.get() as u128
    }

    /// Splits an ID into its fields and the start of its tick on the layout's
    /// [`TimeGrid`]. Bits above the layout's width are ignored.
    ///
    /// ```
    /// use snowmint::{Layout, Parts};
    /// let l = Layout::SONYFLAKE;
    /// let id = l.compose(100, Parts { node: 7, sequence: 3 })?;
    /// let d = l.decode(id);
    /// assert_eq!((d.ticks(), d.node(), d.sequence()), (100, 7, 3));
    /// assert_eq!(d.unix_millis(), l.epoch_unix_millis() + 1_000);
    /// assert_eq!(l.compose(d.ticks(), d.parts())?, id);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn decode(&self, id: Id) -> Decoded {
        let v = id.to_u64();
        let ticks = shr(v, self.time_shift) & self.max_ticks();
        let unix_nanos = self.tick_start_unix_nanos(ticks);
        Decoded::new(
            ticks,
            shr(v, self.node_shift) & self.max_node(),
            shr(v, self.sequence_shift) & self.max_sequence(),
            unix_nanos,
            self.unit_nanos(),
        )
    }

    /// Fields to bits, unchecked: callers guarantee each field fits.
    #[inline]
    pub(crate) const fn pack(&self, ticks: u64, node: u64, sequence: u64) -> u64 {
        shl(ticks, self.time_shift)
            | shl(node, self.node_shift)
            | shl(sequence, self.sequence_shift)
    }

    /// The ID of a generator state `ticks << sequence_bits | sequence` with the node bits
    /// already in place. Every shift is below 64: the time field has at least one bit, so
    /// `time_shift = node_bits + sequence_bits <= 63`.
    #[inline]
    pub(crate) const fn id_of_state(&self, state: u64, node_in_place: u64) -> u64 {
        let sequence = state & self.max_sequence();
        let ticks = state >> self.sequence_bits;
        ticks << self.time_shift | sequence << self.sequence_shift | node_in_place
    }

    /// Where the time field starts in an ID.
    #[inline]
    pub(crate) const fn time_shift(&self) -> u8 {
        self.time_shift
    }

    /// Where the sequence field starts in an ID.
    #[inline]
    pub(crate) const fn sequence_shift(&self) -> u8 {
        self.sequence_shift
    }

    /// The node field already in place, to OR into packed IDs.
    #[inline]
    pub(crate) const fn node_in_place(&self, node: u64) -> u64 {
        shl(node, self.node_shift)
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

/// A shift that yields 0 rather than overflowing when every bit is shifted out.
#[inline]
const fn shl(v: u64, by: u8) -> u64 {
    if by >= 64 {
        0
    } else {
        v << by
    }
}

#[inline]
const fn shr(v: u64, by: u8) -> u64 {
    if by >= 64 {
        0
    } else {
        v >> by
    }
}
