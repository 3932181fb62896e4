//! [`StatefulSetOrdinal`]: the node number from a Kubernetes StatefulSet pod's hostname.

use super::env::parse_number;
use super::{NodeError, NodeSource};
use crate::layout::Layout;

/// The ordinal of a Kubernetes StatefulSet pod, from its hostname: pod `ids-3` is node 3
/// (plus an optional [`offset`](Self::offset)). Only the first label counts
/// (`ids-3.ids.default.svc.cluster.local` is `ids-3`).
///
/// The hostname is read from `/proc/sys/kernel/hostname`, then the `HOSTNAME` variable,
/// then `/etc/hostname`: in a pod all three hold the pod's name.
///
/// # What it guarantees, and what not
/// A StatefulSet never runs two pods with one ordinal at the same time *as far as its
/// controller knows*; so one StatefulSet per node range gives unique numbers, and several
/// StatefulSets can share a layout with disjoint offsets. It does **not** cover: a node that
/// is partitioned away while its pod is replaced (force deletion lets two pods with one name
/// run at once), several StatefulSets with overlapping ranges, or pods of a Deployment,
/// whose random suffix may be all digits (its alphabet contains 2 and 4 to 9). Ordinals must
/// fit the node bits: a StatefulSet scaled beyond them fails here, clearly.
///
/// ```
/// use snowmint::node::{NodeError, NodeSource, StatefulSetOrdinal};
/// use snowmint::Layout;
///
/// let l = Layout::TWITTER;
/// assert_eq!(StatefulSetOrdinal::from_hostname("ids-3").node(&l)?, 3);
/// assert_eq!(StatefulSetOrdinal::from_hostname("ids-3.ids.prod.svc").offset(512).node(&l)?, 515);
/// assert!(matches!(
///     StatefulSetOrdinal::from_hostname("ids").node(&l),
///     Err(NodeError::NoOrdinal { .. })
/// ));
/// # Ok::<(), NodeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct StatefulSetOrdinal {
    hostname: Option<String>,
    offset: u64,
}

impl StatefulSetOrdinal {
    /// Reads this host's name.
    ///
    /// ```no_run
    /// use snowmint::node::{NodeSource, StatefulSetOrdinal};
    /// let n = StatefulSetOrdinal::new().node(&snowmint::Layout::TWITTER)?;
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn new() -> StatefulSetOrdinal {
        StatefulSetOrdinal::default()
    }

    /// Parses `hostname` instead of this host's name.
    ///
    /// ```
    /// use snowmint::node::{NodeSource, StatefulSetOrdinal};
    /// assert_eq!(StatefulSetOrdinal::from_hostname("web-0").node(&snowmint::Layout::TWITTER)?, 0);
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn from_hostname(hostname: &str) -> StatefulSetOrdinal {
        StatefulSetOrdinal {
            hostname: Some(hostname.to_string()),
            offset: 0,
        }
    }

    /// Adds `offset` to the ordinal, so that several StatefulSets share one layout's node
    /// range without overlap (say `api` from 0, `worker` from 512).
    ///
    /// ```
    /// use snowmint::node::{NodeError, NodeSource, StatefulSetOrdinal};
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(StatefulSetOrdinal::from_hostname("worker-2").offset(512).node(&l)?, 514);
    /// // 1000 + 30 is past Twitter's 1023.
    /// assert!(matches!(
    ///     StatefulSetOrdinal::from_hostname("worker-30").offset(1000).node(&l),
    ///     Err(NodeError::OutOfRange { node: 1030, max: 1023, .. })
    /// ));
    /// # Ok::<(), NodeError>(())
    /// ```
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    fn hostname(&self) -> Result<String, NodeError> {
        match &self.hostname {
            Some(h) => Ok(h.clone()),
            None => system_hostname().ok_or_else(|| NodeError::Hostname {
                reason: "none of /proc/sys/kernel/hostname, $HOSTNAME, /etc/hostname holds a name"
                    .to_string(),
            }),
        }
    }
}

impl NodeSource for StatefulSetOrdinal {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        let full = self.hostname()?;
        let label = full.split('.').next().unwrap_or("");
        let ordinal = label
            .rsplit_once('-')
            .filter(|(name, _)| !name.is_empty())
            .and_then(|(_, n)| parse_number(n))
            .ok_or_else(|| NodeError::NoOrdinal {
                hostname: label.to_string(),
                max: layout.max_node().saturating_sub(self.offset),
            })?;
        // Saturating: a sum past u64::MAX is out of every layout's range, and says so.
        Ok(ordinal.saturating_add(self.offset))
    }

    fn describe(&self) -> String {
        let host = self
            .hostname()
            .map(|h| format!("hostname {h:?}"))
            .unwrap_or_else(|_| "the hostname".to_string());
        if self.offset == 0 {
            format!("the StatefulSet ordinal of {host}")
        } else {
            format!(
                "the StatefulSet ordinal of {host} plus offset {}",
                self.offset
            )
        }
    }
}

/// This host's name: the kernel's, `$HOSTNAME`, or `/etc/hostname`, whichever is first set.
pub(crate) fn system_hostname() -> Option<String> {
    let from_file = |p: &str| std::fs::read_to_string(p).ok();
    [
        from_file("/proc/sys/kernel/hostname"),
        std::env::var("HOSTNAME").ok(),
        from_file("/etc/hostname"),
    ]
    .into_iter()
    .flatten()
    .map(|h| h.trim().to_string())
    .find(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::StatefulSetOrdinal;
    use crate::layout::Layout;
    use crate::node::{NodeError, NodeSource};

    fn ordinal(h: &str) -> Result<u64, NodeError> {
        StatefulSetOrdinal::from_hostname(h).node(&Layout::TWITTER)
    }

    #[test]
    fn ordinals_parse_from_the_last_dash_of_the_first_label() {
        assert_eq!(ordinal("web-0"), Ok(0));
        assert_eq!(ordinal("my-app-db-17"), Ok(17));
        assert_eq!(ordinal("web-3.web.ns.svc.cluster.local"), Ok(3));
        assert_eq!(ordinal("web-1023"), Ok(1023));
        assert!(matches!(
            ordinal("web-1024"),
            Err(NodeError::OutOfRange { node: 1024, .. })
        ));
        for bad in [
            "web",
            "web-",
            "-3",
            "web-3a",
            "web-+3",
            // StatefulSet ordinals have no leading zeros: one spelling per number.
            "web-03",
            "web--3x",
            "",
            "web-3-x",
            "web.3-x",
            // Too large for a u64: not an ordinal at all (the CLI's old rule, kept).
            "web-99999999999999999999999",
        ] {
            assert!(
                matches!(ordinal(bad), Err(NodeError::NoOrdinal { .. })),
                "{bad:?} gave {:?}",
                ordinal(bad)
            );
        }
    }

    #[test]
    fn an_offset_past_u64_is_out_of_range_not_wrapped() {
        let r = StatefulSetOrdinal::from_hostname("web-2")
            .offset(u64::MAX)
            .node(&Layout::TWITTER);
        assert!(matches!(
            r,
            Err(NodeError::OutOfRange { node: u64::MAX, .. })
        ));
    }
}
