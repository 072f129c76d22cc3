/* The storage model (--storage, --storage-latency-us, --storage-write-latency-us,
 * --cache-rows), off by default: rows "live on storage" and a bounded cache of rows holds
 * the hot ones, so timestamp metadata on storage vs. in memory can be studied on one
 * machine. The data stays in memory; the model only charges time.
 *
 * A row is a page. The cache has --cache-rows slots shared by the rows of every table,
 * replaced by CLOCK (a reference bit per row, one hand). The generic transaction
 * (cc/txn.c) touches a row at its first access in an attempt, before the CC protocol
 * runs: a hit costs nothing (lock-free); a miss takes the cache's mutex, picks a victim
 * with the hand, installs the row, releases the mutex and then pays, synchronously, in
 * the missing thread: one read latency, one more (a metadata read) when the algorithm
 * keeps its timestamps on storage (cc_alg_ts_on_storage), one write latency if the victim
 * was dirty and one more if its metadata was. A commit marks the rows it wrote, inserted
 * or deleted dirty; an algorithm marks a row's metadata dirty (txn_storage_meta_dirty)
 * when it changes timestamps kept on storage. A row found non-resident when it is marked
 * (evicted since its access: rows in use are not pinned) is written through at once.
 * Inserted rows enter the cache resident and dirty, with no read.
 *
 * Waiting: a delay of SM_SLEEP_MIN_NS or more sleeps (clock_nanosleep to an absolute
 * deadline; sm_thread_init makes the thread's timer slack 1 ns), a shorter one spins on
 * the clock. Its time counts as wait time in the attempt's time breakdown, and alone as
 * the counters' stall_ticks.
 *
 * Per-row state: struct row's sm_state (storage/table.h), bits SM_*. Invariants:
 *  1. SM_RESIDENT is set and cleared only under the cache mutex, and is set exactly for
 *     the rows that a slot of the cache holds: so at most cache_rows rows are resident.
 *  2. SM_DIRTY and SM_META_DIRTY are set only on a resident row (a compare-and-swap that
 *     sees SM_RESIDENT), and the eviction takes them with the same atomic exchange that
 *     clears SM_RESIDENT: a dirty mark is charged exactly once, by the eviction or, when
 *     the row is not resident, by the write-through of whoever marks it.
 *  3. SM_REF may be set by any thread at any time (a hit, relaxed); a stray one on a
 *     non-resident row is harmless (the installer overwrites the state).
 * No data is published through sm_state: every access to it is relaxed; the slots and the
 * hand are under the mutex.
 *
 * Counters are per thread (struct sm_stats in struct txn), summed by the driver. */
#ifndef STORAGE_STORAGE_MODEL_H
#define STORAGE_STORAGE_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/shared_writes.h"
#include "storage/table.h"

/* struct row's sm_state bits (see the invariants above) */
#define SM_RESIDENT 1u
#define SM_REF 2u
#define SM_DIRTY 4u
#define SM_META_DIRTY 8u

/* Delays from this long on sleep; shorter ones spin. */
#define SM_SLEEP_MIN_NS 20000

/* The model's settings for a run (read_us 0: off). */
struct sm_config {
    const char *preset;  /* a preset's name, or "custom" (--storage-latency-us) */
    double read_us, write_us;
    uint64_t cache_rows; /* 0: 10% of the rows in the catalog's tables, at least 1 */
    bool ts_on_storage;  /* the algorithm keeps its timestamps on storage (cc.h) */
};

/* One thread's counters: reads = misses (data reads); meta_* only with ts_on_storage;
 * writes include write-throughs; stall_ticks: time waiting on the device. */
struct sm_stats {
    uint64_t hits, reads, meta_reads, writes, meta_writes, stall_ticks;
};

/* Whether the model is on for this run (set by sm_configure before the workers start). */
extern bool sm_on;
/* The run's ts_on_storage. */
extern bool sm_ts_on_storage;

/* The presets: *read_us and *write_us of `name`; false if there is no such preset. */
bool sm_preset(const char *name, double *read_us, double *write_us);
/* "dram, cxl, nvme, sata or hdd", for messages. */
extern const char sm_preset_names[];

/* Once per run, before the workers start (clock_calibrate ran): allocates the cache (the
 * rows of an earlier configuration are made non-resident, clean). With read_us 0 the
 * model is off. False with a one-line reason in err on a bad setting. */
bool sm_configure(const struct sm_config *c, char *err, unsigned errlen);
/* The effective settings (cache_rows computed). */
const struct sm_config *sm_settings(void);
/* In each worker thread, when the model is on: a small timer slack for its sleeps. */
void sm_thread_init(void);
void sm_stats_merge(struct sm_stats *dst, const struct sm_stats *src);
/* Rows resident now, counted over the slots under the mutex (tests). */
uint64_t sm_resident_rows(void);

/* A new row (an insert) enters the cache resident and dirty, with no read. Returns the
 * ticks stalled (a dirty victim's write). */
uint64_t sm_insert(struct sm_stats *st, struct row *r);
/* Slow paths of the inline functions below; each returns the ticks it stalled. */
uint64_t sm_miss_slow(struct sm_stats *st, struct row *r);
uint64_t sm_mark_slow(struct sm_stats *st, struct row *r, uint32_t bit);

/* Row r is accessed (its first access in an attempt): a hit sets the reference bit, a
 * miss brings the row in. Returns the ticks stalled (0 on a hit). */
static inline uint64_t sm_touch(struct sm_stats *st, struct row *r)
{
    /* relaxed: nothing is published through sm_state (see the top) */
    uint32_t s = atomic_load_explicit(&r->sm_state, memory_order_relaxed);
    if (__builtin_expect(!(s & SM_RESIDENT), 0))
        return sm_miss_slow(st, r);
    if (!(s & SM_REF)) { /* written only when clear: hot rows' lines stay shared */
        SHW(SHW_ROW);
        atomic_fetch_or_explicit(&r->sm_state, SM_REF, memory_order_relaxed);
    }
    st->hits++;
    return 0;
}

/* Marks resident row r dirty (bit SM_DIRTY: its data; SM_META_DIRTY: its timestamps on
 * storage, ignored unless ts_on_storage); a row not resident is written through. Returns
 * the ticks stalled. */
static inline uint64_t sm_mark(struct sm_stats *st, struct row *r, uint32_t bit)
{
    if (bit == SM_META_DIRTY && !sm_ts_on_storage)
        return 0;
    /* relaxed: see the top; already marked and resident: nothing to write */
    uint32_t s = atomic_load_explicit(&r->sm_state, memory_order_relaxed);
    if ((s & (SM_RESIDENT | bit)) == (SM_RESIDENT | bit))
        return 0;
    return sm_mark_slow(st, r, bit);
}

#endif
