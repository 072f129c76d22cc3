/* The whole-run watchdog (--run-timeout): a thread of its own, started before the load,
 * that ends the process with exit status 3 if it has not exited by its deadline, after
 * printing what every thread of the run is doing: its role, its phase, what it waits for
 * (its wait record, storage/wait.h) and a backtrace, which each thread writes itself from
 * a signal handler (glibc backtrace_symbols_fd). It also watches the counted phases the
 * sampler's stall watchdog does not (load, query generation): when their count (rows
 * loaded, queries made: progress_count, benchmarks/progress.h) stands still for
 * --stall-timeout seconds, the run has stalled: the same report, exit 3.
 *
 * Threads take a slot (deadline_enter) while they run: the main thread, loaders, workers,
 * the warm-up's reserver, the backup coordinator. Each sets its own phase (deadline_phase,
 * a string with static storage), read by the watchdog thread relaxed: a diagnostic,
 * nothing is published with it. Threads without a slot (an algorithm's own, such as
 * Silo's epoch thread, or a library's) are found in /proc/self/task and reported as
 * unnamed, with their backtrace.
 *
 * Threading: deadline_start and deadline_stall_report belong to the main thread;
 * deadline_enter, deadline_leave and deadline_phase to the thread they describe. */
#ifndef BENCH_DEADLINE_H
#define BENCH_DEADLINE_H

#include <stdbool.h>
#include <stdio.h>

/* Testing the watchdogs (--hang-in ROLE:PHASE): the first thread of that role to enter
 * that phase blocks there for good. Roles main, loader, worker, reserver, backup; the
 * phases each takes are in deadline.c. false, with a message in err, if spec names no
 * such pair. Call before deadline_start. */
bool deadline_set_hang(const char *spec, char *err, unsigned errlen);
/* Starts the watchdog thread: the process must exit within timeout_s seconds of now; a
 * counted phase must progress every stall_timeout_s (0: never checked). Also makes the
 * calling thread the "main" thread's slot, in phase "start". */
void deadline_start(double timeout_s, double stall_timeout_s);
/* The calling thread takes a slot as `role` number `id` (-1: none); with its wait record
 * if it is a worker (wait_register first). */
void deadline_enter(const char *role, int id);
/* The calling thread gives its slot back (before it exits). */
void deadline_leave(void);
/* The calling thread's phase: "load", "generate", "measure", ... Counted phases
 * ("load", "generate") of the main thread are watched for progress. */
void deadline_phase(const char *phase);
/* Prints every thread's slot line and backtrace to f (the stall watchdog's report ends
 * with it). */
void deadline_report_threads(FILE *f);

#endif
