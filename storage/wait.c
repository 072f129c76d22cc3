/* Wait records, the two waiting modes and futex parking (see wait.h). */
#include "storage/wait.h"
#include "storage/shared_writes.h"

#include <assert.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WAIT_NAME_(e, s) s,
const char *const wait_kind_names[WAIT_NKINDS] = {WAIT_KINDS(WAIT_NAME_)};
#undef WAIT_NAME_

/* The record of threads that are no workers (loaders, unit tests): written, never read. */
static struct wait_rec wait_nobody;
_Thread_local struct wait_rec *wait_self = &wait_nobody;
_Thread_local int wait_self_id = -1;
_Atomic bool wait_stop;
bool wait_parking;
/* in ticks; until a driver calls wait_set_parking, ticks count as nanoseconds */
uint64_t wait_spin_ticks = WAIT_SPIN_NS, wait_park_spin_ticks = WAIT_PARK_SPIN_NS;

/* Workers' records by thread id: written while the worker starts (before it can be
 * waited for: its thread id reaches others only through the requests and entries it
 * links later, which are published by latches and release stores) and after it left. */
static struct wait_rec *_Atomic recs[MAX_THREADS];

void wait_register(int id, struct wait_rec *rec)
{
    wait_self = rec;
    wait_self_id = id;
    atomic_store_explicit(&recs[id], rec, memory_order_release);
}

void wait_unregister(int id) { atomic_store_explicit(&recs[id], NULL, memory_order_relaxed); }

void wait_set_parking(bool parking)
{
    wait_parking = parking;
    wait_spin_ticks = (uint64_t)(WAIT_SPIN_NS * 1e-9 * clock_ticks_per_s);
    wait_park_spin_ticks = (uint64_t)(WAIT_PARK_SPIN_NS * 1e-9 * clock_ticks_per_s);
}

static inline struct wait_rec *rec_of(int thread)
{
    /* acquire: pairs with wait_register */
    return thread >= 0 && thread < MAX_THREADS
               ? atomic_load_explicit(&recs[thread], memory_order_acquire)
               : NULL;
}

static void park(struct wait_rec *me, uint32_t seq, long ns)
{
    struct timespec ts = {0, ns};
    /* seq_cst: ordered before the kernel's read of `wake`, against the waker's seq_cst
     * bump then load of `parked` (wait.h, no lost wake-ups) */
    atomic_store(&me->parked, 1);
    syscall(SYS_futex, &me->wake, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
    atomic_store_explicit(&me->parked, 0, memory_order_relaxed);
}

/* Whether the thread this one waits for (its wait record's holder) is parked itself:
 * then spinning cannot end the wait soon. relaxed: a hint. */
static bool holder_parked(const struct wait_rec *me)
{
    struct wait_rec *h = rec_of(atomic_load_explicit(&me->holder, memory_order_relaxed));
    return h && atomic_load_explicit(&h->parked, memory_order_relaxed);
}

void wait_park_round(struct waiter *w)
{
    struct wait_rec *me = wait_self;
    uint64_t waited = clock_ticks() - w->since;
    if (waited < wait_park_spin_ticks && (w->latch || !holder_parked(me))) {
        unsigned n = w->latch ? 1u << (w->rounds < 7 ? w->rounds - 1 : 6) : 1;
        for (unsigned i = 0; i < n; i++)
            cpu_relax();
    } else if (me == &wait_nobody || (w->latch && waited < 25 * wait_park_spin_ticks)) {
        /* a latch is held briefly: its holder, if not running, is runnable; yield to it
         * for a while before sleeping. Loaders always yield: nobody wakes them. */
        sched_yield();
    } else if (w->on == WAIT_WOKEN) {
        park(me, w->seq, WAIT_PARK_NS);
    } else if (w->on >= 0 && w->on != wait_self_id && rec_of(w->on)) {
        struct wait_rec *h = rec_of(w->on);
        _Atomic uint64_t *word = &h->watchers[wait_self_id / 64];
        uint64_t bit = 1ull << (wait_self_id % 64);
        /* relaxed: only decides whether to register; the registration is the RMW */
        if (atomic_load_explicit(word, memory_order_relaxed) & bit)
            park(me, w->seq, WAIT_PARK_NS);
        else { /* seq_cst: see wait.h; the caller re-checks before the next round parks */
            SHW(SHW_PEER);
            atomic_fetch_or(word, bit);
            /* and a fence: the caller's re-check may be an acquire load, which C11 (and
             * AArch64's LDAPR) may otherwise order before the RMW's store */
            atomic_thread_fence(memory_order_seq_cst);
        }
    } else {
        park(me, w->seq, WAIT_SLEEP_NS);
    }
    /* acquire: pairs with the waker's bump, so the caller's re-check sees its change */
    w->seq = atomic_load_explicit(&me->wake, memory_order_acquire);
}

/* The futex word is the int itself: an _Atomic int is a plain 4-byte int (lock-free). */
_Static_assert(sizeof(_Atomic int) == 4, "wait_word's futex word is 4 bytes");

int wait_word(_Atomic int *word, int value)
{
    struct waiter w = WAITER(WAIT_BLIND);
    int v;
    while ((v = atomic_load_explicit(word, memory_order_acquire)) == value) {
        if (!wait_parking) {
            wait_round(&w);
            continue;
        }
        wait_word_sleep(word, value, WAIT_WORD_PARK_NS); /* the caller's loop re-checks */
    }
    return v;
}

void wait_word_sleep(_Atomic int *word, int value, long max_ns)
{
    /* no lost wake-up: the kernel sleeps only while the word still holds `value`,
     * checked under its futex lock, which the waker's FUTEX_WAKE (after its store) takes
     * too. An interrupted or timed-out sleep returns to the caller, who re-checks. */
    assert(max_ns > 0 && max_ns <= 999999999); /* else the futex call fails at once */
    struct timespec ts = {0, max_ns};
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, value, &ts, NULL, 0);
}

/* In spin mode too: wait_word_sleep sleeps in either mode (a wake with no sleeper costs
 * one system call, a few times per run). */
void wait_word_wake(_Atomic int *word)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Deferred wake-ups of this thread (wait_wake). */
#define WAKE_PENDING_MAX 16
static _Thread_local int wake_pending[WAKE_PENDING_MAX];
static _Thread_local int wake_npending;
/* Whether this thread woke a parked thread since its transaction's last end. */
static _Thread_local bool woke_parked;

static void wake_now(int thread);

void wait_wake_later(int thread)
{
    for (int i = 0; i < wake_npending; i++)
        if (wake_pending[i] == thread)
            return;
    if (wake_npending == WAKE_PENDING_MAX)
        wait_wake_flush_slow();
    wake_pending[wake_npending++] = thread;
}

void wait_wake_flush_slow(void)
{
    for (int i = 0; i < wake_npending; i++)
        wake_now(wake_pending[i]);
    wake_npending = 0;
}

static void wake_now(int thread)
{
    struct wait_rec *r = rec_of(thread);
    if (!r)
        return;
    /* seq_cst both: see wait.h (no lost wake-ups) */
    SHW(SHW_PEER);
    atomic_fetch_add(&r->wake, 1);
    if (atomic_load(&r->parked)) {
        syscall(SYS_futex, &r->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        woke_parked = true;
    }
}

void wait_wake_watchers_slow(void)
{
    struct wait_rec *me = wait_self;
    if (me == &wait_nobody)
        return;
    /* seq_cst: orders the caller's change before the loads of `watchers` (wait.h) */
    atomic_thread_fence(memory_order_seq_cst);
    for (int k = 0; k < WAIT_WATCH_WORDS; k++) {
        if (!atomic_load_explicit(&me->watchers[k], memory_order_relaxed))
            continue;
        SHW(SHW_OWN);
        uint64_t m = atomic_exchange(&me->watchers[k], 0);
        for (; m; m &= m - 1)
            wake_now(k * 64 + __builtin_ctzll(m));
    }
}

void wait_txn_end_slow(void)
{
    wait_wake_flush_slow();
    wait_wake_watchers_slow();
    /* The threads woken during this transaction (lock grants, ends of waits) got rows
     * or results this one handed on; let them run now rather than when this thread next
     * blocks: a granted lock is idle until its new holder runs. Only here, between
     * transactions: a yield in the middle of one would hold its locks longer. */
    if (woke_parked) {
        woke_parked = false;
        sched_yield();
    }
}
