"""The gnuplot version of a figure: <stem>.dat (the medians) and <stem>.gp.

Run `gnuplot <stem>.gp` in the folder holding both; it writes <stem>-gnuplot.png with
pngcairo, or with the libgd png terminal where pngcairo is missing. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from figure import PlotData, value_text

# matplotlib's tab10 and filled markers, so both renderings look alike
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
POINTS = [7, 5, 9, 13, 11, 15]     # circle, square, triangles, diamond, pentagon

TERMINAL = """\
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo noenhanced size 1000,660 font "sans,11"
} else {
    set terminal png noenhanced size 1000,660
}
"""


def quote(text: str) -> str:
    """A double-quoted gnuplot string."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def datum(value) -> str:
    """One whitespace-free field of a .dat file."""
    if isinstance(value, float):
        return f"{value:.6g}"
    text = value_text(value).replace('"', "'")
    return text if text and not any(c.isspace() for c in text) and not text.startswith("#") \
        else f'"{text}"'


def numeric_x(data: PlotData) -> bool:
    return data.kind == "line" and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in data.xs)


def series_styles(data: PlotData) -> list[tuple[int, int]]:
    """(colour, marker/dash) index of each line: with two or more series parameters the
    first picks the colour and the others the marker, else each series has its own."""
    if len(data.plot.get("series", [])) < 2:
        return [(i, i // len(COLORS)) if len(data.series) > len(COLORS) else (i, i)
                for i in range(len(data.series))]
    firsts = list(dict.fromkeys(s.key[0] for s in data.series))
    rests = list(dict.fromkeys(s.key[1:] for s in data.series))
    return [(firsts.index(s.key[0]), rests.index(s.key[1:])) for s in data.series]


def write(data: PlotData, stem: Path, caption: str) -> list[Path]:
    """Write <stem>.dat and <stem>.gp; returns their paths."""
    dat, gp = stem.with_suffix(".dat"), stem.with_suffix(".gp")
    if data.kind == "stacked":
        dat.write_text(stacked_dat(data, stem.name))
        gp.write_text(stacked_gp(data, stem.name, caption))
    elif data.kind == "curve":
        dat.write_text(curve_dat(data, stem.name))
        gp.write_text(curve_gp(data, stem.name, caption))
    else:
        dat.write_text(xy_dat(data, stem.name))
        gp.write_text(xy_gp(data, stem.name, caption))
    return [dat, gp]


def blocks(data: PlotData, row) -> str:
    """One block per series (gnuplot `index` 0, 1, ...), two blank lines apart."""
    out = []
    for series in data.series:
        lines = [f"# series: {series.label or '(all)'}"]
        lines += [row(x, data.xs.index(x), stats) for x, stats in series.cells.items()]
        out.append("\n".join(lines) + "\n")
    return "\n\n".join(out)


def xy_dat(data: PlotData, name: str) -> str:
    header = (f"# {name}: {data.plot.get('title', name)}\n"
              f"# y = {data.paths[0]}; median, min and max over repetitions\n"
              "# columns: x median min max xi (xi = position of x among all x values)\n"
              "# one block per series, in the order of the key\n")
    return header + blocks(data, lambda x, i, s: " ".join(
        [datum(x), datum(s[0].median), datum(s[0].lo), datum(s[0].hi), str(i)]))


def curve_dat(data: PlotData, name: str) -> str:
    header = (f"# {name}: {data.plot.get('title', name)}\n"
              f"# x = {data.paths[1]}, y = {data.paths[0]}; median, min and max over "
              "repetitions\n"
              f"# columns: {data.plot['x']} x x_min x_max y y_min y_max\n"
              f"# one block per series, its points in the order of {data.plot['x']}\n")
    out = []
    for series in data.series:
        lines = [f"# series: {series.label or '(all)'}"]
        for x in data.xs:
            if x in series.cells:
                y, xv = series.cells[x]
                lines.append(" ".join([datum(x)] + [datum(v) for v in (
                    xv.median, xv.lo, xv.hi, y.median, y.lo, y.hi)]))
        out.append("\n".join(lines) + "\n")
    return header + "\n\n".join(out)


def curve_gp(data: PlotData, name: str, caption: str) -> str:
    lines = common(data, name, caption)
    if data.plot.get("logx"):
        lines.append("set logscale x")
    elements = []
    for i, series in enumerate(data.series):
        title = f"title {quote(series.label)}" if series.label else "notitle"
        tint, shape = series_styles(data)[i]
        point = f"pt {POINTS[shape % len(POINTS)]} ps 1.2 lw 2 dt {1 + shape % 5}"
        elements.append(f"'{name}.dat' index {i} using 2:5:3:4:6:7 with xyerrorlines {title} "
                        f"lc rgb '{COLORS[tint % len(COLORS)]}' {point}")
    lines.append("plot " + ", \\\n     ".join(elements))
    return "\n".join(lines) + "\n"


def stacked_dat(data: PlotData, name: str) -> str:
    columns = " ".join(f"{label}(med,min,max)".replace(" ", "_") for label in data.labels)
    header = (f"# {name}: {data.plot.get('title', name)}\n"
              f"# components: {', '.join(data.paths)}\n"
              f"# columns: x {columns}\n"
              "# one block per series, one bar per line\n")
    return header + blocks(data, lambda x, i, stats: " ".join(
        [datum(x)] + [datum(v) for s in stats for v in (s.median, s.lo, s.hi)]))


def common(data: PlotData, name: str, caption: str) -> list[str]:
    plot = data.plot
    title = plot.get("title", name) + (f"\n{caption}" if caption else "")
    ylabel = plot.get("ylabel", "" if data.kind == "stacked" else data.labels[0])
    lines = [f"# {name}: generated by plots/plot.py; run `gnuplot {name}.gp` in this folder",
             TERMINAL.rstrip(), f"set output '{name}-gnuplot.png'",
             f"set title {quote(title)}",
             f"set xlabel {quote(plot.get('xlabel', plot.get('x_path', plot['x'])))}",
             f"set ylabel {quote(ylabel)}",
             "set key outside right top vertical", "set grid ytics lc rgb '#dddddd'", "set border 3",
             "set tics nomirror"]
    if plot.get("logy"):
        lines.append("set logscale y")
    return lines


def crowded(labels: list[str], slots: int) -> bool:
    """Whether category labels would overlap side by side: about 7 pixels a character,
    an 800-pixel plot shared by slots positions."""
    return max(map(len, labels), default=0) * 7 > 0.9 * 800 / max(slots, 1)


def xtics(data: PlotData) -> str:
    labels = [value_text(x) for x in data.xs]
    rotate = " rotate by 30 right" if crowded(labels, len(labels)) else ""
    return f"set xtics{rotate} (" + ", ".join(
        f"{quote(label)} {i}" for i, label in enumerate(labels)) + ")"


def xy_gp(data: PlotData, name: str, caption: str) -> str:
    lines = common(data, name, caption)
    if numeric_x(data):
        if data.plot.get("logx"):
            base = 2 if all(x > 0 and float(x).is_integer() and int(x) & (int(x) - 1) == 0
                            for x in data.xs) else 10
            lines.append(f"set logscale x {base}")
            lines.append("set offsets graph 0.05, graph 0.05, graph 0.05, 0")
        else:
            lines.append("set offsets graph 0.03, graph 0.03, graph 0.05, 0")
        if len(data.xs) <= 12:
            lines.append("set xtics (" + ", ".join(
                f"{quote(value_text(x))} {value_text(x)}" for x in data.xs) + ")")
        column = "1"
    else:
        lines.append(xtics(data))
        lines.append(f"set xrange [-0.6:{len(data.xs) - 0.4}]")
        column = "5"
    if data.kind == "bar":
        lines += ["set style fill solid 0.85 border -1", "set yrange [0:*]"]
    lines.append("plot " + ", \\\n     ".join(xy_elements(data, name, column)))
    return "\n".join(lines) + "\n"


def xy_elements(data: PlotData, name: str, column: str) -> list[str]:
    elements = []
    count = max(len(data.series), 1)
    width = 0.8 / count
    styles = series_styles(data)
    for i, series in enumerate(data.series):
        title = f"title {quote(series.label)}" if series.label else "notitle"
        color = f"lc rgb '{COLORS[i % len(COLORS)]}'"
        source = f"'{name}.dat' index {i}"
        if data.kind == "bar":
            x = f"($5 + {(i - (count - 1) / 2) * width:.4f})"
            elements.append(f"{source} using {x}:2:3:4:({width:.4f}) with boxerrorbars "
                            f"{title} {color}")
        else:
            tint, shape = styles[i]
            point = f"pt {POINTS[shape % len(POINTS)]} ps 1.2 lw 2 dt {1 + shape % 5}"
            elements.append(f"{source} using {column}:2:3:4 with yerrorlines {title} "
                            f"lc rgb '{COLORS[tint % len(COLORS)]}' {point}")
    return elements


def stacked_gp(data: PlotData, name: str, caption: str) -> str:
    lines = common(data, name, caption)
    lines += ["# error bars are not drawn for stacked bars here (see the matplotlib figure)",
              "set style data histograms",
              "set style fill solid 0.85 border -1", "set boxwidth 0.7",
              "set key outside right top vertical reverse Left invert", "set yrange [0:*]"]
    labels = [value_text(x) for s in data.series for x in s.cells]
    if crowded(labels, len(labels) + len(data.series)):
        lines += ["set xtics rotate by 30 right", "set bmargin 7.5"]
    else:
        lines += ["set bmargin 5.5"]
    lines += ["set style histogram rowstacked title offset 0,0.3", "set xlabel offset 0,-1.6"]
    if data.plot.get("normalize"):
        lines.append("set yrange [0:1]")
    elements = []
    for i, series in enumerate(data.series):
        group = quote(series.label) if series.label else '""'
        for c, label in enumerate(data.labels):
            xtic = ":xtic(1)" if c == 0 else ""
            title = f"title {quote(label)}" if i == 0 else "notitle"
            elements.append(("newhistogram " + group + ", " if c == 0 else "")
                            + f"'{name}.dat' index {i} using {2 + 3 * c}{xtic} {title} "
                            f"lc rgb '{COLORS[c % len(COLORS)]}'")
    lines.append("plot " + ", \\\n     ".join(elements))
    return "\n".join(lines) + "\n"
