//! Where a generator's node number comes from: [`NodeSource`] and its providers.
//!
//! A snowflake generator is only as unique as its node number: two processes minting with
//! the same node in the same tick produce the same IDs. Each provider here reads the number
//! from one place and checks it against the layout before any generator is built:
//!
//! | provider | reads | unique when |
//! | --- | --- | --- |
//! | [`Fixed`] | a value in code or configuration | the configuration gives each process its own |
//! | [`EnvVar`] | an environment variable in canonical decimal (no sign, no leading zero, no spaces) | the deployment sets it per process |
//! | `PrivateIpv4` (feature `ip`) | low bits of the first private IPv4 address, as Sonyflake picks it (opt-in: Sonyflake v2's 16 bits, refused when they do not fit; else of the first `fc00::/7` IPv6 one) | the addresses differ in those bits (not guaranteed; see its docs) |
//! | [`StatefulSetOrdinal`] | `name-N` hostname of a Kubernetes StatefulSet pod | one StatefulSet (or disjoint offsets) per node range |
//!
//! For a guarantee that holds whatever the network or the scheduler does, lease the node
//! from a coordination service instead (the `snowmint-lease` crate: Redis, etcd).
//!
//! ```
//! use snowmint::node::{self, NodeSource};
//! use snowmint::{Generator, Layout};
//!
//! let layout = Layout::TWITTER;
//! let n = node::StatefulSetOrdinal::from_hostname("ids-3").node(&layout)?;
//! let gen = Generator::new(layout, n)?;
//! assert_eq!(gen.node(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod env;
mod error;
mod hostname;
#[cfg(feature = "ip")]
mod ip;

pub use self::env::EnvVar;
pub use self::error::NodeError;
pub use self::hostname::StatefulSetOrdinal;
#[cfg(feature = "ip")]
pub use self::ip::PrivateIpv4;

use crate::layout::Layout;

/// A source of node numbers, each with a check hook.
///
/// [`read`](Self::read) fetches the raw number; [`check`](Self::check) is the hook every
/// number passes before use (by default: within the layout's node range);
/// [`node`](Self::node) does both. [`with_check`](Self::with_check) adds a rule of your own
/// on top of any source.
///
/// ```
/// use snowmint::node::{self, NodeError, NodeSource};
/// use snowmint::Layout;
///
/// // Node 0 is reserved for batch jobs in this fleet.
/// let source = node::Fixed(0).with_check(|n, _layout| {
///     if n == 0 { Err("node 0 is reserved for batch jobs".to_string()) } else { Ok(()) }
/// });
/// let err = source.node(&Layout::TWITTER).unwrap_err();
/// assert!(matches!(err, NodeError::Rejected { node: 0, .. }));
/// assert_eq!(
///     err.to_string(),
///     "node 0 from the fixed value 0 was rejected by the check hook: node 0 is reserved for batch jobs"
/// );
/// ```
pub trait NodeSource {
    /// The raw node number, before [`check`](Self::check). Providers that derive the number
    /// from wider data (an address) use the layout's node bits.
    ///
    /// ```
    /// use snowmint::node::{self, NodeSource};
    /// assert_eq!(node::Fixed(5_000).read(&snowmint::Layout::TWITTER)?, 5_000);
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    fn read(&self, layout: &Layout) -> Result<u64, NodeError>;

    /// Where the number comes from, for error messages.
    ///
    /// ```
    /// use snowmint::node::{self, NodeSource};
    /// assert_eq!(node::EnvVar::new("SNOWMINT_NODE").describe(), "environment variable SNOWMINT_NODE");
    /// ```
    fn describe(&self) -> String;

    /// The check hook: `node` as read is accepted (returned) or refused. The default accepts
    /// every number within the layout's node range, 0 to [`Layout::max_node`].
    ///
    /// ```
    /// use snowmint::node::{self, NodeError, NodeSource};
    /// use snowmint::Layout;
    /// let err = node::Fixed(1_024).node(&Layout::TWITTER).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "node 1024 from the fixed value 1024 is out of range: allowed 0 to 1023 (the layout's 10 node bits)"
    /// );
    /// ```
    fn check(&self, node: u64, layout: &Layout) -> Result<u64, NodeError> {
        in_range(node, layout, || self.describe())
    }

    /// The node number, read and checked.
    ///
    /// ```
    /// use snowmint::node::{self, NodeSource};
    /// assert_eq!(node::Fixed(7).node(&snowmint::Layout::SONYFLAKE)?, 7);
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    fn node(&self, layout: &Layout) -> Result<u64, NodeError> {
        let n = self.read(layout)?;
        self.check(n, layout)
    }

    /// This source with one more rule: after the default check, `hook` sees the number and
    /// the layout and may refuse it with a reason.
    ///
    /// ```
    /// use snowmint::node::{self, NodeSource};
    /// use snowmint::Layout;
    /// // Only the lower half of the node range belongs to this region.
    /// let source = node::Fixed(600).with_check(|n, l| {
    ///     if n <= l.max_node() / 2 { Ok(()) } else { Err(format!("region A owns 0 to {}", l.max_node() / 2)) }
    /// });
    /// assert!(source.node(&Layout::TWITTER).is_err());
    /// ```
    fn with_check<F>(self, hook: F) -> Checked<Self, F>
    where
        Self: Sized,
        F: Fn(u64, &Layout) -> Result<(), String>,
    {
        Checked { source: self, hook }
    }
}

impl<S: NodeSource + ?Sized> NodeSource for &S {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        (**self).read(layout)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn check(&self, node: u64, layout: &Layout) -> Result<u64, NodeError> {
        (**self).check(node, layout)
    }
}

impl<S: NodeSource + ?Sized> NodeSource for Box<S> {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        (**self).read(layout)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn check(&self, node: u64, layout: &Layout) -> Result<u64, NodeError> {
        (**self).check(node, layout)
    }
}

/// The default check: `node` within the layout's node range.
fn in_range(
    node: u64,
    layout: &Layout,
    describe: impl FnOnce() -> String,
) -> Result<u64, NodeError> {
    if node > layout.max_node() {
        return Err(NodeError::OutOfRange {
            source: describe(),
            node,
            max: layout.max_node(),
            node_bits: layout.node_bits(),
        });
    }
    Ok(node)
}

/// A node number given explicitly: from configuration, a command-line flag, or code.
///
/// ```
/// use snowmint::node::{Fixed, NodeSource};
/// assert_eq!(Fixed(12).node(&snowmint::Layout::TWITTER)?, 12);
/// # Ok::<(), snowmint::node::NodeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fixed(pub u64);

impl NodeSource for Fixed {
    fn read(&self, _layout: &Layout) -> Result<u64, NodeError> {
        Ok(self.0)
    }
    fn describe(&self) -> String {
        format!("the fixed value {}", self.0)
    }
}

/// A source with an extra check hook, made by [`NodeSource::with_check`].
///
/// ```
/// use snowmint::node::{self, NodeSource};
/// let odd_only = node::Fixed(3).with_check(|n, _| if n % 2 == 1 { Ok(()) } else { Err("even".into()) });
/// assert_eq!(odd_only.node(&snowmint::Layout::TWITTER)?, 3);
/// # Ok::<(), snowmint::node::NodeError>(())
/// ```
#[derive(Clone)]
pub struct Checked<S, F> {
    source: S,
    hook: F,
}

impl<S: NodeSource, F: Fn(u64, &Layout) -> Result<(), String>> NodeSource for Checked<S, F> {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        self.source.read(layout)
    }
    fn describe(&self) -> String {
        self.source.describe()
    }
    fn check(&self, node: u64, layout: &Layout) -> Result<u64, NodeError> {
        let node = self.source.check(node, layout)?;
        (self.hook)(node, layout).map_err(|reason| NodeError::Rejected {
            source: self.source.describe(),
            node,
            reason,
        })?;
        Ok(node)
    }
}

impl<S: core::fmt::Debug, F> core::fmt::Debug for Checked<S, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Checked")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}
