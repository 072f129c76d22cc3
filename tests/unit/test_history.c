/* Unit tests for the history checker (cc/history.c, cc/history_check.c): hand-made
 * histories with and without each anomaly, the column grain of items, and a large random
 * serial history that must pass quickly (and fail once an anomaly is appended). */
#include "cc/history.h"
#include "tests/unit/check.h"

#include <string.h>
#include <time.h>

#define TID(thread, n) ((uint64_t)(thread) << 40 | (uint64_t)(n))

static const char *const table_names[] = {"row", "acct"};
static char report[1 << 16]; /* the checker's output for the last check_logs */

static void rd(struct hist_log *l, uint64_t key, uint16_t col, uint64_t wid)
{
    hist_append(l, HIST_READ, 0, key, col, wid);
}

static void wr(struct hist_log *l, uint64_t key, uint16_t col, uint64_t prev)
{
    hist_append(l, HIST_WRITE, 0, key, col, prev);
}

/* Checks the logs at `level`, keeping the printed report in `report`. */
static bool check_logs(struct hist_log *const *logs, int n, enum hist_level level,
                       struct hist_result *res)
{
    FILE *f = tmpfile();
    bool ok = hist_check(logs, n, table_names, 2, level, f, res);
    rewind(f);
    size_t len = fread(report, 1, sizeof report - 1, f);
    report[len] = '\0';
    fclose(f);
    CHECK(ok == res->ok);
    return ok;
}

static bool check_one(struct hist_log *l, enum hist_level level, struct hist_result *res)
{
    return check_logs(&l, 1, level, res);
}

static void test_log_grows(void)
{
    struct hist_log l;
    hist_log_init(&l);
    for (uint64_t i = 1; i <= 10000; i++) {
        hist_txn_begin(&l, i);
        wr(&l, i, 0, 0);
    }
    CHECK_EQ_U(l.n, 20000);
    CHECK(l.cap >= l.n);
    CHECK_EQ_U(l.recs[19999].key, 10000);
    hist_txn_begin(&l, 10001);
    rd(&l, 1, 0, 1);
    hist_txn_abort(&l);
    CHECK_EQ_U(l.n, 20000);
    hist_log_free(&l);
    CHECK(l.recs == NULL && l.n == 0 && l.cap == 0);
}

static void test_empty(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    CHECK(check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 0);
    CHECK(hist_check(NULL, 0, NULL, 0, HIST_LEVEL_SER, NULL, &res));
}

static void test_serial(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    rd(&l, 10, 0, 0);
    wr(&l, 10, 0, 0);
    rd(&l, 10, 0, 1); /* own write */
    wr(&l, 10, 0, 1); /* re-write */
    hist_txn_begin(&l, 2);
    rd(&l, 10, 0, 1);
    wr(&l, 10, 0, 1);
    wr(&l, 11, 0, 0);
    hist_txn_begin(&l, 3);
    rd(&l, 11, 0, 2);
    rd(&l, 10, 0, 2);
    CHECK(check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 3);
    CHECK_EQ_U(res.reads, 5);
    CHECK_EQ_U(res.writes, 4);
    CHECK_EQ_U(res.edges, 4); /* T1 -WR-> T2, T1 -WW-> T2, T2 -WR-> T3 twice */
    CHECK(check_one(&l, HIST_LEVEL_RC, &res));
    CHECK(strstr(report, "OK") != NULL);
    hist_log_free(&l);
}

/* Three threads, interleaved in real time, conflict-equivalent to A, B, C. */
static void test_interleaved_serializable(void)
{
    struct hist_log a, b;
    struct hist_result res;
    uint64_t ta = TID(1, 1), tb = TID(2, 1), tc = TID(1, 2);
    hist_log_init(&a);
    hist_log_init(&b);
    hist_txn_begin(&a, ta);
    rd(&a, 1, 0, 0);
    wr(&a, 2, 0, 0);
    hist_txn_begin(&b, tb);
    rd(&b, 2, 0, ta); /* A -WR-> B */
    wr(&b, 1, 0, 0);  /* A -RW-> B: A read the version B replaced */
    hist_txn_begin(&a, tc);
    rd(&a, 1, 0, tb); /* B -WR-> C */
    rd(&a, 2, 0, ta); /* A -WR-> C */
    struct hist_log *logs[] = {&a, &b};
    CHECK(check_logs(logs, 2, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 3);
    CHECK_EQ_U(res.edges, 4);
    hist_log_free(&a);
    hist_log_free(&b);
}

static void test_write_skew(void)
{
    struct hist_log a, b;
    struct hist_result res;
    hist_log_init(&a);
    hist_log_init(&b);
    hist_txn_begin(&a, TID(1, 1));
    rd(&a, 1, 0, 0);
    rd(&a, 2, 0, 0);
    wr(&a, 1, 0, 0);
    hist_txn_begin(&b, TID(2, 1));
    rd(&b, 1, 0, 0);
    rd(&b, 2, 0, 0);
    wr(&b, 2, 0, 0);
    struct hist_log *logs[] = {&a, &b};
    CHECK(!check_logs(logs, 2, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK_EQ_U(res.dirty_reads + res.lost_updates + res.stale_own, 0);
    CHECK(strstr(report, "cycle of 2 transactions") != NULL);
    CHECK(strstr(report, "-RW->") != NULL);
    CHECK(strstr(report, "(thread 2, #1)") != NULL);
    CHECK(check_logs(logs, 2, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.cycles, 0);
    hist_log_free(&a);
    hist_log_free(&b);
}

static void test_lost_update(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    rd(&l, 5, 2, 0);
    wr(&l, 5, 2, 0);
    hist_txn_begin(&l, 2);
    rd(&l, 5, 2, 0);
    wr(&l, 5, 2, 0);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 1);
    CHECK(strstr(report, "lost update") != NULL);
    CHECK(strstr(report, "row[key 5].col2") != NULL);
    CHECK(!check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.lost_updates, 1);
    hist_log_free(&l);
}

static void test_dirty_read(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1); /* aborted attempt: truncated from the log */
    wr(&l, 1, 0, 0);
    hist_txn_abort(&l);
    hist_txn_begin(&l, 2);
    rd(&l, 1, 0, 1);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.txns, 1);
    CHECK_EQ_U(res.dirty_reads, 1);
    CHECK(strstr(report, "never committed") != NULL);
    hist_log_free(&l);

    /* A write over the aborted version: the version order does not start at the loader. */
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    wr(&l, 1, 0, 0);
    hist_txn_abort(&l);
    hist_txn_begin(&l, 2);
    wr(&l, 1, 0, 1);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.dirty_reads, 1);
    hist_log_free(&l);

    /* A version of a committed transaction on an item it never wrote. */
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    wr(&l, 1, 0, 0);
    hist_txn_begin(&l, 2);
    rd(&l, 1, 1, 1);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.dirty_reads, 1);
    CHECK(strstr(report, "never wrote that item") != NULL);
    hist_log_free(&l);
}

static void test_stale_own_read(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    rd(&l, 1, 0, 0); /* before its write: fine */
    wr(&l, 1, 0, 0);
    rd(&l, 1, 0, 0); /* after it: stale */
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.stale_own, 1);
    CHECK(strstr(report, "stale own read") != NULL);
    hist_log_free(&l);

    /* A second write that replaced something other than its own version. */
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    wr(&l, 1, 0, 0);
    wr(&l, 1, 0, 0);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.stale_own, 1);
    CHECK_EQ_U(res.lost_updates, 0);
    hist_log_free(&l);
}

/* T3 reads x before T2 and y after T2. */
static void test_read_skew(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1);
    wr(&l, 1, 0, 0);
    wr(&l, 2, 0, 0);
    hist_txn_begin(&l, 2);
    wr(&l, 1, 0, 1);
    wr(&l, 2, 0, 1);
    hist_txn_begin(&l, 3);
    rd(&l, 1, 0, 1);
    rd(&l, 2, 0, 2);
    CHECK(!check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK(strstr(report, "cycle of 2 transactions") != NULL);
    CHECK(check_one(&l, HIST_LEVEL_RC, &res));
    hist_log_free(&l);
}

/* T1 -WR(col0)-> T2 -WR(col1)-> T3 -RW(col2)-> T1, all on row 7. */
static void test_wr_rw_cycle_on_columns(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, TID(1, 1));
    wr(&l, 7, 0, 0);
    wr(&l, 7, 2, 0);
    hist_txn_begin(&l, TID(1, 2));
    rd(&l, 7, 0, TID(1, 1));
    wr(&l, 7, 1, 0);
    hist_txn_begin(&l, TID(1, 3));
    rd(&l, 7, 1, TID(1, 2));
    rd(&l, 7, 2, 0);
    CHECK(!check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK(strstr(report, "cycle of 3 transactions") != NULL);
    CHECK(strstr(report, "-WR-> txn") != NULL);
    CHECK(strstr(report, "-RW-> txn") != NULL);
    CHECK(strstr(report, "row[key 7].col2") != NULL);
    CHECK(check_one(&l, HIST_LEVEL_RC, &res));
    hist_log_free(&l);
}

/* Items are (table, key, col): other columns or tables of the same key never conflict. */
static void test_column_grain(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    hist_txn_begin(&l, 1); /* a write skew at row grain, no conflict at column grain */
    rd(&l, 3, 0, 0);
    wr(&l, 3, 1, 0);
    hist_txn_begin(&l, 2);
    rd(&l, 3, 2, 0);
    wr(&l, 3, 3, 0);
    hist_append(&l, HIST_WRITE, 1, 3, 1, 0); /* same key and col, other table */
    CHECK(check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.edges, 0);
    hist_log_free(&l);

    hist_log_init(&l); /* the same with T2 reading T1's column: a cycle */
    hist_txn_begin(&l, 1);
    rd(&l, 3, 0, 0);
    wr(&l, 3, 1, 0);
    hist_txn_begin(&l, 2);
    rd(&l, 3, 1, 0);
    wr(&l, 3, 0, 0);
    CHECK(!check_one(&l, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    hist_log_free(&l);

    hist_log_init(&l); /* two writers of the loader's version: per column */
    hist_txn_begin(&l, 1);
    wr(&l, 3, 0, 0);
    hist_txn_begin(&l, 2);
    wr(&l, 3, 1, 0);
    CHECK(check_one(&l, HIST_LEVEL_RC, &res));
    hist_txn_begin(&l, 3);
    wr(&l, 3, 1, 0);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 1);
    hist_log_free(&l);
}

static void test_malformed(void)
{
    struct hist_log l;
    struct hist_result res;
    hist_log_init(&l);
    rd(&l, 1, 0, 0); /* outside any transaction */
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK(strstr(report, "malformed") != NULL);
    hist_log_free(&l);
    hist_log_init(&l);
    hist_txn_begin(&l, 4);
    hist_txn_begin(&l, 4);
    CHECK(!check_one(&l, HIST_LEVEL_RC, &res));
    CHECK(strstr(report, "duplicate") != NULL);
    hist_log_free(&l);
}

/* ---- large random serial history ---- */

#define BIG_THREADS 8
#define BIG_TXNS 200000
#define BIG_KEYS 5000
#define BIG_COLS 4
#define BIG_ITEMS (2 * BIG_KEYS * BIG_COLS)

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Appends an access of item i (an index into the database of wids). */
static void append_item(struct hist_log *l, enum hist_kind kind, size_t i, uint64_t wid)
{
    hist_append(l, kind, (uint16_t)(i / (BIG_KEYS * BIG_COLS)), i / BIG_COLS % BIG_KEYS,
                (uint16_t)(i % BIG_COLS), wid);
}

/* Executes BIG_TXNS random transactions one at a time on an array of wids (the database)
 * from BIG_THREADS threads, aborting some; the history is serial, so it must pass. Then
 * appends a read-skew transaction, which must be caught in the big graph. */
static void test_large_serial(void)
{
    static struct hist_log logs[BIG_THREADS];
    static uint64_t db[BIG_ITEMS];
    struct hist_log *lp[BIG_THREADS];
    uint64_t counter[BIG_THREADS] = {0};
    struct undo_rec {
        size_t i;
        uint64_t old;
    } undo[16];
    /* the last committed txn that wrote two items, x and y; x had version x_prev before */
    size_t skew_x = 0, skew_y = 0;
    uint64_t skew_x_prev = 0, skew_txn = 0;
    memset(db, 0, sizeof db);
    for (int t = 0; t < BIG_THREADS; t++) {
        hist_log_init(&logs[t]);
        lp[t] = &logs[t];
    }
    for (int n = 0; n < BIG_TXNS;) {
        int th = (int)(rng() % BIG_THREADS);
        struct hist_log *l = &logs[th];
        uint64_t id = TID(th, ++counter[th]);
        int nops = 1 + (int)(rng() % 16), nundo = 0;
        hist_txn_begin(l, id);
        for (int k = 0; k < nops; k++) {
            /* half the accesses go to a hot 1% of the items: long version chains */
            size_t range = rng() % 2 ? BIG_ITEMS / 100 : BIG_ITEMS;
            size_t i = rng() % range;
            if (rng() % 2) {
                append_item(l, HIST_READ, i, db[i]);
                continue;
            }
            append_item(l, HIST_WRITE, i, db[i]);
            if (db[i] != id) {
                undo[nundo++] = (struct undo_rec){i, db[i]};
                db[i] = id;
            }
        }
        if (rng() % 20 == 0) { /* abort: roll back, newest first */
            while (nundo--)
                db[undo[nundo].i] = undo[nundo].old;
            hist_txn_abort(l);
            continue;
        }
        if (nundo >= 2) {
            skew_x = undo[0].i;
            skew_x_prev = undo[0].old;
            skew_y = undo[1].i;
            skew_txn = id;
        }
        n++;
    }
    size_t nrec = 0;
    for (int t = 0; t < BIG_THREADS; t++)
        nrec += logs[t].n;
    struct hist_result res;
    double t0 = now_s();
    bool ok = hist_check(lp, BIG_THREADS, table_names, 2, HIST_LEVEL_SER, NULL, &res);
    double dt = now_s() - t0;
    CHECK(ok);
    CHECK_EQ_U(res.txns, BIG_TXNS);
    CHECK_EQ_U(res.txns + res.reads + res.writes, nrec);
    printf("  large serial history: %zu records, %zu edges, checked in %.3f s "
           "(%.1f M records/s)\n",
           nrec, res.edges, dt, (double)nrec / dt * 1e-6);

    CHECK(skew_txn != 0);
    hist_txn_begin(&logs[0], TID(0, ++counter[0]));
    append_item(&logs[0], HIST_READ, skew_x, skew_x_prev); /* before skew_txn */
    append_item(&logs[0], HIST_READ, skew_y, skew_txn);    /* after it */
    CHECK(!check_logs(lp, BIG_THREADS, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK_EQ_U(res.dirty_reads + res.lost_updates + res.stale_own, 0);
    CHECK(strstr(report, "cycle of 2 transactions") != NULL);
    for (int t = 0; t < BIG_THREADS; t++)
        hist_log_free(&logs[t]);
}

int main(void)
{
    RUN_CASE(test_log_grows);
    RUN_CASE(test_empty);
    RUN_CASE(test_serial);
    RUN_CASE(test_interleaved_serializable);
    RUN_CASE(test_write_skew);
    RUN_CASE(test_lost_update);
    RUN_CASE(test_dirty_read);
    RUN_CASE(test_stale_own_read);
    RUN_CASE(test_read_skew);
    RUN_CASE(test_wr_rw_cycle_on_columns);
    RUN_CASE(test_column_grain);
    RUN_CASE(test_malformed);
    RUN_CASE(test_large_serial);
    CHECK_EXIT();
}
