#!/usr/bin/env bash
# A throw-away one-node SLURM cluster on this machine, for testing the sweep runner's
# sbatch dispatch (experiments/run) without a real cluster. Runs as root.
#
#   tests/slurm_local.sh start DIR   # DIR: a fresh directory (e.g. mktemp -d); all state,
#                                    # sockets, pid files and logs go under it; returns once
#                                    # the node is idle (else prints the logs, stops, exit 1)
#   eval "$(tests/slurm_local.sh env DIR)"   # export SLURM_CONF for sbatch/squeue/sinfo
#   tests/slurm_local.sh stop DIR    # cancels jobs, stops slurmd, slurmctld, munged, kills
#                                    # leftover job steps; safe after a failed start (trap)
#   tests/slurm_local.sh deps        # installs slurm-wlm, munge, parallel if missing
#
# Cluster "rundbtest": node $(hostname -s) with the CPUs/memory slurmd -C reports, partition
# "debug" (default, no time limit), select/cons_tres CR_Core, no accounting, no cgroups
# (proctrack/linuxproc, task/none), its own munged on DIR/munge.socket and its own
# ports (first free pair from 16817/16818 up), so a system slurm/munge can keep running.
# DIR is made world-searchable (0755): munged refuses a socket in a directory that is not.
# MinJobAge=4 and batch_sched_delay=0 keep tests fast: sbatch --wait polls every 2 s (not
# 2, 8, 32 s) and array tasks start within ~1 s; finished jobs soon leave squeue, and with
# no accounting there is no sacct: learn a job's outcome from its output files.
set -euo pipefail

die() { echo "slurm_local: $*" >&2; exit 1; }

deps() { # the "cluster" group of the project's package installer
    "$(dirname "$0")/install_deps.sh" cluster
}

absdir() { # absdir DIR: the absolute path of an existing directory
    [ -d "$1" ] || die "no such directory: $1"
    (cd "$1" && pwd -P)
}

# Ports someone listens on (TCP, v4 and v6), one decimal number a line.
listening_ports() {
    local hex
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { n = split($2, a, ":"); print a[n] }' |
        while read -r hex; do echo $((16#$hex)); done | sort -u
}

pick_ports() { # prints "CTLD SLURMD": the first free pair 16817+10k / 16818+10k
    local used p
    used=$(listening_ports)
    for p in $(seq 16817 10 16997); do
        if ! grep -qx "$p" <<<"$used" && ! grep -qx "$((p + 1))" <<<"$used"; then
            echo "$p $((p + 1))"
            return
        fi
    done
    die "no free port pair in 16817..16998"
}

alive() { # alive PID: running and not a zombie
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Every process of the cluster in DIR: munged/slurmctld/slurmd (their command line names
# DIR), job scripts (DIR/spool/...), slurmstepd whose environment has SLURM_CONF=DIR/...,
# and all their descendants. Never this script or its ancestors.
our_pids() {
    local dir=$1 p cmd roots=() mine=" $$ " q
    q=$$
    while [ "$q" -gt 1 ] 2>/dev/null; do # ancestors of this script
        q=$(sed 's/.*) //' "/proc/$q/stat" 2>/dev/null | cut -d' ' -f2) || break
        mine+="$q "
    done
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        case "$mine" in *" $p "*) continue ;; esac
        cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
        if [[ "$cmd" == *"$dir/"* ]]; then
            roots+=("$p")
        elif [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] &&
            tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qxF "SLURM_CONF=$dir/slurm.conf"; then
            roots+=("$p")
        fi
    done
    [ ${#roots[@]} -gt 0 ] || return 0
    # add descendants (ps-free: pid and ppid from /proc/*/stat)
    local tree
    tree=$(for p in /proc/[0-9]*/stat; do sed 's/^\([0-9]*\) .*) [A-Za-z] \([0-9]*\) .*/\1 \2/' "$p" 2>/dev/null; done)
    awk -v roots="${roots[*]}" -v mine="$mine" '
        { parent[$1] = $2 }
        END {
            n = split(roots, r, " "); for (i = 1; i <= n; i++) sel[r[i]] = 1
            do { grew = 0
                 for (c in parent) if (!(c in sel) && (parent[c] in sel) && index(mine, " " c " ") == 0) { sel[c] = 1; grew = 1 }
            } while (grew)
            for (c in sel) print c
        }' <<<"$tree" | sort -n
}

stop_cluster() {
    local dir=$1 p pids left i
    [ -d "$dir" ] || return 0
    dir=$(absdir "$dir")
    # 1. cancel jobs while slurmctld can still be asked (quickly; it may be half started)
    if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ] && alive "$(cat "$dir/slurmctld.pid")"; then
        local jobs
        jobs=$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %A 2>/dev/null || true)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086
            SLURM_CONF=$dir/slurm.conf timeout 5 scancel $jobs 2>/dev/null || true
            for i in $(seq 20); do
                [ -z "$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -t R,CG -o %A 2>/dev/null)" ] && break
                sleep 0.25
            done
        fi
    fi
    # 2. daemons by pid file (slurmd first, munged last: the others talk to it), TERM
    for p in slurmd slurmctld munged; do
        if [ -f "$dir/$p.pid" ]; then
            pids=$(cat "$dir/$p.pid" 2>/dev/null || true)
            if [ -n "$pids" ] && alive "$pids" && tr '\0' ' ' 2>/dev/null <"/proc/$pids/cmdline" | grep -qF "$dir/"; then
                kill -TERM "$pids" 2>/dev/null || true
                for i in $(seq 40); do alive "$pids" || break; sleep 0.25; done
            fi
        fi
    done
    # 3. whatever is left (no pid file yet, job steps, job processes): TERM, then KILL
    for i in $(seq 20); do
        left=$(our_pids "$dir")
        [ -z "$left" ] && break
        for p in $left; do kill -TERM "$p" 2>/dev/null || true; done
        [ "$i" -lt 12 ] || for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
        sleep 0.25
    done
    left=""
    for p in $(our_pids "$dir"); do alive "$p" && left+="$p "; done
    [ -z "$left" ] || die "processes still running after stop: $left"
    rm -f "$dir"/*.pid "$dir/munge.socket" "$dir/munge.socket.lock"
}

tail_logs() {
    local dir=$1 f
    for f in munged.out munged.log slurmctld.out slurmctld.log slurmd.out slurmd.log; do
        [ -s "$dir/$f" ] || continue
        echo "---- $dir/$f (last 25 lines)" >&2
        tail -n 25 "$dir/$f" >&2
    done
}

fail_start() { # fail_start DIR MSG: logs, stop what started, exit 1
    echo "slurm_local: start failed: $2" >&2
    tail_logs "$1"
    stop_cluster "$1" || true
    exit 1
}

start_cluster() {
    local dir host ctld_port slurmd_port cpu_line i state
    [ "$(id -u)" -eq 0 ] || die "start must run as root (slurmd launches jobs)"
    deps
    dir=$(absdir "$1")
    [[ "$dir" != *[[:space:]#=]* ]] || die "DIR must not contain blanks, '#' or '=' (slurm.conf): $dir"
    [ ! -e "$dir/slurm.conf" ] || die "$dir already holds a cluster (stop it, use a fresh dir)"
    chmod 0755 "$dir"
    host=$(hostname -s)
    mkdir -p "$dir/state" "$dir/spool"

    # munge: own key, socket, pid, log, seed. munged (0.5.15) runs as root without --force.
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$dir/munge.key"
    munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munged.seed" >"$dir/munged.out" 2>&1 ||
        fail_start "$dir" "munged: $(cat "$dir/munged.out")"
    for i in $(seq 40); do [ -S "$dir/munge.socket" ] && break; sleep 0.25; done
    munge -S "$dir/munge.socket" -n </dev/null | unmunge -S "$dir/munge.socket" >/dev/null 2>&1 ||
        fail_start "$dir" "munge credential round trip failed"

    # the node as slurmd sees it (CPUs, sockets, cores, threads, memory); nproc as fallback
    cpu_line=$(slurmd -C 2>/dev/null | head -n 1 | sed -n 's/^NodeName=[^ ]* //p')
    [ -n "$cpu_line" ] || cpu_line="CPUs=$(nproc)"
    read -r ctld_port slurmd_port <<<"$(pick_ports)"
    cat >"$dir/slurm.conf" <<EOF
# written by tests/slurm_local.sh
ClusterName=rundbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=4
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 $cpu_line State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    # daemons fork into the background themselves and write their pid files
    SLURM_CONF=$dir/slurm.conf slurmctld -f "$dir/slurm.conf" >"$dir/slurmctld.out" 2>&1 ||
        fail_start "$dir" "slurmctld: $(cat "$dir/slurmctld.out")"
    SLURM_CONF=$dir/slurm.conf slurmd -f "$dir/slurm.conf" -N "$host" >"$dir/slurmd.out" 2>&1 ||
        fail_start "$dir" "slurmd: $(cat "$dir/slurmd.out")"

    for i in $(seq 120); do
        state=$(SLURM_CONF=$dir/slurm.conf timeout 5 sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        sleep 0.5
    done
    fail_start "$dir" "node $host not idle after 60 s (state: '${state:-?}')"
}

[ $# -ge 1 ] || die "usage: $0 start|stop|env DIR | deps"
case "$1" in
start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start_cluster "$2" ;;
stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop_cluster "$2" ;;
env) [ $# -eq 2 ] || die "usage: $0 env DIR"; printf 'export SLURM_CONF=%q\n' "$(absdir "$2")/slurm.conf" ;;
deps) deps ;;
*) die "unknown subcommand '$1' (start|stop|env DIR, deps)" ;;
esac
