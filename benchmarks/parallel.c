/* The loaders' machinery: parallel_for runs a loader function on n threads and waits for
 * them, showing the progress of the current phase (progress.h) meanwhile; load_rows is a
 * loader's loop over its keys. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchmarks/deadline.h"
#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "storage/mem.h"
#include "storage/table.h"
#include "storage/topology.h"

#define POLL_NS 10000000L /* the waiting main thread looks at the loaders every 10 ms */
/* Salt of the loaders' random streams, rng_seed(--seed ^ LOAD_SEED_SALT, loader i): apart
 * from the query streams, seeded with --seed itself. */
#define LOAD_SEED_SALT 0x10ADull

struct pf_arg {
    int i;
    void (*fn)(int, void *);
    void *arg;
    atomic_int *finished;
};

static void *pf_main(void *p)
{
    struct pf_arg *a = p;
    topo_pin_self(a->i); /* where worker i will run: its first touches land there */
    deadline_enter("loader", a->i);
    deadline_phase("load");
    mem_thread_init();
    a->fn(a->i, a->arg);
    deadline_leave();
    /* relaxed: only tells the main thread when to stop polling; pthread_join orders the
     * loader's writes before what the main thread does next */
    atomic_fetch_add_explicit(a->finished, 1, memory_order_relaxed);
    return NULL;
}

void parallel_for(int nthreads, void (*fn)(int i, void *arg), void *arg)
{
    pthread_t *th = mem_alloc((size_t)nthreads * sizeof(*th));
    struct pf_arg *a = mem_alloc((size_t)nthreads * sizeof(*a));
    atomic_int finished;
    atomic_init(&finished, 0);
    for (int i = 0; i < nthreads; i++) {
        a[i] = (struct pf_arg){i, fn, arg, &finished};
        if (pthread_create(&th[i], NULL, pf_main, &a[i]) != 0) {
            fprintf(stderr, "cannot create loader thread %d\n", i);
            exit(1);
        }
    }
    while (atomic_load_explicit(&finished, memory_order_relaxed) < nthreads) {
        progress_tick();
        nanosleep(&(struct timespec){0, POLL_NS}, NULL);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    mem_free(a);
    mem_free(th);
}

struct table *workload_keyed_table(const char *name, const struct schema *s, uint64_t rows,
                                   bool placed, const struct options *o)
{
    if (o->index_kind == INDEX_ARRAY)
        return table_create_array(name, s, rows);
    return placed ? table_create_placed(name, s, rows, true) : table_create(name, s, rows, true);
}

void load_rows(struct table *tab, struct row_freelist *fl, uint64_t lo, uint64_t hi,
               void (*fill)(struct row *row, void *arg), void *arg)
{
    for (uint64_t k = lo; k < hi; k++) {
        struct row *row = table_load_row(tab, fl, k);
        cc_row_init(row);
        if (fill)
            fill(row, arg);
        table_index_loaded(tab, row);
        if ((k - lo) % PROGRESS_BATCH == PROGRESS_BATCH - 1)
            progress_add(PROGRESS_BATCH);
    }
    progress_add((hi - lo) % PROGRESS_BATCH);
}

void load_random_slice(int i, const struct options *o, struct table *tab,
                       void (*fill)(struct row *row, void *rng))
{
    uint64_t lo, hi;
    load_slice(o->rows, i, o->threads, &lo, &hi);
    struct rng r;
    rng_seed(&r, o->seed ^ LOAD_SEED_SALT, (uint64_t)i);
    load_rows(tab, NULL, lo, hi, fill, &r);
}
