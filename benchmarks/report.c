/* Result reporting: a human summary on stderr and one JSON object, the last line of
 * stdout (and appended to --out). The JSON holds the whole effective configuration
 * (compile-time and run-time), the machine, the git revision and all results, so a line
 * alone is enough to reproduce and plot the run. */
#include "benchmarks/report.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/build_info.h"
#include "benchmarks/json.h"
#include "cc/geo.h"
#include "storage/clock.h"
#include "storage/index.h"
#include "storage/mem.h"
#include "storage/topology.h"


/* Optional in an algorithm (cc.h): weak references, NULL where it does not define them. */
extern const bool cc_alg_strict __attribute__((weak));
extern const char *const cc_alg_counter_names[CC_ALG_COUNTERS] __attribute__((weak));
extern void cc_report_json(FILE *f) __attribute__((weak));
static bool alg_strict(void) { return &cc_alg_strict && cc_alg_strict; }

static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char *c = strchr(line, ':');
        if (c && strncmp(line, "model name", 10) == 0) {
            c += 2;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, n, "%s", c);
            break;
        }
    }
    fclose(f);
}

static double us(uint64_t ticks) { return clock_ticks_to_s(ticks) * 1e6; }

static void latency_json(FILE *f, const struct latency *l)
{
    fprintf(f, "{\"avg\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
            l->count ? us(l->sum) / (double)l->count : 0.0, us(latency_quantile(l, 0.5)),
            us(latency_quantile(l, 0.9)), us(latency_quantile(l, 0.99)),
            us(latency_quantile(l, 0.999)), us(l->max));
}

/* "series":{...} and a comma (see struct series). */
static void series_json(FILE *f, const struct series *s)
{
    fprintf(f, "\"series\":{\"interval_s\":%.15g,\"measure_start_s\":%.6f,\"t_s\":[",
            s->interval_s, s->measure_start_s);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%.4f", i ? "," : "", s->t_s[i]);
    fputs("],\"commits_per_s\":[", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%.1f", i ? "," : "", s->commits_per_s[i]);
    fputs("],\"rss_mib\":[", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%.1f", i ? "," : "", s->rss_mib[i]);
    fputs("],\"sys_share\":[", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%.4f", i ? "," : "", s->sys_share[i]);
    fputs("],\"minor_faults\":[", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)s->minor_faults[i]);
    fputs("],\"cpu_busy\":[", f);
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s%.3f", i ? "," : "", s->cpu_busy[i]);
    fputs("]},", f);
}

/* "open_loop":{...} and a comma: offered and achieved rates, queueing (arrivals.h); null
 * in a closed-loop run. */
static void open_loop_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    const struct arrivals_result *a = &r->arrivals;
    if (in->o->rate <= 0) {
        fputs("\"open_loop\":null,", f);
        return;
    }
    double offered = (double)a->due / r->window_s;
    double achieved = (double)r->total.commits / r->window_s;
    fprintf(f, "\"open_loop\":{\"rate\":%.15g,\"offered_per_s\":%.1f,\"achieved_per_s\":%.1f,"
               "\"saturated\":%s,\"arrivals\":%llu,\"started\":%llu,\"queued_frac\":%.4f,"
               "\"queue_wait_us\":",
            in->o->rate, offered, achieved,
            achieved < ARRIVALS_SATURATED * offered ? "true" : "false",
            (unsigned long long)a->due, (unsigned long long)a->started,
            a->started ? (double)a->queued / (double)a->started : 0.0);
    latency_json(f, &a->queue_wait);
    fputs(",\"start_lateness_us\":", f);
    latency_json(f, &a->lateness);
    fputs("},", f);
}

/* "network":{...} and a comma: the model's settings and what it charged (cc/netmodel.h);
 * null when it is off. Per commit: aborted attempts' rounds and messages included. */
static void network_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    const struct options *o = in->o;
    if (!net_on) {
        fputs("\"network\":null,", f);
        return;
    }
    double c = r->total.commits ? (double)r->total.commits : 1.0;
    fprintf(f, "\"network\":{\"rtt_us\":%.15g,\"jitter_us\":%.15g,\"msg_cpu_us\":%.15g,"
               "\"servers\":%d,\"rounds_per_commit\":%.3f,\"messages_per_commit\":%.3f,"
               "\"legs_per_commit\":%.3f,\"lateness_us\":",
            o->net_rtt_us, o->net_jitter_us, o->net_msg_cpu_us, o->servers,
            (double)r->net.rounds / c, (double)r->net.messages / c, (double)r->net.legs / c);
    latency_json(f, &r->net.lateness);
    fputs("},", f);
}

/* "storage":{...} and a comma: the storage model's settings and what it charged
 * (storage/storage_model.h); null when it is off. I/Os per commit count those of aborted
 * attempts too; goodput is the result's throughput. */
static void storage_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    const struct sm_stats *s = &r->sm;
    if (!sm_on) {
        fputs("\"storage\":null,", f);
        return;
    }
    const struct sm_config *c = sm_settings();
    double k = r->total.commits ? (double)r->total.commits : 1.0;
    uint64_t touches = s->hits + s->reads;
    fputs("\"storage\":{\"preset\":", f);
    json_string(f, c->preset);
    fprintf(f, ",\"read_latency_us\":%.15g,\"write_latency_us\":%.15g,\"cache_rows\":%llu,"
               "\"ts_on_storage\":%s,\"hits\":%llu,\"misses\":%llu,\"hit_rate\":%.6f,"
               "\"reads_per_commit\":%.4f,\"meta_reads_per_commit\":%.4f,"
               "\"writes_per_commit\":%.4f,\"meta_writes_per_commit\":%.4f,"
               "\"io_per_commit\":%.4f,\"stall_s\":%.6f,\"goodput\":%.1f},",
            c->read_us, c->write_us, (unsigned long long)c->cache_rows,
            c->ts_on_storage ? "true" : "false", (unsigned long long)s->hits,
            (unsigned long long)s->reads, touches ? (double)s->hits / (double)touches : 0.0,
            (double)s->reads / k, (double)s->meta_reads / k, (double)s->writes / k,
            (double)s->meta_writes / k,
            (double)(s->reads + s->meta_reads + s->writes + s->meta_writes) / k,
            clock_ticks_to_s(s->stall_ticks), (double)r->total.commits / r->window_s);
}

/* "recovery":{...} and a comma: client failure (--fail-commit-at, recovery.h), the
 * transactions the clients dropped and how the backup coordinator finished them; null
 * without a failure. */
static void recovery_json(FILE *f, const struct report_in *in)
{
    const struct recovery_result *rr = &in->res->recovery;
    if (in->o->fail_commit_at_s <= 0) {
        fputs("\"recovery\":null,", f);
        return;
    }
    fprintf(f, "\"recovery\":{\"fail_commit_at_s\":%.15g,\"timeout_ms\":%.15g,\"dropped\":%llu,"
               "\"committed\":%llu,\"aborted\":%llu,\"finished_at_stop\":%llu,\"delay_us\":",
            in->o->fail_commit_at_s, in->o->recovery_timeout_ms,
            (unsigned long long)rr->dropped, (unsigned long long)rr->committed,
            (unsigned long long)rr->aborted, (unsigned long long)rr->at_stop);
    latency_json(f, &rr->delay);
    fputs("},", f);
}

static double rate(uint64_t aborts, uint64_t commits)
{
    return aborts + commits ? (double)aborts / (double)(aborts + commits) : 0.0;
}

/* The members of the result object (write_json lists them in order): each *_json below,
 * like open_loop_json to series_json above, writes its member (or members) and a comma;
 * check_json, the last, writes no comma. */

/* "variant", "algorithm", "workload", "threads". */
static void identity_json(FILE *f, const struct report_in *in)
{
    fprintf(f, "\"variant\":\"%s\",\"algorithm\":\"%s\",\"workload\":\"%s\",\"threads\":%d,",
            build_variant, cc_alg_name, in->w->name, in->o->threads);
}

/* The window's totals: commits, aborts, throughput and the latency of every type merged. */
static void totals_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    const struct txn_stats *st = &r->total;
    struct latency all;
    memset(&all, 0, sizeof(all));
    for (int k = 0; k < in->w->ntypes; k++)
        latency_merge(&all, &r->types[k].lat);
    fprintf(f, "\"duration_s\":%.6f,\"commits\":%llu,\"aborts\":%llu,\"abort_rate\":%.6f,",
            r->window_s, (unsigned long long)st->commits, (unsigned long long)st->aborts,
            rate(st->aborts, st->commits));
    fprintf(f, "\"throughput\":%.1f,\"latency_us\":", (double)st->commits / r->window_s);
    latency_json(f, &all);
    fputc(',', f);
}

/* "per_type":{...}: the totals of each transaction type. */
static void per_type_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    fputs("\"per_type\":{", f);
    for (int k = 0; k < in->w->ntypes; k++) {
        const struct type_result *tr = &r->types[k];
        fprintf(f, "%s\"%s\":{\"commits\":%llu,\"aborts\":%llu,\"rollbacks\":%llu,"
                   "\"abort_rate\":%.6f,\"throughput\":%.1f,\"latency_us\":",
                k ? "," : "", in->w->type_names[k], (unsigned long long)tr->commits,
                (unsigned long long)tr->aborts, (unsigned long long)tr->rollbacks,
                rate(tr->aborts, tr->commits), (double)tr->commits / r->window_s);
        latency_json(f, &tr->lat);
        fputc('}', f);
    }
    fputs("},", f);
}

/* "aborts_by_reason":{...}. */
static void aborts_by_reason_json(FILE *f, const struct txn_stats *st)
{
    fputs("\"aborts_by_reason\":{", f);
    for (int i = 0; i < AR_COUNT; i++)
        fprintf(f, "%s\"%s\":%llu", i ? "," : "", abort_reason_names[i],
                (unsigned long long)st->aborts_by[i]);
    fputs("},", f);
}

/* "alg_counters":{...}: the algorithm's own counters, per committed transaction; nothing
 * where it has none. */
static void alg_counters_json(FILE *f, const struct txn_stats *st)
{
    if (!cc_alg_counter_names)
        return;
    fputs("\"alg_counters\":{", f);
    for (int i = 0, n = 0; i < CC_ALG_COUNTERS; i++)
        if (cc_alg_counter_names[i])
            fprintf(f, "%s\"%s\":{\"count\":%llu,\"per_commit\":%.6f}", n++ ? "," : "",
                    cc_alg_counter_names[i], (unsigned long long)st->alg[i],
                    st->commits ? (double)st->alg[i] / (double)st->commits : 0.0);
    fputs("},", f);
}

/* "time_breakdown":{...}: seconds summed over workers, and each part's share of their
 * total. */
static void time_breakdown_json(FILE *f, const struct txn_stats *st)
{
    uint64_t total = 0;
#define TB_SUM_(n) total += st->t_##n;
    STATS_TIMES(TB_SUM_)
#undef TB_SUM_
    fprintf(f, "\"time_breakdown\":{\"stats_enabled\":%s", STATS_ENABLED ? "true" : "false");
#define TB_JSON_(n)                                                                          \
    fprintf(f, ",\"" #n "_s\":%.6f,\"" #n "_frac\":%.4f", clock_ticks_to_s(st->t_##n),      \
            total ? (double)st->t_##n / (double)total : 0.0);
    STATS_TIMES(TB_JSON_)
    /* each a part of a component above, as a share of the same total; and the rest of
     * `wait`, so that ww_wait and other_wait stack to wait */
    STATS_SUBTIMES(TB_JSON_)
#undef TB_JSON_
    uint64_t other_wait = st->t_wait - st->t_ww_wait;
    fprintf(f, ",\"other_wait_s\":%.6f,\"other_wait_frac\":%.4f", clock_ticks_to_s(other_wait),
            total ? (double)other_wait / (double)total : 0.0);
    fputs("},", f);
}

/* "reads", "writes", "updates", "reupdates", "reupdate_rate", "rows_reused". */
static void access_counts_json(FILE *f, const struct txn_stats *st)
{
    fprintf(f, "\"reads\":%llu,\"writes\":%llu,", (unsigned long long)st->reads,
            (unsigned long long)st->writes);
    fprintf(f, "\"updates\":%llu,\"reupdates\":%llu,\"reupdate_rate\":%.6f,",
            (unsigned long long)st->updates, (unsigned long long)st->reupdates,
            st->updates ? (double)st->reupdates / (double)st->updates : 0.0);
    fprintf(f, "\"rows_reused\":%llu,", (unsigned long long)st->rows_reused);
}

/* "deadlock_search":{...}. */
static void deadlock_search_json(FILE *f, const struct txn_stats *st)
{
    fprintf(f, "\"deadlock_search\":{\"searches\":%llu,\"edges_per_search\":%.2f,"
               "\"truncated\":%llu},",
            (unsigned long long)st->deadlock_searches,
            st->deadlock_searches ? (double)st->deadlock_edges / (double)st->deadlock_searches
                                  : 0.0,
            (unsigned long long)st->deadlock_truncated);
}

/* "shared_writes_per_commit":{...} (storage/shared_writes.h); nothing unless a
 * COUNT_SHARED_WRITES build. */
static void shared_writes_json(FILE *f, const struct run_result *r)
{
    if (!SHW_ENABLED)
        return;
    fputs("\"shared_writes_per_commit\":{", f);
    for (int k = 0; k < SHW_NKINDS; k++)
        fprintf(f, "%s\"%s\":%.3f", k ? "," : "", shw_names[k],
                r->total.commits ? (double)r->shared_writes[k] / (double)r->total.commits
                                 : 0.0);
    fputs("},", f);
}

/* "cc_state": the algorithm's own report (cc_report_json), or null. */
static void cc_state_json(FILE *f)
{
    fputs("\"cc_state\":", f);
    if (cc_report_json)
        cc_report_json(f);
    else
        fputs("null", f);
    fputc(',', f);
}

/* "config":{"compile":{...},"run":{...}}: the compile-time settings and the options. */
static void config_json(FILE *f, const struct report_in *in)
{
    fprintf(f, "\"config\":{\"compile\":{\"variant\":\"%s\",\"algorithm\":\"%s\","
               "\"variant_flags\":\"%s\",\"cc_meta_size\":%d,\"max_threads\":%d,"
               "\"index\":\"%s\",\"stats\":%d,\"arena_chunk_bytes\":%d,\"wait_spin_ns\":%d,"
               "\"wait_park_spin_ns\":%d,\"wait_park_ns\":%d,\"wait_sleep_ns\":%d,"
               "\"max_columns\":%d,\"wf_search_max_edges\":%d,\"silo_epoch_ms\":%d,"
               "\"ts_sketch_kib_default\":%d,\"cache_line\":%d},"
               "\"run\":{",
            build_variant, cc_alg_name, build_variant_flags, CC_META_SIZE, MAX_THREADS,
            idx_hash_kind(), STATS_ENABLED, ARENA_CHUNK_BYTES, WAIT_SPIN_NS, WAIT_PARK_SPIN_NS,
            WAIT_PARK_NS, WAIT_SLEEP_NS, MAX_COLUMNS, WF_SEARCH_MAX_EDGES, SILO_EPOCH_MS,
            TS_SKETCH_KIB_DEFAULT, CACHE_LINE);
    options_json(in->o, f);
    fputs("}},", f);
}

/* "data":{...}: the workload's own members (struct workload's json). */
static void data_json(FILE *f, const struct report_in *in)
{
    fputs("\"data\":{", f);
    if (in->w->json)
        in->w->json(in->o, f);
    fputs("},", f);
}

/* "machine":{...}: CPU model, cores, NUMA nodes, clock rate, and threads 0 and 1's
 * cache-line round trip at the run's edges (null where not measured). */
static void machine_json(FILE *f, const struct run_result *r)
{
    char cpu[256];
    cpu_model(cpu, sizeof(cpu));
    fputs("\"machine\":{\"cpu_model\":", f);
    json_string(f, cpu);
    fprintf(f, ",\"cores\":%ld,\"cpus_allowed\":%d,\"physical_cores_allowed\":%d,"
               "\"numa_nodes\":%d,\"tsc_hz\":%.0f,\"line_trip_ns\":",
            sysconf(_SC_NPROCESSORS_ONLN), r->ncpus, topo_ncores(), mem_numa_nodes(),
            clock_ticks_per_s);
    if (r->line_trip_ns[0] < 0 && r->line_trip_ns[1] < 0) {
        fputs("null},", f);
        return;
    }
    fputc('{', f);
    const char *edge[2] = {"before", "after"};
    for (int k = 0; k < 2; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", edge[k]);
        if (r->line_trip_ns[k] < 0)
            fputs("null", f);
        else
            fprintf(f, "%.0f", r->line_trip_ns[k]);
    }
    fputs("}},", f);
}

/* "pin_plan":[...]: where each thread ran (storage/topology.h). */
static void pin_plan_json(FILE *f)
{
    fputs("\"pin_plan\":", f);
    topo_plan_json(f);
    fputc(',', f);
}

/* "oversubscribed", and the seconds outside the window: "load_s", "gen_s", "overrun_s". */
static void phases_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    fprintf(f, "\"oversubscribed\":%s,\"load_s\":%.3f,\"gen_s\":%.3f,\"overrun_s\":%.3f,",
            r->oversubscribed ? "true" : "false", in->load_s, r->gen_s, r->overrun_s);
}

static void cpu_one_json(FILE *f, const char *name, const struct cpu_usage *u)
{
    fprintf(f, "\"%s\":{\"user_s\":%.3f,\"sys_s\":%.3f,\"sys_share\":%.4f,"
               "\"minor_faults\":%llu,\"major_faults\":%llu,\"voluntary_switches\":%llu,"
               "\"involuntary_switches\":%llu}",
            name, u->user_s, u->sys_s, cpu_usage_sys_share(u), (unsigned long long)u->minor_faults,
            (unsigned long long)u->major_faults, (unsigned long long)u->voluntary_switches,
            (unsigned long long)u->involuntary_switches);
}

/* "cpu":{"load":{...},"generate":{...},"warmup":{...},"window":{...}}: the process's CPU
 * seconds, faults and context switches in each phase (getrusage at the phase edges). */
static void cpu_json(FILE *f, const struct report_in *in)
{
    static const char *const names[CPU_NPHASES] = {"generate", "warmup", "window"};
    fputs("\"cpu\":{", f);
    cpu_one_json(f, "load", &in->load_cpu);
    for (int k = 0; k < CPU_NPHASES; k++) {
        fputc(',', f);
        cpu_one_json(f, names[k], &in->res->cpu[k]);
    }
    fputs("},", f);
    fprintf(f,
            "\"reserve_ahead\":{\"on\":%s,\"bytes\":%zu,\"budget_bytes\":%zu,\"capped\":%s,"
            "\"s\":%.3f,\"rows_inserted\":%llu},",
            in->o->reserve_ahead && in->o->warmup_s > 0 ? "true" : "false",
            in->res->reserved_bytes, in->res->reserve_budget,
            in->res->reserve_capped ? "true" : "false", in->res->reserve_s,
            (unsigned long long)in->res->reserve_rows_during);
}

/* "git_rev". */
static void git_rev_json(FILE *f) { fprintf(f, "\"git_rev\":\"%s\",", build_git_rev); }

/* "verify":{...}: the history check's findings (--verify, cc/history.h), or null. */
static void verify_json(FILE *f, const struct report_in *in)
{
    if (!in->verified) {
        fputs("\"verify\":null,", f);
        return;
    }
    const struct hist_result *h = &in->hres;
    fprintf(f, "\"verify\":{\"level\":\"%s\",\"ok\":%s,\"txns\":%zu,\"reads\":%zu,\"writes\":%zu,"
               "\"edges\":%zu,\"dirty_reads\":%zu,\"intermediate\":%zu,\"lost_updates\":%zu,"
               "\"lost_after_read\":%zu,\"stale_own\":%zu,\"cycles\":%zu,\"strict\":%s,"
               "\"check_s\":%.3f},",
            alg_strict()          ? "strict_serializable"
            : cc_alg_serializable ? "serializable"
                                  : "read_committed",
            h->ok ? "true" : "false",
            h->txns, h->reads, h->writes, h->edges, h->dirty_reads, h->intermediate,
            h->lost_updates, h->lost_rmw, h->stale_own, h->cycles,
            h->strict < 0 ? "null" : h->strict ? "true" : "false", in->verify_s);
}

/* "check":{"ok":...}: the workload's consistency check (--check), or null; no comma, the
 * last member. */
static void check_json(FILE *f, const struct report_in *in)
{
    if (in->checked)
        fprintf(f, "\"check\":{\"ok\":%s}", in->check_ok ? "true" : "false");
    else
        fputs("\"check\":null", f);
}

static void write_json(FILE *f, const struct report_in *in)
{
    const struct run_result *r = in->res;
    fputc('{', f);
    identity_json(f, in);
    totals_json(f, in);
    per_type_json(f, in);
    aborts_by_reason_json(f, &r->total);
    alg_counters_json(f, &r->total);
    time_breakdown_json(f, &r->total);
    access_counts_json(f, &r->total);
    deadlock_search_json(f, &r->total);
    shared_writes_json(f, r);
    cc_state_json(f);
    open_loop_json(f, in);
    network_json(f, in);
    storage_json(f, in);
    recovery_json(f, in);
    series_json(f, &r->series);
    config_json(f, in);
    data_json(f, in);
    machine_json(f, r);
    pin_plan_json(f);
    phases_json(f, in);
    cpu_json(f, in);
    git_rev_json(f);
    verify_json(f, in);
    check_json(f, in);
    fputs("}\n", f);
}

/* The summary shows the window's CPU usage when the kernel took more than this share (of
 * the whole window, or of one of its busy series intervals). */
#define REPORT_SYS_SHARE_SHOWN 0.05

/* A series interval is busy when the process kept at least this share of the CPUs its
 * worker threads can use (min(threads, CPUs)) busy in it, over at least half of
 * --series-interval. A closed loop that computes is busy; an open loop at a low rate is
 * not, nor a run that sleeps in the network or storage model: there the kernel's share
 * is the sleeps' and the sampler's system calls over little CPU, not a cost to the
 * measurement. (A short interval, the window's last, is left out: getrusage counts the
 * other running threads' time at the scheduler's ticks, milliseconds apart.) */
#define REPORT_BUSY_FLOOR 0.5

/* The window's busy series intervals (those that end after it starts, with cpu_busy at
 * least `busy`) where the kernel took more than REPORT_SYS_SHARE_SHOWN of the CPU: how
 * many, of how many busy ones, and the first, in seconds from the window's start. A
 * window that runs past its reservation shows it here, even where the whole window's
 * share stays below the line. */
static void summary_sys_intervals(const struct series *s, double busy)
{
    size_t over = 0, all = 0, first = 0;
    for (size_t i = 0; i < s->n; i++) {
        double len = s->t_s[i] - (i ? s->t_s[i - 1] : 0);
        if (s->t_s[i] <= s->measure_start_s || s->cpu_busy[i] < busy ||
            len < s->interval_s / 2)
            continue;
        all++;
        if (s->sys_share[i] > REPORT_SYS_SHARE_SHOWN && over++ == 0)
            first = i;
    }
    if (!over)
        return;
    double from = first ? s->t_s[first - 1] : 0;
    from = from > s->measure_start_s ? from - s->measure_start_s : 0;
    fprintf(stderr,
            "  kernel above %.0f%% of the CPU in %zu of the window's %zu busy intervals, "
            "first %.1f-%.1f s into it (%.0f%%, %llu minor faults; series.sys_share, busy: "
            "series.cpu_busy >= %.2f)\n",
            100 * REPORT_SYS_SHARE_SHOWN, over, all, from, s->t_s[first] - s->measure_start_s,
            100 * s->sys_share[first], (unsigned long long)s->minor_faults[first], busy);
}

static void write_summary(const struct report_in *in)
{
    const struct run_result *r = in->res;
    const struct txn_stats *st = &r->total;
    fprintf(stderr, "%s (%s) %s, %d threads, %.2f s: %llu commits (%.0f/s), %llu aborts (%.1f%%)\n",
            build_variant, cc_alg_name, in->w->name, in->o->threads, r->window_s,
            (unsigned long long)st->commits, (double)st->commits / r->window_s,
            (unsigned long long)st->aborts, 100 * rate(st->aborts, st->commits));
    for (int k = 0; k < in->w->ntypes; k++) {
        const struct latency *l = &r->types[k].lat;
        fprintf(stderr, "  %-10s %10llu commits, latency us p50 %.1f p99 %.1f p999 %.1f\n",
                in->w->type_names[k], (unsigned long long)r->types[k].commits,
                us(latency_quantile(l, 0.5)), us(latency_quantile(l, 0.99)),
                us(latency_quantile(l, 0.999)));
    }
    if (st->aborts) {
        fputs("  aborts:", stderr);
        for (int i = 0; i < AR_COUNT; i++)
            if (st->aborts_by[i])
                fprintf(stderr, " %s %llu", abort_reason_names[i],
                        (unsigned long long)st->aborts_by[i]);
        fputc('\n', stderr);
    }
    if (net_on)
        fprintf(stderr, "  network: rtt %.0f us, %.2f rounds and %.2f messages per commit, "
                        "leg lateness us p50 %.1f p99 %.1f\n",
                in->o->net_rtt_us, (double)r->net.rounds / (st->commits ? st->commits : 1),
                (double)r->net.messages / (st->commits ? st->commits : 1),
                us(latency_quantile(&r->net.lateness, 0.5)),
                us(latency_quantile(&r->net.lateness, 0.99)));
    if (sm_on) {
        const struct sm_stats *s = &r->sm;
        uint64_t touches = s->hits + s->reads;
        double k = st->commits ? (double)st->commits : 1.0;
        fprintf(stderr, "  storage: %s (read %g us, write %g us), cache %llu rows: hit rate "
                        "%.1f%%, %.2f I/Os per commit (%.2f reads, %.2f metadata reads, %.2f "
                        "writes, %.2f metadata writes), stall %.2f s\n",
                sm_settings()->preset, sm_settings()->read_us, sm_settings()->write_us,
                (unsigned long long)sm_settings()->cache_rows,
                touches ? 100.0 * (double)s->hits / (double)touches : 0.0,
                (double)(s->reads + s->meta_reads + s->writes + s->meta_writes) / k,
                (double)s->reads / k, (double)s->meta_reads / k, (double)s->writes / k,
                (double)s->meta_writes / k, clock_ticks_to_s(s->stall_ticks));
    }
    if (in->o->fail_commit_at_s > 0)
        fprintf(stderr, "  client failure at %.1f s: %llu dropped, recovered %llu committed, %llu "
                        "aborted, %.0f ms after the hand-off (p50)\n",
                in->o->fail_commit_at_s, (unsigned long long)r->recovery.dropped,
                (unsigned long long)r->recovery.committed, (unsigned long long)r->recovery.aborted,
                us(latency_quantile(&r->recovery.delay, 0.5)) / 1e3);
    if (in->o->rate > 0) {
        const struct arrivals_result *a = &r->arrivals;
        double offered = (double)a->due / r->window_s;
        double achieved = (double)st->commits / r->window_s;
        fprintf(stderr,
                "  open loop: offered %.0f/s, achieved %.0f/s%s; %.1f%% queued, queue wait "
                "us p50 %.1f p99 %.1f\n",
                offered, achieved, achieved < ARRIVALS_SATURATED * offered ? " (saturated)" : "",
                a->started ? 100.0 * (double)a->queued / (double)a->started : 0.0,
                us(latency_quantile(&a->queue_wait, 0.5)),
                us(latency_quantile(&a->queue_wait, 0.99)));
    }
    if (geo_on) {
        fputs("  ", stderr);
        geo_report_human(stderr);
    }
    if (r->reserve_capped)
        fprintf(stderr, "  reserve-ahead: cut short by its budget of %.0f MiB "
                        "(--reserve-budget-mib): inserts past it fault in the window\n",
                (double)r->reserve_budget / (1 << 20));
    const struct cpu_usage *cw = &r->cpu[CPU_WINDOW];
    if (cpu_usage_sys_share(cw) > REPORT_SYS_SHARE_SHOWN)
        fprintf(stderr, "  cpu in the window: user %.2f s, system %.2f s (%.0f%% in the kernel), "
                        "%llu minor and %llu major faults, %llu voluntary and %llu involuntary "
                        "context switches\n",
                cw->user_s, cw->sys_s, 100 * cpu_usage_sys_share(cw),
                (unsigned long long)cw->minor_faults, (unsigned long long)cw->major_faults,
                (unsigned long long)cw->voluntary_switches,
                (unsigned long long)cw->involuntary_switches);
    int cpus = in->o->threads < r->ncpus ? in->o->threads : r->ncpus;
    summary_sys_intervals(&r->series, REPORT_BUSY_FLOOR * cpus);
    if (in->verified)
        fprintf(stderr, "  verify: %s (%zu txns, %zu edges%s)\n",
                !in->hres.ok           ? "FAILED"
                : alg_strict()        ? "strictly serializable"
                : cc_alg_serializable ? "serializable"
                                      : "no dirty or intermediate read, lost update or stale "
                                        "own read",
                in->hres.txns, in->hres.edges,
                in->hres.strict < 0 ? "" : in->hres.strict ? "; strict" : "; not strict");
    if (in->checked)
        fprintf(stderr, "  check: %s\n", in->check_ok ? "ok" : "FAILED");
}

void report_print(const struct report_in *in)
{
    write_summary(in);
    write_json(stdout, in);
    fflush(stdout);
    if (*in->o->out) {
        FILE *f = fopen(in->o->out, "a");
        if (!f) {
            fprintf(stderr, "cannot open --out file '%s'\n", in->o->out);
            return;
        }
        write_json(f, in);
        fclose(f);
    }
}
