/* TICTOC: data-driven timestamp OCC (Yu et al., SIGMOD'16).
 *
 * Row state: one 64-bit word in the row's metadata slot, with the read timestamp
 * delta-encoded as in the paper's timestamp compression (Section 3.6):
 *
 *     63   62          48 47                          0
 *    +----+--------------+-----------------------------+
 *    |lock| delta (15 b) |            wts              |
 *    +----+--------------+-----------------------------+     rts = wts + delta
 *
 *   wts: the commit timestamp of the version the row holds; rts: the last timestamp at
 *   which that version is known valid. Only the holder of the lock bit writes wts and
 *   the data (a committer: CAS sets the lock bit, install, one release store of
 *   wts = rts = commit_ts that also unlocks; an aborting committer clears the bit). Any
 *   validating reader may extend rts of an unlocked row with a CAS; when the delta would
 *   overflow it moves wts up instead (same data, a later first valid time: readers that
 *   saw the old wts then fail validation, which is safe). An inserter sets the word of
 *   its row while the row is still private. 48 bits of wts last centuries at any
 *   commit rate this machine reaches (commit_ts grows by at most one per commit).
 *
 * Read phase: each first access takes a private copy of the row with the optimistic
 * protocol (word acquire, relaxed copy, acquire fence, re-load; retry while locked or
 * wts changed) and remembers wts in a->cc_a and rts in a->cc_b. Writes go to the copy.
 *
 * Commit (the paper's Algorithm 2 and 3):
 *   Step 1: lock the write set (ACC_WRITE, ACC_DELETE) in row-address order, no-wait.
 *           Every write is a read-modify-write, so the lock also checks that wts is the
 *           one the copy was taken at.
 *   Step 2: commit_ts = max(wts of every entry read, rts + 1 of every entry written).
 *   Step 3: validate the read set (ACC_READ) whose rts < commit_ts: abort if wts changed
 *           or another committer holds the lock, else extend rts to commit_ts.
 *   Step 4: install the written columns, publish inserts/deletes (txn_publish) under the
 *           locks, then unlock each row with wts = rts = commit_ts.
 *
 * Abort paths: cc_access never aborts (it waits while a row is locked; the generic layer
 * aborts with AR_DELETED on a deleted row). In commit: a write-set row locked by another
 * committer -> AR_WRITE_LOCK; a write-set row whose wts changed, or a read-set row changed
 * or locked while its rts must be extended -> AR_VALIDATION. cc_abort clears the lock bit
 * of every row this attempt locked (ACC_LOCKED in cc_flags), so it copes with a commit
 * that failed half way; nothing was installed before Step 4, which cannot fail. Extending
 * rts is never undone (harmless).
 *
 * Lock order: write-set rows by address; locks are only tried, never waited for.
 */
#include <stdlib.h>

#include "cc/ts_store.h"
#include "cc/txn.h"
#include "storage/shared_writes.h"

const char cc_alg_name[] = "TICTOC";
const bool cc_alg_serializable = true;
/* A read's word is often written at commit: a commit timestamp past its rts extends it
 * (validate_read's CAS), so txn_prefetch requests the row's first line exclusive
 * (YCSB theta 0.6, 90% reads, 2 threads: 1.11x). The sketch keeps the word off the row. */
const bool cc_alg_reads_write_meta = !TS_STORE_SKETCH;
/* Every first access takes a private copy of the whole row (occ_read): a prefetch
 * requests every line (txn_prefetch). */
const bool cc_alg_copies_rows = true;
/* Network rounds (cc/netmodel.h): as distributed OCC, execute / prepare (lock, validate)
 * / commit (install, unlock): 3 rounds, 2 RTTs. */
const struct cc_net_rounds cc_net_rounds = {.prepare = true, .decides_in_commit = true};

#define TS_LOCK ((uint64_t)1 << 63)
#define DELTA_SHIFT 48
#define DELTA_MAX ((uint64_t)0x7fff)
#define WTS_MASK (((uint64_t)1 << DELTA_SHIFT) - 1)
#define ACC_LOCKED 1          /* a->cc_flags: this attempt holds the row's lock bit (besides
                               * the store's TS_ACC_HELD and TS_ACC_META, cc/ts_store.h) */

const char *const cc_alg_counter_names[CC_ALG_COUNTERS] = {TS_COUNTER_NAMES};
/* The storage model (storage/storage_model.h): with the row store the timestamps are
 * metadata on storage; the sketch keeps them in memory. */
const bool cc_alg_ts_on_storage = !TS_STORE_SKETCH;
_Static_assert(TS_ROW_META_BYTES <= CC_META_SIZE || !TS_STORE_SKETCH,
               "tictoc: CC_META_SIZE too small");
_Static_assert(sizeof(uint64_t) <= CC_META_SIZE, "tictoc: CC_META_SIZE too small");

/* The key's word: w[0] of its timestamp-store entry (the row store: the row's slot). */
static inline _Atomic uint64_t *acc_word(const struct access *a)
{
    return &((struct ts_entry *)a->cc_ptr)->w[0];
}
static inline uint64_t w_wts(uint64_t w)
{
    return w & WTS_MASK;
}
static inline uint64_t w_rts(uint64_t w)
{
    return (w & WTS_MASK) + ((w >> DELTA_SHIFT) & DELTA_MAX);
}

/* The timestamp store's view of the word (cc/ts_store.h); nobody holds the key. */
void cc_ts_fold(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    uint64_t v = atomic_load_explicit(&e->w[0], memory_order_relaxed);
    *wts = w_wts(v);
    *rts = w_rts(v);
}
void cc_ts_unfold(struct ts_entry *e, uint64_t wts, uint64_t rts)
{
    /* the bounds of wts and rts are separate maxima: rts may be the smaller one */
    if (rts < wts)
        rts = wts;
    if (rts - wts > DELTA_MAX) /* compression: a later wts, as validate_read does */
        wts = rts - DELTA_MAX;
    atomic_store_explicit(&e->w[0], (rts - wts) << DELTA_SHIFT | wts, memory_order_relaxed);
}

void cc_init(int nthreads)
{
    ts_store_init(nthreads);
}
void cc_fini(void)
{
    ts_store_fini();
}
void cc_report_json(FILE *f)
{
    fputs("{\"ts_store\":", f);
    ts_store_json(f);
    fputc('}', f);
}
void cc_thread_init(struct txn *t)
{
    (void)t;
}
void cc_thread_fini(struct txn *t)
{
    (void)t;
}
void cc_row_init(struct row *r)
{
    ts_row_init(r);
}

void cc_begin(struct txn *t, bool retry)
{
    (void)t;
    (void)retry;
}

/* ---- Read phase (Algorithm 1) ---- */

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (a->type == ACC_NONE) {
        ts_access_begin(t, a);
    }
    if (occ_access_private(a, type)) /* upgrade or insert */
        return RC_OK;
    /* wts stable over the copy; rts may have been extended meanwhile */
    uint64_t v = occ_read(t, a, type, acc_word(a), TS_LOCK, TS_LOCK | WTS_MASK);
    a->cc_a = w_wts(v);
    a->cc_b = w_rts(v);
    return RC_OK;
}

/* ---- Validation phase (Algorithm 2) and write phase (Algorithm 3) ---- */


/* Extends rts of the version read by a to at least ts (Step 3 for one entry). */
static enum rc validate_read(struct txn *t, struct access *a, uint64_t ts)
{
    _Atomic uint64_t *w = acc_word(a);
    /* seq_cst: with the seq_cst lock CAS of Step 1 it orders our locks before this read
     * (two committers that read each other's written rows see each other's lock) */
    uint64_t v = atomic_load(w);
    for (;;) {
        if (w_wts(v) != a->cc_a)
            return txn_fail(t, AR_VALIDATION);
        if (w_rts(v) >= ts)
            return RC_OK; /* already valid at ts */
        if (v & TS_LOCK)
            return txn_fail(t, AR_VALIDATION);
        uint64_t wts = w_wts(v), delta = ts - wts;
        if (delta > DELTA_MAX) { /* compression: move wts up, keep the data */
            wts = ts - DELTA_MAX;
            delta = DELTA_MAX;
        }
        SHW(SHW_ROW);
        if (atomic_compare_exchange_weak(w, &v, delta << DELTA_SHIFT | wts)) {
            a->cc_flags |= TS_ACC_META; /* rts raised */
            return RC_OK;
        }
    }
}


/* Sketch store: counts a failed commit whose commit timestamp (as the stamps seen at
 * the reads make it) the sketch's bounds raised above what exact stamps give: an upper
 * bound of the aborts the sketch added (a higher commit timestamp must extend more read
 * timestamps, which can fail). */
static void count_sketch_abort(struct txn *t)
{
    if (!TS_STORE_SKETCH || (t->reason != AR_VALIDATION && t->reason != AR_WRITE_LOCK))
        return;
    uint64_t ts = 0, exact = 0;
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->type == ACC_INSERT || !(a->cc_flags & TS_ACC_HELD))
            continue;
        uint64_t w = a->cc_a, r = a->cc_b;
        uint64_t need = a->type == ACC_READ ? w : r + 1;
        ts = need > ts ? need : ts;
        ts_exact(a->cc_ptr, &w, &r);
        need = a->type == ACC_READ ? w : r + 1;
        exact = need > exact ? need : exact;
    }
    if (ts > exact)
        t->st.alg[TS_CTR_FALSE_ABORTS]++;
}

enum rc cc_commit(struct txn *t)
{
    /* one scan: write set ws[0, nw) (locked, installed), read set rs[0, nr) (validated) */
    uint32_t n = t->nacc, nw = 0, nr = 0;
    struct access **ws = txn_alloc(t, 2 * (size_t)n * sizeof(*ws)), **rs = ws + n;
    uint64_t ts = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct access *a = &t->acc[i];
        if (a->type == ACC_READ) {
            rs[nr++] = a;
            if (a->cc_a > ts) /* Step 2: wts of every entry read */
                ts = a->cc_a;
        } else if (a->type != ACC_INSERT) { /* ACC_WRITE, ACC_DELETE */
            ws[nw++] = a;
        }
    }
    txn_sort_by_row(ws, nw);

    /* Step 1: lock the write set in address order, no-wait. seq_cst CAS: see
     * validate_read */
    for (uint32_t i = 0; i < nw; i++) {
        struct access *a = ws[i];
        _Atomic uint64_t *w = acc_word(a);
        /* relaxed: a first guess for the CAS, which decides */
        uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
        do {
            if (w_wts(v) != a->cc_a)
                return txn_fail(t, AR_VALIDATION);
            if (v & TS_LOCK)
                return txn_fail(t, AR_WRITE_LOCK);
            SHW(SHW_ROW);
        } while (!atomic_compare_exchange_weak(w, &v, v | TS_LOCK));
        a->cc_flags |= ACC_LOCKED;
        /* Step 2: rts + 1 of every entry written (stable while we hold the lock) */
#ifndef MUTANT_TICTOC_IGNORE_WRITE_RTS /* mutant: commit_ts ignores the rows written */
        if (w_rts(v) + 1 > ts)
            ts = w_rts(v) + 1;
#endif
    }

    /* Step 3: validate the read set where commit_ts is past the rts we saw */
#ifdef MUTANT_TICTOC_SKIP_READ_VALIDATION /* mutant: no read-set validation */
    nr = 0;
#endif
    /* the words to extend requested exclusive at once, so their misses overlap: each
     * compare-and-swap of validate_read is a full barrier and would wait for its own */
    for (uint32_t i = 0; i < nr; i++)
        if (rs[i]->cc_b < ts)
            __builtin_prefetch(acc_word(rs[i]), 1);
    for (uint32_t i = 0; i < nr; i++)
        if (rs[i]->cc_b < ts && validate_read(t, rs[i], ts) != RC_OK)
            return RC_ABORT;

    txn_net_decision(t); /* network model: write locks held till the commit arrives */
    /* Step 4: install, publish, unlock with wts = rts = ts (the word's metadata changed:
     * TS_ACC_META) */
    occ_install(t, ws, nw, acc_word, ts, TS_ACC_META);
    ts_access_end_all(t, false); /* after the locks: the marks, the entries */
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & ACC_LOCKED) {
            _Atomic uint64_t *w = acc_word(a);
            /* relaxed load: we hold the lock, nobody else writes the word. release
             * store: unlocks the unchanged version; pairs with the acquire load of
             * occ_read (nothing was installed) */
            uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
            SHW(SHW_ROW);
            atomic_store_explicit(w, v & ~TS_LOCK, memory_order_release);
            a->cc_flags &= (uint16_t)~ACC_LOCKED;
        }
    }
    count_sketch_abort(t);
    ts_access_end_all(t, true);
}
