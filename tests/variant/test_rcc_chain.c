/* variants: rcc rcc-c rcc-ser rcc-d rcc-c-ser
 * Dependency-chain tests of RCC, driven through the transaction API with several
 * transaction contexts interleaved by hand (one per "thread" id). The Makefile links
 * this file against each variant named on the first line (tests/variant/ rule); eager
 * detection (RCC-D) is recognised by the algorithm's name.
 * Cases: cascade on abort, cascade on re-update, commit order along a chain, a
 * two-transaction deadlock found at commit time (RCC) or by the eager check (RCC-D),
 * column-disjoint writers that do not depend on each other (RCC-C), also where their
 * columns share a word of the row. */
#include <pthread.h>
#include <string.h>

#include "cc/txn.h"
#include "storage/index.h"
#include "tests/unit/check.h"
#include "tests/variant/rows.h"

static struct txn *T[4];
static struct table *packed;

static void cascade_on_abort(void)
{
    txn_begin(T[0], false);
    txn_begin(T[1], false);
    CHECK(add(T[0], 1, 10) == RC_OK);
    CHECK(add(T[0], 2, 1) == RC_OK); /* seals T0's version of row 1 */
    CHECK(add(T[1], 1, 5) == RC_OK); /* reads T0's speculative 10 */
    const unsigned char *img;
    CHECK(txn_read_for_update(T[1], R(1), COL_BIT(0), &img) == RC_OK);
    CHECK(col_a(img) == 15);
    CHECK(txn_user_abort(T[0]) == RC_ABORT);
    txn_abort(T[0]);
    CHECK(add(T[1], 3, 1) == RC_ABORT); /* cascaded */
    CHECK(txn_abort_reason(T[1]) == AR_CASCADE);
    txn_abort(T[1]);
    CHECK(committed(1) == 0);
}

static void cascade_on_reupdate(void)
{
    txn_begin(T[0], false);
    txn_begin(T[1], false);
    CHECK(add(T[0], 4, 1) == RC_OK);
    CHECK(add(T[0], 5, 1) == RC_OK); /* seals row 4 */
    CHECK(add(T[1], 4, 1) == RC_OK); /* reads T0's 1 */
    int64_t v = 100;
    CHECK(txn_write(T[0], R(4), 0, &v) == RC_OK); /* re-update after T1 read */
    CHECK(txn_commit(T[0]) == RC_OK);
    CHECK(txn_commit(T[1]) == RC_ABORT);
    CHECK(txn_abort_reason(T[1]) == AR_REUPDATE);
    txn_abort(T[1]);
    CHECK(committed(4) == 100);
}

static void *commit_thread(void *arg)
{
    struct txn *t = arg;
    return (void *)(uintptr_t)txn_commit(t);
}

static void commit_order(void)
{
    txn_begin(T[0], false);
    txn_begin(T[1], false);
    txn_begin(T[2], false);
    CHECK(add(T[0], 6, 1) == RC_OK);
    CHECK(add(T[0], 7, 0) == RC_OK);
    CHECK(add(T[0], 15, 0) == RC_OK); /* seals row 7 (speculative unlock) */
    CHECK(add(T[1], 6, 1) == RC_OK);
    CHECK(add(T[1], 7, 0) == RC_OK);
    CHECK(add(T[2], 6, 1) == RC_OK);
    /* T2 and T1 try to commit first: they must wait for T0 */
    pthread_t p2, p1;
    pthread_create(&p2, NULL, commit_thread, T[2]);
    pthread_create(&p1, NULL, commit_thread, T[1]);
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(committed(6) == 0); /* nobody installed before T0 */
    CHECK(txn_commit(T[0]) == RC_OK);
    void *r1, *r2;
    pthread_join(p1, &r1);
    pthread_join(p2, &r2);
    CHECK((uintptr_t)r1 == RC_OK && (uintptr_t)r2 == RC_OK);
    CHECK(committed(6) == 3);
}

static void two_txn_deadlock(void)
{
    txn_begin(T[0], false);
    txn_begin(T[1], false);
    CHECK(add(T[0], 8, 1) == RC_OK);
    CHECK(add(T[1], 9, 1) == RC_OK);
    CHECK(add(T[1], 10, 1) == RC_OK);          /* seals 9 */
    CHECK(add(T[0], 9, 1) == RC_OK);           /* seals 8; T0 -> T1 */
    enum rc rc = add(T[1], 8, 1);              /* T1 -> T0: a cycle */
    if (strncmp(cc_alg_name, "RCC-D", 5) == 0) { /* found by the eager check */
        CHECK(rc == RC_ABORT);
        CHECK(txn_abort_reason(T[1]) == AR_DEADLOCK);
        txn_abort(T[1]);
        CHECK(txn_commit(T[0]) == RC_ABORT); /* it read T1's row 9: cascaded */
        txn_abort(T[0]);
        return;
    }
    CHECK(rc == RC_OK); /* found at commit time */
    pthread_t p0;
    pthread_create(&p0, NULL, commit_thread, T[0]);
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    enum rc c1 = txn_commit(T[1]);
    void *r0;
    if (c1 != RC_OK) {
        CHECK(txn_abort_reason(T[1]) == AR_DEADLOCK);
        txn_abort(T[1]);
    }
    pthread_join(p0, &r0);
    CHECK(c1 != RC_OK || (uintptr_t)r0 != RC_OK); /* the cycle was broken */
    if ((uintptr_t)r0 != RC_OK)
        txn_abort(T[0]);
}

/* read-for-update of row k, add d to column c (0 = a, 1 = b) */
static enum rc add_col(struct txn *t, uint64_t k, int c, int64_t d)
{
    const unsigned char *img;
    if (txn_read_for_update(t, R(k), COL_BIT(c), &img) != RC_OK)
        return RC_ABORT;
    int64_t v;
    memcpy(&v, col_ptr(&tab->schema, img, c), 8);
    v += d;
    return txn_write(t, R(k), c, &v);
}

/* RCC-C: writers of disjoint columns of one row do not depend on each other: the later
 * one commits first, without waiting, and both columns are installed. Record-level
 * variants would make it wait for the earlier one (not tested here: one thread). */
static void column_disjoint(void)
{
    if (strncmp(cc_alg_name, "RCC-C", 5) != 0)
        return;
    int64_t b_before;
    memcpy(&b_before, col_ptr(&tab->schema, R(12)->data, 1), 8);
    int64_t a_before = committed(12);
    txn_begin(T[0], false);
    txn_begin(T[1], false);
    CHECK(add_col(T[0], 12, 0, 3) == RC_OK);
    CHECK(add_col(T[0], 13, 0, 1) == RC_OK); /* seals T0's version of row 12 */
    CHECK(add_col(T[1], 12, 1, 4) == RC_OK);
    CHECK(txn_commit(T[1]) == RC_OK); /* no dependency on T0: commits first */
    CHECK(txn_commit(T[0]) == RC_OK);
    int64_t b;
    memcpy(&b, col_ptr(&tab->schema, R(12)->data, 1), 8);
    CHECK(committed(12) == a_before + 3);
    CHECK(b == b_before + 4);
}

/* Writes columns [lo, hi] of the packed row in t, the values v[lo..hi]. */
static void write_cols(struct txn *t, struct row *r, int lo, int hi, const char *const *v)
{
    const unsigned char *img;
    colmask_t cols = 0;
    for (int c = lo; c <= hi; c++)
        cols |= COL_BIT(c);
    CHECK(txn_read_for_update(t, r, cols, &img) == RC_OK);
    for (int c = lo; c <= hi; c++)
        CHECK(txn_write(t, r, c, v[c]) == RC_OK);
}

/* RCC-C: writers of disjoint text columns that share one word of the row: each commit
 * installs its own column's bytes and keeps the other's (a word-grain install would put
 * back the earlier writer's stale copy of its neighbour). Both ways round, so that the
 * last installer's column is once the word's low bytes and once its high ones. */
static void column_disjoint_shared_word(void)
{
    if (strncmp(cc_alg_name, "RCC-C", 5) != 0)
        return;
    const struct schema *s = &packed->schema;
    CHECK(s->cols[0].word_hi > s->cols[1].word_lo); /* the two columns share a word */
    struct row *r = table_row_at(packed, 0);
    static const char *const vals[2][2] = {{"xxx", "yyy"}, {"aaa", "bbb"}};
    for (int last = 0; last < 2; last++) { /* the column of the transaction that commits last */
        int other = 1 - last;
        txn_begin(T[0], false);
        txn_begin(T[1], false);
        write_cols(T[0], r, last, last, vals[last]);
        CHECK(add_col(T[0], 14, 0, 1) == RC_OK); /* seals T0's version of the row */
        write_cols(T[1], r, other, other, vals[last]);
        CHECK(txn_commit(T[1]) == RC_OK); /* no dependency on T0: commits first */
        CHECK(txn_commit(T[0]) == RC_OK);
        CHECK(memcmp(col_ptr(s, r->data, 0), vals[last][0], 3) == 0);
        CHECK(memcmp(col_ptr(s, r->data, 1), vals[last][1], 3) == 0);
    }
}

/* RCC-C: one writer of two adjacent columns (installed as one byte range, [0, 6)) and
 * one of the third, which shares word 0 with them and spills into word 1; each commits
 * last once. Each commit keeps the other's bytes. */
static void column_run_shared_words(void)
{
    if (strncmp(cc_alg_name, "RCC-C", 5) != 0)
        return;
    const struct schema *s = &packed->schema;
    struct row *r = table_row_at(packed, 0);
    static const char *const vals[2][3] = {{"aaa", "bbb", "ccc"}, {"ddd", "eee", "fff"}};
    for (int run_last = 1; run_last >= 0; run_last--) { /* T0 commits last */
        const char *const *v = vals[run_last];
        txn_begin(T[0], false);
        txn_begin(T[1], false);
        if (run_last)
            write_cols(T[0], r, 0, 1, v);
        else
            write_cols(T[0], r, 2, 2, v);
        CHECK(add_col(T[0], 14, 0, 1) == RC_OK); /* seals T0's version of the row */
        if (run_last)
            write_cols(T[1], r, 2, 2, v);
        else
            write_cols(T[1], r, 0, 1, v);
        CHECK(txn_commit(T[1]) == RC_OK); /* no dependency on T0: commits first */
        CHECK(txn_commit(T[0]) == RC_OK);
        for (int c = 0; c < 3; c++)
            CHECK(memcmp(col_ptr(s, r->data, c), v[c], 3) == 0);
    }
}

int main(void)
{
    cc_init(4);
    tab = make_table(16, false);
    struct schema ps; /* three packed 3-byte text columns (the column_* cases): bytes
                       * [0, 3), [3, 6), [6, 9), so the third spans words 0 and 1 */
    schema_init(&ps, false);
    schema_add(&ps, "x", COL_CHAR, 3);
    schema_add(&ps, "y", COL_CHAR, 3);
    schema_add(&ps, "z", COL_CHAR, 3);
    schema_seal(&ps);
    packed = table_create("packed", &ps, 1, true);
    load_rows(packed, NULL, 0, 1, NULL, NULL);
    for (int i = 0; i < 4; i++) {
        T[i] = txn_create(i, false);
        cc_thread_init(T[i]);
    }
    RUN_CASE(cascade_on_abort);
    RUN_CASE(cascade_on_reupdate);
    RUN_CASE(commit_order);
    RUN_CASE(two_txn_deadlock);
    RUN_CASE(column_disjoint);
    RUN_CASE(column_disjoint_shared_word);
    RUN_CASE(column_run_shared_words);
    for (int i = 0; i < 4; i++) {
        cc_thread_fini(T[i]);
        txn_destroy(T[i]);
    }
    cc_fini();
    return check_failures ? 1 : 0;
}
