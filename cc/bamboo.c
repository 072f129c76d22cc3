/* BAMBOO (Guo et al., SIGMOD'21): wound-wait 2PL whose exclusive locks are retired after
 * the transaction's last write to a row (the workload's txn_last_access hint), so later
 * transactions read the dirty (in-place, whole-tuple) value and take a commit dependency.
 *
 * Built on the lock-queue module of the 2PL family (cc/lock_queue.h, rules 1-10): the
 * policy is LQ_BAMBOO = WOUND_WAIT over owners and retired requests.
 *
 * Steps (paper's terms):
 *  - LockAcquire: READ takes a shared lock, WRITE/DELETE an exclusive one (upgrading a
 *    shared one). A request conflicting with younger owners or retired requests wounds
 *    them and waits; it is granted behind the retired requests only when they are all
 *    older and none is aborting, and then depends on them (rule 7).
 *  - LockRetire (cc_last_access): an exclusive owner of a WRITE access moves to the
 *    retired list; waiters behind it are granted and read its in-place writes. Shared
 *    locks, deletes and inserts are never retired.
 *  - Commit: wait until ndeps == 0 (every retired request ahead on every row has
 *    committed; timed as pre-commit wait), unless wounded or cascaded meanwhile; then
 *    RUNNING -> COMMITTING (no longer woundable), publish, release (handing rule 8 on).
 *  - Abort (wounded: AR_WOUNDED; a predecessor aborted: AR_CASCADE; the run ended while it
 *    waited for a lock or for its predecessors: AR_STOPPED): pass 1 marks every
 *    retired request aborting and cascades to everyone behind it; pass 2, row by row,
 *    waits until nobody is behind (they restore and leave first), restores the
 *    before-image (a->undo, taken by the generic layer when it gained write intent or at
 *    the first write, while it held the row exclusively) under the latch, and
 *    leaves. Undo invariant: on every row, before-images are applied newest writer first,
 *    each while nobody behind it is linked and under the row's latch, so the data ends as
 *    the image of the newest surviving writer (or the committed one) and no transaction
 *    ever reads a half-restored row.
 *
 * Deadlock freedom: a lock waiter waits for older transactions or wounded ones; a commit
 * waits for older ones (retired requests ahead are older, rule 7); an abort waits for
 * younger ones that are already cascaded; a wounded or cascaded transaction notices in
 * every wait (lock, pre-commit) and at its next access or commit.
 *
 * State: row->cc is a struct lq_rlock. a->cc_a: the access's struct lq_req (arena).
 * t->cc: struct bb_thread (its struct lq_txn). Timestamps: txn_priority_ts
 * (cc/txn.h: the time-stamp counter and the thread id, no shared counter) taken at begin,
 * kept across the retries of a query. The hint is a promise: a transaction must
 * not access a row again after txn_last_access on it.
 */
#include <stdint.h>

#include "cc/lock_queue.h"
#include "cc/txn.h"
#include "storage/mem.h"
#include "storage/shared_writes.h"

_Static_assert(sizeof(struct lq_rlock) <= CC_META_SIZE, "CC_META_SIZE too small for Bamboo");

const char cc_alg_name[] = "BAMBOO";
const bool cc_alg_serializable = true;
/* A read takes the row's lock in its slot (txn_prefetch: the line comes exclusive). */
const bool cc_alg_reads_write_meta = true;
/* readers of retired writes: cc_commit looks the misses up again after its commit wait */
const bool cc_alg_rechecks_misses = true;
/* Network rounds (cc/netmodel.h; ours, as wound-wait 2PL): execute / prepare (the commit
 * dependencies resolved) / commit: 3 rounds, 2 RTTs. */
const struct cc_net_rounds cc_net_rounds = {.prepare = true, .decides_in_commit = true};

struct bb_thread {
    struct lq_txn x;
};

static inline struct lq_rlock *lock_of(struct row *r)
{
    return (struct lq_rlock *)(void *)r->cc;
}
static inline struct lq_req *req_of(const struct access *a)
{
    return (struct lq_req *)(uintptr_t)a->cc_a;
}

void cc_init(int n) { (void)n; }
void cc_fini(void) {}

void cc_thread_init(struct txn *t)
{
    struct bb_thread *p = mem_alloc_aligned(CACHE_LINE, sizeof(*p));
    lq_txn_init(&p->x, t->thread_id);
    t->cc = p;
}

void cc_thread_fini(struct txn *t)
{
    mem_free(t->cc);
    t->cc = NULL;
}

void cc_row_init(struct row *r) { lq_rinit(lock_of(r)); }

void cc_begin(struct txn *t, bool retry)
{
    struct bb_thread *p = t->cc;
    if (!retry)
        p->x.ts = txn_priority_ts(t);
    p->x.id = t->id;
    /* relaxed: no request of this thread is linked anywhere now (rules 5 and 10) */
    SHW(SHW_OWN);
    atomic_store_explicit(&p->x.state, LQ_RUNNING, memory_order_relaxed);
    SHW(SHW_OWN);
    atomic_store_explicit(&p->x.ndeps, 0, memory_order_relaxed);
}

/* Why this attempt must abort, or RC_OK. */
static inline enum rc check_state(struct txn *t)
{
    struct bb_thread *p = t->cc;
    /* relaxed: pairs with lq_wound / lq_cascade; only the flag itself is read */
    uint32_t s = atomic_load_explicit(&p->x.state, memory_order_relaxed);
    if (s == LQ_RUNNING)
        return RC_OK;
    return txn_fail(t, s == LQ_CASCADED ? AR_CASCADE : AR_WOUNDED);
}

/* The conflict path, latch of row's lock l held (w its word): queue, wait, give up when
 * told (wounded, cascaded, or the run is over: then it aborts as a wounded one would). */
static __attribute__((noinline)) enum rc acquire_slow(struct txn *t, struct row *row,
                                                      struct lq_rlock *l, struct lq_req *r,
                                                      bool upgrade, uint64_t w)
{
    struct bb_thread *p = t->cc;
    /* read before r is queued: then granters may change r->mode (latch rule 1) */
    bool ex = upgrade || r->mode == LQ_MODE_EX;
    wait_note(WAIT_LOCK, row, -1); /* lq_bb_enqueue notes the holder */
    if (lq_bb_enqueue(l, r, upgrade, w) == LQ_GRANTED) {
        wait_end();
        return RC_OK;
    }
    uint64_t s = txn_timer_start();
    bool ok = lq_wait(r, &p->x.state);
    wait_end();
    if (ex)
        txn_ww_wait_done(t, s);
    else
        txn_wait_done(t, s);
    if (ok)
        return RC_OK;
    if (lq_bb_cancel(l, r) && !upgrade) /* granted meanwhile: give the new lock back */
        lq_bb_leave_unlatch(l, r, lq_latch(&l->q));
    return check_state(t) == RC_OK ? txn_fail(t, AR_STOPPED) : RC_ABORT;
}

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (type == ACC_INSERT) {
        a->type = ACC_INSERT;
        a->data = a->row->data;
        a->in_place = 1;
        return RC_OK;
    }
    if (check_state(t) != RC_OK)
        return RC_ABORT;
    struct lq_rlock *l = lock_of(a->row);
    struct bb_thread *p = t->cc;
    uint64_t w;
    if (a->type == ACC_NONE || a->type == ACC_INSERT) {
        /* new; or the delete of a row this transaction inserted (private, so free) */
        enum lq_mode mode = type == ACC_READ ? LQ_MODE_SH : LQ_MODE_EX;
        struct lq_req *r = txn_alloc(t, sizeof(*r));
        lq_req_init(r, &p->x, mode);
        a->cc_a = (uintptr_t)r;
        if (!lq_bb_acquire(l, r, mode, &w) && acquire_slow(t, a->row, l, r, false, w) != RC_OK)
            return RC_ABORT;
        a->data = a->row->data;
        a->in_place = 1;
    } else if (a->type == ACC_READ) { /* upgrade the shared lock */
        struct lq_req *r = req_of(a);
        if (!lq_upgrade(&l->q, r, &w) && acquire_slow(t, a->row, l, r, true, w) != RC_OK)
            return RC_ABORT;
    } /* else WRITE -> DELETE: already exclusive */
    a->type = (uint8_t)type;
    return RC_OK;
}

/* LockRetire. */
void cc_last_access(struct txn *t, struct access *a)
{
    struct lq_req *r = req_of(a);
    if (a->type != ACC_WRITE || r->mode != LQ_MODE_EX || r->retired ||
        check_state(t) != RC_OK)
        return;
    lq_bb_retire(lock_of(a->row), r);
}

static inline bool holds_request(const struct access *a)
{
    return a->type != ACC_NONE && a->type != ACC_INSERT;
}

enum rc cc_commit(struct txn *t)
{
    struct bb_thread *p = t->cc;
    uint64_t s = txn_timer_start();
    struct waiter wt = WAITER(WAIT_WOKEN); /* the last lq_bb_leave_unlatch */
    bool stopped = false;
    /* acquire: pairs with the release decrement of lq_bb_leave_unlatch (rule 8) */
    while (atomic_load_explicit(&p->x.ndeps, memory_order_acquire) != 0 &&
#ifdef MUTANT_BAMBOO_NO_COMMIT_WAIT /* mutant: commit before the predecessors */
           false &&
#endif
           check_state(t) == RC_OK && !(stopped = wait_stopped())) {
        if (!wt.rounds)
            wait_note(WAIT_DEPS, NULL, -1);
        wait_round(&wt);
    }
    if (wt.rounds)
        wait_end();
    txn_precommit_done(t, s);
    if (stopped) /* the run is over: abort (cascading) as a wounded one would */
        return txn_fail(t, AR_STOPPED);
    /* every predecessor has committed (ndeps 0, acquire above), its inserts published:
     * a key we missed that one of them inserted is found now (cc/txn.h). Wounded or
     * cascaded, we left the wait early: the CAS below fails with that reason. */
#ifndef MUTANT_BAMBOO_NO_MISSED_KEY_CHECK /* mutant: no look-up of the misses after the wait */
    if (check_state(t) == RC_OK && !txn_missed_still_absent(t))
        return txn_fail(t, AR_PHANTOM);
#endif
    uint32_t st = LQ_RUNNING;
    /* relaxed: ordered against lq_wound / lq_cascade as RMWs of one location */
    SHW(SHW_OWN);
    if (!atomic_compare_exchange_strong_explicit(&p->x.state, &st, LQ_COMMITTING,
                                                 memory_order_relaxed, memory_order_relaxed))
        return txn_fail(t, st == LQ_CASCADED ? AR_CASCADE : AR_WOUNDED);
    txn_net_decision(t); /* network model: the locks stay held till the commit arrives */
    txn_publish(t);
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (holds_request(a)) {
            struct lq_rlock *l = lock_of(a->row);
            lq_bb_leave_unlatch(l, req_of(a), lq_latch(&l->q));
        }
    }
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    /* pass 1: cascade to everyone behind a retired request (rule 9) */
#ifndef MUTANT_BAMBOO_NO_CASCADE /* mutant: readers of the aborted writes are not told */
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (holds_request(a) && req_of(a)->retired)
            lq_bb_abort_mark(lock_of(a->row), req_of(a));
    }
#endif
    /* pass 2: restore each row once nobody is behind, then leave */
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (!holds_request(a))
            continue;
        struct lq_rlock *l = lock_of(a->row);
        struct lq_req *r = req_of(a);
        uint64_t w = lq_bb_latch_alone(l, r, a->row);
#ifdef MUTANT_BAMBOO_UNDO_AFTER_UNLOCK /* mutant: others see the aborted write until the undo */
        lq_bb_leave_unlatch(l, r, w);
#endif
        if (a->undo)
            memcpy(a->row->data, a->undo, row_table(a->row)->schema.data_size);
#ifndef MUTANT_BAMBOO_UNDO_AFTER_UNLOCK
        lq_bb_leave_unlatch(l, r, w);
#endif
    }
}
