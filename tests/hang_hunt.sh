#!/usr/bin/env bash
# The hang hunt: runs every variant heavily oversubscribed (64 and 256 threads on however
# few cores there are), with short windows, over the workloads and modes where hangs were
# once seen (bank hot accounts, YCSB theta 0.99, f1 open loop), round after round, until a
# run hangs or the time is up. A run hangs when it exits 3 (the stall watchdog or the
# whole-run watchdog, --run-timeout: their reports carry every thread's phase, wait and
# backtrace) or outlives an outer timeout; its log is kept in the output directory.
# Not a test of `make test` (it runs until told to stop); see docs/correctness.md.
# Usage: tests/hang_hunt.sh [SECONDS [OUTDIR]]   (default 600 s, /tmp/hang_hunt)
set -u
cd "$(dirname "$0")/.."
budget=${1:-600}
out=${2:-/tmp/hang_hunt}
mkdir -p "$out"
variants=$(awk '!/^#/ && NF && $1 != "none" {print $1}' config/variants.tsv)
cases=(
    "--workload bank --accounts 200 --hot-accounts 4 --hot-prob 0.5"
    "--workload ycsb --theta 0.99 --rows 1000 --read-ratio 0.5 --fields 4 --field-size 16"
    "--workload f1 --rows 10000 --write-fraction 0.3 --rate 20000"
)
end=$((SECONDS + budget))
runs=0
hangs=0
round=0
while [ $SECONDS -lt $end ]; do
    round=$((round + 1))
    for v in $variants; do
        for threads in 64 256; do
            for c in "${cases[@]}"; do
                [ $SECONDS -ge $end ] && break 4
                runs=$((runs + 1))
                log="$out/run.log"
                timeout 150 "build/bin/rundb-$v" --threads $threads --warmup 0 --duration 0.2 \
                    --queries-per-thread 200 --seed $runs --stall-timeout 10 --run-timeout 90 \
                    --quiet $c >"$log" 2>&1
                rc=$?
                if [ $rc -eq 3 ] || [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
                    hangs=$((hangs + 1))
                    keep="$out/hang-$hangs-$v-$threads.log"
                    { echo "rundb-$v --threads $threads $c --seed $runs: exit $rc"; cat "$log"; } >"$keep"
                    echo "HANG $v $threads threads ($c, seed $runs): exit $rc, see $keep"
                elif [ $rc -ne 0 ]; then
                    echo "FAIL $v $threads threads ($c, seed $runs): exit $rc"
                    tail -n 3 "$log" | sed 's/^/     /'
                fi
            done
        done
    done
    echo "round $round done: $runs runs, $hangs hangs, $((SECONDS)) s"
done
echo "$runs runs in $round rounds, $hangs hangs"
[ $hangs -eq 0 ]
