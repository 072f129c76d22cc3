/* Waits-for graph with eager cycle detection, shared by DL_DETECT and RCC's deadlock
 * handling (RCC-D adds an edge per dependency; 2PL replaces a waiter's edges per wait).
 *
 * Nodes are threads; an edge names the attempt waited for by its id (cc/txn.h: the id is
 * (thread + 1) << 40 | counter, so it also names the thread). An edge is live only while
 * the target thread's node is published for that same attempt: edges to attempts that
 * ended are ignored, so nobody has to clean up other threads' edges.
 *
 * Each node is written only by its own thread, as a seqlock (seq odd while it changes);
 * readers copy a node's edges and drop the copy if seq moved. Eager detection is
 * complete (Dekker style): every thread publishes its edges (seq_cst store) before it
 * searches (seq_cst loads), so of the threads whose edges close a cycle, the last to
 * publish sees all of it. Both ends may see it and both abort: safe, only wasteful.
 */
#ifndef CC_WAITS_FOR_H
#define CC_WAITS_FOR_H

#include <stdbool.h>
#include <stdint.h>

#include "cc/stats.h"

/* Once per run, for threads 0..nthreads-1 (each node holds up to 2 * nthreads edges). */
void wf_init(int nthreads);
void wf_fini(void);
/* Thread `self`, once, before it waits: allocates its node's edges and search scratch
 * (in its own arena: first touched by it). */
void wf_thread_init(int self);
/* Thread `self`, in attempt `me`, now waits for exactly the attempts ids[0..n). */
void wf_set(int self, uint64_t me, const uint64_t *ids, int n);
/* Adds one edge (deduplicated by thread: a newer attempt of the same thread replaces an
 * older one); thread `self` is in attempt `me`. */
void wf_add(int self, uint64_t me, uint64_t id);
/* Thread `self` waits for nothing. */
void wf_clear(int self);
/* Whether a cycle through `self` (in attempt `me`) exists among the live edges. The
 * search reads at most WF_SEARCH_MAX_EDGES edges (config.h); one cut short counts as a
 * cycle. Its cost goes to st (deadlock_searches, deadlock_edges, deadlock_truncated). */
bool wf_cycle(int self, uint64_t me, struct txn_stats *st);
/* Most edges a node can hold. */
int wf_capacity(void);

#endif
