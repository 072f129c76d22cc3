"""Shared writes per committed transaction, per variant (`make shared-writes`).

Runs every variant's counting build (build/shw/bin, -DCOUNT_SHARED_WRITES=1; see
storage/shared_writes.h) with one thread on YCSB and on TPC-C, prints the table, and
fails (exit 1) if
  - any variant makes a write to a process-wide word (kind "global") per transaction, or
    more than MAX_TABLE writes per transaction to table-wide words (row-number blocks,
    index growth): these are what stops scaling at 128 threads;
  - the table in docs/algorithms.md (between the shared-writes markers) differs from the
    counts by more than TOLERANCE or RELATIVE (so the documented table stays true).
--write rewrites that table from the counts instead of comparing.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "shw" / "bin"
DOC_NAME = "docs/algorithms.md"  # the file that holds the table, between BEGIN and END
DOC = ROOT / DOC_NAME
KINDS = ["row", "index", "table", "global", "peer", "own"]
WORKLOADS = {
    "ycsb": ["--workload", "ycsb", "--rows", "100000", "--theta", "0.6", "--read-ratio", "0.9"],
    # 4 warehouses: room for about 2 M inserted ORDER-LINE rows before that index grows
    # (a growth moves buckets, index writes that depend on how fast the machine is)
    "tpcc": ["--workload", "tpcc", "--warehouses", "4"],
}
MAX_TABLE = 0.25   # TPC-C: about 6 inserts per transaction, one block of 64 row numbers each
TOLERANCE = 0.25   # per cell, absolute or RELATIVE of the value, whichever is larger: the
RELATIVE = 0.03    # mix of TPC-C transactions (and so the counts) varies run to run
BEGIN, END = "<!-- shared-writes:begin -->", "<!-- shared-writes:end -->"

sys.path.insert(0, str(ROOT / "experiments"))
from sweep.spec import known_variants  # noqa: E402  (the sweep runner's reading of variants.tsv)


def measure(variant, workload):
    cmd = [str(BIN / f"rundb-{variant}"), *WORKLOADS[workload], "--threads", "1",
           "--warmup", "0.2", "--duration", "0.5", "--quiet"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    return res["shared_writes_per_commit"]


def table(counts):
    lines = ["| variant | workload | " + " | ".join(KINDS) + " |",
             "|---|---|" + "---|" * len(KINDS)]
    for (v, w), c in counts.items():
        lines.append(f"| {v} | {w} | " + " | ".join(f"{c[k]:.1f}" for k in KINDS) + " |")
    return "\n".join(lines)


def parse(text):
    got = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 + len(KINDS) and re.fullmatch(r"[\d.]+", cells[2]):
            got[(cells[0], cells[1])] = dict(zip(KINDS, map(float, cells[2:])))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"rewrite the table in {DOC_NAME}")
    args = ap.parse_args()
    counts = {(v, w): measure(v, w) for v in known_variants() for w in WORKLOADS}
    text = table(counts)
    print(text)
    bad = [f"{v} {w}: {c['global']:.2f} global, {c['table']:.2f} table writes per commit"
           for (v, w), c in counts.items() if c["global"] > 0 or c["table"] > MAX_TABLE]
    doc_text = DOC.read_text()
    if BEGIN not in doc_text or END not in doc_text:
        sys.exit(f"shared_writes: {DOC_NAME} has no {BEGIN} ... {END} section")
    head, rest = doc_text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    if args.write:
        DOC.write_text(head + BEGIN + "\n" + text + "\n" + END + tail)
    else:
        doc = parse(body)
        for key, c in counts.items():
            if key not in doc:
                bad.append(f"{key[0]} {key[1]}: missing from the table in {DOC_NAME}")
                continue
            for k in KINDS:
                if abs(doc[key][k] - c[k]) > max(TOLERANCE, RELATIVE * c[k]):
                    bad.append(f"{key[0]} {key[1]} {k}: {DOC_NAME} says {doc[key][k]:.1f}, "
                               f"counted {c[k]:.2f}")
    for b in bad:
        print("FAIL", b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
