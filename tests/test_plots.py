#!/usr/bin/python3
"""Tests of plots/ (plot_spec.py, figure.py, plot.py, gnuplot.py) on
tests/fixtures/plots_fixture.*.

    /usr/bin/python3 -m unittest tests/test_plots.py      (from the repository root)
    tests/test_plots.py
"""

import contextlib
import copy
import io
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SPEC = FIXTURES / "plots_fixture.toml"
RESULTS = FIXTURES / "plots_fixture.jsonl"
PLOT = ROOT / "plots" / "plot.py"
sys.path.insert(0, str(ROOT / "plots"))

import figure  # noqa: E402
import plot  # noqa: E402
import plot_spec  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
VARIANTS = ["dl-detect", "rcc", "silo"]


def load_spec() -> dict:
    with SPEC.open("rb") as file:
        return tomllib.load(file)


def run_plot(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/usr/bin/python3", str(PLOT), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def result_line(variant: str, threads: int, rep: int, throughput: float, **extra) -> dict:
    point = {"variant": variant, "threads": threads}
    return {"spec": "mini", "point": point, "point_id": figure.point_text(point),
            "rep": rep, "scale": "full", "throughput": throughput,
            "machine": {"cores": 2}, "oversubscribed": False, **extra}


def is_png(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 1000 and path.read_bytes()[:8] == PNG_MAGIC


class FixtureFigures(unittest.TestCase):
    """plot.py on the fixture spec and its real rundb results."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = Path(cls.tmp.name)
        cls.proc = run_plot(SPEC, "--results", RESULTS, "--out", cls.out)
        cls.spec = load_spec()
        cls.results = figure.select_results(figure.load_results(RESULTS), "plots_fixture")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_status_and_files(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        for name in ("throughput", "aborts", "breakdown", "speedup"):
            for suffix in (".png", ".pdf", ".dat", ".gp"):
                path = self.out / f"plots_fixture-{name}{suffix}"
                self.assertTrue(path.is_file() and path.stat().st_size > 0, path)
            self.assertTrue(is_png(self.out / f"plots_fixture-{name}.png"), name)
        self.assertTrue(is_png(self.out / "plots_fixture-summary.png"))
        self.assertTrue((self.out / "plots_fixture-summary.md").is_file())
        self.assertFalse((self.out / "plots_fixture-summary.gp").exists())

    def legend(self, index: int) -> list[str]:
        data = figure.plot_data(self.spec, index, self.results)
        fig = plot.build_figure(data, figure.caption(self.spec, data))
        return [text.get_text() for text in fig.axes[0].get_legend().get_texts()]

    def test_line_legend(self):
        self.assertEqual(self.legend(1), VARIANTS)

    def test_ratio_legend_drops_reference(self):
        self.assertEqual(self.legend(5), ["rcc", "silo"])

    def test_stacked_legend_is_components(self):
        labels = self.spec["plot"][2]["labels"]
        self.assertEqual(sorted(self.legend(3)), sorted(labels))

    def test_line_data(self):
        data = figure.plot_data(self.spec, 1, self.results)
        self.assertEqual(data.xs, [1, 2, 4])
        rcc = data.series[1].cells[2][0]
        raw = sorted(r["throughput"] for r in self.results
                     if r["point"] == {"variant": "rcc", "threads": 2})
        self.assertAlmostEqual(rcc.median, sum(raw) / 2 * 0.001)   # scale_y, 2 reps
        self.assertAlmostEqual(rcc.lo, raw[0] * 0.001)
        self.assertAlmostEqual(rcc.hi, raw[1] * 0.001)

    def test_stacked_normalized(self):
        data = figure.plot_data(self.spec, 3, self.results)
        self.assertEqual(data.xs, [1, 2])          # filter threads = [1, 2]
        for series in data.series:
            for row in series.cells.values():
                self.assertAlmostEqual(sum(s.median for s in row), 1.0)

    def test_caption_notes_oversubscription(self):
        text = (self.out / "plots_fixture-summary.md").read_text()
        self.assertIn("threads > cores (2 cores): oversubscribed points", text)
        self.assertIn("YCSB theta 0.9", text)

    def test_caption_note_option(self):
        data = figure.plot_data(self.spec, 1, self.results)
        text = figure.caption(self.spec, data, "full scale")
        self.assertTrue(text.endswith("; full scale"), text)
        self.assertNotIn("oversubscribed", text)

    def test_table_markdown(self):
        lines = (self.out / "plots_fixture-summary.md").read_text().splitlines()
        rows = [line for line in lines if line.startswith("| ") and "---" not in line]
        self.assertEqual(rows[0], "| variant | threads | throughput (txn/s) | abort rate "
                                  "| p99 latency (us) |")
        body = [row.split(" | ") for row in rows[1:]]
        self.assertEqual([(cells[0][2:], cells[1]) for cells in body],
                         [(v, t) for v in VARIANTS for t in ("1", "2", "4")])
        self.assertTrue(all(cells[3].endswith("%") for cells in body))
        self.assertTrue(all("," in cells[2] for cells in body))
        self.assertEqual(body[0][3], "0.00%")          # one thread: no aborts

    def test_dat_blocks(self):
        text = (self.out / "plots_fixture-throughput.dat").read_text()
        blocks = [b for b in text.split("\n\n\n") if b.strip()]
        self.assertEqual(len(blocks), 3)
        self.assertIn("# series: rcc", blocks[1])
        rows = [line.split() for line in blocks[1].splitlines() if not line.startswith("#")]
        self.assertEqual([row[0] for row in rows], ["1", "2", "4"])
        for row in rows:
            median, low, high = map(float, row[1:4])
            self.assertLessEqual(low, median)
            self.assertLessEqual(median, high)

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed (apt-get install "
                         "gnuplot-nox); gnuplot scripts not checked")
    def test_gnuplot_renders(self):
        for name in ("throughput", "aborts", "breakdown", "speedup"):
            proc = subprocess.run(["gnuplot", f"plots_fixture-{name}.gp"], cwd=self.out,
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(proc.stderr.strip(), "", name)
            self.assertTrue(is_png(self.out / f"plots_fixture-{name}-gnuplot.png"), name)


class Aggregation(unittest.TestCase):
    """ratio_to, filter, ordering and result loading on hand-made lines."""

    SPEC = {"run": {"variants": ["dl-detect", "rcc", "silo"]},
            "grid": {"threads": [1, 2]},
            "plot": [{"name": "speedup", "kind": "line", "x": "threads", "y": "throughput",
                      "series": ["variant"], "ratio_to": {"variant": "dl-detect"}}]}

    def lines(self) -> list[dict]:
        return [result_line("dl-detect", 1, 1, 100), result_line("dl-detect", 1, 2, 300),
                result_line("dl-detect", 1, 3, 200),
                result_line("rcc", 1, 1, 600), result_line("rcc", 1, 2, 400),
                result_line("rcc", 1, 3, 500),
                result_line("rcc", 2, 1, 700),                 # no dl-detect at 2 threads
                result_line("silo", 1, 1, 50)]

    def test_ratio_to(self):
        self.assertEqual(plot_spec.validate_plots(self.SPEC), [])
        with contextlib.redirect_stderr(io.StringIO()) as err:
            data = figure.plot_data(self.SPEC, 1, self.lines())
        self.assertIn("no results for reference point threads=2,variant=dl-detect",
                      err.getvalue())
        self.assertEqual([s.label for s in data.series], ["rcc", "silo"])
        rcc = data.series[0].cells
        self.assertEqual(list(rcc), [1])               # 2 threads: no reference, absent
        self.assertEqual((rcc[1][0].median, rcc[1][0].lo, rcc[1][0].hi), (2.5, 2.0, 3.0))
        self.assertEqual(data.series[1].cells[1][0].median, 0.25)
        self.assertEqual(data.labels, ["throughput relative to dl-detect"])

    def test_filter_and_missing_point(self):
        spec = copy.deepcopy(self.SPEC)
        del spec["plot"][0]["ratio_to"]
        spec["plot"][0]["filter"] = {"variant": ["rcc", "silo"]}
        data = figure.plot_data(spec, 1, self.lines())
        self.assertEqual([s.label for s in data.series], ["rcc", "silo"])
        self.assertEqual(data.xs, [1, 2])
        self.assertEqual(list(data.series[1].cells), [1])

    def test_missing_path_names_path_and_plot(self):
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["y"] = "latency_us.p99"
        with self.assertRaises(figure.PlotError) as caught:
            figure.plot_data(spec, 1, self.lines())
        self.assertIn("plot[1] (speedup)", str(caught.exception))
        self.assertIn("'latency_us.p99'", str(caught.exception))

    def test_collision_is_an_error(self):
        spec = copy.deepcopy(self.SPEC)
        del spec["plot"][0]["ratio_to"]
        lines = self.lines() + [dict(result_line("rcc", 1, 1, 1), point={
            "variant": "rcc", "threads": 1, "len": 64})]
        with self.assertRaises(figure.PlotError) as caught:
            figure.plot_data(spec, 1, lines)
        self.assertIn("len", str(caught.exception))

    def test_ordering_and_labels(self):
        self.assertEqual(figure.order_values([8, 1, 2.5]), [1, 2.5, 8])
        self.assertEqual(figure.order_values(["b", "a", "b", "c"]), ["b", "a", "c"])
        self.assertEqual(figure.order_values(["b", "a"], ["a", "b"]), ["a", "b"])
        # a case the [quick] section redefines is listed twice by spec_orders
        self.assertEqual(figure.order_values(["b", "a"], ["a", "b", "a"]), ["a", "b"])
        self.assertEqual(figure.order_keys([("b",), ("a",)], ["case"], figure.spec_orders(
            {"cases": {"a": {}, "b": {}}, "quick": {"cases": {"a": {}}}})), [("a",), ("b",)])
        self.assertEqual(figure.series_label(["variant"], ("rcc",)), "rcc")
        self.assertEqual(figure.series_label(["variant", "len"], ("rcc", 64)), "rcc, len=64")

    def test_load_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "results.jsonl"
            lines = [json.dumps(line) for line in self.lines()]
            lines.append(json.dumps(result_line("rcc", 1, 1, 900)))   # a rerun of rep 1
            path.write_text("\n".join(lines) + "\n" + lines[0][:30])   # truncated last line
            results = figure.load_results(path)
            self.assertEqual(len(results), len(self.lines()))
            rerun = [r for r in results if r["point"] == {"variant": "rcc", "threads": 1}
                     and r["rep"] == 1]
            self.assertEqual([r["throughput"] for r in rerun], [900])

    def test_cli_missing_path_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec_path, results = Path(tmp) / "mini.toml", Path(tmp) / "mini.jsonl"
            spec_path.write_text('[grid]\nthreads = [1]\n[[plot]]\nname = "p"\nkind = "line"\n'
                                 'x = "threads"\ny = "latency_us.p95"\nseries = ["variant"]\n')
            results.write_text("".join(json.dumps(line) + "\n" for line in self.lines()))
            proc = run_plot(spec_path, "--results", results, "--out", tmp)
            self.assertEqual(proc.returncode, 2)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertIn("latency_us.p95", proc.stderr)
            self.assertIn("plot[1] (p)", proc.stderr)


class Curve(unittest.TestCase):
    """kind "curve": y against a measured x (open loop: latency vs achieved throughput),
    points ordered by a parameter (the offered rate)."""

    SPEC = {"run": {"variants": ["silo", "no-wait"]},
            "grid": {"rate": [1000, 4000, 2000]},
            "plot": [{"name": "latency", "kind": "curve", "x": "rate",
                      "x_path": "open_loop.achieved_per_s", "y": "latency_us.p50",
                      "series": ["variant"], "logx": True, "logy": True, "scale_y": 0.001}]}

    @staticmethod
    def line(variant: str, rate: int, rep: int, achieved: float, p50: float) -> dict:
        point = {"variant": variant, "rate": rate}
        return {"spec": "ol", "point": point, "point_id": figure.point_text(point),
                "rep": rep, "scale": "full", "machine": {"cores": 2},
                "open_loop": {"achieved_per_s": achieved}, "latency_us": {"p50": p50}}

    def lines(self) -> list[dict]:
        out = []
        for variant, slow in (("silo", 1), ("no-wait", 3)):
            for rate in (4000, 1000, 2000):
                for rep, jitter in ((1, -10), (2, 0), (3, 10)):
                    out.append(self.line(variant, rate, rep, rate + jitter,
                                         slow * rate / 10 + jitter))
        return out

    def test_points_follow_the_parameter_with_measured_x(self):
        self.assertEqual(plot_spec.validate_plots(self.SPEC), [])
        data = figure.plot_data(self.SPEC, 1, self.lines())
        self.assertEqual(data.xs, [1000, 2000, 4000])
        self.assertEqual([s.label for s in data.series], ["silo", "no-wait"])
        y, x = data.series[1].cells[2000]
        self.assertEqual((x.median, x.lo, x.hi), (2000, 1990, 2010))   # x is not scaled
        self.assertAlmostEqual(y.median, 0.6)                           # 600 us * 0.001
        self.assertAlmostEqual(y.hi, 0.61)

    def test_files_and_gnuplot(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec_path, results = Path(tmp) / "ol.toml", Path(tmp) / "ol.jsonl"
            spec_path.write_text(
                'description = "open loop"\n[run]\nvariants = ["silo", "no-wait"]\n'
                '[grid]\nrate = [1000, 2000, 4000]\n'
                '[[plot]]\nname = "latency"\nkind = "curve"\nx = "rate"\n'
                'x_path = "open_loop.achieved_per_s"\ny = "latency_us.p50"\n'
                'series = ["variant"]\nlogx = true\n')
            results.write_text("".join(json.dumps(line) + "\n" for line in self.lines()))
            proc = run_plot(spec_path, "--results", results, "--out", tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(is_png(Path(tmp) / "ol-latency.png"))
            dat = (Path(tmp) / "ol-latency.dat").read_text().split("\n\n\n")
            silo = [row.split() for row in dat[0].splitlines() if not row.startswith("#")]
            self.assertEqual([r[0] for r in silo], ["1000", "2000", "4000"])
            self.assertEqual(silo[0][1:], ["1000", "990", "1010", "100", "90", "110"])
            gp = subprocess.run(["gnuplot", "ol-latency.gp"], cwd=tmp, capture_output=True,
                                text=True, timeout=60)
            self.assertEqual(gp.returncode, 0, gp.stderr)
            self.assertEqual(gp.stderr.strip(), "")
            self.assertTrue(is_png(Path(tmp) / "ol-latency-gnuplot.png"))

    def test_curve_needs_x_path_and_no_ratio(self):
        spec = copy.deepcopy(self.SPEC)
        del spec["plot"][0]["x_path"]
        self.assertIn("x_path", " ".join(plot_spec.validate_plots(spec)))
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["ratio_to"] = {"variant": "silo"}
        self.assertIn("ratio_to", " ".join(plot_spec.validate_plots(spec)))


class Timeline(unittest.TestCase):
    """kind "timeline": arrays over time (throughput per interval), medians over
    repetitions at equal times; and normalize_series on a line."""

    SPEC = {"run": {"variants": ["ncc-rw"]},
            "grid": {"recovery-timeout-ms": [1000, 3000]},
            "plot": [{"name": "tput", "kind": "timeline", "x_path": "series.t_s",
                      "y": "series.commits_per_s", "series": ["recovery-timeout-ms"]}]}

    @staticmethod
    def line(timeout: int, rep: int, ys: list) -> dict:
        point = {"variant": "ncc-rw", "recovery-timeout-ms": timeout}
        return {"spec": "f", "point": point, "point_id": figure.point_text(point), "rep": rep,
                "scale": "full", "machine": {"cores": 2},
                "series": {"t_s": [0.5 * (i + 1) for i in range(len(ys))],
                           "commits_per_s": ys}, "throughput": sum(ys)}

    def test_medians_over_time(self):
        self.assertEqual(plot_spec.validate_plots(self.SPEC), [])
        lines = [self.line(1000, 1, [10, 0, 10]), self.line(1000, 2, [20, 2, 12]),
                 self.line(1000, 3, [30, 4, 14]), self.line(3000, 1, [10, 0, 0])]
        data = figure.plot_data(self.SPEC, 1, lines)
        self.assertEqual(data.kind, "line")
        self.assertEqual(data.xs, [0.5, 1.0, 1.5])
        fast = data.series[0].cells
        self.assertEqual((fast[1.0][0].median, fast[1.0][0].lo, fast[1.0][0].hi), (2, 0, 4))
        self.assertEqual(data.series[1].cells[1.5][0].median, 0)

    def test_arrays_must_match(self):
        bad = self.line(1000, 1, [1, 2])
        bad["series"]["t_s"] = [0.5]
        with self.assertRaises(figure.PlotError):
            figure.plot_data(self.SPEC, 1, [bad])

    def test_no_x_no_ratio(self):
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["ratio_to"] = {"variant": "silo"}
        self.assertIn("ratio_to", " ".join(plot_spec.validate_plots(spec)))
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["x"] = "recovery-timeout-ms"
        self.assertIn("'x'", " ".join(plot_spec.validate_plots(spec)))

    def test_normalize_series(self):
        spec = {"run": {"variants": ["a", "b"]}, "grid": {"w": [1, 2]},
                "plot": [{"name": "n", "kind": "line", "x": "w", "y": "throughput",
                          "series": ["variant"], "normalize_series": True}]}
        self.assertEqual(plot_spec.validate_plots(spec), [])

        def line(v, w, y):
            p = {"variant": v, "w": w}
            return {"point": p, "point_id": figure.point_text(p), "rep": 1,
                    "throughput": y, "machine": {"cores": 2}}
        data = figure.plot_data(spec, 1, [line("a", 1, 50), line("a", 2, 100),
                                          line("b", 1, 8), line("b", 2, 2)])
        self.assertEqual([data.series[0].cells[w][0].median for w in (1, 2)], [0.5, 1.0])
        self.assertEqual([data.series[1].cells[w][0].median for w in (1, 2)], [1.0, 0.25])


class Efficiency(unittest.TestCase):
    """kind "efficiency": y at N over (N / x0) times y at the smallest x, x0."""

    SPEC = {"run": {"variants": ["dl-detect", "rcc", "silo"]},
            "grid": {"threads": [1, 2, 4]},
            "plot": [{"name": "eff", "kind": "efficiency", "x": "threads",
                      "rows": ["variant"]}]}

    def lines(self) -> list[dict]:
        return [result_line("dl-detect", 1, 1, 100), result_line("dl-detect", 1, 2, 300),
                result_line("dl-detect", 1, 3, 200),                    # median 200
                result_line("dl-detect", 2, 1, 300), result_line("dl-detect", 4, 1, 400),
                result_line("rcc", 1, 1, 1000), result_line("rcc", 4, 1, 4000),
                result_line("silo", 4, 1, 5000)]                        # no 1-thread point

    def test_table(self):
        self.assertEqual(plot_spec.validate_plots(self.SPEC), [])
        data = figure.plot_data(self.SPEC, 1, self.lines())
        header, body = figure.efficiency_table(data)
        self.assertEqual(header, ["variant", "throughput@1", "eff@2", "eff@4", "throughput@4"])
        self.assertEqual(body, [["dl-detect", "200", "0.75", "0.50", "400"],
                                ["rcc", "1,000", "-", "1.00", "4,000"],
                                ["silo", "-", "-", "-", "5,000"]])
        self.assertEqual(figure.efficiency(300, 4, 100, 2), 1.5)  # x0 = 2: 300 / (2 x 100)
        text = figure.text_table(header, body).splitlines()
        self.assertEqual(text[0].split(), header)
        self.assertEqual(text[3].split(), body[2])

    def test_validation(self):
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["ratio_to"] = {"variant": "rcc"}
        self.assertIn("'ratio_to' is not for kind 'efficiency'",
                      " ".join(plot_spec.validate_plots(spec)))
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["rows"] = ["variant", "threads"]
        self.assertIn("'threads' is both 'x' and in 'rows'",
                      " ".join(plot_spec.validate_plots(spec)))
        del spec["plot"][0]["rows"]
        self.assertIn("missing key 'rows' (required for kind 'efficiency')",
                      " ".join(plot_spec.validate_plots(spec)))

    def test_x_must_be_positive_numbers(self):
        spec = copy.deepcopy(self.SPEC)
        spec["plot"][0]["x"], spec["plot"][0]["rows"] = "variant", ["threads"]
        with self.assertRaises(figure.PlotError) as caught:
            figure.efficiency_table(figure.plot_data(spec, 1, self.lines()))
        self.assertIn("needs positive numbers for x 'variant'", str(caught.exception))


class Validation(unittest.TestCase):
    """plot_spec.validate_plots() messages, and plot.py's exit status for user errors."""

    def errors(self, **changes) -> list[str]:
        section = {"name": "tput", "kind": "line", "x": "threads", "y": "throughput",
                   "series": ["variant"]}
        section.update(changes)
        return plot_spec.validate_plots({"plot": [section]})

    def test_fixture_is_valid(self):
        self.assertEqual(plot_spec.validate_plots(load_spec()), [])

    def test_unknown_kind(self):
        errors = self.errors(kind="pie")
        self.assertEqual(len(errors), 1)
        self.assertIn("plot[1] (tput): unknown kind \"pie\"", errors[0])

    def test_unknown_key(self):
        self.assertEqual(self.errors(colour="red"), ["plot[1] (tput): unknown key 'colour'"])
        self.assertIn("did you mean 'logy'", self.errors(logyy=True)[0])

    def test_missing_y(self):
        section = {"name": "tput", "kind": "line", "x": "threads"}
        self.assertEqual(plot_spec.validate_plots({"plot": [section]}),
                         ["plot[1] (tput): missing key 'y' (required for kind 'line')"])

    def test_wrong_type(self):
        self.assertEqual(self.errors(logx="yes"),
                         ["plot[1] (tput): 'logx' must be a boolean, not string \"yes\""])
        self.assertIn("'series' must be an array of strings", self.errors(series="variant")[0])

    def test_table_columns(self):
        table = {"name": "t", "kind": "table", "rows": ["variant"],
                 "columns": [{"label": "tput", "y": "throughput", "format": ".1q"},
                             {"label": "x", "colour": "red"}]}
        errors = plot_spec.validate_plots({"plot": [table]})
        self.assertTrue(any("column[1]: 'format'" in e for e in errors), errors)
        self.assertTrue(any("column[2]: missing key 'y'" in e for e in errors), errors)
        self.assertTrue(any("column[2]: unknown key 'colour'" in e for e in errors), errors)

    def test_point_parameters_checked_against_grid(self):
        spec = load_spec()
        spec["plot"][0]["x"] = "thread"
        errors = plot_spec.validate_plots(spec)
        self.assertEqual(len(errors), 1)
        self.assertIn("plot[1] (throughput): x 'thread' is not a point parameter", errors[0])

    def test_case_is_a_point_parameter(self):
        spec = {"run": {"variants": ["rcc"]}, "cases": {"hot": {}, "cold": {}},
                "grid": {"threads": [1]},
                "plot": [{"name": "p", "kind": "bar", "x": "case", "y": "throughput"}]}
        self.assertEqual(plot_spec.validate_plots(spec), [])
        del spec["cases"]
        self.assertIn("x 'case' is not a point parameter", plot_spec.validate_plots(spec)[0])
        self.assertEqual(figure.order_values(["hot", "cold"], figure.spec_orders(
            {"cases": {"cold": {}, "hot": {}}})["case"]), ["cold", "hot"])

    def test_duplicate_names(self):
        section = {"name": "a", "kind": "line", "x": "threads", "y": "throughput"}
        errors = plot_spec.validate_plots({"plot": [section, dict(section)]})
        self.assertEqual(errors, ["plot[2] (a): name 'a' is also used by plot[1]"])

    def test_plot_spec_stands_alone(self):
        """The sweep runner imports plot_spec by itself: not figure.py, not matplotlib."""
        code = ("import sys, plot_spec; "
                "print([m for m in ('figure', 'plot', 'matplotlib') if m in sys.modules])")
        proc = subprocess.run(["/usr/bin/python3", "-c", code], cwd=ROOT / "plots",
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((proc.returncode, proc.stdout.strip()), (0, "[]"), proc.stderr)

    def test_cli_bad_spec_and_missing_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec_path = Path(tmp) / "bad.toml"
            spec_path.write_text('[[plot]]\nname = "p"\nkind = "line"\nx = "threads"\n'
                                 'y = "throughput"\nlogx = "yes"\n')
            proc = run_plot(spec_path, "--results", RESULTS, "--out", tmp)
            self.assertEqual(proc.returncode, 2)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
            self.assertIn("'logx' must be a boolean", proc.stderr)
            proc = run_plot(SPEC, "--results", Path(tmp) / "none.jsonl", "--out", tmp)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("no such results file", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
