#!/usr/bin/env bash
# The test suite, in two tiers (README, docs/correctness.md):
#   tests/run.sh fast   `make test`, before every commit (about 10 minutes on 2 cores with
#                       the build): the layering check, the CLI bad-input tests, the geo
#                       deployment files and flags, the watchdogs, the sweep runner, the
#                       interleaved pairs (experiments/pairs) and
#                       the plots, the scaling spec and its efficiency table, pin plans,
#                       open loop, the network model, the geo commit layer and its
#                       failures (tests/test_geo.py, tests/test_geo_failures.py); for every
#                       variant of config/variants.tsv, 8 threads: YCSB theta 0.99, a
#                       third of the writes blind, and the bank workload, both with
#                       --verify (history check; money conserved, audits see their
#                       branch's total, no pair below its floor); the bank with a stall
#                       timeout shorter than its window (no deadlock passes); the sketch
#                       variants with the smallest sketch; TPC-C --check --verify
#                       (tests/tpcc_test.sh fast); the storage model; the anomaly matrix
#                       (tests/anomalies.sh --check: every variant's claimed level holds).
#   tests/run.sh slow   `make check` runs it after the fast tier: the unit and variant
#                       tests (ASan), the geo layer under TSan and ASan, the long cases (YCSB hot and the bank 2 s, YCSB 100k
#                       rows, the bank at 16 threads, 64 threads ending within 2 s of the
#                       window), more storage-model cases, TPC-C's longer cases
#                       (tests/tpcc_test.sh slow), YCSB and bank under ThreadSanitizer, the
#                       anomaly matrix under TSan and ASan, one AddressSanitizer run a
#                       variant.
# Ends with "N passed, N failed"; exit status 1 if anything failed.
set -u
cd "$(dirname "$0")/.."
tier=${1:-fast}
case $tier in
fast | slow) ;;
*)
    echo "usage: tests/run.sh fast|slow" >&2
    exit 2
    ;;
esac
pass=0
fail=0
failed=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run NAME TIMEOUT CMD...: a case passes when CMD exits 0 within TIMEOUT seconds.
run() {
    local name=$1 limit=$2
    shift 2
    if timeout "$limit" "$@" >"$log" 2>&1; then
        pass=$((pass + 1))
        printf 'ok   %s\n' "$name"
    else
        local rc=$?
        fail=$((fail + 1))
        failed+=("$name")
        printf 'FAIL %s (exit %d%s)\n' "$name" "$rc" "$([ $rc = 124 ] && echo ', timed out')"
        tail -n 15 "$log" | cut -c1-300 | sed 's/^/     /'
    fi
}

# tpcc TIER: the TPC-C cases of tests/tpcc_test.sh, counted here.
tpcc() {
    while IFS= read -r line; do
        echo "$line"
        case $line in
        "ok "*) pass=$((pass + 1)) ;;
        "FAIL "*)
            fail=$((fail + 1))
            failed+=("${line#FAIL }")
            ;;
        esac
    done < <(tests/tpcc_test.sh "$1")
}

variants=$(awk '!/^#/ && NF {print $1}' config/variants.tsv)
ycsb_hot="--workload ycsb --theta 0.99 --rows 1000 --read-ratio 0.5 --fields 4 --field-size 16"
ycsb_wide="--workload ycsb --theta 0.99 --rows 100000 --read-ratio 0.5 --fields 10 --field-size 10"
bank="--workload bank --accounts 200 --hot-accounts 4 --hot-prob 0.5"
common="--threads 8 --warmup 0 --verify"
storage="--workload ycsb --rows 2000 --threads 16 --warmup 0 --duration 2 --verify --storage nvme --cache-rows 200"

if [ "$tier" = fast ]; then
echo "== layering: benchmarks -> cc -> storage -> config, includes point down only"
run "layers (tests/layers_test.sh)" 60 tests/layers_test.sh

echo "== command-line tests"
run "cli bad input" 120 tests/cli_test.sh build/bin/rundb-no-wait
run "geo deployment files and flags" 60 tests/geo_config_test.sh build/bin/rundb-silo

echo "== the watchdogs: a thread blocked in each phase is reported (tests/watchdog_test.sh)"
run "watchdogs see every phase" 200 tests/watchdog_test.sh build/bin/rundb-no-wait

echo "== sweep runner and plots"
run "runner (tests/test_runner.py)" 600 /usr/bin/python3 -m unittest tests/test_runner.py
run "plots (tests/test_plots.py)" 300 /usr/bin/python3 -m unittest tests/test_plots.py
run "scaling spec and efficiency table (tests/test_scaling.py)" 120 /usr/bin/python3 -m unittest tests/test_scaling.py
run "cpu usage per phase (tests/test_cpu_usage.py)" 120 /usr/bin/python3 -m unittest tests/test_cpu_usage.py
run "cache-line round trip (tests/test_line_trip.py)" 60 /usr/bin/python3 -m unittest tests/test_line_trip.py
run "bench table vs_none and min-max columns (tests/test_bench_table.py)" 60 /usr/bin/python3 -m unittest tests/test_bench_table.py
run "bench run order, reversed in even repetitions (tests/test_bench_order.py)" 240 /usr/bin/python3 -m unittest tests/test_bench_order.py
run "interleaved pairs, order alternating (tests/test_pairs.py)" 120 /usr/bin/python3 -m unittest tests/test_pairs.py
run "pin plans (tests/test_pin_plan.py)" 120 /usr/bin/python3 -m unittest tests/test_pin_plan.py
run "open loop (tests/test_open_loop.py)" 120 /usr/bin/python3 -m unittest tests/test_open_loop.py
run "network model (tests/test_network.py)" 120 /usr/bin/python3 -m unittest tests/test_network.py
run "geo commit: timing, verify, checks (tests/test_geo.py)" 240 /usr/bin/python3 -m unittest tests/test_geo.py
run "geo failures: recovery, checks, timeline (tests/test_geo_failures.py)" 240 /usr/bin/python3 -m unittest tests/test_geo_failures.py

echo "== correctness: 8 threads on $(nproc) cores, history check and invariants"
for v in $variants; do
    b=build/bin/rundb-$v
    if [ "$v" = none ]; then
        # no concurrency control: only single-threaded runs are correct
        run "$v ycsb 1 thread verify" 60 $b --threads 1 --warmup 0 --verify --duration 1 $ycsb_hot
        continue
    fi
    # a third of the writes blind: versions ordered by WW edges alone
    run "$v ycsb hot verify, blind writes" 90 $b $common --duration 0.5 $ycsb_hot --blind-writes 0.3
    run "$v bank verify" 90 $b $common --duration 0.5 $bank
    # a worker (or the run) that ends nothing for 1 s of the 2 s window fails: a deadlock
    run "$v bank, no stall" 90 $b --threads 8 --warmup 0 --duration 2 --stall-timeout 1 $bank
    case $v in
    *-sketch) # the smallest sketch (1 KiB: 16 cells a row): evicted keys share cells
        run "$v ycsb hot verify small sketch" 90 $b $common --duration 1 $ycsb_hot --sketch-kib 1
        run "$v bank verify small sketch" 90 $b $common --duration 1 $bank --sketch-kib 1
        ;;
    esac
done

echo "== the array index (--index array: key k is row k), history check and invariants"
for v in no-wait silo tictoc mvto-sketch; do
    b=build/bin/rundb-$v
    run "$v ycsb hot verify, array index" 90 $b $common --duration 0.5 $ycsb_hot --index array
    run "$v bank verify, array index" 90 $b $common --duration 0.5 $bank --index array
done
run "silo synth verify, array index" 90 build/bin/rundb-silo $common --duration 0.5 \
    --workload synth --rows 1000 --len 8 --index array
# --prefetch off: each row looked up as it is accessed (the default looks them all up first)
run "silo ycsb hot verify, prefetch off" 90 build/bin/rundb-silo $common --duration 0.5 \
    $ycsb_hot --prefetch off
run "no-wait ycsb hot verify, prefetch off" 90 build/bin/rundb-no-wait $common --duration 0.5 \
    $ycsb_hot --prefetch off
run "ncc f1 verify, array index" 90 build/bin/rundb-ncc $common --duration 0.5 \
    --workload f1 --rows 1000 --write-fraction 0.3 --index array

echo "== the anomaly matrix: every variant prevents what its claimed level promises (tests/anomalies.sh)"
run "anomaly matrix, claimed levels hold" 400 tests/anomalies.sh --check

echo "== storage model: a small cache (more rows in use than slots), history check"
run "no-wait ycsb storage model verify" 60 build/bin/rundb-no-wait $storage
# timestamps in the row are metadata on storage; FPSketch's never touch it
run "tictoc ycsb storage model, timestamps on storage" 60 tests/storage_meta.sh build/bin/rundb-tictoc on $storage
run "tictoc-sketch ycsb storage model, timestamps in memory" 60 tests/storage_meta.sh build/bin/rundb-tictoc-sketch off $storage

echo "== client failure: NCC's backup coordinator finishes what failed clients left"
# its commits go to the workload's committed hook: the bank judges them
run "ncc-rw bank client failure and recovery verify" 120 build/bin/rundb-ncc-rw \
    --threads 8 --warmup 0 --duration 1.5 --verify $bank --fail-commit-at 0.5 \
    --recovery-timeout-ms 200 --net-rtt-us 100

echo "== TPC-C (tests/tpcc_test.sh fast)"
tpcc fast
else
echo "== unit tests"
for t in build/tests/test_*; do
    [ -x "$t" ] && run "unit $(basename "$t")" 300 "$t"
done

echo "== long cases: more rows, more threads"
for v in $variants; do
    [ "$v" = none ] && continue
    b=build/bin/rundb-$v
    run "$v ycsb hot verify" 90 $b $common --duration 2 $ycsb_hot
    run "$v bank verify, 2 s" 90 $b $common --duration 2 $bank
    run "$v ycsb 100k rows verify" 90 $b $common --duration 2 $ycsb_wide
    run "$v bank 16 threads" 90 $b --threads 16 --warmup 0 --duration 1 $bank
    run "$v bank 64 threads ends in time" 120 tests/overrun_test.sh $b --threads 64 --warmup 0 --duration 1 $bank
done

echo "== storage model: more variants"
run "silo ycsb storage model verify" 60 build/bin/rundb-silo $storage
run "sto ycsb storage model, timestamps on storage" 60 tests/storage_meta.sh build/bin/rundb-sto on $storage
run "no-wait ycsb storage model, no timestamps" 60 tests/storage_meta.sh build/bin/rundb-no-wait off $storage

echo "== TPC-C (tests/tpcc_test.sh slow)"
tpcc slow

echo "== ThreadSanitizer"
for v in $variants; do
    [ "$v" = none ] && continue
    b=build/tsan/bin/rundb-$v
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
    run "tsan $v ycsb hot verify" 120 $b $common --duration 1 $ycsb_hot --queries-per-thread 2000
    run "tsan $v bank verify" 120 $b $common --duration 1 $bank --queries-per-thread 2000
done

# the array index: rows reached by position, published by the loaders' join alone
run "tsan silo ycsb hot verify, array index" 120 build/tsan/bin/rundb-silo $common \
    --duration 1 $ycsb_hot --queries-per-thread 2000 --index array

# the network model and open-loop arrivals (per-thread state and sleeps) under TSan
run "tsan wound-wait network model open loop verify" 120 build/tsan/bin/rundb-wound-wait \
    $common --duration 1 $ycsb_hot --queries-per-thread 2000 --net-rtt-us 200 \
    --net-jitter-us 50 --net-msg-cpu-us 5 --rate 20000

# the storage model's cache (lock-free hits, CLOCK under the mutex) under TSan
run "tsan no-wait ycsb storage model verify" 120 build/tsan/bin/rundb-no-wait \
    $storage --duration 1 --queries-per-thread 2000

# TPC-C's load under TSan: a part of it (a district, a slice of STOCK) can take 10 s or
# more on 2 busy cores, which the stall watchdog's default would call a stall
tsan_tpcc="--workload tpcc --warehouses 1 --threads 4 --warmup 0 --duration 1.5 --check --stall-timeout 60"
# FPSketch with inserts (aborted and dropped ones release their slot at once) under TSan
run "tsan sto-sketch tpcc check" 180 build/tsan/bin/rundb-sto-sketch $tsan_tpcc
# the warm-up's reservation under TSan: the workers paused and resumed on the phase word,
# the reserver's CPU clock they read while paused (benchmarks/driver.c)
run "tsan no-wait tpcc warm-up reservation check" 180 build/tsan/bin/rundb-no-wait \
    ${tsan_tpcc/--warmup 0/--warmup 1}
# NCC's server-side read-modify-writes (TPC-C only) write rows in place (cc/ncc_key.h, I7)
run "tsan ncc-rw tpcc check verify" 180 build/tsan/bin/rundb-ncc-rw $tsan_tpcc --verify

# NCC's client failure: the backup coordinator finishes abandoned attempts on its thread
run "tsan ncc-rw bank client failure and recovery verify" 120 build/tsan/bin/rundb-ncc-rw \
    --threads 8 --warmup 0 --duration 1.5 --verify $bank --fail-commit-at 0.5 \
    --recovery-timeout-ms 200 --net-rtt-us 100 --queries-per-thread 2000
run "tsan ncc-rw client failure and recovery verify" 120 build/tsan/bin/rundb-ncc-rw \
    --threads 8 --warmup 0 --duration 1.5 --verify --workload f1 --rows 10000 \
    --write-fraction 0.3 --fail-commit-at 0.5 --recovery-timeout-ms 200 --net-rtt-us 100 \
    --rate 20000

# the geo layer (executor, clients, CC contexts handed between threads, PreCommit lists
# and write-read dependencies) under TSan and ASan
geo="--workload geo-bank --rows 60 --threads 16 --warmup 0 --duration 1 --geo config/geo/3dc.toml --geo-time-scale 20 --verify"
for proto in 2pc d2pc carousel; do
    for v in silo no-wait; do
        run "tsan $v geo $proto read-opt off verify" 120 build/tsan/bin/rundb-$v $geo \
            --commit $proto --read-opt off
        run "asan $v geo $proto verify" 120 build/asan/bin/rundb-$v $geo --commit $proto
    done
done
# the failures (lost messages, timers without references, recovery, catch-up)
for v in silo no-wait; do
    run "tsan $v geo d2pc co-coordinators killed, short decider timer" 120 \
        build/tsan/bin/rundb-$v $geo --commit d2pc --kill-cocoord hangzhou,san-francisco@0.4 \
        --decider-timeout 100
    run "tsan $v geo d2pc majority lost, read-opt off" 120 build/tsan/bin/rundb-$v $geo \
        --commit d2pc --read-opt off --lose-majority 1@0.3+0.04
    run "asan $v geo carousel follower killed" 120 build/asan/bin/rundb-$v $geo \
        --commit carousel --kill-follower 0/frankfurt@0.3+0.4
    run "asan $v geo 2pc majority lost" 120 build/asan/bin/rundb-$v $geo \
        --commit 2pc --lose-majority 2@0.3+0.4
done

echo "== the anomaly matrix under ThreadSanitizer and AddressSanitizer"
tsan_variants=$(grep -vx none <<<"$variants")
# under TSan 315 s here (26 variants, 3 runs a case, 200 ms blocks); the harness calls a
# hung case itself, so this limit is only the backstop
run "tsan anomaly matrix, claimed levels hold" 1200 env ANOMALY_BLOCK_MS=200 tests/anomalies.sh --check --bin build/tsan/bin $tsan_variants
run "asan anomaly matrix, claimed levels hold" 1200 env ANOMALY_BLOCK_MS=200 tests/anomalies.sh --check --bin build/asan/bin

echo "== AddressSanitizer"
for v in $variants; do
    b=build/asan/bin/rundb-$v
    t=8
    [ "$v" = none ] && t=1
    run "asan $v ycsb" 120 $b --threads $t --warmup 0 --duration 1 $ycsb_hot --verify --queries-per-thread 2000
done

fi

echo
if [ $fail -gt 0 ]; then
    echo "failed: ${failed[*]}"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
