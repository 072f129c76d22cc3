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

#include <stddef.h>

uint64_t lq_latch_wait(struct lq_lock *l)
{
    unsigned rounds = 0;
    uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
    for (;;) {
        if (w & LQ_LATCH) {
            wait_round(&rounds);
            w = atomic_load_explicit(&l->word, memory_order_relaxed);
            /* acquire: pairs with the release store of lq_unlatch */
        } else if (atomic_compare_exchange_weak_explicit(&l->word, &w, w | LQ_LATCH,
                                                         memory_order_acquire,
                                                         memory_order_relaxed)) {
            return w;
        }
    }
}

/* ---- list helpers (latch held) ---- */

static inline void waiter_unlink(struct lq_lock *l, struct lq_req *r)
{
    if (r->wprev)
        r->wprev->wnext = r->wnext;
    else
        l->whead = r->wnext;
    if (r->wnext)
        r->wnext->wprev = r->wprev;
    else
        l->wtail = r->wprev;
}

/* Links r into the waiters before `pos` (NULL: at the tail). */
static void waiter_insert_before(struct lq_lock *l, struct lq_req *r, struct lq_req *pos)
{
    r->wnext = pos;
    if (pos) {
        r->wprev = pos->wprev;
        pos->wprev = r;
    } else {
        r->wprev = l->wtail;
        l->wtail = r;
    }
    if (r->wprev)
        r->wprev->wnext = r;
    else
        l->whead = r;
}

/* Grants waiters from the head while they are compatible with the owners (rule 4);
 * returns the new word. */
static uint64_t grant(struct lq_lock *l, uint64_t w)
{
    struct lq_req *h;
    while ((h = l->whead) != NULL) {
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
        } else {
            if (w)
                break;
            w = LQ_EX;
            waiter_unlink(l, h);
            lq_owner_link(l, h);
        }
        /* release: pairs with the acquire poll in lq_wait (the row's data, as published
         * to this latch by the previous holders) */
        atomic_store_explicit(&h->granted, 1, memory_order_release);
    }
    return w;
}

/* Whether owner o conflicts with request r (r wanting r->mode, or EX if upgrading). */
static inline bool conflicts(const struct lq_req *o, const struct lq_req *r, bool upgrade)
{
    if (o == r)
        return false;
    return upgrade || r->mode == LQ_MODE_EX || o->mode == LQ_MODE_EX;
}

enum lq_rc lq_enqueue(struct lq_lock *l, struct lq_req *r, bool upgrade, uint64_t w,
                      enum lq_policy pol, uint64_t *blk, int *nblk)
{
    struct lq_req *pos = NULL; /* insert before; NULL: tail */
    if (pol == LQ_WAIT_DIE) {
        for (struct lq_req *o = l->owners; o; o = o->onext)
            if (o->txn->ts < r->txn->ts && conflicts(o, r, upgrade)) {
                lq_unlatch(l, w);
                return LQ_DIE;
            }
        if (upgrade)
            pos = l->whead;
        else /* youngest first: behind every younger waiter */
            for (pos = l->whead; pos && pos->txn->ts > r->txn->ts; pos = pos->wnext)
                ;
    } else if (pol == LQ_WOUND_WAIT) {
        for (struct lq_req *o = l->owners; o; o = o->onext)
            if (o->txn->ts > r->txn->ts && conflicts(o, r, upgrade))
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
    atomic_store_explicit(&r->granted, 0, memory_order_relaxed);
    waiter_insert_before(l, r, pos);
    if (r == l->whead) {
        w = grant(l, w);
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
    lq_unlatch(l, w);
    return LQ_WAIT;
}

bool lq_wait(struct lq_req *r, const _Atomic uint32_t *watch)
{
    unsigned rounds = 0;
    /* acquire: pairs with the release store in grant() */
    while (!atomic_load_explicit(&r->granted, memory_order_acquire)) {
        /* relaxed: pairs with the CAS of lq_wound; only the flag itself is read */
        if (watch && atomic_load_explicit(watch, memory_order_relaxed) == LQ_WOUNDED)
            return false;
        wait_round(&rounds);
    }
    return true;
}

bool lq_cancel(struct lq_lock *l, struct lq_req *r)
{
    uint64_t w = lq_latch(l);
    /* relaxed: granted is only set under this latch, which we hold */
    if (atomic_load_explicit(&r->granted, memory_order_relaxed)) {
        lq_unlatch(l, w);
        return true;
    }
    waiter_unlink(l, r);
    r->upgrading = 0; /* an upgrader is back to a plain shared owner */
    w = grant(l, w); /* r may have blocked compatible waiters behind it */
    lq_unlatch(l, w);
    return false;
}

void lq_grant_unlatch(struct lq_lock *l, uint64_t w) { lq_unlatch(l, grant(l, w)); }
