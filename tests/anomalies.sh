#!/usr/bin/env bash
# The isolation anomaly matrix (`make anomalies`; docs/anomalies.md): runs every case of
# benchmarks/anomaly_cases.c on each variant (`rundb-<variant> --anomalies`) and prints one
# Markdown table, variants as rows, cases as columns, each cell how the anomaly was
# prevented (abort, block, block+abort, serial) or ALLOWED, with the level the variant
# claims. Each binary checks its own claim (exit 1 when a case its level prevents is
# allowed, when NONE does not show an anomaly it must, or when a run hangs).
# Usage: tests/anomalies.sh [--check] [--readme[=FILE]] [--bin DIR] [VARIANT...]
#   --check          exit 1 when a variant's claim fails (the case `make test` runs);
#                    the failing cases are named on stderr
#   --readme         also write the table between <!-- anomalies:begin --> and
#                    <!-- anomalies:end --> of README.md (=FILE: of FILE)
#   --bin DIR        the binaries' folder (default build/bin; build/tsan/bin: ThreadSanitizer)
#   VARIANT...       these variants (or mutants, with --bin build/mutants); default: every
#                    row of config/variants.tsv
# Environment: ANOMALY_RUNS (runs per case, default 3), ANOMALY_BLOCK_MS (default 50).
set -u
cd "$(dirname "$0")/.."
check=0 readme="" bin=build/bin
variants=()
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1 ;;
    --readme) readme=README.md ;;
    --readme=?*) readme=${1#--readme=} ;;
    --bin) bin=$2; shift ;;
    -*) echo "usage: tests/anomalies.sh [--check] [--readme[=FILE]] [--bin DIR] [VARIANT...]" >&2; exit 2 ;;
    *) variants+=("$1") ;;
    esac
    shift
done
[ ${#variants[@]} -eq 0 ] && mapfile -t variants < <(awk '!/^#/ && NF {print $1}' config/variants.tsv)
BEGIN="<!-- anomalies:begin -->"
END="<!-- anomalies:end -->"
if [ -n "$readme" ] && ! { grep -qxF "$BEGIN" "$readme" && grep -qxF "$END" "$readme"; }; then
    echo "tests/anomalies.sh: $readme lacks the lines $BEGIN and $END" >&2
    exit 2
fi
runs=${ANOMALY_RUNS:-3}
block=${ANOMALY_BLOCK_MS:-50}
out=$(mktemp)
trap 'rm -f "$out" "$out.table"' EXIT
failed=()
t0=$SECONDS
for v in "${variants[@]}"; do
    b=$bin/rundb-$v
    if [ ! -x "$b" ]; then
        echo "tests/anomalies.sh: $b is not built" >&2
        exit 2
    fi
    # a run that hangs past every bound of the harness is killed: its row shows HUNG
    timeout 120 "$b" --anomalies --anomaly-runs "$runs" --anomaly-block-ms "$block" >>"$out" ||
        failed+=("$v")
done

# the table: one row per variant in the order run, one column per case in the order of
# the cases
awk -F '\t' '
    !($1 in lv) { order[++nv] = $1; lv[$1] = $2 }
    !($3 in seen) { seen[$3] = 1; cases[++nc] = $3 }
    { cell[$1, $3] = $4 }
    END {
        printf "| variant | claims |"
        for (c = 1; c <= nc; c++) printf " %s |", cases[c]
        printf "\n|---|---|"
        for (c = 1; c <= nc; c++) printf "---|"
        printf "\n"
        for (i = 1; i <= nv; i++) {
            v = order[i]
            printf "| `%s` | %s |", v, lv[v]
            for (c = 1; c <= nc; c++) {
                x = ((v, cases[c]) in cell) ? cell[v, cases[c]] : "-"
                printf " %s |", (x == "ALLOWED" || x == "HUNG") ? "**" x "**" : x
            }
            printf "\n"
        }
    }' "$out" >"$out.table"
cat "$out.table"
echo
echo "anomaly matrix: ${#variants[@]} variants, $runs runs a case, $((SECONDS - t0)) s;" \
    "claims $([ ${#failed[@]} -eq 0 ] && echo hold || echo "FAIL: ${failed[*]}")"

if [ -n "$readme" ]; then
    awk -v b="$BEGIN" -v e="$END" -v t="$out.table" '
        $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
fi
[ $check -eq 0 ] || [ ${#failed[@]} -eq 0 ]
