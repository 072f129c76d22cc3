"""The result's per-phase CPU usage (storage/cpu_usage.c, "cpu" in the JSON result), the
summary's kernel-time line and `make bench`'s sys% column (experiments/table.awk)."""
import json
import re
import subprocess
import unittest
from pathlib import Path

from tests.table_awk import table_text

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin" / "rundb-silo"
# never waits for a lock (it aborts and yields instead), so its voluntary switches are
# the driver's own
NO_WAIT = ROOT / "build" / "bin" / "rundb-no-wait"
PHASES = ("load", "generate", "warmup", "window")
KEYS = ("user_s", "sys_s", "sys_share", "minor_faults", "major_faults",
        "voluntary_switches", "involuntary_switches")


def window_intervals(s):
    """The indexes of series s's intervals in the measured window. (t_s has 4 decimals,
    measure_start_s 6: the warm-up's last interval ends at the window's start, which its
    t_s may round up past.)"""
    return [i for i, t in enumerate(s["t_s"]) if t > s["measure_start_s"] + 1e-3]


def run(*flags):
    p = subprocess.run([str(BIN), "--threads", "2", *flags], capture_output=True, text=True,
                       timeout=120, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


class CpuUsage(unittest.TestCase):
    def test_phases(self):
        r, err = run("--workload", "tpcc", "--warehouses", "1", "--warmup", "0.3",
                     "--duration", "1")
        cpu = r["cpu"]
        self.assertEqual(tuple(cpu), PHASES)
        for phase in PHASES:
            self.assertEqual(tuple(cpu[phase]), KEYS)
            c = cpu[phase]
            self.assertGreaterEqual(min(c[k] for k in KEYS), 0)
            self.assertLessEqual(c["sys_share"], 1)
        # the loaders write every row: most of the load's faults; two busy workers use
        # up to two CPUs through the window (with slack for the main thread and rounding)
        self.assertGreater(cpu["load"]["minor_faults"], 1000)
        w = cpu["window"]
        self.assertGreater(w["user_s"] + w["sys_s"], 0.3 * r["duration_s"])
        self.assertLess(w["user_s"] + w["sys_s"], 2.5 * r["duration_s"])
        share = w["sys_s"] / (w["user_s"] + w["sys_s"])
        self.assertAlmostEqual(w["sys_share"], share, places=3)
        self.assertEqual("cpu in the window" in err, share > 0.05, err)

    def test_reserve_ahead(self):
        # TPC-C inserts orders, order lines and history rows: reserved in the warm-up,
        # the window faults in far fewer pages per commit; the reserved chunks (placed
        # tables' spares) hold correct rows
        per_commit = {}
        for on in ("off", "on"):
            # 8 GiB, whatever the machine's memory: a few GB are needed
            r, _ = run("--workload", "tpcc", "--mix", "neworder-payment", "--warehouses", "2",
                       "--warmup", "0.6", "--duration", "1", "--check", "--reserve-ahead", on,
                       "--reserve-budget-mib", "8192")
            self.assertTrue(r["check"]["ok"])
            self.assertEqual(r["reserve_ahead"]["on"], on == "on")
            self.assertEqual(r["reserve_ahead"]["bytes"] > 0, on == "on")
            self.assertFalse(r["reserve_ahead"]["capped"])
            # the workers paused while it reserved: none of it went to their inserts. A
            # worker the machine ran late (past the driver's 0.1 s wait for the pause)
            # pauses at its next transaction's end: at most 17 keys (a NewOrder's) per
            # worker and pause (3 pauses), 102 in all; workers that never pause insert
            # millions meanwhile (4.8 M and 11.7 M measured)
            self.assertLess(r["reserve_ahead"]["rows_inserted"], 200)
            per_commit[on] = r["cpu"]["window"]["minor_faults"] / r["commits"]
        self.assertLess(per_commit["on"], 0.5 * per_commit["off"], per_commit)

    def test_reserve_budget_cut_short_is_reported(self):
        # 64 MiB for what 2 warehouses insert in 1 s (about 1.5 GB): the reservation is cut
        # short, says so, and the window faults the rest in
        r, err = run("--workload", "tpcc", "--mix", "neworder-payment", "--warehouses", "2",
                     "--warmup", "0.6", "--duration", "1", "--reserve-budget-mib", "64")
        ra = r["reserve_ahead"]
        self.assertEqual(ra["budget_bytes"], 64 << 20)
        self.assertTrue(ra["capped"], ra)
        self.assertGreater(ra["bytes"], 0)
        self.assertLessEqual(ra["bytes"], ra["budget_bytes"])
        self.assertIn("reserve-ahead: cut short by its budget of 64 MiB", err)
        self.assertGreater(r["cpu"]["window"]["minor_faults"], 1000)

    def test_series_per_interval(self):
        # without the reservation TPC-C's window faults its inserts in: the series says in
        # which intervals, and its window intervals add up to the window's counters (the
        # same getrusage samples at the window's edges)
        r, err = run("--workload", "tpcc", "--mix", "neworder-payment", "--warehouses", "1",
                     "--warmup", "0.3", "--duration", "1.5", "--series-interval", "0.5",
                     "--reserve-ahead", "off")
        s = r["series"]
        for key in ("sys_share", "minor_faults", "cpu_busy"):
            self.assertEqual(len(s[key]), len(s["t_s"]), key)
        self.assertTrue(all(0 <= x <= 1 for x in s["sys_share"]), s["sys_share"])
        window = window_intervals(s)
        self.assertGreaterEqual(len(window), 3, s["t_s"])
        faults = sum(s["minor_faults"][i] for i in window)
        want = r["cpu"]["window"]["minor_faults"]
        self.assertGreater(want, 1000)
        self.assertEqual(faults, want)
        # the line counts the busy intervals: cpu_busy at least half of min(threads, CPUs),
        # over at least half an interval. The JSON rounds t_s and sys_share to 4 decimals
        # and cpu_busy to 3, so an interval that close to a line may count either way:
        # lo counts only those clear of every line, hi those not clearly below one
        floor, half = 0.5 * min(2, r["machine"]["cpus_allowed"]), s["interval_s"] / 2

        def counted(slack):
            busy = [i for i in window
                    if s["t_s"][i] - (s["t_s"][i - 1] if i else 0) >= half + slack
                    and s["cpu_busy"][i] >= floor + slack]
            return len(busy), sum(s["sys_share"][i] > 0.05 + slack / 10 for i in busy)

        (busy_lo, over_lo), (busy_hi, over_hi) = counted(1e-3), counted(-1e-3)
        m = re.search(r"kernel above 5% of the CPU in (\d+) of the window's (\d+) busy", err)
        if m:
            over, busy = int(m[1]), int(m[2])
            self.assertTrue(0 < over and over_lo <= over <= over_hi, (over, s, err))
            self.assertTrue(busy_lo <= busy <= busy_hi, (busy, s, err))
        else:
            self.assertEqual(over_lo, 0, (s, err))

    def test_idle_intervals_left_out(self):
        # an open loop at 100 transactions/s keeps its CPUs near idle: the kernel's share
        # there is its sleeps' system calls, which the per-interval line leaves out
        r, err = run("--rows", "10000", "--rate", "100", "--warmup", "0.2", "--duration", "1",
                     "--series-interval", "0.25")
        s = r["series"]
        window = window_intervals(s)
        self.assertTrue(all(s["cpu_busy"][i] < 0.2 for i in window), s["cpu_busy"])
        self.assertNotIn("kernel above 5% of the CPU in", err)

    def test_start_barrier_sleeps(self):
        # workers that generated their queries sleep in the start barrier until the main
        # thread wakes them all (wait_word, storage/wait.h). The phase's voluntary switches
        # are then mostly the main thread's 1 ms polls of the ready count (about 1,000 a
        # second) and the sleepers' safety-net wake-ups (one per 100 ms each): 254-333 in
        # all measured, 64 threads on 2 CPUs. A barrier of WAIT_BLIND rounds (20 us
        # sleeps) took 33k-46k there in 0.1 s of generating, starving the workers still
        # generating: the run stalled past the 10 s watchdog in about 1% of runs. The
        # bound leaves room for about 10 s of generating (1,640 a second).
        p = subprocess.run([str(BIN), "--threads", "64", "--workload", "bank", "--accounts",
                            "200", "--warmup", "0", "--duration", "0.2"],
                           capture_output=True, text=True, timeout=120, check=True)
        gen = json.loads(p.stdout.strip().splitlines()[-1])["cpu"]["generate"]
        self.assertLess(gen["voluntary_switches"], 16000, gen)

    def test_paused_workers_sleep(self):
        # TPC-C inserts, so the warm-up's reserver pauses the workers while it faults
        # memory in (benchmarks/driver.c). Paused workers sleep on the phase word, waking
        # at most every 20 ms (worker_pause): the warm-up's voluntary switches were
        # 1,136-2,621 in all measured (64 threads on 2 CPUs, 1 warehouse). In 1 ms
        # rounds, 64 sleepers took the reserver's CPU: 49k-163k switches (silo, whose
        # parked lock waits add to them), and the pauses (reserve_ahead.s) grew from
        # 0.22-0.49 s to 0.83-1.7 s.
        p = subprocess.run([str(NO_WAIT), "--threads", "64", "--workload", "tpcc", "--mix",
                            "neworder-payment", "--warehouses", "1", "--warmup", "1",
                            "--duration", "0.2"],
                           capture_output=True, text=True, timeout=300, check=True)
        r = json.loads(p.stdout.strip().splitlines()[-1])
        ra = r["reserve_ahead"]
        self.assertGreater(ra["bytes"], 0, ra)  # it reserved, so it paused the workers
        # 64 sleepers waking every 20 ms make 3,200 switches a paused second (measured:
        # about 3,400 with the rest of the warm-up's); twice that, and 1,000 for the rest.
        # The 1 ms rounds made about 64,000 a paused second.
        warm = r["cpu"]["warmup"]
        self.assertLess(warm["voluntary_switches"], 1000 + 2 * 64 * ra["s"] / 0.02,
                        (warm, ra))

    def test_bench_table_column(self):
        r, _ = run("--warmup", "0", "--duration", "0.2", "--rows", "10000")
        header, row = table_text([r]).splitlines()[:2]
        self.assertIn("sys%", header.split())
        col = header.split().index("sys%")
        want = f"{100 * r['cpu']['window']['sys_share']:.1f}%"
        # "setting" holds spaces: count the columns from the right
        self.assertEqual(row.split()[col - len(header.split())], want)


if __name__ == "__main__":
    unittest.main()
