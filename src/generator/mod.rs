//! [`Generator`]: one node's IDs from one atomic word, shared by any number of threads.
//!
//! | file | holds |
//! |---|---|
//! | `generator.rs` | [`Generator`]: the lock-free minting state and its calls |
//! | `builder.rs` | [`GeneratorBuilder`]: its settings, checked at `build` |

mod builder;
// Named for the type it holds, as every room here is.
#[allow(clippy::module_inception)]
mod generator;
#[cfg(test)]
mod tests;

pub use self::builder::GeneratorBuilder;
pub use self::generator::Generator;
