//! Layouts: which bits of an ID hold the time, the node and the sequence, how times become
//! ticks, and the presets. A [`Layout`] is a small `Copy` value; everything here is plain
//! arithmetic on it, with no clock and no state.
//!
//! | file | holds |
//! |---|---|
//! | `shape.rs` | [`Layout`], [`Order`] and [`TimeGrid`]: field widths, order, unit, epoch, grid; what they allow |
//! | `builder.rs` | [`LayoutBuilder`]: every rule a layout keeps, in `const fn`s |
//! | `presets.rs` | Twitter, Sonyflake v1 and v2, Discord, Instagram, Mastodon, JS53 |
//! | `ticks.rs` | times to ticks and back on the layout's grid, and the expiry |
//! | `compose.rs` | an ID from its fields and back (`compose`, `decode`), the packing the core builds on |
//! | `divisor.rs` | division by the unit without a `div` instruction |
//! | `error.rs` | [`LayoutError`] and the [`Field`] it names |
//!
//! Public as `snowmint::layout`: what a layout of one's own is built from ([`LayoutBuilder`],
//! [`Field`], [`Order`], [`TimeGrid`]). [`Layout`] and
//! [`LayoutError`], which every user of a generator meets, are exported at
//! the crate's root.
//!
//! ```
//! use snowmint::layout::{Field, Order};
//! use snowmint::{Layout, LayoutError};
//!
//! assert_eq!(Layout::SONYFLAKE.order(), Order::TimeSequenceNode);
//! let err = Layout::builder().node_bits(70).build().unwrap_err();
//! assert!(matches!(err, LayoutError::FieldTooWide { field: Field::Node, .. }));
//! ```

mod builder;
mod compose;
mod divisor;
// `LayoutError`'s and `Layout`'s files, reached from the crate's root.
pub(crate) mod error;
mod presets;
pub(crate) mod shape;
mod ticks;

pub use self::builder::LayoutBuilder;
pub use self::error::Field;
pub(crate) use self::error::LayoutError;
pub(crate) use self::shape::Layout;
pub use self::shape::{Order, TimeGrid};
