//! [`NodeSource`], the trait every provider implements, with [`Fixed`] (a number given) and
//! [`Checked`] (a provider with a check of the caller's).

use super::error::NodeError;
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
    /// # Errors
    /// [`NodeError`] if the number cannot be read (a variable unset or not decimal, a hostname
    /// without an ordinal, no private address).
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
    /// # Errors
    /// [`NodeError::OutOfRange`] if `node` is past the layout's node range (a provider may add
    /// rules of its own).
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
    /// # Errors
    /// What [`read`](Self::read) or [`check`](Self::check) returned.
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
