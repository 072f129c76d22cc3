/* The sampler: the driver's main thread, from the start of warm-up until the last worker
 * left, sleeps through the timed phases in short slices, ends the intervals of the
 * throughput series (struct series, driver.h), shows the progress line and feeds the
 * stall watchdog.
 *
 * Sampling: each worker publishes the number of queries it committed so far (never
 * reset) in a cache line of its own (struct sampler_feed), with relaxed stores, and the
 * main thread sums them every few milliseconds for the progress line and at every
 * --series-interval for the throughput series. The transactions themselves write nothing
 * shared for it.
 *
 * Watchdog (benchmarks/watchdog.h): from warm-up until the last worker left, the main
 * thread counts as progress the commits, the workers that left, the sleeps of idle
 * open-loop clients and those of workers paused by the warm-up's reservation while the
 * reserver runs (benchmarks/driver.c), and for each worker also its aborted attempts; if
 * the run's count or a worker's stands still for --stall-timeout seconds it prints what
 * each worker waits for (its wait record, storage/wait.h) and every thread's backtrace
 * (deadline.h), and exits with status 3.
 *
 * Threading: a struct sampler belongs to the main thread; a worker writes its own struct
 * sampler_feed, the main thread only reads it. */
#ifndef BENCH_SAMPLER_H
#define BENCH_SAMPLER_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "benchmarks/driver.h"
#include "benchmarks/watchdog.h"
#include "storage/cpu_usage.h"
#include "storage/wait.h"

/* What a worker publishes for the sampler (a member of the driver's struct worker). */
struct sampler_feed {
    /* set (release) when the worker left its loop; the main thread polls it (acquire) */
    _Atomic bool exited;
    struct wait_rec wait; /* the worker's wait record, a cache line of its own */
    /* queries committed so far, in every phase: written by the worker only, read by the
     * main thread (relaxed both: a count, nothing is published with it); in a cache line
     * of its own with idle_beats and aborted, as they come last in a line-aligned struct */
    alignas(CACHE_LINE) _Atomic uint64_t committed;
    /* sleeps of this client while idle in open loop (arrivals_wait), and its paused
     * rounds while the reserver runs (worker_pause): progress for the watchdog; like
     * `committed`, written by the worker only */
    _Atomic uint64_t idle_beats;
    /* attempts aborted so far: the worker's own progress for the watchdog (it is not
     * stuck in one wait); like `committed` */
    _Atomic uint64_t aborted;
};

struct sampler {
    const struct sampler_feed *const *feeds; /* worker i's is feeds[i] */
    int n;
    struct series *s;
    struct watchdog wd;
    double t0;     /* warm-up start */
    double last_s; /* end of the series' last interval (t0 at first) */
    uint64_t last; /* commits then */
    struct cpu_usage last_cpu; /* the process's CPU counters then */
    uint64_t *each; /* the workers' progress counts, fed to the watchdog */
};

/* Starts sampling the n workers' feeds at the start of warm-up (now) into s, whose
 * interval_s is set; the watchdog calls a stall after stall_timeout_s (0: never). */
void sampler_start(struct sampler *sm, const struct sampler_feed *const *feeds, int n,
                   struct series *s, double stall_timeout_s);
/* The workers' commits so far, over all phases. */
uint64_t sampler_commits(const struct sampler *sm);
/* Ends a series interval at `now`. */
void sampler_sample(struct sampler *sm, double now);
/* Sleeps through a phase of len seconds that began at `start`, in short slices: ends a
 * series interval at each multiple of the interval after `start` (not one within 1% of
 * an interval of the end: the caller ends the phase's last interval), shows the progress
 * line and feeds the watchdog. */
void sampler_timed_phase(struct sampler *sm, const char *name, double start, double len);
/* Waits until *flag is set, feeding the watchdog (no progress line, no series interval). */
void sampler_wait_flag(struct sampler *sm, const _Atomic bool *flag);
/* Waits until every worker left its loop, feeding the watchdog. */
void sampler_wait_exits(struct sampler *sm);

#endif
