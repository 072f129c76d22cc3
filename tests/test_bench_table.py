"""`make bench`'s vs_none and min-max columns (experiments/table.awk): each run's
throughput over `none`'s at the same point in the same repetition (the i-th run of each),
the median over the repetitions, and the lowest and highest of those ratios; "-" where
the point has no `none` run. Fed made-up result lines, so the expected cells are known
exactly."""
import unittest

from tests.table_awk import table_text


def line(variant, throughput, threads=2, theta=0.6):
    """The fields of a result line that table.awk reads."""
    return {"variant": variant, "workload": "ycsb", "threads": threads,
            "throughput": throughput, "abort_rate": 0.0, "latency_us": {"p99": 1.0},
            "config": {"theta": theta, "read-ratio": 0.9, "rows": 1000, "fields": 10,
                       "field-size": 10}}


def table(results):
    """table.awk's rows of these results, as {(threads, variant): {column: cell}}."""
    header, *rows = table_text(results).splitlines()
    # the cells after "setting" (which holds spaces); the header says "p99 us" in two words
    names = ["threads", "variant", "commits/s", "vs_none", "min-max", "aborts", "p99", "sys%",
             "trip_ns", "reps"]
    assert header.split()[1:] == names[:6] + ["p99", "us"] + names[7:], header
    cells = {}
    for row in rows:
        c = dict(zip(names, row.split()[-len(names):]))
        cells[(int(c["threads"]), c["variant"])] = c
    return cells


class VsNone(unittest.TestCase):
    def test_paired_by_repetition(self):
        # repetition 1: none 100, silo 80 (0.80); repetition 2: none 200, silo 100 (0.50).
        # Paired, the median is 0.65; the ratio of the medians (90 / 150) would be 0.60.
        rows = table([line("none", 100), line("silo", 80), line("none", 200), line("silo", 100)])
        self.assertEqual(rows[(2, "silo")]["vs_none"], "0.65")
        self.assertEqual(rows[(2, "silo")]["min-max"], "0.50-0.80")
        self.assertEqual(rows[(2, "none")]["vs_none"], "1.00")
        self.assertEqual(rows[(2, "none")]["min-max"], "1.00-1.00")

    def test_no_none_at_the_point(self):
        # silo at 1 thread has no none run beside it; the one at 2 threads is another point
        rows = table([line("none", 100), line("silo", 50, threads=1)])
        self.assertEqual(rows[(1, "silo")]["vs_none"], "-")
        self.assertEqual(rows[(1, "silo")]["min-max"], "-")

    def test_more_runs_than_none(self):
        # only the runs that have a none partner count: 90 / 100
        rows = table([line("none", 100), line("tictoc", 90), line("tictoc", 10)])
        self.assertEqual(rows[(2, "tictoc")]["vs_none"], "0.90")
        self.assertEqual(rows[(2, "tictoc")]["min-max"], "0.90-0.90")

    def test_spread_of_three(self):
        # ratios 0.70, 0.95, 0.60 by repetition: median 0.70, lowest 0.60, highest 0.95
        rows = table([line("none", 100), line("mvto", 70), line("none", 200),
                      line("mvto", 190), line("none", 50), line("mvto", 30)])
        self.assertEqual(rows[(2, "mvto")]["vs_none"], "0.70")
        self.assertEqual(rows[(2, "mvto")]["min-max"], "0.60-0.95")


if __name__ == "__main__":
    unittest.main()
