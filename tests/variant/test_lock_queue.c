/* variants: bamboo
 * Bamboo's side of the per-row lock (cc/lock_queue.h, rules 6-10), driven from one
 * thread: the uncontended acquire and leave (the inline paths), a commit
 * dependency behind a retired request and its hand-over when the retired head leaves
 * (rule 8), an older request refused behind a younger retired one (rule 7), and a leave
 * that grants a waiter. Each case checks the lock word, the owners and the retired list. */
#include "cc/lock_queue.h"
#include "tests/unit/check.h"

/* A fresh lock and two transactions, a and b (priorities ts_a and ts_b: smaller is
 * older), each with one request (ra of mode_a, rb of mode_b) not yet made. */
struct two {
    struct lq_rlock rl;
    struct lq_txn a, b;
    struct lq_req ra, rb;
    uint64_t w; /* the word an acquire returned */
};

static void two_init(struct two *f, uint64_t ts_a, enum lq_mode mode_a, uint64_t ts_b,
                     enum lq_mode mode_b)
{
    lq_rinit(&f->rl);
    lq_txn_init(&f->a, 0);
    lq_txn_init(&f->b, 1);
    f->a.ts = f->a.id = ts_a;
    f->b.ts = f->b.id = ts_b;
    lq_req_init(&f->ra, &f->a, mode_a);
    lq_req_init(&f->rb, &f->b, mode_b);
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
    struct two f;
    two_init(&f, 1, LQ_MODE_SH, 2, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&f.rl, &f.ra, LQ_MODE_SH, &f.w));
    CHECK(lq_bb_acquire(&f.rl, &f.rb, LQ_MODE_SH, &f.w));
    CHECK_EQ_U(word(&f.rl), 2 * LQ_SH_ONE);
    leave(&f.rl, &f.ra);
    CHECK_EQ_U(word(&f.rl), LQ_SH_ONE);
    CHECK(f.rl.q.owners == &f.rb && !f.rb.onext);
    leave(&f.rl, &f.rb);
    CHECK_EQ_U(word(&f.rl), 0);
    CHECK(!f.rl.q.owners && !f.rl.rtail);
    CHECK_EQ_U(atomic_load(&f.a.ndeps) + atomic_load(&f.b.ndeps), 0);
}

static void exclusive_owner_leaves(void)
{
    struct two f;
    two_init(&f, 1, LQ_MODE_EX, 2, LQ_MODE_EX);
    CHECK(lq_bb_acquire(&f.rl, &f.ra, LQ_MODE_EX, &f.w));
    CHECK_EQ_U(word(&f.rl), LQ_EX);
    leave(&f.rl, &f.ra);
    CHECK_EQ_U(word(&f.rl), 0);
    CHECK(!f.rl.q.owners);
}

/* A retires its write; younger B reads behind it (a dependency); A's leave hands it on. */
static void dependency_behind_retired(void)
{
    struct two f;
    two_init(&f, 1, LQ_MODE_EX, 2, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&f.rl, &f.ra, LQ_MODE_EX, &f.w));
    lq_bb_retire(&f.rl, &f.ra);
    CHECK(f.ra.retired && f.rl.rtail == &f.ra && !f.rl.q.owners);
    CHECK_EQ_U(word(&f.rl), 0);
    CHECK(lq_bb_acquire(&f.rl, &f.rb, LQ_MODE_SH, &f.w));
    CHECK(f.rb.has_dep);
    CHECK_EQ_U(atomic_load(&f.b.ndeps), 1);
    CHECK_EQ_U(word(&f.rl), LQ_SH_ONE);
    leave(&f.rl, &f.ra); /* the retired head: rule 8 */
    CHECK(!f.ra.retired && !f.rl.rtail);
    CHECK(!f.rb.has_dep);
    CHECK_EQ_U(atomic_load(&f.b.ndeps), 0);
    CHECK_EQ_U(word(&f.rl), LQ_SH_ONE);
    leave(&f.rl, &f.rb);
    CHECK_EQ_U(word(&f.rl), 0);
    CHECK(!f.rl.q.owners);
}

/* Rule 7: an older request (b) is not granted behind a younger retired one (a). */
static void older_refused_behind_retired(void)
{
    struct two f;
    two_init(&f, 5, LQ_MODE_EX, 1, LQ_MODE_SH);
    CHECK(lq_bb_acquire(&f.rl, &f.ra, LQ_MODE_EX, &f.w));
    lq_bb_retire(&f.rl, &f.ra);
    CHECK(!lq_bb_acquire(&f.rl, &f.rb, LQ_MODE_SH, &f.w)); /* refused: the latch is held */
    CHECK(word(&f.rl) & LQ_LATCH);
    lq_unlatch(&f.rl.q, f.w);
    CHECK(!f.rl.q.owners);
    CHECK_EQ_U(atomic_load(&f.b.ndeps), 0);
    leave(&f.rl, &f.ra);
    CHECK(!f.rl.rtail);
    CHECK_EQ_U(word(&f.rl), 0);
}

/* An owner's leave grants the waiter behind it (the out-of-line grant). */
static void leave_grants_waiter(void)
{
    struct two f;
    two_init(&f, 1, LQ_MODE_SH, 2, LQ_MODE_EX);
    CHECK(lq_bb_acquire(&f.rl, &f.ra, LQ_MODE_SH, &f.w));
    CHECK(!lq_bb_acquire(&f.rl, &f.rb, LQ_MODE_EX, &f.w));
    CHECK(lq_bb_enqueue(&f.rl, &f.rb, false, f.w) == LQ_WAIT); /* younger: waits, wounds nobody */
    CHECK_EQ_U(atomic_load(&f.a.state), LQ_RUNNING);
    CHECK(f.rl.q.whead == &f.rb);
    leave(&f.rl, &f.ra);
    CHECK_EQ_U(atomic_load(&f.rb.granted), 1);
    CHECK(f.rl.q.owners == &f.rb && !f.rl.q.whead);
    CHECK_EQ_U(word(&f.rl), LQ_EX);
    leave(&f.rl, &f.rb);
    CHECK_EQ_U(word(&f.rl), 0);
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
