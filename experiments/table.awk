# Prints a table from rundb JSON result lines (one per run): one row per (workload
# setting, threads, variant) with the median throughput, abort rate, p99 latency and
# share of the measured window's CPU time spent in the kernel (sys%) over the repetitions,
# and the median cache-line round trip between threads 0 and 1 (trip_ns: the mean of each
# run's machine.line_trip_ns, "-" where not measured); vs_none: the median over the
# repetitions of the run's throughput over `none`'s at the same point in the same
# repetition (the i-th run of each, as bench.sh runs every variant once per repetition, so
# the two ran minutes apart at most), "-" where the point has no `none` run; min-max: the
# lowest and the highest of those paired ratios.
# Usage: awk -f experiments/table.awk results.jsonl
function num(key,    m) {
    if (match($0, "\"" key "\":-?[0-9.e+-]+")) {
        m = substr($0, RSTART, RLENGTH)
        sub(/^"[^"]*":/, "", m)
        return m + 0
    }
    return ""
}
function str(key,    m) {
    if (match($0, "\"" key "\":\"[^\"]*\"")) {
        m = substr($0, RSTART, RLENGTH)
        sub(/^"[^"]*":"/, "", m)
        sub(/"$/, "", m)
        return m
    }
    return ""
}
function median(list,    a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^\{/ {
    wl = str("workload")
    setting = wl
    if (wl == "ycsb")
        setting = sprintf("ycsb theta %s read %s rows %s %sx%sB", num("theta"), num("read-ratio"),
                          num("rows"), num("fields"), num("field-size"))
    else if (wl == "synth")
        setting = sprintf("synth len %s distance %s", num("len"), num("distance"))
    else if (wl == "tpcc")
        setting = sprintf("tpcc %s wh %s%s%s", str("mix"), num("warehouses"),
                          $0 ~ /"partition-by-warehouse":true/ ? " partitioned" : "",
                          $0 ~ /"remote":false/ ? " local" : "")
    else if (wl == "bank")
        setting = sprintf("bank accounts %s hot %s", num("accounts"), num("hot-accounts"))
    k = setting SUBSEP num("threads") SUBSEP str("variant")
    if (!(k in tput)) {
        order[++n] = k
    }
    tput[k] = tput[k] " " num("throughput")
    abr[k] = abr[k] " " num("abort_rate")
    # the first p99 of the line is the overall latency's
    match($0, /"latency_us":\{[^}]*\}/)
    lat = substr($0, RSTART, RLENGTH)
    match(lat, /"p99":[0-9.]+/)
    p99[k] = p99[k] " " substr(lat, RSTART + 6, RLENGTH - 6)
    # the measured window's CPU usage: the last phase of "cpu"
    if (match($0, /"cpu":\{"load":\{[^}]*\},"generate":\{[^}]*\},"warmup":\{[^}]*\},"window":\{[^}]*\}/)) {
        cpu = substr($0, RSTART, RLENGTH)
        match(cpu, /"window":\{[^}]*\}/)
        cpu = substr(cpu, RSTART, RLENGTH)
        match(cpu, /"sys_share":[0-9.]+/)
        sys[k] = sys[k] " " substr(cpu, RSTART + 12, RLENGTH - 12)
    } else {
        sys[k] = sys[k] " -1"
    }
    # threads 0 and 1's cache-line round trip: the mean of the run's edges (-1: null)
    trip = -1
    if (match($0, /"line_trip_ns":\{"before":[0-9.]+,"after":[0-9.]+\}/)) {
        t = substr($0, RSTART, RLENGTH)
        gsub(/[^0-9.,]/, "", t)
        split(t, e, ",")
        trip = (e[1] + e[2]) / 2
    }
    trips[k] = trips[k] " " trip
    reps[k]++
    run_tput[k, reps[k]] = num("throughput")
}
# Point k's runs' ratios to none's at the same point, paired in order (the i-th run of
# each), as a space-separated list; "" where the point has no `none` run.
function ratios(k,    f, kn, j, list) {
    split(k, f, SUBSEP)
    kn = f[1] SUBSEP f[2] SUBSEP "none"
    if (!(kn in reps))
        return ""
    list = ""
    for (j = 1; j <= reps[k] && j <= reps[kn]; j++)
        if (run_tput[kn, j] > 0)
            list = list " " run_tput[k, j] / run_tput[kn, j]
    return list
}
# The vs_none cell: the median of the paired ratios.
function vs_none(k,    list) {
    list = ratios(k)
    return list == "" ? "-" : sprintf("%.2f", median(list))
}
# The min-max cell: the lowest and the highest paired ratio, so a reader sees how far
# the repetitions disagree (on a VM whose speed drifts, often more than the difference
# being measured).
function spread(k,    list, a, n, i, lo, hi) {
    list = ratios(k)
    if (list == "")
        return "-"
    n = split(list, a, " ")
    lo = hi = a[1] + 0
    for (i = 2; i <= n; i++) {
        if (a[i] + 0 < lo)
            lo = a[i] + 0
        if (a[i] + 0 > hi)
            hi = a[i] + 0
    }
    return sprintf("%.2f-%.2f", lo, hi)
}
END {
    printf "%-48s %7s %-13s %12s %7s %9s %8s %10s %6s %7s %4s\n", "setting", "threads", "variant", "commits/s", "vs_none", "min-max", "aborts", "p99 us", "sys%", "trip_ns", "reps"
    for (i = 1; i <= n; i++) {
        k = order[i]
        split(k, f, SUBSEP)
        s = median(sys[k])
        r = median(trips[k])
        printf "%-48s %7s %-13s %12.0f %7s %9s %7.1f%% %10.1f %6s %7s %4d\n", f[1], f[2], f[3], median(tput[k]),
               vs_none(k), spread(k), 100 * median(abr[k]), median(p99[k]), s < 0 ? "-" : sprintf("%.1f%%", 100 * s),
               r < 0 ? "-" : sprintf("%.0f", r), reps[k]
    }
}
