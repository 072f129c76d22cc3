#!/usr/bin/env bash
# Instructions per committed transaction, counted by callgrind over the transaction work
# only (driver_run_query: begin, the workload's accesses, commit, aborts and retries;
# loading and query generation excluded). Usage:
#   experiments/instr_per_txn.sh VARIANT [rundb flags...]
# Defaults to YCSB 1 M rows of 10 x 10 bytes, theta 0.99, 50% reads, 1 thread, 2 s.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 VARIANT [rundb flags]" >&2; exit 2; }
v=$1
shift
bin=build/bin/rundb-$v
[ -x "$bin" ] || { echo "no binary $bin (make VARIANT=$v)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
args=(--threads 1 --rows 1000000 --fields 10 --field-size 10 --theta 0.99 --read-ratio 0.5
      --warmup 0 --duration 2 "$@")
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=driver_run_query \
    "$bin" "${args[@]}" >/dev/null 2>&1
# inclusive cost of driver_run_query = all collected Ir; calls = committed queries
total=$(awk '/^summary:/ {print $2}' "$out")
calls=$(awk '/^cfn=.*driver_run_query/ {getline; if ($1 ~ /^calls=/) {sub("calls=", "", $1); n += $1}} END {print n + 0}' "$out")
if [ "$calls" = 0 ]; then
    # the callee is named once with its id, later by id only: count calls by that id
    id=$(grep -o 'fn=([0-9]*) driver_run_query' "$out" | head -n 1 | grep -o '([0-9]*)')
    calls=$(awk -v id="cfn=$id" 'index($0, id) == 1 {getline; sub("calls=", "", $1); n += $1} END {print n + 0}' "$out")
fi
[ "$calls" -gt 0 ] || { echo "no committed queries counted" >&2; exit 1; }
echo "$v: $((total / calls)) instructions per committed transaction ($calls transactions, $total instructions)"
