/* The workload interface the driver runs. A workload creates and loads its tables,
 * generates queries ahead of time (per thread, before the clock starts) and executes one
 * query as one transaction through the transaction API of cc/cc.h. It never includes an
 * algorithm's header. */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "benchmarks/options.h"
#include "benchmarks/rand.h"
#include "cc/cc.h"

#define MAX_TXN_TYPES 8

struct workload {
    const char *name;
    int ntypes;
    const char *type_names[MAX_TXN_TYPES];
    /* Creates the tables and loads them with o->threads loader threads. */
    void (*load)(const struct options *o);
    /* Bytes of one pre-generated query. */
    size_t (*query_size)(const struct options *o);
    /* Fills one query; `thread` is the generating (and later executing) worker. */
    void (*gen_query)(void *q, struct rng *r, int thread, const struct options *o);
    /* Transaction type of a query (index into type_names). */
    int (*query_type)(const void *q);
    /* Runs the query as one attempt: RC_ABORT as soon as any call aborts. */
    enum rc (*run)(struct txn *t, const void *q);
    /* After the run: checks the workload's invariants, prints failures to `out`; NULL
     * when the workload has none. */
    bool (*check)(const struct options *o, FILE *out);
    /* Writes extra JSON members ("name":value,...) describing the loaded data. */
    void (*json)(const struct options *o, FILE *f);
};

extern const struct workload ycsb_workload;
extern const struct workload bank_workload;

/* Runs fn(i, arg) for i in [0, nthreads) on nthreads threads and waits (loaders). */
void parallel_for(int nthreads, void (*fn)(int i, void *arg), void *arg);

#endif
