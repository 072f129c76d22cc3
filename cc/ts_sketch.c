/* FPSketch (seed 002): the `sketch` timestamp store of cc/ts_store.h.
 *
 * Two parts, each described above its struct below: the active table of the keys that
 * running transactions hold (struct ts_block), and the sketch that a key nobody holds
 * folds into when it loses its slot (struct cell).
 *
 * Invariants:
 *   S1 (never under-estimates) For every key, each of its cells holds at least the
 *      stamps the key had when it last folded: a fold raises all SKETCH_D cells, and
 *      cells only grow (atomic max), so their minimum does too.
 *   S2 (active keys exact) A key has at most one slot, found through its bucket (a new
 *      slot is taken only after a walk of the whole chain found none; a slot's key is
 *      kept in its block's first line only, and an empty slot has refs == 0, both
 *      under the lock); acquire takes the
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
/* Active buckets: at least this many per thread (a transaction's keys), a power of two,
 * each of WAYS slots. The table's size decides how long a released key stays exact (and
 * so the sketch's false aborts the figures measure): 1024 buckets per thread ran YCSB (1 M
 * keys, 2 threads) only 1.06x faster than 64 (tictoc-sketch), not worth changing what the
 * figures measure. (Until 2026-12-07 a bucket was one slot with overflow slots chained
 * to it; its chains grew, in a few seconds of TPC-C, to about the slots WAYS gives now.) */
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
 * key). A bucket is a block of cache lines: its first (struct ts_bucket) holds the lock
 * and the keys of its WAYS slots, each slot (struct ts_way) a line of its own with the
 * key's holders' count, the bounds it was unfolded with and the entry (the algorithm's
 * words). So a lookup reads one line per block of the chain, never the slots' lines that
 * other threads' transactions write, and a slot's holders touch only its line. A bucket
 * whose WAYS slots are all held takes an overflow block, which stays linked once made
 * (reused, never freed before ts_store_fini). When its last holder leaves, a key keeps
 * its slot, exact, until another key of the bucket needs a free one; only then does it
 * fold into the sketch (ours: the seed folds a key as soon as it becomes inactive).
 * Acquired again before that, it takes its exact entry back without the sketch, which
 * is always allowed (an exact stamp is its own upper bound); a key the sketch answers
 * for is one that folded (S1). A new key takes an empty slot, else a released key's not
 * taken back since the last pass, else any released key's (second chance, as CLOCK),
 * else a slot of a new overflow block.
 */
#define WAYS 4

struct ts_way {
    _Alignas(64) _Atomic uint16_t refs; /* holders (at most one per thread); 0: released or free.
                            * Grows under the bucket lock only; shrinks without it (S2) */
    uint8_t idx;           /* its place in its block's w[] (its key: slot_key) */
    uint64_t bound_w, bound_r; /* the stamps the entry was unfolded with */
    struct ts_entry e;
};

struct ts_bucket {
    _Atomic uint32_t lock; /* the bucket's lock (taken in the chain's first block only) */
    uint8_t recent;        /* bit i: way i's released key taken back since the last pass */
    const struct row *key[WAYS]; /* the slots' keys (NULL: empty; then refs is 0) */
    struct ts_block *next;       /* the chain's next (overflow) block */
};

struct ts_block {
    _Alignas(64) struct ts_bucket b;
    _Alignas(64) struct ts_way w[WAYS];
};
_Static_assert(sizeof(struct ts_bucket) <= 64, "a bucket is one cache line");
_Static_assert(sizeof(struct ts_way) == 64, "a slot is one cache line");
_Static_assert(sizeof(struct ts_block) == 64 * (WAYS + 1), "a block is its lines");
_Static_assert(WAYS <= 8, "a bucket's recent bits are a byte");

struct shadow {
    uint64_t wts, rts;
};
_Static_assert(sizeof(struct shadow) <= CC_META_SIZE, "ts_sketch: CC_META_SIZE too small");

static struct cell *cells;     /* SKETCH_D x width */
static uint32_t width;         /* cells per sketch row: a power of two */
static unsigned width_shift;   /* 32 - log2(width) */
static struct ts_block *buckets; /* each chain's first block */
static uint64_t bucket_mask;
static _Atomic uint64_t overflow_blocks; /* made so far (rare: one per new chain depth) */

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
    buckets = aligned_alloc(64, n * sizeof(struct ts_block));
    if (!cells || !buckets) {
        fprintf(stderr, "ts_sketch: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < (size_t)SKETCH_D * width; i++) {
        atomic_init(&cells[i].wts, 0);
        atomic_init(&cells[i].rts, 0);
    }
    memset(buckets, 0, n * sizeof(struct ts_block));
    for (uint64_t i = 0; i < n; i++)
        for (int j = 0; j < WAYS; j++)
            buckets[i].w[j].idx = (uint8_t)j;
    bucket_mask = n - 1;
    atomic_init(&overflow_blocks, 0);
}

void ts_store_fini(void)
{
    for (uint64_t i = 0; i <= bucket_mask; i++)
        for (struct ts_block *k = buckets[i].b.next, *n; k; k = n) {
            n = k->b.next;
            free(k);
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
static inline void bucket_lock(struct ts_block *head)
{
    latch_acquire(&head->b.lock);
    SHW(SHW_INDEX);
}

static inline void bucket_unlock(struct ts_block *head)
{
    SHW(SHW_INDEX);
    latch_release(&head->b.lock);
}

/* The block that holds slot s. */
static inline struct ts_block *block_of(const struct ts_way *s)
{
    return (struct ts_block *)(void *)((char *)(s - s->idx) - offsetof(struct ts_block, w));
}

/* The key slot s holds (NULL: empty): stable while the slot is held, else read under
 * the bucket lock. */
static inline const struct row *slot_key(const struct ts_way *s)
{
    return block_of(s)->b.key[s->idx];
}

/* Folds the key that slot s holds into the sketch: the stamps it changed since its
 * unfold (an unchanged stamp is its bound, already <= the cells: S1), and the shadow
 * (S4). Under the bucket lock, with no holder. */
static void fold(struct ts_way *s)
{
    uint64_t w, rt;
    cc_ts_fold(&s->e, &w, &rt);
    if (w == s->bound_w && rt == s->bound_r)
        return;
    const struct row *key = slot_key(s);
    struct shadow *sh = row_shadow(key);
    struct cell *c[SKETCH_D];
    cells_of(key_hash(key), c);
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

/* A slot for a new key in the chain from head, under its lock, where no slot holds the
 * key: an empty one (the blocks' lines tell), else a released key's not taken back since
 * the last pass, else any released key's (a new pass), else one of a new overflow block,
 * linked after the head for good. Only the slots' holder counts it reads leave the
 * blocks' lines, in chain order, up to the first old released key. */
static struct ts_way *free_way(struct ts_block *head)
{
    for (struct ts_block *k = head; k; k = k->b.next)
        for (int i = 0; i < WAYS; i++)
            if (!k->b.key[i])
                return &k->w[i];
    struct ts_way *any = NULL;
    for (struct ts_block *k = head; k; k = k->b.next)
        for (int i = 0; i < WAYS; i++) {
            /* acquire: a 0 orders the last holder's accesses before our fold (S2) */
            if (atomic_load_explicit(&k->w[i].refs, memory_order_acquire))
                continue;
            if (!(k->b.recent & 1u << i))
                return &k->w[i];
            if (!any)
                any = &k->w[i];
        }
    if (any) { /* every released key was taken back: a new pass */
        for (struct ts_block *k = head; k; k = k->b.next)
            k->b.recent = 0;
        return any;
    }
    struct ts_block *k = aligned_alloc(64, sizeof(*k));
    if (!k) {
        fprintf(stderr, "ts_sketch: out of memory\n");
        exit(1);
    }
    memset(k, 0, sizeof(*k));
    for (int i = 0; i < WAYS; i++)
        k->w[i].idx = (uint8_t)i;
    k->b.next = head->b.next;
    head->b.next = k;
    atomic_fetch_add_explicit(&overflow_blocks, 1, memory_order_relaxed);
    return &k->w[0];
}

struct ts_entry *ts_acquire(struct txn *t, struct row *r)
{
    uint64_t h = key_hash(r);
    struct ts_block *head = &buckets[h & bucket_mask];
    bucket_lock(head);
    for (struct ts_block *k = head; k; k = k->b.next)
        for (int i = 0; i < WAYS; i++)
            if (k->b.key[i] == r) { /* held, or released and not yet evicted: exact */
                /* acquire: taken back from 0, the entry as its last holder left it */
                if (!atomic_fetch_add_explicit(&k->w[i].refs, 1, memory_order_acquire))
                    k->b.recent |= (uint8_t)(1u << i);
                SHW(SHW_INDEX);
                bucket_unlock(head);
                return &k->w[i].e;
            }
    struct ts_way *s = free_way(head);
    struct ts_block *k = block_of(s);
    if (k->b.key[s->idx]) /* evict the released key it held: now it is inactive */
        fold(s);
    k->b.key[s->idx] = r;
    atomic_store_explicit(&s->refs, 1, memory_order_relaxed); /* from 0, under the lock */
    k->b.recent &= (uint8_t)~(1u << s->idx);
    bounds(h, &s->bound_w, &s->bound_r);
    cc_ts_unfold(&s->e, s->bound_w, s->bound_r);
    SHW(SHW_INDEX);
    const struct shadow *sh = row_shadow(r);
    t->st.alg[TS_CTR_ACTIVATIONS]++;
    if (s->bound_w != sh->wts || s->bound_r != sh->rts)
        t->st.alg[TS_CTR_INFLATED]++;
    bucket_unlock(head);
    return &s->e;
}

/* The key's first block, whose lock ts_acquire takes (so exclusive), and its cells,
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
static inline struct ts_way *slot_of(const struct ts_entry *e)
{
    return (struct ts_way *)(void *)((char *)e - offsetof(struct ts_way, e));
}

/* One holder of e (key r) less. The last holder of a live key leaves it its slot, exact,
 * until the slot is needed: a decrement of the slot's own line, without the bucket lock
 * (S2). Of a dead one (ts_release_dead), under the lock, drops it unfolded: the row is
 * freed, its shadow reset by the next insert. */
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
    struct ts_way *s = slot_of(e);
    struct ts_block *head = &buckets[key_hash(r) & bucket_mask];
    bucket_lock(head);
    SHW(SHW_INDEX);
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_relaxed) == 1)
        block_of(s)->b.key[s->idx] = NULL;
    bucket_unlock(head);
}

void ts_fold_released(void)
{
    for (uint64_t i = 0; i <= bucket_mask; i++) {
        struct ts_block *head = &buckets[i];
        bucket_lock(head);
        for (struct ts_block *k = head; k; k = k->b.next)
            for (int j = 0; j < WAYS; j++)
                if (k->b.key[j] && !atomic_load_explicit(&k->w[j].refs, memory_order_acquire)) {
                    fold(&k->w[j]);
                    k->b.key[j] = NULL;
                }
        bucket_unlock(head);
    }
}

bool ts_exact(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    const struct ts_way *s = slot_of(e);
    const struct shadow *sh = row_shadow(slot_key(s)); /* stable while held (S4) */
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
    uint64_t over = atomic_load_explicit(&overflow_blocks, memory_order_relaxed);
    size_t table = (size_t)(bucket_mask + 1 + over) * sizeof(struct ts_block);
    fprintf(f, "{\"kind\":\"sketch\",\"depth\":%d,\"width\":%u,\"sketch_bytes\":%zu,"
               "\"active_buckets\":%llu,\"slots_per_bucket\":%d,\"overflow_slots\":%llu,"
               "\"active_table_bytes\":%zu,\"bytes\":%zu}",
            SKETCH_D, width, sketch, (unsigned long long)(bucket_mask + 1), WAYS,
            (unsigned long long)over * WAYS, table, sketch + table);
}
