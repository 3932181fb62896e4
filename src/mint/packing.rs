//! [`Packing`]: how a layout's state and node bits become an ID, precomputed for the hot
//! path. The [`Minter`](super::minter::Minter) and the
//! [`TickCache`](super::tick_cache::TickCache) both use it; it depends on neither.

use crate::layout::Layout;

/// How a layout packs a state and node bits into an ID, precomputed: two multiplies and two
/// adds, for every field order.
///
/// A state is `tick << s | seq` and its ID `tick << time_shift | seq << sequence_shift |
/// node`. The fields are disjoint, so the ORs are sums; and `state * 2^sequence_shift` is
/// `tick << (s + sequence_shift) + seq << sequence_shift`. So, in wrapping arithmetic,
/// `id = state * 2^sequence_shift + tick * (2^time_shift - 2^(s + sequence_shift)) + node`
/// (the test below checks it against [`Layout::id_of_state`] for both orders).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packing {
    sequence_bits: u8,
    /// `2^sequence_shift`: a multiply rather than a variable shift (one instruction, not
    /// three, on x86).
    per_state: u64,
    /// `2^time_shift - 2^(s + sequence_shift)`: 0 when the sequence sits right below the
    /// time (`time | sequence | node`).
    per_tick: u64,
}

impl Packing {
    pub(crate) fn of(layout: &Layout) -> Packing {
        let s = layout.sequence_bits();
        // Both below 64: the time field (at least one bit) is the top one, above the others.
        let tick_unit = 1_u64 << layout.time_shift();
        let sequence_tick_unit = 1_u64 << (s + layout.sequence_shift());
        Packing {
            sequence_bits: s,
            per_state: 1 << layout.sequence_shift(),
            per_tick: tick_unit.wrapping_sub(sequence_tick_unit),
        }
    }

    /// What [`Layout::id_of_state`] gives.
    #[inline(always)]
    pub(crate) fn id_of_state(&self, state: u64, node_in_place: u64) -> u64 {
        let tick_part = self.tick_part(state >> self.sequence_bits, node_in_place);
        self.id_from(state, tick_part)
    }

    /// What the IDs of one tick and node share beyond their states' own bits: the rest of
    /// the formula above, for [`id_from`](Self::id_from).
    #[inline(always)]
    pub(crate) fn tick_part(&self, tick: u64, node_in_place: u64) -> u64 {
        tick.wrapping_mul(self.per_tick).wrapping_add(node_in_place)
    }

    /// How far apart the IDs of consecutive states of one tick are: `2^sequence_shift`.
    #[inline(always)]
    pub(crate) fn per_state(&self) -> u64 {
        self.per_state
    }

    /// The ID of `state`, a state of the tick whose [`tick_part`](Self::tick_part) is given.
    #[inline(always)]
    pub(crate) fn id_from(&self, state: u64, tick_part: u64) -> u64 {
        state.wrapping_mul(self.per_state).wrapping_add(tick_part)
    }
}

#[cfg(test)]
mod tests {
    use super::Packing;
    use crate::layout::{Layout, Order};

    #[test]
    fn packing_gives_what_the_layout_gives() {
        let orders = [Order::TimeNodeSequence, Order::TimeSequenceNode];
        for order in orders {
            for (n, s) in [
                (0, 22),
                (2, 20),
                (10, 12),
                (8, 8),
                (0, 1),
                (5, 0),
                (0, 0),
                (0, 62),
                (62, 0),
                (31, 31),
            ] {
                let layout = Layout::builder()
                    // As many time bits as fit (41 when the others leave room).
                    .time_bits((63 - n - s).min(41))
                    .node_bits(n)
                    .sequence_bits(s)
                    .order(order)
                    // No wall-clock check of the epoch (miri has no real-time clock).
                    .validate()
                    .expect("a valid layout");
                let p = Packing::of(&layout);
                for node in [0, layout.max_node() / 2, layout.max_node()] {
                    let nip = layout.node_in_place(node);
                    for ticks in [0, 1, 12_345, layout.max_ticks() / 2, layout.max_ticks()] {
                        for seq in [0, 1, layout.max_sequence() / 3, layout.max_sequence()] {
                            let state = ticks << s | seq;
                            assert_eq!(
                                p.id_of_state(state, nip),
                                layout.id_of_state(state, nip),
                                "{layout:?} state {state:#x} node {node}"
                            );
                        }
                    }
                }
            }
        }
    }
}
