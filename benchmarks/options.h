/* Run-time configuration: every command-line flag, its default, its range. Parsed once by
 * options_parse (getopt_long); a bad flag or value prints one line and exits with 2. */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* the same order as enum topo_policy (storage/topology.h) */
enum pin_policy { PIN_COMPACT, PIN_SCATTER, PIN_SMT, PIN_NONE };
enum tpcc_mix { TPCC_MIX_STANDARD, TPCC_MIX_NEWORDER_PAYMENT };
/* --index: the primary index of the dense-key workloads' tables (storage/table.h) */
enum index_kind { INDEX_HASH, INDEX_ARRAY };
/* The largest --req-per-txn (ycsb's row look-ups are kept on the stack). */
#define YCSB_REQ_MAX 1024
/* The largest --field-size (ycsb's write buffer holds one field). */
#define YCSB_FIELD_SIZE_MAX 4096

struct options {
    /* driver */
    const char *workload;
    int threads;
    enum pin_policy pin;
    double warmup_s, duration_s;
    bool reserve_ahead; /* storage/table.h catalog_reserve_ahead, in the warm-up */
    uint64_t reserve_budget_mib; /* all its reservations together; 0: half of what is left */
    int index_kind;     /* enum index_kind */
    bool prefetch;      /* ycsb, f1, tao, tpcc's NewOrder: rows looked up first, prefetched */
    uint64_t seed;
    const char *out;
    bool verify;
    uint64_t queries_per_thread;
    double backoff_max_us;
    double series_interval_s;
    double stall_timeout_s;
    double run_timeout_s; /* the whole-run watchdog; 0 in the flags: derived (main.c) */
    const char *hang_in;  /* testing the watchdogs: ROLE:PHASE (deadline.h); "": none */
    bool quiet;
    bool pin_plan;
    double rate; /* open loop: arrivals per second over all threads; 0: closed loop */
    /* network model (cc/netmodel.h): all 0: off */
    double net_rtt_us, net_jitter_us, net_msg_cpu_us;
    int servers;
    /* geo-distributed commit (cc/geo.h, benchmarks/geo_options.h): off with no --geo */
    const char *geo;       /* the deployment file; "": off */
    int commit;            /* enum geo_protocol (cc/geo.h) */
    double geo_time_scale; /* every emulated delay divided by this */
    int cocoord_groups;
    double geo_service_us; /* a co-coordinator's service time per message */
    bool read_opt;
    int txn_ops; /* ycsbt: operations per transaction */
    /* geo failures (cc/geo.h struct geo_failures), "": none */
    const char *kill_cocoord, *kill_follower, *lose_majority;
    double decider_timeout_ms; /* the deciders' timer (deployment ms); 0: the detector's */
    /* storage model (storage/storage_model.h): off with no preset and latency 0 */
    const char *storage;       /* a preset, "": none */
    double storage_latency_us; /* read and write latency instead of a preset; 0: none */
    double storage_write_latency_us; /* overrides the write latency; 0: none */
    uint64_t cache_rows;       /* 0: 10% of the rows loaded */
    double clock_skew_us; /* timestamp algorithms: odd threads' clocks this far behind */
    int sketch_kib;             /* sketch timestamp stores: KiB of the sketch */
    double fail_commit_at_s;    /* client failure at this second of the run; 0: none */
    double recovery_timeout_ms; /* the backup coordinator's wait after a failure */
    /* ycsb */
    uint64_t rows;
    int fields;
    uint32_t field_size;
    int req_per_txn;
    double read_ratio;
    double blind_writes; /* ycsb: share of the writes that are blind */
    double theta;
    double write_fraction; /* f1, tao */
    /* bank */
    uint64_t accounts;
    uint64_t hot_accounts;
    double hot_prob;
    uint64_t branch_size;
    /* tpcc */
    int warehouses;
    int mix; /* enum tpcc_mix */
    bool partition_by_warehouse;
    bool tpcc_remote; /* --remote: the specification's remote accesses */
    /* synth */
    int len;
    double distance;
    /* after the run */
    bool check;
    const char *dump;
    /* the anomaly matrix instead of a workload (benchmarks/anomaly.h) */
    bool anomalies;
    int anomaly_runs;
    double anomaly_block_ms;
    const char *anomaly_case; /* "": every case */
    bool anomaly_trace;
};

void options_parse(struct options *o, int argc, char **argv);
/* Writes the effective run-time configuration as JSON object members (no braces). */
void options_json(const struct options *o, FILE *f);

#endif
