/* Shared by the variant tests: a table `tab` of rows 0..n-1 with two INT64 columns (a, b),
 * in its primary hash index, the access helpers the cases use, and a request run on a
 * thread of its own (struct bg: an access that must wait while the case goes on). */
#ifndef TESTS_VARIANT_ROWS_H
#define TESTS_VARIANT_ROWS_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "benchmarks/workload.h"
#include "cc/txn.h"
#include "storage/wait.h"

static struct table *tab;

/* `verify`: the rows carry writer ids (a case that checks a history). */
static inline struct table *make_table(uint64_t nrows, bool verify)
{
    struct schema s;
    schema_init(&s, verify);
    schema_add(&s, "a", COL_INT64, 8);
    schema_add(&s, "b", COL_INT64, 8);
    schema_seal(&s);
    struct table *t = table_create("t", &s, nrows, true);
    load_rows(t, NULL, 0, nrows, NULL, NULL);
    return t;
}

static inline struct row *R(uint64_t k) { return table_row_at(tab, k); }
static inline int64_t col_a(const unsigned char *img)
{
    int64_t v;
    memcpy(&v, col_ptr(&tab->schema, img, 0), 8);
    return v;
}
/* Column a of row k as committed (the row's own image). */
static inline int64_t committed(uint64_t k) { return col_a(R(k)->data); }

/* Read-for-update of row k, add d to column a. */
static inline enum rc add(struct txn *t, uint64_t k, int64_t d)
{
    const unsigned char *img;
    if (txn_read_for_update(t, R(k), COL_BIT(0), &img) != RC_OK)
        return RC_ABORT;
    int64_t v = col_a(img) + d;
    return txn_write(t, R(k), 0, &v);
}

/* Reads column a of row k into *v (when v is not NULL). */
static inline enum rc rd(struct txn *t, uint64_t k, int64_t *v)
{
    const unsigned char *img;
    if (txn_read(t, R(k), COL_BIT(0), &img) != RC_OK)
        return RC_ABORT;
    if (v)
        *v = col_a(img);
    return RC_OK;
}

/* Ends t's attempt: commits it, or (commit false) aborts it as its user would. False if
 * that did not go as asked. */
static inline bool decide(struct txn *t, bool commit)
{
    if (commit)
        return txn_commit(t) == RC_OK;
    bool ok = txn_user_abort(t) == RC_ABORT;
    txn_abort(t);
    return ok;
}

/* The algorithm's counter `name` of t (cc_alg_counter_names). */
static inline uint64_t counter(struct txn *t, const char *name)
{
    for (int i = 0; i < CC_ALG_COUNTERS; i++)
        if (cc_alg_counter_names[i] && strcmp(cc_alg_counter_names[i], name) == 0)
            return txn_stats(t)->alg[i];
    return UINT64_MAX;
}

static inline void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* A request on a thread of its own: bg_start(&b, bg_read or bg_add) runs it on t for row
 * key, its thread registered as t's worker with the wait record rec (storage/wait.h);
 * `done` says it returned, with rc and, for a read, the value seen; bg_wait_blocked
 * waits until it is in a long wait (or returned: a case then checks it is still
 * waiting); bg_join waits for it. */
struct bg {
    struct txn *t;
    uint64_t key;
    int64_t seen;
    enum rc rc;
    atomic_int done;
    pthread_t thread;
    struct wait_rec rec;
};

/* rd of row key into seen. */
static inline void *bg_read(void *arg)
{
    struct bg *b = arg;
    wait_register(b->t->thread_id, &b->rec);
    b->rc = rd(b->t, b->key, &b->seen);
    atomic_store(&b->done, 1);
    return NULL;
}

/* add 1 to row key. */
static inline void *bg_add(void *arg)
{
    struct bg *b = arg;
    wait_register(b->t->thread_id, &b->rec);
    b->rc = add(b->t, b->key, 1);
    atomic_store(&b->done, 1);
    return NULL;
}

static inline void bg_start(struct bg *b, void *(*fn)(void *))
{
    pthread_create(&b->thread, NULL, fn, b);
}
/* Polls, 10 s at most: a thread that starts late (a loaded machine) is not taken for one
 * that was never held back; then 20 ms more, so that the case sees the request stay held. */
static inline void bg_wait_blocked(struct bg *b)
{
    /* relaxed: kind is a snapshot (storage/wait.h); done orders nothing here */
    for (int i = 0; i < 10000 && !atomic_load(&b->done) &&
                    atomic_load_explicit(&b->rec.kind, memory_order_relaxed) == WAIT_NONE;
         i++)
        sleep_ms(1);
    sleep_ms(20);
}
static inline void bg_join(struct bg *b)
{
    pthread_join(b->thread, NULL);
    wait_unregister(b->t->thread_id);
}

#endif
