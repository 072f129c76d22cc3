"""The result's cache-line round trip between threads 0 and 1 ("line_trip_ns" under
"machine" in the JSON result; storage/line_trip.c): measured before the workers start and
after they stop where both threads are pinned to different CPUs, null otherwise."""
import json
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin" / "rundb-none"


def run(*flags):
    p = subprocess.run([str(BIN), "--warmup", "0", "--duration", "0.3", "--quiet", "--rows", "10000", *flags],
                       capture_output=True, text=True, timeout=120, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])["machine"]["line_trip_ns"]


class LineTrip(unittest.TestCase):
    def test_two_pinned_threads(self):
        trip = run("--threads", "2")
        self.assertEqual(tuple(trip), ("before", "after"))
        for edge, ns in trip.items():
            # a line that crosses cores takes tens of nanoseconds at least each way; a
            # round trip that never waited for the other thread would take a few
            self.assertGreater(ns, 20, edge)
            self.assertLess(ns, 100000, edge)

    def test_not_measured(self):
        self.assertIsNone(run("--threads", "1"))
        self.assertIsNone(run("--threads", "2", "--pin", "none"))


if __name__ == "__main__":
    unittest.main()
