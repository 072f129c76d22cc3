"""experiments/pairs, the side-by-side comparison of two binaries: the run order alternates
by pair, both sides of a pair get its seed, the ratios and their median are B/A, and bad
input or a failed run gives one line and a non-zero exit. Stand-in binaries (shell
scripts that log their calls and print a result line) make the numbers exact; one case
runs the real `none` binary."""
import json
import os
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "experiments" / "pairs"

# B's throughput over A's at seeds 1..4: median 1.1 (of 0.8, 1.05, 1.15, 1.2 -> 1.1)
RATIO = {1: 1.2, 2: 0.8, 3: 1.15, 4: 1.05}


def stand_in(path: Path, name: str, log: Path, factor: str, extra: str = ""):
    """A binary that logs `name seed` and prints a JSON result whose throughput is
    1000 * seed * factor(seed); extra is shell run first (to fail or hang)."""
    path.write_text(f"""#!/bin/sh
{extra}
echo "{name} $*" >> {log}.args
seed=0
while [ $# -gt 0 ]; do [ "$1" = --seed ] && seed=$2; shift; done
echo "{name} $seed" >> {log}
f=$(case $seed in {factor} esac)
echo "summary on stderr" >&2
echo "{{\\"throughput\\": $(awk "BEGIN {{print 1000 * $seed * $f}}"), \\"cpu\\": {{\\"window\\": {{\\"sys_share\\": 0.5}}}}}}"
""")
    path.chmod(0o755)


def run(*args, timeout=60):
    return subprocess.run([str(PAIRS), *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


class Pairs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = Path(self.tmp.name)
        self.log = d / "calls.log"
        self.a, self.b = d / "a", d / "b"
        stand_in(self.a, "A", self.log, "*) echo 1 ;;")
        stand_in(self.b, "B", self.log,
                 " ".join(f"{s}) echo {r} ;;" for s, r in RATIO.items()) + " *) echo 1 ;;")

    def tearDown(self):
        self.tmp.cleanup()

    def test_order_alternates_and_seeds_are_shared(self):
        p = run("-n", 4, self.a, self.b, "--", "--threads", 1)
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = self.log.read_text().split()
        got = list(zip(calls[0::2], map(int, calls[1::2])))
        self.assertEqual(got, [("A", 1), ("B", 1), ("B", 2), ("A", 2),
                               ("A", 3), ("B", 3), ("B", 4), ("A", 4)])
        args = Path(f"{self.log}.args").read_text().splitlines()
        self.assertEqual(len(args), 8)
        for line, (side, seed) in zip(args, got):
            self.assertEqual(line, f"{side} --threads 1 --seed {seed}")

    def test_ratios_and_median(self):
        p = run("-n", 4, self.a, self.b)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [line.split() for line in p.stdout.splitlines() if line[:4].strip().isdigit()]
        self.assertEqual([float(r[-1]) for r in rows], [RATIO[s] for s in (1, 2, 3, 4)])
        self.assertEqual([r[2] for r in rows], ["A", "B", "A", "B"])
        self.assertIn("B/A: median 1.100, range 0.800-1.200 over 4 pairs", p.stdout)

    def test_first_seed_and_nested_metric(self):
        p = run("-n", 2, "--first-seed", 3, "--metric", "cpu.window.sys_share", self.a, self.b)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(set(self.log.read_text().split()[1::2])), ["3", "4"])
        self.assertIn("B/A: median 1.000, range 1.000-1.000 over 2 pairs", p.stdout)

    def test_results_file_gets_every_run(self):
        out = Path(self.tmp.name) / "r.jsonl"
        p = run("-n", 2, "--results", out, self.a, self.b)
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = [json.loads(x) for x in out.read_text().splitlines()]
        self.assertEqual([(r["rep"], r["point_id"]) for r in recs],
                         [(1, "A"), (1, "B"), (2, "B"), (2, "A")])
        self.assertEqual(recs[1]["throughput"], 1000 * RATIO[1])

    def test_bad_input_is_one_line_and_nonzero(self):
        cases = [
            (["-n", 0, self.a, self.b], 2, "must be at least 1"),
            ([self.a, "no-such-variant"], 2, "no binary"),
            ([self.a, self.b, "--", "--seed", 3], 2, "--seed is set per pair"),
            (["--metric", "nope", self.a, self.b], 1, "the result has no 'nope'"),
            (["--metric", "cpu.window", self.a, self.b], 1, "is not a number"),
            (["--metric", "throughput.x", self.a, self.b], 1, "is not an object"),
            (["--timeout", "inf", self.a, self.b], 2, "must be a finite number above 0"),
            ([self.a, self.log], 2, "is not executable"),
            (["--results", Path(self.tmp.name) / "no" / "r.jsonl", self.a, self.b], 2,
             "--results"),
        ]
        self.log.write_text("")  # a plain file: B of the case "is not executable"
        for args, code, msg in cases:
            self.log.write_text("")
            p = run(*args)
            self.assertEqual(p.returncode, code, (args, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))
            self.assertIn(msg, p.stderr)
        # the last case: a bad --results path is refused before any run
        self.assertEqual(self.log.read_text(), "")

    def test_unstartable_binary_is_reported(self):
        junk = Path(self.tmp.name) / "junk"
        junk.write_bytes(b"\x00\x01 not a program")
        junk.chmod(0o755)
        p = run(self.a, junk)
        self.assertEqual(p.returncode, 1)
        self.assertIn("pair 1, B", p.stderr)
        self.assertIn("could not start", p.stderr)

    def test_failed_or_hung_run_is_reported(self):
        d = Path(self.tmp.name)
        stand_in(d / "fails", "F", self.log, "*) echo 1 ;;", 'echo "rundb: boom" >&2; exit 3')
        p = run(self.a, d / "fails")
        self.assertEqual(p.returncode, 1)
        self.assertIn("pair 1, B", p.stderr)
        self.assertIn("exited 3: rundb: boom", p.stderr)
        stand_in(d / "hangs", "H", self.log, "*) echo 1 ;;", "sleep 60")
        start = time.monotonic()
        p = run("--timeout", 1, d / "hangs", self.b)
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(p.returncode, 1)
        self.assertIn("ran past --timeout", p.stderr)

    def test_real_binary(self):
        if not (ROOT / "build" / "bin" / "rundb-none").exists():
            self.skipTest("build/bin/rundb-none not built")
        p = run("-n", 2, "none", "none", "--", "--threads", 1, "--rows", 10000,
                "--warmup", 0, "--duration", 0.2, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"B/A: median \d\.\d{3}, range .* over 2 pairs")


if __name__ == "__main__":
    os.chdir(ROOT)
    unittest.main()
