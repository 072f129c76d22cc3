#!/usr/bin/env bash
# Installs the Debian packages a make target needs, if missing; prints nothing when
# everything is there. Runs as root (apt-get). Groups (arguments): none = build and run;
# plots = matplotlib and gnuplot; cluster = GNU parallel and a one-node SLURM (munge,
# slurmctld, slurmd) for the sweep runner's tests.
set -euo pipefail
pkgs=(gcc g++ make libjemalloc-dev libnuma-dev libhwloc-dev libtbb-dev libcpptoml-dev sqlite3)
for group in "$@"; do
    case $group in
    plots) pkgs+=(python3 python3-matplotlib gnuplot-nox) ;;
    cluster) pkgs+=(parallel slurm-wlm munge) ;;
    *) echo "install_deps.sh: unknown group '$group' (plots, cluster)" >&2; exit 2 ;;
    esac
done
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
