#!/usr/bin/env bash
# The layering check must pass on the tree and fail on a planted upward include: runs
# tests/layers.sh on the tree, then on a copy of config/, storage/, cc/ and benchmarks/
# with one include pointing up per layer boundary, and expects each copy to be refused.
set -eu
cd "$(dirname "$0")/.."
tests/layers.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for plant in 'storage/rand.h:cc/txn.h' 'cc/txn.h:benchmarks/driver.h' 'config/config.h:storage/row.h'; do
    file=${plant%%:*} inc=${plant#*:}
    rm -rf "$tmp/tree" && mkdir "$tmp/tree"
    cp -r config storage cc benchmarks "$tmp/tree/"
    echo "#include \"$inc\"" >>"$tmp/tree/$file"
    if out=$(tests/layers.sh "$tmp/tree" 2>&1); then
        echo "layers.sh passed a tree where $file includes $inc" >&2
        exit 1
    fi
    grep -q "^$file:.*\"$inc\"" <<<"$out" || { echo "layers.sh did not name $file: $out" >&2; exit 1; }
done
echo "layers_test: the tree passes; each planted upward include is refused"
