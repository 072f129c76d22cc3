/* Unit tests of the storage model (storage/storage_model.h): a cold cache misses, then
 * hits; CLOCK evicts when more distinct rows than slots are touched, sparing referenced
 * rows; a dirty eviction costs a write (a dirty metadata eviction one more, only with
 * timestamps on storage); metadata reads are counted only with timestamps on storage; a
 * mark on an evicted row is written through; and a storm of threads touching more rows
 * than slots keeps at most cache_rows rows resident, each touch a hit or a miss. */
#include <pthread.h>
#include <string.h>

#include "storage/rand.h"
#include "storage/clock.h"
#include "storage/mem.h"
#include "storage/storage_model.h"
#include "tests/unit/check.h"

#define NROWS 1000

static struct table *tab;
static struct row *rows[NROWS];

/* A fresh table of NROWS rows (non-resident: new rows are zero). */
static void make_rows(void)
{
    static int n;
    char name[32];
    snprintf(name, sizeof(name), "sm%d", n++);
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    tab = table_create(name, &s, NROWS, false);
    for (int i = 0; i < NROWS; i++)
        rows[i] = table_new_row(tab, (uint64_t)i + 1);
}

/* Latencies of 1 ns: the test counts I/Os, it does not wait for them. */
static void configure(uint64_t cache_rows, bool ts_on_storage)
{
    char err[128];
    struct sm_config c = {.preset = "custom", .read_us = 1e-3, .write_us = 1e-3,
                          .cache_rows = cache_rows, .ts_on_storage = ts_on_storage};
    CHECK(sm_configure(&c, err, sizeof(err)));
    make_rows();
}

static bool resident(int i)
{
    return atomic_load_explicit(&rows[i]->sm_state, memory_order_relaxed) & SM_RESIDENT;
}

static void cold_misses_then_hits(void)
{
    configure(10, false);
    struct sm_stats st = {0};
    for (int i = 0; i < 10; i++)
        sm_touch(&st, rows[i]);
    CHECK_EQ_U(st.reads, 10);
    CHECK_EQ_U(st.hits, 0);
    CHECK_EQ_U(st.meta_reads, 0);
    for (int i = 0; i < 10; i++)
        sm_touch(&st, rows[i]);
    CHECK_EQ_U(st.reads, 10);
    CHECK_EQ_U(st.hits, 10);
    CHECK_EQ_U(st.writes, 0);
    CHECK_EQ_U(sm_resident_rows(), 10);
}

/* 4 slots: rows 0-3 fill them (referenced); row 4 sweeps, clearing every bit, and evicts
 * row 0. Row 1 is touched again (referenced): row 5 then spares it and evicts row 2. */
static void clock_eviction(void)
{
    configure(4, false);
    struct sm_stats st = {0};
    for (int i = 0; i < 5; i++)
        sm_touch(&st, rows[i]);
    CHECK(!resident(0));
    for (int i = 1; i < 5; i++)
        CHECK(resident(i));
    sm_touch(&st, rows[1]);
    sm_touch(&st, rows[5]);
    CHECK(resident(1));
    CHECK(!resident(2));
    CHECK(resident(5));
    CHECK_EQ_U(st.reads, 6);
    CHECK_EQ_U(st.hits, 1);
    CHECK_EQ_U(sm_resident_rows(), 4);
    int n = 0;
    for (int i = 0; i < NROWS; i++)
        n += resident(i);
    CHECK_EQ_U(n, 4);
}

/* A dirty row's eviction costs one write; its metadata, one more only with timestamps on
 * storage; a clean eviction none. */
static void dirty_eviction(bool ts_on_storage)
{
    configure(2, ts_on_storage);
    struct sm_stats st = {0};
    sm_touch(&st, rows[0]);
    sm_touch(&st, rows[1]);
    CHECK_EQ_U(sm_mark(&st, rows[0], SM_DIRTY), 0); /* resident: no write yet */
    sm_mark(&st, rows[0], SM_META_DIRTY);
    CHECK_EQ_U(st.writes, 0);
    CHECK_EQ_U(st.meta_writes, 0);
    sm_touch(&st, rows[2]); /* evicts row 0 */
    CHECK(!resident(0));
    CHECK_EQ_U(st.writes, 1);
    CHECK_EQ_U(st.meta_writes, ts_on_storage ? 1 : 0);
    CHECK_EQ_U(st.reads, 3);
    CHECK_EQ_U(st.meta_reads, ts_on_storage ? 3 : 0);
    sm_touch(&st, rows[3]); /* evicts row 1, clean */
    CHECK(!resident(1));
    CHECK_EQ_U(st.writes, 1);
    /* a mark on an evicted row is written through at once */
    sm_mark(&st, rows[0], SM_DIRTY);
    CHECK_EQ_U(st.writes, 2);
    CHECK(!resident(0));
}
static void dirty_eviction_ts_in_memory(void) { dirty_eviction(false); }
static void dirty_eviction_ts_on_storage(void) { dirty_eviction(true); }

/* An insert enters resident and dirty, with no read; its eviction costs a write. */
static void insert_is_dirty(void)
{
    configure(1, false);
    struct sm_stats st = {0};
    sm_insert(&st, rows[0]);
    CHECK(resident(0));
    CHECK_EQ_U(st.reads, 0);
    sm_touch(&st, rows[1]);
    CHECK_EQ_U(st.writes, 1);
    CHECK_EQ_U(st.reads, 1);
}

#define STORM_THREADS 8
#define STORM_SLOTS 64
#define STORM_TOUCHES 20000

struct storm_arg {
    int id;
    struct sm_stats st;
};

static void *storm(void *p)
{
    struct storm_arg *a = p;
    struct rng r;
    rng_seed(&r, 7, (uint64_t)a->id);
    for (int i = 0; i < STORM_TOUCHES; i++) {
        /* a skewed pick: half the touches go to the first 100 rows */
        uint64_t k = rng_next(&r);
        struct row *row = rows[(k & 1) ? (k >> 1) % 100 : (k >> 1) % NROWS];
        sm_touch(&a->st, row);
        if (k % 7 == 0)
            sm_mark(&a->st, row, SM_DIRTY);
    }
    return NULL;
}

static void touch_storm(void)
{
    configure(STORM_SLOTS, true);
    pthread_t th[STORM_THREADS];
    struct storm_arg args[STORM_THREADS];
    for (int i = 0; i < STORM_THREADS; i++) {
        args[i] = (struct storm_arg){.id = i};
        pthread_create(&th[i], NULL, storm, &args[i]);
    }
    for (int i = 0; i < 1000; i++) /* meanwhile: the invariant, at any time */
        CHECK(sm_resident_rows() <= STORM_SLOTS);
    struct sm_stats sum = {0};
    for (int i = 0; i < STORM_THREADS; i++) {
        pthread_join(th[i], NULL);
        sm_stats_merge(&sum, &args[i].st);
    }
    CHECK_EQ_U(sum.hits + sum.reads, (uint64_t)STORM_THREADS * STORM_TOUCHES);
    CHECK_EQ_U(sum.meta_reads, sum.reads);
    CHECK(sum.reads >= STORM_SLOTS);
    CHECK(sum.writes > 0);
    int n = 0;
    for (int i = 0; i < NROWS; i++)
        n += resident(i);
    CHECK_EQ_U(n, STORM_SLOTS);
    CHECK_EQ_U(sm_resident_rows(), STORM_SLOTS);
}

int main(void)
{
    mem_init(0);
    clock_calibrate();
    RUN_CASE(cold_misses_then_hits);
    RUN_CASE(clock_eviction);
    RUN_CASE(dirty_eviction_ts_in_memory);
    RUN_CASE(dirty_eviction_ts_on_storage);
    RUN_CASE(insert_is_dirty);
    RUN_CASE(touch_storm);
    CHECK_EXIT();
}
