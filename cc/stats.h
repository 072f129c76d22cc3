/* Per-thread transaction statistics, declared once as X-macro lists: the struct, the
 * summing and the JSON printing are all generated from these lists.
 *
 * Time breakdown (ticks, see clock.h), per attempt: the generic transaction and the
 * algorithm add to the attempt's wait/precommit/deadlock/index/commit timers; when the
 * attempt commits, those go to the totals and the rest of the attempt to `exec`; when it
 * aborts, the whole attempt goes to `abort` (wasted work). `backoff` is the sleep before a
 * retry. The parts sum to the workers' measured time. STATS_SUBTIMES are parts of one of
 * those components, reported beside them and never summed with them.
 *
 * Access counters (reads, writes, updates, reupdates) count the accesses of every attempt
 * of the measured window, committed or aborted. An update is a write-intent access of a row by the
 * workload: a txn_read_for_update, or a txn_write of a row the attempt had not yet
 * accessed with write intent (later txn_writes of the row belong to that update). A
 * re-update is an update of a row whose access already held write intent from an earlier
 * update of the same attempt (a second txn_read_for_update of it). Rows the attempt
 * inserted are not updated. rows_reused counts inserts that took the row of an earlier
 * aborted insert of the thread (storage/table.h, struct row_freelist). deadlock_searches,
 * _edges and _truncated: waits-for cycle searches (cc/waits_for.h), the edges they read,
 * and those cut short at WF_SEARCH_MAX_EDGES. */
#ifndef CC_STATS_H
#define CC_STATS_H

#include <stdint.h>

#include "storage/clock.h"
#include "config/config.h"

/* Counters an algorithm may keep of its own (cc.h, cc_alg_counter_names). */
#define CC_ALG_COUNTERS 8

/* Counters: name. */
#define STATS_COUNTERS(X)                                                                    \
    X(commits)                                                                               \
    X(aborts)                                                                                \
    X(reads)                                                                                 \
    X(writes)                                                                                \
    X(updates)                                                                               \
    X(reupdates)                                                                             \
    X(rows_reused)                                                                           \
    X(deadlock_searches)                                                                     \
    X(deadlock_edges)                                                                        \
    X(deadlock_truncated)

/* Time components: name (ticks in the struct, seconds in results). */
#define STATS_TIMES(X)                                                                       \
    X(exec)                                                                                  \
    X(wait)                                                                                  \
    X(precommit)                                                                             \
    X(deadlock)                                                                              \
    X(index)                                                                                 \
    X(commit)                                                                                \
    X(abort)                                                                                 \
    X(backoff)

/* Parts of a component above (committed attempts only, as that component): ww_wait is the
 * part of `wait` spent waiting for write (exclusive) access to a row, the RCC paper's "WW
 * lock wait" (2PL's exclusive lock requests and upgrades, Bamboo's, RCC's wait for an
 * open write entry of the row; optimistic algorithms never wait for it). */
#define STATS_SUBTIMES(X) X(ww_wait)

/* Abort reasons: enum name, name in results. */
#define ABORT_REASONS(X)                                                                     \
    X(AR_CONFLICT, "conflict")     /* no-wait lock conflict */                               \
    X(AR_DIE, "die")               /* wait-die: a younger requester dies */                  \
    X(AR_WOUNDED, "wounded")       /* wound-wait: wounded by an older transaction */         \
    X(AR_DEADLOCK, "deadlock")     /* chosen as a deadlock victim */                         \
    X(AR_VALIDATION, "validation") /* optimistic read-set validation failed */               \
    X(AR_WRITE_LOCK, "write_lock") /* optimistic commit could not lock its write set */      \
    X(AR_CASCADE, "cascade")       /* a transaction it depends on aborted */                 \
    X(AR_REUPDATE, "reupdate")     /* its read version was re-updated by its writer */       \
    X(AR_USER, "user")             /* the workload rolled back (e.g. TPC-C 1% NewOrder) */  \
    X(AR_DELETED, "deleted_row")   /* the row it reached was deleted by a committed txn */  \
    X(AR_RETRY, "retry")           /* the workload saw a commit still being published */   \
    X(AR_PHANTOM, "phantom")       /* RCC at SER, Bamboo: a key it missed exists at commit */ \
    X(AR_STOPPED, "stopped")       /* the run ended while it waited (storage/wait.h) */    \
    X(AR_EARLY, "early_abort")     /* NCC: a request aborted early (a higher timestamp) */  \
    X(AR_SAFEGUARD, "safeguard")   /* NCC: safeguard and smart retry failed */            \
    X(AR_READ_ONLY, "read_only_stale") /* NCC: a read-only read met a version past t_ro */ \
    X(AR_TS_ORDER, "ts_order")     /* timestamp ordering (STO, MVTO): an operation too late */ \
    X(AR_STALE_READ, "stale_read") /* geo: a replica read older than its leader's version */ \
    X(AR_FAILURE, "failure")       /* geo: a failure: no majority, or its decider timed out */

#define AR_ENUM_(e, s) e,
enum abort_reason { ABORT_REASONS(AR_ENUM_) AR_COUNT };
#undef AR_ENUM_

extern const char *const abort_reason_names[AR_COUNT];

struct txn_stats {
#define ST_FIELD_(n) uint64_t n;
    STATS_COUNTERS(ST_FIELD_)
#define ST_TIME_(n) uint64_t t_##n;
    STATS_TIMES(ST_TIME_)
    STATS_SUBTIMES(ST_TIME_)
#undef ST_FIELD_
#undef ST_TIME_
    uint64_t aborts_by[AR_COUNT];
    uint64_t alg[CC_ALG_COUNTERS]; /* the algorithm's own counters (cc_alg_counter_names) */
};

void txn_stats_add(struct txn_stats *sum, const struct txn_stats *s);

/* Per-attempt timers; compiled out with STATS_ENABLED 0. */
#if STATS_ENABLED
#define STATS_TICKS() clock_ticks()
#else
#define STATS_TICKS() ((uint64_t)0)
#endif

#endif
