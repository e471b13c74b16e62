#!/usr/bin/env python3
"""Plots a scripts/edge_bench.sh output as an SVG bar chart: per round, requests/s at
saturation (wrk, 32 connections) for search and single adds, the library reading the sockets
itself ("direct", the old build) against the relay.

Usage: plot_edge.py RUN.txt > edge.svg
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_bars import grouped_bars  # noqa: E402

COLORS = {"direct": "#8da0cb", "relay": "#fc8d62"}
KINDS = ["search", "add"]


def main(path):
    rounds = {}
    for line in open(path):
        m = re.match(r"round (\d+) (old|new) wrk (\w+) RESULT (.*)", line)
        if not m:
            continue
        r = json.loads(m.group(4))
        side = "direct" if m.group(2) == "old" else "relay"
        per = rounds.setdefault(int(m.group(1)), {s: [0] * len(KINDS) for s in COLORS})
        per[side][KINDS.index(m.group(3))] = r["requests"] / r["duration_us"] * 1e6
    runs = [rounds[k] for k in sorted(rounds)]
    title = "Plain-HTTP edge: requests/s at saturation, direct vs relay, %d rounds" % len(runs)
    print(grouped_bars(title, ["POST /v1/search", "POST /v1/memories"], runs, COLORS))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
