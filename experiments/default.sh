#!/usr/bin/env bash
# The main job (`make run`): a short YCSB comparison of every variant at 2 threads, at
# high (theta 0.99, 50% reads) and moderate (theta 0.6, 90% reads) contention, on 1 M
# rows of 10 x 100 bytes. Result lines are appended to results/default.jsonl as each run
# ends; the table is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p results
out=results/default.jsonl
: >"$out.tmp"
variants=$(awk '!/^#/ && NF {print $1}' config/variants.tsv)
for setting in "--theta 0.99 --read-ratio 0.5" "--theta 0.6 --read-ratio 0.9"; do
    for v in $variants; do
        echo "running $v $setting" >&2
        # shellcheck disable=SC2086
        build/bin/rundb-$v --threads 2 --warmup 0.5 --duration 2 --rows 1000000 $setting \
            --out "$out" 2>/dev/null | tail -n 1 >>"$out.tmp"
    done
done
awk -f experiments/table.awk "$out.tmp"
rm -f "$out.tmp"
