//! Layout properties, shared by `tests/prop_layout.rs` (proptest) and the `layout` fuzz
//! target (`fuzz/fuzz_targets/layout.rs`, which includes this file by path).
//!
//! The input is anything a caller can hand the builder; [`check`] panics (with the input in
//! the message) on any broken property, and must never panic otherwise.
#![allow(dead_code)] // Each includer uses part of it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::layout::{Field, LayoutBuilder, Order, TimeGrid};
use snowmint::{Id, Layout, LayoutError, Parts};

/// How the epoch is given to the builder.
#[derive(Debug, Clone, Copy)]
pub enum EpochInput {
    /// `epoch_unix_millis`.
    Millis(u64),
    /// `epoch_unix_nanos`.
    Nanos(u64),
    /// `epoch(UNIX_EPOCH + d)`.
    After(Duration),
    /// `epoch(UNIX_EPOCH - d)` (when representable).
    Before(Duration),
}

/// Everything the builder takes, unchecked.
#[derive(Debug, Clone, Copy)]
pub struct LayoutInput {
    pub time_bits: u8,
    pub node_bits: u8,
    pub sequence_bits: u8,
    /// `None`: the default (63).
    pub max_bits: Option<u8>,
    pub order: Order,
    /// `None`: the default ([`TimeGrid::Epoch`]).
    pub grid: Option<TimeGrid>,
    /// `None`: the default (1 ms).
    pub unit: Option<Duration>,
    /// `None`: the default (Twitter's).
    pub epoch: Option<EpochInput>,
}

impl LayoutInput {
    /// The builder these settings describe.
    pub fn builder(&self) -> LayoutBuilder {
        let mut b = Layout::builder()
            .time_bits(self.time_bits)
            .node_bits(self.node_bits)
            .sequence_bits(self.sequence_bits)
            .order(self.order);
        if let Some(m) = self.max_bits {
            b = b.max_bits(m);
        }
        if let Some(g) = self.grid {
            b = b.time_grid(g);
        }
        if let Some(u) = self.unit {
            b = b.unit(u);
        }
        match self.epoch {
            None => {}
            Some(EpochInput::Millis(ms)) => b = b.epoch_unix_millis(ms),
            Some(EpochInput::Nanos(ns)) => b = b.epoch_unix_nanos(ns),
            Some(EpochInput::After(d)) => {
                if let Some(t) = UNIX_EPOCH.checked_add(d) {
                    b = b.epoch(t);
                }
            }
            Some(EpochInput::Before(d)) => {
                if let Some(t) = UNIX_EPOCH.checked_sub(d) {
                    b = b.epoch(t);
                }
            }
        }
        b
    }

    /// The epoch in Unix nanoseconds the builder should end up with, or `None` for an epoch
    /// before 1970 (computed independently of the crate).
    fn expected_epoch_nanos(&self) -> Option<u128> {
        const TWITTER_EPOCH_MS: u128 = 1_288_834_974_657;
        match self.epoch {
            None => Some(TWITTER_EPOCH_MS * 1_000_000),
            // Exact: an epoch past u64 nanoseconds (year 2554) is refused, not saturated.
            Some(EpochInput::Millis(ms)) => Some(ms as u128 * 1_000_000),
            Some(EpochInput::Nanos(ns)) => Some(ns as u128),
            Some(EpochInput::After(d)) => match UNIX_EPOCH.checked_add(d) {
                Some(_) => Some(d.as_nanos()),
                None => Some(TWITTER_EPOCH_MS * 1_000_000),
            },
            Some(EpochInput::Before(d)) => match UNIX_EPOCH.checked_sub(d) {
                Some(_) if d.is_zero() => Some(0),
                Some(_) => None,
                None => Some(TWITTER_EPOCH_MS * 1_000_000),
            },
        }
    }

    /// The start of tick 0 in Unix nanoseconds, by the documented grid rule: the epoch, or
    /// on the Unix grid the epoch rounded down to a whole unit.
    fn expected_origin_nanos(&self) -> Option<u128> {
        let epoch = self.expected_epoch_nanos()?;
        let unit = self.unit.map_or(1_000_000, |u| u.as_nanos()).max(1);
        Some(match self.grid.unwrap_or(TimeGrid::Epoch) {
            TimeGrid::Epoch => epoch,
            TimeGrid::Unix => epoch / unit * unit,
        })
    }

    /// Whether the documented rules accept these settings (apart from "the epoch is not in
    /// the future", which `validate` leaves to `build`).
    fn expected_valid(&self) -> bool {
        let max_bits = self.max_bits.unwrap_or(63) as u32;
        let unit = self.unit.map_or(1_000_000, |u| u.as_nanos());
        let total = self.time_bits as u32 + self.node_bits as u32 + self.sequence_bits as u32;
        let Some(epoch) = self.expected_epoch_nanos() else {
            return false; // Before 1970.
        };
        if !(1..=64).contains(&max_bits)
            || self.time_bits == 0
            || total > max_bits
            || unit == 0
            || unit > u64::MAX as u128
            || epoch > u64::MAX as u128
        {
            return false;
        }
        let origin = self.expected_origin_nanos().expect("after 1970");
        // The expiry, origin + 2^time_bits units, must be a u64 count of Unix milliseconds.
        match (1_u128 << self.time_bits).checked_mul(unit) {
            Some(span) => (span + origin) / 1_000_000 <= u64::MAX as u128,
            None => false,
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The layout properties for one input. `fields` are arbitrary `(ticks, node, sequence)`
/// values and `ids` arbitrary raw IDs to push through compose and decode.
pub fn check(input: &LayoutInput, fields: &[(u64, u64, u64)], ids: &[u64]) {
    let builder = input.builder();
    let validated = builder.validate();
    assert_eq!(
        validated.is_ok(),
        input.expected_valid(),
        "validate disagrees with the documented rules for {input:?}: {validated:?}"
    );
    let layout = match validated {
        Ok(layout) => layout,
        Err(err) => {
            // Every refusal explains itself, and `build` refuses too.
            assert!(!err.to_string().is_empty());
            assert!(builder.build().is_err(), "{input:?}");
            check_refusal_names_the_rule(input, err);
            return;
        }
    };
    let ctx = format!("{input:?} -> {layout:?}");

    // The settings come back as given.
    assert_eq!(layout.time_bits(), input.time_bits, "{ctx}");
    assert_eq!(layout.node_bits(), input.node_bits, "{ctx}");
    assert_eq!(layout.sequence_bits(), input.sequence_bits, "{ctx}");
    assert_eq!(layout.max_bits(), input.max_bits.unwrap_or(63), "{ctx}");
    assert_eq!(layout.order(), input.order, "{ctx}");
    assert_eq!(
        layout.time_grid(),
        input.grid.unwrap_or(TimeGrid::Epoch),
        "{ctx}"
    );
    assert_eq!(
        layout.unit(),
        input.unit.unwrap_or(Duration::from_millis(1)),
        "{ctx}"
    );
    assert_eq!(
        Some(layout.epoch_unix_nanos() as u128),
        input.expected_epoch_nanos(),
        "{ctx}"
    );
    assert_eq!(layout.to_builder().validate(), Ok(layout), "{ctx}");
    assert_eq!(builder.build_const(), layout, "{ctx}");

    // `build` adds exactly one rule: the epoch is not in the future.
    let before = SystemTime::now();
    let built = builder.build();
    let after = SystemTime::now();
    let epoch = layout.epoch();
    if epoch <= before {
        assert_eq!(built, Ok(layout), "{ctx}");
    } else if epoch > after {
        assert!(
            matches!(built, Err(LayoutError::EpochInFuture { .. })),
            "{ctx}: {built:?}"
        );
    }

    let t = layout.time_bits() as u32;
    let n = layout.node_bits() as u32;
    let s = layout.sequence_bits() as u32;
    let width = t + n + s;
    assert_eq!(layout.max_ticks(), mask(t), "{ctx}");
    assert_eq!(layout.max_node(), mask(n), "{ctx}");
    assert_eq!(layout.max_sequence(), mask(s), "{ctx}");
    assert_eq!(layout.ids_per_tick(), mask(s).wrapping_add(1), "{ctx}");
    // The cap of one node: 2^s IDs per tick, ticks of `unit` each. Computed here another
    // way (from the unit as a `Duration` in seconds), so a cap off by the node count, a unit
    // read in the wrong scale or an integer division shows.
    let capacity = layout.capacity_per_second();
    let per_tick = 2_f64.powi(s as i32);
    let want = per_tick / layout.unit().as_secs_f64();
    assert!(
        capacity.is_finite() && capacity > 0.0,
        "{ctx}: capacity {capacity}"
    );
    assert!(
        ((capacity - want) / want).abs() < 1e-12,
        "{ctx}: capacity {capacity} per second, want {want} ({per_tick} per tick of {:?})",
        layout.unit()
    );

    // Every field at its maximum: all bits of the width set, each field back intact, and the
    // three fields disjoint.
    let (mt, mn, ms) = (layout.max_ticks(), layout.max_node(), layout.max_sequence());
    let all = layout
        .compose(
            mt,
            Parts {
                node: mn,
                sequence: ms,
            },
        )
        .expect("maximal fields fit");
    assert_eq!(all.to_u64(), mask(width), "{ctx}");
    let d = layout.decode(all);
    assert_eq!((d.ticks(), d.node(), d.sequence()), (mt, mn, ms), "{ctx}");
    let only_t = layout
        .compose(
            mt,
            Parts {
                node: 0,
                sequence: 0,
            },
        )
        .unwrap()
        .to_u64();
    let only_n = layout
        .compose(
            0,
            Parts {
                node: mn,
                sequence: 0,
            },
        )
        .unwrap()
        .to_u64();
    let only_s = layout
        .compose(
            0,
            Parts {
                node: 0,
                sequence: ms,
            },
        )
        .unwrap()
        .to_u64();
    assert_eq!(only_t & only_n, 0, "{ctx}");
    assert_eq!(only_t & only_s, 0, "{ctx}");
    assert_eq!(only_n & only_s, 0, "{ctx}");
    assert_eq!(only_t | only_n | only_s, mask(width), "{ctx}");
    // The time field is on top, so IDs sort by time first.
    assert_eq!(only_t.leading_zeros(), 64 - width, "{ctx}");
    assert_eq!(
        layout.compose(
            0,
            Parts {
                node: 0,
                sequence: 0
            }
        ),
        Ok(Id::MIN),
        "{ctx}"
    );

    // Out-of-range fields are refused, never truncated.
    if mt < u64::MAX {
        assert_eq!(
            layout.compose(
                mt + 1,
                Parts {
                    node: 0,
                    sequence: 0
                }
            ),
            Err(LayoutError::FieldOutOfRange {
                field: Field::Time,
                value: mt + 1,
                max: mt
            }),
            "{ctx}"
        );
    }
    if mn < u64::MAX {
        assert_eq!(
            layout.compose(
                0,
                Parts {
                    node: mn + 1,
                    sequence: 0
                }
            ),
            Err(LayoutError::FieldOutOfRange {
                field: Field::Node,
                value: mn + 1,
                max: mn
            }),
            "{ctx}"
        );
    }
    if ms < u64::MAX {
        assert_eq!(
            layout.compose(
                0,
                Parts {
                    node: 0,
                    sequence: ms + 1
                }
            ),
            Err(LayoutError::FieldOutOfRange {
                field: Field::Sequence,
                value: ms + 1,
                max: ms
            }),
            "{ctx}"
        );
    }

    // Lifetime and expiry agree with the first tick and the width of the time field.
    let unit = layout.unit_nanos() as u128;
    let origin = input.expected_origin_nanos().expect("valid");
    assert_eq!(layout.tick_start_unix_nanos(0), origin, "{ctx}");
    let lifetime = (mt as u128 + 1) * unit;
    assert_eq!(layout.lifetime().as_nanos(), lifetime, "{ctx}");
    let expiry_nanos = lifetime + origin;
    assert_eq!(
        layout.expiry_unix_millis() as u128,
        expiry_nanos / 1_000_000,
        "{ctx}"
    );
    let expiry = layout.expiry();
    assert_eq!(
        expiry.duration_since(UNIX_EPOCH).unwrap().as_nanos(),
        expiry_nanos,
        "{ctx}"
    );
    // The expiry is the first moment with no tick; the first tick's start is the first with
    // one, and the epoch lies in that tick.
    assert!(
        matches!(
            layout.ticks_at(expiry),
            Err(LayoutError::TimeAfterExpiry { .. })
        ),
        "{ctx}"
    );
    assert_eq!(layout.ticks_at(epoch), Ok(0), "{ctx}");
    let first_tick = UNIX_EPOCH + Duration::from_nanos(origin as u64);
    assert_eq!(layout.ticks_at(first_tick), Ok(0), "{ctx}");
    if let Some(just_before) = first_tick.checked_sub(Duration::from_nanos(1)) {
        assert!(
            matches!(
                layout.ticks_at(just_before),
                Err(LayoutError::TimeBeforeEpoch { .. })
            ),
            "{ctx}: {:?}",
            layout.ticks_at(just_before)
        );
    }

    // Arbitrary fields, brought into range, round-trip; compose orders by time first.
    for &(ft, fnode, fs) in fields {
        let (ft, fnode, fs) = (ft & mt, fnode & mn, fs & ms);
        let id = layout
            .compose(
                ft,
                Parts {
                    node: fnode,
                    sequence: fs,
                },
            )
            .expect("in-range fields fit");
        assert!(id.to_u64() <= mask(width), "{ctx}");
        let d = layout.decode(id);
        assert_eq!(
            (d.ticks(), d.node(), d.sequence()),
            (ft, fnode, fs),
            "{ctx}"
        );
        if ft < mt {
            let later = layout
                .compose(
                    ft + 1,
                    Parts {
                        node: 0,
                        sequence: 0,
                    },
                )
                .unwrap();
            assert!(later > id, "{ctx}: ({ft}, {fnode}, {fs})");
        }
        check_time_round_trip(&layout, id, &ctx);
    }

    // Arbitrary IDs: decode ignores bits above the width, and compose rebuilds the rest.
    for &raw in ids {
        let id = Id::from_u64(raw);
        let d = layout.decode(id);
        assert!(
            d.ticks() <= mt && d.node() <= mn && d.sequence() <= ms,
            "{ctx}"
        );
        let back = layout
            .compose(
                d.ticks(),
                Parts {
                    node: d.node(),
                    sequence: d.sequence(),
                },
            )
            .expect("decoded fields fit");
        assert_eq!(back.to_u64(), raw & mask(width), "{ctx}: {raw:#x}");
        check_time_round_trip(&layout, back, &ctx);
    }
}

/// Why `validate` refused: the first broken rule, named (a field wider than any layout
/// allows is named as that field, not as a total).
fn check_refusal_names_the_rule(input: &LayoutInput, err: LayoutError) {
    let max_bits = input.max_bits.unwrap_or(63);
    if !(1..=64).contains(&max_bits) || input.time_bits == 0 {
        return;
    }
    for (field, bits, max) in [
        (Field::Time, input.time_bits, 64),
        (Field::Node, input.node_bits, 63),
        (Field::Sequence, input.sequence_bits, 63),
    ] {
        if bits > max {
            assert_eq!(
                err,
                LayoutError::FieldTooWide { field, bits, max },
                "{input:?}"
            );
            assert!(err.to_string().contains(&format!("{field} field")), "{err}");
            return;
        }
    }
    if let Some(epoch) = input.expected_epoch_nanos() {
        let total = input.time_bits as u32 + input.node_bits as u32 + input.sequence_bits as u32;
        let unit = input.unit.map_or(1_000_000, |u| u.as_nanos());
        if epoch > u64::MAX as u128
            && total <= max_bits as u32
            && (1..=u64::MAX as u128).contains(&unit)
        {
            // The epoch as given, exactly, not a saturated value.
            assert_eq!(
                err,
                LayoutError::EpochTooLate {
                    epoch_unix_millis: epoch / 1_000_000
                },
                "{input:?}"
            );
        }
    }
}

/// The tick of a time by the documented grid rule, computed independently of the crate:
/// `(t - epoch) / unit` from the epoch, `t / unit - epoch / unit` on the Unix grid.
fn reference_tick(layout: &Layout, t: u128) -> Option<u128> {
    let (e, u) = (
        layout.epoch_unix_nanos() as u128,
        layout.unit_nanos() as u128,
    );
    match layout.time_grid() {
        TimeGrid::Epoch => t.checked_sub(e).map(|d| d / u),
        TimeGrid::Unix => (t / u).checked_sub(e / u),
    }
}

/// The tick of an ID's time is the ID's tick (by the grid rule too, from the start to the
/// end of the tick), and the ID lies between the first and last IDs of that time.
fn check_time_round_trip(layout: &Layout, id: Id, ctx: &str) {
    let d = layout.decode(id);
    let time = d.time();
    let unit = layout.unit_nanos() as u128;
    for t in [d.unix_nanos(), d.unix_nanos() + unit - 1] {
        assert_eq!(
            reference_tick(layout, t),
            Some(d.ticks() as u128),
            "{ctx}: {t}"
        );
        if let Ok(t) = u64::try_from(t) {
            assert_eq!(layout.tick_of_unix_nanos(t), Some(d.ticks()), "{ctx}: {t}");
        }
    }
    if let Some(before) = d.unix_nanos().checked_sub(1) {
        let expected = reference_tick(layout, before).map(|t| t as u64);
        if let Ok(before) = u64::try_from(before) {
            assert_eq!(layout.tick_of_unix_nanos(before), expected, "{ctx}");
        }
    }
    assert_eq!(
        time.duration_since(UNIX_EPOCH).unwrap().as_nanos(),
        d.unix_nanos(),
        "{ctx}"
    );
    assert_eq!(d.unix_millis() as u128, d.unix_nanos() / 1_000_000, "{ctx}");
    assert_eq!(layout.ticks_at(time), Ok(d.ticks()), "{ctx}: {id:?}");
    let first = layout.first_id_at(time).unwrap();
    let last = layout.last_id_at(time).unwrap();
    assert!(
        first <= id && id <= last,
        "{ctx}: {first:?} <= {id:?} <= {last:?}"
    );
    assert_eq!(layout.decode(first).ticks(), d.ticks(), "{ctx}");
    assert_eq!(layout.decode(last).ticks(), d.ticks(), "{ctx}");
}
