//! The preset layouts (Twitter, Sonyflake v1 and v2, Discord, Instagram, Mastodon, JS53),
//! each checked when it compiles, [`Layout::PRESETS`] by name, and bwmarrin/snowflake's
//! layout for any `NodeBits` and `StepBits` ([`Layout::bwmarrin`]).

use core::time::Duration;

use super::error::{LayoutError, BWMARRIN_NODE_STEP_BITS};
use super::shape::{Layout, Order, TimeGrid};

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
    /// assert_eq!(mine.time_grid(), snowmint::layout::TimeGrid::Unix);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const SONYFLAKE_V2: Layout = Layout::SONYFLAKE
        .to_builder()
        .epoch_unix_millis(1_735_689_600_000)
        .build_const();

    /// bwmarrin/snowflake's layout for its `NodeBits` `node_bits` and `StepBits`
    /// `step_bits`: time in the top `63 − node_bits − step_bits` bits, as its
    /// `timeShift = NodeBits + StepBits` leaves it, then the node, then the step (sequence);
    /// 1 ms from its default `Epoch`, 1288834974657 ms (2010-11-04T01:42:54.657Z); 63 bits.
    /// Its defaults, 10 and 12, give [`TWITTER`](Self::TWITTER). Set its `Epoch` with
    /// `.to_builder().epoch_unix_millis(epoch).build()`.
    ///
    /// # Errors
    /// [`LayoutError::NodeStepTooWide`] when `node_bits + step_bits` exceeds 22, which
    /// bwmarrin's `NewNode` refuses ("you have a total 22 bits to share between Node/Step").
    ///
    /// ```
    /// use snowmint::{Id, Layout, LayoutError};
    /// // NodeBits = 8, StepBits = 8: 47 time bits, where a 41-bit layout would cut the time.
    /// let layout = Layout::bwmarrin(8, 8)?;
    /// assert_eq!((layout.time_bits(), layout.node_bits(), layout.sequence_bits()), (47, 8, 8));
    /// // Go: (int64(id) >> timeShift) + Epoch.
    /// let d = layout.decode(Id::from_u64(144_115_188_075_855_872));
    /// assert_eq!(d.unix_millis(), (144_115_188_075_855_872 >> 16) + 1_288_834_974_657);
    /// assert_eq!(Layout::bwmarrin(10, 12)?, Layout::TWITTER);
    /// assert_eq!(Layout::bwmarrin(12, 11), Err(LayoutError::NodeStepTooWide { node_bits: 12, step_bits: 11 }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub const fn bwmarrin(node_bits: u8, step_bits: u8) -> Result<Layout, LayoutError> {
        let total = node_bits as u32 + step_bits as u32;
        if total > BWMARRIN_NODE_STEP_BITS as u32 {
            return Err(LayoutError::NodeStepTooWide {
                node_bits,
                step_bits,
            });
        }
        Layout::TWITTER
            .to_builder()
            .time_bits(63 - total as u8)
            .node_bits(node_bits)
            .sequence_bits(step_bits)
            .validate()
    }

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
}
