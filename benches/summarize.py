#!/usr/bin/env python3
"""Turns one `cargo bench -p snowmint-benches --bench mint` run into markdown tables
(the format of benches/README.md).

Reads criterion's estimates (target/criterion/<group>/<case>/new/estimates.json, or under
$CARGO_TARGET_DIR) and, if given, the bench's log for the cases it did not measure.

    python3 benches/summarize.py [--log bench.log] [--criterion DIR]

Per group: the median time per ID with criterion's 95% confidence interval of the median,
IDs per second, the speed-up over the std-Mutex baseline (`std-mutex-tsc`: the same clock as
snowmint, so only the lock differs) and over the fastest peer crate in the group (> 1: faster
than it), and for Twitter groups the share of the layout's cap (4,096,000 IDs/s per node).
Standard library only.
"""

import argparse
import json
import os
import re
import sys

GROUPS = [
    ("1t-uncapped", "one thread, uncapped layout (41/0/22)", 0),
    ("1t-twitter", "one thread, Twitter layout (41/10/12)", 1),
    ("2t-shared-uncapped", "two threads, one shared generator, uncapped", 0),
    ("2t-shared-twitter", "two threads, one shared generator, Twitter", 1),
    ("2t-own-uncapped-4node", "two threads, own generator each (nodes 0, 1), 41/2/20", 0),
    ("2t-own-twitter", "two threads, own generator each (nodes 0, 1), Twitter", 2),
]
CASES = [
    "snowmint-ticker",
    "snowmint-exact",
    "snowmint-sharded",
    "snowmint-lease",
    "std-mutex-tsc",
    "std-mutex-instant",
    "parking_lot-tsc",
    "parking_lot-instant",
    "ferroid-atomic",
    "ferroid-lock",
    "ferroid-basic",
    "snowflake_me",
    "snowdon",
    "snowflaked",
]
PEERS = {"ferroid-atomic", "ferroid-lock", "ferroid-basic", "snowflake_me", "snowdon", "snowflaked"}
BASELINE = "std-mutex-tsc"
TWITTER_CAP_PER_NODE = 4_096_000
# A sharded generator gives each thread a node of its own: its cap grows with the threads.
SHARDED = "snowmint-sharded"


def criterion_dir(arg):
    if arg:
        return arg
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(os.path.dirname(__file__), "..", "target"))
    return os.path.join(target, "criterion")


def load(root, group, case):
    path = os.path.join(root, group, case, "new", "estimates.json")
    try:
        with open(path) as f:
            med = json.load(f)["median"]
    except FileNotFoundError:
        return None
    ci = med["confidence_interval"]
    return med["point_estimate"], ci["lower_bound"], ci["upper_bound"]


def from_log(log, kind):
    """`group/case: <kind>: text` lines the bench printed, by (group, case)."""
    out = {}
    if not log:
        return out
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\S+)/(\S+): " + kind + r": (.*)$", line.strip())
            if m:
                out[(m.group(1), m.group(2))] = m.group(3)
    return out


def fmt_ns(ns):
    return f"{ns:.2f}" if ns < 100 else f"{ns:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log")
    ap.add_argument("--criterion")
    args = ap.parse_args()
    root = criterion_dir(args.criterion)
    skipped = from_log(args.log, "not measured")
    notes = from_log(args.log, "note")
    found = False
    for group, title, nodes in GROUPS:
        rows = {c: load(root, group, c) for c in CASES}
        if not any(rows.values()):
            continue
        found = True
        base = rows.get(BASELINE)
        peers = [(rows[c][0], c) for c in CASES if c in PEERS and rows[c]]
        best_peer = min(peers) if peers else None
        print(f"### `{group}`: {title}\n")
        header = "| case | ns/ID (median) | 95% CI | M IDs/s | vs std-mutex-tsc |"
        header += f" vs best peer ({best_peer[1]}) |" if best_peer else " vs best peer |"
        if nodes:
            header += " % of cap |"
        print(header)
        print("|" + " --- |" * (header.count("|") - 1))
        for c in CASES:
            r = rows[c]
            if r is None and c == "snowmint-lease" and group.startswith("2t-"):
                continue  # a lease is one thread's: the one-thread groups only
            if r is None:
                why = skipped.get((group, c), "not run")
                line = f"| {c} | n/a: {why} | | | |"
                print(line + (" |" if nodes else ""))
                continue
            ns, lo, hi = r
            name = c + (f" ({notes[(group, c)]})" if (group, c) in notes else "")
            line = f"| {name} | {fmt_ns(ns)} | {fmt_ns(lo)} – {fmt_ns(hi)} | {1e3 / ns:.1f} |"
            line += f" {base[0] / ns:.2f}× |" if base else " |"
            line += f" {best_peer[0] / ns:.2f}× |" if best_peer else " |"
            if nodes:
                threads = 2 if group.startswith("2t-") else 1
                cap = TWITTER_CAP_PER_NODE * (threads if c == SHARDED else nodes)
                line += f" {1e9 / ns / cap * 100:.2f}% |"
            print(line)
        print()
    if not found:
        sys.exit(f"no criterion results under {root}")


if __name__ == "__main__":
    main()
