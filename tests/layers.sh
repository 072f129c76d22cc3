#!/usr/bin/env bash
# The layering rule (docs/architecture.md): benchmarks -> cc -> storage -> config. A file
# may include headers of its own layer and of the layers below it, never above:
#   config/      nothing of the project's
#   storage/     storage/, config/
#   cc/          cc/, storage/, config/
#   benchmarks/  benchmarks/, cc/, storage/, config/
# Checks every #include "..." of the C and C++ sources and headers of the four layers (or
# of the tree given as $1); prints each include that points up and exits 1 if any does.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
rank() {
    case $1 in
    config) echo 0 ;;
    storage) echo 1 ;;
    cc) echo 2 ;;
    benchmarks) echo 3 ;;
    *) echo -1 ;;
    esac
}
bad=0
checked=0
while IFS= read -r -d '' f; do
    rel=${f#"$root"/}
    from=${rel%%/*}
    fr=$(rank "$from")
    checked=$((checked + 1))
    while IFS=: read -r line inc; do
        to=${inc%%/*}
        tr=$(rank "$to")
        if [ "$tr" -lt 0 ]; then
            [ "$inc" = "${inc#*/}" ] && continue # a header beside the file, by bare name
            echo "$rel:$line: includes \"$inc\": not a layer (config, storage, cc, benchmarks)"
            bad=$((bad + 1))
        elif [ "$tr" -gt "$fr" ]; then
            echo "$rel:$line: includes \"$inc\": $from/ must not include $to/ (a higher layer)"
            bad=$((bad + 1))
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done < <(find "$root/config" "$root/storage" "$root/cc" "$root/benchmarks" -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) -print0 2>/dev/null)
if [ "$checked" = 0 ]; then
    echo "layers: no sources found under $root" >&2
    exit 2
fi
if [ "$bad" -gt 0 ]; then
    echo "layers: $bad include(s) against the layering rule in $checked files" >&2
    exit 1
fi
echo "layers: $checked files, every include points down or sideways"
