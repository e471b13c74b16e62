"""A grouped bar chart as SVG, with Python's standard library only (no plotting library is
packaged here): one group per measure, and in each group one pair (or more) of bars per run,
one bar per side compared, each labelled with its value."""


def grouped_bars(title, labels, runs, colors):
    """labels: one per group; runs: a list of {side: [value per group]}; colors: {side: color},
    in the order the bars stand. Returns the SVG text."""
    width, height, top, left, bottom = 760, 340, 40, 60, 70
    group_w = (width - left - 20) / len(labels)
    peak = max(v for r in runs for side in colors for v in r[side])
    bar_w = group_w / (len(runs) * len(colors) + 1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<text x="%d" y="20" font-size="13">%s</text>' % (left, title)]
    plot_h = height - top - bottom
    for g, label in enumerate(labels):
        x0 = left + g * group_w
        for i, r in enumerate(runs):
            for j, side in enumerate(colors):
                v = r[side][g]
                h = plot_h * v / peak
                x = x0 + bar_w * (len(colors) * i + j + 0.5)
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                           % (x, top + plot_h - h, bar_w * 0.9, h, colors[side]))
                out.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle">%d</text>'
                           % (x + bar_w * 0.45, top + plot_h - h - 3, round(v)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x0 + group_w / 2, top + plot_h + 18, label))
    for k, side in enumerate(colors):
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>'
                   % (left + 120 * k, height - 28, colors[side]))
        out.append('<text x="%d" y="%d">%s</text>' % (left + 120 * k + 16, height - 18, side))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
               % (left, top + plot_h, width - 20, top + plot_h))
    out.append("</svg>")
    return "\n".join(out)
