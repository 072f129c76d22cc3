"""The data side of a spec's [[plot]] sections (the format and its validation:
plots/plot_spec.py).

load_results() reads a results.jsonl that may still be appended to; plot_data() groups
result lines by point of a validated spec, takes medians and min/max over repetitions,
applies filter, ratio_to and scale_y and orders series and x values; efficiency_table()
turns a kind "efficiency" section's data into table rows (plots/plot.py writes them, the
sweep runner's summary prints them); caption() writes the figure's caption line. Standard
library only; plots/plot.py and plots/gnuplot.py do the drawing.
"""

from __future__ import annotations

import difflib
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from plot_spec import is_number, plot_where

# A timeline's x: the time of each element of its arrays, a point parameter of its own.
TIMELINE_X = "time_s"


class PlotError(Exception):
    """A [[plot]] section that is wrong, or cannot be drawn from the results."""


class ResultsError(Exception):
    """A results file that is missing or holds nothing for the spec."""


# ---------------------------------------------------------------- results


def warn(message: str) -> None:
    print(f"plot: warning: {message}", file=sys.stderr)


def load_results(path: Path) -> list[dict]:
    """The result objects of a JSON-lines file, in file order.

    A last line that does not parse is a line still being appended and is skipped
    silently; a bad line elsewhere is skipped with a warning. Later lines for the same
    point and repetition replace earlier ones.
    """
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such results file") from None
    except OSError as error:
        raise ResultsError(f"{path}: {error.strerror}") from None
    lines = text.split("\n")
    results = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            result = json.loads(line)
        except json.JSONDecodeError:
            if number < len(lines):
                warn(f"{path}:{number}: not a JSON line; skipped")
            continue
        if isinstance(result, dict) and isinstance(result.get("point"), dict):
            key = (point_key(result["point"]), result.get("rep"), result.get("scale"))
            results.pop(key, None)
            results[key] = result
        else:
            warn(f"{path}:{number}: not a result line (no \"point\" object); skipped")
    return list(results.values())


def select_results(results: list[dict], spec_name: str, scale: str | None = None,
                   source: str = "results") -> list[dict]:
    """The lines of one spec and one scale (default: the scale of the newest line)."""
    mine = [r for r in results if r.get("spec", spec_name) == spec_name]
    if not mine:
        raise ResultsError(f"{source}: no result lines for spec '{spec_name}'")
    scales = list(dict.fromkeys(r.get("scale") for r in mine))
    if scale is None:
        scale = mine[-1].get("scale")
        if len(scales) > 1:
            warn(f"{source} holds scales {', '.join(map(str, scales))}; "
                 f"drawing '{scale}' (the newest; choose with --scale)")
    chosen = [r for r in mine if r.get("scale") == scale]
    if not chosen:
        raise ResultsError(f"{source}: no result lines for spec '{spec_name}' at scale "
                           f"'{scale}' (have: {', '.join(map(str, scales))})")
    return chosen


def point_key(point: dict) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                        for k, v in point.items()))


def value_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def point_text(point: dict) -> str:
    return ",".join(f"{k}={value_text(v)}" for k, v in sorted(point.items()))


def get_path(result: dict, path: str, where: str) -> float:
    """The number at a dotted path of a result line; PlotError names what is missing."""
    value = result
    parts = path.split(".")
    for depth, part in enumerate(parts):
        if not isinstance(value, dict) or part not in value:
            raise PlotError(missing_path(result, path, parts[:depth], value, where))
        value = value[part]
    if not is_number(value):
        raise PlotError(f"{where}: '{path}' is {json.dumps(value)[:40]}, not a number "
                        f"(point {point_text(result['point'])}, rep {result.get('rep')})")
    return float(value)


def missing_path(result: dict, path: str, found: list[str], value, where: str) -> str:
    at = f"point {point_text(result['point'])}, rep {result.get('rep')}"
    parent = ".".join(found) or "the result line"
    if not isinstance(value, dict):
        return f"{where}: path '{path}' not in the result line ({at}): {parent} is not an object"
    keys = [".".join(found + [k]) for k in value]
    close = difflib.get_close_matches(".".join(found + [path.split(".")[len(found)]]), keys, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    shown = ", ".join(list(value)[:12]) + (", ..." if len(value) > 12 else "")
    return f"{where}: path '{path}' not in the result line ({at}); {parent} has: {shown}{hint}"


# ---------------------------------------------------------------- aggregation


@dataclass(frozen=True)
class Stat:
    """Median, minimum and maximum of one quantity over a point's repetitions."""
    median: float
    lo: float
    hi: float
    n: int

    @classmethod
    def of(cls, values: list[float]) -> "Stat":
        return cls(statistics.median(values), min(values), max(values), len(values))

    def scaled(self, factor: float) -> "Stat":
        low, high = sorted((self.lo * factor, self.hi * factor))
        return Stat(self.median * factor, low, high, self.n)


@dataclass
class Series:
    """One series: its label, the values of the series parameters, and its cells."""
    label: str
    key: tuple
    cells: dict          # x value (a tuple of row values for tables) -> [Stat per path]


@dataclass
class PlotData:
    """What one [[plot]] draws."""
    plot: dict
    where: str
    kind: str
    paths: list[str]     # y, the components, or the table columns' y
    labels: list[str]    # one per path
    xs: list             # x values (tables: tuples of row values) in drawing order
    series: list[Series]
    results: list[dict]  # the result lines drawn (after filter)

    @property
    def name(self) -> str:
        return self.plot["name"]


def apply_filter(plot: dict, results: list[dict], where: str) -> list[dict]:
    kept = results
    for param, allowed in plot.get("filter", {}).items():
        if not any(param in r["point"] for r in results):
            raise PlotError(f"{where}: filter '{param}' is not a point parameter "
                            f"of the results (have: {', '.join(sorted(results[0]['point']))})")
        kept = [r for r in kept if r["point"].get(param) in allowed]
    return kept


def check_present(plot: dict, results: list[dict], names: list[str], where: str) -> None:
    have = set().union(*(r["point"] for r in results))
    for name in names:
        if name not in have:
            raise PlotError(f"{where}: '{name}' is not a point parameter of the results "
                            f"(have: {', '.join(sorted(have))})")


def point_stats(plot: dict, results: list[dict], paths: list[str], where: str) -> dict:
    """point key -> (point, [Stat per path]) after ratio_to and scale_y."""
    groups = {}
    for result in results:
        groups.setdefault(point_key(result["point"]), []).append(result)
    stats = {}
    for key, lines in groups.items():
        stats[key] = (lines[0]["point"],
                      [Stat.of([get_path(r, p, where) for r in lines]) for p in paths])
    if "ratio_to" in plot:
        stats = ratios(plot["ratio_to"], stats, where)
    if plot.get("normalize_series"):
        stats = per_series_max(plot.get("series", []), stats, where)
    factor = plot.get("scale_y", 1)
    scaled = len(paths) if plot["kind"] != "curve" else 1  # a curve's x_path is not y
    return {k: (point, [s.scaled(factor) if i < scaled else s for i, s in enumerate(row)])
            for k, (point, row) in stats.items()}


def per_series_max(series: list, stats: dict, where: str) -> dict:
    """Each point's stats divided by the largest median of its series (a series' points
    share the values of the `series` parameters): each system normalised to its own
    maximum."""
    top = {}
    for point, row in stats.values():
        s = tuple(point.get(n) for n in series)
        top[s] = max(top.get(s, 0.0), row[0].median)
    out = {}
    for key, (point, row) in stats.items():
        m = top[tuple(point.get(n) for n in series)]
        if m <= 0:
            warn(f"{where}: series of {point_text(point)} has no positive value; left out")
            continue
        out[key] = (point, [s.scaled(1 / m) for s in row])
    return out


def ratios(reference: dict, stats: dict, where: str) -> dict:
    """Each point's stats divided by the median of its reference point; the reference
    points themselves are dropped."""
    out = {}
    for key, (point, row) in stats.items():
        if all(point.get(k) == v for k, v in reference.items()):
            continue
        ref_point = {**point, **reference}
        ref = stats.get(point_key(ref_point))
        if ref is None:
            warn(f"{where}: no results for reference point {point_text(ref_point)}; "
                 f"{point_text(point)} left out")
            continue
        if any(s.median == 0 for s in ref[1]):
            warn(f"{where}: reference point {point_text(ref_point)} has median 0; "
                 f"{point_text(point)} left out")
            continue
        out[key] = (point, [s.scaled(1 / r.median) for s, r in zip(row, ref[1])])
    return out


def order_values(values: list, canonical: list | None = None) -> list:
    """Distinct values: numeric order when all are numbers, else the spec's order
    (its variants or grid list) and then order of first appearance."""
    unique = list(dict.fromkeys(values))
    if all(is_number(v) for v in unique):
        return sorted(unique)
    known = list(dict.fromkeys(v for v in canonical or [] if v in unique))  # once each:
    # a case or grid value the [quick] section lists again keeps its first place
    return known + [v for v in unique if v not in known]


def spec_orders(spec: dict) -> dict[str, list]:
    """Each point parameter's values in the order the spec lists them."""
    orders = {}
    run = spec.get("run") if isinstance(spec.get("run"), dict) else {}
    if isinstance(run.get("variants"), list):
        orders["variant"] = list(run["variants"])
    quick = spec.get("quick") if isinstance(spec.get("quick"), dict) else {}
    for cases in (spec.get("cases"), quick.get("cases")):
        if isinstance(cases, dict):
            orders.setdefault("case", []).extend(cases)
    for grid in (spec.get("grid"), quick.get("grid")):
        for name, values in (grid or {}).items():
            if isinstance(values, list):
                orders.setdefault(name, []).extend(values)
    return orders


def order_keys(keys: list[tuple], names: list[str], orders: dict) -> list[tuple]:
    """Distinct tuples of parameter values, ordered parameter by parameter."""
    ranks = []
    for i, name in enumerate(names):
        ordered = order_values([k[i] for k in keys], orders.get(name))
        ranks.append({v: r for r, v in enumerate(ordered)})
    unique = list(dict.fromkeys(keys))
    return sorted(unique, key=lambda k: tuple(ranks[i][v] for i, v in enumerate(k)))


def series_label(names: list[str], values: tuple) -> str:
    """'rcc' or 'rcc, len=64': strings as they are, other values as name=value."""
    return ", ".join(v if isinstance(v, str) else f"{n}={value_text(v)}"
                     for n, v in zip(names, values))


def plot_paths(plot: dict) -> tuple[list[str], list[str]]:
    kind = plot["kind"]
    if kind == "table":
        return [c["y"] for c in plot["columns"]], [c["label"] for c in plot["columns"]]
    if kind == "stacked":
        paths = plot["components"]
        return paths, plot.get("labels") or [p.split(".")[-1] for p in paths]
    if kind == "curve":  # y, then the x coordinate; x itself only orders the points
        return [plot["y"], plot["x_path"]], [plot.get("ylabel", plot["y"])]
    if kind == "efficiency":
        path = plot.get("y", EFFICIENCY_Y)
        return [path], [path.split(".")[-1]]
    label = plot["y"]
    if "ratio_to" in plot:
        reference = plot["ratio_to"]
        label += " relative to " + series_label(list(reference), tuple(reference.values()))
    return [plot["y"]], [plot.get("ylabel", label)]


def timeline_points(plot: dict, results: list[dict], where: str) -> list[dict]:
    """A timeline's results as line points: one per element of the x_path and y arrays,
    with its time (rounded to the millisecond, so repetitions meet) as point parameter
    TIMELINE_X and its value at the internal path "_y"."""
    out = []
    for r in results:
        xs, ys = (get_array(r, p, where) for p in (plot["x_path"], plot["y"]))
        if len(xs) != len(ys):
            raise PlotError(f"{where}: '{plot['x_path']}' has {len(xs)} values, "
                            f"'{plot['y']}' {len(ys)} (point {point_text(r['point'])})")
        for x, y in zip(xs, ys):
            out.append({**r, "point": {**r["point"], TIMELINE_X: round(x, 3)}, "_y": y})
    return out


def get_array(result: dict, path: str, where: str) -> list[float]:
    """The array of numbers at a dotted path of a result line."""
    value = result
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise PlotError(f"{where}: '{path}' is missing (point {point_text(result['point'])})")
        value = value[part]
    if not isinstance(value, list) or not all(is_number(v) for v in value):
        raise PlotError(f"{where}: '{path}' is not an array of numbers "
                        f"(point {point_text(result['point'])})")
    return [float(v) for v in value]


def plot_data(spec: dict, index: int, results: list[dict]) -> PlotData:
    """Aggregate the results for the index-th (1-based) [[plot]] of a validated spec.
    A timeline becomes a line over TIMELINE_X."""
    plot = spec["plot"][index - 1]
    where = plot_where(index, plot)
    if plot["kind"] == "timeline":
        results = timeline_points(plot, [r for r in results if isinstance(r.get("point"), dict)],
                                  where)
        plot = {**plot, "kind": "line", "x": TIMELINE_X, "y": "_y",
                "ylabel": plot.get("ylabel", plot["y"]),
                "xlabel": plot.get("xlabel", plot["x_path"])}
    kind = plot["kind"]
    paths, labels = plot_paths(plot)
    x_names = plot["rows"] if kind == "table" else [plot["x"]]
    s_names = {"table": [], "efficiency": plot.get("rows")}.get(kind, plot.get("series", []))
    results = [r for r in results if isinstance(r.get("point"), dict)]
    if results:
        check_present(plot, results, x_names + s_names + list(plot.get("ratio_to", {})), where)
    results = apply_filter(plot, results, where) if results else results
    stats = point_stats(plot, results, paths, where)
    cells = arrange(stats, s_names, x_names, where)
    if kind == "stacked" and plot.get("normalize"):
        cells = {cell: normalized(row) for cell, row in cells.items()}
    orders = spec_orders(spec)
    s_keys = order_keys([s for s, _ in cells], s_names, orders)
    x_keys = order_keys([x for _, x in cells], x_names, orders)
    xs = x_keys if kind == "table" else [k[0] for k in x_keys]
    series = []
    for s_key in s_keys:
        row = {(x if kind == "table" else x[0]): cells[(s_key, x)]
               for x in x_keys if (s_key, x) in cells}
        series.append(Series(series_label(s_names, s_key), s_key, row))
    return PlotData(plot, where, kind, paths, labels, xs, series, results)


# ---------------------------------------------------------------- efficiency

EFFICIENCY_Y = "throughput"  # a kind "efficiency" section's y when it names none


def number_text(value: float) -> str:
    return format(value, ",.0f" if abs(value) >= 1000 else ".3g")


def efficiency(value: float, x: float, base_value: float, base_x: float) -> float:
    """y at x relative to perfect scaling from the smallest x: y(x) / ((x / x0) * y(x0));
    with x0 = 1 thread, throughput at N threads / (N x throughput at 1 thread)."""
    return value / (x / base_x * base_value)


def efficiency_table(data: PlotData) -> tuple[list[str], list[list[str]]]:
    """Header and body of a kind "efficiency" section: its rows' parameters, y (median)
    at the smallest x (x0), the efficiency at every larger x (2 decimals), and y at the
    largest x. A row without a point at x0, or whose y there is 0, has "-" for its
    efficiencies (and shows y where it has it); x must be positive numbers."""
    plot, xs = data.plot, data.xs
    bad = [x for x in xs if not is_number(x) or x <= 0]
    if bad:
        raise PlotError(f"{data.where}: kind 'efficiency' needs positive numbers for x "
                        f"'{plot['x']}', not {bad[0]!r}")
    y = data.labels[0]
    header = list(plot["rows"])
    if xs:
        base = xs[0]
        header += [f"{y}@{value_text(base)}"] + [f"eff@{value_text(x)}" for x in xs[1:]]
        if len(xs) > 1:
            header.append(f"{y}@{value_text(xs[-1])}")
    body = []
    for series in data.series:
        if not series.cells:
            continue
        cells = {x: row[0].median for x, row in series.cells.items()}
        line = [value_text(v) for v in series.key]
        base_value = cells.get(base)
        line.append("-" if base_value is None else number_text(base_value))
        for x in xs[1:]:
            ok = base_value and x in cells
            line.append(f"{efficiency(cells[x], x, base_value, base):.2f}" if ok else "-")
        if len(xs) > 1:
            line.append(number_text(cells[xs[-1]]) if xs[-1] in cells else "-")
        body.append(line)
    return header, body


def text_table(header: list[str], body: list[list[str]], indent: str = "  ") -> str:
    """Columns padded to their widest cell: text left, numbers (and "-") right."""
    def numeric(text):
        try:
            float(text.replace(",", "").rstrip("%"))
            return True
        except ValueError:
            return text == "-"
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    right = [all(numeric(r[i]) for r in body) for i in range(len(header))]
    lines = []
    for row in [header] + body:
        cells = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def normalized(row: list[Stat]) -> list[Stat]:
    """A stacked bar's components as fractions of the sum of their medians."""
    total = sum(s.median for s in row)
    return [s.scaled(1 / total) for s in row] if total else row


def arrange(stats: dict, s_names: list[str], x_names: list[str], where: str) -> dict:
    """(series values, x values) -> [Stat per path]; two points on one cell is an error."""
    cells, owners = {}, {}
    for point, row in stats.values():
        cell = (tuple(point.get(n) for n in s_names), tuple(point.get(n) for n in x_names))
        if cell in owners:
            other = owners[cell]
            differ = sorted(k for k in set(point) | set(other) if point.get(k) != other.get(k))
            raise PlotError(f"{where}: points {point_text(other)} and {point_text(point)} "
                            f"fall on the same series and x; add {', '.join(differ)} to "
                            "'series' or select one with 'filter'")
        owners[cell] = point
        cells[cell] = row
    return cells


# ---------------------------------------------------------------- caption


def caption(spec: dict, data: PlotData, note: str | None = None) -> str:
    """The caption line: spec description, the plot's caption, repetitions, and the
    scale/thread note (given, or derived from the result lines)."""
    parts = [spec.get("description", "").strip().rstrip("."), data.plot.get("caption", "")]
    counts = sorted({s.n for series in data.series for row in series.cells.values()
                     for s in row})
    if counts:
        runs = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        word = "run" if runs == "1" else "runs"
        bars = "" if data.kind in ("table", "efficiency") else ", bars min-max"
        parts.append(f"median of {runs} {word}{bars}")
    parts.append(derived_note(data.results) if note is None else note)
    return "; ".join(p.strip() for p in parts if p and p.strip())


def derived_note(results: list[dict]) -> str:
    notes = []
    scales = sorted({str(r["scale"]) for r in results if r.get("scale") not in (None, "full")})
    if scales:
        notes.append(f"scale {', '.join(scales)}")
    over = [r for r in results if r.get("oversubscribed_by_spec") or r.get("oversubscribed")]
    if over:
        cores = sorted({r.get("machine", {}).get("cores") for r in over} - {None})
        count = "/".join(map(str, cores)) if cores else "?"
        notes.append(f"threads > cores ({count} cores): oversubscribed points")
    return "; ".join(notes)
