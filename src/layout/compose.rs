//! An ID from its fields and back: [`Layout::compose`], [`Layout::decode`] and the packing
//! the minting core builds on.

#[cfg(feature = "std")]
use std::time::SystemTime;

use super::error::{Field, LayoutError};
use super::shape::Layout;
use crate::id::{Decoded, Id, Parts};

impl Layout {
    /// Builds an ID from its time field (in ticks) and its other fields, named so that node
    /// and sequence cannot be swapped; each is checked against its bits.
    ///
    /// # Errors
    ///
    /// [`LayoutError::FieldOutOfRange`] when `ticks`, the node or the sequence does not fit its
    /// field (with the allowed range).
    ///
    /// ```
    /// use snowmint::{Layout, LayoutError, Parts};
    /// use snowmint::layout::Field;
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

    /// Builds an ID from a time (its tick on the layout's [`TimeGrid`](super::TimeGrid)) and the other
    /// fields, by name. Sonyflake's `sf.Compose(t, sequence, machineID)` is
    /// `layout.compose_at(t, Parts { node: machine_id, sequence })`, the machine ID being the
    /// node.
    ///
    /// # Errors
    ///
    /// [`LayoutError::TimeBeforeEpoch`] or [`LayoutError::TimeAfterExpiry`] when `time` is outside
    /// the layout's span; as [`compose`](Self::compose) for the parts.
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
    /// # Errors
    ///
    /// [`LayoutError::TimeBeforeEpoch`] or [`LayoutError::TimeAfterExpiry`] when `time` is outside
    /// the layout's span.
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
    /// # Errors
    ///
    /// [`LayoutError::TimeBeforeEpoch`] or [`LayoutError::TimeAfterExpiry`] when `time` is outside
    /// the layout's span.
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

    /// Splits an ID into its fields and the start of its tick on the layout's
    /// [`TimeGrid`](super::TimeGrid). Bits above the layout's width are ignored.
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
