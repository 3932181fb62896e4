//! [`LayoutBuilder`]: every rule a layout must keep, checked in `const fn`s so that a
//! constant layout is checked when it compiles.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::{SystemTime, UNIX_EPOCH};

use super::divisor::Divisor;
use super::error::{Field, LayoutError};
use super::shape::{Layout, Order, TimeGrid, NANOS_PER_MILLI};

/// Builds a [`Layout`]; every method is `const` so layouts can be compile-time constants.
///
/// Starts from Twitter's layout (41 time / 10 node / 12 sequence bits, 1 ms, epoch
/// 2010-11-04T01:42:54.657Z, 63 bits, ticks counted from the epoch).
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Layout, LayoutError};
/// use snowmint::layout::{Order, TimeGrid};
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
    /// use snowmint::Layout;
    /// use snowmint::layout::Order;
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
    /// use snowmint::Layout;
    /// use snowmint::layout::TimeGrid;
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
    /// # Errors
    ///
    /// [`LayoutError`] naming the first rule broken, with the allowed range: no time bits, a field
    /// or the sum too wide for `max_bits`, `max_bits` outside 1 to 64, a zero or too long unit, an
    /// epoch before 1970 or too late, an expiry that does not fit.
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
    /// # Panics
    ///
    /// On any rule [`validate`](Self::validate) refuses, naming it (a compile error in a
    /// `const`); use [`build`](Self::build) for layouts read at run time.
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
    /// # Errors
    ///
    /// As [`validate`](Self::validate), and (with `std`) [`LayoutError::EpochInFuture`] when the
    /// epoch is after the wall clock's now.
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
}
