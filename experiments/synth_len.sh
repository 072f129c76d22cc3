#!/usr/bin/env bash
# RCC paper Fig. 4a on this machine: the synthetic hotspot benchmark (--workload synth),
# hotspot first (--distance 0), --len 64 128 256, 2 threads, for dl-detect (the paper's
# vanilla locking), bamboo, wound-wait and every rcc* binary in build/bin (missing
# binaries are skipped with a note). SYNTH_REPS repetitions (default 3) of SYNTH_DURATION
# seconds (default 3); result lines are appended to results/synth_len.jsonl (a failed run
# is reported and skipped), then the table of medians is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
reps=${SYNTH_REPS:-3}
dur=${SYNTH_DURATION:-3}
threads=${SYNTH_THREADS:-2}
case $reps in '' | *[!0-9]* | 0) echo "SYNTH_REPS must be a positive integer" >&2; exit 2 ;; esac
variants="dl-detect bamboo wound-wait"
for b in build/bin/rundb-rcc*; do
    [ -x "$b" ] && variants="$variants ${b#build/bin/rundb-}"
done
mkdir -p results
out=results/synth_len.jsonl
for len in 64 128 256; do
    for r in $(seq 1 "$reps"); do
        for v in $variants; do
            b=build/bin/rundb-$v
            if [ ! -x "$b" ]; then
                echo "skip $v: $b missing (make VARIANT=$v)" >&2
                continue
            fi
            echo "rep $r: $v len $len, $threads threads" >&2
            if ! "$b" --workload synth --len "$len" --distance 0 --threads "$threads" \
                --warmup 1 --duration "$dur" --seed "$r" --out "$out" >/dev/null 2>&1; then
                echo "FAILED: $v len $len rep $r" >&2
            fi
        done
    done
done
echo "results: $out" >&2
awk -f experiments/table.awk "$out"
