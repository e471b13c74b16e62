#!/usr/bin/env python3
"""Plots `engram --json bench encryption` runs as an SVG bar chart: per run, plain and sealed
searches/s, searches/s without the item cache, and single adds/s.

Usage: plot_encryption.py RUN.json [RUN.json ...] > encryption.svg
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_bars import grouped_bars  # noqa: E402

METRICS = [("searches_per_s", "searches/s"),
           ("searches_per_s_no_item_cache", "searches/s, no item cache"),
           ("adds_per_s", "single adds/s")]
COLORS = {"plain": "#8da0cb", "sealed": "#fc8d62"}


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    bars = [{side: [r[side][m] for m, _ in METRICS] for side in COLORS} for r in runs]
    title = "Encryption at rest: plain vs sealed, %d runs (%d memories)" % (len(runs),
                                                                           runs[0]["items"])
    print(grouped_bars(title, [label for _, label in METRICS], bars, COLORS))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
