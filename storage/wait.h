/* Waiting policy shared by every algorithm that waits (locks, dependencies, latches):
 * spin with a pause for WAIT_SPINS rounds, then yield the CPU for WAIT_YIELDS rounds, then
 * sleep WAIT_SLEEP_NS per round. Runs with more threads than cores keep making progress:
 * a long waiter leaves the run queue, so the (possibly preempted) transaction it waits
 * for gets the CPU instead of sharing it with spinning and yielding waiters. */
#ifndef STORAGE_WAIT_H
#define STORAGE_WAIT_H

#include <sched.h>
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

#endif
