//! [`ShardError`]: why a sharded generator's settings were refused.

use core::fmt;

use crate::layout::LayoutError;

/// Why [`ShardedGeneratorBuilder::build`](crate::ShardedGeneratorBuilder::build) refused its settings: the split
/// of the node field into node and shard bits, or a layout setting.
///
/// ```
/// use snowmint::{Layout, ShardError, ShardedGenerator};
/// let err = ShardedGenerator::builder(Layout::TWITTER).node(16).build().unwrap_err();
/// assert_eq!(err, ShardError::NodeOutOfRange { node: 16, max: 15 });
/// assert_eq!(
///     err.to_string(),
///     "node 16 is out of range: allowed 0 to 15 (the node bits above the shard bits)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShardError {
    /// The shard bits are zero or more than the layout's node bits (or more than 16).
    ShardBitsOutOfRange {
        /// The shard bits asked for.
        shard_bits: u8,
        /// The most allowed: the layout's node bits, at most 16.
        max: u8,
    },
    /// The node number does not fit the node bits left above the shard bits.
    NodeOutOfRange {
        /// The node number given.
        node: u64,
        /// The largest allowed.
        max: u64,
    },
    /// A setting shared with plain generators was refused (see [`LayoutError`]).
    Layout(LayoutError),
}

impl From<LayoutError> for ShardError {
    fn from(e: LayoutError) -> ShardError {
        ShardError::Layout(e)
    }
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ShardError::ShardBitsOutOfRange { shard_bits, max } => write!(
                f,
                "shard bits {shard_bits} out of range: allowed 1 to {max} (the layout's node bits, at most 16)"
            ),
            ShardError::NodeOutOfRange { node, max } => write!(
                f,
                "node {node} is out of range: allowed 0 to {max} (the node bits above the shard bits)"
            ),
            ShardError::Layout(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ShardError {}
