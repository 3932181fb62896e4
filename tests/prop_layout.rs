//! Property tests: building a layout from any settings never panics, and a valid layout
//! round-trips every field (at its maximum and at arbitrary values) through compose/decode.
//! The properties live in `support/layout_props.rs`, shared with the `layout` fuzz target.
#![cfg(not(miri))] // proptest is far too slow under miri; tests/miri_generator.rs covers miri.

#[path = "support/layout_props.rs"]
mod layout_props;

use std::time::Duration;

use layout_props::{check, EpochInput, LayoutInput};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use snowmint::layout::{Order, TimeGrid};
use snowmint::Layout;

fn bits() -> impl Strategy<Value = u8> {
    // Mostly widths that can fit; sometimes anything at all.
    prop_oneof![4 => 0_u8..=65, 1 => any::<u8>()]
}

fn unit() -> impl Strategy<Value = Option<Duration>> {
    prop_oneof![
        Just(None),
        (0_u64..=2_000_000_000).prop_map(|n| Some(Duration::from_nanos(n))),
        any::<u64>().prop_map(|n| Some(Duration::from_nanos(n))),
        // Past 2^64 ns: UnitTooLong.
        (any::<u64>(), 0_u32..1_000_000_000).prop_map(|(s, n)| Some(Duration::new(s, n))),
    ]
}

fn epoch() -> impl Strategy<Value = Option<EpochInput>> {
    prop_oneof![
        Just(None),
        Just(Some(EpochInput::Nanos(0))),
        (0_u64..=4_000_000_000_000).prop_map(|ms| Some(EpochInput::Millis(ms))),
        any::<u64>().prop_map(|ms| Some(EpochInput::Millis(ms))),
        any::<u64>().prop_map(|ns| Some(EpochInput::Nanos(ns))),
        (any::<u64>(), 0_u32..1_000_000_000)
            .prop_map(|(s, n)| Some(EpochInput::After(Duration::new(s, n)))),
        (0_u64..1_000, 0_u32..1_000_000_000)
            .prop_map(|(s, n)| Some(EpochInput::Before(Duration::new(s, n)))),
    ]
}

fn grid() -> impl Strategy<Value = Option<TimeGrid>> {
    prop_oneof![
        Just(None),
        Just(Some(TimeGrid::Epoch)),
        Just(Some(TimeGrid::Unix))
    ]
}

fn input() -> impl Strategy<Value = LayoutInput> {
    (
        bits(),
        bits(),
        bits(),
        prop::option::of(bits()),
        any::<bool>(),
        grid(),
        unit(),
        epoch(),
    )
        .prop_map(
            |(time_bits, node_bits, sequence_bits, max_bits, o, grid, unit, epoch)| LayoutInput {
                time_bits,
                node_bits,
                sequence_bits,
                max_bits,
                order: if o {
                    Order::TimeNodeSequence
                } else {
                    Order::TimeSequenceNode
                },
                grid,
                unit,
                epoch,
            },
        )
}

/// Inputs that pass validation more often: widths summing to at most 64.
fn valid_input() -> impl Strategy<Value = LayoutInput> {
    (
        1_u8..=64,
        any::<u8>(),
        any::<u8>(),
        any::<bool>(),
        grid(),
        unit(),
        epoch(),
    )
        .prop_map(|(t, a, b, o, grid, unit, epoch)| {
            let left = 64 - t;
            let n = a % (left + 1);
            let s = b % (left - n + 1);
            LayoutInput {
                time_bits: t,
                node_bits: n,
                sequence_bits: s,
                max_bits: Some(64),
                order: if o {
                    Order::TimeNodeSequence
                } else {
                    Order::TimeSequenceNode
                },
                grid,
                unit: unit.map(|u| u.min(Duration::from_nanos(u64::MAX))),
                epoch,
            }
        })
}

fn probes() -> impl Strategy<Value = (Vec<(u64, u64, u64)>, Vec<u64>)> {
    (
        prop::collection::vec(any::<(u64, u64, u64)>(), 0..8),
        prop::collection::vec(any::<u64>(), 0..8),
    )
}

/// Failures are saved beside this file (`prop_layout.regressions`) and replayed first.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_settings_never_panic_and_valid_ones_round_trip(i in input(), (f, ids) in probes()) {
        check(&i, &f, &ids);
    }

    #[test]
    fn full_width_layouts_round_trip_every_field(i in valid_input(), (f, ids) in probes()) {
        check(&i, &f, &ids);
    }
}

#[test]
fn presets_round_trip_every_field() {
    for (name, layout) in Layout::PRESETS {
        let input = LayoutInput {
            time_bits: layout.time_bits(),
            node_bits: layout.node_bits(),
            sequence_bits: layout.sequence_bits(),
            max_bits: Some(layout.max_bits()),
            order: layout.order(),
            grid: Some(layout.time_grid()),
            unit: Some(layout.unit()),
            epoch: Some(EpochInput::Nanos(layout.epoch_unix_nanos())),
        };
        assert_eq!(input.builder().validate(), Ok(layout), "{name}");
        check(
            &input,
            &[(1, 2, 3), (u64::MAX, 0, u64::MAX)],
            &[0, 1, u64::MAX],
        );
    }
}

#[test]
fn an_epoch_of_1970_still_refuses_earlier_times() {
    // Found by the property above: times before 1970 used to read as tick 0.
    let input = LayoutInput {
        time_bits: 41,
        node_bits: 10,
        sequence_bits: 12,
        max_bits: None,
        order: Order::TimeNodeSequence,
        grid: None,
        unit: None,
        epoch: Some(EpochInput::Nanos(0)),
    };
    check(&input, &[(0, 0, 0)], &[0]);
}

#[test]
fn unaligned_epochs_and_units_follow_the_grid_rule() {
    // Epochs off the unit grid by a little, by a lot and by all but one nanosecond, with
    // units that do and do not divide a second, on both grids.
    for grid in [TimeGrid::Epoch, TimeGrid::Unix] {
        for unit in [1_000_000_u64, 10_000_000, 7_000_003, 999_999_937] {
            for epoch in [
                1_672_531_200_005_000_000_u64,
                1_672_531_200_000_000_001,
                1_672_531_200_000_000_000 + unit - 1,
                1_409_529_600_000_000_000,
            ] {
                let input = LayoutInput {
                    time_bits: 39,
                    node_bits: 16,
                    sequence_bits: 8,
                    max_bits: None,
                    order: Order::TimeSequenceNode,
                    grid: Some(grid),
                    unit: Some(Duration::from_nanos(unit)),
                    epoch: Some(EpochInput::Nanos(epoch)),
                };
                check(
                    &input,
                    &[(0, 1, 2), (1, 0, 0), (12_345_678, 3, 4), (u64::MAX, 0, 0)],
                    &[0, 1 << 24, u64::MAX],
                );
            }
        }
    }
}
