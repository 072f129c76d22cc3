/* Command-line parsing: one table lists every flag with its type, range, default and help
 * text; --help, parsing, range checks and the JSON echo of the configuration are all
 * generated from it. */
#include "benchmarks/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/json.h"
#include "benchmarks/workload.h"
#include "cc/geo.h"
#include "config/config.h"
#include "storage/storage_model.h"

/* OK_FLAG takes no value (given: on; default off); OK_ONOFF takes on or off (default dflt) */
enum opt_kind {
    OK_INT,
    OK_U64,
    OK_DOUBLE,
    OK_STR,
    OK_FLAG,
    OK_ONOFF,
    OK_PIN,
    OK_WORKLOAD,
    OK_MIX,
    OK_COMMIT,
    OK_INDEX
};

struct opt_def {
    const char *name;
    enum opt_kind kind;
    size_t off;
    double min, max;  /* inclusive range for numbers */
    bool max_open;    /* max is exclusive */
    const char *dflt; /* default, as text (parsed at start, shown in --help) */
    const char *help;
};

#define OFF(f) offsetof(struct options, f)
/* A macro's value as text (a default from config/config.h). */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static const char *const mix_names[] = {"standard", "neworder-payment", NULL};
static const char *const commit_names[] = {"2pc", "d2pc", "carousel", NULL};
static const char *const index_names[] = {"hash", "array", NULL};
_Static_assert(INDEX_HASH == 0 && INDEX_ARRAY == 1, "index_names follows enum index_kind");
_Static_assert(GEO_2PC == 0 && GEO_D2PC == 1 && GEO_CAROUSEL == 2,
               "commit_names follows enum geo_protocol");
#define U64MAX 18446744073709551615.0

/* The position of v in a NULL-terminated list of choices, or -1. */
static int choice_of(const char *const *names, const char *v)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static const struct opt_def defs[] = {
    {"workload", OK_WORKLOAD, OFF(workload), 0, 0, false, "ycsb", "workload"},
    {"threads", OK_INT, OFF(threads), 1, MAX_THREADS, false, "1",
     "worker threads (more than cores is allowed, with a warning)"},
    {"pin", OK_PIN, OFF(pin), 0, 0, false, "compact",
     "thread pinning (hwloc): compact (one thread per physical core, a socket before the next, "
     "SMT siblings last), scatter (round-robin over NUMA nodes), smt (a core's siblings "
     "first), none"},
    {"pin-plan", OK_FLAG, OFF(pin_plan), 0, 0, false, "off",
     "print where each thread would run (a JSON array of thread, pu, core, package, "
     "numa_node: hwloc logical indexes; os_cpu) and exit; HWLOC_SYNTHETIC may describe "
     "another machine"},
    {"warmup", OK_DOUBLE, OFF(warmup_s), 0, 3600, false, "1", "seconds run before measuring"},
    {"reserve-ahead", OK_ONOFF, OFF(reserve_ahead), 0, 0, false, "on",
     "on or off: in the warm-up, growing tables allocate and fault in the rows (and their "
     "indexes the buckets and overflow nodes) the rest of the run will need at 1.5 times the warm-up's "
     "insert rate (within --reserve-budget-mib), so the measured window faults in next to none "
     "(needs --warmup > 0; the workers pause while it reserves, which lengthens the warm-up by "
     "its time and 0.1 s; past the reservation "
     "memory faults in as it is first written)"},
    {"reserve-budget-mib", OK_U64, OFF(reserve_budget_mib), 0, 16777216, false, "0",
     "MiB that --reserve-ahead may reserve in all (0 = half the memory left when the warm-up "
     "starts: MemAvailable, or what the memory cgroup leaves below its limit); a "
     "reservation cut short by it is reported (the result's reserve_ahead.capped, a line in "
     "the summary): the run's inserts past it fault in the measured window"},
    {"index", OK_INDEX, OFF(index_kind), 0, 0, false, "hash",
     "hash or array: the primary index of a workload keyed 0..N-1 (ycsb, bank, synth, f1, "
     "tao); array: key k is row k, no hashing (as CCBench's no-index build), so a run "
     "measures concurrency control without index cost"},
    {"prefetch", OK_ONOFF, OFF(prefetch), 0, 0, false, "on",
     "on or off: ycsb, f1 and tao look up every row of a transaction before its first "
     "access and prefetch them (tpcc: NewOrder's customer, items and stocks, Payment's "
     "customer by id, and the index buckets of the keys NewOrder and Payment insert), so "
     "their cache misses overlap; off: one "
     "look-up per access, as it is made (DBx1000's way)"},
    {"duration", OK_DOUBLE, OFF(duration_s), 0.01, 86400, false, "5", "seconds measured"},
    {"seed", OK_U64, OFF(seed), 0, U64MAX, false, "1", "random seed (queries and data)"},
    {"out", OK_STR, OFF(out), 0, 0, false, "", "also append the JSON result line to this file"},
    {"verify", OK_FLAG, OFF(verify), 0, 0, false, "off",
     "record the history and check it is serializable after the run (exit 1 if not)"},
    {"queries-per-thread", OK_U64, OFF(queries_per_thread), 1, 1e8, false, "20000",
     "queries generated per thread before timing (replayed in a loop)"},
    {"rate", OK_DOUBLE, OFF(rate), 0, 1e9, false, "0",
     "open loop: transactions arriving per second over all threads (each thread a client "
     "with its own Poisson stream of rate/threads; latency from arrival, queueing "
     "included); 0 = closed loop (each thread starts its next transaction when one ends)"},
    {"net-rtt-us", OK_DOUBLE, OFF(net_rtt_us), 0, 1e6, false, "0",
     "network model: round-trip time between a client and a server, microseconds (0 with "
     "no jitter and no message CPU: the model is off)"},
    {"net-jitter-us", OK_DOUBLE, OFF(net_jitter_us), 0, 1e6, false, "0",
     "network model: uniform random extra one-way delay of each message, up to this many "
     "microseconds"},
    {"net-msg-cpu-us", OK_DOUBLE, OFF(net_msg_cpu_us), 0, 1e4, false, "0",
     "network model: CPU burnt per message delivered to a server, microseconds"},
    {"servers", OK_INT, OFF(servers), 1, 64, false, "8",
     "network model: logical servers the rows live on (by a hash of table and key; TPC-C: "
     "by warehouse)"},
    {"geo", OK_STR, OFF(geo), 0, 0, false, "",
     "geo-distributed commit: the deployment file (datacenters, one-way delays, shards, "
     "leaders: config/geo/*.toml); the geo workloads (retwis, ycsbt, geo-bank) need it, "
     "the others refuse it"},
    {"commit", OK_COMMIT, OFF(commit), 0, 0, false, "d2pc",
     "geo: the commit protocol: 2pc, d2pc or carousel"},
    {"geo-time-scale", OK_DOUBLE, OFF(geo_time_scale), 1, 1e6, false, "1",
     "geo: every emulated delay is divided by this (1 = real time)"},
    {"cocoord-groups", OK_INT, OFF(cocoord_groups), 1, GEO_MAX_GROUPS, false, "1",
     "geo: co-coordinators per datacenter (a transaction's id mod this picks one)"},
    {"geo-service-us", OK_DOUBLE, OFF(geo_service_us), 0, 1e6, false, "0",
     "geo: a co-coordinator's service time per message, microseconds (0 = none)"},
    {"read-opt", OK_ONOFF, OFF(read_opt), 0, 0, false, "on",
     "geo: on or off: reads go to the client's datacenter's replica and are validated at "
     "Prepare"},
    {"txn-ops", OK_INT, OFF(txn_ops), 1, GEO_MAX_OPS, false, "6",
     "geo, ycsbt: operations (on distinct keys) per transaction"},
    {"kill-cocoord", OK_STR, OFF(kill_cocoord), 0, 0, false, "",
     "geo: DC[,DC...]@S: those datacenters' co-coordinators stop at second S of the run "
     "(from the warm-up's start) for good"},
    {"kill-follower", OK_STR, OFF(kill_follower), 0, 0, false, "",
     "geo: SHARD/DC@S[+D]: the follower of shard SHARD in datacenter DC stops at second S "
     "(for D seconds, then it catches up from its leader)"},
    {"lose-majority", OK_STR, OFF(lose_majority), 0, 0, false, "",
     "geo: SHARD@S[+D]: every follower of shard SHARD stops at second S (for D seconds): "
     "its replication cannot finish"},
    {"decider-timeout", OK_DOUBLE, OFF(decider_timeout_ms), 0, 1e7, false, "0",
     "geo, with a failure: the deciders' timer in the deployment's milliseconds (scaled "
     "like its delays; 0 = the failure detector's timeout, two round trips)"},
    {"storage", OK_STR, OFF(storage), 0, 0, false, "",
     "storage model: rows live on a device with this preset's (read, write) latency in "
     "microseconds, behind a cache of --cache-rows rows: dram (0.1, 0.1), cxl (2, 2), nvme "
     "(80, 20), sata (200, 100), hdd (5000, 5000)"},
    {"storage-latency-us", OK_DOUBLE, OFF(storage_latency_us), 0, 1e7, false, "0",
     "storage model: read and write latency of the device, microseconds (> 0), instead of "
     "--storage"},
    {"storage-write-latency-us", OK_DOUBLE, OFF(storage_write_latency_us), 0, 1e7, false, "0",
     "storage model: the device's write latency, microseconds (> 0), overriding the preset's "
     "or --storage-latency-us"},
    {"cache-rows", OK_U64, OFF(cache_rows), 0, 1e12, false, "0",
     "storage model: rows the cache holds, at least 1 (the default, 0, stands for 10% of the "
     "rows loaded before the run, at least 1)"},
    {"clock-skew-us", OK_DOUBLE, OFF(clock_skew_us), 0, 1e6, false, "0",
     "timestamp algorithms (NCC): the clocks of odd-numbered threads run this many "
     "microseconds behind the others (0: one clock)"},
    {"fail-commit-at", OK_DOUBLE, OFF(fail_commit_at_s), 0, 1e6, false, "0",
     "client failure (algorithms with a recovery protocol: NCC): at this second of the run "
     "(from the start of warm-up) every client drops the transaction it is about to decide, "
     "sends no commit or abort, and goes on; a backup coordinator finishes it (0: no "
     "failure)"},
    {"recovery-timeout-ms", OK_DOUBLE, OFF(recovery_timeout_ms), 1, 1e7, false, "1000",
     "client failure: milliseconds the backup coordinator waits after a transaction's last "
     "shot before it recovers the transaction"},
    {"sketch-kib", OK_INT, OFF(sketch_kib), 1, 1 << 20, false, STRINGIFY(TS_SKETCH_KIB_DEFAULT),
     "variants with the sketch timestamp store (FPSketch: *-sketch): KiB of the max-sketch (rounded down to a power of two) "
     "that holds the timestamps of inactive keys (other variants: an error)"},
    {"backoff-max-us", OK_DOUBLE, OFF(backoff_max_us), 0, 1e6, false, "64",
     "cap of the randomised exponential back-off before a retry, microseconds"},
    {"series-interval", OK_DOUBLE, OFF(series_interval_s), 0.01, 60, false, "1",
     "seconds between samples of the throughput series (result's \"series\"), from the "
     "start of warm-up to the end of the measured window"},
    {"stall-timeout", OK_DOUBLE, OFF(stall_timeout_s), 0, 86400, false, "10",
     "seconds without progress (rows loaded, queries generated; from warm-up until the "
     "workers stopped, commits) after which the run is reported stalled: what each thread "
     "waits for and its backtrace, exit 3; watched seconds: a gap between two of the "
     "watchdog's looks counts at most a quarter of it; 0 = never"},
    {"run-timeout", OK_DOUBLE, OFF(run_timeout_s), 0, 1e7, false, "0",
     "seconds from the start of the load to the process's exit after which the run is "
     "reported hung: every thread's phase, what it waits for and its backtrace, exit 3; 0 = "
     "derived from the run (load size, query generation, warm-up, duration, checks; shown in "
     "the result's config)"},
    {"hang-in", OK_STR, OFF(hang_in), 0, 0, false, "",
     "testing the watchdogs: the first thread of ROLE to enter PHASE blocks there for good "
     "(ROLE:PHASE: main:load|generate|warmup|measure|exit-wait|join|recovery|history-check|"
     "check|dump|report|exit, loader:load, worker:generate|ready|run|paused|exit, "
     "reserver:sample|reserve, backup:recover)"},
    {"quiet", OK_FLAG, OFF(quiet), 0, 0, false, "off",
     "no progress lines on stderr (load, query generation, warm-up, measured window)"},
    {"rows", OK_U64, OFF(rows), 1, 1e10, false, "1000000",
     "ycsb, f1, tao: rows (keys) in the table; synth: rows over all partitions; retwis, "
     "ycsbt, geo-bank: keys over all shards"},
    {"fields", OK_INT, OFF(fields), 1, 63, false, "10", "ycsb: fields per row"},
    {"field-size", OK_U64, OFF(field_size), 1, YCSB_FIELD_SIZE_MAX, false, "100",
     "ycsb: bytes per field"},
    {"req-per-txn", OK_INT, OFF(req_per_txn), 1, YCSB_REQ_MAX, false, "16",
     "ycsb: distinct rows accessed per transaction (at most --rows)"},
    {"read-ratio", OK_DOUBLE, OFF(read_ratio), 0, 1, false, "0.9",
     "ycsb: fraction of requests that read (the rest read-modify-write one field)"},
    {"blind-writes", OK_DOUBLE, OFF(blind_writes), 0, 1, false, "0",
     "ycsb: fraction of the writes that write their field without reading the row first "
     "(blind writes; 0 = every write is a read-modify-write)"},
    {"theta", OK_DOUBLE, OFF(theta), 0, 1, true, "0.6",
     "ycsb, f1, tao, retwis, ycsbt, geo-bank: Zipfian skew in [0, 1), 0 = uniform (the geo "
     "workloads' default: 0.7, the D2PC paper's)"},
    {"write-fraction", OK_DOUBLE, OFF(write_fraction), 0, 1, false, "0.01",
     "f1, tao: fraction of transactions that write (the rest read only)"},
    {"accounts", OK_U64, OFF(accounts), 2, 1e9, false, "10000", "bank: number of accounts"},
    {"hot-accounts", OK_U64, OFF(hot_accounts), 1, 1e9, false, "8",
     "bank: size of the hot set (at most --accounts)"},
    {"hot-prob", OK_DOUBLE, OFF(hot_prob), 0, 1, false, "0.5",
     "bank: probability that a transfer's source account, or an audit's branch, is drawn "
     "from the hot set"},
    {"branch-size", OK_U64, OFF(branch_size), 2, 1e9, false, "8",
     "bank: accounts per branch (consecutive; the last branch takes the remainder): a "
     "transfer stays within one branch and an audit reads one whole branch"},
    {"warehouses", OK_INT, OFF(warehouses), 1, 1024, false, "1",
     "tpcc: number of warehouses (about 160 MB of memory each)"},
    {"mix", OK_MIX, OFF(mix), 0, 0, false, "standard",
     "tpcc: transaction mix: standard (NewOrder 45, Payment 43, OrderStatus, Delivery, "
     "StockLevel 4 each) or neworder-payment (1:1)"},
    {"partition-by-warehouse", OK_FLAG, OFF(partition_by_warehouse), 0, 0, false, "off",
     "tpcc: no two threads share a DISTRICT row, nor a WAREHOUSE row unless threads > "
     "warehouses (each thread keeps to its own warehouses and districts)"},
    {"remote", OK_ONOFF, OFF(tpcc_remote), 0, 0, false, "on",
     "tpcc: on or off: remote accesses as the specification has them (Payment's 15% "
     "remote customers, NewOrder's 1% remote supply warehouse per line); off: every "
     "access in the home warehouse (with --partition-by-warehouse and threads <= "
     "warehouses no two threads share a row, so even none runs correctly: the no-CC bound)"},
    {"len", OK_INT, OFF(len), 1, 4096, false, "64",
     "synth: random reads per transaction (besides the hot read-modify-write)"},
    {"distance", OK_DOUBLE, OFF(distance), 0, 1, false, "0",
     "synth: fraction of the reads placed before the hot update (0 = hotspot first, 1 = "
     "last)"},
    {"check", OK_FLAG, OFF(check), 0, 0, false, "off",
     "tpcc: check the consistency conditions after the run (exit 1 if violated); bank "
     "always checks"},
    {"dump", OK_STR, OFF(dump), 0, 0, false, "",
     "tpcc: after the run, write the database as CSV files (one per table) into this "
     "directory"},
    {"anomalies", OK_FLAG, OFF(anomalies), 0, 0, false, "off",
     "run the isolation anomaly matrix on this variant instead of a workload "
     "(docs/anomalies.md): one line per case, exit 1 if a case the variant's claimed level "
     "prevents is allowed in any run, or a run hangs"},
    {"anomaly-runs", OK_INT, OFF(anomaly_runs), 1, 100, false, "3",
     "anomaly matrix: runs of each case (differing outcomes: flaky)"},
    {"anomaly-block-ms", OK_DOUBLE, OFF(anomaly_block_ms), 1, 10000, false, "50",
     "anomaly matrix: a step that has not returned after this many milliseconds is blocked"},
    {"anomaly-case", OK_STR, OFF(anomaly_case), 0, 0, false, "",
     "anomaly matrix: only this case (its name, e.g. G2-item); empty: every case"},
    {"anomaly-trace", OK_FLAG, OFF(anomaly_trace), 0, 0, false, "off",
     "anomaly matrix: print every run's steps and results on stderr"},
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

static const char *const pin_names[] = {"compact", "scatter", "smt", "none"};

__attribute__((format(printf, 1, 2))) _Noreturn static void bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rundb: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see --help)\n", stderr);
    exit(2);
}

static void usage(void)
{
    printf("usage: rundb-<variant> [flags]\n"
           "Runs a workload under this binary's concurrency-control algorithm and prints a\n"
           "summary on stderr and one JSON result object as the last line of stdout.\n\n");
    for (size_t i = 0; i < NDEFS; i++) {
        const struct opt_def *d = &defs[i];
        char lhs[64];
        snprintf(lhs, sizeof(lhs), "--%s%s", d->name, d->kind == OK_FLAG ? "" : " V");
        const char *dflt = *d->dflt ? d->dflt : "none";
        if (d->kind == OK_WORKLOAD) { /* the choices are the registry's (workload.h) */
            char names[256];
            workload_names(names, sizeof(names));
            printf("  %-24s %s: %s (default: %s)\n", lhs, d->help, names, dflt);
        } else {
            printf("  %-24s %s (default: %s)\n", lhs, d->help, dflt);
        }
    }
    printf("  %-24s %s\n", "--help", "print this help and exit");
}

static void set_value(struct options *o, const struct opt_def *d, const char *v)
{
    char *p = (char *)o + d->off;
    switch (d->kind) {
    case OK_STR:
        *(const char **)p = v;
        return;
    case OK_FLAG:
        *(bool *)p = strcmp(v, "on") == 0;
        return;
    case OK_ONOFF:
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            bad("--%s: '%s' is not on or off", d->name, v);
        *(bool *)p = strcmp(v, "on") == 0;
        return;
    case OK_PIN:
        for (int i = 0; i < 4; i++)
            if (strcmp(v, pin_names[i]) == 0) {
                *(enum pin_policy *)p = (enum pin_policy)i;
                return;
            }
        bad("--pin: '%s' is not compact, scatter, smt or none", v);
    case OK_WORKLOAD:
        if (!workload_find(v)) {
            char known[256];
            workload_names(known, sizeof(known));
            bad("--workload: unknown workload '%s'; known: %s", v, known);
        }
        *(const char **)p = v;
        return;
    case OK_MIX:
        if ((*(int *)p = choice_of(mix_names, v)) < 0)
            bad("--mix: '%s' is not standard or neworder-payment", v);
        return;
    case OK_COMMIT:
        if ((*(int *)p = choice_of(commit_names, v)) < 0)
            bad("--commit: '%s' is not 2pc, d2pc or carousel", v);
        return;
    case OK_INDEX:
        if ((*(int *)p = choice_of(index_names, v)) < 0)
            bad("--index: '%s' is not hash or array", v);
        return;
    default:
        break;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || errno == ERANGE || isnan(x))
        bad("--%s: '%s' is not a number", d->name, v);
    if (d->kind != OK_DOUBLE && x != floor(x))
        bad("--%s: '%s' is not an integer", d->name, v);
    if (x < d->min || (d->max_open ? x >= d->max : x > d->max))
        bad("--%s: %s is outside [%g, %g%s", d->name, v, d->min, d->max,
            d->max_open ? ")" : "]");
    switch (d->kind) {
    case OK_INT:
        *(int *)p = (int)x;
        break;
    case OK_U64:
        if (d->off == OFF(field_size))
            *(uint32_t *)p = (uint32_t)x;
        else /* exact for plain digits (large seeds), else via the double (1e6) */
            *(uint64_t *)p = strspn(v, "0123456789") == strlen(v) ? strtoull(v, NULL, 10)
                                                                 : (uint64_t)x;
        break;
    default:
        *(double *)p = x;
    }
}

/* The sketch timestamp store's size (cc/ts_sketch.c), where the variant has one. */
extern size_t ts_sketch_bytes __attribute__((weak));

/* Whether flag `name` was given (given[]: per defs entry). */
static bool was_given(const bool *given, const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return given[i];
    return false;
}

/* The storage model's flags: a known preset or a latency, not both; latencies above 0;
 * the others only with the model on. */
static void storage_checks(const struct options *o, const bool *given)
{
    double rd, wr;
    bool lat = was_given(given, "storage-latency-us");
    if (*o->storage && !sm_preset(o->storage, &rd, &wr))
        bad("--storage: unknown preset '%s'; known: %s", o->storage, sm_preset_names);
    if (was_given(given, "storage") && !*o->storage)
        bad("--storage: empty preset; known: %s", sm_preset_names);
    if (*o->storage && lat)
        bad("--storage and --storage-latency-us: give one of them");
    if (lat && o->storage_latency_us <= 0)
        bad("--storage-latency-us: %g is not above 0", o->storage_latency_us);
    bool on = *o->storage || lat;
    if (was_given(given, "storage-write-latency-us") && !on)
        bad("--storage-write-latency-us: needs the storage model (--storage or "
            "--storage-latency-us)");
    if (was_given(given, "storage-write-latency-us") && o->storage_write_latency_us <= 0)
        bad("--storage-write-latency-us: %g is not above 0", o->storage_write_latency_us);
    if (was_given(given, "cache-rows") && !on)
        bad("--cache-rows: needs the storage model (--storage or --storage-latency-us)");
    if (was_given(given, "cache-rows") && o->cache_rows == 0)
        bad("--cache-rows: 0 rows; the cache holds at least 1");
}

/* The geo commit layer's flags (every one of the table's "geo: ..." flags): only with a
 * deployment file. benchmarks/geo_options.c checks the file and the workload. */
/* The geo workloads' skew when --theta is not given (the D2PC paper's Retwis setting). */
#define GEO_THETA_DEFAULT 0.7

static void geo_checks(struct options *o, const bool *given)
{
    static const char *const geo_flags[] = {"commit",        "geo-time-scale", "cocoord-groups",
                                            "geo-service-us", "read-opt",      "txn-ops",
                                            "kill-cocoord",   "kill-follower", "lose-majority",
                                            "decider-timeout"};
    if (was_given(given, "geo") && !*o->geo)
        bad("--geo: empty file name");
    for (size_t i = 0; i < sizeof(geo_flags) / sizeof(geo_flags[0]); i++)
        if (was_given(given, geo_flags[i]) && !*o->geo)
            bad("--%s: needs a deployment file (--geo FILE)", geo_flags[i]);
    const struct workload *w = workload_find(o->workload);
    if (w && w->geo && !was_given(given, "theta"))
        o->theta = GEO_THETA_DEFAULT;
    if (w && w->geo && o->rows < (uint64_t)o->txn_ops)
        bad("--rows: %llu keys cannot hold --txn-ops %d distinct keys",
            (unsigned long long)o->rows, o->txn_ops);
}

void options_parse(struct options *o, int argc, char **argv)
{
    struct option lopts[NDEFS + 2];
    memset(o, 0, sizeof(*o));
    for (size_t i = 0; i < NDEFS; i++) {
        lopts[i] = (struct option){defs[i].name,
                                   defs[i].kind == OK_FLAG ? no_argument : required_argument,
                                   NULL, (int)(256 + i)};
        set_value(o, &defs[i], defs[i].kind == OK_FLAG ? "off" : defs[i].dflt);
    }
    lopts[NDEFS] = (struct option){"help", no_argument, NULL, 'h'};
    lopts[NDEFS + 1] = (struct option){0, 0, 0, 0};
    opterr = 0;
    bool given[NDEFS] = {false};
    int c;
    while ((c = getopt_long(argc, argv, ":", lopts, NULL)) != -1) {
        if (c == 'h') {
            usage();
            exit(0);
        }
        if (c == ':')
            bad("%s: missing value", argv[optind - 1]);
        if (c == '?')
            bad("unknown flag '%s'", argv[optind - 1]);
        const struct opt_def *d = &defs[c - 256];
        set_value(o, d, d->kind == OK_FLAG ? "on" : optarg);
        given[c - 256] = true;
    }
    if (optind < argc)
        bad("unexpected argument '%s'", argv[optind]);
    /* cross-field checks */
    if ((uint64_t)o->req_per_txn > o->rows)
        bad("--req-per-txn: %d distinct rows per transaction exceed --rows %llu",
            o->req_per_txn, (unsigned long long)o->rows);
    if (o->hot_accounts > o->accounts)
        bad("--hot-accounts: %llu exceeds --accounts %llu", (unsigned long long)o->hot_accounts,
            (unsigned long long)o->accounts);
    if (o->branch_size > o->accounts)
        bad("--branch-size: %llu exceeds --accounts %llu", (unsigned long long)o->branch_size,
            (unsigned long long)o->accounts);
    if (o->rate > 0 && o->rate < 1e-3)
        bad("--rate: %g is below 0.001 arrivals per second (0 = closed loop)", o->rate);
    storage_checks(o, given);
    geo_checks(o, given);
    if (was_given(given, "sketch-kib") && !&ts_sketch_bytes)
        bad("--sketch-kib: this variant keeps no sketch (only the *-sketch variants)");
    if (o->index_kind == INDEX_ARRAY && !workload_find(o->workload)->dense_keys)
        bad("--index array: the %s workload's keys are not 0..N-1 (only ycsb, bank, synth, "
            "f1, tao)", o->workload);
    if (*o->dump && !workload_find(o->workload)->dump)
        bad("--dump: the %s workload has no dump", o->workload);
}

void options_json(const struct options *o, FILE *f)
{
    for (size_t i = 0; i < NDEFS; i++) {
        const struct opt_def *d = &defs[i];
        const char *p = (const char *)o + d->off;
        fprintf(f, "%s\"%s\":", i ? "," : "", d->name);
        switch (d->kind) {
        case OK_INT:
            fprintf(f, "%d", *(const int *)p);
            break;
        case OK_U64:
            if (d->off == OFF(field_size))
                fprintf(f, "%u", *(const uint32_t *)p);
            else
                fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)p);
            break;
        case OK_DOUBLE:
            fprintf(f, "%.15g", *(const double *)p);
            break;
        case OK_FLAG:
        case OK_ONOFF:
            fputs(*(const bool *)p ? "true" : "false", f);
            break;
        case OK_PIN:
            fprintf(f, "\"%s\"", pin_names[*(const enum pin_policy *)p]);
            break;
        case OK_MIX:
            json_string(f, mix_names[*(const int *)p]);
            break;
        case OK_COMMIT:
            json_string(f, commit_names[*(const int *)p]);
            break;
        case OK_INDEX:
            json_string(f, index_names[*(const int *)p]);
            break;
        case OK_STR:
        case OK_WORKLOAD:
            json_string(f, *(const char *const *)p);
            break;
        }
    }
}
