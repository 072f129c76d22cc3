#!/usr/bin/python3
"""Draw the [[plot]] sections of a sweep spec from its results.

    plots/plot.py SPEC.toml [--results FILE] [--out DIR] [--caption-note TEXT] [--scale S]

For each [[plot]] writes DIR/<spec>-<name>.png and .pdf (matplotlib) and the same
figure for gnuplot (.dat, .gp; `gnuplot <spec>-<name>.gp` in DIR renders
<spec>-<name>-gnuplot.png); a table or an efficiency table becomes .md and .png. Kinds and keys:
experiments/specs/FORMAT.md; plot_spec.py checks the sections, figure.py prepares the data.
Exit status 2, with one line, for a bad spec or plot section or a missing results file.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figure  # noqa: E402
import gnuplot  # noqa: E402
import plot_spec  # noqa: E402
from figure import PlotData, PlotError, ResultsError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
DASHES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1))]
STYLE = {"font.size": 10, "axes.spines.top": False, "axes.spines.right": False,
         "axes.grid": True, "grid.color": "#dddddd", "grid.linewidth": 0.6,
         "axes.axisbelow": True, "legend.frameon": False, "pdf.fonttype": 42}
CAPTION_WIDTH = 72


class UsageError(Exception):
    """A bad spec file or command line: one line, exit status 2."""


def read_spec(path: Path) -> dict:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such spec file") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML: {error}") from None


# ---------------------------------------------------------------- matplotlib


def new_figure(data: PlotData, caption: str) -> tuple[Figure, object]:
    width = 6.4 if data.kind in ("line", "curve") else max(6.4, 1.2 + 0.32 * bar_count(data))
    fig = Figure(figsize=(min(width, 12), 4.4), layout="constrained")
    ax = fig.add_subplot()
    fig.suptitle(data.plot.get("title", data.name), fontsize=12, fontweight="bold")
    if caption:
        ax.set_title(caption, fontsize=8, color="0.3")
    return fig, ax


def bar_count(data: PlotData) -> int:
    return sum(len(s.cells) for s in data.series) + len(data.series)


def wrap(text: str) -> str:
    return "\n".join(textwrap.wrap(text, CAPTION_WIDTH))


def errors(stats) -> list[list[float]]:
    return [[s.median - s.lo for s in stats], [s.hi - s.median for s in stats]]


def x_positions(data: PlotData) -> tuple[list, bool]:
    """x coordinates of data.xs: the values themselves when numeric (line plots),
    else 0, 1, 2, ... with the values as tick labels."""
    numeric = gnuplot.numeric_x(data)
    return (list(data.xs) if numeric else list(range(len(data.xs)))), numeric


def draw_line(data: PlotData, ax) -> None:
    positions, numeric = x_positions(data)
    if data.plot.get("logx") and not numeric:
        raise PlotError(f"{data.where}: logx needs numeric x values, "
                        f"not {', '.join(map(figure.value_text, data.xs[:4]))}")
    where = dict(zip(data.xs, positions))
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for series, (tint, shape) in zip(data.series, gnuplot.series_styles(data)):
        stats = [row[0] for row in series.cells.values()]
        ax.errorbar([where[x] for x in series.cells], [s.median for s in stats],
                    yerr=errors(stats), label=series.label or None, capsize=3,
                    color=colors[tint % len(colors)], marker=MARKERS[shape % len(MARKERS)],
                    markersize=5, linewidth=1.6, linestyle=DASHES[shape % len(DASHES)])
    if data.plot.get("logx"):
        xs = [x for x in data.xs]
        powers = all(x > 0 and float(x).is_integer() and int(x) & (int(x) - 1) == 0
                     for x in xs)
        ax.set_xscale("log", base=2 if powers else 10)
    if len(data.xs) <= 12:
        ax.set_xticks(positions, [figure.value_text(x) for x in data.xs])
        ax.xaxis.set_minor_locator(NullLocator())


def draw_curve(data: PlotData, ax) -> None:
    """y against a measured x (x_path), one line per series through its points in the
    order of the x parameter; bars min-max on both axes."""
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for series, (tint, shape) in zip(data.series, gnuplot.series_styles(data)):
        rows = [series.cells[x] for x in data.xs if x in series.cells]
        ys, xs = [row[0] for row in rows], [row[1] for row in rows]
        ax.errorbar([s.median for s in xs], [s.median for s in ys], yerr=errors(ys),
                    xerr=errors(xs), label=series.label or None, capsize=3,
                    color=colors[tint % len(colors)], marker=MARKERS[shape % len(MARKERS)],
                    markersize=5, linewidth=1.6, linestyle=DASHES[shape % len(DASHES)])
    if data.plot.get("logx"):
        ax.set_xscale("log")


def set_category_ticks(ax, ticks: list, labels: list[str]) -> float:
    """Tick labels, slanted when they would not fit side by side; returns about how
    far (points) they reach below the axis."""
    width_pt = ax.figure.get_figwidth() * 72 * 0.8
    needed_pt = sum(len(label) + 2 for label in labels) * 0.6 * 10
    if needed_pt > width_pt:
        ax.set_xticks(ticks, labels, rotation=35, ha="right", rotation_mode="anchor")
        return 8 + 3.5 * max(map(len, labels))
    ax.set_xticks(ticks, labels)
    return 14


def draw_bar(data: PlotData, ax) -> None:
    count = max(len(data.series), 1)
    width = 0.8 / count
    for i, series in enumerate(data.series):
        offset = (i - (count - 1) / 2) * width
        xs = [data.xs.index(x) + offset for x in series.cells]
        stats = [row[0] for row in series.cells.values()]
        ax.bar(xs, [s.median for s in stats], width, label=series.label or None,
               yerr=errors(stats), capsize=2, error_kw={"linewidth": 0.8},
               edgecolor="black", linewidth=0.5)
    set_category_ticks(ax, list(range(len(data.xs))), [figure.value_text(x) for x in data.xs])
    ax.grid(axis="x", visible=False)


def draw_stacked(data: PlotData, ax) -> None:
    """One group of bars per series (one bar per x value), components stacked."""
    position, ticks, labels, groups = 0.0, [], [], []
    colors = matplotlib.colormaps["tab10" if len(data.paths) <= 10 else "tab20"].colors
    for series in data.series:
        start = position
        for x, row in series.cells.items():
            bottom = 0.0
            for c, stat in enumerate(row):
                ax.bar(position, stat.median, 0.75, bottom=bottom,
                       color=colors[c % len(colors)], edgecolor="black", linewidth=0.4,
                       label=data.labels[c] if not ticks else None)
                if stat.hi > stat.lo:
                    ax.errorbar(position, bottom + stat.median, fmt="none", ecolor="0.2",
                                yerr=[[stat.median - stat.lo], [stat.hi - stat.median]],
                                capsize=1.5, linewidth=0.6)
                bottom += stat.median
            ticks.append(position)
            labels.append(figure.value_text(x))
            position += 1
        groups.append(((start + position - 1) / 2, series.label))
        position += 0.6
    reach = set_category_ticks(ax, ticks, labels)
    ax.grid(axis="x", visible=False)
    if len(groups) > 1 or groups and groups[0][1]:
        secondary = ax.secondary_xaxis(location=0)
        secondary.set_xticks([g[0] for g in groups], [g[1] for g in groups])
        secondary.tick_params(axis="x", length=0, pad=reach + 4)
        secondary.spines["bottom"].set_visible(False)
        ax.xaxis.labelpad = 20
    if data.plot.get("normalize"):
        ax.set_ylim(0, 1.0)


def axes_finish(data: PlotData, ax) -> None:
    plot = data.plot
    ax.set_xlabel(plot.get("xlabel", plot["x_path"] if data.kind == "curve" else plot["x"]))
    ax.set_ylabel(plot.get("ylabel", "" if data.kind == "stacked" else data.labels[0]))
    if plot.get("logy"):
        ax.set_yscale("log")
    handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return
    title = ", ".join(plot.get("series", [])) if data.kind != "stacked" else None
    if data.kind == "stacked":
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], labels[::-1], fontsize="small", loc="upper left",
                  bbox_to_anchor=(1.01, 1.0))
    elif len(handles) > 6 or data.kind == "bar":
        ax.legend(title=title, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(title=title, fontsize="small")


def build_figure(data: PlotData, caption: str) -> Figure:
    """The matplotlib figure of a line, bar, stacked or curve plot."""
    with matplotlib.rc_context(STYLE):
        fig, ax = new_figure(data, wrap(caption))
        {"line": draw_line, "bar": draw_bar, "stacked": draw_stacked,
         "curve": draw_curve}[data.kind](data, ax)
        axes_finish(data, ax)
    return fig


# ---------------------------------------------------------------- tables


def cell_text(stat: figure.Stat, fmt: str | None) -> str:
    if fmt is not None:
        return format(stat.median, fmt)
    return format(stat.median, ",.0f" if abs(stat.median) >= 1000 else ".3g")


def table_rows(data: PlotData) -> tuple[list[str], list[list[str]]]:
    """Header and body of a table plot: row parameters, then one cell per column (kind
    "efficiency": figure.efficiency_table)."""
    if data.kind == "efficiency":
        return figure.efficiency_table(data)
    plot = data.plot
    header = list(plot["rows"]) + [c["label"] for c in plot["columns"]]
    cells = data.series[0].cells if data.series else {}
    body = [[figure.value_text(v) for v in row]
            + [cell_text(s, c.get("format")) for s, c in zip(cells[row], plot["columns"])]
            for row in data.xs if row in cells]
    return header, body


def markdown(data: PlotData, caption: str) -> str:
    header, body = table_rows(data)
    numeric = [all(_numeric_text(r[i]) for r in body) for i in range(len(header))]
    align = ["---:" if n else "---" for n in numeric]
    lines = [f"**{data.plot.get('title', data.name)}**", "",
             "| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    if caption:
        lines += ["", f"*{caption}*"]
    return "\n".join(lines) + "\n"


def _numeric_text(text: str) -> bool:
    if text == "-":  # no value: keeps a column of numbers right-aligned
        return True
    try:
        float(text.replace(",", "").rstrip("%"))
        return True
    except ValueError:
        return False


def table_figure(data: PlotData, caption: str) -> tuple[Figure, list]:
    """The table as a figure, and the artists to crop it to."""
    header, body = table_rows(data)
    with matplotlib.rc_context(STYLE):
        width = max(5.0, 0.1 * sum(max(len(r[i]) for r in [header] + body) + 4
                                   for i in range(len(header))))
        fig = Figure(figsize=(min(width, 14), 1.3 + 0.28 * (len(body) + 1)),
                     layout="constrained")
        ax = fig.add_subplot()
        ax.axis("off")
        parts = [fig.suptitle(data.plot.get("title", data.name), fontsize=12,
                              fontweight="bold")]
        if caption:
            parts.append(ax.set_title(wrap(caption), fontsize=8, color="0.3"))
        table = ax.table(cellText=body or [[""] * len(header)], colLabels=header,
                         loc="upper center", cellLoc="right", colLoc="center")
        table.auto_set_font_size(False)
        table.set_fontsize(9)
        table.auto_set_column_width(range(len(header)))
        table.scale(1, 1.3)
        numeric = [all(_numeric_text(r[i]) for r in body) for i in range(len(header))]
        for (row, column), cell in table.get_celld().items():
            cell.set_edgecolor("0.75")
            if row == 0:
                cell.set_text_props(fontweight="bold")
                cell.set_facecolor("#eeeeee")
            elif not numeric[column]:
                cell.get_text().set_horizontalalignment("left")
                cell.PAD = 0.05
    return fig, parts + [table]


def save_table(fig: Figure, parts: list, path: Path) -> None:
    """Save cropped to parts (the hidden axes would leave a margin)."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = Bbox.union([p.get_window_extent(renderer) for p in parts])
    fig.savefig(path, dpi=200,
                bbox_inches=box.transformed(fig.dpi_scale_trans.inverted()).padded(0.15))


# ---------------------------------------------------------------- driver


def draw_plot(spec: dict, spec_name: str, index: int, results: list[dict], out: Path,
              note: str | None) -> list[Path]:
    """Write every file of the index-th (1-based) [[plot]]; returns their paths."""
    data = figure.plot_data(spec, index, results)
    if not any(s.cells for s in data.series):
        figure.warn(f"{data.where}: no results to draw; skipped")
        return []
    text = figure.caption(spec, data, note)
    stem = out / f"{spec_name}-{data.name}"
    if data.kind in ("table", "efficiency"):
        md = stem.with_suffix(".md")
        md.write_text(markdown(data, text))
        save_table(*table_figure(data, text), stem.with_suffix(".png"))
        return [md, stem.with_suffix(".png")]
    fig = build_figure(data, text)
    fig.savefig(stem.with_suffix(".png"), dpi=200)
    fig.savefig(stem.with_suffix(".pdf"))
    written = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    return written + gnuplot.write(data, stem, wrap(text))


def run(args: argparse.Namespace) -> list[Path]:
    spec = read_spec(args.spec)
    problems = plot_spec.validate_plots(spec)
    if problems:
        raise UsageError(f"{args.spec}: " + "; ".join(problems))
    name = args.spec.stem
    results_path = args.results or ROOT / "results" / name / "results.jsonl"
    if not spec.get("plot"):
        figure.warn(f"{args.spec}: no [[plot]] sections")
        return []
    results = figure.select_results(figure.load_results(results_path), name, args.scale,
                                    str(results_path))
    out = args.out or ROOT / "results" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for index in range(1, len(spec["plot"]) + 1):
        written += draw_plot(spec, name, index, results, out, args.caption_note)
    return written


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", type=Path, help="experiments/specs/<name>.toml")
    parser.add_argument("--results", type=Path,
                        help="result lines (default: results/<name>/results.jsonl)")
    parser.add_argument("--out", type=Path, help="output folder (default: results/figures)")
    parser.add_argument("--caption-note", help="caption note replacing the one derived "
                        "from the results (scale, oversubscribed threads)")
    parser.add_argument("--scale", help="draw only result lines of this scale "
                        "(default: the scale of the newest line)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        for path in run(args):
            print(path)
    except (UsageError, PlotError, ResultsError) as error:
        print(f"plot.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
