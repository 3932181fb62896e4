//! [`CliError`]: what went wrong, as one line for a person and an exit status for a script.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// Which exit status an error earns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad input: arguments, IDs, layouts, times, out-of-range values. Exit status 2, as
    /// clap uses for usage errors.
    Input,
    /// The system failed: I/O, the clock, finding a node number. Exit status 1.
    System,
    /// The reader of standard output went away (`snowmint gen | head`): not a failure, so
    /// exit status 0 and no message, as `seq` and `yes` do.
    ClosedPipe,
}

/// An error of a subcommand, reported by `main` as `error: <message>` on standard error.
#[derive(Debug)]
pub struct CliError {
    kind: Kind,
    message: String,
}

impl CliError {
    /// Bad input (exit status 2).
    pub fn input(message: impl fmt::Display) -> CliError {
        CliError {
            kind: Kind::Input,
            message: message.to_string(),
        }
    }

    /// A failure of the system (exit status 1).
    pub fn system(message: impl fmt::Display) -> CliError {
        CliError {
            kind: Kind::System,
            message: message.to_string(),
        }
    }

    /// Bad input whose messages were already printed (exit status 2, nothing more said).
    pub fn reported() -> CliError {
        CliError {
            kind: Kind::Input,
            message: String::new(),
        }
    }

    /// Which exit status the error earns.
    #[cfg(test)]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The message, without `error: `.
    #[cfg(test)]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Prints the message (never panicking, even when standard error is closed) and gives the
    /// exit status.
    pub fn report(self) -> ExitCode {
        match self.kind {
            Kind::ClosedPipe => ExitCode::SUCCESS,
            Kind::Input | Kind::System => {
                if !self.message.is_empty() {
                    // `eprintln!` would panic if standard error is gone; nobody to tell then.
                    let _ = writeln!(io::stderr().lock(), "error: {}", self.message);
                }
                ExitCode::from(if self.kind == Kind::Input { 2 } else { 1 })
            }
        }
    }
}

impl From<io::Error> for CliError {
    fn from(err: io::Error) -> CliError {
        if err.kind() == io::ErrorKind::BrokenPipe {
            CliError {
                kind: Kind::ClosedPipe,
                message: String::new(),
            }
        } else {
            CliError::system(format_args!("I/O error: {err}"))
        }
    }
}

/// The error and its source, as one line (the source once: an error whose message already
/// ends with it is left as it is).
pub fn with_cause(e: &dyn std::error::Error) -> String {
    let text = e.to_string();
    match e.source().map(|c| c.to_string()) {
        Some(cause) if !text.ends_with(&cause) => format!("{text}: {cause}"),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_quiet_and_other_io_errors_are_system_errors() {
        let quiet = CliError::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert_eq!(quiet.kind, Kind::ClosedPipe);
        let loud = CliError::from(io::Error::from(io::ErrorKind::PermissionDenied));
        assert_eq!(loud.kind, Kind::System);
        assert!(loud.message.starts_with("I/O error: "), "{}", loud.message);
    }
}
