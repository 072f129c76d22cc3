#!/usr/bin/env bash
# The geo deployment files and flags of a rundb binary ($1, default build/bin/rundb-silo):
# every config/geo/*.toml loads (the run then stops at the workload check, which comes
# after the file: "needs a geo workload"); each broken file, and each bad use of the geo
# flags, exits with 2 and prints one line on stderr naming the problem (a file's problem
# after the file's name); --help documents every geo flag with its default. Prints each
# failing case; exit 1 if any.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/build/bin/rundb-silo}")
cd "$root"
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_bad WANT ARGS...: exit 2, nothing on stdout, one line on stderr containing WANT
expect_bad() {
    local want=$1 out rc=0 lines
    shift
    out=$(timeout 20 "$bin" "$@" 2>"$tmp/err") || rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -n "$out" ] || ! grep -qF -- "$want" "$tmp/err"; then
        echo "case '$*': exit $rc, $lines stderr lines (want exit 2 and one line with '$want'):"
        head -n 3 "$tmp/err" | sed 's/^/    /'
        bad=1
    fi
}

# The files of config/geo: parsed and checked, then the workload (ycsb) is refused.
for f in config/geo/*.toml; do
    expect_bad "rundb: --geo: needs a geo workload" --geo "$f" --workload ycsb
done
# every geo flag at a legal value, with a deployment: accepted (the workload is not)
expect_bad "needs a geo workload" --geo config/geo/uniform3.toml --commit carousel \
    --geo-time-scale 1000 --cocoord-groups 8 --geo-service-us 5 --read-opt off --txn-ops 32

# broken NAME WANT: the file $tmp/NAME.toml (standard input) is refused with WANT after its
# name
broken() {
    cat >"$tmp/$1.toml"
    expect_bad "rundb: $tmp/$1.toml: $2" --geo "$tmp/$1.toml" --workload ycsb
}

# the smallest file: one datacenter, every optional key at its default
cat >"$tmp/one-dc.toml" <<'EOF'
datacenters = ["x"]
one_way_ms = [[0]]
EOF
expect_bad "rundb: --geo: needs a geo workload" --geo "$tmp/one-dc.toml" --workload ycsb

broken asymmetric "one_way_ms[a][b] = 50 but one_way_ms[b][a] = 60: not symmetric" <<'EOF'
datacenters = ["a", "b", "c"]
one_way_ms = [[0, 50, 50], [60, 0, 50], [50, 50, 0]]
EOF
broken rows "one_way_ms: 2 rows for 3 datacenters" <<'EOF'
datacenters = ["a", "b", "c"]
one_way_ms = [[0, 50, 50], [50, 0, 50]]
EOF
broken columns "one_way_ms: row 2 (b) has 2 numbers for 3 datacenters" <<'EOF'
datacenters = ["a", "b", "c"]
one_way_ms = [[0, 50, 50], [50, 0], [50, 50, 0]]
EOF
broken not-rows "one_way_ms: row 1 is not an array" <<'EOF'
datacenters = ["a"]
one_way_ms = [0]
EOF
broken negative "one_way_ms[a][b] = -50: negative" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, -50], [-50, 0]]
EOF
broken diagonal "one_way_ms[b][b] = 1: the diagonal must be 0" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 1]]
EOF
broken zero-delay "one_way_ms[a][b] = 0: a delay between datacenters must be above 0" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 0], [0, 0]]
EOF
broken not-a-number "one_way_ms[a][a]: not a number" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [["0", "50"], ["50", "0"]]
EOF
broken nan "one_way_ms[a][b] = nan: not a finite number" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0.0, nan], [nan, 0.0]]
EOF
broken mixed-row "Arrays must be homogeneous at line 2 (one type per array: write each number" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 72.5], [72.5, 0]]
EOF
broken unknown-key "unknown key 'jitter' (known: datacenters, ours, one_way_ms," <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
jitter = 1
EOF
broken table "unknown key 'extra'" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
[extra]
x = 1
EOF
broken no-datacenters "missing key datacenters" <<'EOF'
one_way_ms = [[0, 50], [50, 0]]
EOF
broken no-delays "missing key one_way_ms" <<'EOF'
datacenters = ["a", "b"]
EOF
broken duplicate-name "datacenters: 'a' is listed twice" <<'EOF'
datacenters = ["a", "b", "a"]
one_way_ms = [[0, 50, 50], [50, 0, 50], [50, 50, 0]]
EOF
broken empty-name "datacenters: name 2 is empty" <<'EOF'
datacenters = ["a", ""]
one_way_ms = [[0, 50], [50, 0]]
EOF
broken long-name "datacenters: name 1 has 32 characters, at most 31" <<'EOF'
datacenters = ["abcdefghijklmnopqrstuvwxyz012345"]
one_way_ms = [[0]]
EOF
broken no-dcs "datacenters: 0 names, want 1 to 8" <<'EOF'
datacenters = []
one_way_ms = []
EOF
broken nine-dcs "datacenters: 9 names, want 1 to 8" <<'EOF'
datacenters = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
one_way_ms = []
EOF
broken names-not-strings "datacenters: not an array of strings" <<'EOF'
datacenters = [1, 2]
one_way_ms = [[0, 50], [50, 0]]
EOF
broken bad-leader "leaders: 'tokyo' is not a datacenter" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
leaders = ["a", "tokyo", "b"]
EOF
broken leader-count "leaders: 2 names for 3 shards" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
leaders = ["a", "b"]
EOF
broken bad-ours "ours: 'z' is not a datacenter" <<'EOF'
datacenters = ["a", "b"]
ours = ["z"]
one_way_ms = [[0, 50], [50, 0]]
EOF
broken intra-too-big "intra_dc_ms = 40: must be below the smallest delay between datacenters, 40" <<'EOF'
datacenters = ["a", "b", "c"]
one_way_ms = [[0, 50, 40], [50, 0, 50], [40, 50, 0]]
intra_dc_ms = 40
EOF
broken intra-zero "intra_dc_ms = 0: must be above 0" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
intra_dc_ms = 0
EOF
broken jitter "jitter_ms = -1: negative" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
jitter_ms = -1
EOF
broken shards "shards = 17: want 1 to 16" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
shards = 17
EOF
broken shards-fraction "shards: not an integer" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]]
shards = 2.5
EOF
broken syntax "Bare key one_way_ms [[0, 50 cannot contain whitespace at line 2" <<'EOF'
datacenters = ["a", "b"]
one_way_ms [[0, 50], [50, 0]]
EOF
broken unclosed "Unclosed array at line 3" <<'EOF'
datacenters = ["a", "b"]
one_way_ms = [[0, 50], [50, 0]
EOF
broken duplicate-key "Key datacenters already present" <<'EOF'
datacenters = ["a", "b"]
datacenters = ["c"]
one_way_ms = [[0, 50], [50, 0]]
EOF
expect_bad "rundb: $tmp/no-such.toml: cannot open: No such file or directory" \
    --geo "$tmp/no-such.toml" --workload ycsb
expect_bad "rundb: $tmp: cannot read: Is a directory" --geo "$tmp" --workload ycsb

# the geo flags: only with --geo, in range
while read -r flag value; do
    expect_bad "rundb: --$flag: needs a deployment file (--geo FILE)" "--$flag" "$value"
done <<'EOF'
commit 2pc
geo-time-scale 10
cocoord-groups 2
geo-service-us 1
read-opt off
txn-ops 4
EOF
expect_bad "rundb: --geo: empty file name" --geo ""
g=(--geo config/geo/3dc.toml)
expect_bad "--commit: 'paxos' is not 2pc, d2pc or carousel" "${g[@]}" --commit paxos
expect_bad "--read-opt: 'yes' is not on or off" "${g[@]}" --read-opt yes
expect_bad "--read-opt: missing value" "${g[@]}" --read-opt
expect_bad "--geo-time-scale: 0.5 is outside [1, 1e+06]" "${g[@]}" --geo-time-scale 0.5
expect_bad "--cocoord-groups: 9 is outside [1, 8]" "${g[@]}" --cocoord-groups 9
expect_bad "--cocoord-groups: 0 is outside [1, 8]" "${g[@]}" --cocoord-groups 0
expect_bad "--geo-service-us: -1 is outside [0, 1e+06]" "${g[@]}" --geo-service-us -1
expect_bad "--txn-ops: 33 is outside [1, 32]" "${g[@]}" --txn-ops 33
expect_bad "--txn-ops: 0 is outside [1, 32]" "${g[@]}" --txn-ops 0

help=$(timeout 10 "$bin" --help)
for f in geo commit geo-time-scale cocoord-groups geo-service-us read-opt txn-ops; do
    if ! grep -q -- "--$f .*(default: " <<<"$help"; then
        echo "--help does not document --$f with its default"
        bad=1
    fi
done

exit $bad
