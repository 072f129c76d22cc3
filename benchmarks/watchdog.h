/* The stall watchdog: the driver's main thread feeds it a progress count (commits, plus
 * workers that ended after the window) as it samples; when the count has not changed for
 * --stall-timeout seconds, the run has stalled, and watchdog_report says what each worker
 * is doing from its wait record (storage/wait.h). The driver then exits with status 3.
 *
 * Threading: a struct watchdog belongs to the main thread; watchdog_report only loads
 * the workers' records and counters (relaxed). */
#ifndef BENCH_WATCHDOG_H
#define BENCH_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "storage/wait.h"

struct watchdog {
    double timeout_s;  /* 0: never stalls */
    double since_s;    /* when progress last changed */
    uint64_t progress; /* its value then */
};

void watchdog_start(struct watchdog *wd, double timeout_s, double now_s, uint64_t progress);
/* Feeds the progress count at now_s; true when it has not changed for timeout_s. */
bool watchdog_stalled(struct watchdog *wd, double now_s, uint64_t progress);
/* Writes the stall report: one line a worker, "thread 3: waiting for a lock on
 * accounts key 42, blocked by thread 5 (1234 commits)". recs[i] and commits[i] belong to
 * worker i. */
void watchdog_report(FILE *f, const struct watchdog *wd, double now_s, int n,
                     const struct wait_rec *const *recs, const uint64_t *commits);

#endif
