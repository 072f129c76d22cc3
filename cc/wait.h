/* Waiting policy shared by every algorithm that waits (locks, dependencies, latches):
 * spin with a pause for WAIT_SPINS rounds, then yield the CPU on every round, so runs
 * with more threads than cores keep making progress instead of burning the lock holder's
 * time slice. */
#ifndef CC_WAIT_H
#define CC_WAIT_H

#include <sched.h>

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
    if (*rounds < WAIT_SPINS) {
        (*rounds)++;
        cpu_relax();
    } else {
        sched_yield();
    }
}

#endif
