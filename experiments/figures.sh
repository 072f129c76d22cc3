#!/usr/bin/env bash
# `make figures`: every spec of experiments/specs at --scale quick (threads up to 16, past
# the cores on a small machine; short runs), results into results/quick/<spec>/, then
# every figure into results/figures/ (PNG, PDF, gnuplot script + data; tables as Markdown
# and PNG; the gnuplot scripts rendered too). A rerun resumes: finished points are kept. FIGURE_SPECS narrows the list.
set -uo pipefail
cd "$(dirname "$0")/.."
specs=${FIGURE_SPECS:-$(ls experiments/specs/*.toml | xargs -n1 basename | sed 's/\.toml$//')}
results=results/quick
mkdir -p results/figures
status=0
# shellcheck disable=SC2086
experiments/run --scale quick --results-dir "$results" $specs || status=$?
note="quick scale on $(nproc) cores: threads up to 16 (points above $(nproc) threads oversubscribe the cores)"
for s in $specs; do
    if [ -s "$results/$s/results.jsonl" ]; then
        plots/plot.py "experiments/specs/$s.toml" --results "$results/$s/results.jsonl" \
            --out results/figures --caption-note "$note" || status=1
    else
        echo "no results for $s: no figure" >&2
        status=1
    fi
done
# the gnuplot versions: each <spec>-<name>.gp renders <spec>-<name>-gnuplot.png
for gp in results/figures/*.gp; do
    [ -e "$gp" ] || continue
    (cd results/figures && gnuplot "$(basename "$gp")") || status=1
done
echo "figures: results/figures/" >&2
exit $status
