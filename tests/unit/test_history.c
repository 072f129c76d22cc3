/* Unit tests for the history checker (cc/history.c, cc/history_check.c): hand-made
 * histories with and without each anomaly, the column grain of items, item codes at their
 * limits, random small histories against a naive reference checker, and a large random
 * serial history that must pass quickly (and fail once an anomaly is appended). */
#include "cc/history.h"
#include "tests/unit/check.h"

#include <string.h>
#include <time.h>

#define TID(thread, n) ((uint64_t)(thread) << 40 | (uint64_t)(n))

static const char *const table_names[] = {"row", "acct"};
static char report[1 << 16]; /* the checker's output for the last check_logs */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One record of a hand-made history: BEGIN(log, id) begins transaction id on log `log`
 * (later records go there), TIMES(begin, commit) sets its begin and commit times, ABORT
 * aborts it, {'r' or 'w', table, key, col, wid} reads or writes the item; a write's new
 * version is the transaction's id unless nwid gives one (a per-write version id). */
struct op {
    char kind;
    uint16_t table;
    uint64_t key;
    uint16_t col;
    uint64_t wid;
    uint64_t nwid;
};

#define BEGIN(log, id) {'T', log, .wid = id}
#define TIMES(begin, commit) {'t', 0, .key = begin, .wid = commit}
#define ABORT {'A', 0, .wid = 0}
#define NLOGS 3

/* Checks the logs at `level`, keeping the printed report in `report`. */
static bool check_logs(struct hist_log *const *logs, int n, enum hist_level level,
                       struct hist_result *res)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    bool ok = hist_check(logs, n, table_names, 2, level, f, res);
    CHECK(ok == res->ok);
    report[0] = '\0';
    if (f) {
        rewind(f);
        report[fread(report, 1, sizeof report - 1, f)] = '\0';
        fclose(f);
    }
    return ok;
}

/* Builds the history ops[0 .. n) on NLOGS logs and checks it at `level`. */
static bool check_ops(const struct op *ops, size_t n, enum hist_level level,
                      struct hist_result *res)
{
    struct hist_log logs[NLOGS], *lp[NLOGS], *cur = &logs[0];
    uint64_t self = 0;
    for (int i = 0; i < NLOGS; i++) {
        hist_log_init(&logs[i]);
        lp[i] = &logs[i];
    }
    for (const struct op *o = ops; o < ops + n; o++) {
        if (o->kind == 'T') {
            cur = &logs[o->table];
            hist_txn_begin(cur, self = o->wid);
        } else if (o->kind == 't') {
            hist_txn_times(cur, o->key, o->wid);
        } else if (o->kind == 'A') {
            hist_txn_abort(cur);
        } else if (o->kind == 'r') {
            hist_append(cur, HIST_READ, o->table, o->key, o->col, o->wid, 0);
        } else {
            hist_append(cur, HIST_WRITE, o->table, o->key, o->col, o->wid,
                        o->nwid ? o->nwid : self);
        }
    }
    bool ok = check_logs(lp, NLOGS, level, res);
    for (int i = 0; i < NLOGS; i++)
        hist_log_free(&logs[i]);
    return ok;
}

#define CHECK_OPS(ops, level, res) check_ops(ops, sizeof(ops) / sizeof(ops)[0], level, res)
#define HAS(text) CHECK(strstr(report, text) != NULL)

static void test_log_grows(void)
{
    struct hist_log l;
    hist_log_init(&l);
    for (uint64_t i = 1; i <= 10000; i++) {
        hist_txn_begin(&l, i);
        hist_append(&l, HIST_WRITE, 0, i, 0, 0, i);
    }
    CHECK_EQ_U(l.n, 20000);
    CHECK(l.cap >= l.n);
    CHECK_EQ_U(l.recs[19999].key, 10000);
    hist_txn_begin(&l, 10001);
    hist_append(&l, HIST_READ, 0, 1, 0, 1, 0);
    hist_txn_abort(&l);
    CHECK_EQ_U(l.n, 20000);
    hist_log_free(&l);
    CHECK(l.recs == NULL && l.n == 0 && l.cap == 0);
}

static void test_empty(void)
{
    struct hist_result res;
    const struct op none[] = {BEGIN(0, 1)};
    CHECK(CHECK_OPS(none, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 1);
    CHECK(hist_check(NULL, 0, NULL, 0, HIST_LEVEL_SER, NULL, &res));
    CHECK_EQ_U(res.txns, 0);
}

static void test_serial(void)
{
    struct hist_result res;
    const struct op h[] = {
        BEGIN(0, 1), {'r', 0, 10, 0, 0, 0}, {'w', 0, 10, 0, 0, 0},
        {'r', 0, 10, 0, 1, 0}, {'w', 0, 10, 0, 1, 0}, /* own write, re-write */
        BEGIN(0, 2), {'r', 0, 10, 0, 1, 0}, {'w', 0, 10, 0, 1, 0}, {'w', 0, 11, 0, 0, 0},
        BEGIN(0, 3), {'r', 0, 11, 0, 2, 0}, {'r', 0, 10, 0, 2, 0},
    };
    CHECK(CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 3);
    CHECK_EQ_U(res.reads, 5);
    CHECK_EQ_U(res.writes, 4);
    CHECK_EQ_U(res.edges, 2); /* T1 -WR,WW-> T2, T2 -WR-> T3 twice: duplicates dropped */
    HAS("OK");
    CHECK(CHECK_OPS(h, HIST_LEVEL_RC, &res));
}

/* Interleaved in real time on two threads, conflict-equivalent to A, B, C. */
static void test_interleaved_serializable(void)
{
    struct hist_result res;
    const uint64_t a = TID(1, 1), b = TID(2, 1), c = TID(1, 2);
    const struct op h[] = {
        BEGIN(1, a), {'r', 0, 1, 0, 0, 0}, {'w', 0, 2, 0, 0, 0},
        BEGIN(2, b), {'r', 0, 2, 0, a, 0}, {'w', 0, 1, 0, 0, 0}, /* A -WR-> B, A -RW-> B */
        BEGIN(1, c), {'r', 0, 1, 0, b, 0}, {'r', 0, 2, 0, a, 0}, /* B -WR-> C, A -WR-> C */
    };
    CHECK(CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.txns, 3);
    CHECK_EQ_U(res.edges, 3);
}

static void test_write_skew(void)
{
    struct hist_result res;
    const struct op h[] = {
        BEGIN(1, TID(1, 1)), {'r', 0, 1, 0, 0, 0}, {'r', 0, 2, 0, 0, 0}, {'w', 0, 1, 0, 0, 0},
        BEGIN(2, TID(2, 1)), {'r', 0, 1, 0, 0, 0}, {'r', 0, 2, 0, 0, 0}, {'w', 0, 2, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK_EQ_U(res.dirty_reads + res.lost_updates + res.stale_own, 0);
    HAS("cycle of 2 transactions");
    HAS("-RW->");
    HAS("(thread 2, #1)");
    CHECK(CHECK_OPS(h, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.cycles, 0);
}

static void test_lost_update(void)
{
    struct hist_result res;
    const struct op h[] = {
        BEGIN(0, 1), {'r', 0, 5, 2, 0, 0}, {'w', 0, 5, 2, 0, 0},
        BEGIN(0, 2), {'r', 0, 5, 2, 0, 0}, {'w', 0, 5, 2, 0, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 1);
    HAS("lost update");
    HAS("row[key 5].col2");
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.lost_updates, 1);
}

static void test_dirty_read(void)
{
    struct hist_result res;
    const struct op aborted[] = {
        BEGIN(0, 1), {'w', 0, 1, 0, 0, 0}, ABORT, /* truncated from the log */
        BEGIN(0, 2), {'r', 0, 1, 0, 1, 0},
    };
    CHECK(!CHECK_OPS(aborted, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.txns, 1);
    CHECK_EQ_U(res.dirty_reads, 1);
    HAS("never committed");
    /* a write over the aborted version: the version order does not start at the loader */
    const struct op overwrite[] = {
        BEGIN(0, 1), {'w', 0, 1, 0, 0, 0}, ABORT,
        BEGIN(0, 2), {'w', 0, 1, 0, 1, 0},
        BEGIN(0, 3), {'r', 0, 1, 0, 2, 0}, /* fine: 2 did write the item */
    };
    CHECK(!CHECK_OPS(overwrite, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.dirty_reads, 1);
    /* a version of a committed transaction on an item it never wrote */
    const struct op phantom[] = {
        BEGIN(0, 1), {'w', 0, 1, 0, 0, 0},
        BEGIN(0, 2), {'r', 0, 1, 1, 1, 0},
    };
    CHECK(!CHECK_OPS(phantom, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.dirty_reads, 1);
    HAS("never wrote that item");
}

static void test_stale_own_read(void)
{
    struct hist_result res;
    const struct op h[] = {
        BEGIN(0, 1), {'r', 0, 1, 0, 0, 0}, {'w', 0, 1, 0, 0, 0}, {'r', 0, 1, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.stale_own, 1); /* the read after the write, not the one before */
    HAS("stale own read");
    /* a second write that replaced something other than its own version */
    const struct op rewrite[] = {BEGIN(0, 1), {'w', 0, 1, 0, 0, 0}, {'w', 0, 1, 0, 0, 0}};
    CHECK(!CHECK_OPS(rewrite, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.stale_own, 1);
    CHECK_EQ_U(res.lost_updates, 0);
}

/* T3 reads x before T2 and y after T2. */
static void test_read_skew(void)
{
    struct hist_result res;
    const struct op h[] = {
        BEGIN(0, 1), {'w', 0, 1, 0, 0, 0}, {'w', 0, 2, 0, 0, 0},
        BEGIN(0, 2), {'w', 0, 1, 0, 1, 0}, {'w', 0, 2, 0, 1, 0},
        BEGIN(0, 3), {'r', 0, 1, 0, 1, 0}, {'r', 0, 2, 0, 2, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    HAS("cycle of 2 transactions");
    CHECK(CHECK_OPS(h, HIST_LEVEL_RC, &res));
}

/* T1 -WR(col0)-> T2 -WR(col1)-> T3 -RW(col2)-> T1, all on row 7. */
static void test_wr_rw_cycle_on_columns(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), t2 = TID(1, 2), t3 = TID(1, 3);
    const struct op h[] = {
        BEGIN(1, t1), {'w', 0, 7, 0, 0, 0}, {'w', 0, 7, 2, 0, 0},
        BEGIN(1, t2), {'r', 0, 7, 0, t1, 0}, {'w', 0, 7, 1, 0, 0},
        BEGIN(1, t3), {'r', 0, 7, 1, t2, 0}, {'r', 0, 7, 2, 0, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    HAS("cycle of 3 transactions");
    HAS("-WR-> txn");
    HAS("-RW-> txn");
    HAS("row[key 7].col2");
    CHECK(CHECK_OPS(h, HIST_LEVEL_RC, &res));
}

/* Items are (table, key, col): other columns or tables of the same key never conflict. */
static void test_column_grain(void)
{
    struct hist_result res;
    const struct op skew_by_row[] = { /* a write skew at row grain, none at column grain */
        BEGIN(0, 1), {'r', 0, 3, 0, 0, 0}, {'w', 0, 3, 1, 0, 0},
        BEGIN(0, 2), {'r', 0, 3, 2, 0, 0}, {'w', 0, 3, 3, 0, 0}, {'w', 1, 3, 1, 0, 0},
    };
    CHECK(CHECK_OPS(skew_by_row, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.edges, 0);
    const struct op skew[] = { /* the same with T2 reading T1's column: a cycle */
        BEGIN(0, 1), {'r', 0, 3, 0, 0, 0}, {'w', 0, 3, 1, 0, 0},
        BEGIN(0, 2), {'r', 0, 3, 1, 0, 0}, {'w', 0, 3, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(skew, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    const struct op two_cols[] = { /* two writers of the loader's version, one a column */
        BEGIN(0, 1), {'w', 0, 3, 0, 0, 0},
        BEGIN(0, 2), {'w', 0, 3, 1, 0, 0},
    };
    CHECK(CHECK_OPS(two_cols, HIST_LEVEL_RC, &res));
    const struct op one_col[] = {
        BEGIN(0, 1), {'w', 0, 3, 1, 0, 0},
        BEGIN(0, 2), {'w', 0, 3, 1, 0, 0},
    };
    CHECK(!CHECK_OPS(one_col, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 1);
}

/* Item codes at their limits: full-width keys, the largest table and column numbers. */
static void test_extreme_items(void)
{
    struct hist_result res;
    const uint64_t max = UINT64_MAX;
    const struct op skew[] = { /* a write skew between the two extreme items */
        BEGIN(0, 1), {'r', 65535, max, 65535, 0, 0}, {'r', 0, 0, 0, 0, 0},
        {'w', 65535, max, 65535, 0, 0},
        BEGIN(0, 2), {'r', 65535, max, 65535, 0, 0}, {'r', 0, 0, 0, 0, 0}, {'w', 0, 0, 0, 0, 0},
        BEGIN(0, 3), /* neighbours of the extreme items, all distinct from them */
        {'w', 65535, max, 65534, 0, 0}, {'w', 65534, max, 65535, 0, 0}, {'w', 65535, max - 1, 65535, 0, 0},
        {'w', 0, 0, 1, 0, 0}, {'w', 1, 0, 0, 0, 0}, {'w', 0, 1, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(skew, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK_EQ_U(res.lost_updates, 0);
    HAS("table65535[key 18446744073709551615].col65535");
    HAS("row[key 0].col0");
    const struct op one_key[] = { /* the code is the table and column alone */
        BEGIN(0, 1), {'w', 0, 42, 0, 0, 0},
        BEGIN(0, 2), {'w', 1, 42, 0, 0, 0}, {'r', 0, 42, 0, 1, 0},
        BEGIN(0, 3), {'w', 1, 42, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(one_key, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.edges, 1);
    CHECK_EQ_U(res.lost_updates, 1);
    HAS("acct[key 42].col0");
    /* keys that differ only in code bits 64 or 70 (tbits = 7), each in a single digit */
    const uint64_t k64 = 5 + (UINT64_C(1) << 57), k70 = 5 + (UINT64_C(1) << 63);
    const struct op high_bits[] = {
        BEGIN(0, 1), {'w', 0, 0, 0, 0, 0}, {'w', 64, max, 0, 0, 0}, {'w', 0, 5, 0, 0, 0},
        BEGIN(0, 2), {'w', 0, k64, 0, 0, 0}, {'w', 0, k70, 0, 0, 0},
        BEGIN(0, 3), {'w', 0, 5, 0, 0, 0},
    };
    CHECK(!CHECK_OPS(high_bits, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 1);
}

static void test_malformed(void)
{
    struct hist_result res;
    const struct op outside[] = {{'r', 0, 1, 0, 0, 0}};
    CHECK(!CHECK_OPS(outside, HIST_LEVEL_RC, &res));
    HAS("malformed");
    const struct op duplicate[] = {BEGIN(0, 4), BEGIN(1, 4)};
    CHECK(!CHECK_OPS(duplicate, HIST_LEVEL_RC, &res));
    HAS("not unique");
}

/* G1b: T2 reads T1's first write of x although T1 overwrote x later (an intermediate
 * value that never committed), e.g. a Bamboo re-write after its lock was retired. */
static void test_intermediate_read(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), v1 = TID(1, 2), v2 = TID(1, 3), t2 = TID(2, 1);
    const struct op h[] = {
        BEGIN(1, t1), {'w', 0, 1, 0, 0, v1}, {'w', 0, 1, 0, v1, v2},
        BEGIN(2, t2), {'r', 0, 1, 0, v1, 0},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.intermediate, 1);
    HAS("intermediate read");
    HAS("which its writer overwrote later");
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.intermediate, 1);
    CHECK_EQ_U(res.cycles, 0);
    const struct op over[] = { /* a write over the intermediate version */
        BEGIN(1, t1), {'w', 0, 1, 0, 0, v1}, {'w', 0, 1, 0, v1, v2},
        BEGIN(2, t2), {'w', 0, 1, 0, v1, TID(2, 2)},
    };
    CHECK(!CHECK_OPS(over, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.intermediate, 1);
    HAS("intermediate write");
    /* near miss: the final write is read; the first write of another item is final */
    const struct op final[] = {
        BEGIN(1, t1), {'w', 0, 1, 0, 0, v1}, {'w', 0, 1, 0, v1, v2}, {'w', 0, 1, 1, 0, TID(1, 4)},
        BEGIN(2, t2), {'r', 0, 1, 0, v2, 0}, {'r', 0, 1, 1, TID(1, 4), 0},
    };
    CHECK(CHECK_OPS(final, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.intermediate, 0);
    CHECK_EQ_U(res.edges, 1);
    /* its own intermediate version, read before the re-write, is no anomaly */
    const struct op own[] = {
        BEGIN(1, t1), {'w', 0, 1, 0, 0, v1}, {'r', 0, 1, 0, v1, 0}, {'w', 0, 1, 0, v1, v2},
    };
    CHECK(CHECK_OPS(own, HIST_LEVEL_SER, &res));
    /* a read of its own older version after the re-write is stale */
    const struct op stale[] = {
        BEGIN(1, t1), {'w', 0, 1, 0, 0, v1}, {'w', 0, 1, 0, v1, v2}, {'r', 0, 1, 0, v1, 0},
    };
    CHECK(!CHECK_OPS(stale, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.stale_own, 1);
}

/* The classic lost update r1(x) w2(x) c2 w1(x) c1, caught at RC (no cycle search). */
static void test_lost_update_after_read(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), t2 = TID(2, 1), v1 = TID(1, 2), v2 = TID(2, 2);
    const struct op h[] = {
        BEGIN(1, t1), {'r', 0, 4, 0, 0, 0},
        BEGIN(2, t2), {'r', 0, 4, 0, 0, 0}, {'w', 0, 4, 0, 0, v2},
        BEGIN(1, t1 + 10), {'r', 0, 4, 0, 0, 0}, {'w', 0, 4, 0, v2, v1},
    };
    CHECK(!CHECK_OPS(h, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_rmw, 1);
    CHECK_EQ_U(res.lost_updates, 0);
    HAS("lost update");
    HAS("not the version it read of it before");
    CHECK(!CHECK_OPS(h, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.lost_rmw, 1);
    CHECK_EQ_U(res.cycles, 1);
    /* near misses: it re-read the new version before writing; it read another column */
    const struct op reread[] = {
        BEGIN(1, t1), {'r', 0, 4, 0, 0, 0},
        BEGIN(2, t2), {'w', 0, 4, 0, 0, v2},
        BEGIN(1, t1 + 10), {'r', 0, 4, 0, 0, 0}, {'r', 0, 4, 0, v2, 0}, {'w', 0, 4, 0, v2, v1},
    };
    CHECK(CHECK_OPS(reread, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_rmw, 0);
    const struct op other_col[] = {
        BEGIN(2, t2), {'w', 0, 4, 1, 0, v2},
        BEGIN(1, t1), {'r', 0, 4, 0, 0, 0}, {'w', 0, 4, 1, v2, v1},
    };
    CHECK(CHECK_OPS(other_col, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_rmw, 0);
}

/* Inserts and deletes as cc/txn.c records them: writes of every column, an insert over
 * the loader's "absent" version, a delete over the row's current versions. */
static void test_insert_delete(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), t2 = TID(2, 1);
    const struct op dup[] = { /* two committed inserts of key 9 */
        BEGIN(1, t1), {'w', 0, 9, 0, 0, TID(1, 2)}, {'w', 0, 9, 1, 0, TID(1, 3)},
        BEGIN(2, t2), {'w', 0, 9, 0, 0, TID(2, 2)}, {'w', 0, 9, 1, 0, TID(2, 3)},
    };
    CHECK(!CHECK_OPS(dup, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 2);
    const struct op ins_del[] = { /* near miss: the delete follows the insert */
        BEGIN(1, t1), {'w', 0, 9, 0, 0, TID(1, 2)}, {'w', 0, 9, 1, 0, TID(1, 3)},
        BEGIN(2, t2), {'w', 0, 9, 0, TID(1, 2), TID(2, 2)}, {'w', 0, 9, 1, TID(1, 3), TID(2, 3)},
    };
    CHECK(CHECK_OPS(ins_del, HIST_LEVEL_SER, &res));
    /* T1 saw row 5 present and T2's write of row 6, T2 deleted row 5: a cycle */
    const struct op del_read[] = {
        BEGIN(2, t2), {'w', 0, 5, 0, 0, TID(2, 2)}, {'w', 0, 5, 1, 0, TID(2, 3)},
        {'w', 0, 6, 0, 0, TID(2, 4)},
        BEGIN(1, t1), {'r', 0, 5, 0, 0, 0}, {'r', 0, 5, 1, 0, 0}, {'r', 0, 6, 0, TID(2, 4), 0},
    };
    CHECK(!CHECK_OPS(del_read, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    HAS("-RW->");
    const struct op del_read_ok[] = { /* near miss: T1 saw row 6 before T2 too */
        BEGIN(2, t2), {'w', 0, 5, 0, 0, TID(2, 2)}, {'w', 0, 5, 1, 0, TID(2, 3)},
        {'w', 0, 6, 0, 0, TID(2, 4)},
        BEGIN(1, t1), {'r', 0, 5, 0, 0, 0}, {'r', 0, 5, 1, 0, 0}, {'r', 0, 6, 0, 0, 0},
    };
    CHECK(CHECK_OPS(del_read_ok, HIST_LEVEL_SER, &res));
    const struct op two_deletes[] = { /* two committed deletes of one row */
        BEGIN(1, t1), {'w', 0, 5, 0, 0, TID(1, 2)}, {'w', 0, 5, 1, 0, TID(1, 3)},
        BEGIN(2, t2), {'w', 0, 5, 0, 0, TID(2, 2)}, {'w', 0, 5, 1, 0, TID(2, 3)},
    };
    CHECK(!CHECK_OPS(two_deletes, HIST_LEVEL_RC, &res));
    CHECK_EQ_U(res.lost_updates, 2);
}

/* Real-time order: T1 committed (time 2) before T2 began (3), yet T2 read x before T1's
 * write: serializable (T2 then T1), not strictly. Reported, never a failure. */
static void test_real_time(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), t2 = TID(2, 1);
    const struct op stale[] = {
        BEGIN(1, t1), TIMES(1, 2), {'w', 0, 3, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(3, 4), {'r', 0, 3, 0, 0, 0},
    };
    CHECK(CHECK_OPS(stale, HIST_LEVEL_SER, &res));
    CHECK(res.strict == 0);
    HAS("not strictly serializable");
    HAS("-RT->");
    HAS("committed before it began");
    const struct op fresh[] = { /* near miss: T2 reads T1's version */
        BEGIN(1, t1), TIMES(1, 2), {'w', 0, 3, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(3, 4), {'r', 0, 3, 0, TID(1, 2), 0},
    };
    CHECK(CHECK_OPS(fresh, HIST_LEVEL_SER, &res));
    CHECK(res.strict == 1);
    const struct op overlap[] = { /* near miss: T2 began when T1 committed: concurrent */
        BEGIN(1, t1), TIMES(1, 3), {'w', 0, 3, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(3, 4), {'r', 0, 3, 0, 0, 0},
    };
    CHECK(CHECK_OPS(overlap, HIST_LEVEL_SER, &res));
    CHECK(res.strict == 1);
    const struct op chain[] = { /* T1, T2 (overlapping) before T3 in time; T3 -RW-> T1 */
        BEGIN(1, t1), TIMES(1, 3), {'w', 0, 3, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(2, 6),
        BEGIN(0, TID(0, 1)), TIMES(9, 10), {'r', 0, 3, 0, 0, 0},
    };
    CHECK(CHECK_OPS(chain, HIST_LEVEL_SER, &res));
    CHECK(res.strict == 0);
    const struct op untimed[] = { /* a transaction without times: not checked */
        BEGIN(1, t1), TIMES(1, 2), {'w', 0, 3, 0, 0, TID(1, 2)},
        BEGIN(2, t2), {'r', 0, 3, 0, 0, 0},
    };
    CHECK(CHECK_OPS(untimed, HIST_LEVEL_SER, &res));
    CHECK(res.strict == -1);
    CHECK(CHECK_OPS(stale, HIST_LEVEL_RC, &res));
    CHECK(res.strict == -1);
}

/* HIST_LEVEL_STRICT (algorithms that claim strict serializability, NCC): T1 writes x and
 * commits (time 2) before T2 begins (3); T2 writes y; T3 (concurrent with both) reads y
 * from T2 and x from before T1. Serializable (T3 after T2, before T1; T1 and T2 do not
 * conflict), not strictly: a failure at this level only. */
static void test_strict_level(void)
{
    struct hist_result res;
    const uint64_t t1 = TID(1, 1), t2 = TID(2, 1), t3 = TID(0, 1);
    const struct op inverted[] = {
        BEGIN(1, t1), TIMES(1, 2), {'w', 0, 1, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(3, 4), {'w', 0, 2, 0, 0, TID(2, 2)},
        BEGIN(0, t3), TIMES(1, 5), {'r', 0, 2, 0, TID(2, 2), 0}, {'r', 0, 1, 0, 0, 0},
    };
    CHECK(CHECK_OPS(inverted, HIST_LEVEL_SER, &res));
    CHECK(res.strict == 0);
    CHECK(!CHECK_OPS(inverted, HIST_LEVEL_STRICT, &res));
    CHECK(!res.ok && res.cycles == 0 && res.strict == 0);
    HAS("history check (STRICT)");
    HAS(": FAIL");
    const struct op in_order[] = { /* near miss: T3 reads T1's x too */
        BEGIN(1, t1), TIMES(1, 2), {'w', 0, 1, 0, 0, TID(1, 2)},
        BEGIN(2, t2), TIMES(3, 4), {'w', 0, 2, 0, 0, TID(2, 2)},
        BEGIN(0, t3), TIMES(1, 5), {'r', 0, 2, 0, TID(2, 2), 0}, {'r', 0, 1, 0, TID(1, 2), 0},
    };
    CHECK(CHECK_OPS(in_order, HIST_LEVEL_STRICT, &res));
    CHECK(res.strict == 1);
}

/* ---- random small histories against a naive reference ---- */

#define REF_TXNS 8
#define REF_OPS 5
#define REF_ITEMS 6 /* row[key i / 2].col(i % 2) */

struct ref_op {
    bool write;
    int item;
    uint64_t wid;
};

struct ref_txn {
    uint64_t id;
    int nops;
    struct ref_op ops[REF_OPS];
};

static int ref_find(const struct ref_txn *tx, int m, uint64_t id)
{
    for (int k = 0; k < m; k++)
        if (tx[k].id == id)
            return k;
    return -1;
}

static bool ref_wrote(const struct ref_txn *t, int item, int before)
{
    for (int j = 0; j < before; j++)
        if (t->ops[j].write && t->ops[j].item == item)
            return true;
    return false;
}

/* The first write of an item by tx[k] replacing a usable version: its version, else -1. */
static int64_t ref_replaced(const struct ref_txn *tx, int m, int k, int j)
{
    const struct ref_op *o = &tx[k].ops[j];
    if (!o->write || ref_wrote(&tx[k], o->item, j) || o->wid == tx[k].id)
        return -1;
    return o->wid == 0 || ref_find(tx, m, o->wid) >= 0 ? (int64_t)o->wid : -1;
}

/* The checker's definitions, computed the obvious quadratic way. */
static void ref_check(const struct ref_txn *tx, int m, struct hist_result *res)
{
    bool reach[REF_TXNS][REF_TXNS] = {{false}};
    memset(res, 0, sizeof *res);
    for (int k = 0; k < m; k++) {
        for (int j = 0; j < tx[k].nops; j++) {
            const struct ref_op *o = &tx[k].ops[j];
            bool mine = ref_wrote(&tx[k], o->item, j);
            if (o->write && mine) {
                res->stale_own += o->wid != tx[k].id;
                continue;
            }
            if (o->wid == tx[k].id)
                continue;
            res->stale_own += !o->write && mine;
            int w = ref_find(tx, m, o->wid);
            if (o->wid != 0 && (w < 0 || !ref_wrote(&tx[w], o->item, tx[w].nops))) {
                res->dirty_reads++;
                if (w < 0 || !o->write)
                    continue;
            }
            if (w >= 0)
                reach[w][k] = true; /* WW or WR */
            for (int k2 = 0; k2 < m && !o->write; k2++)
                for (int j2 = 0; j2 < tx[k2].nops; j2++)
                    if (k2 != k && tx[k2].ops[j2].item == o->item &&
                        ref_replaced(tx, m, k2, j2) == (int64_t)o->wid)
                        reach[k][k2] = true; /* RW */
        }
    }
    for (int item = 0; item < REF_ITEMS; item++) {
        bool lost = false;
        for (int k = 0; k < m; k++)
            for (int j = 0; j < tx[k].nops; j++)
                for (int k2 = k + 1; k2 < m; k2++)
                    for (int j2 = 0; j2 < tx[k2].nops; j2++)
                        lost |= tx[k].ops[j].item == item && tx[k2].ops[j2].item == item &&
                                ref_replaced(tx, m, k, j) >= 0 &&
                                ref_replaced(tx, m, k, j) == ref_replaced(tx, m, k2, j2);
        res->lost_updates += lost;
    }
    for (int x = 0; x < m; x++)
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++)
                reach[a][b] |= reach[a][x] && reach[x][b];
    for (int k = 0; k < m; k++)
        res->cycles |= reach[k][k];
}

/* A random history of REF_TXNS attempts over few items on 3 threads: reads and writes
 * mostly of the latest committed version, some of older, own, aborted or other ones. */
static int gen_history(struct hist_log *logs, struct ref_txn *tx)
{
    uint64_t versions[REF_ITEMS][REF_TXNS + 1], aborted[REF_TXNS], counter[3] = {0};
    int nver[REF_ITEMS], naborted = 0, m = 0;
    for (int i = 0; i < REF_ITEMS; i++) {
        versions[i][0] = 0;
        nver[i] = 1;
    }
    for (int a = 0; a < REF_TXNS; a++) {
        int th = (int)(rng() % 3);
        struct ref_txn *t = &tx[m];
        t->id = TID(th, ++counter[th]);
        t->nops = 1 + (int)(rng() % REF_OPS);
        hist_txn_begin(&logs[th], t->id);
        for (int j = 0; j < t->nops; j++) {
            struct ref_op *o = &t->ops[j];
            int r = (int)(rng() % 100);
            o->write = rng() % 2;
            o->item = (int)(rng() % REF_ITEMS);
            if (ref_wrote(t, o->item, j) && r < 85)
                o->wid = t->id;
            else if (r < 75)
                o->wid = versions[o->item][nver[o->item] - 1];
            else if (r < 98)
                o->wid = versions[o->item][rng() % (uint64_t)nver[o->item]];
            else if (r < 99 && naborted)
                o->wid = aborted[rng() % (uint64_t)naborted];
            else
                o->wid = m ? tx[rng() % (uint64_t)m].id : 0;
            hist_append(&logs[th], o->write ? HIST_WRITE : HIST_READ, 0,
                        (uint64_t)o->item / 2, (uint16_t)(o->item % 2), o->wid,
                        o->write ? t->id : 0);
        }
        if (rng() % 7 == 0) {
            hist_txn_abort(&logs[th]);
            aborted[naborted++] = t->id;
            continue;
        }
        for (int j = 0; j < t->nops; j++)
            if (t->ops[j].write && !ref_wrote(t, t->ops[j].item, j))
                versions[t->ops[j].item][nver[t->ops[j].item]++] = t->id;
        m++;
    }
    return m;
}

static void test_random_vs_reference(void)
{
    size_t seen_cycles = 0, seen_dirty = 0, seen_lost = 0, seen_stale = 0, seen_ok = 0;
    for (int iter = 0; iter < 20000; iter++) {
        struct hist_log logs[3];
        struct hist_log *lp[3] = {&logs[0], &logs[1], &logs[2]};
        struct ref_txn tx[REF_TXNS];
        struct hist_result got, want;
        for (int t = 0; t < 3; t++)
            hist_log_init(&logs[t]);
        int m = gen_history(logs, tx);
        ref_check(tx, m, &want);
        hist_check(lp, 3, table_names, 2, HIST_LEVEL_SER, NULL, &got);
        CHECK_EQ_U(got.txns, m);
        CHECK_EQ_U(got.dirty_reads, want.dirty_reads);
        CHECK_EQ_U(got.lost_updates, want.lost_updates);
        CHECK_EQ_U(got.stale_own, want.stale_own);
        /* with dirty versions or forks the checker keeps fewer edges than the reference */
        if (!want.dirty_reads && !want.lost_updates)
            CHECK_EQ_U(got.cycles, want.cycles);
        for (int t = 0; t < 3; t++)
            hist_log_free(&logs[t]);
        if (check_case_failed) {
            printf("  differs at iteration %d\n", iter);
            return;
        }
        seen_cycles += got.cycles && !got.dirty_reads && !got.lost_updates;
        seen_dirty += got.dirty_reads > 0;
        seen_lost += got.lost_updates > 0;
        seen_stale += got.stale_own > 0;
        seen_ok += got.ok;
    }
    /* each outcome occurs often enough to be exercised */
    CHECK(seen_cycles > 1000 && seen_dirty > 1000 && seen_lost > 1000 && seen_stale > 1000);
    CHECK(seen_ok > 1000);
}

/* ---- large random serial history ---- */

#define BIG_THREADS 8
#define BIG_TXNS 200000
#define BIG_KEYS 5000
#define BIG_COLS 4
#define BIG_ITEMS (2 * BIG_KEYS * BIG_COLS)

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Appends an access of item i (an index into the database of wids); a write's new
 * version is nwid. */
static void append_item(struct hist_log *l, enum hist_kind kind, size_t i, uint64_t wid,
                        uint64_t nwid)
{
    hist_append(l, kind, (uint16_t)(i / (BIG_KEYS * BIG_COLS)), i / BIG_COLS % BIG_KEYS,
                (uint16_t)(i % BIG_COLS), wid, nwid);
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
    /* the last committed txn that wrote two items, x and y; x had version x_prev before,
     * y_ver is its last version of y */
    size_t skew_x = 0, skew_y = 0;
    uint64_t skew_x_prev = 0, skew_y_ver = 0, clock = 0;
    memset(db, 0, sizeof db);
    for (int t = 0; t < BIG_THREADS; t++) {
        hist_log_init(&logs[t]);
        lp[t] = &logs[t];
    }
    for (int n = 0; n < BIG_TXNS;) {
        int th = (int)(rng() % BIG_THREADS);
        struct hist_log *l = &logs[th];
        int nops = 1 + (int)(rng() % 16), nundo = 0;
        hist_txn_begin(l, TID(th, ++counter[th]));
        hist_txn_times(l, clock + 1, clock + 2); /* one after the other: strict */
        clock += 2;
        for (int k = 0; k < nops; k++) {
            /* half the accesses go to a hot 1% of the items: long version chains */
            size_t range = rng() % 2 ? BIG_ITEMS / 100 : BIG_ITEMS;
            size_t i = rng() % range;
            if (rng() % 2) {
                append_item(l, HIST_READ, i, db[i], 0);
                continue;
            }
            uint64_t v = TID(th, ++counter[th]); /* every write a new version */
            append_item(l, HIST_WRITE, i, db[i], v);
            undo[nundo++] = (struct undo_rec){i, db[i]};
            db[i] = v;
        }
        if (rng() % 20 == 0) { /* abort: roll back, newest first */
            while (nundo--)
                db[undo[nundo].i] = undo[nundo].old;
            hist_txn_abort(l);
            continue;
        }
        for (int k = 1; k < nundo; k++) {
            if (undo[k].i != undo[0].i) {
                skew_x = undo[0].i;
                skew_x_prev = undo[0].old;
                skew_y = undo[k].i;
                skew_y_ver = db[skew_y];
                break;
            }
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
    CHECK_EQ_U(res.strict, 1);
    CHECK(dt < 20); /* about 0.3 s (1 s under sanitizers): only a blow-up fails */
    CHECK_EQ_U(res.txns, BIG_TXNS);
    CHECK_EQ_U(res.txns + res.reads + res.writes, nrec);
    printf("  large serial history: %zu records, %zu edges, checked in %.3f s "
           "(%.1f M records/s)\n",
           nrec, res.edges, dt, (double)nrec / dt * 1e-6);

    CHECK(skew_y_ver != 0);
    hist_txn_begin(&logs[0], TID(0, ++counter[0]));
    append_item(&logs[0], HIST_READ, skew_x, skew_x_prev, 0); /* before the skew txn */
    append_item(&logs[0], HIST_READ, skew_y, skew_y_ver, 0);  /* after it */
    CHECK(!check_logs(lp, BIG_THREADS, HIST_LEVEL_SER, &res));
    CHECK_EQ_U(res.cycles, 1);
    CHECK_EQ_U(res.dirty_reads + res.lost_updates + res.stale_own, 0);
    HAS("cycle of 2 transactions");
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
    RUN_CASE(test_extreme_items);
    RUN_CASE(test_malformed);
    RUN_CASE(test_intermediate_read);
    RUN_CASE(test_lost_update_after_read);
    RUN_CASE(test_insert_delete);
    RUN_CASE(test_real_time);
    RUN_CASE(test_strict_level);
    RUN_CASE(test_random_vs_reference);
    RUN_CASE(test_large_serial);
    CHECK_EXIT();
}
