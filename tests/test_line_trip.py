"""The result's cache-line round trip between threads 0 and 1 ("line_trip_ns" under
"machine" in the JSON result; storage/line_trip.c): measured before the workers start and
after they stop where both threads are pinned to different CPUs, null otherwise; and
`make bench`'s trip_ns column (experiments/table.awk)."""
import json
import subprocess
import unittest
from pathlib import Path

from tests.table_awk import table_text

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin" / "rundb-none"


def result(*flags):
    p = subprocess.run([str(BIN), "--warmup", "0", "--duration", "0.3", "--quiet", "--rows",
                        "10000", *flags], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(*flags):
    return result(*flags)["machine"]["line_trip_ns"]


def table_column(results, name):
    """The named column of table.awk's table of these results, one cell per row."""
    header, *rows = table_text(results).splitlines()
    col = header.split().index(name) - len(header.split())  # "setting" holds spaces
    return [row.split()[col] for row in rows]


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

    def test_bench_table(self):
        two, one = result("--threads", "2"), result("--threads", "1")
        trip = two["machine"]["line_trip_ns"]
        want = f"{(trip['before'] + trip['after']) / 2:.0f}"
        self.assertEqual(table_column([two, one], "trip_ns"), [want, "-"])


if __name__ == "__main__":
    unittest.main()
