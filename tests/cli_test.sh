#!/usr/bin/env bash
# Command-line hygiene of a rundb binary ($1): every bad input prints exactly one line on
# stderr and exits with 2, quickly; --help documents every flag with its default and names every workload; progress
# goes to stderr as plain lines when it is not a terminal, and --quiet silences it; an
# unknown variant at build time is refused. Prints each failing case; exit 1 if any.
set -u
bin=$1
bad=0

expect_bad() { # expect_bad ARGS...: exit 2, one stderr line, nothing on stdout
    local err out rc
    err=$(mktemp)
    out=$(timeout 20 "$bin" "$@" 2>"$err")
    rc=$?
    local lines
    lines=$(wc -l <"$err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -n "$out" ]; then
        echo "case '$*': exit $rc, $lines stderr lines (want exit 2 and one line):"
        head -n 3 "$err" | sed 's/^/    /'
        bad=1
    fi
    rm -f "$err"
}

expect_bad --no-such-flag
expect_bad --anomalies --verify # the anomaly matrix ignores no flag silently
expect_bad --anomalies --anomaly-case no-such-case
expect_bad --anomaly-runs 0
expect_bad --fail-commit-at 1 --duration 1 # no-wait has no recovery protocol
expect_bad --fail-commit-at -1
expect_bad --recovery-timeout-ms 0
expect_bad --write-fraction 1.5
expect_bad --clock-skew-us -1
expect_bad --workload f1 --rows 0
expect_bad --threads
expect_bad --threads 0
expect_bad --threads -3
expect_bad --threads abc
expect_bad --threads 2.5
expect_bad --threads 100000
expect_bad --theta 1
expect_bad --theta 1.5
expect_bad --theta -0.1
expect_bad --read-ratio 1.01
expect_bad --read-ratio -1
expect_bad --rows 0
expect_bad --rows 10 --req-per-txn 11
expect_bad --duration 0
expect_bad --duration nan
expect_bad --warmup -1
expect_bad --fields 0
expect_bad --fields 64
expect_bad --field-size 0
expect_bad --pin everywhere
expect_bad --workload tpcx
expect_bad --accounts 1 --workload bank
expect_bad --accounts 10 --hot-accounts 11 --workload bank
expect_bad --accounts 10 --branch-size 11 --workload bank
expect_bad --branch-size 1 --workload bank
expect_bad --branch-size x --workload bank
expect_bad --hot-prob 2
expect_bad --seed x
expect_bad --out /nonexistent-dir/result.json
expect_bad stray-argument
expect_bad --queries-per-thread 0
expect_bad --workload tpcc --warehouses 0
expect_bad --workload tpcc --mix everything
expect_bad --index btree
expect_bad --prefetch maybe
expect_bad --workload tpcc --index array # TPC-C keys are not 0..N-1 and it inserts
expect_bad --workload synth --len 0
expect_bad --workload synth --len 4097
expect_bad --workload synth --distance 1.5
expect_bad --workload synth --distance -0.1
expect_bad --workload synth --len x
expect_bad --series-interval 0
expect_bad --series-interval 0.001
expect_bad --series-interval 61
expect_bad --series-interval -1
expect_bad --series-interval abc
expect_bad --series-interval nan
expect_bad --series-interval
expect_bad --stall-timeout -1
expect_bad --stall-timeout abc
expect_bad --stall-timeout
expect_bad --quiet on
expect_bad --storage ssd
expect_bad --storage=
expect_bad --storage
expect_bad --storage-latency-us -5
expect_bad --storage-latency-us 0
expect_bad --storage-latency-us x
expect_bad --storage nvme --storage-latency-us 80
expect_bad --storage nvme --cache-rows 0
expect_bad --storage nvme --cache-rows -1
expect_bad --cache-rows 100
expect_bad --sketch-kib 32 # no-wait keeps no sketch (even at the default size)
expect_bad --sketch-kib 0
expect_bad --storage-write-latency-us 20
expect_bad --storage nvme --storage-write-latency-us 0
expect_bad --storage-latency-us 5 --storage-write-latency-us -1

help=$(timeout 10 "$bin" --help)
rc=$?
if [ $rc -ne 0 ]; then
    echo "--help: exit $rc"
    bad=1
fi
for f in workload threads pin warmup duration seed out verify queries-per-thread backoff-max-us \
    rows fields field-size req-per-txn read-ratio theta accounts hot-accounts hot-prob \
    warehouses mix partition-by-warehouse len distance check dump series-interval quiet \
    storage storage-latency-us storage-write-latency-us cache-rows sketch-kib index prefetch; do
    if ! grep -q -- "--$f .*(default: " <<<"$help"; then
        echo "--help does not document --$f with its default"
        bad=1
    fi
done

# --workload's help names every workload of the registry: the names the parser knows,
# from its own refusal of an unknown one ("known: ycsb, bank, ...")
known=$(timeout 10 "$bin" --workload no-such-workload 2>&1 | sed -n 's/.*; known: \(.*\) (see --help)$/\1/p')
wl_help=$(grep -- '^ *--workload V ' <<<"$help")
wl_help=${wl_help%% (default: *} # the choices, not the default
if ! grep -qw ycsb <<<"$known"; then
    echo "--workload no-such-workload does not list the known workloads: '$known'"
    bad=1
fi
for w in ${known//,/ }; do
    if ! grep -qw -- "$w" <<<"$wl_help"; then
        echo "--help's --workload line does not name workload $w: $wl_help"
        bad=1
    fi
done

# progress: plain lines (no carriage return) when stderr is a file, none with --quiet; the
# result line holds the throughput series
small="--workload ycsb --rows 1000 --threads 2 --warmup 0.2 --duration 0.3 --series-interval 0.1"
err=$(mktemp)
out=$(timeout 20 "$bin" $small 2>"$err" | tail -n 1)
if ! grep -q '^measure ' "$err" || grep -q $'\r' "$err" ||
    ! grep -q '"series":{"interval_s":0.1,"measure_start_s":' <<<"$out"; then
    echo "progress lines or series missing:"
    head -n 5 "$err" | sed 's/^/    /'
    bad=1
fi
timeout 20 "$bin" $small --quiet 2>"$err" >/dev/null
if grep -q -E '^(load|generate|warmup|measure) ' "$err"; then
    echo "--quiet still shows progress:"
    head -n 3 "$err" | sed 's/^/    /'
    bad=1
fi
rm -f "$err"

# an unknown variant at build time
out=$(make -s VARIANT=no-such-variant 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -q "unknown variant" <<<"$out"; then
    echo "make VARIANT=no-such-variant: exit $rc: $out"
    bad=1
fi
exit $bad
