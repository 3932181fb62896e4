//! [`Shared`]: what a sharded generator's threads and owned shards hold in common.

use std::sync::Arc;

use super::slots::Slots;
use crate::mint::minter::Minter;

/// What every owned shard and thread of one sharded generator uses.
pub(crate) struct Shared<C> {
    pub(crate) minter: Minter<C>,
    pub(crate) slots: Arc<Slots>,
    pub(super) node: u64,
    pub(super) shard_bits: u8,
}

impl<C> Shared<C> {
    /// The generator's node (without the shard part).
    pub(super) fn node(&self) -> u64 {
        self.node
    }

    /// How many low bits of the node field number the shard.
    pub(super) fn shard_bits(&self) -> u8 {
        self.shard_bits
    }
}
