#!/usr/bin/env bash
# Mutation tests (`make mutation` builds the binaries first): for every row of
# tests/mutants.tsv, runs the test-only binary build/mutants/rundb-<mutant> (one injected
# protocol bug) with 8 threads under high contention and asserts that the row's check
# catches it: exit status 1 with the check's own failure line on stderr (verify: the
# history check's "FAIL" line; bank: "bank:"; tpcc-check: "tpcc check:" or the stop on a
# committed insert of a duplicate key; stall: the watchdog's "stall:" report, exit 3; unit:
# the variant test linked against the mutant exits 0, see tests/mutants.tsv; anomalies: the
# anomaly matrix's claim check names the case allowed). Races are probabilistic, so a mutant gets up to
# MUTANT_TRIES runs (default 3). A run still going after MUTANT_TIMEOUT seconds (default
# 30; a caught run takes under 10) hangs: NOT CAUGHT, as is a crash or any other exit
# status. First each base variant (build/bin) runs each distinct command once and must
# pass, or the test proves nothing.
# Prints one line per run; exit status 1 if a clean run failed or a mutant was not caught.
set -u
cd "$(dirname "$0")/.."
tries=${MUTANT_TRIES:-3}
limit=${MUTANT_TIMEOUT:-30}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0
t0=$SECONDS

# flags_of CHECK: the flag that turns the check on; pattern_of CHECK: its failure line.
flags_of() {
    case $1 in
    verify) echo --verify ;;
    bank) echo "" ;;
    tpcc-check) echo --check ;;
    stall) echo "--stall-timeout 3" ;;
    unit) echo "" ;;
    anomalies) echo --anomalies ;;
    *) echo "mutation_test.sh: unknown check '$1'" >&2; exit 2 ;;
    esac
}
pattern_of() {
    case $1 in
    verify) echo '^history check .*: FAIL$' ;;
    bank) echo '^bank: ' ;;
    tpcc-check) echo '^tpcc check: \|: committed insert of duplicate key ' ;;
    stall) echo '^stall: ' ;;
    unit) echo '^ok ' ;;
    anomalies) echo '^anomalies: .*: allowed, though' ;;
    esac
}
# status_of CHECK: the exit status of a caught run.
status_of() {
    case $1 in
    stall) echo 3 ;;
    unit) echo 0 ;;
    *) echo 1 ;;
    esac
}

# run_case BINARY CHECK FLAGS...: runs once; sets rc (124: timed out).
run_case() {
    local bin=$1 check=$2
    shift 2
    if [ "$check" = unit ]; then # the variant test $1 linked against this build
        local build=${bin##*/rundb-}
        timeout "$limit" "build/tests/$1-$build" >"$log" 2>&1
        rc=$?
        return
    fi
    timeout "$limit" "$bin" --threads 8 --warmup 0 --quiet $(flags_of "$check") "$@" \
        >"$log" 2>&1
    rc=$?
}

rows=$(awk '!/^#/ && NF' tests/mutants.tsv)

echo "== clean base variants (must pass)"
declare -A seen
while read -r name base flag check rest; do
    key="$base $check $rest"
    [ -n "${seen[$key]:-}" ] && continue
    seen[$key]=1
    run_case "build/bin/rundb-$base" "$check" $rest
    if [ $rc -eq 0 ]; then
        printf 'ok   %-28s %s passes\n' "$base" "$check"
    else
        printf 'FAIL %-28s %s fails on the clean build (exit %d)\n' "$base" "$check" "$rc"
        tail -n 5 "$log" | cut -c1-300 | sed 's/^/     /'
        fail=1
    fi
done <<<"$rows"

echo "== mutants (must be caught)"
while read -r name base flag check rest; do
    how=""
    for ((i = 1; i <= tries; i++)); do
        run_case "build/mutants/rundb-$name" "$check" $rest
        if [ $rc -eq "$(status_of "$check")" ] && grep -q "$(pattern_of "$check")" "$log"; then
            printf 'ok   %-28s caught by %s (try %d of %d): %s\n' "$name" "$check" "$i" \
                "$tries" "$(grep -m1 "$(pattern_of "$check")" "$log" | sed 's/^history check .*; //' | cut -c1-90)"
            how=caught
            break
        fi
        case $rc in
        0) how="passed $i runs" ;;
        124) how="hung (killed after ${limit} s)" ;;
        *) how="exit $rc without the $check failure line" ;;
        esac
    done
    if [ "$how" != caught ]; then
        printf 'FAIL %-28s NOT CAUGHT (%s, %s)\n' "$name" "$how" "$flag"
        [ $rc -ne 0 ] && tail -n 5 "$log" | cut -c1-300 | sed 's/^/     /'
        fail=1
    fi
done <<<"$rows"

echo "mutation tests: $((SECONDS - t0)) s, $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
