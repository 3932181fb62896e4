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
mod node_source;

pub use self::env::EnvVar;
pub use self::error::NodeError;
pub use self::hostname::StatefulSetOrdinal;
#[cfg(feature = "ip")]
pub use self::ip::PrivateIpv4;
pub use self::node_source::{Checked, Fixed, NodeSource};
