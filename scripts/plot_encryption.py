#!/usr/bin/env python3
"""Plots `engram --json bench encryption` runs as an SVG bar chart (no plotting library:
Python's standard library only): per run, plain and sealed searches/s, searches/s without the
item cache, and single adds/s.

Usage: plot_encryption.py RUN.json [RUN.json ...] > encryption.svg
"""

import json
import sys

METRICS = [("searches_per_s", "searches/s"),
           ("searches_per_s_no_item_cache", "searches/s, no item cache"),
           ("adds_per_s", "single adds/s")]
COLORS = {"plain": "#8da0cb", "sealed": "#fc8d62"}


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    width, height, top, left, bottom = 760, 340, 40, 60, 70
    group_w = (width - left - 20) / len(METRICS)
    peak = max(r[side][m] for r in runs for side in COLORS for m, _ in METRICS)
    bar_w = group_w / (len(runs) * 2 + 1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<text x="%d" y="20" font-size="13">Encryption at rest: plain vs sealed, %d runs '
           '(%d memories)</text>' % (left, len(runs), runs[0]["items"])]
    plot_h = height - top - bottom
    for g, (metric, label) in enumerate(METRICS):
        x0 = left + g * group_w
        for i, r in enumerate(runs):
            for j, side in enumerate(COLORS):
                v = r[side][metric]
                h = plot_h * v / peak
                x = x0 + bar_w * (2 * i + j + 0.5)
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                           % (x, top + plot_h - h, bar_w * 0.9, h, COLORS[side]))
                out.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle">%d</text>'
                           % (x + bar_w * 0.45, top + plot_h - h - 3, round(v)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x0 + group_w / 2, top + plot_h + 18, label))
    for k, side in enumerate(COLORS):
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>'
                   % (left + 120 * k, height - 28, COLORS[side]))
        out.append('<text x="%d" y="%d">%s</text>' % (left + 120 * k + 16, height - 18, side))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
               % (left, top + plot_h, width - 20, top + plot_h))
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
