#!/usr/bin/env bash
# The geo commit layer's benchmark (docs/geo.md): the D2PC paper's setting (3 datacenters,
# config/geo/3dc.toml, 3 shards x 3 replicas, Retwis zipf 0.7, read optimisation on) at
# full delays, GEO_CLIENTS clients (default 300): 2PC, D2PC and Carousel over Silo OCC,
# 2PC and D2PC over no-wait 2PL with and without read optimisation. GEO_REPS repetitions
# (default 3, interleaved) of GEO_DURATION seconds (default 10); prints the median of each
# point and the ratios the paper quotes. Results go to results/geo-bench-<time>.jsonl. A
# run the host could not keep on time is marked invalid in the table (its numbers are not
# comparable).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${GEO_REPS:-3}
dur=${GEO_DURATION:-10}
clients=${GEO_CLIENTS:-300}
case $reps in '' | *[!0-9]* | 0) echo "GEO_REPS must be a positive integer" >&2; exit 2 ;; esac
mkdir -p results
out=results/geo-bench-$(date +%Y%m%d-%H%M%S).jsonl
# name, binary, flags
points=(
    "2pc+occ silo --commit 2pc"
    "carousel+occ silo --commit carousel"
    "d2pc+occ silo --commit d2pc"
    "2pc+2pl no-wait --commit 2pc"
    "d2pc+2pl no-wait --commit d2pc"
    "2pc+2pl-nro no-wait --commit 2pc --read-opt off"
    "d2pc+2pl-nro no-wait --commit d2pc --read-opt off"
)
for r in $(seq 1 "$reps"); do
    for p in "${points[@]}"; do
        read -r name bin flags <<<"$p"
        echo "rep $r: $name" >&2
        # shellcheck disable=SC2086
        build/bin/rundb-$bin --workload retwis --geo config/geo/3dc.toml $flags \
            --threads "$clients" --rows 1000000 --warmup 3 --duration "$dur" --seed "$r" \
            --quiet 2>/dev/null | tail -n 1 | sed "s/^{/{\"point\":\"$name\",/" >>"$out"
    done
done
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pts = {}
for r in rows:
    pts.setdefault(r["point"], []).append(r)
med = {}
print(f"{'point':16} {'commits/s':>10} {'latency ms':>11} {'CC period ms':>13} {'aborts':>7} valid")
for name, rs in pts.items():
    g = [r["data"]["geo"] for r in rs]
    m = {"tput": statistics.median(r["throughput"] for r in rs),
         "lat": statistics.median(x["latency_ms"]["p50"] for x in g),
         "cc": statistics.median(x["cc_period_ms"]["mean"] for x in g),
         "ab": statistics.median(x["abort_rate"] for x in g)}
    med[name] = m
    valid = all(x["valid"] for x in g)
    print(f"{name:16} {m['tput']:10.0f} {m['lat']:11.1f} {m['cc']:13.1f} {100 * m['ab']:6.1f}% "
          f"{'yes' if valid else 'NO'}")
def ratio(a, b, k):
    return med[a][k] / med[b][k] if a in med and b in med and med[b][k] else float("nan")
print()
print(f"d2pc+occ / 2pc+occ throughput {ratio('d2pc+occ', '2pc+occ', 'tput'):.2f}x, "
      f"latency {100 * (ratio('d2pc+occ', '2pc+occ', 'lat') - 1):+.0f}%, "
      f"CC period {100 * (ratio('d2pc+occ', '2pc+occ', 'cc') - 1):+.0f}%")
print(f"d2pc+occ / carousel+occ throughput {ratio('d2pc+occ', 'carousel+occ', 'tput'):.2f}x")
print(f"d2pc+2pl / 2pc+2pl throughput {ratio('d2pc+2pl', '2pc+2pl', 'tput'):.2f}x; "
      f"without read optimisation {ratio('d2pc+2pl-nro', '2pc+2pl-nro', 'tput'):.2f}x")
PY
echo "results: $out" >&2
