#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the plots need, if missing.
# Runs as root (apt-get); prints nothing when everything is there.
set -euo pipefail
pkgs=(gcc g++ make libjemalloc-dev libnuma-dev libtbb-dev sqlite3)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
