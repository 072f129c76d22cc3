/* The driver: worker threads (pinned), pre-generated queries, warm-up and measured window,
 * abort-retry with randomised exponential back-off, per-thread stats and latency. */
#ifndef BENCH_DRIVER_H
#define BENCH_DRIVER_H

#include "benchmarks/arrivals.h"
#include "storage/cpu_usage.h"
#include "storage/latency.h"
#include "benchmarks/recovery.h"
#include "benchmarks/workload.h"
#include "cc/history.h"
#include "cc/netmodel.h"
#include "cc/stats.h"
#include "storage/shared_writes.h"
#include "storage/storage_model.h"

struct type_result {
    uint64_t commits, aborts;
    uint64_t rollbacks; /* queries the workload rolled back on purpose (not retried) */
    struct latency lat; /* ticks, first start to commit (or rollback), retries included */
};

/* Commit throughput over time, from the start of warm-up to the end of the measured window
 * (--series-interval): point i covers the time from t_s[i-1] (0 for the first) to t_s[i],
 * seconds since warm-up started. Warm-up and measured window are cut into intervals
 * separately (the last of each may be shorter), so measure_start_s, where the measured
 * window starts, is the end of an interval unless there is no warm-up. */
struct series {
    double interval_s, measure_start_s;
    size_t n, cap;
    double *t_s, *commits_per_s;
    double *rss_mib; /* the process's resident set at the end of each interval */
    /* the process's CPU in each interval (getrusage: every thread): the kernel's share of
     * it, and the minor faults, so a result shows when its window ran into the kernel
     * (past the reservation, say) */
    double *sys_share;
    uint64_t *minor_faults;
    /* the process's CPU seconds in each interval per second of it (cores kept busy): an
     * open loop at a low rate keeps them near idle, and then the kernel's share is its
     * sleeps' system calls, not a measurement cost (benchmarks/report.c) */
    double *cpu_busy;
};

/* The phases of driver_run whose CPU usage a result reports (the load's is main.c's). */
enum cpu_phase { CPU_GENERATE, CPU_WARMUP, CPU_WINDOW, CPU_NPHASES };

struct run_result {
    double window_s;     /* measured window, seconds */
    double gen_s;        /* query generation (not measured) */
    double overrun_s;    /* end of the window until every worker stopped */
    int ncpus;           /* CPUs the process may run on */
    bool oversubscribed; /* more threads than CPUs */
    struct txn_stats total;
    struct type_result types[MAX_TXN_TYPES];
    struct hist_log **hist; /* per thread, when verifying (owned by the caller) */
    struct series series;
    uint64_t shared_writes[SHW_NKINDS]; /* measured window (a COUNT_SHARED_WRITES build) */
    struct arrivals_result arrivals;    /* open loop (--rate > 0), summed over clients */
    struct net_stats net;               /* network model (cc/netmodel.h), summed */
    struct sm_stats sm;                 /* storage model (storage/storage_model.h), summed */
    struct recovery_result recovery;    /* client failure (--fail-commit-at) */
    struct cpu_usage cpu[CPU_NPHASES];  /* per phase, the whole process (storage/cpu_usage.h) */
    size_t reserved_bytes;              /* reserved ahead in the warm-up (--reserve-ahead) */
    double reserve_s;                   /* the reservation's time (in the warm-up) */
    size_t reserve_budget;              /* the bytes it may reserve in all */
    bool reserve_capped;                /* the budget cut a reservation short */
    uint64_t reserve_rows_during;       /* rows inserted meanwhile (0 unless a worker
                                         * could not pause) */
    double line_trip_ns[2]; /* threads 0 and 1's cache-line round trip before the workers
                             * start and after they stop (storage/line_trip.h; -1: not
                             * measured) */
};

void driver_run(const struct workload *w, const struct options *o, struct run_result *res);
/* Frees what driver_run allocated in res (not hist). */
void run_result_free(struct run_result *res);

#endif
