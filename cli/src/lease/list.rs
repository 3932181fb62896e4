//! `snowmint lease list`: the namespace's record and each node, as text or JSON.

use std::io::{self, Write};
use std::time::Duration;

use snowmint_lease::{NamespaceState, NodeState, RecordState};

use super::record_layout;
use super::site::{store_error, Store};
use crate::error::CliError;
use crate::layout_arg::spec;
use crate::time::display_millis;

/// Show each node of the namespace (holder, fencing token, time left, mark) and its record
/// (its layout in the form --layout takes)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: Store,

    /// One JSON object: {"namespace", "backend", "record": {...} or null, "nodes": [...]},
    /// times as RFC 3339 and Unix milliseconds
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let site = args.store.site()?;
    let state = site
        .list()
        .map_err(|e| store_error("list", &args.store, &e))?;
    let ns = &args.store.store.namespace;
    let text = if args.json {
        to_json(ns, site.backend(), &state) + "\n"
    } else {
        to_text(ns, site.backend(), &state)
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

/// `2026-12-04T19:00:00.000Z (1796410800000)`.
fn both(ms: u64) -> String {
    format!("{} ({ms})", display_millis(ms))
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn to_text(namespace: &str, backend: &str, state: &NamespaceState) -> String {
    let mut out = format!("namespace {namespace:?} on {backend}\n");
    out += &match &state.record {
        None => "record: none (no claim made one yet, or the store lost it: the next claim \
                 waits the forgetting rule)\n"
            .to_owned(),
        Some(r) => record_line(r),
    };
    if state.nodes.is_empty() {
        out += "nodes: none held, none marked\n";
    }
    for n in &state.nodes {
        out += &node_line(n);
    }
    out
}

fn record_line(r: &RecordState) -> String {
    let stamped = match (&r.stamped_by, r.settled) {
        (Some(by), _) => format!("settled on {by}"),
        (None, true) => "settled".to_owned(),
        (None, false) => "not settled (the next claim waits the forgetting rule)".to_owned(),
    };
    let floor = r.floor_unix_millis.map_or_else(|| "none".to_owned(), both);
    format!(
        "record: incarnation {}, TTL {}, layout {}, {stamped}, floor {floor}\n",
        r.incarnation,
        humantime::format_duration(r.ttl),
        layout_text(&r.layout),
    )
}

/// The record's layout in the CLI's spec form (as `--layout` takes it) with its node range,
/// or the store's words when they do not read back.
fn layout_text(words: &str) -> String {
    match record_layout::parse(words) {
        Some((layout, max_node)) => format!("{} (nodes 0 to {max_node})", spec(&layout)),
        None => words.to_owned(),
    }
}

fn node_line(n: &NodeState) -> String {
    let held = match &n.holder {
        None => "free".to_owned(),
        Some(h) => {
            let mut s = format!("held by {h}");
            match n.token {
                Some(t) => s += &format!(", fencing token {t}"),
                None => s += ", no fencing token (the store keeps none)",
            }
            if let Some(left) = n.lease_left {
                s += &format!(", {} left", secs(left));
            }
            s
        }
    };
    let mark = match (n.mark_unix_millis, &n.mark_owner) {
        (Some(ms), Some(by)) if !by.is_empty() => format!("mark {} by {by}", both(ms)),
        (Some(ms), _) => format!("mark {}", both(ms)),
        (None, _) => "no mark".to_owned(),
    };
    format!("node {}: {held}; {mark}\n", n.node)
}

fn to_json(namespace: &str, backend: &str, state: &NamespaceState) -> String {
    let time = |ms: Option<u64>| ms.map(display_millis);
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let record = state.record.as_ref().map(|r| {
        serde_json::json!({
            "incarnation": r.incarnation,
            "ttl_ms": millis(r.ttl),
            "layout": r.layout,
            "layout_spec": record_layout::parse(&r.layout).map(|(l, _)| spec(&l)),
            "settled": r.settled,
            "stamped_by": r.stamped_by,
            "floor": time(r.floor_unix_millis),
            "floor_unix_millis": r.floor_unix_millis,
        })
    });
    let nodes: Vec<serde_json::Value> = state
        .nodes
        .iter()
        .map(|n| {
            serde_json::json!({
                "node": n.node,
                "holder": n.holder,
                "token": n.token,
                "lease_left_ms": n.lease_left.map(millis),
                "mark": time(n.mark_unix_millis),
                "mark_unix_millis": n.mark_unix_millis,
                "mark_owner": n.mark_owner,
            })
        })
        .collect();
    serde_json::json!({
        "namespace": namespace,
        "backend": backend,
        "record": record,
        "nodes": nodes,
    })
    .to_string()
}
