//! `snowmint`: mint, decode, encode and compose time-ordered 64-bit IDs (and mint and decode
//! 128-bit UUIDv7 and ULID) from the command line.
//!
//! A crate of its own (`snowmint-cli`, in `cli/`), so that the library's users never build
//! clap, humantime or the ID service's axum and tokio; `cargo install --path cli` installs it.
//!
//! Each subcommand is a module with its `Args` and a `run`; `main` only parses, runs and
//! turns an error into a message and an exit status (see [`error::CliError`]).
#![forbid(unsafe_code)]

mod batch;
mod compose;
mod decode;
mod encode;
mod error;
mod escape;
mod format;
mod gen;
mod grpc;
mod id128;
mod json_number;
mod layout_arg;
mod layouts;
mod lease;
mod lifetime;
mod node_arg;
mod read;
mod serve;
mod store_args;
mod store_url;
mod store_words;
mod time;
mod tls;
mod value;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

const AFTER_HELP: &str = "\
Exit status: 0 on success (also when the reader of the output went away, as with `| head`);
1 when the system failed (I/O, the clock, finding a node number from the machine);
2 for bad input (arguments, IDs, layouts, times, values out of range).";

/// Mint, decode, re-encode and compose time-ordered 64-bit IDs (Twitter Snowflake, Sonyflake and
/// relatives).
#[derive(Debug, Parser)]
#[command(name = "snowmint", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Gen(gen::Args),
    Decode(decode::Args),
    Encode(encode::Args),
    Compose(compose::Args),
    Layouts(layouts::Args),
    Serve(Box<serve::Args>),
    Lease(lease::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Gen(args) => gen::run(args),
        Command::Decode(args) => decode::run(args),
        Command::Encode(args) => encode::run(args),
        Command::Compose(args) => compose::run(args),
        Command::Layouts(args) => layouts::run(args),
        Command::Serve(args) => serve::run(*args),
        Command::Lease(args) => lease::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => err.report(),
    }
}
