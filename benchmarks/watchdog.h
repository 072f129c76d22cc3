/* The stall watchdog: the driver's main thread feeds it, as it samples, a progress count of
 * the run (commits, plus workers that ended after the window, plus sleeps of idle open-loop
 * clients and of workers paused while the warm-up's reserver runs) and one of each worker
 * (the same, plus its aborted attempts). When the run's count has not changed for
 * --stall-timeout watched seconds (watchdog_unwatched_s), the run has stalled; when a
 * worker's has not, that worker has (it sits in one wait, or one attempt, that long: a
 * deadlock of a few threads while the others go on). watchdog_report then says what each
 * worker is doing from its wait record (storage/wait.h), and the driver exits with
 * status 3.
 *
 * Threading: a struct watchdog belongs to the main thread; watchdog_report only loads
 * the workers' records (relaxed). */
#ifndef BENCH_WATCHDOG_H
#define BENCH_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "storage/wait.h"

struct watchdog {
    double timeout_s;  /* 0: never stalls */
    double since_s;    /* when the run's progress last changed (moved forward past the
                        * gaps the watcher did not see: watchdog_unwatched_s) */
    double last_s;     /* the last look */
    uint64_t progress; /* its value then */
    int n;             /* workers */
    double *each_since;    /* when worker i's progress last changed (moved as since_s) */
    uint64_t *each;        /* its value then */
    int stuck;         /* after a stall: the worker that stalled, -1: the whole run */
};

/* Time the watcher did not look (its thread starved of a core, or the whole VM paused,
 * the workers with it) is no evidence that the run stood still: a gap between two looks
 * counts at most a quarter of the timeout, so no single gap, however long, makes a stall;
 * the workers then have three quarters of the timeout of watched time to show progress.
 * A real stall still fires once the timeout of watched time has passed. Returns how far
 * the "since" times move forward after a look gap_s after the one before. */
static inline double watchdog_unwatched_s(double gap_s, double timeout_s)
{
    return gap_s > timeout_s / 4 ? gap_s - timeout_s / 4 : 0;
}

void watchdog_start(struct watchdog *wd, double timeout_s, double now_s, uint64_t progress,
                    int n, const uint64_t *each);
/* each[i] of a worker that has left: it waits for nothing, so it cannot stall. */
#define WATCHDOG_LEFT UINT64_MAX
/* Feeds the run's progress count and each worker's (each[i]) at now_s; true when one of
 * them has not changed for timeout_s. */
bool watchdog_stalled(struct watchdog *wd, double now_s, uint64_t progress,
                      const uint64_t *each);
/* Writes the stall report: what stalled, then one line a worker, "thread 3: waiting for a
 * lock on accounts key 42, blocked by thread 5 (1234 commits)". recs[i] and commits[i]
 * belong to worker i. */
void watchdog_report(FILE *f, const struct watchdog *wd, double now_s,
                     const struct wait_rec *const *recs, const uint64_t *commits);
/* Writes what a wait record says ("waiting for a lock on accounts key 42, blocked by
 * thread 5"), no newline. */
void watchdog_print_wait(FILE *f, const struct wait_rec *rec);
void watchdog_fini(struct watchdog *wd);

#endif
