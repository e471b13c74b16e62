#!/usr/bin/env python3
"""Plots `engram --json bench writepath` results as an SVG bar chart: the pass rate of each
category, per language, for one or more runs (standard library only).

Usage: plot_writepath.py OUT.svg LABEL=RUN.json[:frozen] [LABEL=RUN.json[:frozen] ...]
A RUN.json is the output of `engram --json bench writepath`, or an object holding it under
"llm_path" (as bench/results/*/writepath-llm-fake.json does); with ":frozen", the blind set's
part of a `--set frozen` run.
"""

import json
import sys
from xml.sax.saxutils import escape

COLOURS = ["#2b6cb0", "#90cdf4", "#c05621", "#fbd38d", "#2f855a", "#9ae6b4"]


def load(path):
    frozen = path.endswith(":frozen")
    if frozen:
        path = path[: -len(":frozen")]
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if frozen:
        return doc["frozen"]
    return doc.get("llm_path", doc)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    runs = []
    for arg in sys.argv[2:]:
        label, _, path = arg.partition("=")
        runs.append((label, load(path)))
    categories = sorted(set().union(*(r["categories"].keys() for _, r in runs)))
    categories.append("all")
    series = []  # (label, lang, {category: rate})
    for label, r in runs:
        for lang in ("en", "zh"):
            rates = {c: r["categories"].get(c, {}).get(lang, {}).get("rate") for c in categories}
            rates["all"] = r["languages"].get(lang, {}).get("rate")
            series.append(("%s %s" % (label, lang), rates))

    bar, gap, left, top, height = 9, 14, 150, 40, 260
    group = bar * len(series) + gap
    width = left + group * len(categories) + 20
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, top + height + 120)]
    svg.append('<text x="%d" y="20" font-size="14">Write-path corpus: pass rate by category'
               '</text>' % left)
    for pct in range(0, 101, 20):
        y = top + height - height * pct / 100
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, width - 20, y, y))
        svg.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>' % (left - 6, y + 4, pct))
    for i, category in enumerate(categories):
        x0 = left + i * group
        for j, (_, rates) in enumerate(series):
            rate = rates.get(category)
            if rate is None:
                continue
            h = height * rate
            svg.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s: '
                       '%.1f%%</title></rect>' % (x0 + j * bar, top + height - h, bar - 1, h,
                                                 COLOURS[j % len(COLOURS)],
                                                 escape(series[j][0]), escape(category), 100 * rate))
        svg.append('<text transform="translate(%d,%d) rotate(-40)" text-anchor="end">%s</text>'
                   % (x0 + group // 2, top + height + 14, escape(category)))
    for j, (name, _) in enumerate(series):
        y = top + height + 85 + (j // 3) * 16
        x = left + (j % 3) * 170
        svg.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (x, y - 9, COLOURS[j % len(COLOURS)]))
        svg.append('<text x="%d" y="%d">%s</text>' % (x + 14, y, escape(name)))
    svg.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
