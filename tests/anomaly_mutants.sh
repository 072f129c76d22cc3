#!/usr/bin/env bash
# The anomaly matrix against the mutants of tests/mutants.tsv (`make anomaly-mutants`
# builds them first; docs/anomalies.md, "Mutants"): for each mutant, the cases whose cell
# differs from its clean base variant's, whether the matrix catches it (the binary's own
# claim check fails: a case its level prevents is allowed, or a run hangs), and whether one
# run of --verify on random load catches it (its verify row of tests/mutants.tsv, else
# YCSB at high contention; one try, where tests/mutation_test.sh allows three). Prints a
# Markdown table and the two counts: caught by the matrix only, by --verify only.
# --doc: also write them between <!-- anomaly-mutants:begin --> and
# <!-- anomaly-mutants:end --> of docs/anomalies.md.
# Environment: ANOMALY_RUNS (default 3), BUILD_DIR (the build folder, default build).
set -u
cd "$(dirname "$0")/.."
runs=${ANOMALY_RUNS:-3}
B=${BUILD_DIR:-build}
ycsb_hot="--duration 1 --workload ycsb --theta 0.99 --rows 1000 --read-ratio 0.5 --fields 4 --field-size 16"
doc=""
[ "${1:-}" = --doc ] && doc=docs/anomalies.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# matrix BINARY FILE: the binary's cells (case TAB cell) into FILE; its exit status
matrix() {
    timeout 300 "$1" --anomalies --anomaly-runs "$runs" 2>"$2.err" | cut -f3,4 >"$2"
    return "${PIPESTATUS[0]}"
}

declare -A verify_flags
while read -r name base flag check rest; do
    [ "$check" = verify ] && verify_flags[$name]=$rest
done < <(awk '!/^#/ && NF' tests/mutants.tsv)

{
echo "| mutant | base | cases that differ from the base (mutant's cell) | matrix | --verify, one run |"
echo "|---|---|---|---|---|"
only_matrix=() only_verify=() both=() neither=()
declare -A done_base
while read -r name base; do
    if [ -z "${done_base[$base]:-}" ]; then
        matrix "$B/bin/rundb-$base" "$tmp/base-$base" || echo "warning: the clean $base fails its own claim" >&2
        done_base[$base]=1
    fi
    if matrix "$B/mutants/rundb-$name" "$tmp/$name"; then m=missed; else m=CAUGHT; fi
    diff=$(awk -F '\t' 'NR == FNR { b[$1] = $2; next }
        b[$1] != $2 { printf "%s%s (%s)", n++ ? ", " : "", $1, $2 }' \
        "$tmp/base-$base" "$tmp/$name")
    [ -z "$diff" ] && diff="none"
    flags=${verify_flags[$name]:-$ycsb_hot}
    # a mutant that deadlocks instead of committing a wrong result: --stall-timeout ends it
    timeout 60 "$B/mutants/rundb-$name" --threads 8 --warmup 0 --quiet --verify \
        --stall-timeout 3 $flags >"$tmp/v.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q '^history check .*: FAIL$' "$tmp/v.log"; then
        v=CAUGHT
    else
        v="missed (exit $rc)"
    fi
    echo "| \`$name\` | \`$base\` | $diff | $m | $v |"
    case "$m/$v" in
    CAUGHT/CAUGHT) both+=("$name") ;;
    CAUGHT/*) only_matrix+=("$name") ;;
    */CAUGHT) only_verify+=("$name") ;;
    *) neither+=("$name") ;;
    esac
done < <(awk '!/^#/ && NF && !seen[$1]++ {print $1, $2}' tests/mutants.tsv)
echo
echo "caught by both: ${#both[@]}; by the matrix only: ${#only_matrix[@]} (${only_matrix[*]:-});" \
    "by --verify only: ${#only_verify[@]} (${only_verify[*]:-}); by neither: ${#neither[@]} (${neither[*]:-})"
} | tee "$tmp/table"
if [ -n "$doc" ]; then
    awk -v b="<!-- anomaly-mutants:begin -->" -v e="<!-- anomaly-mutants:end -->" -v t="$tmp/table" '
        $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
fi
