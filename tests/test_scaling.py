#!/usr/bin/python3
"""Tests of the scaling spec (experiments/specs/scaling.toml) and of the efficiency table
the sweep runner's summary prints for [[plot]] sections of kind "efficiency": the spec's
points at 16 cores and at the quick scale (dry runs), and a small spec run for real
whose printed efficiencies are checked against its results.jsonl, recomputed here.
Runs the release binaries (build/bin) for short points; about 15 s on 2 cores.

  /usr/bin/python3 -m unittest tests/test_scaling.py
"""

import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "experiments" / "run"
SCALING = ROOT / "experiments" / "specs" / "scaling.toml"

# the variants over the whole grid (none: the bound, whose own efficiency is the
# machine's)
GRID = ["no-wait", "wait-die", "wound-wait", "dl-detect", "silo", "tictoc", "none"]

# two cases, no-wait and silo at 1 and 2 threads, tictoc only at the grid's largest
# (no 1-thread point: its efficiencies are "-"), 3 repetitions (medians)
EFFICIENCY_SPEC = """
description = "efficiency table test"
[run]
variants = ["no-wait", "silo", "tictoc"]
workload = "ycsb"
warmup = 0
duration = 0.1
repetitions = 3
[run.flags]
rows = 2000
fields = 2
field-size = 8
read-ratio = 0.5
queries-per-thread = 500
[cases]
lo = { theta = 0.5 }
hi = { theta = 0.9 }
[grid]
threads = [1, 2]
[[variant_grid]]
variants = ["tictoc"]
grid = { threads = "max" }
[[plot]]
name = "eff"
kind = "efficiency"
title = "Efficiency under test"
x = "threads"
rows = ["case", "variant"]
"""


def run_cli(*args, results=None, timeout=300):
    extra = ["--results-dir", str(results)] if results else []
    return subprocess.run([str(RUN), "--no-build", *extra, *map(str, args)], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def dry_points(*args) -> list:
    """(case, variant, threads, warehouses) of every run a dry run lists."""
    r = run_cli("--dry-run", *args, SCALING)
    assert r.returncode == 0, r.stderr
    out = []
    for line in r.stdout.splitlines()[1:]:
        params = dict(kv.split("=") for kv in line.split()[1].split(","))
        out.append((params["case"], params["variant"], int(params["threads"]),
                    int(params["warehouses"]), line))
    return out


def variants_tsv() -> list:
    rows = (ROOT / "config" / "variants.tsv").read_text().splitlines()
    return [r.split()[0] for r in rows if r.strip() and not r.startswith("#")]


def efficiency_block(stdout: str, title: str) -> tuple:
    """The header and rows (lists of cells) of the efficiency table titled title."""
    lines = stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith(title + ":"))
    block = []
    for ln in lines[start + 1:]:
        if not ln.strip():
            break
        block.append(ln.split())
    return block[0], block[1:]


class ScalingSpec(unittest.TestCase):
    def test_points_on_16_cores(self):
        pts = dry_points("--max-threads", "16")
        self.assertEqual(len(pts), 2 * (7 * 5 + 20))
        others = [v for v in variants_tsv() if v not in GRID]
        self.assertEqual(len(others), 20)
        for case in ("ycsb", "tpcc"):
            got = {(v, t) for c, v, t, _, _ in pts if c == case}
            want = {(v, t) for v in GRID for t in (1, 2, 4, 8, 16)}
            want |= {(v, 16) for v in others}
            self.assertEqual(got, want, case)
        for case, _, threads, wh, line in pts:
            self.assertEqual(wh, threads)  # one warehouse per thread
            if case == "ycsb":
                for flag in ("--rows 10000000", "--theta 0.6", "--read-ratio 0.9"):
                    self.assertIn(flag, line)
            else:
                self.assertIn("--mix neworder-payment", line)
                self.assertIn(f"--warehouses {threads} ", line)

    def test_quick_fits_two_cores(self):
        pts = dry_points("--scale", "quick")
        self.assertEqual(len(pts), 2 * (7 * 2 + 20))
        self.assertEqual({t for _, _, t, _, _ in pts}, {1, 2})
        self.assertEqual({v for _, v, t, _, _ in pts if t == 1}, set(GRID))
        for case, _, threads, wh, line in pts:
            self.assertEqual(wh, threads)
            if case == "ycsb":
                self.assertIn("--rows 100000 ", line)

    def test_full_scale_capped_keeps_one_warehouse_per_thread(self):
        pts = dry_points("--max-threads", "4")
        self.assertEqual({t for _, _, t, _, _ in pts}, {1, 2, 4})
        self.assertTrue(all(wh == t for _, _, t, wh, _ in pts))
        self.assertEqual(len(pts), 2 * (7 * 3 + 20))


class EfficiencyTable(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="scaling-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_table_matches_results(self):
        spec = self.tmp / "eff.toml"
        spec.write_text(EFFICIENCY_SPEC)
        results = self.tmp / "results"
        r = run_cli(spec, results=results)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(x) for x in
                 (results / "eff" / "results.jsonl").read_text().splitlines()]
        self.assertEqual(len(lines), 2 * (2 * 2 + 1) * 3)

        # medians over the repetitions, computed here from the result lines
        runs = {}
        for x in lines:
            p = x["point"]
            runs.setdefault((p["case"], p["variant"], p["threads"]), []).append(x["throughput"])
        median = {}
        for key, values in runs.items():
            self.assertEqual(len(values), 3)
            median[key] = sorted(values)[1]

        for stdout in (r.stdout, run_cli("--summary", spec, results=results).stdout):
            header, rows = efficiency_block(stdout, "Efficiency under test")
            self.assertEqual(header, ["case", "variant", "throughput@1", "eff@2",
                                      "throughput@2"])
            self.assertEqual([row[:2] for row in rows],
                             [["lo", "no-wait"], ["lo", "silo"], ["lo", "tictoc"],
                              ["hi", "no-wait"], ["hi", "silo"], ["hi", "tictoc"]])
            for case, variant, t1, eff2, t2 in rows:
                self.assertAlmostEqual(float(t2.replace(",", "")),
                                       median[(case, variant, 2)], delta=0.5)
                if variant == "tictoc":  # no 1-thread point
                    self.assertEqual((t1, eff2), ("-", "-"))
                    continue
                base = median[(case, variant, 1)]
                want = median[(case, variant, 2)] / (2 * base)
                self.assertAlmostEqual(float(t1.replace(",", "")), base, delta=0.5)
                self.assertAlmostEqual(float(eff2), want, delta=0.005 + 1e-9,
                                       msg=f"{case} {variant}")

    def test_plot_writes_the_table(self):
        """plots/plot.py writes the same table as Markdown (and a PNG)."""
        spec = self.tmp / "eff.toml"
        spec.write_text(EFFICIENCY_SPEC.replace("repetitions = 3", "repetitions = 1")
                        .replace('hi = { theta = 0.9 }\n', ''))
        results = self.tmp / "results"
        r = run_cli(spec, results=results)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = self.tmp / "figures"
        p = subprocess.run(["/usr/bin/python3", str(ROOT / "plots" / "plot.py"), str(spec),
                            "--results", str(results / "eff" / "results.jsonl"),
                            "--out", str(out)], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        md = (out / "eff-eff.md").read_text()
        self.assertIn("| case | variant | throughput@1 | eff@2 | throughput@2 |", md)
        self.assertIn("| lo | tictoc | - | - |", md)
        self.assertTrue((out / "eff-eff.png").is_file())


if __name__ == "__main__":
    unittest.main()
