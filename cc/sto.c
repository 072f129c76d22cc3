/* STO: strict timestamp ordering (Bernstein & Goodman; seed 002's STO), over a timestamp
 * store (cc/ts_store.h: `row` or `sketch`, chosen by the variant).
 *
 * Each attempt takes a timestamp ts at begin (txn_priority_ts: unique, no shared write);
 * a retry takes a new one (with the old one it would meet the same late stamps again).
 * Conflicting operations execute in timestamp order; an operation that arrives too late
 * aborts its transaction (AR_TS_ORDER). Strict: a transaction reads only committed data,
 * so nothing cascades.
 *
 * Key state (one ts_entry of three words, all under the latch bit):
 *     w[0]  bit 63: latch (TS_LATCH, cc/ts_store.h); bits 0..62: ts of the pending
 *           (uncommitted) writer, 0: none
 *     w[1]  wts: commit ts of the committed version the row holds
 *     w[2]  rts: the largest ts that read it (or wrote over it)
 *
 * Invariants (each holds whenever the latch is free):
 *   I1 The row's data is the committed version whose commit ts is wts; it changes only
 *      under the latch, together with wts (so a reader's copy under the latch is one
 *      version, and its ts >= wts).
 *   I2 At most one pending writer per key; it passed ts >= wts and ts >= rts when it
 *      claimed the key, and keeps the claim until it commits or aborts. A read at
 *      ts > pending waits for the writer's end (reads of uncommitted writes wait); a read
 *      at ts < pending reads the committed version (it is ordered before the writer).
 *   I3 wts and rts only grow (both stamps are monotone, as the sketch store needs).
 *   I4 A write claim at ts is refused (abort) when ts < wts or ts < rts (a later
 *      transaction already wrote or read the key), or when a pending writer has a
 *      larger ts; it waits when the pending writer is older.
 *
 * Rules: read at ts: abort if ts < wts; wait while an older writer is pending; else
 * rts = max(rts, ts) and copy the data. Write claim at ts (read for update, write,
 * delete): I4, then pending = ts, rts = max(rts, ts), copy the data. An upgrade of a read
 * keeps its copy: after our read rts >= ts, so no older writer can claim the key (I4),
 * and a newer writer's commit would make wts > ts, which the claim checks.
 * Commit (cannot fail): inserted rows get wts = rts = ts while private; publish inserts
 * and deletes (txn_publish) while the claims still exclude other writers and the readers
 * that must wait; then for each claimed key, in one latch round, install the written
 * columns, set wts = ts (I1) and clear the claim. Abort: clear the claims (nothing was
 * installed), release the entries.
 *
 * No deadlock: a transaction waits only for a pending writer with a smaller ts, so every
 * wait goes to an older transaction and no cycle forms.
 *
 * Memory orders: the latch's acquire CAS and release store order everything under it;
 * data is copied and installed with relaxed word accesses under the latch.
 *
 * Lock order: one entry latch (TS_LATCH) at a time; no wait while holding one (a read or
 * claim behind an older pending writer unlatches, then waits: wait_writer). With the
 * sketch, the active table's bucket lock (cc/ts_sketch.c) is taken only while no entry
 * latch is held (ts_acquire at an access's first touch; ts_release of a dead key in
 * ts_access_end, after the claims are cleared: a live key's is a decrement without the
 * lock), never together with one; a fold reads an entry under
 * the bucket lock without its latch (the key has no holder then). A write claim (the
 * pending ts) is held across waits like a lock, but waits go only to older writers (No
 * deadlock, above).
 */
#include <stdlib.h>

#include "cc/ts_store.h"
#include "cc/txn.h"
#include "storage/wait.h"
#include "storage/shared_writes.h"

const char cc_alg_name[] = "STO";
const bool cc_alg_serializable = true;
/* Network rounds (cc/netmodel.h): reads and write claims execute at the servers, and
 * commit cannot fail: execute, then one commit round. */
const struct cc_net_rounds cc_net_rounds = {.prepare = false};
const char *const cc_alg_counter_names[CC_ALG_COUNTERS] = {TS_COUNTER_NAMES};
/* Every first access copies the whole row under the latch (execute): a prefetch requests
 * every line (txn_prefetch). */
const bool cc_alg_copies_rows = true;
/* The storage model (storage/storage_model.h): with the row store the timestamps are
 * metadata on storage (a read's rts raise dirties them); the sketch keeps them in memory. */
const bool cc_alg_ts_on_storage = !TS_STORE_SKETCH;

#define ACC_CLAIMED 2 /* a->cc_flags: this attempt is the key's pending writer (besides
                       * the store's TS_ACC_HELD and TS_ACC_META, cc/ts_store.h) */

_Static_assert(TS_ROW_META_BYTES <= CC_META_SIZE, "sto: CC_META_SIZE too small");

void cc_ts_fold(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    *wts = atomic_load_explicit(&e->w[1], memory_order_relaxed);
    *rts = atomic_load_explicit(&e->w[2], memory_order_relaxed);
}

void cc_ts_unfold(struct ts_entry *e, uint64_t wts, uint64_t rts)
{
    atomic_store_explicit(&e->w[0], 0, memory_order_relaxed);
    atomic_store_explicit(&e->w[1], wts, memory_order_relaxed);
    atomic_store_explicit(&e->w[2], rts, memory_order_relaxed);
}

void cc_init(int nthreads)
{
    ts_store_init(nthreads);
}
void cc_fini(void)
{
    ts_store_fini();
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
void cc_report_json(FILE *f)
{
    fputs("{\"ts_store\":", f);
    ts_store_json(f);
    fputc('}', f);
}

void cc_begin(struct txn *t, bool retry)
{
    (void)retry;
    t->ts = txn_priority_ts(t);
    if (t->ts & TS_LATCH) { /* after about 2^51 ticks (days): into the latch bit */
        fprintf(stderr, "sto: timestamps outgrew the pending writer's 63 bits\n");
        exit(1);
    }
}

/* A too-late operation: counts it as added by the sketch if the exact stamps would have
 * let it pass (read: ts >= wts; write: ts >= wts and ts >= rts). */
static enum rc too_late(struct txn *t, struct ts_entry *e, uint64_t wts, uint64_t rts,
                        bool write)
{
    if (ts_exact(e, &wts, &rts) && t->ts >= wts && (!write || t->ts >= rts))
        t->st.alg[TS_CTR_FALSE_ABORTS]++;
    return txn_fail(t, AR_TS_ORDER);
}

/* One round of waiting (latch released) for the end of the pending writer `pending`,
 * older than us; the caller decides again after it. */
static enum rc wait_writer(struct txn *t, struct waiter *wt, struct row *r, uint64_t pending)
{
    int thread = (int)(pending & ((1u << PRIO_THREAD_BITS) - 1));
    if (wt->on != thread) /* another writer than the last round's: a wait of its own */
        *wt = WAITER(thread);
    uint64_t start = txn_timer_start();
    wait_note(WAIT_PENDING, r, thread);
    wait_round(wt);
    wait_end();
    txn_wait_done(t, start);
    return wait_stopped() ? txn_fail(t, AR_STOPPED) : RC_OK;
}

/* The read rule or the write claim (I4) on key e of a->row at t->ts; copies the data
 * unless the access already has a copy. */
static enum rc execute(struct txn *t, struct access *a, struct ts_entry *e, bool write)
{
    struct row *r = a->row;
    struct waiter wt = WAITER(WAIT_BLIND);
    for (;;) {
        uint64_t pending = ts_latch(e);
        uint64_t wts = ts_get(e, 1), rts = ts_get(e, 2);
#ifdef MUTANT_STO_WRITE_IGNORES_RTS /* mutant: a write claim ignores later reads */
        rts = 0;
#endif
        if (t->ts < wts || (write && t->ts < rts)) {
            ts_unlatch(e, pending);
            return too_late(t, e, wts, rts, write);
        }
        if (pending && pending < t->ts) { /* an older writer: its outcome first (I2) */
            ts_unlatch(e, pending);
            if (wait_writer(t, &wt, r, pending) != RC_OK)
                return RC_ABORT;
            continue;
        }
        if (pending && pending != t->ts && write) { /* a younger writer claimed it (I4) */
            ts_unlatch(e, pending);
            return txn_fail(t, AR_TS_ORDER);
        }
        /* a read ordered before a younger pending writer reads the committed version */
        bool raised = rts < t->ts;
        if (raised)
            ts_set(e, 2, t->ts);
        if (!a->data) {
            uint32_t size = row_table(r)->schema.data_size;
            a->data = txn_alloc(t, size);
            row_copy_relaxed(a->data, r, size);
        }
        if (write) {
            pending = t->ts;
            a->cc_flags |= ACC_CLAIMED;
        }
        ts_unlatch(e, pending);
        if (raised)
            a->cc_flags |= TS_ACC_META;
        return RC_OK;
    }
}

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (a->type == ACC_NONE) {
        ts_access_begin(t, a);
        if (type == ACC_INSERT) { /* private until commit: in place, nothing to check */
            a->data = a->row->data;
            a->in_place = 1;
            a->type = ACC_INSERT;
            return RC_OK;
        }
        a->data = NULL;
    }
    if (!(a->cc_flags & ACC_CLAIMED) && a->type != ACC_INSERT) {
        bool write = type == ACC_WRITE || type == ACC_DELETE;
        if (execute(t, a, a->cc_ptr, write) != RC_OK) {
            if (a->type == ACC_NONE) /* the generic layer forgets a new entry */
                ts_access_end(t, a, true);
            return RC_ABORT;
        }
    }
    a->type = (uint8_t)type;
    return RC_OK;
}

enum rc cc_commit(struct txn *t)
{
    /* the rows we inserted take wts = rts = ts while private (relaxed: txn_publish's
     * index insert, a release, publishes them) */
    for (uint32_t i = 0; t->npublish && i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->type == ACC_INSERT) {
            ts_set(a->cc_ptr, 1, t->ts);
            ts_set(a->cc_ptr, 2, t->ts);
        }
    }
    /* inserts and deletes first, while our claims still make a later reader of the rows
     * we write wait for us (I2): one that finds an inserted row then reads our other
     * writes too, and one that waited on a deleted row sees its flag */
#ifndef MUTANT_STO_PUBLISH_AFTER_RELEASE
    txn_publish(t);
#endif
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & ACC_CLAIMED) {
            /* I1: the new version and its wts at once; the claim ends in the same latch
             * round (waiters watch our thread: woken at the transaction's end) */
            struct ts_entry *e = a->cc_ptr;
            ts_latch(e);
            row_install_written(a);
            ts_set(e, 1, t->ts);
            if (ts_get(e, 2) < t->ts)
                ts_set(e, 2, t->ts);
            ts_unlatch(e, 0);
            a->cc_flags = (uint16_t)((a->cc_flags & ~ACC_CLAIMED) | TS_ACC_META);
        }
    }
#ifdef MUTANT_STO_PUBLISH_AFTER_RELEASE /* mutant: inserts and deletes after the claims end */
    txn_publish(t);
#endif
    ts_access_end_all(t, false); /* no claim left: the marks, the entries */
    return RC_OK;
}

/* Clears the claims of this attempt (nothing was installed), then makes the storage
 * model's metadata marks (which may stall: no claim is held by then) and releases its
 * entries. Once per attempt: with the row store and no storage model ts_access_end_all
 * leaves the flags (acc_new clears them), so a second call would clear a claim another
 * writer took since. */
void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & ACC_CLAIMED) {
            struct ts_entry *e = a->cc_ptr;
            ts_latch(e);
            ts_unlatch(e, 0); /* waiters watch our thread: woken at the transaction's end */
        }
    }
    ts_access_end_all(t, true);
}
