/* FPSketch (seed 002): the `sketch` timestamp store of cc/ts_store.h.
 *
 * Two parts, each described above its struct below: the active table of the keys that
 * running transactions hold (struct ts_slot), and the sketch that a key nobody holds
 * folds into when it loses its slot (struct cell).
 *
 * Invariants:
 *   S1 (never under-estimates) For every key, each of its cells holds at least the
 *      stamps the key had when it last folded: a fold raises all SKETCH_D cells, and
 *      cells only grow (atomic max), so their minimum does too.
 *   S2 (active keys exact) A key has at most one slot, found through its bucket (a new
 *      slot is taken only after a walk of the whole chain found none); acquire takes the
 *      bucket's lock, and so does the release of a dead key; the slot is unfolded when
 *      the key takes it and folded when the key is evicted from it (refs == 0: nobody
 *      touches the entry), under that lock. So the entry is the key's only copy while
 *      the key keeps the slot, and exact. A live key's release only decrements refs
 *      (release order), without the lock: refs grows only under the lock, so a 0 that
 *      the lock's holder reads (acquire) stays 0 until it unlocks, and the last
 *      holder's accesses to the entry happen before the fold that follows.
 *   S3 (ordering) The bucket lock orders a key's fold before its next unfold (lock
 *      acquire/release), so an unfold sees at least the cells its key's last fold wrote
 *      (cell stores are relaxed: only their values matter, and other keys' stores only
 *      raise them, which S1 allows).
 *   S4 (shadow, measurement only) The row's metadata slot holds the exact stamps the
 *      key had when it last folded (was evicted): the stamps the algorithm set while the key was
 *      active, or the exact stamps it came in with for a stamp it did not change. It is
 *      written at the fold and read at the unfold (both under the bucket lock) and by
 *      ts_exact of a holder; the protocol never decides by it. shadow <= bounds (S1).
 *
 * Shared writes: bucket locks, slots and the cells a fold raises are per-key words (as
 * an index bucket is), counted as SHW_INDEX; the shadow is the row's (SHW_ROW).
 */
#include <stdlib.h>
#include <string.h>

#include "cc/ts_store.h"
#include "cc/txn.h"
#include "config/config.h"
#include "storage/latch.h"
#include "storage/wait.h"
#include "storage/hash_mix.h"

#define SKETCH_D 4
/* Active buckets: at least this many per thread (a transaction's keys), a power of two.
 * The table's size decides how long a released key stays exact (and so the sketch's
 * false aborts the figures measure): 1024 per thread ran YCSB (1 M keys, 2 threads) only
 * 1.06x faster than 64 (tictoc-sketch), not worth changing what the figures measure. */
#define BUCKETS_PER_THREAD 64
#define MIN_BUCKETS 256

/* Bytes of the sketch (--sketch-kib; options.c finds the flag's target here, weakly). */
size_t ts_sketch_bytes = (size_t)TS_SKETCH_KIB_DEFAULT * 1024;

/* Sketch: SKETCH_D rows of `width` cells, each cell a pair of maxima (wts, rts). A key
 * hashes to one cell per row; folding a key raises each of its cells to the key's
 * stamps; the bound of a key is the minimum over its cells.
 */
struct cell {
    _Atomic uint64_t wts, rts;
};

/* Active table: a hash table of the keys that running transactions hold, keyed by the
 * row (rows never move or die while the table lives, so the row's address names the
 * key). Buckets are cache-line slots with a spin lock in the first; a bucket's other
 * keys hang off it in overflow slots, which stay linked once made (reused, never
 * freed before ts_store_fini). A slot holds the key, its holders' count, the bounds it
 * was unfolded with and the entry (the algorithm's words). When its last holder
 * leaves, a key keeps its slot, exact, until another key of the bucket needs a free
 * one; only then does it fold into the sketch (ours: the seed folds a key as soon as
 * it becomes inactive). Acquired again before that, it takes its exact entry back
 * without the sketch, which is always allowed (an exact stamp is its own upper bound);
 * a key the sketch answers for is one that folded (S1). A new key takes an empty slot,
 * else a released key's not taken back since the last pass, else any released key's
 * (second chance, as CLOCK), else a new overflow slot.
 */
struct ts_slot {
    _Atomic uint32_t lock; /* the bucket's lock (bucket heads only) */
    _Atomic uint16_t refs; /* holders (at most one per thread); 0: released or free.
                            * Grows under the lock only; shrinks without it (S2) */
    uint16_t recent;       /* a released key taken back since the last eviction pass */
    const struct row *key;
    struct ts_slot *next;  /* the bucket's overflow slots (heads only link them) */
    uint64_t bound_w, bound_r; /* the stamps the entry was unfolded with */
    struct ts_entry e;
};
_Static_assert(sizeof(struct ts_slot) == 64, "a slot is one cache line");

struct shadow {
    uint64_t wts, rts;
};
_Static_assert(sizeof(struct shadow) <= CC_META_SIZE, "ts_sketch: CC_META_SIZE too small");

static struct cell *cells;     /* SKETCH_D x width */
static uint32_t width;         /* cells per sketch row: a power of two */
static unsigned width_shift;   /* 32 - log2(width) */
static struct ts_slot *buckets;
static uint64_t bucket_mask;
static _Atomic uint64_t overflow_slots; /* made so far (rare: one per new chain depth) */

static inline struct shadow *row_shadow(const struct row *r)
{
    return (struct shadow *)(void *)r->cc;
}

/* The key's hash: rows are cache-line aligned, so the address without its low 6 bits,
 * times an odd constant (Fibonacci hashing), mixed so that its low bits (the bucket)
 * depend on the high ones too. */
static inline uint64_t key_hash(const struct row *r)
{
    uint64_t x = ((uint64_t)(uintptr_t)r >> 6) * 0xff51afd7ed558ccdULL;
    return x ^ x >> 29;
}

/* The key's cells, one per sketch row, by double hashing: a + i * b over 32 bits, the
 * top bits giving the cell; a and b from a multiply of the key's hash h (whose low bits
 * chose its bucket) by another odd constant. */
static inline void cells_of(uint64_t h, struct cell *c[SKETCH_D])
{
    uint64_t g = hash_fib(h);
    uint32_t a = (uint32_t)(g >> 32), b = (uint32_t)g | 1;
    struct cell *base = cells;
    uint32_t w = width;
    unsigned sh = width_shift;
#pragma GCC unroll 4
    for (int i = 0; i < SKETCH_D; i++)
        c[i] = base + (size_t)i * w + ((a + (uint32_t)i * b) >> sh);
}

static inline void cell_raise(_Atomic uint64_t *c, uint64_t v)
{
    /* relaxed: see S3 */
    uint64_t cur = atomic_load_explicit(c, memory_order_relaxed);
    while (cur < v) {
        SHW(SHW_INDEX);
        if (atomic_compare_exchange_weak_explicit(c, &cur, v, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
}

static void bounds(uint64_t h, uint64_t *wts, uint64_t *rts)
{
    uint64_t w = UINT64_MAX, r = UINT64_MAX;
    struct cell *c[SKETCH_D];
    cells_of(h, c);
#pragma GCC unroll 4
    for (int i = 0; i < SKETCH_D; i++) {
        uint64_t cw = atomic_load_explicit(&c[i]->wts, memory_order_relaxed);
        uint64_t cr = atomic_load_explicit(&c[i]->rts, memory_order_relaxed);
        w = cw < w ? cw : w;
        r = cr < r ? cr : r;
    }
    *wts = w;
    *rts = r;
}

void ts_store_init(int nthreads)
{
    /* the largest power of two of cells that fits the size (at least 2) */
    width = 2;
    width_shift = 31;
    while ((uint64_t)width * 2 * SKETCH_D * sizeof(struct cell) <= ts_sketch_bytes) {
        width *= 2;
        width_shift--;
    }
    cells = aligned_alloc(64, ((size_t)SKETCH_D * width * sizeof(struct cell) + 63) & ~(size_t)63);
    uint64_t n = MIN_BUCKETS;
    while (n < (uint64_t)nthreads * BUCKETS_PER_THREAD)
        n <<= 1;
    buckets = aligned_alloc(64, n * sizeof(struct ts_slot));
    if (!cells || !buckets) {
        fprintf(stderr, "ts_sketch: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < (size_t)SKETCH_D * width; i++) {
        atomic_init(&cells[i].wts, 0);
        atomic_init(&cells[i].rts, 0);
    }
    memset(buckets, 0, n * sizeof(struct ts_slot));
    bucket_mask = n - 1;
    atomic_init(&overflow_slots, 0);
}

void ts_store_fini(void)
{
    for (uint64_t i = 0; i <= bucket_mask; i++)
        for (struct ts_slot *s = buckets[i].next, *n; s; s = n) {
            n = s->next;
            free(s);
        }
    free(buckets);
    free(cells);
    buckets = NULL;
    cells = NULL;
}

void ts_row_init(struct row *r)
{
    struct shadow *s = row_shadow(r);
    s->wts = s->rts = 0;
}

/* The bucket lock's acquire and release order a fold before the next unfold (S2, S3). */
static inline void bucket_lock(struct ts_slot *b)
{
    latch_acquire(&b->lock);
    SHW(SHW_INDEX);
}

static inline void bucket_unlock(struct ts_slot *b)
{
    SHW(SHW_INDEX);
    latch_release(&b->lock);
}

/* Folds the key that slot s holds into the sketch: the stamps it changed since its
 * unfold (an unchanged stamp is its bound, already <= the cells: S1), and the shadow
 * (S4). Under the bucket lock, with no holder. */
static void fold(struct ts_slot *s)
{
    uint64_t w, rt;
    cc_ts_fold(&s->e, &w, &rt);
    if (w == s->bound_w && rt == s->bound_r)
        return;
    struct shadow *sh = row_shadow(s->key);
    struct cell *c[SKETCH_D];
    cells_of(key_hash(s->key), c);
    /* all cells requested exclusive at once, so their misses overlap: each
     * compare-and-swap below is a full barrier, and would otherwise wait for its own */
#pragma GCC unroll 4
    for (int i = 0; i < SKETCH_D; i++)
        __builtin_prefetch(c[i], 1);
    if (w != s->bound_w) {
#pragma GCC unroll 4
        for (int i = 0; i < SKETCH_D; i++)
            cell_raise(&c[i]->wts, w);
        sh->wts = w;
    }
    if (rt != s->bound_r) {
#ifdef MUTANT_TS_SKETCH_ONE_ROW /* mutant: rts folds into one sketch row (S1 broken) */
        for (int i = 0; i < 1; i++)
#else
#pragma GCC unroll 4
        for (int i = 0; i < SKETCH_D; i++)
#endif
            cell_raise(&c[i]->rts, rt);
        sh->rts = rt;
    }
    SHW(SHW_ROW);
}

struct ts_entry *ts_acquire(struct txn *t, struct row *r)
{
    uint64_t h = key_hash(r);
    struct ts_slot *b = &buckets[h & bucket_mask], *s, *free_slot = NULL;
    bucket_lock(b);
    /* a slot for a new key: an empty one, else a released key not taken back since
     * the last pass, else any released key (second chance, as CLOCK) */
    struct ts_slot *empty = NULL, *old = NULL;
    for (s = b; s; s = s->next) {
        if (s->key == r) /* held, or released and not yet evicted: exact either way */
            break;
        /* acquire: a 0 orders the last holder's accesses before our fold (S2) */
        if (atomic_load_explicit(&s->refs, memory_order_acquire))
            continue;
        if (!s->key && !empty)
            empty = s;
        else if (s->key && !s->recent && !old)
            old = s;
        else if (s->key && !free_slot)
            free_slot = s;
    }
    if (s) {
        /* acquire: taken back from 0, the entry as its last holder left it */
        if (!atomic_fetch_add_explicit(&s->refs, 1, memory_order_acquire))
            s->recent = 1;
        SHW(SHW_INDEX);
        bucket_unlock(b);
        return &s->e;
    }
    if (empty || old)
        free_slot = empty ? empty : old;
    else if (free_slot) /* every released key was taken back: a new pass */
        for (struct ts_slot *x = b; x; x = x->next)
            x->recent = 0;
    if (!free_slot) { /* a new overflow slot, linked after the head for good */
        free_slot = aligned_alloc(64, sizeof(*free_slot));
        if (!free_slot) {
            fprintf(stderr, "ts_sketch: out of memory\n");
            exit(1);
        }
        memset(free_slot, 0, sizeof(*free_slot));
        free_slot->next = b->next;
        b->next = free_slot;
        atomic_fetch_add_explicit(&overflow_slots, 1, memory_order_relaxed);
    }
    s = free_slot;
    if (s->key) /* evict the released key it held: now it is inactive */
        fold(s);
    s->key = r;
    atomic_store_explicit(&s->refs, 1, memory_order_relaxed); /* from 0, under the lock */
    s->recent = 0;
    bounds(h, &s->bound_w, &s->bound_r);
    cc_ts_unfold(&s->e, s->bound_w, s->bound_r);
    SHW(SHW_INDEX);
    const struct shadow *sh = row_shadow(r);
    t->st.alg[TS_CTR_ACTIVATIONS]++;
    if (s->bound_w != sh->wts || s->bound_r != sh->rts)
        t->st.alg[TS_CTR_INFLATED]++;
    bucket_unlock(b);
    return &s->e;
}

/* The key's bucket head, whose lock ts_acquire takes (so exclusive), and its cells,
 * which ts_acquire reads when the key is not in the table. */
void cc_prefetch(const struct row *r, bool write)
{
    (void)write;
    uint64_t h = key_hash(r);
    struct cell *c[SKETCH_D];
    __builtin_prefetch(&buckets[h & bucket_mask], 1);
    cells_of(h, c);
#pragma GCC unroll 4
    for (int i = 0; i < SKETCH_D; i++)
        __builtin_prefetch(c[i], 0);
}

/* The slot that holds entry e. */
static inline struct ts_slot *slot_of(struct ts_entry *e)
{
    return (struct ts_slot *)(void *)((char *)e - offsetof(struct ts_slot, e));
}

/* One holder of e (key r) less. The last holder of a live key leaves it its slot, exact,
 * until the slot is needed: a decrement, without the bucket lock (S2). Of a dead one
 * (ts_release_dead), under the lock, drops it unfolded: the row is freed, its shadow
 * reset by the next insert. */
void ts_release(struct txn *t, struct row *r, struct ts_entry *e)
{
    (void)t;
    (void)r;
    SHW(SHW_INDEX);
    /* release: our accesses to the entry before an evictor's fold (S2) */
    atomic_fetch_sub_explicit(&slot_of(e)->refs, 1, memory_order_release);
}

void ts_release_dead(struct txn *t, struct row *r, struct ts_entry *e)
{
    (void)t;
    struct ts_slot *s = slot_of(e), *b = &buckets[key_hash(r) & bucket_mask];
    bucket_lock(b);
    SHW(SHW_INDEX);
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_relaxed) == 1)
        s->key = NULL;
    bucket_unlock(b);
}

void ts_fold_released(void)
{
    for (uint64_t i = 0; i <= bucket_mask; i++) {
        struct ts_slot *b = &buckets[i];
        bucket_lock(b);
        for (struct ts_slot *s = b; s; s = s->next)
            if (!atomic_load_explicit(&s->refs, memory_order_acquire) && s->key) {
                fold(s);
                s->key = NULL;
            }
        bucket_unlock(b);
    }
}

bool ts_exact(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    const struct ts_slot *s =
        (const struct ts_slot *)(const void *)((const char *)e - offsetof(struct ts_slot, e));
    const struct shadow *sh = row_shadow(s->key); /* stable while held (S4) */
    bool changed = false;
    if (*wts == s->bound_w && sh->wts != s->bound_w) {
        *wts = sh->wts;
        changed = true;
    }
    if (*rts == s->bound_r && sh->rts != s->bound_r) {
        *rts = sh->rts;
        changed = true;
    }
    return changed;
}

void ts_store_json(FILE *f)
{
    size_t sketch = (size_t)SKETCH_D * width * sizeof(struct cell);
    uint64_t over = atomic_load_explicit(&overflow_slots, memory_order_relaxed);
    size_t table = (size_t)(bucket_mask + 1 + over) * sizeof(struct ts_slot);
    fprintf(f, "{\"kind\":\"sketch\",\"depth\":%d,\"width\":%u,\"sketch_bytes\":%zu,"
               "\"active_buckets\":%llu,\"overflow_slots\":%llu,\"active_table_bytes\":%zu,"
               "\"bytes\":%zu}",
            SKETCH_D, width, sketch, (unsigned long long)(bucket_mask + 1),
            (unsigned long long)over, table, sketch + table);
}
