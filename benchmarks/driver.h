/* The driver: worker threads (pinned), pre-generated queries, warm-up and measured window,
 * abort-retry with randomised exponential back-off, per-thread stats and latency. */
#ifndef BENCH_DRIVER_H
#define BENCH_DRIVER_H

#include "benchmarks/latency.h"
#include "benchmarks/workload.h"
#include "cc/history.h"
#include "cc/stats.h"

struct type_result {
    uint64_t commits, aborts;
    uint64_t rollbacks; /* queries the workload rolled back on purpose (not retried) */
    struct latency lat; /* ticks, first start to commit (or rollback), retries included */
};

struct run_result {
    double window_s;     /* measured window, seconds */
    double gen_s;        /* query generation (not measured) */
    int ncpus;           /* CPUs the process may run on */
    bool oversubscribed; /* more threads than CPUs */
    struct txn_stats total;
    struct type_result types[MAX_TXN_TYPES];
    struct hist_log **hist; /* per thread, when verifying (owned by the caller) */
};

void driver_run(const struct workload *w, const struct options *o, struct run_result *res);

#endif
