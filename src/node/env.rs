//! [`EnvVar`]: the node number from an environment variable.

use super::{NodeError, NodeSource};
use crate::encoding::Encoding;
use crate::id::Id;
use crate::layout::Layout;

/// The node number held by an environment variable, written in canonical decimal:
/// plain decimal digits, nothing else (no sign, no spaces, no leading zeros, no hex).
///
/// Guarantees uniqueness only as far as the deployment sets a different value in every
/// process: a copied manifest or a scaled-up Deployment repeats it. In Kubernetes, the
/// downward API can set it from the pod-index label of a StatefulSet pod
/// (`metadata.labels['apps.kubernetes.io/pod-index']`).
///
/// ```
/// use snowmint::node::{EnvVar, NodeError, NodeSource};
/// use snowmint::Layout;
///
/// std::env::set_var("SNOWMINT_DOC_ENV_NODE", "42");
/// assert_eq!(EnvVar::new("SNOWMINT_DOC_ENV_NODE").node(&Layout::TWITTER)?, 42);
/// std::env::set_var("SNOWMINT_DOC_ENV_NODE", " 42");
/// let err = EnvVar::new("SNOWMINT_DOC_ENV_NODE").node(&Layout::TWITTER).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "environment variable SNOWMINT_DOC_ENV_NODE is \" 42\", not a node number: it must be \
///      plain decimal digits (no sign, spaces or leading zeros) from 0 to 1023"
/// );
/// # Ok::<(), NodeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnvVar {
    name: String,
}

impl EnvVar {
    /// The variable `name`.
    ///
    /// ```
    /// use snowmint::node::{EnvVar, NodeSource};
    /// assert_eq!(EnvVar::new("NODE_ID").describe(), "environment variable NODE_ID");
    /// ```
    pub fn new(name: &str) -> EnvVar {
        EnvVar {
            name: name.to_string(),
        }
    }

    /// The variable's name.
    ///
    /// ```
    /// assert_eq!(snowmint::node::EnvVar::new("NODE_ID").name(), "NODE_ID");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl NodeSource for EnvVar {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        let max = layout.max_node();
        let Some(raw) = std::env::var_os(&self.name) else {
            return Err(NodeError::EnvMissing {
                name: self.name.clone(),
                max,
            });
        };
        let text = raw.to_string_lossy();
        parse_number(&text).ok_or_else(|| NodeError::EnvInvalid {
            name: self.name.clone(),
            value: text.into_owned(),
            max,
        })
    }

    fn describe(&self) -> String {
        format!("environment variable {}", self.name)
    }
}

/// The one rule for a node number written as text, wherever one is read (an environment
/// variable, a StatefulSet ordinal, the command line's `--node`): plain ASCII decimal
/// digits, without sign, spaces or leading zeros (`0` itself is fine), at most `u64::MAX`.
/// The same canonical decimal that [`Id`](crate::id::Id)'s `FromStr` reads, so a number has
/// one spelling.
pub(crate) fn parse_number(text: &str) -> Option<u64> {
    Id::parse(text, Encoding::Decimal).ok().map(Id::to_u64)
}

#[cfg(test)]
mod tests {
    use super::parse_number;

    #[test]
    fn only_canonical_decimal_digits_parse() {
        assert_eq!(parse_number("0"), Some(0));
        assert_eq!(parse_number("7"), Some(7));
        assert_eq!(parse_number("18446744073709551615"), Some(u64::MAX));
        for bad in [
            "",
            "+1",
            "-1",
            " 7",
            "7 ",
            "\t7",
            "7\n",
            "07",
            "00",
            "1.0",
            "0x10",
            "1 2",
            "18446744073709551616",
            "١",
        ] {
            assert_eq!(parse_number(bad), None, "{bad:?}");
        }
    }
}
