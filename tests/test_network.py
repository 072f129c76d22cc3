"""The network model (rundb --net-rtt-us, cc/netmodel.h): off by default; each algorithm
pays its declared rounds (no-wait 2 rounds / 1 RTT, wound-wait and silo 3 / 2), messages
per participant server, latency ending at the decision (the commit leg is not in it),
locks held over the commit leg, message CPU, TPC-C rows on their warehouse's server and
its shots, NCC's rounds (read-only 1 / 1, read-write 2 / 1, a read-modify-write +1 / +1),
--verify still passing, bad flags refused."""
import json
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin"
# one row per transaction, uniform over 100k rows: almost no conflicts
ONE_ROW = ["--workload", "ycsb", "--rows", "100000", "--theta", "0", "--req-per-txn", "1",
           "--read-ratio", "0.5", "--warmup", "0.2", "--duration", "1", "--quiet"]
# the latency checks' RTT. The commit leg, which must not be in the latency, is RTT / 2 =
# 5 ms; the upper line is RTT / 4 above the rounds the client waits: 2.5 ms of headroom
# for late wake-ups (four leg sleeps, about 135 us each on a fresh CI VM: 2 ms RTTs left
# 0.5 ms) and the histogram's 3% buckets, while a latency with the commit leg in it
# still lands 1.75 ms or more above the line
RTT = 10000


def run(variant, *flags):
    out = subprocess.run([str(BIN / f"rundb-{variant}"), *flags], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    return json.loads(out.strip().splitlines()[-1])


class Network(unittest.TestCase):
    def test_off_by_default(self):
        self.assertIsNone(run("silo", *ONE_ROW, "--threads", "2")["network"])

    def test_rounds_messages_and_latency_per_algorithm(self):
        # (variant, rounds, RTTs the client waits, messages with one participant)
        for variant, rounds, rtts, messages in (("no-wait", 2, 1, 3), ("wound-wait", 3, 2, 5),
                                                ("silo", 3, 2, 5), ("tictoc", 3, 2, 5),
                                                ("bamboo", 3, 2, 5), ("rcc-ser", 3, 2, 5)):
            r = run(variant, *ONE_ROW, "--threads", "4", "--net-rtt-us", str(RTT))
            net, p50 = r["network"], r["latency_us"]["p50"]
            self.assertAlmostEqual(net["rounds_per_commit"], rounds, delta=0.05, msg=variant)
            self.assertAlmostEqual(net["messages_per_commit"], messages, delta=0.1,
                                   msg=variant)
            # the commit leg (RTT / 2) comes after the decision: not in the latency
            self.assertGreaterEqual(p50, 0.97 * rtts * RTT, variant)  # buckets: 3%
            self.assertLess(p50, rtts * RTT + RTT / 4, variant)

    def test_ncc_rounds(self):
        # (variant, workload flags, rounds, RTTs, messages with one server): NCC's
        # read-only protocol 1 / 1 (no commit message); read-write 2 / 1 (asynchronous
        # commit); a read-modify-write's write in its own shot, +1 / +1
        f1 = ["--workload", "f1", "--rows", "100000", "--theta", "0", "--servers", "1",
              "--warmup", "0.2", "--duration", "1", "--quiet"]
        rmw = [*ONE_ROW, "--read-ratio", "0", "--servers", "1"]
        for variant, flags, rounds, rtts, messages in (
                ("ncc", [*f1, "--write-fraction", "0"], 1, 1, 2),
                ("ncc-rw", [*f1, "--write-fraction", "0"], 2, 1, 3),
                ("ncc", [*f1, "--write-fraction", "1"], 2, 1, 3),
                ("ncc-rw", rmw, 3, 2, 5)):
            r = run(variant, *flags, "--threads", "4", "--net-rtt-us", str(RTT))
            net, p50 = r["network"], r["latency_us"]["p50"]
            what = f"{variant} {flags[1]}"
            self.assertAlmostEqual(net["rounds_per_commit"], rounds, delta=0.05, msg=what)
            self.assertAlmostEqual(net["messages_per_commit"], messages, delta=0.1, msg=what)
            self.assertGreaterEqual(p50, 0.97 * rtts * RTT, what)
            self.assertLess(p50, rtts * RTT + RTT / 4, what)

    def test_messages_per_participant_server(self):
        # 16 rows over 8 servers: about 7 participants; no-wait sends each a request, gets
        # its reply and sends it the commit
        r = run("no-wait", *ONE_ROW, "--req-per-txn", "16", "--threads", "2",
                "--net-rtt-us", "100", "--servers", "8")
        self.assertGreater(r["network"]["messages_per_commit"], 3 * 6)
        self.assertLessEqual(r["network"]["messages_per_commit"], 3 * 8 + 1)
        r = run("no-wait", *ONE_ROW, "--req-per-txn", "16", "--threads", "2",
                "--net-rtt-us", "100", "--servers", "1")
        self.assertAlmostEqual(r["network"]["messages_per_commit"], 3, delta=0.1)

    def test_message_cpu(self):
        # one request delivered before the decision: 1 ms of CPU in the latency; the
        # commit message's after it (counted in the latency, the median would be 2 ms;
        # the line half-way leaves 0.5 ms for a loaded machine's scheduling delays)
        r = run("no-wait", *ONE_ROW, "--threads", "2", "--net-msg-cpu-us", "1000")
        self.assertGreaterEqual(r["latency_us"]["p50"], 0.97 * 1000)  # buckets: 3%
        self.assertLess(r["latency_us"]["p50"], 1500)

    def test_locks_held_over_the_commit_leg(self):
        # every transaction writes the one row: dl-detect queues them (no aborts) and each
        # holds the lock from its execution until its commit reaches the server: reply
        # leg, prepare round, commit leg = 2 RTTs, so at most 100 commits/s at 5 ms
        # The upper bound holds in every run. The lower one says the hold time, not more,
        # is the limit (a hold of 3 RTTs would give 0.67 x). Each hand-over adds what the
        # machine adds: four late wake-ups from the legs' sleeps and one from the lock's
        # wait, 50-700 us on a VM (0.75 x of the bound at 1 ms on a fresh CI machine,
        # 0.86-0.88 x here). At 5 ms: 0.92-0.94 x here; still the best of up to 3 runs.
        rtt = 5000
        bound = 1e6 / (2 * rtt)
        best = 0.0
        for _ in range(3):
            r = run("dl-detect", "--workload", "ycsb", "--rows", "1", "--req-per-txn", "1",
                    "--read-ratio", "0", "--threads", "8", "--warmup", "0.3",
                    "--duration", "2", "--quiet", "--net-rtt-us", str(rtt))
            self.assertLessEqual(r["throughput"], bound * 1.02)
            best = max(best, r["throughput"])
            if best > bound * 0.8:
                break
        self.assertGreater(best, bound * 0.8)

    def test_tpcc_rows_on_their_warehouse_server(self):
        r = run("no-wait", "--workload", "tpcc", "--mix", "neworder-payment", "--warehouses",
                "1", "--threads", "4", "--warmup", "0.2", "--duration", "1", "--quiet",
                "--net-rtt-us", "100", "--check")
        self.assertTrue(r["check"]["ok"])
        # one warehouse: its rows on one server, HISTORY on another at most: at most 2
        # participants, 1.5 messages per participant and round (request and reply, or a
        # commit)
        self.assertLessEqual(r["network"]["messages_per_commit"] / r["network"]
                             ["rounds_per_commit"], 3.05)

    def test_tpcc_shots_add_rounds(self):
        # one thread, no-wait: NewOrder is 1 shot + commit = 2 rounds; Payment 2 by id
        # and 3 by last name (60%): (2 + 0.4 * 2 + 0.6 * 3) / 2 = 2.3 per commit
        r = run("no-wait", "--workload", "tpcc", "--mix", "neworder-payment", "--warehouses",
                "1", "--threads", "1", "--warmup", "0.2", "--duration", "1", "--quiet",
                "--net-rtt-us", "50")
        self.assertAlmostEqual(r["network"]["rounds_per_commit"], 2.3, delta=0.08)

    def test_verify_still_passes(self):
        r = run("wound-wait", "--workload", "ycsb", "--rows", "1000", "--theta", "0.9",
                "--threads", "8", "--warmup", "0", "--duration", "1", "--quiet", "--verify",
                "--net-rtt-us", "200", "--net-jitter-us", "100")
        self.assertTrue(r["verify"]["ok"])
        self.assertTrue(r["verify"]["strict"])
        self.assertGreater(r["network"]["lateness_us"]["p50"], 0)

    def test_bad_flags_are_refused(self):
        for flag, bad in (("--servers", "0"), ("--servers", "65"), ("--net-rtt-us", "-1"),
                          ("--net-msg-cpu-us", "x")):
            p = subprocess.run([str(BIN / "rundb-silo"), *ONE_ROW, flag, bad],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, (flag, bad))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
