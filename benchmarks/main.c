/* rundb-<variant>: parses the flags, loads the workload, runs it under the linked CC
 * algorithm, checks history and invariants when asked, and reports.
 * Exit status: 0 success, 1 a check failed (or a set-up failure), 2 bad input, 3 the run
 * stalled (--stall-timeout: no progress for that long; benchmarks/watchdog.h) or did not
 * end within --run-timeout (benchmarks/deadline.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/anomaly.h"
#include "benchmarks/build_info.h"
#include "benchmarks/deadline.h"
#include "benchmarks/driver.h"
#include "benchmarks/geo_options.h"
#include "benchmarks/progress.h"
#include "benchmarks/report.h"
#include "storage/clock.h"
#include "storage/mem.h"
#include "storage/topology.h"
#include "storage/table.h"

_Static_assert((int)PIN_COMPACT == (int)TOPO_COMPACT && (int)PIN_SCATTER == (int)TOPO_SCATTER &&
                   (int)PIN_SMT == (int)TOPO_SMT && (int)PIN_NONE == (int)TOPO_NONE,
               "enum pin_policy follows enum topo_policy");

/* Optional in an algorithm (cc.h): weak, so algorithms that claim less need not say. */
extern const bool cc_alg_strict __attribute__((weak));
extern const bool cc_alg_recoverable __attribute__((weak));
/* The sketch timestamp store's size (cc/ts_sketch.c), where the variant has one. */
extern size_t ts_sketch_bytes __attribute__((weak));

/* --run-timeout's default: generous, about 20 times what a loaded 2-core machine takes
 * for each part of the run (a 1 M-row YCSB load takes about a second there). */
static double run_timeout_default(const struct options *o, const struct workload *w)
{
    double rows = (double)w->rows_to_load(o);
    double load = rows * 20e-6 * (1 + o->check + (*o->dump != 0)); /* checks, dumps scan it */
    double gen = (double)o->threads * (double)o->queries_per_thread * 5e-6;
    double run = 2 * (o->warmup_s + o->duration_s) + 1e-3 * o->recovery_timeout_ms;
    double history = o->verify ? 20 * o->duration_s : 0;
    return 60 + load + gen + run + history;
}

int main(int argc, char **argv)
{
    struct options o;
    options_parse(&o, argc, argv);
    if (o.anomalies && !anomaly_flags_ok(&o))
        return 2;
    if (*o.geo) {
        struct geo_config c;
        char err[512];
        if (!geo_options_config(&o, &c, err, sizeof(err)) ||
            !geo_configure(&c, o.threads, err, sizeof(err))) {
            fprintf(stderr, "rundb: %s\n", err);
            return 2;
        }
    } else if (geo_workload_name(o.workload)) {
        fprintf(stderr, "rundb: --workload %s: needs a deployment file (--geo FILE)\n",
                o.workload);
        return 2;
    }
    if (*o.out) {
        FILE *f = fopen(o.out, "a");
        if (!f) {
            fprintf(stderr, "rundb: --out: cannot open '%s' for appending\n", o.out);
            return 2;
        }
        fclose(f);
    }
    if (*o.dump) {
        struct stat st;
        if ((mkdir(o.dump, 0777) != 0 && errno != EEXIST) || stat(o.dump, &st) != 0 ||
            !S_ISDIR(st.st_mode) || access(o.dump, W_OK) != 0) {
            fprintf(stderr, "rundb: --dump: '%s' is not a writable directory\n", o.dump);
            return 2;
        }
    }
    const struct workload *w = workload_find(o.workload);
    if (o.fail_commit_at_s > 0 && !(&cc_alg_recoverable && cc_alg_recoverable)) {
        fprintf(stderr, "rundb: --fail-commit-at: %s has no recovery protocol (only NCC)\n",
                cc_alg_name);
        return 2;
    }
    if (&ts_sketch_bytes) /* options.c refused the flag where there is none */
        ts_sketch_bytes = (size_t)o.sketch_kib * 1024;
    char err[200];
    if (!topo_plan_build((enum topo_policy)o.pin, o.threads, err, sizeof(err))) {
        fprintf(stderr, "rundb: %s\n", err);
        return 1;
    }
    if (o.pin_plan) {
        topo_plan_json(stdout);
        putchar('\n');
        return 0;
    }
    if (!topo_is_this_system()) {
        fprintf(stderr, "rundb: HWLOC_SYNTHETIC describes another machine: only --pin-plan "
                        "may use it\n");
        return 2;
    }
    mem_init(topo_plan_nodes());
    clock_calibrate();
    if (o.anomalies) /* the anomaly matrix instead of a workload */
        return anomaly_main(&o);
    if (*o.hang_in && !deadline_set_hang(o.hang_in, err, sizeof(err))) {
        fprintf(stderr, "rundb: %s\n", err);
        return 2;
    }
    if (o.run_timeout_s == 0)
        o.run_timeout_s = run_timeout_default(&o, w);
    deadline_start(o.run_timeout_s, o.stall_timeout_s);
    clock_skew_ticks = (uint64_t)(o.clock_skew_us * 1e-6 * clock_ticks_per_s);
    progress_init(o.quiet);

    double t0 = clock_now_s();
    struct cpu_usage c0, c1;
    cpu_usage_now(&c0);
    deadline_phase("load");
    w->load(&o);
    catalog_loaded();
    cpu_usage_now(&c1);
    struct report_in rep = {
        .o = &o, .w = w, .load_s = clock_now_s() - t0, .load_cpu = cpu_usage_sub(&c1, &c0)};

    cc_init(o.threads);
    struct run_result res;
    driver_run(w, &o, &res);
    progress_end();
    cc_fini();
    rep.res = &res;

    bool ok = true;
    if (o.verify) {
        deadline_phase("history-check");
        double v0 = clock_now_s();
        rep.verified = true;
        ok &= hist_self_test(stderr);
        /* the clients' logs, then those of the contexts failed clients left behind */
        int nlogs = o.threads + res.recovery.nhist;
        res.hist = mem_realloc(res.hist, (size_t)nlogs * sizeof(*res.hist));
        for (int i = 0; i < res.recovery.nhist; i++)
            res.hist[o.threads + i] = res.recovery.hist[i];
        free(res.recovery.hist);
        res.recovery.hist = NULL;
        ok &= hist_check((struct hist_log *const *)res.hist, nlogs, catalog_names(),
                         catalog_count(),
                         &cc_alg_strict && cc_alg_strict ? HIST_LEVEL_STRICT
                         : cc_alg_serializable          ? HIST_LEVEL_SER
                                                        : HIST_LEVEL_RC,
                         stderr,
                         &rep.hres);
        rep.verify_s = clock_now_s() - v0;
        for (int i = 0; i < nlogs; i++) {
            hist_log_free(res.hist[i]);
            mem_free(res.hist[i]);
        }
        mem_free(res.hist);
    }
    if (w->check && (o.check || !w->check_on_request)) {
        deadline_phase("check");
        rep.checked = true;
        rep.check_ok = w->check(&o, stderr);
        ok &= rep.check_ok;
    }
    deadline_phase("dump");
    if (*o.dump && !w->dump(&o, o.dump, stderr))
        ok = false;
    deadline_phase("report");
    report_print(&rep);
    run_result_free(&res);
    deadline_phase("exit");
    return ok ? 0 : 1;
}
