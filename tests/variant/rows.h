/* Shared by the variant tests: a table `tab` of rows 0..n-1 with two INT64 columns (a, b),
 * in its primary hash index, and the access helpers the cases use. */
#ifndef TESTS_VARIANT_ROWS_H
#define TESTS_VARIANT_ROWS_H

#include <string.h>
#include <time.h>

#include "cc/txn.h"
#include "storage/index.h"

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
    for (uint64_t k = 0; k < nrows; k++) {
        struct row *r = table_new_row(t, k);
        cc_row_init(r);
        idx_hash_insert(t->primary, k, r);
    }
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

#endif
