/* The CC interface: both of its sides.
 *
 * 1. The transaction API, what workloads call (implemented once, in cc/txn.c). Column
 *    aware: each access names the columns it reads and each write the column it writes,
 *    so column-level algorithms can use them. Every call returns RC_OK or RC_ABORT; on
 *    RC_ABORT the workload returns RC_ABORT at once and the driver calls txn_abort, then
 *    retries the same query after a back-off. Abort is sticky: once a call returned
 *    RC_ABORT, every further call on the transaction returns RC_ABORT.
 *
 * 2. What an algorithm implements (the cc_* functions below). The Makefile links exactly
 *    one algorithm's .c file(s) into a binary; generic code never names an algorithm.
 *    Algorithms see the transaction's internals through cc/txn.h.
 *
 * Threading: a struct txn belongs to one worker thread; rows are shared.
 */
#ifndef CC_CC_H
#define CC_CC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cc/stats.h"

struct row;
struct table;
struct txn;
struct access;
struct hist_log;
struct idx_ordered;
struct net_stats;
struct sm_stats;

enum rc { RC_OK = 0, RC_ABORT = 1 };

typedef uint64_t colmask_t;
#define COLS_ALL (~(colmask_t)0)
#define COL_BIT(c) ((colmask_t)1 << (c))

/* Access types, ordered by strength: an access is upgraded, never downgraded. */
enum access_type {
    ACC_NONE = 0, /* fresh entry, not yet granted */
    ACC_READ,     /* plain read */
    ACC_WRITE,    /* read for update, then writes */
    ACC_INSERT,   /* a row created by this transaction, invisible until commit */
    ACC_DELETE,   /* exclusive access, row removed from its index at commit */
};

/* Isolation levels, weakest first: what an algorithm claims. txn_level_claimed (part 1)
 * derives it from cc_alg_strict, cc_alg_serializable and cc_alg_weak_level. */
enum cc_level { CC_LEVEL_NONE, CC_LEVEL_RC, CC_LEVEL_RR, CC_LEVEL_SER, CC_LEVEL_STRICT };

/* ---- 1. Transaction API (workloads) ---- */

/* Per-thread transaction context; `verify` turns on history recording. */
struct txn *txn_create(int thread_id, bool verify);
void txn_destroy(struct txn *t);
/* A fresh context for t's thread that goes on numbering ids after t (so --verify's ids
 * stay unique), when t is left to another thread: a failed client's attempt handed to a
 * backup coordinator (benchmarks/recovery.h). cc_thread_init it before use. */
struct txn *txn_fork(struct txn *t);

/* Starts an attempt. `retry`: this attempt re-runs the query the previous one aborted
 * (algorithms may keep their timestamp so the query eventually wins). */
void txn_begin(struct txn *t, bool retry);
/* Commits; RC_ABORT if validation/pre-commit failed (then call txn_abort). */
enum rc txn_commit(struct txn *t);
/* Ends an aborted attempt (after any call returned RC_ABORT): rollback, release. */
void txn_abort(struct txn *t);
/* The workload rolls back on purpose; returns RC_ABORT (reason AR_USER). The driver
 * counts the query as done (rolled back) and does not retry it. */
enum rc txn_user_abort(struct txn *t);
/* The workload found an index entry whose rows a concurrent commit has not published
 * yet; returns RC_ABORT (reason AR_RETRY) and the driver retries the query. */
enum rc txn_abort_retry(struct txn *t);
enum abort_reason txn_abort_reason(const struct txn *t);

/* Primary-key look-up (timed as index time). NULL if absent. */
struct row *txn_lookup(struct txn *t, struct table *tab, uint64_t key);
/* Hint: the attempt will access columns `cols` of row r of tab soon (`write`: to write
 * it; COLS_ALL: the whole row). Requests the row's lines (table_prefetch: every line where
 * the access touches the whole row, as a read of every column or an algorithm that copies
 * rows, else the first ones) and the per-key state the algorithm keeps off the row
 * (cc_prefetch), so that the misses of a transaction's rows overlap. No effect on what
 * any access sees. */
void txn_prefetch(struct txn *t, const struct table *tab, const struct row *r, bool write,
                  colmask_t cols);

/* Reads columns `cols` of row r; *img is the row image to read them from (valid until
 * the transaction ends; use col_ptr from storage/table.h). A later write of the row may
 * move the transaction's image (an algorithm may read the row's own until then): to see
 * its own writes, the transaction reads the row again. */
enum rc txn_read(struct txn *t, struct row *r, colmask_t cols, const unsigned char **img);
/* Like txn_read, with the intention to write (exclusive access, SELECT FOR UPDATE).
 * `cols` must include every column the transaction will write in this row: column-level
 * algorithms (RCC-C) track dependencies on the declared columns and stop the run on a
 * write outside them. */
enum rc txn_read_for_update(struct txn *t, struct row *r, colmask_t cols,
                            const unsigned char **img);
/* Writes column c of row r (gaining write access first if the transaction lacks it). */
enum rc txn_write(struct txn *t, struct row *r, int c, const void *value);
/* Creates a row with this key in tab, all columns zero. It becomes visible (and enters
 * tab's primary index) when the transaction commits. *img (when img is not NULL) is the
 * new row's image for the workload to fill in place through col_ptr, at no per-column
 * cost: the row is private until commit, and every column of it already counts as
 * written by this insert (--verify records the insert as one version per column).
 * txn_write on the row works too. A row whose insert aborts goes back to the thread's
 * free rows of tab (cc/txn.h) and is reused by the thread's next insert into tab. */
enum rc txn_insert(struct txn *t, struct table *tab, uint64_t key, struct row **out,
                   unsigned char **img);
/* The workload's read-modify-writes run at the server (struct workload's rmw_at_server);
 * set by the driver before the workers start. */
extern bool txn_rmw_at_server;

/* Declares, right after txn_begin, that this attempt will only read (a hint: algorithms
 * with a read-only protocol use it, NCC; a write after it is a workload bug that those
 * algorithms stop the run on). */
void txn_declare_read_only(struct txn *t);
/* Marks the end of a shot: the requests made so far could go out together; those after it
 * depend on their replies (e.g. keys read from a row). Only the network model uses it (a
 * new execution round per shot, cc/netmodel.h); algorithms do not see it. */
void txn_shot_end(struct txn *t);
/* TXN_NOTE_SIZE bytes (8-aligned) of the context for the workload: what an attempt saw,
 * written by its run and read by the workload's committed hook (benchmarks/workload.h).
 * They belong to the context, not to the thread, so they travel with an attempt handed
 * to a backup coordinator (txn_fork). Never cleared: an attempt writes them before its
 * hook reads them. */
#define TXN_NOTE_SIZE 32
void *txn_note(struct txn *t);
/* Hint: this transaction will access row r no more (e.g. the last write of a query to
 * it); algorithms that release early (Bamboo retires its lock) use it, others ignore it. */
void txn_last_access(struct txn *t, struct row *r);
/* Deletes row r: exclusive access now, removal from the primary index at commit. An
 * access to a row whose delete has committed returns RC_ABORT (reason AR_DELETED). */
enum rc txn_delete(struct txn *t, struct row *r);
/* Secondary (ordered) index maintenance, applied at commit together with the inserts and
 * deletes (while the algorithm holds the rows exclusively); nothing happens on abort.
 * The caller must hold write access to `r` (an insert, delete or write of it). */
void txn_index_insert(struct txn *t, struct idx_ordered *o, uint64_t key, struct row *r);
void txn_index_remove(struct txn *t, struct idx_ordered *o, uint64_t key);
/* NULL, except in the anomaly matrix (benchmarks/anomaly_harness.c), which sets it before
 * its threads start. The commit calls it first thing where it publishes the inserts and
 * deletes (txn_publish), on the committing thread: a scripted commit can stop there, with
 * everything the algorithm holds at that point still held, while other transactions run
 * their steps. */
extern void (*txn_publish_hook)(struct txn *t);

/* The linked algorithm's claimed isolation level (enum cc_level, part 2) and its name
 * ("none", "read committed", "repeatable read", "serializable", "strict serializable"). */
enum cc_level txn_level_claimed(void);
const char *txn_level_name(enum cc_level l);

const struct txn_stats *txn_stats(const struct txn *t);
/* The network model (cc/netmodel.h): the tick at which the last commit's outcome reached
 * the client (0: the model is off), and the thread's counters. */
uint64_t txn_decided_at(const struct txn *t);
const struct net_stats *txn_net_stats(const struct txn *t);
/* The storage model's counters of the thread (storage/storage_model.h). */
const struct sm_stats *txn_sm_stats(const struct txn *t);
/* Hands the recorded history (NULL unless verifying) to the caller, who frees it. */
struct hist_log *txn_take_history(struct txn *t);
void txn_stats_reset(struct txn *t);
/* Adds the driver's back-off time before a retry to the stats. */
void txn_add_backoff(struct txn *t, uint64_t ticks);

/* ---- 2. The algorithm's side ---- */

/* Name, e.g. "TICTOC", and whether it claims serializability (NONE and the read
 * committed / repeatable read variants do not; --verify then checks that level's
 * promises only: no dirty read, no lost update). */
extern const char cc_alg_name[];
extern const bool cc_alg_serializable;
/* Optional, read only where cc_alg_serializable is false: the weaker level the algorithm
 * claims instead (CC_LEVEL_RC or CC_LEVEL_RR, the RCC variants); undefined: none at all
 * (NONE). The generic layer references it weakly. */
extern const enum cc_level cc_alg_weak_level;
/* Optional: true where the algorithm protects only the columns a read declares (RCC-C),
 * so --verify records only those as read (cc/txn.c, hist_reads); row-grain algorithms
 * leave it undefined (the generic layer references it weakly). */
extern const bool cc_alg_column_grain;
/* Optional: true where the algorithm claims strict serializability (NCC): --verify then
 * fails a history that is serializable but breaks the real-time order. */
extern const bool cc_alg_strict;
/* Optional: true where the algorithm's per-row timestamps are persistent metadata kept
 * beside the row on storage (timestamp ordering with the row store); with the storage
 * model (storage/storage_model.h) a cache miss then costs one more read, and a change of
 * the timestamps makes the row dirty (the algorithm calls txn_storage_meta_dirty, cc/txn.h).
 * Others leave it undefined (the generic layer references it weakly). */
extern const bool cc_alg_ts_on_storage;
/* Optional: true where another thread may finish an attempt its client abandoned after its
 * last shot, by txn_commit (else txn_abort) on its context, deciding as the client would
 * have (NCC's backup coordinator); --fail-commit-at needs it. */
extern const bool cc_alg_recoverable;
/* Optional: names of the algorithm's own counters (struct txn_stats' alg[i], NULL where
 * unused), reported per committed transaction in the result's "alg_counters". */
extern const char *const cc_alg_counter_names[CC_ALG_COUNTERS];

/* Optional: writes the algorithm's end-of-run state as one JSON object (the timestamp
 * store's memory, live versions), reported as the result's "cc_state" (null where the
 * algorithm does not define it). */
void cc_report_json(FILE *f);

/* Once per run, before/after the workers (e.g. Silo's epoch thread). */
void cc_init(int nthreads);
void cc_fini(void);
/* In the worker thread, after txn_create / before txn_destroy: per-thread state. */
void cc_thread_init(struct txn *t);
void cc_thread_fini(struct txn *t);
/* Initialises the metadata slot of a new row (load or insert). */
void cc_row_init(struct row *r);
void cc_begin(struct txn *t, bool retry);
/* Grants access `type` to a->row. a->type is the access held so far (ACC_NONE for a new
 * entry). On RC_OK the algorithm has set a->type = type and a->data (and a->in_place);
 * on RC_ABORT it holds nothing new for this access and has set t->reason. */
enum rc cc_access(struct txn *t, struct access *a, enum access_type type);
/* Validates / waits / installs / releases. On RC_ABORT it sets t->reason and the generic
 * transaction then calls cc_abort, which must cope with a half-done commit. Must call
 * txn_publish(t) while it still holds exclusive access to the written rows. */
enum rc cc_commit(struct txn *t);
/* Rolls back and releases everything the attempt holds. */
void cc_abort(struct txn *t);
/* Optional: the commit split at its decision point, for a commit layer that decides
 * elsewhere (the geo layer, cc/geo.h, which refuses algorithms without it). cc_prepare
 * does what cc_commit does before its decision point (take and check what the commit
 * needs: locks, validation) and returns the vote: on RC_OK the attempt keeps holding
 * what it holds (no other transaction can invalidate it) until cc_finish (install,
 * publish, release) or cc_abort; on RC_ABORT it has set t->reason and the caller calls
 * cc_abort. cc_commit behaves as cc_prepare, the decision, cc_finish. Algorithms whose
 * accesses may wait must not be used this way (the geo layer's handlers never wait). */
enum rc cc_prepare(struct txn *t);
void cc_finish(struct txn *t);
/* Optional: true where reads take locks (2PL): the geo layer then re-executes an attempt
 * aborted for a stale replica read with its reads at the leaders, under read locks. */
extern const bool cc_alg_locking;
/* Optional: the transaction will not access a->row again (txn_last_access). Only
 * algorithms that use the hint define it (the generic layer references it weakly). */
void cc_last_access(struct txn *t, struct access *a);
/* Optional: true where reads write the row's metadata slot (row->cc: a read lock, a latch,
 * a raised read timestamp, at the access or at commit) and asking for the slot's line
 * exclusive with a read's prefetch (txn_prefetch, table_prefetch) measured faster; each
 * algorithm that sets it says why, and docs/running.md lists them with the numbers.
 * Others leave it undefined (the generic layer references it weakly): a read's prefetch
 * leaves the line shared, as silo needs (its reads write nothing); 2PL and sto measured
 * no faster with it. */
extern const bool cc_alg_reads_write_meta;
/* Optional: true where an access copies the row's whole image (silo, tictoc and sto take a
 * private copy at every first access; mvto copies a read's version and a write's
 * before-image; RCC a plain read under RC and RR, every access with columnar chains): a
 * prefetch (txn_prefetch, table_prefetch) then requests every line of the row, not only
 * its first ones. Others leave it undefined (the generic layer references it weakly):
 * they read and write in place, a read touching the lines of its columns; their first
 * write of a row copies the whole row as its before-image, yet they measured no faster
 * with every line of a written row (partitioned TPC-C, 2 warehouses, medians of 5
 * alternating pairs: none 0.99x, no-wait 0.97x, 2026-12-06). */
extern const bool cc_alg_copies_rows;
/* Optional: true where the algorithm calls txn_missed_still_absent (cc/txn.h), so that
 * txn_lookup records the attempt's misses; only then (RCC at serializable, Bamboo).
 * Others leave it undefined (the generic layer references it weakly): their look-ups
 * record nothing, which keeps the look-up a tail call (about 10 instructions a look-up,
 * measured on sto). */
extern const bool cc_alg_rechecks_misses;
/* Optional: prefetches the per-key state of row r that the algorithm keeps off the row
 * (txn_prefetch), e.g. the sketch timestamp store's bucket and cells. Others leave it
 * undefined (the generic layer references it weakly). */
void cc_prefetch(const struct row *r, bool write);

#endif
