/* The 2PL family: strict two-phase locking on the per-row lock of cc/lock_queue.h, one
 * binary per conflict policy (compile flag TWOPL_POLICY):
 *   NO_WAIT     a conflict aborts the requester (AR_CONFLICT). Lock-free word, no queue.
 *   WAIT_DIE    a requester older than every conflicting owner waits, else dies (AR_DIE).
 *   WOUND_WAIT  an older requester wounds the younger conflicting owners and waits; a
 *               younger one waits. The wounded abort (AR_WOUNDED) when they notice: at
 *               their next access, while waiting, or at commit start (after which they
 *               can no longer be wounded).
 *   DL_DETECT   always waits; on every wait it publishes its waits-for edges and searches
 *               for a cycle through itself (cc/waits_for.h); on a cycle it aborts
 *               (AR_DEADLOCK).
 * A waiter of every queued policy also gives up when the run is over (AR_STOPPED,
 * storage/wait.h): it withdraws its request like a wounded one.
 *
 * Accesses: READ takes a shared lock; WRITE and DELETE an exclusive one (upgrading a
 * shared lock the transaction holds); INSERT takes none (the row is private until
 * commit). Writes are in place (the generic layer keeps the before-image in a->undo).
 * Locks are held to the end: commit publishes then releases; abort restores the
 * before-images while it still holds the locks, then releases. Every access entry of
 * type READ, WRITE or DELETE holds a lock (a failed upgrade keeps its shared lock; a failed new access
 * holds nothing).
 *
 * State: row->cc is a struct lq_lock. a->cc_a (queued policies): the access's struct
 * lq_req, in the arena (it lives until the next txn_begin, past every release). t->cc:
 * struct tp_thread: the thread's struct lq_txn (timestamp, attempt id, wound state) and
 * the DL_DETECT edge buffer.
 * Timestamps (WAIT_DIE, WOUND_WAIT): txn_priority_ts (cc/txn.h: the time-stamp counter
 * and the thread id, no shared counter) taken at begin, kept across the retries of a
 * query, so it eventually becomes the oldest and wins.
 * Lock order: row locks are taken in access order (no global order) and held to the end,
 * so a transaction waits for a lock while it holds others; the policy keeps that free of
 * deadlocks (NO_WAIT never waits; WAIT_DIE and WOUND_WAIT wait only one way in timestamp
 * order, or for a wounded transaction; DL_DETECT finds the cycles). The lock queue latch
 * (LQ_LATCH in the lock's word, cc/lock_queue.h, cc/lock_queue.c) is held one at a time,
 * for the lists and counts only; no wait while holding one: lq_enqueue releases it
 * before lq_wait, and DL_DETECT publishes its edges (cc/waits_for.h: seqlocked, no
 * latch) after that.
 */
#include <stdalign.h>
#include <stdint.h>

#include "cc/lock_queue.h"
#include "cc/txn.h"
#include "cc/waits_for.h"
#include "storage/mem.h"
#include "storage/shared_writes.h"

#define TWOPL_NO_WAIT 0
#define TWOPL_WAIT_DIE 1
#define TWOPL_WOUND_WAIT 2
#define TWOPL_DL_DETECT 3

#ifndef TWOPL_POLICY
#error "TWOPL_POLICY must be set (TWOPL_NO_WAIT, _WAIT_DIE, _WOUND_WAIT or _DL_DETECT)"
#endif
#if TWOPL_POLICY < TWOPL_NO_WAIT || TWOPL_POLICY > TWOPL_DL_DETECT
#error "TWOPL_POLICY must be one of TWOPL_NO_WAIT, _WAIT_DIE, _WOUND_WAIT, _DL_DETECT"
#endif

_Static_assert(LQ_NO_WAIT == TWOPL_NO_WAIT && LQ_WAIT_DIE == TWOPL_WAIT_DIE &&
                   LQ_WOUND_WAIT == TWOPL_WOUND_WAIT && LQ_DL_DETECT == TWOPL_DL_DETECT,
               "policy numbering");
_Static_assert(sizeof(struct lq_lock) <= CC_META_SIZE, "CC_META_SIZE too small for 2PL");

static const enum lq_policy POLICY = (enum lq_policy)TWOPL_POLICY;
static const bool QUEUED = TWOPL_POLICY != TWOPL_NO_WAIT;
static const bool USES_TS = TWOPL_POLICY == TWOPL_WAIT_DIE || TWOPL_POLICY == TWOPL_WOUND_WAIT;

#define TWOPL_NAME_0 "NO_WAIT"
#define TWOPL_NAME_1 "WAIT_DIE"
#define TWOPL_NAME_2 "WOUND_WAIT"
#define TWOPL_NAME_3 "DL_DETECT"
#define TWOPL_NAME_(p) TWOPL_NAME_##p
#define TWOPL_NAME(p) TWOPL_NAME_(p)

const char cc_alg_name[] = TWOPL_NAME(TWOPL_POLICY);
const bool cc_alg_serializable = true;
/* Network rounds (cc/netmodel.h): distributed 2PL, locks taken at execution and held
 * until the commit message arrives. NO_WAIT: execute / commit, 2 rounds, 1 RTT (a lock
 * conflict aborts at once, so nothing needs preparing). The waiting policies add a
 * prepare round (a participant may have wounded the transaction or found it in a
 * deadlock meanwhile): 3 rounds, 2 RTTs. */
const struct cc_net_rounds cc_net_rounds = {.prepare = TWOPL_POLICY != TWOPL_NO_WAIT,
                                            .decides_in_commit = true};

struct tp_thread {
    struct lq_txn x;
    uint64_t *blk; /* DL_DETECT: the attempts a waiter waits for */
};

static int nthreads;

static inline struct lq_lock *lock_of(struct row *r) { return (struct lq_lock *)(void *)r->cc; }
static inline struct lq_req *req_of(const struct access *a)
{
    return (struct lq_req *)(uintptr_t)a->cc_a;
}

void cc_init(int n)
{
    nthreads = n;
    if (POLICY == LQ_DL_DETECT)
        wf_init(n);
}

void cc_fini(void)
{
    if (POLICY == LQ_DL_DETECT)
        wf_fini();
}

void cc_thread_init(struct txn *t)
{
    struct tp_thread *p = mem_alloc_aligned(CACHE_LINE, sizeof(*p));
    lq_txn_init(&p->x, t->thread_id);
    p->blk = POLICY == LQ_DL_DETECT ? mem_alloc((size_t)wf_capacity() * sizeof(uint64_t))
                                    : NULL;
    t->cc = p;
    if (POLICY == LQ_DL_DETECT)
        wf_thread_init(t->thread_id);
}

void cc_thread_fini(struct txn *t)
{
    struct tp_thread *p = t->cc;
    if (p->blk)
        mem_free(p->blk);
    mem_free(p);
    t->cc = NULL;
}

void cc_row_init(struct row *r) { lq_init(lock_of(r)); }

void cc_begin(struct txn *t, bool retry)
{
    struct tp_thread *p = t->cc;
    if (USES_TS && !retry)
        p->x.ts = txn_priority_ts(t);
    p->x.id = t->id;
    /* relaxed: no request of this thread is linked anywhere now, so no wounder can touch
     * the state; every wound of the last attempt happened before its releases, which
     * happened before this (rule 5 of lock_queue.h) */
    if (POLICY == LQ_WOUND_WAIT) {
        SHW(SHW_OWN);
        atomic_store_explicit(&p->x.state, LQ_RUNNING, memory_order_relaxed);
    }
}

static inline bool wounded(const struct tp_thread *p)
{
    if (POLICY != LQ_WOUND_WAIT)
        return false;
    /* relaxed: pairs with lq_wound's CAS; only the flag itself is read */
    return atomic_load_explicit(&p->x.state, memory_order_relaxed) == LQ_WOUNDED;
}

/* Withdraws a waiting request r and fails with `why`; if r was granted meanwhile, a
 * deadlock victim just keeps it (its wait is over), a wounded or stopped one gives up a
 * new lock (an upgraded one is released by cc_abort). */
static enum rc give_up(struct txn *t, struct lq_lock *l, struct lq_req *r, bool upgrade,
                       enum abort_reason why)
{
    if (lq_cancel(l, r)) {
        if (why == AR_DEADLOCK)
            return RC_OK;
        if (!upgrade)
            lq_release(l, r);
    }
    return txn_fail(t, why);
}

/* The conflict path of the waiting policies, with the latch of row's lock l held and w
 * its word: queues r (new, or the upgrade of a->cc_a) as the policy says, waits, and
 * gives up when told (wounded, deadlock victim, or the run is over). */
static __attribute__((noinline)) enum rc acquire_slow(struct txn *t, struct row *row,
                                                      struct lq_lock *l, struct lq_req *r,
                                                      bool upgrade, uint64_t w)
{
    struct tp_thread *p = t->cc;
    int nblk = 0;
    /* read before r is queued: then granters may change r->mode (latch rule 1) */
    bool ex = upgrade || r->mode == LQ_MODE_EX;
    wait_note(WAIT_LOCK, row, -1); /* lq_enqueue notes the holder */
    enum lq_rc rc = lq_enqueue(l, r, upgrade, w, POLICY, p->blk, &nblk);
    if (rc != LQ_WAIT)
        wait_end();
    if (rc == LQ_DIE)
        return txn_fail(t, AR_DIE);
    if (rc == LQ_GRANTED)
        return RC_OK;
    if (POLICY == LQ_DL_DETECT) {
        uint64_t s = txn_timer_start();
        wf_set(t->thread_id, t->id, p->blk, nblk);
        bool cycle = wf_cycle(t->thread_id, t->id, &t->st);
        txn_deadlock_done(t, s);
        if (cycle) {
            wait_end();
            wf_clear(t->thread_id);
            return give_up(t, l, r, upgrade, AR_DEADLOCK);
        }
    }
    uint64_t s = txn_timer_start();
    bool ok = lq_wait(r, POLICY == LQ_WOUND_WAIT ? &p->x.state : NULL);
    wait_end();
    if (ex)
        txn_ww_wait_done(t, s);
    else
        txn_wait_done(t, s);
    if (POLICY == LQ_DL_DETECT)
        wf_clear(t->thread_id);
    if (ok)
        return RC_OK;
    return give_up(t, l, r, upgrade, wounded(p) ? AR_WOUNDED : AR_STOPPED);
}

/* Grants a->row in mode ex/shared to a new access (upgrade false) or upgrades the shared
 * lock the access holds (upgrade true). */
static enum rc acquire(struct txn *t, struct access *a, bool ex, bool upgrade)
{
    struct lq_lock *l = lock_of(a->row);
    if (!QUEUED) {
        bool ok = upgrade ? lq_try_upgrade(l) : ex ? lq_try_ex(l) : lq_try_sh(l);
        return ok ? RC_OK : txn_fail(t, AR_CONFLICT);
    }
    struct tp_thread *p = t->cc;
    if (wounded(p))
        return txn_fail(t, AR_WOUNDED);
    uint64_t w;
    if (upgrade) {
        struct lq_req *r = req_of(a);
        return lq_upgrade(l, r, &w) ? RC_OK : acquire_slow(t, a->row, l, r, true, w);
    }
    enum lq_mode mode = ex ? LQ_MODE_EX : LQ_MODE_SH;
    struct lq_req *r = txn_alloc(t, sizeof(*r));
    lq_req_init(r, &p->x, mode);
    a->cc_a = (uintptr_t)r;
    return lq_acquire(l, r, mode, &w) ? RC_OK : acquire_slow(t, a->row, l, r, false, w);
}

/* Every case but the hot one of cc_access. */
static __attribute__((noinline)) enum rc access_other(struct txn *t, struct access *a,
                                                      enum access_type type)
{
    if (type == ACC_INSERT) {
        a->type = ACC_INSERT;
        a->data = a->row->data;
        a->in_place = 1;
        return RC_OK;
    }
    bool ex = type != ACC_READ;
    if (a->type == ACC_NONE || a->type == ACC_INSERT) {
        /* new; or the delete of a row this transaction inserted (private, so free) */
        if (acquire(t, a, ex, false) != RC_OK)
            return RC_ABORT;
        a->data = a->row->data;
        a->in_place = 1;
    } else if (a->type == ACC_READ) { /* ex: upgrade the shared lock */
        if (acquire(t, a, true, true) != RC_OK)
            return RC_ABORT;
    } else if (wounded(t->cc)) { /* WRITE -> DELETE: already exclusive */
        return txn_fail(t, AR_WOUNDED);
    }
    a->type = (uint8_t)type;
    return RC_OK;
}

/* A new request that had to queue: the rest of the hot path of cc_access. */
static __attribute__((noinline)) enum rc access_queued(struct txn *t, struct access *a,
                                                       enum access_type type,
                                                       struct lq_req *r, uint64_t w)
{
    if (acquire_slow(t, a->row, lock_of(a->row), r, false, w) != RC_OK)
        return RC_ABORT;
    a->type = (uint8_t)type;
    return RC_OK;
}

/* The hot path (a new READ/WRITE/DELETE access, queued policies, room in the arena, the
 * latch free) makes no call that returns to it, so it saves no registers; every other
 * case goes to access_other (which starts over) or access_queued. */
enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (a->type != ACC_NONE || type == ACC_INSERT)
        return access_other(t, a, type);
    if (!QUEUED) {
        struct lq_lock *l = lock_of(a->row);
        if (!(type == ACC_READ ? lq_try_sh(l) : lq_try_ex(l)))
            return txn_fail(t, AR_CONFLICT);
        a->data = a->row->data;
        a->in_place = 1;
        a->type = (uint8_t)type;
        return RC_OK;
    }
    struct tp_thread *p = t->cc;
    if (wounded(p))
        return txn_fail(t, AR_WOUNDED);
    struct arena *ar = &t->arena;
    enum { REQ_BYTES = (sizeof(struct lq_req) + 15) & ~(size_t)15 }; /* as arena_alloc */
    if ((size_t)(ar->end - ar->ptr) < REQ_BYTES)
        return access_other(t, a, type);
    struct lq_req *r = (struct lq_req *)(void *)ar->ptr;
    ar->ptr += REQ_BYTES;
    enum lq_mode mode = type == ACC_READ ? LQ_MODE_SH : LQ_MODE_EX;
    lq_req_init(r, &p->x, mode);
    struct lq_lock *l = lock_of(a->row);
    uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
    /* acquire: pairs with the release store of lq_unlatch (as lq_latch) */
    SHW(SHW_ROW);
    if ((w & LQ_LATCH) ||
        !atomic_compare_exchange_weak_explicit(&l->word, &w, w | LQ_LATCH, memory_order_acquire,
                                               memory_order_relaxed))
        return access_other(t, a, type);
    a->cc_a = (uintptr_t)r;
    a->data = a->row->data; /* a failed new entry is dropped: no harm done */
    a->in_place = 1;
    if (!lq_grant_latched(l, r, mode, w))
        return access_queued(t, a, type, r, w);
    a->type = (uint8_t)type;
    return RC_OK;
}

static void release_all(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->type == ACC_NONE || a->type == ACC_INSERT)
            continue;
        if (QUEUED)
            lq_release(lock_of(a->row), req_of(a));
        else if (a->type == ACC_READ)
            lq_free_sh(lock_of(a->row));
        else
            lq_free_ex(lock_of(a->row));
    }
}

/* Up to the decision point: after it the transaction can no longer be wounded. */
static enum rc twopl_prepare(struct txn *t)
{
    if (POLICY == LQ_WOUND_WAIT) {
        struct tp_thread *p = t->cc;
        uint32_t s = LQ_RUNNING;
        /* relaxed: ordered against lq_wound's CAS as RMWs of one location */
        SHW(SHW_OWN);
        if (!atomic_compare_exchange_strong_explicit(&p->x.state, &s, LQ_COMMITTING,
                                                     memory_order_relaxed,
                                                     memory_order_relaxed))
            return txn_fail(t, AR_WOUNDED);
    }
    return RC_OK;
}

enum rc cc_commit(struct txn *t)
{
    if (twopl_prepare(t) != RC_OK)
        return RC_ABORT;
    txn_net_decision(t); /* network model: the locks stay held till the commit arrives */
#ifdef MUTANT_TWOPL_PUBLISH_AFTER_UNLOCK /* mutant: inserts and deletes after the locks end */
    release_all(t);
    txn_publish(t);
#else
    txn_publish(t);
    release_all(t);
#endif
    return RC_OK;
}

#if TWOPL_POLICY == TWOPL_NO_WAIT
/* The commit split (cc/cc.h), for the geo layer, whose handlers never wait: NO_WAIT only. */
enum rc cc_prepare(struct txn *t) { return twopl_prepare(t); }
void cc_finish(struct txn *t)
{
    txn_publish(t);
    release_all(t);
}
#endif
/* Reads take shared locks (cc/cc.h). */
const bool cc_alg_locking = true;

void cc_abort(struct txn *t)
{
#ifdef MUTANT_TWOPL_UNDO_AFTER_UNLOCK /* mutant: others see the aborted writes until the undo */
    release_all(t);
    txn_undo_in_place(t);
#else
    txn_undo_in_place(t);
    release_all(t);
#endif
}
