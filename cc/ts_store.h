/* Timestamp stores: where a timestamp-ordering algorithm (STO, TicToc) keeps each key's
 * timestamps. Chosen at build time per variant (config/variants.tsv):
 *
 *   row     (the default): in the row's metadata slot, as every algorithm keeps its
 *           per-row state. With the storage model on (storage/storage_model.h) these
 *           timestamps are metadata on storage: a cache miss fetches them, a change
 *           makes the row dirty.
 *   sketch  (-DTS_STORE_SKETCH=1, linking cc/ts_sketch.c): FPSketch (seed 002). An
 *           exact entry for every key that some running transaction has acquired, in a
 *           hash table of active keys, reference counted; a key nobody holds keeps its
 *           entry until another key needs the slot, then its two stamps (wts, rts) fold
 *           into a max-sketch of d x w cells; a key acquired again after that starts
 *           from the sketch's upper bounds. Nothing of it lives on storage.
 *
 * The claim the sketch rests on (seed 002): STO, MVTO and TicToc stay serializable when
 * the timestamps of INACTIVE keys are over-approximated, as long as every active key
 * keeps exact ones for as long as any transaction uses it. Hence the contract:
 *
 *   - An algorithm reaches a key's timestamps only through an entry it acquired
 *     (ts_acquire) and has not released; the entry stays at one address and is the
 *     key's only copy while anyone holds it. All of the algorithm's marks (locks,
 *     claims, pending versions) are gone from an entry when its last holder releases. Every access of the algorithm
 *     to the entry's words is its own business (its own atomics and memory orders).
 *   - The algorithm defines cc_ts_fold and cc_ts_unfold, which read (wts, rts) out of
 *     an entry and set an entry from (wts, rts); the sketch calls them with no holder
 *     (fold) or before the first holder sees the entry (unfold), under the active
 *     table's bucket lock; the last holder's release (a release-order decrement of the
 *     key's holder count, which the fold's side reads with acquire) orders them after
 *     every holder's accesses.
 *   - Both stamps only grow, and the sketch's bounds are >= the true stamps (S1 in
 *     cc/ts_sketch.c): an unfolded entry only ever claims later stamps than the truth,
 *     so timestamp checks can only fail more often, never pass wrongly.
 *
 * The sketch store defines the optional hook cc_prefetch (cc/cc.h) itself: a key's
 * bucket and cells are requested with its row (txn_prefetch); an algorithm built with the
 * store defines no cc_prefetch of its own.
 *
 * Cost accounting (sketch only): the sketch counts how often an unfolded entry was
 * inflated (bounds above the exact stamps, which it keeps in the row as a shadow for
 * measurement only: never read by the protocol) and algorithms report the aborts that
 * the exact stamps would have avoided (ts_exact). */
#ifndef CC_TS_STORE_H
#define CC_TS_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cc/txn.h"
#include "storage/table.h"
#include "storage/latch.h"
#include "storage/wait.h"

#ifndef TS_STORE_SKETCH
#define TS_STORE_SKETCH 0
#endif

/* A key's timestamps, laid out by the algorithm (which may use fewer words: in the row
 * store the entry is the row's metadata slot, CC_META_SIZE bytes). */
#define TS_WORDS 3
struct ts_entry {
    _Atomic uint64_t w[TS_WORDS];
};

/* Whether access a of attempt t releases its key dead (ts_release_dead): a row it
 * inserted that is freed next, after an abort or because the attempt deleted it again. */
#define TS_DEAD(t, a, aborting)                                                              \
    ((a)->type == ACC_INSERT && ((aborting) || txn_dropped((t), (a)->row)))

/* Defined by the algorithm: the entry's write and read timestamps, and an entry that
 * claims (wts, rts) with nothing pending (the state of a key nobody uses). */
void cc_ts_fold(const struct ts_entry *e, uint64_t *wts, uint64_t *rts);
void cc_ts_unfold(struct ts_entry *e, uint64_t wts, uint64_t rts);

/* The algorithm's counters (struct txn_stats' alg[]) that the store keeps. */
enum { TS_CTR_ACTIVATIONS, TS_CTR_INFLATED, TS_CTR_FALSE_ABORTS, TS_NCTRS };

#if TS_STORE_SKETCH

/* The store's counter names, for the algorithm's cc_alg_counter_names. */
#define TS_COUNTER_NAMES "sketch_activations", "sketch_inflated", "sketch_false_aborts"
/* The shadow of the exact stamps (measurement only) in the row's metadata slot. */
#define TS_ROW_META_BYTES 16

void ts_store_init(int nthreads);
void ts_store_fini(void);
void ts_row_init(struct row *r);
/* The key's entry, exact while held; one reference per call. */
struct ts_entry *ts_acquire(struct txn *t, struct row *r);
void ts_release(struct txn *t, struct row *r, struct ts_entry *e);
/* ts_release for a row this attempt inserted and the generic layer frees next (an
 * aborted or dropped insert, never published): the last holder drops the key at once,
 * unfolded (its stamps mean nothing), so no later fold writes the freed row's shadow. */
void ts_release_dead(struct txn *t, struct row *r, struct ts_entry *e);
/* Folds every released key that still keeps its slot (cc/ts_sketch.c): the store then
 * holds exactly the keys in use, as when each key folds the moment it is released. */
void ts_fold_released(void);
/* For counting the aborts the sketch added: in, the stamps of e the algorithm just
 * decided by; out, the stamps the key would have with exact timestamps (a stamp still at
 * the sketch's bound becomes the exact stamp it stood for). True when any differs. */
bool ts_exact(const struct ts_entry *e, uint64_t *wts, uint64_t *rts);
/* The store's memory and counters, as the result's "ts_store" object. */
void ts_store_json(FILE *f);

#else

#define TS_COUNTER_NAMES NULL
#define TS_ROW_META_BYTES sizeof(struct ts_entry)

/* The entry is the row's metadata slot: acquiring is free and nothing folds. */
static inline void ts_store_init(int nthreads) { (void)nthreads; }
static inline void ts_store_fini(void) {}
static inline void ts_row_init(struct row *r) { cc_ts_unfold((struct ts_entry *)(void *)r->cc, 0, 0); }
static inline struct ts_entry *ts_acquire(struct txn *t, struct row *r)
{
    (void)t;
    return (struct ts_entry *)(void *)r->cc;
}
static inline void ts_release(struct txn *t, struct row *r, struct ts_entry *e)
{
    (void)t;
    (void)r;
    (void)e;
}
static inline void ts_release_dead(struct txn *t, struct row *r, struct ts_entry *e)
{
    (void)t;
    (void)r;
    (void)e;
}
static inline void ts_fold_released(void) {}
static inline bool ts_exact(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    (void)e;
    (void)wts;
    (void)rts;
    return false;
}
/* Nothing but the rows' metadata slots: bytes = slots of the rows in the catalog's
 * tables (rows handed out, as storage/table.h counts them). */
static inline void ts_store_json(FILE *f)
{
    uint64_t rows = 0;
    for (int i = 0; i < catalog_count(); i++)
        if (catalog_table(i))
            rows += table_nrows(catalog_table(i));
    fprintf(f, "{\"kind\":\"row\",\"bytes_per_row\":%d,\"bytes\":%llu}", CC_META_SIZE,
            (unsigned long long)rows * CC_META_SIZE);
}

#endif

/* An algorithm's accesses hold their key's entry and note a change of its stamps through
 * these bits of a->cc_flags (the algorithm's own flags use the low bits). */
#define TS_ACC_HELD 0x4000 /* a->cc_ptr is the key's acquired entry */
#define TS_ACC_META 0x8000 /* the attempt changed the key's stamps: the storage model's
                            * metadata mark at the access's end, with no lock held */

/* The first access to a row: acquires its key's entry. */
static inline void ts_access_begin(struct txn *t, struct access *a)
{
    a->cc_ptr = ts_acquire(t, a->row);
    a->cc_flags |= TS_ACC_HELD;
}

/* The end of an access's hold, after the algorithm dropped its own marks (locks, claims,
 * pending versions) from the entry: the storage model's metadata mark (which may stall),
 * then the entry (dead for a row the generic layer frees next). Clears a->cc_flags. */
static inline void ts_access_end(struct txn *t, struct access *a, bool aborting)
{
    if (a->cc_flags & TS_ACC_META)
        txn_storage_meta_dirty(t, a->row);
    if ((a->cc_flags & TS_ACC_HELD) && TS_DEAD(t, a, aborting))
        ts_release_dead(t, a->row, a->cc_ptr);
    else if (a->cc_flags & TS_ACC_HELD)
        ts_release(t, a->row, a->cc_ptr);
    a->cc_flags = 0;
}

/* ts_access_end for every access of the attempt, which has dropped all its own marks.
 * With the row store and no storage model there is nothing to end (no entry to release,
 * no mark to make): the loop is skipped, leaving the flags, which nothing reads once the
 * attempt is over (acc_new clears them for the next). */
static inline void ts_access_end_all(struct txn *t, bool aborting)
{
    if (!TS_STORE_SKETCH && !sm_on)
        return;
    for (uint32_t i = 0; i < t->nacc; i++)
        ts_access_end(t, &t->acc[i], aborting);
}

/* The entry latch of the algorithms that guard an entry with bit 63 of w[0] (STO, MVTO;
 * the other bits of w[0] are theirs). ts_latch returns w[0] as it was (latch clear);
 * ts_unlatch leaves w[0] = v without the latch. Acquire and release order everything
 * done under the latch, so the words and row images it guards are read and written
 * relaxed (ts_get, ts_set). */
#define TS_LATCH ((uint64_t)1 << 63)

static inline uint64_t ts_latch(struct ts_entry *e)
{
    uint64_t v = latch_bit_acquire(&e->w[0], TS_LATCH);
    SHW(SHW_ROW);
    return v;
}

static inline void ts_unlatch(struct ts_entry *e, uint64_t v)
{
    SHW(SHW_ROW);
    latch_bit_release(&e->w[0], v & ~TS_LATCH);
}

static inline uint64_t ts_get(const struct ts_entry *e, int i)
{
    return atomic_load_explicit(&e->w[i], memory_order_relaxed);
}

static inline void ts_set(struct ts_entry *e, int i, uint64_t v)
{
    atomic_store_explicit(&e->w[i], v, memory_order_relaxed);
}

#endif
