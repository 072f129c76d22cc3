"""Sweep specs: load a TOML spec, reject anything malformed with one clear line, and expand
it into the list of points to run (format: experiments/specs/FORMAT.md).

Validation happens before anything is built or run: top-level and [run] keys, types,
variants against config/variants.tsv, rundb flags and their value types against the flag
table in benchmarks/options.c (the single source of the command line), non-empty grids,
[derive] expressions, [[variant_grid]] restrictions, the [quick] overrides and (through
plots/plot_spec.py) the plots.
"""

import ast
import functools
import itertools
import math
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOP_KEYS = {"description", "run", "cases", "grid", "derive", "quick", "plot", "variant_flags",
            "variant_grid"}
RUN_KEYS = {"variants", "workload", "warmup", "duration", "repetitions", "timeout", "flags",
            "oversubscribe"}
QUICK_KEYS = {"warmup", "duration", "repetitions", "timeout", "variants", "flags", "cases",
              "grid", "derive", "variant_flags", "variant_grid"}
# set by the runner itself, so a spec may not set them
RESERVED_FLAGS = {"warmup", "duration", "seed", "out", "quiet", "help"}
WORKLOADS = ("ycsb", "bank", "tpcc", "synth", "f1", "tao", "retwis", "ycsbt", "geo-bank")
QUICK_MAX_THREADS = 16


class SpecError(Exception):
    """A spec problem, reported as one line: '<file>: <what is wrong>'."""


@dataclass(frozen=True)
class Point:
    """One run: a variant and its flags (grid and derived values), at one repetition."""

    params: tuple  # sorted ((name, value), ...), "variant" included
    rep: int

    @property
    def point_id(self) -> str:
        return point_id(dict(self.params))

    def get(self, name, default=None):
        return dict(self.params).get(name, default)


@dataclass
class Spec:
    name: str
    path: Path
    description: str
    scale: str
    variants: list
    workload: str  # None when every case names its workload
    warmup: float
    duration: float
    repetitions: int
    timeout: float
    flags: dict
    cases: dict  # case name -> flags; "case" is then a point parameter
    grid: dict
    derive: dict
    plots: list
    raw: dict = field(repr=False)
    # variant -> flags for that variant's points only (e.g. its own offered rate)
    variant_flags: dict = field(default_factory=dict)
    # threads are clients that mostly sleep (network model): never capped at the cores
    oversubscribe: bool = False
    # variant -> {grid key: allowed values}: that variant's points only at these values
    variant_grid: dict = field(default_factory=dict)

    def rundb_args(self, point: Point) -> list:
        """The rundb command line of a point, without the binary."""
        params = dict(point.params)
        args = ["--warmup", fmt(self.warmup), "--duration", fmt(self.duration),
                "--seed", str(point.rep), "--quiet"]
        merged = {"workload": self.workload} if self.workload else {}
        merged.update(self.flags)
        merged.update(self.variant_flags.get(params["variant"], {}))
        merged.update(self.cases.get(params.get("case"), {}))
        merged.update({k: v for k, v in params.items() if k not in ("variant", "case")})
        for name in sorted(merged):
            value = merged[name]
            if value is True:
                args.append("--" + name)
            elif value is not False:
                args += ["--" + name, fmt(value)]
        return args


def fmt(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def point_id(params: dict) -> str:
    return ",".join(f"{k}={fmt(params[k])}" for k in sorted(params))


def known_variants() -> list:
    rows = (ROOT / "config" / "variants.tsv").read_text().splitlines()
    return [r.split()[0] for r in rows if r.strip() and not r.lstrip().startswith("#")]


_FLAG_RE = re.compile(r'^\s*\{"([a-z0-9-]+)",\s*OK_([A-Z0-9]+),')
_FLAG_TYPES = {"INT": "int", "U64": "int", "DOUBLE": "number", "FLAG": "bool"}


@functools.cache
def rundb_flags() -> dict:
    """rundb's flags and the type of their value ('int', 'number', 'bool' or 'str'), read
    from the option table in benchmarks/options.c."""
    flags = {}
    for line in (ROOT / "benchmarks" / "options.c").read_text().splitlines():
        m = _FLAG_RE.match(line)
        if m:
            flags[m.group(1)] = _FLAG_TYPES.get(m.group(2), "str")
    if not flags:
        raise SpecError("benchmarks/options.c: no flag table found")
    return flags


def _type_ok(kind: str, value) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "int":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, str)


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv}


def eval_expr(expr: str, names: dict):
    """Arithmetic on numbers and grid names (+ - * / // and parentheses), nothing else."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise SpecError(f"unknown name '{node.id}' (grid keys: {', '.join(names) or 'none'})")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            right = ev(node.right)
            if isinstance(node.op, (ast.Div, ast.FloorDiv)) and right == 0:
                raise SpecError("division by zero")
            return _BINOPS[type(node.op)](ev(node.left), right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise SpecError(f"'{expr}' is not arithmetic on numbers and grid names")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise SpecError(f"'{expr}' is not a valid expression") from None
    value = ev(tree)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value


def _table(obj, key, allowed=None) -> dict:
    """obj, checked to be a table whose keys are all in allowed (None: any)."""
    if not isinstance(obj, dict):
        raise SpecError(f"[{key}] must be a table")
    if allowed is not None:
        for k in obj:
            if k not in allowed:
                raise SpecError(f"unknown key '{k}' in [{key}] (known: "
                                f"{', '.join(sorted(allowed))})")
    return obj


def _number(obj, key, label, minimum=None, integer=False, positive=False):
    """obj[key], checked to be a finite number within the bounds."""
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise SpecError(f"{label} must be a number, not {v!r}")
    if integer and not float(v).is_integer():
        raise SpecError(f"{label} must be an integer, not {v!r}")
    if positive and v <= 0:
        raise SpecError(f"{label} must be positive, not {v!r}")
    if minimum is not None and v < minimum:
        raise SpecError(f"{label} must be at least {minimum}, not {v!r}")
    return int(v) if integer else float(v)


def _check_flags(flags: dict, label: str, table: dict):
    for name, value in flags.items():
        if name in RESERVED_FLAGS:
            raise SpecError(f"{label}: '{name}' is set by the runner (use [run] keys)")
        if name not in table:
            raise SpecError(f"{label}: unknown rundb flag '{name}'")
        if not _type_ok(table[name], value):
            raise SpecError(f"{label}: flag '{name}' needs a {table[name]} value, not {value!r}")


def _check_grid(grid: dict, label: str, table: dict):
    for name, values in grid.items():
        if name == "variant":
            raise SpecError(f"{label}: variants go in [run] variants, not the grid")
        if not isinstance(values, list):
            raise SpecError(f"{label}: '{name}' must be a list of values, not {values!r}")
        if not values:
            raise SpecError(f"{label}: '{name}' is an empty list (an empty grid has no points)")
        if len(set(map(repr, values))) != len(values):
            raise SpecError(f"{label}: '{name}' lists a value twice")
        for v in values:
            _check_flags({name: v}, label, table)


def load(path, scale: str = "full") -> Spec:
    """Reads and validates a spec at the given scale ('full' or 'quick')."""
    path = Path(path)
    name = path.stem
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise SpecError(f"{path}: no such spec file") from None
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    try:
        return _build(raw, name, path, scale)
    except SpecError as e:
        raise SpecError(f"{path}: {e}") from None


def _build(raw: dict, name: str, path: Path, scale: str) -> Spec:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise SpecError(f"spec name '{name}' must be letters, digits, '_', '-' or '.'")
    for k in raw:
        if k not in TOP_KEYS:
            raise SpecError(f"unknown top-level key '{k}' (known: {', '.join(sorted(TOP_KEYS))})")
    if "run" not in raw:
        raise SpecError("missing [run] section")
    desc = raw.get("description", "")
    if not isinstance(desc, str):
        raise SpecError("description must be a string")
    run = dict(_table(raw["run"], "run", RUN_KEYS))
    grid = dict(_table(raw.get("grid", {}), "grid"))
    derive = dict(_table(raw.get("derive", {}), "derive"))
    quick = _table(raw.get("quick", {}), "quick", QUICK_KEYS)
    if scale == "quick":
        for k, v in quick.items():
            if k == "grid":
                grid.update(_table(v, "quick.grid"))
            elif k == "derive":
                derive.update(_table(v, "quick.derive"))
            elif k == "cases":
                cases = dict(_table(raw.get("cases", {}), "cases"))
                cases.update(_table(v, "quick.cases"))
                raw = {**raw, "cases": cases}
            elif k == "variant_flags":
                vf = {n: dict(f) for n, f in _table(raw.get("variant_flags", {}),
                                                    "variant_flags").items()}
                for n, f in _table(v, "quick.variant_flags").items():
                    vf.setdefault(n, {}).update(_table(f, f"quick.variant_flags.{n}"))
                raw = {**raw, "variant_flags": vf}
            elif k == "variant_grid":
                raw = {**raw, "variant_grid": v}  # replaces every [[variant_grid]]
            elif k == "flags":
                run["flags"] = {**_table(run.get("flags", {}), "run.flags"),
                                **_table(v, "quick.flags")}
            else:
                run[k] = v
    elif scale != "full":
        raise SpecError(f"unknown scale '{scale}' (full or quick)")

    for k in ("variants", "duration"):
        if k not in run:
            raise SpecError(f"[run] needs '{k}'")
    variants = run["variants"]
    if not isinstance(variants, list) or not variants or \
            not all(isinstance(v, str) for v in variants):
        raise SpecError("[run] variants must be a non-empty list of variant names")
    known = known_variants()
    for v in variants:
        if v not in known:
            raise SpecError(f"unknown variant '{v}' (config/variants.tsv)")
    if len(set(variants)) != len(variants):
        raise SpecError("[run] variants lists a variant twice")
    table = rundb_flags()
    cases = dict(_table(raw.get("cases", {}), "cases"))
    for cname, cflags in cases.items():
        _check_flags(_table(cflags, f"cases.{cname}"), f"[cases] {cname}", table)
    workload = run.get("workload")
    for w in [workload] + [cf.get("workload") for cf in cases.values()]:
        if w is not None and w not in WORKLOADS:
            raise SpecError(f"unknown workload {w!r} ({', '.join(WORKLOADS)})")
    if workload is None and (not cases or any("workload" not in cf for cf in cases.values())):
        raise SpecError("[run] needs 'workload' (unless every case sets its own)")
    run.setdefault("warmup", 1.0)
    run.setdefault("repetitions", 1)
    warmup = _number(run, "warmup", "[run] warmup", minimum=0)
    duration = _number(run, "duration", "[run] duration", positive=True)
    reps = _number(run, "repetitions", "[run] repetitions", integer=True, minimum=1)
    run.setdefault("timeout", warmup + duration + 120)
    timeout = _number(run, "timeout", "[run] timeout", positive=True)

    flags = dict(_table(run.get("flags", {}), "run.flags"))
    _check_flags(flags, "[run.flags]", table)
    oversubscribe = run.get("oversubscribe", False)
    if not isinstance(oversubscribe, bool):
        raise SpecError("[run] oversubscribe must be a boolean")
    variant_flags = {}
    for vname, vflags in _table(raw.get("variant_flags", {}), "variant_flags").items():
        if vname not in variants:
            raise SpecError(f"[variant_flags] '{vname}' is not one of [run] variants")
        vflags = dict(_table(vflags, f"variant_flags.{vname}"))
        _check_flags(vflags, f"[variant_flags] {vname}", table)
        variant_flags[vname] = vflags
    _check_grid(grid, "[grid]", table)
    for k in grid:
        if k in flags or k == "workload" and workload:
            raise SpecError(f"'{k}' is both a fixed flag and a grid key")
        if any(k in vf for vf in variant_flags.values()):
            raise SpecError(f"'{k}' is both a variant flag and a grid key")
        if any(k in cf for cf in cases.values()):
            raise SpecError(f"'{k}' is both a case flag and a grid key")
    for k, expr in derive.items():
        if not isinstance(expr, str):
            raise SpecError(f"[derive] '{k}' must be an expression string, not {expr!r}")
        if k in grid or k in flags:
            raise SpecError(f"[derive] '{k}' is also a grid key or a fixed flag")
        if k not in table or k in RESERVED_FLAGS:
            raise SpecError(f"[derive]: unknown rundb flag '{k}'")
    vgrid = _variant_grid(raw.get("variant_grid", []), variants, grid)
    plots = raw.get("plot", [])
    if not isinstance(plots, list):
        raise SpecError("plot must be an array of tables ([[plot]])")
    spec = Spec(name=name, path=path, description=desc, scale=scale, variants=variants,
                workload=workload, warmup=warmup, duration=duration, repetitions=reps,
                timeout=timeout, flags=flags, cases=cases, grid=grid, derive=derive, plots=plots, raw=raw,
                variant_flags=variant_flags, oversubscribe=oversubscribe, variant_grid=vgrid)
    points(spec, max_threads=None)  # evaluates every derive expression once
    errors = _plot_errors(raw) if (ROOT / "plots" / "plot_spec.py").exists() else []
    if errors:
        raise SpecError(errors[0])
    return spec


def _variant_grid(groups, variants: list, grid: dict) -> dict:
    """The [[variant_grid]] sections as {variant: {grid key: allowed values}}: each names
    variants of [run] variants (each in one section at most) and, in `grid`, grid keys
    with the values those variants run at: a non-empty list of values of that [grid] key,
    or "max", the key's largest value (at the scale being run)."""
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise SpecError("variant_grid must be an array of tables ([[variant_grid]])")
    out = {}
    for i, group in enumerate(groups, 1):
        label = f"variant_grid[{i}]"
        _table(group, label, {"variants", "grid"})
        names = group.get("variants")
        if not isinstance(names, list) or not names or \
                not all(isinstance(v, str) for v in names):
            raise SpecError(f"[{label}] variants must be a non-empty list of variant names")
        for v in names:
            if v not in variants:
                raise SpecError(f"[{label}] '{v}' is not one of [run] variants")
            if v in out:
                raise SpecError(f"[{label}] '{v}' is in an earlier [[variant_grid]] too")
        sub = _table(group.get("grid", {}), f"{label}.grid")
        if not sub:
            raise SpecError(f"[{label}] needs 'grid' (grid keys and the values to keep)")
        allowed = {}
        for key, values in sub.items():
            if key not in grid:
                raise SpecError(f"[{label}] '{key}' is not a [grid] key")
            if values == "max":
                if not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                           for x in grid[key]):
                    raise SpecError(f"[{label}] '{key}' = \"max\" needs numbers in [grid] {key}")
                values = [max(grid[key])]
            if not isinstance(values, list) or not values:
                raise SpecError(f"[{label}] '{key}' must be a non-empty list of [grid] "
                                f"values or \"max\", not {values!r}")
            for x in values:
                if x not in grid[key]:
                    raise SpecError(f"[{label}] '{key}' value {x!r} is not in [grid] {key} "
                                    f"{grid[key]!r}")
            allowed[key] = values
        for v in names:
            out[v] = allowed
    return out


def _plot_errors(raw: dict) -> list:
    import sys
    plots_dir = str(ROOT / "plots")
    if plots_dir not in sys.path:
        sys.path.insert(0, plots_dir)
    import plot_spec  # plots/plot_spec.py, which owns the [[plot]] format

    return plot_spec.validate_plots(raw)


def points(spec: Spec, max_threads) -> list:
    """Every point of the spec, repetition-major (a partial sweep has covered every
    parameter combination once before it repeats any). A variant of a [[variant_grid]]
    gets only the combinations whose grid values it allows. Thread counts above
    max_threads become max_threads (None: no cap), a grid's before [derive] computes
    from them, a derived one after; combinations that become equal collapse."""
    names = sorted(spec.grid)
    cases = list(spec.cases) or [None]
    combos = []
    seen = set()
    for case, *values in itertools.product(cases, *(spec.grid[n] for n in names)):
        combo = dict(zip(names, values))
        chosen = dict(combo)
        if max_threads is not None and isinstance(combo.get("threads"), (int, float)):
            # a grid's threads capped first: [derive] sees the threads that run
            combo["threads"] = min(int(combo["threads"]), max_threads)
        for k, expr in spec.derive.items():
            try:
                combo[k] = eval_expr(expr, {n: combo[n] for n in names})
            except SpecError as e:
                raise SpecError(f"[derive] '{k}': {e}") from None
            table = rundb_flags()
            if not _type_ok(table[k], combo[k]):
                raise SpecError(f"[derive] '{k}' = {combo[k]!r} is not a {table[k]} value")
        if max_threads is not None and isinstance(combo.get("threads"), (int, float)):
            combo["threads"] = min(int(combo["threads"]), max_threads)
        for v in spec.variants:
            only = spec.variant_grid.get(v, {})
            if any(chosen[k] not in allowed for k, allowed in only.items()):
                continue
            params = {**combo, "variant": v}
            if case is not None:
                params["case"] = case
            params = tuple(sorted(params.items()))
            if params not in seen:
                seen.add(params)
                combos.append(params)
    return [Point(params, rep) for rep in range(1, spec.repetitions + 1) for params in combos]
