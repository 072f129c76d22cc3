#!/usr/bin/python3
"""Tests of the sweep runner (experiments/run): spec validation, resume after the runner
is killed, failed and timed-out points, thread caps, and GNU parallel dispatch on this
machine. Runs the release binaries (build/bin, built by `make test`) for short points.

  /usr/bin/python3 -m unittest tests/test_runner.py
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "experiments" / "run"

BASE = """
description = "runner test"
[run]
variants = ["no-wait", "silo"]
workload = "ycsb"
warmup = 0
duration = {duration}
repetitions = {reps}
[run.flags]
rows = 2000
fields = 2
field-size = 8
theta = 0.9
read-ratio = 0.5
queries-per-thread = 500
[grid]
threads = [1, 2]
"""


def spec_text(duration=0.1, reps=2, extra=""):
    return BASE.format(duration=duration, reps=reps) + extra


VG = "[[variant_grid]]\nvariants = {}\ngrid = {{ threads = {} }}\n"


class RunnerCase(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="runner-test-"))
        self.results = self.tmp / "results"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write_spec(self, text, name="t"):
        path = self.tmp / f"{name}.toml"
        path.write_text(text)
        return path

    def run_cli(self, *args, timeout=300):
        return subprocess.run([str(RUN), "--no-build", "--results-dir", str(self.results),
                               *map(str, args)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout)

    def lines(self, name="t", kind="results"):
        path = self.results / name / f"{kind}.jsonl"
        if not path.exists():
            return []
        return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


class SpecValidation(RunnerCase):
    """A bad spec is rejected with one line (exit 2) before anything runs."""

    CASES = [
        ("unknown variant", spec_text().replace('"silo"', '"silo-x"'), "unknown variant 'silo-x'"),
        ("unknown flag", spec_text().replace("rows = 2000", "rowz = 2000"), "unknown rundb flag 'rowz'"),
        ("unknown key", spec_text().replace("repetitions", "repetition"), "unknown key 'repetition'"),
        ("unknown top key", spec_text() + "\n[extra]\nx = 1\n", "unknown top-level key 'extra'"),
        ("empty grid", spec_text().replace("threads = [1, 2]", "threads = []"), "empty list"),
        ("wrong type", spec_text().replace("theta = 0.9", 'theta = "high"'), "needs a number value"),
        ("wrong run type", spec_text(duration='"long"'), "[run] duration must be a number"),
        ("flag set by runner", spec_text().replace("rows = 2000", "seed = 3"), "set by the runner"),
        ("bad derive", spec_text() + '[derive]\nwarehouses = "threads ** 2"\n', "not arithmetic"),
        ("derive unknown name", spec_text() + '[derive]\nwarehouses = "2 * wh"\n', "unknown name 'wh'"),
        ("not toml", "[run\n", "not valid TOML"),
        ("bad plot", spec_text() + '[[plot]]\nname = "p"\nkind = "pie"\nx = "threads"\ny = "throughput"\n', "pie"),
        ("variant_grid variant", spec_text() + VG.format('["tictoc"]', "[2]"),
         "'tictoc' is not one of [run] variants"),
        ("variant_grid value", spec_text() + VG.format('["silo"]', "[4]"),
         "value 4 is not in [grid] threads"),
        ("variant_grid key", spec_text() + VG.format('["silo"]', "[2]").replace("threads =", "rows ="),
         "'rows' is not a [grid] key"),
        ("variant_grid twice", spec_text() + VG.format('["silo"]', "[2]") * 2,
         "earlier [[variant_grid]]"),
        ("variant_grid empty", spec_text() + VG.format('["silo"]', "[]"),
         "must be a non-empty list"),
        ("variant_grid no grid", spec_text() + '[[variant_grid]]\nvariants = ["silo"]\n',
         "needs 'grid'"),
        ("variant_grid min", spec_text() + VG.format('["silo"]', '"min"'),
         "must be a non-empty list of [grid] values or \"max\""),
    ]

    def test_bad_specs(self):
        for label, text, expect in self.CASES:
            with self.subTest(label):
                path = self.write_spec(text)
                r = self.run_cli(path)
                self.assertEqual(r.returncode, 2, r.stderr)
                err = r.stderr.strip().splitlines()
                self.assertEqual(len(err), 1, r.stderr)
                self.assertIn(expect, err[0])
                self.assertFalse(self.results.exists(), "a rejected spec must not run")

    def test_bad_flags(self):
        path = self.write_spec(spec_text())
        for args in (["--scale", "huge", path], [], ["--max-threads", "0", path],
                     ["--hosts", "h", "--slurm", path], ["--slurm-wait", path]):
            with self.subTest(args):
                r = self.run_cli(*args)
                self.assertEqual(r.returncode, 2)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_missing_spec(self):
        r = self.run_cli("no-such-spec")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no such spec file", r.stderr)

    def test_every_shipped_spec_is_valid(self):
        for path in sorted((ROOT / "experiments" / "specs").glob("*.toml")):
            for scale in ("full", "quick"):
                with self.subTest(f"{path.name} {scale}"):
                    r = self.run_cli("--dry-run", "--scale", scale, path)
                    self.assertEqual(r.returncode, 0, r.stderr)


class Points(RunnerCase):
    def dry(self, *args, text=None):
        path = self.write_spec(text or spec_text())
        r = self.run_cli("--dry-run", *args, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [ln.split()[1] for ln in r.stdout.splitlines()[1:]]

    def test_grid_and_reps(self):
        pts = self.dry()
        self.assertEqual(len(pts), 2 * 2 * 2)
        self.assertEqual(len(set(pts)), 4)

    def test_threads_capped_at_cores(self):
        text = spec_text(reps=1).replace("threads = [1, 2]", "threads = [1, 64, 128]")
        ncores = len(os.sched_getaffinity(0))
        capped = self.dry(text=text)
        self.assertIn(f"threads={min(ncores, 64)},variant=silo", capped)
        self.assertNotIn("threads=128,variant=silo", capped)
        self.assertEqual(len(capped), len(set(capped)))
        self.assertIn("threads=128,variant=silo", self.dry("--oversubscribe", text=text))
        self.assertIn("threads=1,variant=silo", self.dry("--max-threads", "1", text=text))
        self.assertEqual(len(self.dry("--max-threads", "1", text=text)), 2)

    def test_spec_oversubscribe_and_variant_flags(self):
        text = spec_text(reps=1).replace("threads = [1, 2]", "threads = [1, 64]")
        text = text.replace("repetitions = 1", "repetitions = 1\noversubscribe = true")
        text += '[variant_flags]\nsilo = { theta = 0.5 }\n'
        path = self.write_spec(text)
        r = self.run_cli("--dry-run", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("threads=64,variant=silo", r.stdout)  # not capped
        silo = [ln for ln in r.stdout.splitlines() if "rundb-silo" in ln]
        nowait = [ln for ln in r.stdout.splitlines() if "rundb-no-wait" in ln]
        self.assertTrue(silo and all("--theta 0.5" in ln for ln in silo))
        self.assertTrue(nowait and all("--theta 0.9" in ln for ln in nowait))
        for bad in ('[variant_flags]\ntictoc = { theta = 0.5 }\n',
                    '[variant_flags]\nsilo = { threads = 4 }\n',
                    '[variant_flags]\nsilo = { no-such-flag = 1 }\n'):
            r = self.run_cli("--dry-run", self.write_spec(spec_text(reps=1) + bad, "bad"))
            self.assertEqual(r.returncode, 2, bad)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_variant_grid(self):
        text = spec_text(reps=1).replace("threads = [1, 2]", "threads = [1, 2, 4]")
        text += VG.format('["silo"]', '"max"')
        pts = self.dry("--max-threads", "4", text=text)
        self.assertEqual(sorted(p for p in pts if "silo" in p), ["threads=4,variant=silo"])
        self.assertEqual(len([p for p in pts if "no-wait" in p]), 3)
        # capped: "max" is the grid's 4, which runs as 2
        self.assertEqual([p for p in self.dry("--max-threads", "2", text=text) if "silo" in p],
                         ["threads=2,variant=silo"])
        # "max" at the quick scale is the quick grid's largest value
        quick = text + '[quick]\ngrid = { threads = [1, 2] }\n'
        self.assertEqual([p for p in self.dry("--scale", "quick", text=quick) if "silo" in p],
                         ["threads=2,variant=silo"])
        # [quick] variant_grid replaces every [[variant_grid]]
        quick += "variant_grid = []\n"
        self.assertEqual(len([p for p in self.dry("--scale", "quick", text=quick)
                              if "silo" in p]), 2)
        both = spec_text(reps=1) + VG.format('["silo", "no-wait"]', "[1]")
        self.assertEqual(self.dry(text=both), ["threads=1,variant=no-wait",
                                               "threads=1,variant=silo"])

    def test_derive_sees_capped_threads(self):
        text = spec_text(reps=1).replace("threads = [1, 2]", "threads = [1, 64]")
        text += '[derive]\nwarehouses = "threads"\n'
        self.assertIn("threads=2,variant=silo,warehouses=2",
                      self.dry("--max-threads", "2", text=text))
        self.assertIn("threads=64,variant=silo,warehouses=64",
                      self.dry("--oversubscribe", text=text))

    def test_derive_and_cases(self):
        text = spec_text(reps=1).replace("threads = [1, 2]", "warehouses = [1, 2]") + \
            '[derive]\nthreads = "2 * warehouses"\n' + \
            '[cases]\nlo = { theta = 0.1 }\nhi = { theta = 0.95 }\n'
        text = text.replace("theta = 0.9\n", "")
        pts = self.dry("--oversubscribe", text=text)
        self.assertIn("case=hi,threads=4,variant=silo,warehouses=2", pts)
        self.assertEqual(len(pts), 2 * 2 * 2)


class Sweep(RunnerCase):
    def test_results_tagged_and_summary(self):
        path = self.write_spec(spec_text(reps=1))
        r = self.run_cli(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        recs = self.lines()
        self.assertEqual(len(recs), 4)
        for rec in recs:
            self.assertEqual(rec["spec"], "t")
            self.assertEqual(rec["rep"], 1)
            self.assertEqual(rec["variant"], rec["point"]["variant"])
            self.assertEqual(rec["threads"], rec["point"]["threads"])
            self.assertGreater(rec["throughput"], 0)
            self.assertGreaterEqual(rec["runner"]["overhead_s"], 0)
        self.assertIn("threads=2,variant=silo", r.stdout)
        self.assertIn("runner overhead", r.stdout)
        again = self.run_cli(path)  # everything done: nothing reruns
        self.assertEqual(again.returncode, 0)
        self.assertEqual(len(self.lines()), 4)

    def test_failing_point_does_not_stop_the_sweep(self):
        # rows = 4 < req-per-txn: rundb rejects the point at run time (exit 2)
        text = spec_text(reps=1).replace("rows = 2000\n", "req-per-txn = 8\n") + "rows = [4, 2000]\n"
        text = text.replace("threads = [1, 2]", "threads = [1]")
        r = self.run_cli(self.write_spec(text))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(self.lines()), 2)
        fails = self.lines(kind="failures")
        self.assertEqual(len(fails), 2)
        for f in fails:
            self.assertEqual(f["status"], "failed")
            self.assertEqual(f["exit"], 2)
            self.assertEqual(f["point"]["rows"], 4)
            self.assertIn("exceed --rows", f["stderr_tail"])
        self.assertIn("FAILED rows=4", r.stdout)

    def test_timeout_is_recorded(self):
        text = spec_text(duration=30, reps=1).replace("threads = [1, 2]", "threads = [1]")
        text = text.replace('variants = ["no-wait", "silo"]', 'variants = ["silo"]')
        text = text.replace("repetitions = 1", "repetitions = 1\ntimeout = 1")
        start = time.monotonic()
        r = self.run_cli(self.write_spec(text))
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(r.returncode, 1)
        fails = self.lines(kind="failures")
        self.assertEqual([f["status"] for f in fails], ["timeout"])
        self.assertEqual(self.lines(), [])

    def kill_and_resume(self, sig):
        path = self.write_spec(spec_text(duration=0.3, reps=2))
        total = 8
        proc = subprocess.Popen([str(RUN), "--no-build", "--results-dir", str(self.results), str(path)],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while len(self.lines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=60)
        before = self.lines()
        self.assertGreaterEqual(len(before), 2)
        self.assertLess(len(before), total, "the runner finished before it was killed")
        r = self.run_cli(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        after = self.lines()
        keys = [(x["point_id"], x["rep"]) for x in after]
        self.assertEqual(len(keys), total, "a point was lost or repeated")
        self.assertEqual(len(set(keys)), total)
        self.assertEqual(after[: len(before)], before, "finished points were rewritten")

    def test_resume_after_sigterm(self):
        self.kill_and_resume(signal.SIGTERM)

    def test_resume_after_sigint(self):
        self.kill_and_resume(signal.SIGINT)

    def test_resume_after_sigkill(self):
        self.kill_and_resume(signal.SIGKILL)

    def test_truncated_line_is_skipped_and_rerun(self):
        path = self.write_spec(spec_text(reps=1))
        self.assertEqual(self.run_cli(path).returncode, 0)
        res = self.results / "t" / "results.jsonl"
        lines = res.read_text().splitlines(keepends=True)
        res.write_text("".join(lines[:-1]) + lines[-1][:40])  # a write cut short
        r = self.run_cli(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("unreadable", r.stderr)
        self.assertEqual(len(self.lines_tolerant()), 4)

    def lines_tolerant(self):
        out = []
        for x in (self.results / "t" / "results.jsonl").read_text().splitlines():
            try:
                out.append(json.loads(x))
            except json.JSONDecodeError:
                pass
        return out

    def test_changed_spec_is_refused(self):
        path = self.write_spec(spec_text(reps=1))
        self.assertEqual(self.run_cli(path).returncode, 0)
        path.write_text(spec_text(reps=1).replace("theta = 0.9", "theta = 0.5"))
        r = self.run_cli(path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("other settings", r.stderr)


@unittest.skipUnless(shutil.which("parallel"), "GNU parallel is not installed")
class Parallel(RunnerCase):
    def test_local_host_gives_the_same_points(self):
        os.environ["PARALLEL_HOME"] = str(self.tmp / "parallel-home")
        path = self.write_spec(spec_text(reps=1))
        hosts = self.tmp / "hosts"
        hosts.write_text("# this machine, without ssh\n:\n")
        r = self.run_cli("--hosts", hosts, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        assert_same_points(self, self.lines(), local_run(self.tmp, path))


def local_run(tmp: Path, path: Path) -> list:
    """The result lines of a plain local run of the spec at path."""
    local_dir = tmp / "local"
    subprocess.run([str(RUN), "--no-build", "--results-dir", str(local_dir), str(path)],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [json.loads(x) for x in (local_dir / path.stem / "results.jsonl").read_text().splitlines()]


def assert_same_points(case, got: list, local: list) -> None:
    """Same points and repetitions, each once, with the same configuration."""
    key = lambda x: (x["point_id"], x["rep"], x["config_key"])  # noqa: E731
    case.assertEqual(len(got), len(local))
    case.assertEqual(sorted(map(key, got)), sorted(map(key, local)))
    for x in got:
        case.assertGreater(x["throughput"], 0)
        case.assertEqual(x["config"]["run"]["threads"], x["point"]["threads"])


SLURM = ROOT / "tests" / "slurm_local.sh"


@unittest.skipUnless(shutil.which("sbatch") and shutil.which("slurmctld"), "SLURM is not installed")
class Slurm(RunnerCase):
    """A one-node SLURM cluster on this machine (tests/slurm_local.sh), started and
    stopped by the test: an sbatch array gives the same results a local run gives."""

    def setUp(self):
        super().setUp()
        self.cluster = Path(tempfile.mkdtemp(prefix="slurm-", dir="/tmp"))
        self.addCleanup(self.stop_cluster)
        r = subprocess.run([str(SLURM), "start", str(self.cluster)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:])
        self.env = {**os.environ, "SLURM_CONF": str(self.cluster / "slurm.conf")}

    def stop_cluster(self):
        subprocess.run([str(SLURM), "stop", str(self.cluster)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        shutil.rmtree(self.cluster, ignore_errors=True)

    def test_job_array_gives_the_same_points(self):
        path = self.write_spec(spec_text(reps=1))
        dry = subprocess.run([str(RUN), "--no-build", "--results-dir", str(self.results),
                              "--slurm-dry-run", str(path)], cwd=ROOT, env=self.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(dry.returncode, 0, dry.stderr)
        script = (self.results / "t" / "slurm" / "job.sh").read_text()
        self.assertIn("#SBATCH --array=0-3", script)
        self.assertIn("#SBATCH --exclusive", script)
        self.assertEqual(self.lines(), [], "--slurm-dry-run must not run anything")
        r = subprocess.run([str(RUN), "--no-build", "--results-dir", str(self.results),
                            "--slurm", "--slurm-wait", str(path)], cwd=ROOT, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("submitted job array", r.stderr)
        assert_same_points(self, self.lines(), local_run(self.tmp, path))
        self.assertIn("threads=2,variant=silo", r.stdout)  # the summary after --slurm-wait


if __name__ == "__main__":
    unittest.main()
