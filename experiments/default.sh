#!/usr/bin/env bash
# The main job (`make run`): a short YCSB comparison of every variant at 2 threads, at
# high (theta 0.99, 50% reads) and moderate (theta 0.6, 90% reads) contention, on 1 M
# rows of 10 x 100 bytes. Result lines are appended to results/default.jsonl as each run
# ends; the table is printed at the end.
#
# Usage: experiments/default.sh [--write-table[=FILE]]
#   --write-table       after printing the table, also write it (in a ``` fence) between
#                       the lines <!-- make-run:begin --> and <!-- make-run:end --> of
#                       docs/running.md
#   --write-table=FILE  the same into FILE (a path relative to the checkout, or absolute)
# RUNDB_BIN (environment) names the directory of the binaries (default build/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
BEGIN="<!-- make-run:begin -->"
END="<!-- make-run:end -->"
doc=
for arg in "$@"; do
    case $arg in
    --write-table) doc=docs/running.md ;;
    --write-table=?*) doc=${arg#--write-table=} ;;
    *)
        echo "usage: experiments/default.sh [--write-table[=FILE]]" >&2
        exit 2
        ;;
    esac
done
if [ -n "$doc" ] && ! { grep -qxF "$BEGIN" "$doc" && grep -qxF "$END" "$doc"; }; then
    echo "default.sh: $doc has no $BEGIN ... $END section" >&2
    exit 2
fi
bin=${RUNDB_BIN:-build/bin}
mkdir -p results
out=results/default.jsonl
: >"$out.tmp"
variants=$(awk '!/^#/ && NF {print $1}' config/variants.tsv)
for setting in "--theta 0.99 --read-ratio 0.5" "--theta 0.6 --read-ratio 0.9"; do
    for v in $variants; do
        echo "running $v $setting" >&2
        # shellcheck disable=SC2086
        "$bin/rundb-$v" --threads 2 --warmup 0.5 --duration 2 --rows 1000000 $setting \
            --out "$out" 2>/dev/null | tail -n 1 >>"$out.tmp"
    done
done
awk -f experiments/table.awk "$out.tmp" >"$out.table"
cat "$out.table"
if [ -n "$doc" ]; then
    # the lines between the markers become the table, fenced; the rest stays as it is
    awk -v begin="$BEGIN" -v end="$END" -v table="$out.table" '
        $0 == end { skip = 0 }
        !skip { print }
        $0 == begin {
            print "```"
            while ((getline line < table) > 0)
                print line
            print "```"
            skip = 1
        }' "$doc" >"$doc.tmp"
    mv "$doc.tmp" "$doc"
    echo "default.sh: table written into $doc" >&2
fi
rm -f "$out.tmp" "$out.table"
