"""Open-loop load (rundb --rate, benchmarks/arrivals.h): a light load is served at the
offered rate, unqueued; an overload is marked saturated, its arrivals queue, and the
queueing is part of the latency; a closed-loop run reports no open loop; a bad rate is
refused;
many clients at a low rate count every arrival and commit at the window's edges; idle
clients are not taken for a stall."""
import json
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNDB = ROOT / "build" / "bin" / "rundb-silo"
YCSB = ["--workload", "ycsb", "--rows", "100000", "--theta", "0.6", "--read-ratio", "0.9",
        "--threads", "2", "--warmup", "0.2", "--duration", "1.5", "--quiet"]


def run(*flags):
    out = subprocess.run([str(RUNDB), *YCSB, *flags], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return json.loads(out.strip().splitlines()[-1])


class OpenLoop(unittest.TestCase):
    def test_light_load_is_served_at_the_offered_rate(self):
        r = run("--rate", "2000")
        ol = r["open_loop"]
        # 3000 arrivals expected: a Poisson count is within 15% far beyond 5 sigma
        self.assertLess(abs(ol["offered_per_s"] - 2000), 300, ol)
        self.assertLess(abs(ol["achieved_per_s"] - ol["offered_per_s"]),
                        0.05 * ol["offered_per_s"], ol)
        self.assertFalse(ol["saturated"], ol)
        self.assertLess(ol["queued_frac"], 0.5, ol)
        self.assertAlmostEqual(r["throughput"], ol["achieved_per_s"], delta=1)

    def test_many_clients_at_a_low_rate_are_not_saturated(self):
        # 16 clients, 25 arrivals each: an arrival lost or a commit dropped at a window edge
        # per client would cost 16/s (4% of the achieved rate); the line is half that, as
        # arrivals served late at the window's end (16 threads on 2 cores wake late) also
        # count a few
        ol = run("--threads", "16", "--rate", "400", "--duration", "1")["open_loop"]
        self.assertFalse(ol["saturated"], ol)
        self.assertLessEqual(abs(ol["achieved_per_s"] - ol["offered_per_s"]), 8, ol)

    def test_low_rate_idle_clients_are_not_a_stall(self):
        # about one arrival in the window: long stretches without a commit are no stall
        r = run("--rate", "1", "--stall-timeout", "0.5", "--duration", "1.5")
        self.assertIsNotNone(r["open_loop"])

    def test_overload_is_saturated_and_queueing_is_in_the_latency(self):
        r = run("--rate", "100000000")
        ol = r["open_loop"]
        self.assertTrue(ol["saturated"], ol)
        self.assertGreater(ol["queued_frac"], 0.99, ol)
        self.assertLess(ol["achieved_per_s"], 0.95 * ol["offered_per_s"], ol)
        # the backlog grows through the window: waits of milliseconds, in the latency
        self.assertGreater(ol["queue_wait_us"]["p50"], 1000, ol)
        self.assertGreaterEqual(r["latency_us"]["p50"], 0.9 * ol["queue_wait_us"]["p50"])

    def test_closed_loop_has_no_open_loop_result(self):
        self.assertIsNone(run()["open_loop"])

    def test_bad_rate_is_refused(self):
        for bad in ("-1", "abc", "1e10", "0.0001"):
            p = subprocess.run([str(RUNDB), *YCSB, "--rate", bad], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 2, bad)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn("rate", p.stderr)


if __name__ == "__main__":
    unittest.main()
