/* Unit tests of the generic transaction (cc/txn.c) over the NONE algorithm: access-set
 * growth and re-lookup, undo on abort, insert/delete publication at commit, ordered-index
 * operations at commit, a look-up's misses looked up again, filling an insert in place,
 * reuse of the rows of aborted inserts
 * (also after their context went away),
 * the commit-time lock order, history records, sticky abort, and log-area chunk growth. */
#include <string.h>

#include "benchmarks/workload.h"
#include "cc/txn.h"
#include "storage/index.h"
#include "storage/mem.h"
#include "tests/unit/check.h"

/* Column a of a new row: its key. */
static void fill_key(struct row *r, void *arg)
{
    (void)arg;
    int64_t v = (int64_t)r->key;
    memcpy(col_ptr(&row_table(r)->schema, r->data, 0), &v, 8);
}

static struct table *make_table(bool verify, uint64_t nrows)
{
    struct schema s;
    schema_init(&s, verify);
    schema_add(&s, "a", COL_INT64, 8);
    schema_add(&s, "b", COL_CHAR, 20);
    schema_seal(&s);
    struct table *t = table_create("t", &s, nrows, true);
    load_rows(t, NULL, 0, nrows, fill_key, NULL);
    return t;
}

static int64_t get_a(const struct table *t, const unsigned char *img)
{
    int64_t v;
    memcpy(&v, col_ptr(&t->schema, img, 0), 8);
    return v;
}

static void access_set_growth(void)
{
    struct table *tab = make_table(false, 1000);
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    const unsigned char *img[1000];
    for (uint64_t k = 0; k < 1000; k++) {
        CHECK(txn_read(t, txn_lookup(t, tab, k), COLS_ALL, &img[k]) == RC_OK);
        CHECK(get_a(tab, img[k]) == (int64_t)k);
    }
    CHECK_EQ_U(t->nacc, 1000);
    for (uint64_t k = 0; k < 1000; k += 7) { /* found again, not added twice */
        const unsigned char *again;
        CHECK(txn_read(t, txn_lookup(t, tab, k), COLS_ALL, &again) == RC_OK);
        CHECK(again == img[k]);
    }
    CHECK_EQ_U(t->nacc, 1000);
    CHECK(txn_commit(t) == RC_OK);
    txn_begin(t, false); /* a new attempt starts with an empty access set */
    CHECK_EQ_U(t->nacc, 0);
    CHECK(txn_commit(t) == RC_OK);
    txn_destroy(t);
}

static void undo_on_abort(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    struct row *r = txn_lookup(t, tab, 3);
    int64_t v = 99;
    CHECK(txn_write(t, r, 0, &v) == RC_OK);
    CHECK(get_a(tab, r->data) == 99); /* NONE writes in place */
    CHECK(txn_user_abort(t) == RC_ABORT);
    const unsigned char *img;
    CHECK(txn_read(t, r, COLS_ALL, &img) == RC_ABORT); /* sticky */
    CHECK(txn_abort_reason(t) == AR_USER);
    txn_abort(t);
    CHECK(get_a(tab, r->data) == 3);
    CHECK_EQ_U(txn_stats(t)->aborts_by[AR_USER], 1);
    txn_destroy(t);
}

static void insert_delete_publish(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    struct row *n;
    CHECK(txn_insert(t, tab, 500, &n, NULL) == RC_OK);
    int64_t v = 5;
    CHECK(txn_write(t, n, 0, &v) == RC_OK);
    CHECK(idx_hash_get(tab->primary, 500) == NULL); /* invisible before commit */
    CHECK(txn_delete(t, txn_lookup(t, tab, 4)) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    CHECK(idx_hash_get(tab->primary, 500) == n);
    CHECK(get_a(tab, n->data) == 5);
    CHECK(idx_hash_get(tab->primary, 4) == NULL);
    txn_destroy(t);
}

/* As an algorithm that calls txn_missed_still_absent declares (cc/cc.h). */
const bool cc_alg_rechecks_misses = true;

/* A look-up's misses are recorded for the attempt (txn_missed_still_absent): still
 * absent until another transaction publishes one of the keys, then found; a key found
 * by the look-up is no miss; a new attempt starts with none. */
static void missed_keys_looked_up_again(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *t = txn_create(0, false), *u = txn_create(1, false);
    txn_begin(t, false);
    CHECK(txn_lookup(t, tab, 3) != NULL);
    CHECK(txn_missed_still_absent(t)); /* a hit records nothing */
    CHECK(txn_lookup(t, tab, 600) == NULL);
    CHECK(txn_lookup(t, tab, 601) == NULL);
    CHECK(txn_missed_still_absent(t));
    txn_begin(u, false);
    struct row *n;
    CHECK(txn_insert(u, tab, 601, &n, NULL) == RC_OK);
    CHECK(txn_missed_still_absent(t)); /* not published yet */
    CHECK(txn_commit(u) == RC_OK);
    CHECK(!txn_missed_still_absent(t));
    txn_begin(t, false); /* a new attempt: no misses */
    CHECK(txn_missed_still_absent(t));
    CHECK(txn_commit(t) == RC_OK);
    txn_destroy(u);
    txn_destroy(t);
}

/* Secondary (ordered) index operations take effect at commit, in call order, and not at
 * all on abort. */
static void index_ops_at_commit(void)
{
    struct table *tab = make_table(false, 10);
    struct idx_ordered *o = idx_ordered_create();
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    struct row *n;
    CHECK(txn_insert(t, tab, 800, &n, NULL) == RC_OK);
    txn_index_insert(t, o, 8, n);
    txn_index_insert(t, o, 9, n);
    txn_index_remove(t, o, 9);
    CHECK(idx_ordered_get(o, 8) == NULL); /* nothing before commit */
    CHECK(txn_commit(t) == RC_OK);
    CHECK(idx_ordered_get(o, 8) == n && idx_ordered_get(o, 9) == NULL);
    txn_begin(t, false);
    txn_index_remove(t, o, 8);
    txn_index_insert(t, o, 7, n);
    txn_user_abort(t);
    txn_abort(t);
    CHECK(idx_ordered_get(o, 8) == n && idx_ordered_get(o, 7) == NULL);
    CHECK_EQ_U(idx_ordered_size(o), 1);
    idx_ordered_destroy(o);
    txn_destroy(t);
}

/* A row whose insert aborted (or was deleted by its own transaction) comes back, reset,
 * to the thread's next insert into its table; the table hands out no new row for it. */
static void insert_rows_reused(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    struct row *n;
    unsigned char *img;
    CHECK(txn_insert(t, tab, 700, &n, &img) == RC_OK);
    CHECK(img == n->data);
    memcpy(col_ptr(&tab->schema, img, 0), &(int64_t){9}, 8);
    memcpy(col_ptr(&tab->schema, img, 1), "abc", 3);
    txn_user_abort(t);
    txn_abort(t);
    CHECK(idx_hash_get(tab->primary, 700) == NULL);
    uint64_t rows = table_nrows(tab);
    txn_begin(t, false);
    struct row *m;
    CHECK(txn_insert(t, tab, 701, &m, &img) == RC_OK);
    CHECK(m == n && m->key == 701 && get_a(tab, img) == 0);
    CHECK(col_ptr(&tab->schema, img, 1)[0] == 0);
    CHECK(txn_delete(t, m) == RC_OK); /* its own insert: never published */
    CHECK(txn_commit(t) == RC_OK);
    CHECK(idx_hash_get(tab->primary, 701) == NULL);
    txn_begin(t, false);
    CHECK(txn_insert(t, tab, 702, &m, &img) == RC_OK);
    CHECK(m == n && atomic_load(&m->deleted) == 0);
    memcpy(col_ptr(&tab->schema, img, 0), &(int64_t){5}, 8);
    CHECK(txn_commit(t) == RC_OK);
    CHECK(idx_hash_get(tab->primary, 702) == n && get_a(tab, n->data) == 5);
    CHECK_EQ_U(table_nrows(tab), rows);
    CHECK_EQ_U(txn_stats(t)->rows_reused, 2);
    txn_destroy(t);
}

/* After a commit, only the rows the attempt deleted after inserting them go back to its
 * free rows, not another inserted row whose deleted flag is set: once published, a row
 * can be deleted by another transaction before the inserter's commit returns, and the
 * deleter's readers may still hold it. That window lies inside txn_commit, out of a
 * single thread's reach, so the flag is set here before the commit, as that delete
 * would set it. */
static void only_dropped_rows_reused(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *t = txn_create(0, false);
    txn_begin(t, false);
    struct row *n, *m;
    unsigned char *img;
    CHECK(txn_insert(t, tab, 800, &n, &img) == RC_OK);
    CHECK(txn_insert(t, tab, 801, &m, &img) == RC_OK);
    CHECK(txn_delete(t, m) == RC_OK); /* its own insert, dropped */
    CHECK(txn_delete(t, m) == RC_OK); /* again: still one row to give back */
    atomic_store(&n->deleted, 1);     /* another transaction's delete */
    CHECK(txn_commit(t) == RC_OK);
    struct row *r1, *r2;
    txn_begin(t, false);
    CHECK(txn_insert(t, tab, 802, &r1, &img) == RC_OK);
    CHECK(txn_insert(t, tab, 803, &r2, &img) == RC_OK);
    CHECK(r1 == m && r2 != m && r2 != n);
    CHECK(txn_commit(t) == RC_OK);
    CHECK_EQ_U(txn_stats(t)->rows_reused, 1);
    txn_destroy(t);
}

/* A context that goes away gives its rows back to their table (struct row_freelist): a
 * failed client's abandoned context (txn_fork, then the backup coordinator aborts its
 * insert and destroys it, benchmarks/recovery.c) holds the row of that insert and the
 * rest of its reserved block; the next inserts, of the client's fork, get all of them,
 * and the table hands out no new row. */
static void destroyed_context_gives_rows_back(void)
{
    struct table *tab = make_table(false, 10);
    struct txn *a = txn_create(0, false);
    txn_begin(a, false);
    struct row *n;
    CHECK(txn_insert(a, tab, 700, &n, NULL) == RC_OK);
    struct txn *b = txn_fork(a); /* the client fails; a is abandoned, undecided */
    txn_user_abort(a);           /* the backup's decision */
    txn_abort(a);
    uint64_t rows = table_nrows(tab);
    txn_destroy(a);
    txn_begin(b, false);
    bool again = false;
    for (uint64_t k = 0; k < ROW_BLOCK; k++) { /* the insert's row and ROW_BLOCK - 1 more */
        struct row *m;
        CHECK(txn_insert(b, tab, 800 + k, &m, NULL) == RC_OK);
        again |= m == n;
    }
    CHECK(txn_commit(b) == RC_OK);
    CHECK(again);
    CHECK_EQ_U(table_nrows(tab), rows);
    CHECK(idx_hash_get(tab->primary, 800 + ROW_BLOCK - 1) != NULL);
    txn_destroy(b);
}

/* The commit-time lock order: sorted by row address, a permutation of the input, for
 * small sets (insertion sort) and large ones (heapsort). */
static void sort_by_row(void)
{
    enum { N = 200 };
    static struct access acc[N];
    struct access *v[N];
    uint64_t x = 88172645463325252ull;
    for (uint32_t n = 0; n <= N; n += n < 40 ? 1 : 23) {
        uintptr_t sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            acc[i].row = (struct row *)(uintptr_t)(x % 64 * 64); /* duplicates too */
            v[i] = &acc[i];
            sum += (uintptr_t)acc[i].row;
        }
        txn_sort_by_row(v, n);
        for (uint32_t i = 0; i < n; i++) {
            CHECK(i == 0 || (uintptr_t)v[i - 1]->row <= (uintptr_t)v[i]->row);
            sum -= (uintptr_t)v[i]->row;
        }
        CHECK(sum == 0);
    }
}

static void history_records(void)
{
    struct table *tab = make_table(true, 10);
    struct txn *t = txn_create(2, true);
    txn_begin(t, false);
    uint64_t id1 = t->id;
    struct row *r = txn_lookup(t, tab, 1);
    const unsigned char *img;
    CHECK(txn_read_for_update(t, r, COL_BIT(0), &img) == RC_OK);
    int64_t v = 7;
    CHECK(txn_write(t, r, 0, &v) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    txn_begin(t, false); /* aborted attempts leave no records */
    CHECK(txn_read(t, r, COLS_ALL, &img) == RC_OK);
    txn_user_abort(t);
    txn_abort(t);
    txn_begin(t, false);
    CHECK(txn_read(t, r, COL_BIT(0), &img) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    txn_begin(t, false); /* an insert and a delete write every column */
    struct row *n;
    CHECK(txn_insert(t, tab, 600, &n, NULL) == RC_OK);
    CHECK(txn_write(t, n, 0, &v) == RC_OK);
    CHECK(txn_delete(t, txn_lookup(t, tab, 3)) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    struct hist_log *h = txn_take_history(t);
    /* TXN READ READ WRITE | TXN READ READ | TXN WRITE WRITE WRITE WRITE WRITE */
    CHECK_EQ_U(h->n, 13);
    const struct hist_rec *x = h->recs;
    CHECK(x[0].kind == HIST_TXN && x[0].wid == id1);
    CHECK(x[0].key != 0 && x[0].nwid >= x[0].key); /* begin and commit times */
    /* every column of the image counts as read (a row-grain algorithm) */
    CHECK(x[1].kind == HIST_READ && x[1].wid == 0 && x[1].key == 1 && x[1].col == 0);
    CHECK(x[2].kind == HIST_READ && x[2].col == 1);
    CHECK(x[3].kind == HIST_WRITE && x[3].wid == 0);
    CHECK(x[3].nwid != id1 && x[3].nwid >> 40 == 3); /* a version id of thread 2 */
    CHECK(x[5].kind == HIST_READ && x[5].wid == x[3].nwid && x[6].wid == 0);
    CHECK(x[8].kind == HIST_WRITE && x[8].key == 600 && x[8].col == 0 && x[8].wid == 0);
    CHECK(x[9].kind == HIST_WRITE && x[9].col == 1 && x[9].wid == 0);
    CHECK(x[10].kind == HIST_WRITE && x[10].col == 0 && x[10].wid == x[8].nwid);
    CHECK(x[11].key == 3 && x[11].col == 0 && x[12].key == 3 && x[12].col == 1);
    CHECK(x[11].kind == HIST_WRITE && x[11].wid == 0 && x[12].wid == 0);
    CHECK(id1 >> 40 == 3); /* thread 2 */
    struct hist_result res;
    CHECK(hist_check((struct hist_log *const *)&h, 1, catalog_names(), catalog_count(),
                     HIST_LEVEL_SER, NULL, &res));
    CHECK_EQ_U(res.strict, 1);
    hist_log_free(h);
    mem_free(h);
    txn_destroy(t);
}

static void arena_growth(void)
{
    struct txn *t = txn_create(0, false);
    for (int round = 0; round < 3; round++) {
        txn_begin(t, false);
        unsigned char *p[8];
        for (int i = 0; i < 8; i++) { /* 8 x 200 KiB spans several chunks */
            p[i] = txn_alloc(t, 200 * 1024);
            memset(p[i], i, 200 * 1024);
        }
        for (int i = 0; i < 8; i++)
            CHECK(p[i][0] == i && p[i][200 * 1024 - 1] == i);
        CHECK(txn_commit(t) == RC_OK);
    }
    txn_destroy(t);
}

int main(void)
{
    mem_init(0);
    clock_calibrate();
    RUN_CASE(access_set_growth);
    RUN_CASE(undo_on_abort);
    RUN_CASE(insert_delete_publish);
    RUN_CASE(missed_keys_looked_up_again);
    RUN_CASE(index_ops_at_commit);
    RUN_CASE(insert_rows_reused);
    RUN_CASE(only_dropped_rows_reused);
    RUN_CASE(destroyed_context_gives_rows_back);
    RUN_CASE(sort_by_row);
    RUN_CASE(history_records);
    RUN_CASE(arena_growth);
    CHECK_EXIT();
}
