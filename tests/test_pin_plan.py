"""Pin plans (rundb --pin-plan, storage/topology.c) on synthetic machines (HWLOC_SYNTHETIC):
a two-socket SMT server, a socket split into four NUMA nodes, a laptop; and this machine's
plan as it appears in a run's result."""
import json
import os
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNDB = ROOT / "build" / "bin" / "rundb-silo"

SERVER = "pack:2 core:64 pu:2"             # 2 sockets x 64 cores x 2 hyper-threads
SPLIT = "pack:1 numa:4 core:8 pu:2"        # one socket, 4 NUMA nodes (sub-NUMA clustering)
LAPTOP = "core:8 pu:1"                     # 1 socket x 8 cores, no SMT


def plan(topology, policy, threads):
    env = dict(os.environ, HWLOC_SYNTHETIC=topology)
    out = subprocess.run([str(RUNDB), "--pin", policy, "--threads", str(threads), "--pin-plan"],
                         env=env, capture_output=True, text=True, check=True).stdout
    slots = json.loads(out)
    assert policy == "none" or [s["thread"] for s in slots] == list(range(threads))
    return slots


class PinPlan(unittest.TestCase):
    def test_compact_server_one_thread_per_core_socket_by_socket(self):
        p = plan(SERVER, "compact", 256)
        first = p[:128]
        self.assertEqual(len({s["core"] for s in first}), 128)  # no sibling shared yet
        self.assertEqual({s["package"] for s in first[:64]}, {0})
        self.assertEqual({s["package"] for s in first[64:]}, {1})
        # siblings only after every core has a thread: the same cores again, other PUs
        self.assertEqual([s["core"] for s in p[128:]], [s["core"] for s in first])
        self.assertEqual(len({s["pu"] for s in p}), 256)

    def test_scatter_server_alternates_sockets(self):
        p = plan(SERVER, "scatter", 128)
        self.assertEqual([s["package"] for s in p[:6]], [0, 1, 0, 1, 0, 1])
        self.assertEqual(len({s["core"] for s in p}), 128)

    def test_smt_fills_siblings_first(self):
        p = plan(SERVER, "smt", 4)
        self.assertEqual([s["core"] for s in p], [0, 0, 1, 1])
        self.assertEqual(len({s["pu"] for s in p}), 4)

    def test_split_socket_scatter_round_robin_over_nodes(self):
        p = plan(SPLIT, "scatter", 8)
        self.assertEqual([s["numa_node"] for s in p], [0, 1, 2, 3, 0, 1, 2, 3])
        self.assertEqual(len({s["core"] for s in p}), 8)

    def test_split_socket_compact_fills_a_node_first(self):
        p = plan(SPLIT, "compact", 16)
        self.assertEqual([s["numa_node"] for s in p[:8]], [0] * 8)
        self.assertEqual(len({s["core"] for s in p}), 16)

    def test_laptop_wraps_when_oversubscribed(self):
        p = plan(LAPTOP, "compact", 10)
        self.assertEqual([s["pu"] for s in p], [0, 1, 2, 3, 4, 5, 6, 7, 0, 1])
        self.assertEqual({s["package"] for s in p}, {-1})  # the synthetic laptop has none

    def test_none_is_empty(self):
        self.assertEqual(plan(LAPTOP, "none", 4), [])

    def test_synthetic_machine_refuses_a_run(self):
        env = dict(os.environ, HWLOC_SYNTHETIC=LAPTOP)
        r = subprocess.run([str(RUNDB), "--duration", "0.1"], env=env, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("HWLOC_SYNTHETIC", r.stderr)

    def test_bad_policy(self):
        r = subprocess.run([str(RUNDB), "--pin", "sockets", "--pin-plan"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)

    def test_result_carries_this_machines_plan(self):
        r = subprocess.run([str(RUNDB), "--threads", "2", "--duration", "0.05", "--warmup",
                            "0", "--quiet", "--rows", "1000"],
                           capture_output=True, text=True, check=True)
        res = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual([s["thread"] for s in res["pin_plan"]], [0, 1])
        cpus = os.sched_getaffinity(0)
        self.assertTrue(all(s["os_cpu"] in cpus for s in res["pin_plan"]))


if __name__ == "__main__":
    unittest.main()
