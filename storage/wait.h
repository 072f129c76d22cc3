/* Waiting policy shared by every algorithm that waits (locks, dependencies, latches):
 * spin with a pause for WAIT_SPINS rounds, then yield the CPU for WAIT_YIELDS rounds, then
 * sleep WAIT_SLEEP_NS per round. Runs with more threads than cores keep making progress:
 * a long waiter leaves the run queue, so the (possibly preempted) transaction it waits
 * for gets the CPU instead of sharing it with spinning and yielding waiters.
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
 * Wait records: one per worker thread, in a cache line of its own, written only by its
 * thread (wait_self points to it; threads that are no workers share a record nobody
 * reads). Every field is stored and loaded relaxed: the record is a diagnostic snapshot,
 * read by the watchdog only when the run has stalled (then nothing changes); nothing is
 * published with it. */
#ifndef STORAGE_WAIT_H
#define STORAGE_WAIT_H

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "config/config.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* One round of waiting; `*rounds` starts at 0 for each wait. */
static inline void wait_round(unsigned *rounds)
{
    unsigned r = (*rounds)++;
    if (r < WAIT_SPINS) {
        cpu_relax();
    } else if (r < WAIT_SPINS + WAIT_YIELDS) {
        sched_yield();
    } else {
        struct timespec ts = {0, WAIT_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
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
    X(WAIT_EXITED, "finished")               /* the worker left its loop */

#define WAIT_ENUM_(e, s) e,
enum wait_kind { WAIT_KINDS(WAIT_ENUM_) WAIT_NKINDS };
#undef WAIT_ENUM_

extern const char *const wait_kind_names[WAIT_NKINDS];

struct wait_rec {
    alignas(CACHE_LINE) _Atomic uint32_t kind; /* enum wait_kind */
    _Atomic int32_t holder;     /* thread it waits for, -1: unknown */
    _Atomic uintptr_t row;      /* struct row * it waits on, 0: none */
};

extern _Thread_local struct wait_rec *wait_self;
/* Set (to true) when the measured window ends; reset before a run starts. */
extern _Atomic bool wait_stop;

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
