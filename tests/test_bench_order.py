"""`make bench`'s run order (experiments/bench.sh): odd repetitions run the variants as
listed, `none` first, even ones in reverse, so that table.awk's vs_none ratios, paired by
repetition, are not all pushed one way by a machine that drifts within a repetition."""
import json
import os
import re
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BenchOrder(unittest.TestCase):
    def test_even_repetitions_run_in_reverse(self):
        env = dict(os.environ, BENCH_VARIANTS="none no-wait", BENCH_REPS="2",
                   BENCH_DURATION="0.2", BENCH_THREADS="1", BENCH_WAREHOUSES="1")
        p = subprocess.run([str(ROOT / "experiments" / "bench.sh")], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=240, check=True)
        out = ROOT / re.search(r"results: (\S+)", p.stderr)[1]
        try:
            runs = [json.loads(x) for x in out.read_text().splitlines()]
        finally:
            out.unlink()
            try:
                out.parent.rmdir()  # results/, if this run made it
            except OSError:
                pass
        order = {}  # (setting, repetition) -> variants in run order
        for r in runs:
            c = r["config"]["run"]
            setting = (r["workload"], c["theta"], c["partition-by-warehouse"])
            order.setdefault((setting, c["seed"]), []).append(r["variant"])
        with_none = [k for k, v in order.items() if "none" in v]
        # YCSB at two settings and partitioned TPC-C, each in two repetitions
        self.assertEqual(len(with_none), 6, order)
        for (setting, rep), variants in order.items():
            if "none" in variants:
                want = ["none", "no-wait"] if rep % 2 else ["no-wait", "none"]
                self.assertEqual(variants, want, (setting, rep))


if __name__ == "__main__":
    unittest.main()
