/* Cheap time stamps: the CPU's time-stamp counter, calibrated against CLOCK_MONOTONIC at
 * start (clock_calibrate), never a hard-coded frequency. On CPUs without an invariant
 * TSC reachable from C (non-x86), falls back to CLOCK_MONOTONIC in nanoseconds. */
#ifndef STORAGE_CLOCK_H
#define STORAGE_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t clock_ticks(void) { return __rdtsc(); }
#else
static inline uint64_t clock_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

static inline double clock_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CLOCK_MONOTONIC in nanoseconds: one clock for all threads (the history's real-time
 * order compares times taken on different cores). */
static inline uint64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* clock_ticks() when the process started (timestamps count from it, so they stay small). */
extern uint64_t clock_ticks_base;

/* --clock-skew-us in ticks: timestamp algorithms set the clocks of odd-numbered threads
 * this far back (0: one clock for all). */
extern uint64_t clock_skew_ticks;

/* Ticks per second, measured once by clock_calibrate (about 50 ms). */
extern double clock_ticks_per_s;
void clock_calibrate(void);

static inline double clock_ticks_to_s(uint64_t t) { return (double)t / clock_ticks_per_s; }

#endif
