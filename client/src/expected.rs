//! [`Expected`]: the layout (and, optionally, the node) the caller's IDs must have, checked
//! against what each answer of the service declares in its `X-Snowmint-Layout` and
//! `X-Snowmint-Node` headers.

use std::fmt;

/// What the IDs must be: the service's layout as its spec (the `spec` that `snowmint layouts
/// --json` prints for the service's `--layout`, every key spelled out; the keys' order does
/// not matter), and optionally its node.
///
/// ```
/// use snowmint_client::Expected;
/// let twitter = "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
/// let expected = Expected::layout(twitter).node(5);
/// assert_eq!(expected.get_node(), Some(5));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    spec: String,
    /// The spec's `key=value` pairs, trimmed and sorted: what is compared.
    pairs: Vec<String>,
    node: Option<u64>,
}

impl Expected {
    /// IDs of the layout whose spec is `spec`, from any node.
    ///
    /// ```
    /// use snowmint_client::Expected;
    /// let a = Expected::layout("time=41,node=10");
    /// assert!(a.matches_layout("node=10, time=41"), "the order of the keys does not matter");
    /// assert!(!a.matches_layout("time=41,node=11"));
    /// ```
    pub fn layout(spec: impl Into<String>) -> Expected {
        let spec = spec.into();
        Expected {
            pairs: pairs(&spec),
            spec,
            node: None,
        }
    }

    /// IDs from `node` only.
    ///
    /// ```
    /// use snowmint_client::Expected;
    /// assert_eq!(Expected::layout("time=41").node(7).get_node(), Some(7));
    /// ```
    #[must_use]
    pub fn node(mut self, node: u64) -> Expected {
        self.node = Some(node);
        self
    }

    /// The node required, if any.
    ///
    /// ```
    /// use snowmint_client::Expected;
    /// assert_eq!(Expected::layout("time=41").get_node(), None);
    /// ```
    pub fn get_node(&self) -> Option<u64> {
        self.node
    }

    /// The layout's spec as given.
    ///
    /// ```
    /// use snowmint_client::Expected;
    /// assert_eq!(Expected::layout("time=41").spec(), "time=41");
    /// ```
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Whether a declared spec names the expected layout.
    ///
    /// ```
    /// use snowmint_client::Expected;
    /// assert!(Expected::layout("time=41,seq=12").matches_layout("seq=12,time=41"));
    /// ```
    pub fn matches_layout(&self, declared: &str) -> bool {
        pairs(declared) == self.pairs
    }
}

fn pairs(spec: &str) -> Vec<String> {
    let mut pairs: Vec<String> = spec
        .split(',')
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    pairs.sort();
    pairs
}

/// A service whose answer declared another layout or node than the one expected: its IDs
/// are refused, none of them handed out.
///
/// ```
/// use snowmint_client::{Mismatch, Declared};
/// let m = Mismatch {
///     url: "http://127.0.0.1:8080".into(),
///     field: Declared::Node,
///     expected: "5".into(),
///     declared: "6".into(),
/// };
/// assert!(m.to_string().contains("node 6"), "{m}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The service.
    pub url: String,
    /// What differed.
    pub field: Declared,
    /// What the caller expected.
    pub expected: String,
    /// What the service declared (`(none)` when it declared nothing).
    pub declared: String,
}

/// What a service declares about its IDs.
///
/// ```
/// use snowmint_client::Declared;
/// assert_eq!(Declared::Layout.header(), "X-Snowmint-Layout");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// The layout, in `X-Snowmint-Layout`.
    Layout,
    /// The node, in `X-Snowmint-Node`.
    Node,
}

impl Declared {
    /// The header that declares it.
    ///
    /// ```
    /// use snowmint_client::Declared;
    /// assert_eq!(Declared::Node.header(), "X-Snowmint-Node");
    /// ```
    pub fn header(self) -> &'static str {
        match self {
            Declared::Layout => "X-Snowmint-Layout",
            Declared::Node => "X-Snowmint-Node",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Declared::Layout => "layout",
            Declared::Node => "node",
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.field.name();
        write!(
            f,
            "{} declared {what} {} ({}), expected {what} {}: its IDs are refused",
            self.url,
            self.declared,
            self.field.header(),
            self.expected
        )
    }
}
