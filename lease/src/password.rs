//! [`Password`]: a store's password, kept out of every `Debug` and log line.

/// A password for the lease's store (etcd's user, Redis's ACL user): its `Debug` prints
/// `Password(<redacted>)`, and it has no `Display`, so it reaches no log line, status page or
/// error message by accident. Read it from the environment or a file, never a command line.
///
/// ```
/// use snowmint_lease::Password;
///
/// let password = Password::new("s3cret");
/// assert_eq!(format!("{password:?}"), "Password(<redacted>)");
/// assert_eq!(password.expose(), "s3cret");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Wraps `text`: the password as given (a trailing line break of a file should be
    /// trimmed by the caller).
    ///
    /// ```
    /// let password = snowmint_lease::Password::new(String::from("hunter2"));
    /// assert_eq!(password.expose(), "hunter2");
    /// ```
    pub fn new(text: impl Into<String>) -> Password {
        Password(text.into())
    }

    /// The password itself, for the one request that sends it.
    ///
    /// ```
    /// assert_eq!(snowmint_lease::Password::new("pw").expose(), "pw");
    /// ```
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl core::fmt::Debug for Password {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}
