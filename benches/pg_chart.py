#!/usr/bin/env python3
"""Draws benches/pg_insert.rs's CSV as an SVG bar chart (standard library only).

    python3 benches/pg_chart.py benches/pg_insert.csv benches/pg_insert.svg

Four panels side by side, one bar per key type: the insert time of all rows (the median
round, with a whisker from the fastest to the slowest round), the primary key's index size,
the table size and the WAL the inserts wrote (all three from the median round).
"""

import csv
import sys
from collections import OrderedDict
from html import escape

COLORS = {"snowmint BIGINT": "#2a7ab0", "UUIDv4": "#c8553d", "UUIDv7": "#e0a030"}
W, H = 1190, 360
PANEL_W, TOP, BOTTOM = 270, 70, 290


def load(path):
    runs = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["key"], []).append(row)
    out = []
    for key, rows in runs.items():
        rows.sort(key=lambda r: float(r["insert_seconds"]))
        med = rows[len(rows) // 2]
        out.append(
            {
                "key": key,
                "rows": int(med["rows"]),
                "rounds": len(rows),
                "insert": float(med["insert_seconds"]),
                "lo": float(rows[0]["insert_seconds"]),
                "hi": float(rows[-1]["insert_seconds"]),
                "index": int(med["index_bytes"]) / 2**20,
                "table": int(med["table_bytes"]) / 2**20,
                "wal": int(med["wal_bytes"]) / 2**20,
            }
        )
    return out


def panel(x0, title, unit, keys, values, whiskers=None):
    top = max(max(values), max(h for _, h in whiskers) if whiskers else 0) * 1.15 or 1
    scale = (BOTTOM - TOP) / top
    bar_w = (PANEL_W - 40) / len(keys) * 0.6
    gap = (PANEL_W - 40) / len(keys)
    parts = [
        f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 25}" text-anchor="middle" font-weight="bold">'
        f"{escape(title)}</text>",
        f'<line x1="{x0 + 20}" y1="{BOTTOM}" x2="{x0 + PANEL_W - 20}" y2="{BOTTOM}" stroke="#333"/>',
    ]
    for i, (key, v) in enumerate(zip(keys, values)):
        x = x0 + 20 + i * gap + (gap - bar_w) / 2
        h = v * scale
        parts.append(
            f'<rect x="{x:.1f}" y="{BOTTOM - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
            f'fill="{COLORS.get(key, "#777")}"><title>{escape(key)}: {v:.2f} {unit}</title></rect>'
        )
        label_y = BOTTOM - h - 6
        if whiskers:
            lo, hi = whiskers[i]
            cx = x + bar_w / 2
            y_lo, y_hi = BOTTOM - lo * scale, BOTTOM - hi * scale
            parts.append(
                f'<path d="M{cx:.1f},{y_lo:.1f}V{y_hi:.1f}M{cx - 6:.1f},{y_lo:.1f}h12'
                f'M{cx - 6:.1f},{y_hi:.1f}h12" stroke="#222" fill="none"/>'
            )
            label_y = min(label_y, y_hi - 6)
        parts.append(
            f'<text x="{x + bar_w / 2:.1f}" y="{label_y:.1f}" text-anchor="middle">{v:.2f}</text>'
        )
        # One word a line, so that neighbouring labels do not run into each other.
        lines = "".join(
            f'<tspan x="{x + bar_w / 2:.1f}" dy="{0 if j == 0 else 14}">{escape(w)}</tspan>'
            for j, w in enumerate(key.split())
        )
        parts.append(f'<text y="{BOTTOM + 18}" text-anchor="middle">{lines}</text>')
    parts.append(
        f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 8}" text-anchor="middle" fill="#555">{escape(unit)}</text>'
    )
    return parts


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: pg_chart.py IN.csv OUT.svg")
    data = load(sys.argv[1])
    keys = [d["key"] for d in data]
    rows, rounds = data[0]["rows"], data[0]["rounds"]
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">'
        f"{rows:,} rows into PostgreSQL, keyed by snowmint IDs, UUIDv4 and UUIDv7</text>",
    ]
    svg += panel(
        10,
        "Insert time (binary COPY)",
        f"seconds, median of {rounds} (whisker: min–max)",
        keys,
        [d["insert"] for d in data],
        [(d["lo"], d["hi"]) for d in data],
    )
    svg += panel(10 + PANEL_W + 25, "Primary-key index", "MiB", keys, [d["index"] for d in data])
    svg += panel(10 + 2 * (PANEL_W + 25), "Table", "MiB", keys, [d["table"] for d in data])
    svg += panel(10 + 3 * (PANEL_W + 25), "WAL written", "MiB", keys, [d["wal"] for d in data])
    svg.append(
        f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle" fill="#555">'
        "lower is better; made by benches/pg_chart.py from benches/pg_insert.csv</text>"
    )
    svg.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
