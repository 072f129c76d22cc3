#!/usr/bin/env bash
# `make bench`: YCSB runs of every variant on 1 M rows of 10 x 10 bytes (DBx1000's
# default schema), 16 requests, at theta 0.99 / 50% reads and theta 0.6 / 90% reads, with
# 1 and 2 threads, and TPC-C NewOrder + Payment at 1 and 2 warehouses with 2 threads, and
# at 2 warehouses partitioned without remote accesses (none's bound);
# BENCH_REPS repetitions (default 3) of BENCH_DURATION seconds (default 3) each; prints
# the median of each point. Results go to results/bench-<time>.jsonl. BENCH_VARIANTS,
# BENCH_THREADS and BENCH_WAREHOUSES narrow the grid.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${BENCH_REPS:-3}
dur=${BENCH_DURATION:-3}
variants=${BENCH_VARIANTS:-$(awk '!/^#/ && NF {print $1}' config/variants.tsv)}
threads=${BENCH_THREADS:-"1 2"}
case $reps in '' | *[!0-9]* | 0) echo "BENCH_REPS must be a positive integer" >&2; exit 2 ;; esac
mkdir -p results
out=results/bench-$(date +%Y%m%d-%H%M%S).jsonl
# The variants in repetition $1's order: as listed in odd repetitions, reversed in even
# ones. `none` is listed first; were it always first, a machine that drifts over a
# repetition's minutes would bias every paired ratio (table.awk's vs_none) the same way.
in_order() {
    if [ $(($1 % 2)) = 1 ]; then
        echo $variants
    else
        echo $variants | tr ' ' '\n' | tac | tr '\n' ' '
    fi
}
for setting in "--theta 0.99 --read-ratio 0.5" "--theta 0.6 --read-ratio 0.9"; do
    for t in $threads; do
        for r in $(seq 1 "$reps"); do
            for v in $(in_order "$r"); do
                echo "rep $r: $v $t threads $setting" >&2
                # shellcheck disable=SC2086
                build/bin/rundb-$v --threads "$t" --warmup 1 --duration "$dur" --rows 1000000 \
                    --fields 10 --field-size 10 --req-per-txn 16 --seed "$r" $setting \
                    --out "$out" >/dev/null 2>&1
            done
        done
    done
done
# TPC-C NewOrder + Payment 1:1, 1 and 2 warehouses, 2 threads (none is skipped: without
# concurrency control two threads commit duplicate order ids)
for wh in ${BENCH_WAREHOUSES:-1 2}; do
    for r in $(seq 1 "$reps"); do
        for v in $(in_order "$r"); do
            [ "$v" = none ] && continue
            echo "rep $r: $v tpcc $wh warehouses" >&2
            build/bin/rundb-$v --workload tpcc --mix neworder-payment --warehouses "$wh" \
                --threads 2 --warmup 1 --duration "$dur" --seed "$r" --out "$out" >/dev/null 2>&1
        done
    done
done
# the no-CC bound for TPC-C: 2 warehouses, 2 threads, no thread shares a row (partitioned,
# no remote accesses), so none runs correctly; every variant beside it
for r in $(seq 1 "$reps"); do
    for v in $(in_order "$r"); do
        echo "rep $r: $v tpcc 2 warehouses partitioned, local" >&2
        build/bin/rundb-$v --workload tpcc --mix neworder-payment --warehouses 2 \
            --partition-by-warehouse --remote off --threads 2 --warmup 1 --duration "$dur" \
            --seed "$r" --out "$out" >/dev/null 2>&1
    done
done
echo "results: $out" >&2
awk -f experiments/table.awk "$out"
