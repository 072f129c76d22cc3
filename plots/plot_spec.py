"""The [[plot]] section format and its validation (see experiments/specs/FORMAT.md).

KINDS, the keys each kind takes and their types; validate_plots() checks a spec's [[plot]]
sections before anything runs or is drawn and returns every problem as one message, which
names the section as plot_where() does: plot[N] (name). Standard library only:
experiments/sweep/spec.py and plots/plot.py call it; plots/figure.py, which prepares the
data for drawing, takes plot_where() and is_number() from here.
"""

from __future__ import annotations

import difflib
import json
import re

KINDS = ("line", "bar", "stacked", "table", "curve", "timeline", "efficiency")

STR, BOOL, NUM = "a string", "a boolean", "a number"
STRLIST, TABLE, TABLES = "an array of strings", "a table", "an array of tables"

COMMON_KEYS = {"name": STR, "kind": STR, "title": STR, "caption": STR,
               "filter": TABLE, "ratio_to": TABLE, "scale_y": NUM}
AXES_KEYS = {"x": STR, "series": STRLIST, "xlabel": STR, "ylabel": STR,
             "logx": BOOL, "logy": BOOL}
KIND_KEYS = {
    "line": {**AXES_KEYS, "y": STR, "normalize_series": BOOL},
    "bar": {**AXES_KEYS, "y": STR, "normalize_series": BOOL},
    "stacked": {**AXES_KEYS, "components": STRLIST, "labels": STRLIST, "normalize": BOOL},
    "table": {"rows": STRLIST, "columns": TABLES},
    "curve": {**AXES_KEYS, "y": STR, "x_path": STR},
    "timeline": {**{k: v for k, v in AXES_KEYS.items() if k != "x"}, "y": STR, "x_path": STR},
    # y (default "throughput") at each x relative to x times y at the smallest x
    "efficiency": {"x": STR, "y": STR, "rows": STRLIST},
}
REQUIRED = {"line": ("x", "y"), "bar": ("x", "y"), "stacked": ("x", "components"),
            "table": ("rows", "columns"), "curve": ("x", "x_path", "y"),
            "timeline": ("x_path", "y"), "efficiency": ("x", "rows")}
COLUMN_KEYS = {"label": STR, "y": STR, "format": STR}
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def toml_type(value) -> str:
    """The TOML name of a value's type, for messages."""
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "float"),
                       (str, "string"), (list, "array"), (dict, "table")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def type_ok(value, expected: str) -> bool:
    checks = {
        STR: lambda v: isinstance(v, str),
        BOOL: lambda v: isinstance(v, bool),
        NUM: is_number,
        STRLIST: lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        TABLE: lambda v: isinstance(v, dict),
        TABLES: lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
    }
    return checks[expected](value)


def type_error(where: str, key: str, value, expected: str) -> str:
    shown = json.dumps(value) if isinstance(value, (str, int, float, bool)) else ""
    return f"{where}: '{key}' must be {expected}, not {toml_type(value)} {shown}".rstrip()


def unknown_key(where: str, key: str, allowed) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{where}: unknown key '{key}'{hint}"


def plot_where(index: int, plot) -> str:
    """How messages name a plot: 1-based position in the spec, and its name."""
    name = plot.get("name") if isinstance(plot, dict) else None
    return f"plot[{index}] ({name})" if isinstance(name, str) else f"plot[{index}]"


def point_params(spec: dict) -> set[str] | None:
    """The point parameters a spec defines (variant, case, grid and derived keys), or
    None for a bare dict of [[plot]] sections (no [run], [grid] or [cases])."""
    if not any(isinstance(spec.get(k), dict) for k in ("run", "grid", "cases")):
        return None
    quick = spec.get("quick") if isinstance(spec.get("quick"), dict) else {}
    names = {"variant"}
    for table in (spec, quick):
        for key in ("grid", "derive"):
            if isinstance(table.get(key), dict):
                names |= set(table[key])
        if table.get("cases"):
            names.add("case")
    return names


def check_keys(table: dict, where: str, allowed: dict, required, why: str = "") -> list[str]:
    """Missing required keys, unknown keys and values of the wrong type in one table."""
    errors = [f"{where}: missing key '{key}'{why}" for key in required if key not in table]
    for key, value in table.items():
        if key not in allowed:
            errors.append(unknown_key(where, key, allowed))
        elif not type_ok(value, allowed[key]):
            errors.append(type_error(where, key, value, allowed[key]))
    return errors


def validate_plots(spec: dict) -> list[str]:
    """Every problem with spec["plot"] as one message each; [] when it is fine.

    Messages name the section as plot[N] (1-based, in file order) and its name. When the
    spec has a [grid], x, series, rows, filter and ratio_to must name point parameters.
    """
    plots = spec.get("plot", [])
    if not isinstance(plots, list) or not all(isinstance(p, dict) for p in plots):
        return ["plot: must be an array of tables ([[plot]] sections)"]
    errors, seen = [], {}
    params = point_params(spec)
    for index, plot in enumerate(plots, 1):
        where = plot_where(index, plot)
        errors += validate_plot(plot, where, params)
        name = plot.get("name")
        if isinstance(name, str):
            if name in seen:
                errors.append(f"{where}: name '{name}' is also used by plot[{seen[name]}]")
            seen.setdefault(name, index)
    return errors


def validate_plot(plot: dict, where: str, params: set[str] | None) -> list[str]:
    kind = plot.get("kind")
    if "kind" not in plot:
        return [f"{where}: missing key 'kind' (one of {', '.join(KINDS)})"]
    if kind not in KINDS:
        return [f"{where}: unknown kind {json.dumps(kind)} (one of {', '.join(KINDS)})"]
    allowed = {**COMMON_KEYS, **KIND_KEYS[kind]}
    errors = check_keys(plot, where, allowed, ("name", *REQUIRED[kind]),
                        f" (required for kind '{kind}')")
    if errors:
        return errors
    errors += check_values(plot, where, kind)
    if params is not None:
        errors += check_params(plot, where, params)
    return errors


def check_values(plot: dict, where: str, kind: str) -> list[str]:
    """Checks beyond key names and types."""
    errors = []
    if not NAME_RE.fullmatch(plot["name"]):
        errors.append(f"{where}: 'name' must be letters, digits, '_', '-' or '.' "
                      "(it names the output files)")
    for key in ("y", "components", "x_path"):
        paths = plot.get(key, [])
        for path in [paths] if isinstance(paths, str) else paths:
            if not path or "" in path.split("."):
                errors.append(f"{where}: '{key}' has a bad dotted path {json.dumps(path)}")
    if kind in ("curve", "timeline") and "ratio_to" in plot:
        errors.append(f"{where}: 'ratio_to' is not for kind '{kind}' (its x is a result too)")
    if kind == "efficiency":
        if "ratio_to" in plot:
            errors.append(f"{where}: 'ratio_to' is not for kind 'efficiency' (it is a ratio "
                          "to the smallest x already)")
        if not plot["rows"]:
            errors.append(f"{where}: 'rows' is empty")
        if plot["x"] in plot["rows"]:
            errors.append(f"{where}: '{plot['x']}' is both 'x' and in 'rows'")
    if kind == "stacked":
        if not plot["components"]:
            errors.append(f"{where}: 'components' is empty")
        if "labels" in plot and len(plot["labels"]) != len(plot["components"]):
            errors.append(f"{where}: 'labels' has {len(plot['labels'])} entries, "
                          f"'components' {len(plot['components'])}")
    if kind in ("bar", "stacked") and plot.get("logx"):
        errors.append(f"{where}: 'logx' needs a numeric x axis (kind 'line'), "
                      f"not kind '{kind}'")
    if plot.get("x") in plot.get("series", []):
        errors.append(f"{where}: '{plot['x']}' is both 'x' and in 'series'")
    if kind == "table":
        errors += check_columns(plot, where)
    for key in ("filter", "ratio_to"):
        for param, value in plot.get(key, {}).items():
            wanted = "an array of values" if key == "filter" else "a string, number or boolean"
            ok = (isinstance(value, list) and value
                  and all(isinstance(v, (str, int, float)) for v in value)
                  if key == "filter" else isinstance(value, (str, int, float)))
            if not ok:
                errors.append(type_error(where, f"{key}.{param}", value, wanted))
    if plot.get("scale_y") == 0:
        errors.append(f"{where}: 'scale_y' must not be 0")
    return errors


def check_columns(plot: dict, where: str) -> list[str]:
    errors = []
    if not plot["columns"]:
        errors.append(f"{where}: 'columns' is empty")
    if not plot["rows"]:
        errors.append(f"{where}: 'rows' is empty")
    for number, column in enumerate(plot["columns"], 1):
        at = f"{where} column[{number}]"
        errors += check_keys(column, at, COLUMN_KEYS, ("label", "y"))
        if isinstance(column.get("format"), str):
            try:
                format(1.5, column["format"])
            except ValueError:
                errors.append(f"{at}: 'format' {json.dumps(column['format'])} is not a "
                              "Python format spec for numbers (e.g. \".1f\", \".2%\")")
        if isinstance(column.get("y"), str) and "" in column["y"].split("."):
            errors.append(f"{at}: 'y' has a bad dotted path {json.dumps(column['y'])}")
    return errors


def check_params(plot: dict, where: str, params: set[str]) -> list[str]:
    """Names that must be point parameters of the spec's grid."""
    used = [("x", plot.get("x"))]
    used += [("series", n) for n in plot.get("series", [])]
    used += [("rows", n) for n in plot.get("rows", [])]
    used += [("filter", n) for n in plot.get("filter", {})]
    used += [("ratio_to", n) for n in plot.get("ratio_to", {})]
    known = ", ".join(sorted(params))
    return [f"{where}: {key} '{name}' is not a point parameter (known: {known})"
            for key, name in used if name is not None and name not in params]
