/* The queued side of the per-row lock (see cc/lock_queue.h for the state, its rules and
 * the lock order): conflict policies, waiting, cancelling, releasing and granting.
 *
 * Why each policy's queue order keeps it deadlock-free (edges: waiter -> each owner and
 * each waiter ahead of it):
 *  - WAIT_DIE (edges only from older to younger). A request dies if a conflicting owner
 *    is older; else it goes before the first older waiter, so every waiter ahead of it is
 *    younger. Invariant: every waiter is older than every owner (a request that lands
 *    behind a waiter is older than that waiter, which is older than the owners; one that
 *    lands at the head and is compatible is granted; granting moves the youngest waiter).
 *    So an upgrader, an owner, is younger than every waiter behind it.
 *  - WOUND_WAIT (edges from younger to older, or to wounded transactions, which abort
 *    when they notice). A request wounds the younger conflicting owners and goes behind
 *    every older waiter. A younger owner that a waiter ahead conflicts with was wounded
 *    by that waiter (it cannot have been granted after the waiter queued: only older
 *    requests are granted ahead of it), so an upgrader with an older waiter behind it is
 *    already wounded.
 *  - DL_DETECT: FIFO; the caller publishes the edges (every other owner: a waiter always
 *    waits, at least transitively, for all of them; and every waiter ahead) and checks
 *    for a cycle. Later owners come from the waiters ahead or are upgrading owners, so
 *    the edges stay a superset of the real waits for the rest of the wait.
 */
#include "cc/lock_queue.h"
#include "storage/dlist.h"
#include "storage/shared_writes.h"

#include <stddef.h>

/* ---- list helpers (latch held) ---- */

static inline void waiter_unlink(struct lq_lock *l, struct lq_req *r)
{
    DLIST_TIH_UNLINK(l->whead, r, wnext, wprev);
}

/* Links r into the waiters before `pos` (NULL: at the tail). */
static void waiter_insert_before(struct lq_lock *l, struct lq_req *r, struct lq_req *pos)
{
    DLIST_TIH_INSERT_BEFORE(l->whead, r, pos, wnext, wprev);
}

/* Grants waiters from the head while they are compatible with the owners (rule 4) and,
 * for Bamboo (rt not NULL), with the retired requests (rule 7); returns the new word. */
static inline uint64_t grant_x(struct lq_lock *l, uint64_t w, struct lq_rlock *rt)
{
    struct lq_req *h;
    while ((h = l->whead) != NULL) {
        if (rt && !h->upgrading && !lq_bb_retired_ok(rt, h->txn))
            break;
        if (h->upgrading) {
            if (w != LQ_SH_ONE) /* h must be the only owner */
                break;
            w = LQ_EX;
            h->mode = LQ_MODE_EX;
            h->upgrading = 0;
            waiter_unlink(l, h);
        } else if (h->mode == LQ_MODE_SH) {
            if (w & LQ_EX)
                break;
            w += LQ_SH_ONE;
            waiter_unlink(l, h);
            lq_owner_link(l, h);
            if (rt)
                lq_bb_add_dep(rt, h);
        } else {
            if (w)
                break;
            w = LQ_EX;
            waiter_unlink(l, h);
            lq_owner_link(l, h);
            if (rt)
                lq_bb_add_dep(rt, h);
        }
        /* release: pairs with the acquire poll in lq_wait (the row's data, as published
         * to this latch by the previous holders) */
        SHW(SHW_PEER);
        atomic_store_explicit(&h->granted, 1, memory_order_release);
        wait_wake(h->txn->thread);
    }
    return w;
}

static uint64_t grant(struct lq_lock *l, uint64_t w) { return grant_x(l, w, NULL); }

/* Whether owner o conflicts with request r (r wanting r->mode, or EX if upgrading). */
static inline bool conflicts(const struct lq_req *o, const struct lq_req *r, bool upgrade)
{
    if (o == r)
        return false;
    return upgrade || r->mode == LQ_MODE_EX || o->mode == LQ_MODE_EX;
}

static inline enum lq_rc enqueue_x(struct lq_lock *l, struct lq_req *r, bool upgrade,
                                   uint64_t w, enum lq_policy pol, uint64_t *blk, int *nblk,
                                   struct lq_rlock *rt)
{
    struct lq_req *pos = NULL; /* insert before; NULL: tail */
    if (pol == LQ_WAIT_DIE) {
        for (struct lq_req *o = l->owners; o; o = o->onext)
#ifdef MUTANT_LQ_WAIT_DIE_NEVER_DIES /* mutant: a younger requester waits too: deadlocks */
            if (o->txn->ts < r->txn->ts && conflicts(o, r, upgrade) && false) {
#else
            if (o->txn->ts < r->txn->ts && conflicts(o, r, upgrade)) {
#endif
                lq_unlatch(l, w);
                return LQ_DIE;
            }
        if (upgrade)
            pos = l->whead;
        else /* youngest first: behind every younger waiter */
            for (pos = l->whead; pos && pos->txn->ts > r->txn->ts; pos = pos->wnext)
                ;
    } else if (pol == LQ_WOUND_WAIT || pol == LQ_BAMBOO) {
        for (struct lq_req *o = l->owners; o; o = o->onext)
            if (o->txn->ts > r->txn->ts && conflicts(o, r, upgrade))
                lq_wound(o->txn);
        /* retired requests are exclusive and in timestamp order (rule 6) */
        for (struct lq_req *o = rt ? rt->rtail : NULL; o && o->txn->ts > r->txn->ts;
             o = o->oprev)
            lq_wound(o->txn);
        if (upgrade)
            pos = l->whead;
        else /* oldest first: behind every older waiter */
            for (pos = l->whead; pos && pos->txn->ts < r->txn->ts; pos = pos->wnext)
                ;
    } else {
        pos = upgrade ? l->whead : NULL;
    }
    r->upgrading = upgrade;
    /* relaxed: only read by r's owner (lq_wait) or under this latch */
    SHW(SHW_OWN);
    atomic_store_explicit(&r->granted, 0, memory_order_relaxed);
    waiter_insert_before(l, r, pos);
    if (r == l->whead) {
        w = grant_x(l, w, rt);
        if (atomic_load_explicit(&r->granted, memory_order_relaxed)) { /* set just above */
            lq_unlatch(l, w);
            return LQ_GRANTED;
        }
    }
    if (pol == LQ_DL_DETECT) {
        int n = 0;
        for (struct lq_req *o = l->owners; o; o = o->onext)
            if (o != r)
                blk[n++] = o->txn->id;
        for (struct lq_req *q = l->whead; q != r; q = q->wnext)
            blk[n++] = q->txn->id;
        *nblk = n;
    }
    /* the wait record (storage/wait.h): someone r waits for, if an owner is left */
    struct lq_req *o = l->owners;
    if (o == r)
        o = o->onext;
    if (!o && rt)
        o = rt->rtail;
    wait_note_holder(o ? o->txn->thread : -1);
    lq_unlatch(l, w);
    return LQ_WAIT;
}

enum lq_rc lq_enqueue(struct lq_lock *l, struct lq_req *r, bool upgrade, uint64_t w,
                      enum lq_policy pol, uint64_t *blk, int *nblk)
{
    return enqueue_x(l, r, upgrade, w, pol, blk, nblk, NULL);
}

bool lq_wait(struct lq_req *r, const _Atomic uint32_t *watch)
{
    struct waiter wt = WAITER(WAIT_WOKEN); /* by grant_x, lq_wound, lq_cascade */
    /* acquire: pairs with the release store in grant() */
    while (!atomic_load_explicit(&r->granted, memory_order_acquire)) {
        /* relaxed: pairs with the CAS of lq_wound / lq_cascade; only the flag is read */
        uint32_t s = watch ? atomic_load_explicit(watch, memory_order_relaxed) : LQ_RUNNING;
        if (s == LQ_WOUNDED || s == LQ_CASCADED || wait_stopped())
            return false;
        wait_round(&wt);
    }
    return true;
}

static inline bool cancel_x(struct lq_lock *l, struct lq_req *r, struct lq_rlock *rt)
{
    uint64_t w = lq_latch(l);
    /* relaxed: granted is only set under this latch, which we hold */
    if (atomic_load_explicit(&r->granted, memory_order_relaxed)) {
        lq_unlatch(l, w);
        return true;
    }
    waiter_unlink(l, r);
    r->upgrading = 0; /* an upgrader is back to a plain shared owner */
    w = grant_x(l, w, rt); /* r may have blocked compatible waiters behind it */
    lq_unlatch(l, w);
    return false;
}

bool lq_cancel(struct lq_lock *l, struct lq_req *r) { return cancel_x(l, r, NULL); }

void lq_grant_unlatch(struct lq_lock *l, uint64_t w) { lq_unlatch(l, grant(l, w)); }

/* ---- Bamboo: the retired list (rules 6-10 of lock_queue.h) ---- */

enum lq_rc lq_bb_enqueue(struct lq_rlock *rl, struct lq_req *r, bool upgrade, uint64_t w)
{
    return enqueue_x(&rl->q, r, upgrade, w, LQ_BAMBOO, NULL, NULL, rl);
}

bool lq_bb_cancel(struct lq_rlock *rl, struct lq_req *r) { return cancel_x(&rl->q, r, rl); }

void lq_bb_retire(struct lq_rlock *rl, struct lq_req *r)
{
    struct lq_lock *l = &rl->q;
    uint64_t w = lq_latch(l);
    lq_owner_unlink(l, r); /* r is the only owner (exclusive): w becomes 0 */
    r->retired = 1;
    DLIST_NOHEAD_PUSH_BACK(rl->rtail, r, onext, oprev);
    (void)w;
    lq_unlatch(l, l->whead ? grant_x(l, 0, rl) : 0);
}

void lq_bb_abort_mark(struct lq_rlock *rl, struct lq_req *r)
{
    struct lq_lock *l = &rl->q;
    uint64_t w = lq_latch(l);
    r->aborting = 1;
    rl->naborting++;
    for (struct lq_req *q = r->onext; q; q = q->onext)
        lq_cascade(q->txn);
    for (struct lq_req *o = l->owners; o; o = o->onext)
        lq_cascade(o->txn);
    lq_unlatch(l, w);
}

uint64_t lq_bb_latch_alone(struct lq_rlock *rl, struct lq_req *r, const void *row)
{
    struct lq_lock *l = &rl->q;
    struct waiter wt = WAITER(WAIT_BLIND);
    uint64_t w = lq_latch(l);
    while (r->retired && (r != rl->rtail || l->owners)) {
        if (!wt.rounds) /* no give-up on stop: those behind are aborting too (rule 9) */
            wait_note(WAIT_ABORT, row, (r != rl->rtail ? rl->rtail : l->owners)->txn->thread);
        lq_unlatch(l, w);
        wait_round(&wt);
        w = lq_latch(l);
    }
    if (wt.rounds)
        wait_end();
    return w;
}

void lq_bb_grant_unlatch(struct lq_rlock *rl, uint64_t w)
{
    lq_unlatch(&rl->q, grant_x(&rl->q, w, rl));
}

void lq_bb_retired_leave_unlatch(struct lq_rlock *rl, struct lq_req *r, uint64_t w)
{
    struct lq_lock *l = &rl->q;
    bool head = !r->oprev;
    if (r->aborting)
        rl->naborting--;
    DLIST_NOHEAD_UNLINK(rl->rtail, r, onext, oprev);
    r->retired = 0;
    if (head) { /* rule 8: whoever is now first has no retired request ahead */
        struct lq_req *first = rl->rtail ? r->onext : l->owners; /* r's links as were */
        for (struct lq_req *q = first; q; q = rl->rtail ? NULL : q->onext)
            if (q->has_dep) {
                q->has_dep = 0;
                /* release: pairs with the acquire load of ndeps at commit (this
                 * transaction's commit happens before the dependant's) */
                SHW(SHW_PEER);
                if (atomic_fetch_sub_explicit(&q->txn->ndeps, 1, memory_order_release) == 1)
                    wait_wake(q->txn->thread); /* its commit waits for ndeps == 0 */
            }
    }
    lq_unlatch(l, l->whead ? grant_x(l, w, rl) : w);
}
