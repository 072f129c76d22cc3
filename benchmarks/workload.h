/* The workload interface the driver runs. A workload creates and loads its tables,
 * generates queries ahead of time (per thread, before the clock starts) and executes one
 * query as one transaction through the transaction API of cc/cc.h. It never includes an
 * algorithm's header. */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/options.h"
#include "storage/rand.h"
#include "cc/cc.h"

#define MAX_TXN_TYPES 8

struct workload {
    const char *name;
    int ntypes;
    const char *type_names[MAX_TXN_TYPES];
    /* Creates the tables and loads them with o->threads loader threads. */
    void (*load)(const struct options *o);
    /* Rows the load creates, about: sizes the whole-run watchdog's default deadline
     * (benchmarks/deadline.h). */
    uint64_t (*rows_to_load)(const struct options *o);
    /* Bytes of one pre-generated query. */
    size_t (*query_size)(const struct options *o);
    /* Fills one query; `thread` is the generating (and later executing) worker. */
    void (*gen_query)(void *q, struct rng *r, int thread, const struct options *o);
    /* Transaction type of a query (index into type_names). */
    int (*query_type)(const void *q);
    /* Runs the query as one attempt: RC_ABORT as soon as any call aborts. */
    enum rc (*run)(struct txn *t, const void *q);
    /* After query q committed as the attempt of context t (what the attempt saw may be in
     * txn_note(t)): in the worker that ran it, or in the backup coordinator for an attempt
     * a failed client left (benchmarks/recovery.h), so it must be thread-safe (NULL:
     * nothing to do). */
    void (*committed)(struct txn *t, const void *q);
    /* After the run: checks the workload's invariants, prints failures to `out`; NULL
     * when the workload has none. */
    bool (*check)(const struct options *o, FILE *out);
    /* Writes extra JSON members ("name":value,...) describing the loaded data. */
    void (*json)(const struct options *o, FILE *f);
    /* true: `check` runs only when asked (--check); false: it always runs. */
    bool check_on_request;
    /* After the run, with --dump DIR: writes the data into DIR (which exists); false and
     * a message on `err` on failure. NULL when the workload has no dump. */
    bool (*dump)(const struct options *o, const char *dir, FILE *err);
    /* The network model's server of a row of tab with key `key` among `servers`; -1: a
     * row every server holds (read locally). NULL: a hash of table and key. */
    int (*server_of)(const struct table *tab, uint64_t key, int servers);
    /* A read-modify-write (txn_read_for_update, then txn_write of that row) is a piece the
     * server runs on its own, as in Janus-style TPC-C: algorithms that send writes during
     * execution (NCC) send it as one request in the current shot. false: the client
     * computes the value, so such an algorithm's write is a request of a later shot. */
    bool rmw_at_server;
    /* A geo workload (benchmarks/geo_workloads.c): its transactions run through geo_run
     * across emulated datacenters; it needs --geo, which no other workload takes. */
    bool geo;
    /* Its tables are keyed 0 .. n - 1 and take no inserts: --index array applies
     * (workload_keyed_table). */
    bool dense_keys;
};

extern const struct workload ycsb_workload;
extern const struct workload bank_workload;
extern const struct workload tpcc_workload;
extern const struct workload synth_workload;
extern const struct workload f1_workload;
extern const struct workload tao_workload;
/* the geo workloads (benchmarks/geo_workloads.c; they need --geo) */
extern const struct workload retwis_workload;
extern const struct workload ycsbt_workload;
extern const struct workload geo_bank_workload;

/* rows_to_load of the workloads sized by --rows. */
static inline uint64_t workload_rows_flag(const struct options *o) { return o->rows; }

/* The registry of workloads, by --workload name. */
static inline const struct workload *workload_at(int i)
{
    static const struct workload *const all[] = {
        &ycsb_workload, &bank_workload, &tpcc_workload,     &synth_workload,
        &f1_workload,   &tao_workload,  &retwis_workload, &ycsbt_workload, &geo_bank_workload};
    return i >= 0 && i < (int)(sizeof(all) / sizeof(all[0])) ? all[i] : NULL;
}
static inline const struct workload *workload_find(const char *name)
{
    for (int i = 0; workload_at(i); i++)
        if (strcmp(workload_at(i)->name, name) == 0)
            return workload_at(i);
    return NULL;
}
/* "ycsb, bank, tpcc, synth, f1, tao" into buf. */
static inline void workload_names(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; workload_at(i) && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", workload_at(i)->name);
}

/* ---- loading (benchmarks/parallel.c) ---- */

struct row_freelist;
struct schema;
struct table;

/* Runs fn(i, arg) for i in [0, nthreads) on nthreads threads and waits (loaders). */
void parallel_for(int nthreads, void (*fn)(int i, void *arg), void *arg);

/* Loader i of n's share of keys [0, rows): [*lo, *hi), consecutive keys, the shares as even
 * as integer division makes them. */
static inline void load_slice(uint64_t rows, int i, int n, uint64_t *lo, uint64_t *hi)
{
    *lo = rows * (uint64_t)i / (uint64_t)n;
    *hi = rows * (uint64_t)(i + 1) / (uint64_t)n;
}

/* The table of a dense_keys workload, keys 0 .. rows - 1, its primary index the one
 * --index names: the array (storage/table.h table_create_array), or a hash index (a
 * placed table where `placed`). */
struct table *workload_keyed_table(const char *name, const struct schema *s, uint64_t rows,
                                   bool placed, const struct options *o);

/* Loads keys [lo, hi) of tab: for each key a new row (table_load_row: from fl where given),
 * initialised for the algorithm (cc_row_init), filled by fill(row, arg) (NULL: its data
 * stays zero), and put in tab's primary index; the rows count as load progress
 * (progress.h). */
void load_rows(struct table *tab, struct row_freelist *fl, uint64_t lo, uint64_t hi,
               void (*fill)(struct row *row, void *arg), void *arg);

/* Loader i's share (load_slice over o->threads loaders) of keys [0, o->rows) of tab, as
 * load_rows; fill's arg is the loader's random stream (struct rng *), stream i of a seed
 * derived from --seed. */
void load_random_slice(int i, const struct options *o, struct table *tab,
                       void (*fill)(struct row *row, void *rng));

#endif
