/* Waiting, shared by every algorithm that waits (locks, dependencies, latches).
 *
 * Two modes, chosen by the driver for a run (wait_set_parking) and fixed during it:
 *  - spin (no more threads than CPUs, the default): a waiter pauses in a loop for
 *    WAIT_SPIN_NS, then yields the CPU every round. It never sleeps: the thread it waits
 *    for has a core of its own, and a hand-off costs no wake-up.
 *  - park (more threads than CPUs): a waiter spins WAIT_PARK_SPIN_NS (not at all while
 *    the thread its wait record names as holder is parked itself), then leaves the run
 *    queue (futex) so the threads it waits for get the CPU, and is woken by whoever ends
 *    its wait. A thread that woke parked threads yields once its transaction has ended
 *    (wait_txn_end), so they run while it starts the next one. How a waiter is woken is
 *    said when its wait starts (struct waiter's `on`):
 *      WAIT_WOKEN  the waker knows the waiter (a lock grant, a wound, a cascade, the
 *                  last commit dependency) and calls wait_wake(thread);
 *      a thread    the wait ends when that thread's transaction ends (or, RCC, seals an
 *                  entry): the waiter registers in that thread's `watchers` and the
 *                  thread calls wait_txn_end() (wait_wake_watchers() at a seal) then;
 *      WAIT_BLIND  nobody knows (latches, seqlocks): it sleeps WAIT_SLEEP_NS per round
 *                  (a latch waiter first yields for 25 x WAIT_PARK_SPIN_NS: its holder
 *                  is runnable).
 *    A parked waiter also wakes after WAIT_PARK_NS (a safety net: a missed wake-up costs
 *    time, never progress). Latch waits (WAITER_LATCH) back off exponentially while they
 *    spin, in both modes, so a contended latch line is not hammered.
 *
 * No lost wake-ups (park mode). Each record has a futex word `wake`, bumped by every
 * wake-up of its thread. A waiter reads it (acquire) at the end of every round, before
 * the caller checks its condition again, and parks only while it still has that value;
 * a waker changes the condition (release), then bumps `wake` (seq_cst RMW) and calls
 * futex_wake only if the waiter said it parks (`parked`, seq_cst store before the
 * futex_wait): either the waiter's re-read sees the bump (and so the condition), or the
 * kernel's check does, or the waker sees `parked`. A registered waiter sets its bit in
 * the watched thread's `watchers` (seq_cst RMW) one round before it parks, so the
 * caller re-checks the condition after registering; the watched thread changes the
 * condition, then a seq_cst fence, then reads `watchers`: either it sees the bit, or the
 * waiter's re-check sees the change.
 *
 * Two things every long wait (a lock queue, commit dependencies, RCC's pre-commit and
 * append waits) does besides, both only on its slow path:
 *  - it publishes what it waits for in its thread's wait record (wait_note / wait_end),
 *    which the driver's watchdog prints when nothing commits for --stall-timeout seconds;
 *  - it gives up when the run is over (wait_stopped): the waiter aborts its attempt
 *    (AR_STOPPED), so a run ends soon after its measured window however long the chains
 *    of waiters are. Waits that complete an abort (Bamboo's undo order) do not give up:
 *    they wait only for transactions that are aborting too.
 *
 * Wait records: one per worker thread (wait_register), written only by its thread except
 * `wake` (wakers) and `watchers` (registering waiters, in a line of its own); threads that
 * are no workers share a record nobody reads or wakes. kind, holder and row are stored
 * and loaded relaxed: a diagnostic snapshot, read by the watchdog only when the run has
 * stalled (then nothing changes); nothing is published with them. */
#ifndef STORAGE_WAIT_H
#define STORAGE_WAIT_H

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "storage/clock.h"
#include "config/config.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#define WAIT_WATCH_WORDS ((MAX_THREADS + 63) / 64)

struct wait_rec {
    alignas(CACHE_LINE) _Atomic uint32_t kind; /* enum wait_kind */
    _Atomic int32_t holder;     /* thread it waits for, -1: unknown */
    _Atomic uintptr_t row;      /* struct row * it waits on, 0: none */
    _Atomic uint32_t wake;      /* futex word: bumped by each wake-up of this thread */
    _Atomic uint32_t parked;    /* 1 while the thread parks (or is about to) on `wake` */
    /* threads to wake when this thread's transaction ends (bit per thread) */
    alignas(CACHE_LINE) _Atomic uint64_t watchers[WAIT_WATCH_WORDS];
};

/* This thread's record and worker id (-1: no worker). */
extern _Thread_local struct wait_rec *wait_self;
extern _Thread_local int wait_self_id;
/* Set (to true) when the measured window ends; reset before a run starts. */
extern _Atomic bool wait_stop;
/* Park mode (see the top); written only while no worker runs. */
extern bool wait_parking;

/* A worker thread makes rec its record, as thread `id` (its own thread calls it). */
void wait_register(int id, struct wait_rec *rec);
/* Forgets worker id's record (after the worker was joined). */
void wait_unregister(int id);
/* Chooses the mode for the next run (before its workers start). */
void wait_set_parking(bool parking);

/* How a wait ends (struct waiter's `on`): a thread id >= 0, or one of these. */
enum { WAIT_BLIND = -1, WAIT_WOKEN = -2 };

/* One wait in progress: a waiter starts zeroed but for `on` and `latch`, e.g.
 * struct waiter wt = WAITER(WAIT_WOKEN); while (!cond) wait_round(&wt); */
struct waiter {
    unsigned rounds;
    uint32_t seq;   /* `wake` as read at the end of the last round */
    uint64_t since; /* clock_ticks() at the first round */
    int on;
    bool latch;     /* back off while spinning */
};
#define WAITER(on_) ((struct waiter){.on = (on_)})
#define WAITER_LATCH ((struct waiter){.on = WAIT_BLIND, .latch = true})

/* Ticks of WAIT_SPIN_NS, WAIT_PARK_SPIN_NS (set by wait_set_parking). */
extern uint64_t wait_spin_ticks, wait_park_spin_ticks;

void wait_park_round(struct waiter *w);

/* One round of waiting: the caller checks its condition again after it. */
static inline void wait_round(struct waiter *w)
{
    unsigned r = w->rounds++;
    if (r == 0)
        w->since = clock_ticks();
    if (wait_parking) {
        wait_park_round(w);
        return;
    }
    if (clock_ticks() - w->since >= wait_spin_ticks) {
        sched_yield();
        return;
    }
    unsigned n = w->latch ? 1u << (r < 6 ? r : 6) : 1;
    for (unsigned i = 0; i < n; i++)
        cpu_relax();
}

/* Waits while *word holds `value`, for a word that changes a few times per run (the
 * driver's phase at its start barrier), and returns the value that differs (an acquire
 * load: pairs with the release store that changed it). Park mode: the thread sleeps on
 * the word itself until wait_word_wake (at most WAIT_WORD_PARK_NS per round, a safety
 * net), so a barrier of many threads costs no wake-ups while the laggards it waits for
 * still need the CPU; spin mode: WAIT_BLIND rounds. */
int wait_word(_Atomic int *word, int value);
/* One sleep on the word, in either mode: returns when wait_word_wake wakes it, when the
 * word does not hold `value` (then at once), or after at most max_ns (1 to 999999999),
 * whichever comes first; the caller re-reads the word. For a wait that must show signs
 * of life while it lasts (the driver's paused workers count a beat per round in which the
 * reserver ran). */
void wait_word_sleep(_Atomic int *word, int value, long max_ns);
/* Wakes every thread in wait_word or wait_word_sleep on `word`: call after the store
 * that changed it. */
void wait_word_wake(_Atomic int *word);

void wait_wake_later(int thread);
void wait_wake_flush_slow(void);
void wait_wake_watchers_slow(void);
void wait_txn_end_slow(void);

/* The condition thread `thread` waits for (WAIT_WOKEN) may have changed: wakes it if it
 * parks. Call after the change is published. The wake-up is deferred to the caller's next
 * wait_wake_flush (a futex syscall is not made under a latch): latches that wakers hold
 * flush when they are released (lq_unlatch, RCC's unlatch), and so does the end of
 * every transaction (wait_wake_watchers). */
static inline void wait_wake(int thread)
{
    if (wait_parking && thread != wait_self_id) /* a grant of one's own request: awake */
        wait_wake_later(thread);
}

/* Makes the deferred wake-ups of this thread (call after releasing a latch). */
static inline void wait_wake_flush(void)
{
    if (wait_parking)
        wait_wake_flush_slow();
}

/* RCC sealed an entry: wakes the threads that registered to wait for this one. Call
 * after the change is published. */
static inline void wait_wake_watchers(void)
{
    if (wait_parking) {
        wait_wake_flush_slow();
        wait_wake_watchers_slow();
    }
}

/* This thread's transaction ended (committed or aborted, everything released): wakes the
 * threads that registered to wait for it, then, if it woke parked threads during the
 * transaction, yields so that they run. */
static inline void wait_txn_end(void)
{
    if (wait_parking)
        wait_txn_end_slow();
}

/* What a thread waits for. */
#define WAIT_KINDS(X)                                                                        \
    X(WAIT_NONE, "running")                 /* not in a long wait */                          \
    X(WAIT_LOCK, "waiting for a lock")       /* a lock queue (2PL family, Bamboo) */           \
    X(WAIT_APPEND, "waiting for an open write") /* RCC: an overlapping entry is OPEN */         \
    X(WAIT_DEPS, "waiting for commit dependencies") /* Bamboo: retired requests ahead */      \
    X(WAIT_PRECOMMIT, "pre-commit wait")     /* RCC: a predecessor is not done */              \
    X(WAIT_ABORT, "abort waiting for dependants to leave") /* Bamboo: undo order */           \
    X(WAIT_BACKOFF, "back-off before a retry") /* the driver */                                \
    X(WAIT_NETWORK, "in a network leg")      /* the network model (cc/netmodel.h) */           \
    X(WAIT_STORAGE, "in a storage I/O")      /* the storage model (storage/storage_model.h) */ \
    X(WAIT_RESPONSE, "waiting for a response") /* NCC: response timing control */            \
    X(WAIT_PENDING, "waiting for an older pending write") /* timestamp ordering (STO, MVTO) */\
    X(WAIT_PAUSED, "paused while the warm-up reserves memory") /* the driver's pause */     \
    X(WAIT_EXITED, "finished")               /* the worker left its loop */

#define WAIT_ENUM_(e, s) e,
enum wait_kind { WAIT_KINDS(WAIT_ENUM_) WAIT_NKINDS };
#undef WAIT_ENUM_

extern const char *const wait_kind_names[WAIT_NKINDS];

/* Starts a long wait of this thread: what for, on which row (NULL: none), held by which
 * thread (-1: unknown). */
static inline void wait_note(enum wait_kind k, const void *row, int holder)
{
    struct wait_rec *w = wait_self;
    atomic_store_explicit(&w->row, (uintptr_t)row, memory_order_relaxed);
    atomic_store_explicit(&w->holder, holder, memory_order_relaxed);
    atomic_store_explicit(&w->kind, (uint32_t)k, memory_order_relaxed);
}

/* The holder, once it is known (lock queues learn it under their latch). */
static inline void wait_note_holder(int holder)
{
    atomic_store_explicit(&wait_self->holder, holder, memory_order_relaxed);
}

static inline void wait_end(void)
{
    atomic_store_explicit(&wait_self->kind, WAIT_NONE, memory_order_relaxed);
}

/* Whether the run is over: a waiter then gives up. acquire: pairs with the driver's
 * release store, which follows its store of the STOP phase, so a worker that gave up here
 * also sees STOP and does not retry (slow paths only: a plain load on x86). */
static inline bool wait_stopped(void)
{
    return atomic_load_explicit(&wait_stop, memory_order_acquire);
}

#endif
