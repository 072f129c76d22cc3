/* variants: bamboo
 * Bamboo's side of the per-row lock (cc/lock_queue.h, rules 6-10), driven from one
 * thread: the uncontended acquire and leave (the inline paths), a commit
 * dependency behind a retired request and its hand-over when the retired head leaves
 * (rule 8), an older request refused behind a younger retired one (rule 7), and a leave
 * that grants a waiter. Each case checks the lock word, the owners and the retired list. */
#include "cc/lock_queue.h"
#include "tests/unit/check.h"

static struct lq_txn txn_at(uint64_t ts, int thread)
{
    struct lq_txn x;
    lq_txn_init(&x, thread);
    x.ts = ts;
    x.id = ts;
    return x;
}

static uint64_t word(struct lq_rlock *rl)
{
    return atomic_load_explicit(&rl->q.word, memory_order_relaxed);
}

/* Leaves r as commit does: latch, then lq_bb_leave_unlatch. */
static void leave(struct lq_rlock *rl, struct lq_req *r)
{
    lq_bb_leave_unlatch(rl, r, lq_latch(&rl->q));
}

static void shared_owners_come_and_go(void)
{
    struct lq_rlock rl;
    lq_rinit(&rl);
    struct lq_txn a = txn_at(1, 0), b = txn_at(2, 1);
    struct lq_req ra, rb;
    uint64_t w;
    lq_req_init(&ra, &a, LQ_MODE_SH);
    lq_req_init(&rb, &b, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&rl, &ra, LQ_MODE_SH, &w));
    CHECK(lq_bb_acquire(&rl, &rb, LQ_MODE_SH, &w));
    CHECK_EQ_U(word(&rl), 2 * LQ_SH_ONE);
    leave(&rl, &ra);
    CHECK_EQ_U(word(&rl), LQ_SH_ONE);
    CHECK(rl.q.owners == &rb && !rb.onext);
    leave(&rl, &rb);
    CHECK_EQ_U(word(&rl), 0);
    CHECK(!rl.q.owners && !rl.rtail);
    CHECK_EQ_U(atomic_load(&a.ndeps) + atomic_load(&b.ndeps), 0);
}

static void exclusive_owner_leaves(void)
{
    struct lq_rlock rl;
    lq_rinit(&rl);
    struct lq_txn a = txn_at(1, 0);
    struct lq_req ra;
    uint64_t w;
    lq_req_init(&ra, &a, LQ_MODE_EX);
    CHECK(lq_bb_acquire(&rl, &ra, LQ_MODE_EX, &w));
    CHECK_EQ_U(word(&rl), LQ_EX);
    leave(&rl, &ra);
    CHECK_EQ_U(word(&rl), 0);
    CHECK(!rl.q.owners);
}

/* A retires its write; younger B reads behind it (a dependency); A's leave hands it on. */
static void dependency_behind_retired(void)
{
    struct lq_rlock rl;
    lq_rinit(&rl);
    struct lq_txn a = txn_at(1, 0), b = txn_at(2, 1);
    struct lq_req ra, rb;
    uint64_t w;
    lq_req_init(&ra, &a, LQ_MODE_EX);
    lq_req_init(&rb, &b, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&rl, &ra, LQ_MODE_EX, &w));
    lq_bb_retire(&rl, &ra);
    CHECK(ra.retired && rl.rtail == &ra && !rl.q.owners);
    CHECK_EQ_U(word(&rl), 0);
    CHECK(lq_bb_acquire(&rl, &rb, LQ_MODE_SH, &w));
    CHECK(rb.has_dep);
    CHECK_EQ_U(atomic_load(&b.ndeps), 1);
    CHECK_EQ_U(word(&rl), LQ_SH_ONE);
    leave(&rl, &ra); /* the retired head: rule 8 */
    CHECK(!ra.retired && !rl.rtail);
    CHECK(!rb.has_dep);
    CHECK_EQ_U(atomic_load(&b.ndeps), 0);
    CHECK_EQ_U(word(&rl), LQ_SH_ONE);
    leave(&rl, &rb);
    CHECK_EQ_U(word(&rl), 0);
    CHECK(!rl.q.owners);
}

/* Rule 7: an older request is not granted behind a younger retired one. */
static void older_refused_behind_retired(void)
{
    struct lq_rlock rl;
    lq_rinit(&rl);
    struct lq_txn young = txn_at(5, 0), old = txn_at(1, 1);
    struct lq_req ry, ro;
    uint64_t w;
    lq_req_init(&ry, &young, LQ_MODE_EX);
    lq_req_init(&ro, &old, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&rl, &ry, LQ_MODE_EX, &w));
    lq_bb_retire(&rl, &ry);
    CHECK(!lq_bb_acquire(&rl, &ro, LQ_MODE_SH, &w)); /* refused: the latch is held */
    CHECK(word(&rl) & LQ_LATCH);
    lq_unlatch(&rl.q, w);
    CHECK(!rl.q.owners);
    CHECK_EQ_U(atomic_load(&old.ndeps), 0);
    leave(&rl, &ry);
    CHECK(!rl.rtail);
    CHECK_EQ_U(word(&rl), 0);
}

/* An owner's leave grants the waiter behind it (the out-of-line grant). */
static void leave_grants_waiter(void)
{
    struct lq_rlock rl;
    lq_rinit(&rl);
    struct lq_txn a = txn_at(1, 0), b = txn_at(2, 1);
    struct lq_req ra, rb;
    uint64_t w;
    lq_req_init(&ra, &a, LQ_MODE_SH);
    lq_req_init(&rb, &b, LQ_MODE_EX);
    CHECK(lq_bb_acquire(&rl, &ra, LQ_MODE_SH, &w));
    CHECK(!lq_bb_acquire(&rl, &rb, LQ_MODE_EX, &w));
    CHECK(lq_bb_enqueue(&rl, &rb, false, w) == LQ_WAIT); /* younger: waits, wounds nobody */
    CHECK_EQ_U(atomic_load(&a.state), LQ_RUNNING);
    CHECK(rl.q.whead == &rb);
    leave(&rl, &ra);
    CHECK_EQ_U(atomic_load(&rb.granted), 1);
    CHECK(rl.q.owners == &rb && !rl.q.whead);
    CHECK_EQ_U(word(&rl), LQ_EX);
    leave(&rl, &rb);
    CHECK_EQ_U(word(&rl), 0);
}

int main(void)
{
    RUN_CASE(shared_owners_come_and_go);
    RUN_CASE(exclusive_owner_leaves);
    RUN_CASE(dependency_behind_retired);
    RUN_CASE(older_refused_behind_retired);
    RUN_CASE(leave_grants_waiter);
    return check_failures ? 1 : 0;
}
