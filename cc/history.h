/* History recording for --verify and the offline serializability checker.
 *
 * With --verify every column of every row carries a hidden 8-byte writer id (wid) next to
 * its value, written by each write as part of the new image, so a read observes the wid
 * through the algorithm's own protocol exactly as it observes the data. Every write gets
 * a fresh, non-zero, unique version id (so a read of an intermediate write is visible);
 * wid 0 is the version written by the loader, which for a key the loader did not create
 * is "absent". Every attempt of a transaction gets a fresh unique id too; attempt ids and
 * version ids come from one per-thread counter, so they never collide. The data items
 * are (table, key, column).
 *
 * Each worker thread owns one struct hist_log. A transaction attempt appends one HIST_TXN
 * record followed by its HIST_READ / HIST_WRITE records in program order; an abort
 * truncates the log back to the HIST_TXN record, so the log holds committed transactions
 * only.
 *   HIST_TXN   wid: the attempt's id; key: its begin time, nwid: its commit time
 *              (CLOCK_MONOTONIC ns taken before it began / after its commit returned,
 *              or, under the network model, at its decision, when the client learnt the
 *              outcome; 0 when unknown, which turns the real-time check off).
 *   HIST_READ  (table, key, col, wid): the attempt read the version wid.
 *   HIST_WRITE (table, key, col, wid, nwid): the attempt replaced version wid by its new
 *              version nwid. An insert writes every column of the new row (replacing the
 *              loader's "absent" version), a delete every column of the row (its versions
 *              are never read: an access to a deleted row aborts).
 * A read of the attempt's own write has wid == that write's nwid; a second write of the
 * same item replaces the attempt's previous version of it. A write whose nwid is the
 * attempt's own id (hand-made histories) names the attempt's version of that item, the
 * same for all of its writes.
 *
 * The log grows with realloc: verify runs are correctness runs, not measured runs.
 */
#ifndef CC_HISTORY_H
#define CC_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hist_kind { HIST_TXN = 0, HIST_READ = 1, HIST_WRITE = 2 };

struct hist_rec {
    uint64_t key;   /* row key within its table (HIST_TXN: begin time) */
    uint64_t wid;   /* see the file comment */
    uint64_t nwid;  /* HIST_WRITE: the new version; HIST_TXN: commit time; else 0 */
    uint16_t table; /* table id (index into the table-name array given to the checker) */
    uint16_t col;   /* column number */
    uint8_t kind;   /* enum hist_kind */
};

struct hist_log {
    struct hist_rec *recs;
    size_t n, cap;
    size_t txn_start; /* index of the current attempt's HIST_TXN record */
};

void hist_log_init(struct hist_log *l);
void hist_log_free(struct hist_log *l);
void hist_log_grow(struct hist_log *l);

static inline void hist_append(struct hist_log *l, enum hist_kind kind, uint16_t table,
                               uint64_t key, uint16_t col, uint64_t wid, uint64_t nwid)
{
    if (l->n == l->cap)
        hist_log_grow(l);
    struct hist_rec *r = &l->recs[l->n++];
    r->key = key;
    r->wid = wid;
    r->nwid = nwid;
    r->table = table;
    r->col = col;
    r->kind = (uint8_t)kind;
}

static inline void hist_txn_begin(struct hist_log *l, uint64_t txn_id)
{
    l->txn_start = l->n;
    hist_append(l, HIST_TXN, 0, 0, 0, txn_id, 0);
}

/* Sets the current attempt's begin and commit times (see HIST_TXN). */
static inline void hist_txn_times(struct hist_log *l, uint64_t begin, uint64_t commit)
{
    l->recs[l->txn_start].key = begin;
    l->recs[l->txn_start].nwid = commit;
}

/* Drops the current attempt's records (called on abort). */
static inline void hist_txn_abort(struct hist_log *l) { l->n = l->txn_start; }

/* What the check demands. */
enum hist_level {
    HIST_LEVEL_STRICT, /* HIST_LEVEL_SER, and strict: no cycle with the real-time edges */
    HIST_LEVEL_SER, /* conflict serializable: no cycle over WR/WW/RW edges, plus the below */
    HIST_LEVEL_RC   /* no dirty/aborted/intermediate read, no lost update (two writers of
                     * one version, or a write of an item over a version other than the
                     * one the writer read), no stale read of own write */
};

struct hist_result {
    size_t txns;           /* committed transactions in the logs */
    size_t reads, writes;  /* records checked */
    size_t edges;          /* dependency edges built (self edges excluded) */
    size_t dirty_reads;    /* reads of a wid that is neither 0 nor a committed txn */
    size_t lost_updates;   /* items where two committed writers replaced the same version */
    size_t stale_own;      /* reads of an item older than the reader's own earlier write */
    size_t intermediate;   /* reads or overwrites of a version its writer later overwrote
                            * itself (G1b: the reader saw a value that never committed) */
    size_t lost_rmw;       /* first writes of an item over a version other than the one the
                            * writer read of it before (r1(x) w2(x) c2 w1(x) c1) */
    size_t cycles;         /* 0 or 1: whether a cycle was found (the first one is printed) */
    int strict;            /* real-time order: 1 strictly serializable (no cycle over the
                            * edges plus T1 -> T2 for T1 committed before T2 began), 0 not
                            * (a failure at HIST_LEVEL_STRICT only), -1 not checked (RC
                            * level, a cycle already, or a transaction without times) */
    bool ok;
};

/* Checks the union of `nlogs` logs. Prints a human report of every violation kind found
 * (the first few instances of each and the first cycle: its transactions and the items
 * on each edge) to `out`, which may be NULL. table_names[t] names table t in messages.
 * Returns res->ok. Memory use is linear in the number of records. */
bool hist_check(struct hist_log *const *logs, int nlogs, const char *const *table_names,
                int ntables, enum hist_level level, FILE *out, struct hist_result *res);
/* The checker checks itself: on hand-made two-transaction histories, a cycle of each edge
 * kind alone (WW over blind writes, WR, RW) must be found and a serial history must pass.
 * A run's own history may never exercise an edge kind (when every write is a
 * read-modify-write, each WW edge comes with a WR edge), so --verify runs this first and a
 * checker that lost an edge kind fails every run. Prints what it missed to `out` (may be
 * NULL); true when all cases came out right. */
bool hist_self_test(FILE *out);

#endif
