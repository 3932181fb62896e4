//! The examples of snowmint, a package of their own so that `cargo run --example quickstart`
//! builds the library alone, not the test suite's dev-dependencies. Each example is a file
//! beside this one; this library is empty.
