/* Progress of a run's long phases on stderr: loading, query generation, warm-up and the
 * measured window. On a terminal (isatty(2)) one line is rewritten in place ("\r", then
 * clear to the end of the line) at most PROGRESS_TTY_S apart; otherwise plain lines, one
 * at each phase start and then at most one a second. Nothing before progress_init, nor
 * with --quiet (so unit tests that load a workload stay silent).
 *
 * Threading: every function but progress_add, progress_beat and progress_count belongs to
 * the main thread. */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

void progress_init(bool quiet);
/* Starts a counted phase ("load", "generate"): `total` units named `unit`, none done yet;
 * shows its first line. */
void progress_phase(const char *phase, const char *unit, uint64_t total);
/* Counts n more units of the counted phase done (any thread). Loaders of many small units
 * (rows) add them in batches of PROGRESS_BATCH: one shared atomic add per batch. */
void progress_add(uint64_t n);
#define PROGRESS_BATCH 4096
/* Counts a piece of work the line does not show (a TPC-C load task), so the whole-run
 * watchdog (deadline.h) sees a loader move. Any thread. */
void progress_beat(void);
/* Units done in the current counted phase plus beats: a count that grows while a counted
 * phase progresses (it drops when the next phase starts). Any thread. */
uint64_t progress_count(void);
/* Shows the counted phase's line when one is due: "load 3/100 warehouses 12.3 s". */
void progress_tick(void);
/* Shows a timed phase's line when one is due, or at once with `start`: "measure 2.0/5.0 s
 * 198000 commits/s". `count` is a running total of commits (over all phases); the rate is
 * its growth since the previous line. */
void progress_timed(bool start, const char *phase, double elapsed_s, double length_s,
                    uint64_t count);
/* Erases the line on a terminal, before other output (a warning); the next line redraws. */
void progress_clear(void);
/* Ends progress output: on a terminal, a newline after the line shown. */
void progress_end(void);

#endif
