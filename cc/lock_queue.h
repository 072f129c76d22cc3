/* Per-row lock with a queue: the one lock module of the 2PL family (NO_WAIT, WAIT_DIE,
 * WOUND_WAIT, DL_DETECT) and Bamboo. The conflict policy is the only difference between
 * them; it is a parameter of the slow path (callers pass a constant). Bamboo adds a
 * retired list (struct lq_rlock, rules 6-10 below); the 2PL family never sees it.
 *
 * State (struct lq_lock, in the row's CC slot): its word and lists are described above the
 * struct below.
 *
 * Two ways to use the word:
 *  - Lock-free (NO_WAIT: nobody needs to know who holds a lock): lq_try_sh adds to the
 *    word, lq_try_ex/upgrade CAS it, lq_free_sh/ex subtract. LATCH is never set and the
 *    lists stay empty.
 *  - Queued (the waiting policies: they need the holders' identities and timestamps):
 *    every acquire and release takes the latch (a CAS), changes the lists and the
 *    counts, and stores the new word with the latch clear (release). Uncontended, that is
 *    two atomic RMWs per lock, as many as the lock-free way.
 *
 * Rules:
 *  1. The lists, every request's link fields, mode and upgrading are only touched with
 *     the latch held (the owning thread fills a request before it links it).
 *  2. req->granted is cleared by lq_enqueue when the request starts to wait and set once,
 *     under the latch, by whoever grants it (release); the waiter polls it (acquire)
 *     without the latch. A waiter may cancel only under the latch, after checking that
 *     it was not granted in the meantime. The owners' timestamps (txn->ts) are read under
 *     the latch: an owner writes its ts at begin, before it links any request.
 *  3. Row data written in place by an exclusive holder is published by the release store
 *     that frees the word (or unlatches); the next holder's acquire (CAS or the latch,
 *     then the grant flag) synchronises with it.
 *  4. Grants: the head waiter is granted while it is compatible with the owners (an
 *     upgrade: it is the only owner); granting stops at the first incompatible one. A
 *     new request is granted at once only when it would be at the head.
 *  5. lq_txn.state (WOUND_WAIT) goes RUNNING -> WOUNDED by a wounder that holds the latch
 *     of a row where the victim's request is linked (so the victim is still in that
 *     attempt), or RUNNING -> COMMITTING by the owner at commit start; the owner resets it
 *     to RUNNING at begin, when it holds no request anywhere.
 *
 * Bamboo (LQ_BAMBOO: wound-wait plus retired locks; struct lq_rlock = lq_lock + retired):
 *  6. retired  requests of exclusive owners that retired (lq_bb_retire) after their last
 *     write: linked through onext/oprev (a request is an owner or retired, never both) in
 *     retire order, which is timestamp order (youngest at rtail). The word counts owners
 *     only. Every owner is younger than every retired request.
 *  7. Grants behind retired requests: a new request (not an upgrade) is granted only if,
 *     besides rule 4, the retired list is empty or its tail is older than the requester
 *     and no retired request is aborting (naborting == 0). A request granted behind a
 *     non-empty retired list reads their dirty data: it gets has_dep and its txn's ndeps
 *     is incremented. Its enqueue wounds every younger owner it conflicts with and every
 *     younger retired request.
 *  8. has_dep means "some retired request is ahead of me on this row". It is cleared (and
 *     ndeps decremented, release) when that stops being true, which only happens when the
 *     head of the retired list leaves by committing: the next retired request becomes
 *     head, or, when none is left, every owner is freed. A transaction commits when its
 *     ndeps reads 0 (acquire): every predecessor has committed.
 *  9. Cascade: a retired request r that aborts first marks itself aborting (naborting++)
 *     and marks LQ_CASCADED every transaction behind it (later retired requests and all
 *     owners: all of them read r's writes) (lq_bb_abort_mark). It then waits until it is
 *     the tail and no owner is left (lq_bb_latch_alone): everyone behind has restored its
 *     own before-image and left, in reverse order, so the row is restored exactly once per
 *     writer, newest first, and no reader ever sees a half-restored row (undo invariant:
 *     a row's data is restored by a writer only when nobody behind it is linked, under the
 *     latch; the restored image is the image of the writer ahead of it, or the committed
 *     one). Aborts wait only for younger transactions, which are already marked, so the
 *     waiting ends.
 * 10. lq_txn.state may also go RUNNING -> CASCADED (lq_cascade) by a transaction that
 *     holds the latch of a row where the victim's request is linked; ndeps is written at
 *     begin by its owner (relaxed: no request linked) and otherwise only under latches.
 * Lock order: one row latch at a time; nothing is acquired while a latch is held.
 */
#ifndef CC_LOCK_QUEUE_H
#define CC_LOCK_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/dlist.h"
#include "storage/latch.h"
#include "storage/wait.h"
#include "storage/shared_writes.h"

enum lq_policy { LQ_NO_WAIT, LQ_WAIT_DIE, LQ_WOUND_WAIT, LQ_DL_DETECT, LQ_BAMBOO };
enum lq_mode { LQ_MODE_SH = 1, LQ_MODE_EX = 2 };
enum lq_state { LQ_RUNNING = 0, LQ_WOUNDED = 1, LQ_COMMITTING = 2, LQ_CASCADED = 3 };
/* What lq_enqueue decided. */
enum lq_rc { LQ_GRANTED, LQ_WAIT, LQ_DIE };

#define LQ_LATCH ((uint64_t)1)
#define LQ_EX ((uint64_t)2)
#define LQ_SH_ONE ((uint64_t)4)

/* A transaction as the lock module sees it: one per thread, reused by every attempt. */
struct lq_txn {
    uint64_t ts;                  /* priority (smaller = older); owner writes at begin */
    uint64_t id;                  /* the attempt's id (waits-for edges) */
    _Atomic uint32_t state;       /* enum lq_state, rules 5 and 10 */
    int thread;
    _Atomic uint32_t ndeps;       /* Bamboo: rows with a retired request ahead (rule 8) */
};

/* One transaction's request on one row: granted (in owners) or waiting (in the waiters),
 * or both while it waits to upgrade. Allocated in the requester's arena. */
struct lq_req {
    struct lq_req *onext, *oprev;
    struct lq_req *wnext, *wprev;
    struct lq_txn *txn;
    uint8_t mode;      /* granted mode (owner) or wanted mode (new waiter) */
    uint8_t upgrading; /* an owner of mode SH waiting for EX */
    _Atomic uint8_t granted; /* meaningful only while waiting: lq_enqueue clears it */
    uint8_t retired;   /* Bamboo: in the retired list (set by its owner, latch held) */
    uint8_t has_dep;   /* Bamboo: counted in txn->ndeps (rule 8) */
    uint8_t aborting;  /* Bamboo: retired and aborting (rule 9) */
};

/* State (struct lq_lock, in the row's CC slot):
 *   word    bit 0 LQ_LATCH: the queue latch; bit 1 LQ_EX: held exclusive;
 *           bits 2..63: number of shared holders (LQ_SH_ONE each).
 *   owners  granted requests (doubly linked through onext/oprev), unordered.
 *   whead   waiting requests (doubly linked through wnext/wprev, the tail in the head's
 *           wprev: storage/dlist.h's TIH lists), in the policy's order: WAIT_DIE
 *           youngest first, WOUND_WAIT oldest first, DL_DETECT FIFO; upgrades always go
 *           to the head (the upgrader already holds a shared lock, so every waiter behind
 *           it waits for it anyway).
 * 24 bytes: with Bamboo's retired list (struct lq_rlock) 40, so a TPC-C STOCK row of
 * Bamboo's takes 6 cache lines (7 with a tail pointer per list and the count alone).
 */
struct lq_lock {
    _Atomic uint64_t word;
    struct lq_req *owners;
    struct lq_req *whead;
};

static inline void lq_init(struct lq_lock *l)
{
    atomic_init(&l->word, 0);
    l->owners = l->whead = NULL;
}

/* Thread `thread`'s transaction before its first attempt: no priority or id yet, running,
 * no commit dependencies. */
static inline void lq_txn_init(struct lq_txn *x, int thread)
{
    x->ts = 0;
    x->id = 0;
    x->thread = thread;
    atomic_init(&x->state, LQ_RUNNING);
    atomic_init(&x->ndeps, 0);
}

/* ---- lock-free use (NO_WAIT) ---- */

static inline bool lq_try_sh(struct lq_lock *l)
{
#ifdef MUTANT_TWOPL_NO_READ_LOCK /* mutant: NO_WAIT reads take no lock (and free none) */
    return true;
#endif
    /* One fetch-add, no CAS loop (readers of a hot row do not retry against each other).
     * A reader that finds the lock exclusive takes its count back; meanwhile the count is
     * off by one, which only makes an lq_try_ex / lq_try_upgrade fail (so lq_free_ex
     * subtracts LQ_EX rather than storing 0). acquire: pairs with the release in
     * lq_free_ex (data of the last writer). */
    SHW(SHW_ROW);
    uint64_t w = atomic_fetch_add_explicit(&l->word, LQ_SH_ONE, memory_order_acquire);
    if (!(w & (LQ_EX | LQ_LATCH)))
        return true;
    SHW(SHW_ROW);
    atomic_fetch_sub_explicit(&l->word, LQ_SH_ONE, memory_order_relaxed);
    return false;
}

static inline bool lq_try_ex(struct lq_lock *l)
{
    uint64_t w = 0;
    /* acquire: pairs with the release in lq_free_ex / lq_free_sh (readers done) */
    SHW(SHW_ROW);
    return atomic_compare_exchange_strong_explicit(&l->word, &w, LQ_EX, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* Shared -> exclusive, only as the sole shared holder. */
static inline bool lq_try_upgrade(struct lq_lock *l)
{
    uint64_t w = LQ_SH_ONE;
#ifdef MUTANT_TWOPL_NO_READ_LOCK /* mutant: no shared lock to upgrade */
    w = 0;
#endif
    /* acquire: pairs with the release in lq_free_sh of the other readers */
    SHW(SHW_ROW);
    return atomic_compare_exchange_strong_explicit(&l->word, &w, LQ_EX, memory_order_acquire,
                                                   memory_order_relaxed);
}

static inline void lq_free_sh(struct lq_lock *l)
{
#ifdef MUTANT_TWOPL_NO_READ_LOCK /* mutant: no shared lock to free */
    return;
#endif
    /* release: pairs with the acquire of the next exclusive holder (lq_try_ex/upgrade) */
    SHW(SHW_ROW);
    atomic_fetch_sub_explicit(&l->word, LQ_SH_ONE, memory_order_release);
}

static inline void lq_free_ex(struct lq_lock *l)
{
    /* A subtraction, not a store of 0: readers that failed may still have their count
     * in the word (lq_try_sh). release: pairs with the acquire of the next holder
     * (lq_try_sh/ex). */
    SHW(SHW_ROW);
    atomic_fetch_sub_explicit(&l->word, LQ_EX, memory_order_release);
}

/* ---- queued use (the waiting policies) ---- */

/* Takes the latch; returns the word (latch bit clear) it held. Its acquire and
 * lq_unlatch's release order the lists, counts and row data (storage/latch.h). */
static inline uint64_t lq_latch(struct lq_lock *l)
{
    SHW(SHW_ROW);
    return latch_bit_acquire(&l->word, LQ_LATCH);
}

/* Stores the new word w (its latch bit clear), ending the critical section. */
static inline void lq_unlatch(struct lq_lock *l, uint64_t w)
{
    SHW(SHW_ROW);
    latch_bit_release(&l->word, w);
    wait_wake_flush(); /* grants, wounds and cascades made under the latch */
}

static inline void lq_owner_link(struct lq_lock *l, struct lq_req *r)
{
    DLIST_NOTAIL_PUSH(l->owners, r, onext, oprev);
}

static inline void lq_owner_unlink(struct lq_lock *l, struct lq_req *r)
{
    DLIST_NOTAIL_UNLINK(l->owners, r, onext, oprev);
}

/* Fills request r for txn x wanting `mode` (a fresh request, not linked anywhere). */
static inline void lq_req_init(struct lq_req *r, struct lq_txn *x, enum lq_mode mode)
{
    r->txn = x;
    r->mode = (uint8_t)mode;
    r->upgrading = 0;
    r->retired = 0;
    r->has_dep = 0;
    r->aborting = 0;
}

/* The uncontended case of a new request, latch held (w: the word): grants r if it needs
 * no queue (no waiters, compatible with the owners) and unlatches. False: the latch is
 * still held, for lq_enqueue. */
static inline bool lq_grant_latched(struct lq_lock *l, struct lq_req *r, enum lq_mode mode,
                                    uint64_t w)
{
    if (l->whead || (mode == LQ_MODE_SH ? (w & LQ_EX) != 0 : w != 0))
        return false;
    lq_owner_link(l, r);
    lq_unlatch(l, mode == LQ_MODE_SH ? w + LQ_SH_ONE : LQ_EX);
    return true;
}

/* The same, taking the latch first; on false *w is the word. */
static inline bool lq_acquire(struct lq_lock *l, struct lq_req *r, enum lq_mode mode,
                              uint64_t *w)
{
    *w = lq_latch(l);
    return lq_grant_latched(l, r, mode, *w);
}

/* The same for an upgrade of owner r (mode SH): granted at once if r is the only owner
 * (an upgrade does not queue behind waiters, rule 4). */
static inline bool lq_upgrade(struct lq_lock *l, struct lq_req *r, uint64_t *w)
{
    uint64_t v = lq_latch(l);
    if (v != LQ_SH_ONE) {
        *w = v;
        return false;
    }
    r->mode = LQ_MODE_EX;
    lq_unlatch(l, LQ_EX);
    return true;
}

/* Grants the waiters compatible with word w, then unlatches (lq_release's slow path). */
void lq_grant_unlatch(struct lq_lock *l, uint64_t w);

/* Unlinks owner r (latch held, w the word); returns the word without r's hold. */
static inline uint64_t lq_owner_leave(struct lq_lock *l, struct lq_req *r, uint64_t w)
{
    lq_owner_unlink(l, r);
    return r->mode == LQ_MODE_EX ? 0 : w - LQ_SH_ONE;
}

/* Releases the granted request r and grants the waiters that became compatible. */
static inline void lq_release(struct lq_lock *l, struct lq_req *r)
{
    uint64_t w = lq_owner_leave(l, r, lq_latch(l));
    if (l->whead)
        lq_grant_unlatch(l, w);
    else
        lq_unlatch(l, w);
}

/* The conflict path, with the latch held since lq_acquire / lq_upgrade returned false
 * (w: the word they returned). r->granted need not be set. Applies the policy: LQ_DIE (WAIT_DIE: an older conflicting owner;
 * nothing is queued), LQ_GRANTED, or LQ_WAIT (r is queued; WOUND_WAIT has wounded the
 * younger conflicting owners). For DL_DETECT the ids of the attempts r waits for (every
 * other owner and every waiter ahead of r) are written to blk (room for 2 * threads);
 * *nblk is their count. Releases the latch. NO_WAIT must not call it. */
enum lq_rc lq_enqueue(struct lq_lock *l, struct lq_req *r, bool upgrade, uint64_t w,
                      enum lq_policy pol, uint64_t *blk, int *nblk);

/* Waits until r is granted; returns false as soon as the run is over (wait_stopped) or,
 * with `watch`, *watch reads LQ_WOUNDED or LQ_CASCADED (the caller then cancels). True:
 * granted. The caller has noted the wait (wait_note); lq_enqueue noted the holder. */
bool lq_wait(struct lq_req *r, const _Atomic uint32_t *watch);

/* Withdraws a waiting request (wounded, deadlock victim). Returns true if it had been
 * granted in the meantime (the caller then holds it: a new request must be released, an
 * upgrade is now exclusive); false: it is out of the queue (an upgrader keeps its shared
 * lock). */
bool lq_cancel(struct lq_lock *l, struct lq_req *r);

/* WOUND_WAIT: marks x wounded unless it is committing; call with the latch of a row where
 * x holds a request. */
static inline void lq_wound(struct lq_txn *x)
{
    uint32_t s = LQ_RUNNING;
    /* relaxed: the victim only polls the flag; what it protects is ordered by latches */
    SHW(SHW_PEER);
    if (atomic_compare_exchange_strong_explicit(&x->state, &s, LQ_WOUNDED,
                                                memory_order_relaxed, memory_order_relaxed))
        wait_wake(x->thread); /* it may park in a lock wait it must now leave */
}

/* Bamboo: the same for a cascading abort (rule 10). */
static inline void lq_cascade(struct lq_txn *x)
{
    uint32_t s = LQ_RUNNING;
    /* relaxed: as lq_wound */
    SHW(SHW_PEER);
    if (atomic_compare_exchange_strong_explicit(&x->state, &s, LQ_CASCADED,
                                                memory_order_relaxed, memory_order_relaxed))
        wait_wake(x->thread);
}

/* ---- Bamboo: the retired list (rules 6-10) ---- */

struct lq_rlock {
    struct lq_lock q;
    struct lq_req *rtail; /* retired requests, oldest first: a list without a head
                           * pointer (storage/dlist.h, NOHEAD: the head's oprev is NULL) */
    uint32_t naborting;   /* retired requests that are aborting */
};

static inline void lq_rinit(struct lq_rlock *rl)
{
    lq_init(&rl->q);
    rl->rtail = NULL;
    rl->naborting = 0;
}

/* Rule 7: may a new request of x be granted behind rl's retired requests? (latch held) */
static inline bool lq_bb_retired_ok(const struct lq_rlock *rl, const struct lq_txn *x)
{
    return !rl->rtail || (rl->naborting == 0 && rl->rtail->txn->ts < x->ts);
}

/* Rule 7: r is granted behind a non-empty retired list: a commit dependency (latch held). */
static inline void lq_bb_add_dep(const struct lq_rlock *rl, struct lq_req *r)
{
    if (rl->rtail) {
        r->has_dep = 1;
        /* relaxed: read by the owner only after its grant (acquire) or its own CAS */
        SHW(SHW_PEER);
        atomic_fetch_add_explicit(&r->txn->ndeps, 1, memory_order_relaxed);
    }
}

/* A new request r (mode) of a fresh access: takes the latch and grants r at once if rules
 * 4 and 7 allow (then unlatches and returns true); false: the latch is still held and *w
 * is the word, for lq_bb_enqueue. Inline: it is every fresh access's path, and as a call
 * it spent a third of its instructions saving registers (partitioned TPC-C). */
static inline bool lq_bb_acquire(struct lq_rlock *rl, struct lq_req *r, enum lq_mode mode,
                                 uint64_t *w)
{
    struct lq_lock *l = &rl->q;
    uint64_t v = lq_latch(l);
    *w = v;
    if (l->whead || (mode == LQ_MODE_SH ? (v & LQ_EX) != 0 : v != 0) ||
        !lq_bb_retired_ok(rl, r->txn))
        return false;
    lq_owner_link(l, r);
    lq_bb_add_dep(rl, r);
    lq_unlatch(l, mode == LQ_MODE_SH ? v + LQ_SH_ONE : LQ_EX);
    return true;
}

/* lq_enqueue for Bamboo (wound-wait over owners and retired requests, rule 7). */
enum lq_rc lq_bb_enqueue(struct lq_rlock *rl, struct lq_req *r, bool upgrade, uint64_t w);
/* lq_cancel for Bamboo. */
bool lq_bb_cancel(struct lq_rlock *rl, struct lq_req *r);
/* Moves exclusive owner r to the tail of the retired list and grants waiters. */
void lq_bb_retire(struct lq_rlock *rl, struct lq_req *r);
/* Abort, first pass: if r is retired, marks it aborting and cascades to everyone behind
 * it (rule 9). */
void lq_bb_abort_mark(struct lq_rlock *rl, struct lq_req *r);
/* Abort, second pass: takes the latch, and if r is retired waits (unlatched) until nobody
 * is behind it; returns the word with the latch held. The caller may then restore its
 * before-image and calls lq_bb_leave_unlatch. `row` (the lock's row) is for the wait
 * record only. */
uint64_t lq_bb_latch_alone(struct lq_rlock *rl, struct lq_req *r, const void *row);
/* lq_bb_leave_unlatch's out-of-line parts: a retired r (the whole leave), and the grant
 * of waiters after an owner left (lq_grant_unlatch with rule 7). */
void lq_bb_retired_leave_unlatch(struct lq_rlock *rl, struct lq_req *r, uint64_t w);
void lq_bb_grant_unlatch(struct lq_rlock *rl, uint64_t w);
/* Unlinks r (owner or retired), hands rule 8 on if r was the head of the retired list,
 * grants the waiters and unlatches (w: the word, latch held). Used by commit (after
 * lq_latch: r is then the head or an owner with nothing retired ahead), by abort and by
 * a cancelled wait that was granted meanwhile. Inline for an owner (read locks, deletes,
 * writes that never retired) with nobody waiting, as lq_release. */
static inline void lq_bb_leave_unlatch(struct lq_rlock *rl, struct lq_req *r, uint64_t w)
{
    if (r->retired) {
        lq_bb_retired_leave_unlatch(rl, r, w);
        return;
    }
    w = lq_owner_leave(&rl->q, r, w);
    if (rl->q.whead)
        lq_bb_grant_unlatch(rl, w);
    else
        lq_unlatch(&rl->q, w);
}

#endif
