//! Layouts: every preset and odd custom layouts at their field maxima, and every rule.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::{Field, Id, Layout, LayoutError, Order};

fn odd_layouts() -> Vec<Layout> {
    let mut layouts: Vec<Layout> = Layout::PRESETS.iter().map(|&(_, l)| l).collect();
    for (t, n, s, bits, order) in [
        (64, 0, 0, 64, Order::TimeNodeSequence),
        (1, 31, 32, 64, Order::TimeSequenceNode),
        (1, 0, 0, 1, Order::TimeNodeSequence),
        (32, 0, 31, 63, Order::TimeSequenceNode),
        (20, 21, 22, 63, Order::TimeNodeSequence),
        (52, 1, 0, 53, Order::TimeSequenceNode),
    ] {
        layouts.push(
            Layout::builder()
                .time_bits(t)
                .node_bits(n)
                .sequence_bits(s)
                .max_bits(bits)
                .order(order)
                .unit(Duration::from_nanos(1))
                .epoch_unix_millis(0)
                .validate()
                .unwrap_or_else(|e| panic!("{t}/{n}/{s}: {e}")),
        );
    }
    layouts
}

#[test]
fn every_field_round_trips_at_its_maximum_and_zero() {
    for l in odd_layouts() {
        let corners = [
            (0, 0, 0),
            (l.max_ticks(), 0, 0),
            (0, l.max_node(), 0),
            (0, 0, l.max_sequence()),
            (l.max_ticks(), l.max_node(), l.max_sequence()),
        ];
        for (t, n, s) in corners {
            let id = l.compose(t, n, s).unwrap();
            let d = l.decode(id);
            assert_eq!((d.ticks(), d.node(), d.sequence()), (t, n, s), "{l:?}");
        }
        let max = l
            .compose(l.max_ticks(), l.max_node(), l.max_sequence())
            .unwrap();
        let used =
            u32::from(l.time_bits()) + u32::from(l.node_bits()) + u32::from(l.sequence_bits());
        let all_ones = if used == 64 {
            u64::MAX
        } else {
            (1 << used) - 1
        };
        assert_eq!(
            max.to_u64(),
            all_ones,
            "the maximum ID sets exactly the used bits"
        );
        assert!(used <= u32::from(l.max_bits()));
    }
}

#[test]
fn ids_sort_by_time_first() {
    for l in odd_layouts() {
        if l.max_ticks() == 0 {
            continue;
        }
        let early = l.compose(0, l.max_node(), l.max_sequence()).unwrap();
        let late = l.compose(1, 0, 0).unwrap();
        assert!(early < late, "{l:?}");
    }
}

#[test]
fn sonyflake_puts_the_machine_in_the_low_bits() {
    let id = Layout::SONYFLAKE.compose(1, 2, 3).unwrap();
    assert_eq!(id.to_u64(), 1 << 24 | 3 << 16 | 2);
}

#[test]
fn fields_past_their_bits_are_errors_not_truncations() {
    let l = Layout::TWITTER;
    assert_eq!(
        l.compose(1 << 41, 0, 0),
        Err(LayoutError::FieldOutOfRange {
            field: Field::Time,
            value: 1 << 41,
            max: (1 << 41) - 1
        })
    );
    assert_eq!(
        l.compose(0, 0, 4_096),
        Err(LayoutError::FieldOutOfRange {
            field: Field::Sequence,
            value: 4_096,
            max: 4_095
        })
    );
    // The classic 16-bit truncation made workers 1 and 17 collide; here 1 << 16 | 1 is refused.
    assert!(Layout::SONYFLAKE.compose(0, (1 << 16) | 1, 0).is_err());
}

#[test]
fn every_rule_is_checked_with_a_message_naming_it() {
    let cases: Vec<(Result<Layout, LayoutError>, LayoutError, &str)> = vec![
        (
            Layout::builder().time_bits(0).build(),
            LayoutError::NoTimeBits,
            "time_bits must be 1 to 64",
        ),
        (
            Layout::builder().time_bits(42).build(),
            LayoutError::TooWide {
                total: 64,
                max_bits: 63,
            },
            "at most 63",
        ),
        (
            Layout::builder().max_bits(65).build(),
            LayoutError::MaxBitsOutOfRange { max_bits: 65 },
            "1 to 64",
        ),
        (
            Layout::builder().max_bits(0).build(),
            LayoutError::MaxBitsOutOfRange { max_bits: 0 },
            "1 to 64",
        ),
        (
            Layout::builder().unit(Duration::ZERO).build(),
            LayoutError::ZeroUnit,
            "at least 1 ns",
        ),
        (
            Layout::builder()
                .unit(Duration::from_secs(u64::MAX))
                .build(),
            LayoutError::UnitTooLong,
            "below 2^64 ns",
        ),
        (
            Layout::builder()
                .epoch(UNIX_EPOCH - Duration::from_secs(1))
                .build(),
            LayoutError::EpochBeforeUnixEpoch,
            "before 1970",
        ),
        (
            Layout::builder()
                .time_bits(63)
                .node_bits(0)
                .sequence_bits(0)
                .unit(Duration::from_secs(1))
                .build(),
            LayoutError::ExpiryUnrepresentable,
            "u64 Unix milliseconds",
        ),
    ];
    for (got, want, says) in cases {
        let err = got.unwrap_err();
        assert_eq!(err, want);
        assert!(err.to_string().contains(says), "{err}");
    }
    let future = SystemTime::now() + Duration::from_secs(3_600);
    let err = Layout::builder().epoch(future).build().unwrap_err();
    assert!(matches!(err, LayoutError::EpochInFuture { .. }), "{err}");
    assert!(err.to_string().contains("in the future"));
    // The same layout is structurally fine: validate() does not read the wall clock.
    assert!(Layout::builder().epoch(future).validate().is_ok());
}

#[test]
fn times_outside_the_layout_are_errors() {
    let l = Layout::TWITTER;
    let before = UNIX_EPOCH + Duration::from_millis(l.epoch_unix_millis() - 1);
    assert!(matches!(
        l.first_id_at(before),
        Err(LayoutError::TimeBeforeEpoch { .. })
    ));
    assert!(matches!(
        l.first_id_at(l.expiry()),
        Err(LayoutError::TimeAfterExpiry { .. })
    ));
    let last_moment = l.expiry() - Duration::from_millis(1);
    assert_eq!(
        l.last_id_at(last_moment).unwrap(),
        Id::from_u64((1 << 63) - 1)
    );
}

#[test]
fn presets_are_found_by_name_and_expire_when_documented() {
    let expected = [
        ("twitter", 3_487_858_230_209_u64),
        ("sonyflake", 1_409_529_600_000 + (1 << 39) * 10),
        ("discord", 1_420_070_400_000 + (1 << 42)),
        ("instagram", 1_314_220_021_721 + (1 << 41)),
        ("js53", 1_735_689_600_000 + (1 << 40)),
    ];
    for (name, expiry) in expected {
        let l = Layout::preset(name).unwrap();
        assert_eq!(l.expiry_unix_millis(), expiry, "{name}");
        assert_eq!(l.expiry(), UNIX_EPOCH + Duration::from_millis(expiry));
        assert!(
            l.expiry() > SystemTime::now() + Duration::from_secs(30 * 365 * 86_400),
            "{name} lasts 30 more years"
        );
    }
    assert!(
        Layout::JS53
            .compose(Layout::JS53.max_ticks(), 15, 511)
            .unwrap()
            .to_u64()
            < 1 << 53
    );
}
