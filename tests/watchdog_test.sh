#!/usr/bin/env bash
# The watchdogs see every phase of a run (benchmarks/deadline.h, benchmarks/watchdog.h):
# for each case, one thread is made to block for good in one phase (--hang-in ROLE:PHASE)
# and the run must exit 3 within its time with the right report: the stall watchdog's for
# the counted phases (load: rows, generate: queries) and the measured window (the run's
# commits, or one worker's attempts), the whole-run watchdog's (--run-timeout) for
# everything after; the report names the blocked thread in its phase, the kernel's view
# of it (sleeping) and its backtrace, which shows deadline_hang.
# Usage: tests/watchdog_test.sh BINARY. Prints one line per case; exit 1 if any failed.
set -u
bin=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0
base="--threads 2 --warmup 0 --duration 0.5 --workload bank --quiet --stall-timeout 1 --run-timeout 4"

# check HANG HEADER THREAD [FLAGS...]: HEADER and THREAD are regexes of the report's first
# line and of the blocked thread's line; a line matching $also (if set) is wanted too.
also=
check() {
    local hang=$1 header=$2 thread=$3
    shift 3
    timeout 30 "$bin" $base --hang-in "$hang" "$@" >"$log" 2>&1
    local rc=$?
    if [ $rc -eq 3 ] && grep -q "$header" "$log" && grep -q "^  $thread" "$log" &&
        { [ -z "$also" ] || grep -q "$also" "$log"; } &&
        grep -A1 "^  $thread" "$log" | grep -q '^    kernel: state S, [0-9.]* s of CPU' &&
        grep -q "(deadline_hang+" "$log"; then
        printf 'ok   %-20s %s\n' "$hang" "$(grep -m1 "$header" "$log" | cut -c1-70)"
    else
        fail=1
        printf 'FAIL %-20s exit %d, expected 3 with /%s/ and /%s/\n' "$hang" $rc "$header" "$thread"
        grep -v '^[/b]' "$log" | head -n 8 | cut -c1-200 | sed 's/^/     /'
    fi
}

check loader:load '^stall: no progress in phase load ' 'loader [0-9]* (tid [0-9]*, phase load)'
check worker:generate '^stall: no progress in phase generate ' 'worker [0-9]* (tid [0-9]*, phase generate)'
# one of two workers blocked: that worker has stalled; the only worker: the run has
check worker:run '^stall: thread [0-9]* ended no attempt for ' 'worker [0-9]* (tid [0-9]*, phase run)'
check worker:run '^stall: nothing committed for ' 'worker 0 (tid [0-9]*, phase run)' --threads 1
# the warm-up's reserver (a TPC-C run inserts, so it reserves; a budget of its own, so
# that it reserves whatever memory the machine has left): blocked with the workers
# paused, their rounds stop counting as progress; blocked while the workers run, the
# warm-up never ends (the run's timeout); a worker blocked while paused has stalled
tpcc="--workload tpcc --warehouses 1 --warmup 1 --reserve-budget-mib 64 --run-timeout 6"
also='^  thread [0-9]*: paused while the warm-up reserves memory'
check reserver:reserve '^stall: ' 'reserver (tid [0-9]*, phase reserve)' $tpcc
also=
check reserver:sample '^run timeout: .* in phase warmup;' 'reserver (tid [0-9]*, phase sample)' $tpcc
check worker:paused '^stall: thread [0-9]* ended no attempt for ' 'worker [0-9]* (tid [0-9]*, phase paused)' $tpcc
check worker:exit '^run timeout: .* in phase join;' 'worker [0-9]* (tid [0-9]*, phase exit)'
check main:history-check '^run timeout: .* in phase history-check;' 'main (tid [0-9]*, phase history-check)' --verify
check main:check '^run timeout: .* in phase check;' 'main (tid [0-9]*, phase check)'
check main:exit '^run timeout: .* in phase exit;' 'main (tid [0-9]*, phase exit)'
# a run that ends in time is not reported: the default --run-timeout is in the result
if "$bin" --threads 2 --warmup 0 --duration 0.3 --workload bank --quiet >"$log" 2>&1 &&
    grep -q '"run-timeout":[1-9]' "$log"; then
    echo "ok   default run timeout $(grep -o '"run-timeout":[0-9.]*' "$log")"
else
    fail=1
    echo "FAIL a plain run with the default --run-timeout"
fi
exit $fail
