"""The geo layer's failures (--kill-cocoord, --kill-follower, --lose-majority; cc/geo_fail.c,
cc/geo_recover.c): bad values refused in one line; every protocol x CC pairing keeps the
layer's checks (atomicity, replicas equal after the drain, write-read order, no leader told
two decisions, nothing stuck), --verify and the bank's sum through each failure; a dead
correspondent's transactions recovered by both of the seed's cases; the slow path and the
PreCommit at the live datacenter only with one co-coordinator left; the throughput dip and
the recovery of a lost majority; no timer nor lost message without a failure."""
import json
import statistics
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin"
THREE = str(ROOT / "config" / "geo" / "3dc.toml")
BANK = ["--workload", "geo-bank", "--rows", "300", "--threads", "24", "--warmup", "0.2",
        "--duration", "1.4", "--quiet", "--geo", THREE, "--geo-time-scale", "10", "--verify"]
RETWIS = ["--workload", "retwis", "--geo", THREE, "--geo-time-scale", "10", "--quiet"]


def run(variant, *flags):
    return subprocess.run([str(BIN / f"rundb-{variant}"), *flags], capture_output=True,
                          text=True, timeout=120)


def result(variant, *flags):
    p = run(variant, *flags)
    if p.returncode != 0:
        raise AssertionError(f"rundb-{variant} {' '.join(flags)}: exit {p.returncode}\n"
                             f"{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


class GeoFailures(unittest.TestCase):
    def test_bad_values_refused(self):
        cases = [
            (["--commit", "2pc", "--kill-cocoord", "hangzhou@1"], "only d2pc"),
            (["--kill-cocoord", "tokyo@1"], "no datacenter 'tokyo'"),
            (["--kill-cocoord", "hangzhou@"], "is not DC"),
            (["--kill-cocoord", "hangzhou"], "is not DC"),
            (["--kill-cocoord", "hangzhou@-1"], "is not DC"),
            (["--kill-cocoord", "hangzhou@1+2"], "stays down"),
            (["--kill-cocoord", "hangzhou,san-francisco,frankfurt@1"], "recovery needs one"),
            (["--kill-follower", "0/hangzhou@1"], "holds shard 0's leader"),
            (["--kill-follower", "3/frankfurt@1"], "shards 0..2"),
            (["--kill-follower", "0/mars@1"], "no datacenter 'mars'"),
            (["--kill-follower", "0@1"], "is not SHARD/DC"),
            (["--kill-follower", "1/hangzhou@1+0"], "is not SHARD/DC"),
            (["--lose-majority", "x@1"], "is not SHARD@"),
            (["--lose-majority", "1@1+"], "is not SHARD@"),
            (["--kill-cocoord", "hangzhou@1", "--lose-majority", "1@1"], "one of them at a time"),
            (["--decider-timeout", "50"], "needs a failure"),
            (["--decider-timeout", "-5", "--kill-cocoord", "hangzhou@1"], "outside"),
        ]
        for flags, want in cases:
            with self.subTest(flags=flags):
                p = run("silo", *RETWIS, "--duration", "0.1", *flags)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(want, p.stderr)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        p = run("silo", "--workload", "ycsb", "--kill-cocoord", "hangzhou@1")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("needs a deployment file", p.stderr)

    def test_checks_hold_through_each_failure(self):
        failures = {
            "cocoord": ["--kill-cocoord", "hangzhou,san-francisco@0.6"],
            "follower": ["--kill-follower", "1/hangzhou@0.6+0.4"],
            "majority": ["--lose-majority", "2@0.6+0.4"],
        }
        timeout_aborts = {"silo": 0, "no-wait": 0}
        for variant in ("silo", "no-wait"):
            for proto in ("2pc", "d2pc", "carousel"):
                for kind, flags in failures.items():
                    if kind == "cocoord" and proto != "d2pc":
                        continue
                    # no-wait with reads at the leaders livelocks on 300 accounts (shared
                    # locks held across the WAN, upgrades refused): reads at the replicas
                    ro = "off" if variant == "silo" else "on"
                    with self.subTest(variant=variant, proto=proto, kind=kind):
                        r = result(variant, *BANK, "--commit", proto, "--read-opt", ro,
                                   *flags)
                        self.assertTrue(r["check"]["ok"])
                        self.assertTrue(r["verify"]["ok"])
                        f = r["data"]["geo"]["failures"]
                        self.assertEqual(f["conflicting_decisions"], 0)
                        self.assertEqual(f["stuck"], 0)
                        self.assertGreater(f["lost_messages"], 0)
                        if kind == "cocoord":
                            self.assertGreater(f["recovered_by_termination"], 0)
                        elif kind == "follower":
                            self.assertEqual(f["catch_ups"], 1)
                        else:
                            self.assertEqual(f["catch_ups"], 2)
                            timeout_aborts[variant] += f["timeout_aborts"]
                            self.assertGreater(r["data"]["geo"]["aborts_by"]["failure"], 0)
        # decider timeouts after a lost majority: a handful per run (0 to 10 here), so one
        # run may see none by timing; each variant's three protocols together must see some
        for variant, n in timeout_aborts.items():
            self.assertGreater(n, 0, variant)

    def test_correspondent_timeouts_across_its_death(self):
        # a decider timer at an eighth of the detector's timeout fires while most attempts
        # still gather votes: the live correspondents terminate them (never a plain abort,
        # which a backup could not see once its messages died with it), then die mid-way;
        # their backups' terminations must reach the same decisions
        for variant, ro in (("silo", "off"), ("no-wait", "on")):
            with self.subTest(variant=variant):
                r = result(variant, *BANK, "--commit", "d2pc", "--read-opt", ro,
                           "--decider-timeout", "57.5",
                           "--kill-cocoord", "hangzhou,san-francisco@0.6")
                self.assertTrue(r["check"]["ok"])
                self.assertTrue(r["verify"]["ok"])
                f = r["data"]["geo"]["failures"]
                self.assertAlmostEqual(f["decider_timeout_ms"], 5.75)
                self.assertGreater(f["timeout_terminations"], 100)
                self.assertGreater(f["recovered_by_termination"], 0)
                self.assertEqual(f["conflicting_decisions"], 0)
                self.assertEqual(f["stuck"], 0)

    def test_lost_majority_cascades(self):
        # a loss shorter than the timeout: a PreCommitted writer's replication is lost, its
        # readers' (sent after the loss) is not; the writer's timer aborts it, and its
        # readers' deferred votes turn into no votes (the seed's arrow 7, then cascade)
        cascades = 0
        for seed in range(1, 6):
            r = result("silo", *BANK, "--commit", "d2pc", "--read-opt", "off", "--seed",
                       str(seed), "--lose-majority", "0@0.6+0.04")
            self.assertTrue(r["check"]["ok"])
            self.assertTrue(r["verify"]["ok"])
            self.assertGreater(r["data"]["geo"]["wr_dependencies"], 0)
            cascades += r["data"]["geo"]["aborts_by"]["cascade"]
            if cascades:
                break
        self.assertGreater(cascades, 0)

    def test_recovery_cases_one_and_two(self):
        # a's co-coordinator dies; b is 5 ms from a, c 50 ms: a decision sent less than
        # 50 ms before the crash reached b's copy but not c's leader (case 1); a
        # transaction still gathering votes has no copy anywhere (case 2)
        with tempfile.TemporaryDirectory() as d:
            dep = Path(d) / "near.toml"
            dep.write_text('datacenters = ["a", "b", "c"]\nours = ["a", "b", "c"]\n'
                           "one_way_ms = [[0, 5, 50], [5, 0, 50], [50, 50, 0]]\n"
                           "intra_dc_ms = 0.25\njitter_ms = 10\nshards = 3\n"
                           'leaders = ["a", "b", "c"]\n')
            r = result("silo", "--workload", "ycsbt", "--geo", str(dep), "--commit", "d2pc",
                       "--threads", "30", "--rows", "100000", "--theta", "0", "--warmup",
                       "0.2", "--duration", "1.2", "--quiet", "--verify",
                       "--kill-cocoord", "a@0.7")
        f = r["data"]["geo"]["failures"]
        self.assertTrue(r["check"]["ok"])
        self.assertTrue(r["verify"]["ok"])
        self.assertGreater(f["recovered_from_copy"], 0)
        self.assertGreater(f["recovered_by_termination"], 0)
        self.assertEqual(f["conflicting_decisions"], 0)

    def test_one_live_cocoordinator_takes_the_slow_path(self):
        base = [*RETWIS, "--commit", "d2pc", "--threads", "30", "--warmup", "0.3",
                "--duration", "1"]
        one = result("silo", *base, "--kill-cocoord", "frankfurt,san-francisco@0")
        g = one["data"]["geo"]
        self.assertEqual(g["fast_path"], 0)  # one reply per shard: never a majority
        self.assertGreater(g["slow_path"], 0)
        # only Hangzhou's leaders still end their CC period at PreCommit
        self.assertGreater(g["precommit_releases"], 0)
        all3 = result("silo", *base)["data"]["geo"]
        self.assertEqual(all3["slow_path"], 0)
        self.assertGreater(all3["precommit_releases"], 1.5 * g["precommit_releases"])

    def test_lost_majority_dips_and_recovers(self):
        r = result("silo", *RETWIS, "--commit", "d2pc", "--threads", "30", "--warmup", "0.2",
                   "--duration", "2.5", "--series-interval", "0.1",
                   "--lose-majority", "0@0.8+0.5")
        self.assertTrue(r["check"]["ok"])
        t, c = r["series"]["t_s"], r["series"]["commits_per_s"]
        # 100 ms samples of 30 threads on a few cores: the median of the loss's samples
        # (one may catch a late burst), and the mean from 0.6 s after it ended
        before = [y for x, y in zip(t, c) if 0.3 <= x <= 0.8]
        during = [y for x, y in zip(t, c) if 1.0 <= x <= 1.3]
        after = [y for x, y in zip(t, c) if x >= 1.9]
        mean = lambda v: sum(v) / len(v)
        self.assertLess(statistics.median(during), 0.2 * mean(before), (before, during))
        self.assertGreater(mean(after), 0.5 * mean(before), (before, after))

    def test_no_failure_no_timers(self):
        r = result("silo", *BANK, "--commit", "d2pc")
        f = r["data"]["geo"]["failures"]
        self.assertEqual(f["injected"], [])
        self.assertEqual((f["timer_fires"], f["lost_messages"]), (0, 0))


if __name__ == "__main__":
    unittest.main()
