#!/usr/bin/env python3
"""Plots proxy_bench.py runs of two builds side by side as an SVG bar chart: per pair of runs,
the share of streamed chunks that waited in the server at most 1 ms, the p99 bucket bound of
that wait (ms), and the server's CPU (hundredths of a core) over the proxied phase.

Usage: plot_proxy.py LABEL_A LABEL_B A1.json B1.json [A2.json B2.json ...] > proxy.svg
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_bars import grouped_bars  # noqa: E402

LABELS = ["% of chunks within 1 ms", "chunk wait p99 (ms, bucket)", "server CPU (% of a core)"]


def measures(run):
    chunk = run["server_ms"]["chunk"]
    return [100.0 * chunk["buckets_ms"]["1"] / chunk["count"], chunk["p99"],
            100.0 * run["proxy"]["cpu_cores"]["server"]]


def main(a, b, paths):
    if len(paths) % 2:
        sys.exit("runs come in pairs: A then B")
    runs = [json.load(open(p)) for p in paths]
    bars = [{a: measures(runs[i]), b: measures(runs[i + 1])} for i in range(0, len(runs), 2)]
    setup = runs[0]["setup"]
    title = "Chat proxy, %d streams, %s vs %s, %d pairs of runs" % (setup["streams"], a, b,
                                                                    len(bars))
    print(grouped_bars(title, LABELS, bars, {a: "#8da0cb", b: "#fc8d62"}))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
