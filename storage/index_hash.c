/* The own concurrent hash index (INDEX=own, the default): key -> row on the per-access hot
 * path. Lookups take no lock and write nothing shared; inserts and removes lock one bucket.
 * The index grows its bucket array (x4) as keys are inserted (TPC-C inserts
 * millions of rows in a run: a fixed array would lengthen every chain).
 *
 * Layout: a table is a power-of-two array of buckets, each one cache line holding a
 * sequence word, BUCKET_SLOTS (key, row) slots and a pointer to an overflow node. Overflow
 * nodes have the same layout (their seq word is unused) and are chained from the bucket.
 * A key lives in bucket hv(key) & mask of the current table, where hv is mix(key), or with
 * cluster bits c (idx_hash_create) mix(key >> c) ^ the key's low c bits: keys equal above
 * their low c bits differ only in hv's low c bits, so they share the aligned block of 2^c
 * buckets that mix(key >> c) picks (one 4 KiB page at c = 6), each at its own offset, and
 * a run of neighbouring keys touches one page. Growth only needs hv to be a function of
 * the key.
 *
 * Invariants:
 *   1. A slot is live iff its row is non-NULL (so every uint64_t key is valid and a row
 *      passed to insert must be non-NULL). A removed slot keeps its stale key; the key is
 *      meaningful only while the row is non-NULL.
 *   2. A key is live in at most one slot of its chain, and in one table only: the table
 *      its bucket is not MOVED in (below).
 *   3. Only the holder of the bucket lock (head seq odd) writes any slot or next pointer of
 *      the chain. Writers change seq even -> odd (lock) -> next even (unlock), so seq only
 *      grows and an unchanged even seq means nothing in the chain changed.
 *   4. Overflow nodes are linked once (next goes from NULL to a node, never back) and stay
 *      linked, possibly empty, until idx_hash_destroy; so do replaced tables: a reader can
 *      never reach freed memory, and empty slots are reused by later inserts.
 *
 * Growth: when an insert has to chain a new overflow node and the index holds more than
 * GROW_KEYS_PER_BUCKET keys per bucket, that inserter (if no growth is under way) links a
 * table of 2^GROW_BITS times the buckets as the current table's `next`. From then on
 * every insert moves a chunk of MOVE_CHUNK buckets (claimed with a counter), one bucket at
 * a time: lock the old bucket, copy its live keys into the new buckets they map to (those
 * with the old bucket's index in their low bits: no one else can reach them yet, every
 * operation goes through the old bucket first), then set the old seq to MOVED (odd, never
 * unlocked). Whoever moves the last bucket makes the new table the current one. Anyone
 * who meets MOVED (reader or writer) follows `next` and retries there. So no insert
 * pauses for a whole table (one moves at most MOVE_CHUNK buckets: a few microseconds,
 * even inside a commit that holds locks), and each key is moved
 * a third of a time on average over a run.
 *
 * Reads are a seqlock: load seq (acquire), read the chain with acquire loads, re-load seq;
 * retry if seq was odd or changed. Writers store slots and next pointers with release, so
 * a reader whose acquire load sees a store of a critical section also sees that section's
 * lock CAS, and its re-load of seq cannot return the old value (H. Boehm, "Can seqlocks get
 * along with programming language memory models?", 2012). Acquire loads and release stores
 * are plain moves on x86. The release store of a row also publishes the row's contents,
 * written by the caller before insert, to the reader that acquires it. The release store
 * of MOVED publishes the new buckets' contents, and the earlier release store of `next`
 * the new table, to whoever acquires MOVED.
 */
#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/hash_mix.h"
#include "storage/wait.h"
#include "storage/mem.h"
#include "storage/index.h"
#include "storage/line_pool.h"
#include "storage/shared_writes.h"

#define CACHE_LINE 64
#define BUCKET_SLOTS 3
/* Size counters are striped by thread: up to COUNT_STRIPES threads each count in a cache
 * line of their own (no shared write per insert); the size is their sum. */
#define COUNT_STRIPES 64
/* Caps the bucket array at 2^40 buckets (64 TiB); larger `expected` just chains. */
#define MAX_BUCKET_BITS 40
/* Grow when there are more keys than this per bucket (of BUCKET_SLOTS slots), by a factor
 * of 2^GROW_BITS: x4 moves each key a third of a time on average over a run (x2: once). */
#define GROW_KEYS_PER_BUCKET 2
#define GROW_BITS 2
/* Buckets an insert moves while the index grows. */
#define MOVE_CHUNK 8
/* idx_hash_reserve's overflow nodes: one per this many keys to come. At the load it
 * grows at (GROW_KEYS_PER_BUCKET keys per bucket of BUCKET_SLOTS slots, keys placed at
 * random: a Poisson load of 2), 14% of the buckets hold more than 3 keys: about one node
 * per 14 keys; a load below 2 chains fewer. Past them, nodes are allocated one by one. */
#define NEW_KEYS_PER_NODE 8
/* The seq of a bucket whose keys moved to the next table (odd: never "unlocked"). */
#define MOVED UINT64_MAX

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
               "the index needs lock-free 64-bit atomics (all-zero bytes = initial state)");

struct idx_slot {
    _Atomic uint64_t key;
    _Atomic(struct row *) row; /* NULL: empty (invariant 1) */
};

/* A bucket, or an overflow node of a bucket's chain. All-zero bytes: empty, unlocked. */
struct idx_bucket {
    alignas(CACHE_LINE) _Atomic uint64_t seq; /* head only: odd = locked (invariant 3) */
    struct idx_slot slots[BUCKET_SLOTS];
    _Atomic(struct idx_bucket *) next; /* overflow chain (invariant 4) */
};
_Static_assert(sizeof(struct idx_bucket) == CACHE_LINE, "a bucket is one cache line");

struct idx_table {
    struct idx_bucket *buckets;
    size_t mask;                        /* number of buckets - 1 */
    _Atomic(struct idx_table *) next;   /* the larger table its buckets move to */
    struct idx_table *older;            /* the table this one replaced (kept, invariant 4) */
    _Atomic size_t claim, moved;        /* growth: buckets handed to movers / moved */
};

struct idx_count {
    /* keys inserted minus keys removed by this stripe's threads (wraps: only the sum of
     * all stripes is a size) */
    alignas(CACHE_LINE) _Atomic size_t live;
};

struct idx_hash {
    _Atomic(struct idx_table *) cur; /* every operation starts here */
    _Atomic bool growing;            /* a mover is at work (one at a time) */
    unsigned cluster;                /* cluster bits c, fixed at creation (read-only) */
    uint64_t low;                    /* 2^c - 1: the key bits kept (read-only) */
    struct lpool *nodes;             /* overflow nodes reserved ahead (idx_hash_reserve) */
    struct idx_count counts[COUNT_STRIPES];
};

/* The key's hash, whose low bits pick its bucket (see the top comment). */
static inline uint64_t idx_hv(const struct idx_hash *h, uint64_t key)
{
    if (__builtin_expect(h->cluster == 0, 1)) /* most tables: the plain hash, no more */
        return hash_mix(key);
    return hash_mix(key >> h->cluster) ^ (key & h->low);
}

/* Small allocations (the handle, tables, overflow nodes): zeroed, cache-line aligned, from
 * the memory module (which exits on failure). Bucket arrays are shared regions. */
static void *idx_alloc(size_t size)
{
    size_t rounded = (size + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
    return memset(mem_alloc_aligned(CACHE_LINE, rounded), 0, rounded);
}

/* An overflow node: from the nodes reserved ahead, faulted in already, else allocated. */
static struct idx_bucket *idx_node_new(struct idx_hash *h)
{
    _Static_assert(sizeof(struct idx_bucket) == LPOOL_LINE, "a node is one pool line");
    struct idx_bucket *node = lpool_take(h->nodes);
    return node != NULL ? node : idx_alloc(sizeof *node);
}

static struct idx_table *idx_table_new(unsigned bits)
{
    struct idx_table *tb = idx_alloc(sizeof *tb);
    tb->mask = ((size_t)1 << bits) - 1;
    tb->buckets = mem_alloc_shared(((size_t)1 << bits) * sizeof(struct idx_bucket));
    return tb;
}

static void idx_table_free(struct idx_hash *h, struct idx_table *tb)
{
    for (size_t i = 0; i <= tb->mask; i++) {
        struct idx_bucket *node = atomic_load_explicit(&tb->buckets[i].next, memory_order_relaxed);
        while (node != NULL) {
            struct idx_bucket *next = atomic_load_explicit(&node->next, memory_order_relaxed);
            if (!lpool_owns(h->nodes, node)) /* the pool's go with it */
                mem_free(node);
            node = next;
        }
    }
    mem_free_shared(tb->buckets, (tb->mask + 1) * sizeof(struct idx_bucket));
    mem_free(tb);
}

struct idx_hash *idx_hash_create(size_t expected, unsigned cluster_bits)
{
    if (cluster_bits > IDX_MAX_CLUSTER_BITS) {
        fprintf(stderr, "index: %u cluster bits, more than %d\n", cluster_bits,
                IDX_MAX_CLUSTER_BITS);
        exit(1);
    }
    /* Two slots per expected key, rounded up to a power of two of buckets: on average
     * 0.75 to 1.5 keys per 3-slot bucket, so most lookups touch one cache line. */
    size_t want = expected / BUCKET_SLOTS * 2 + 1;
    unsigned bits = 0;
    while (bits < MAX_BUCKET_BITS && ((size_t)1 << bits) < want)
        bits++;
    struct idx_hash *h = idx_alloc(sizeof *h);
    atomic_init(&h->cur, idx_table_new(bits));
    h->cluster = cluster_bits;
    h->low = ((uint64_t)1 << cluster_bits) - 1;
    h->nodes = lpool_create();
    return h;
}

/* Not concurrent with any other call on h. */
void idx_hash_destroy(struct idx_hash *h)
{
    if (h == NULL)
        return;
    struct idx_table *tb = atomic_load_explicit(&h->cur, memory_order_relaxed);
    /* a growth left under way: the next table, with the nodes its moved buckets chained */
    struct idx_table *next = atomic_load_explicit(&tb->next, memory_order_relaxed);
    if (next != NULL)
        idx_table_free(h, next);
    while (tb != NULL) {
        struct idx_table *older = tb->older;
        idx_table_free(h, tb);
        tb = older;
    }
    lpool_destroy(h->nodes);
    mem_free(h);
}

/* The table to start at: acquire pairs with the release store that made it current, so
 * its buckets (filled by the mover) are visible. */
static inline struct idx_table *idx_cur(struct idx_hash *h)
{
    return atomic_load_explicit(&h->cur, memory_order_acquire);
}

/* The table a MOVED bucket of tb moved to: acquire pairs with the mover's release store of
 * next (made before any bucket moved). */
static inline struct idx_table *idx_next(struct idx_table *tb)
{
    return atomic_load_explicit(&tb->next, memory_order_acquire);
}

/* Reads the chain of head once; the caller validates the result with seq. */
static inline struct row *idx_chain_find(struct idx_bucket *head, uint64_t key)
{
    struct idx_bucket *b = head;
    do {
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            /* acquire (key and row): pair with the release stores of key and row in
             * idx_hash_insert / idx_hash_remove; they also keep these loads before the
             * re-load of seq in idx_try_get */
            if (atomic_load_explicit(&b->slots[i].key, memory_order_acquire) != key)
                continue;
            struct row *row = atomic_load_explicit(&b->slots[i].row, memory_order_acquire);
            if (row != NULL)
                return row;
        }
        /* acquire: pairs with the release store of next in idx_hash_insert, so the node's
         * zeroed and filled slots are visible */
        b = atomic_load_explicit(&b->next, memory_order_acquire);
    } while (b != NULL);
    return NULL;
}

/* One optimistic read of the chain of head: 0 done (*row set), 1 retry (a writer held or
 * changed it), 2 the bucket moved to the next table. */
static inline int idx_try_get(struct idx_bucket *head, uint64_t key, struct row **row)
{
    /* acquire: pairs with the release store of seq in idx_bucket_unlock (and of MOVED), so
     * the chain reads see every store of the critical sections that ended before it */
    uint64_t seq = atomic_load_explicit(&head->seq, memory_order_acquire);
    if (seq & 1)
        return seq == MOVED ? 2 : 1;
    *row = idx_chain_find(head, key);
    /* relaxed: ordered after the chain reads by their acquire; it reads the lock CAS of
     * any writer whose stores they saw (see the top comment) */
    return atomic_load_explicit(&head->seq, memory_order_relaxed) == seq ? 0 : 1;
}

/* The retry loop, out of line so the common path of idx_hash_get stays short. */
static __attribute__((noinline)) struct row *idx_get_contended(struct idx_table *tb,
                                                               uint64_t hv, uint64_t key)
{
    struct row *row;
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        int st = idx_try_get(&tb->buckets[hv & tb->mask], key, &row);
        if (st == 0)
            return row;
        if (st == 2)
            tb = idx_next(tb);
        else
            wait_round(&wt);
    }
}

struct row *idx_hash_get(struct idx_hash *h, uint64_t key)
{
    struct idx_table *tb = idx_cur(h);
    uint64_t hv = idx_hv(h, key);
    struct row *row;
    if (__builtin_expect(idx_try_get(&tb->buckets[hv & tb->mask], key, &row) == 0, 1))
        return row;
    return idx_get_contended(tb, hv, key);
}

void idx_hash_prefetch(struct idx_hash *h, uint64_t key)
{
    struct idx_table *tb = idx_cur(h); /* a table replaced meanwhile only makes it miss */
    __builtin_prefetch(&tb->buckets[idx_hv(h, key) & tb->mask], 0);
}

/* One try to lock head's chain from seq, its value just loaded: false if it is locked or
 * MOVED, or changed meanwhile. Acquire on success: pairs with the release store in
 * idx_bucket_unlock of the previous holder, so its chain writes are visible. */
static inline bool idx_try_lock(struct idx_bucket *head, uint64_t seq)
{
    SHW(SHW_INDEX);
    return (seq & 1) == 0 &&
           atomic_compare_exchange_weak_explicit(&head->seq, &seq, seq + 1,
                                                 memory_order_acquire, memory_order_relaxed);
}

/* Locks the chain of key's bucket, following moves: returns its head (in *tbp's table)
 * and the (odd) locked seq for idx_bucket_unlock. */
static struct idx_bucket *idx_bucket_lock(struct idx_hash *h, uint64_t hv,
                                          struct idx_table **tbp, uint64_t *locked)
{
    struct idx_table *tb = idx_cur(h);
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        struct idx_bucket *head = &tb->buckets[hv & tb->mask];
        /* acquire on MOVED (see idx_try_get); else only a hint, the CAS below decides */
        uint64_t seq = atomic_load_explicit(&head->seq, memory_order_acquire);
        if (seq == MOVED) {
            tb = idx_next(tb);
            continue;
        }
        if (idx_try_lock(head, seq)) {
            *tbp = tb;
            *locked = seq + 1;
            return head;
        }
        wait_round(&wt);
    }
}

static void idx_bucket_unlock(struct idx_bucket *head, uint64_t locked_seq)
{
    /* release: pairs with the acquire load of seq in idx_hash_get and the acquire CAS in
     * idx_bucket_lock; publishes the chain writes of this critical section */
    SHW(SHW_INDEX);
    atomic_store_explicit(&head->seq, locked_seq + 1, memory_order_release);
}

/* Under the bucket lock: the live slot of key, or NULL; *empty gets the first empty slot
 * (or NULL) and *tail the last node. Relaxed loads: all writes to the chain are made under
 * the lock, whose acquire CAS orders them before these reads. */
static struct idx_slot *idx_chain_locate(struct idx_bucket *head, uint64_t key,
                                         struct idx_slot **empty, struct idx_bucket **tail)
{
    *empty = NULL;
    for (struct idx_bucket *b = head; b != NULL;
         b = atomic_load_explicit(&b->next, memory_order_relaxed)) {
        *tail = b;
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            struct idx_slot *s = &b->slots[i];
            if (atomic_load_explicit(&s->row, memory_order_relaxed) == NULL) {
                if (*empty == NULL)
                    *empty = s;
            } else if (atomic_load_explicit(&s->key, memory_order_relaxed) == key) {
                return s;
            }
        }
    }
    return NULL;
}

/* Under the bucket lock: puts (key, row) into `empty` (idx_chain_locate's first empty
 * slot), or into a new node chained after `tail` when there is none. Returns whether it
 * chained a node. Release stores: see idx_chain_find. */
static bool idx_chain_put(struct idx_hash *h, struct idx_slot *empty, struct idx_bucket *tail,
                          uint64_t key, struct row *row)
{
    struct idx_bucket *node = NULL;
    if (empty == NULL) {
        node = idx_node_new(h);
        empty = &node->slots[0];
    }
    SHW(SHW_INDEX);
    atomic_store_explicit(&empty->key, key, memory_order_release);
    atomic_store_explicit(&empty->row, row, memory_order_release);
    if (node != NULL) { /* release: pairs with the acquire load of next in idx_chain_find */
        SHW(SHW_INDEX);
        atomic_store_explicit(&tail->next, node, memory_order_release);
    }
    return node != NULL;
}

/* The mover's put into a chain no one else can reach yet (no key is in it twice): the
 * first empty slot, relaxed stores (the release store of MOVED publishes them). */
static void idx_chain_append(struct idx_hash *h, struct idx_bucket *head, uint64_t key,
                             struct row *row)
{
    struct idx_bucket *b = head;
    for (;;) {
        for (int i = 0; i < BUCKET_SLOTS; i++)
            if (atomic_load_explicit(&b->slots[i].row, memory_order_relaxed) == NULL) {
                atomic_store_explicit(&b->slots[i].key, key, memory_order_relaxed);
                atomic_store_explicit(&b->slots[i].row, row, memory_order_relaxed);
                return;
            }
        struct idx_bucket *next = atomic_load_explicit(&b->next, memory_order_relaxed);
        if (next == NULL) {
            next = idx_node_new(h);
            atomic_store_explicit(&b->next, next, memory_order_relaxed);
        }
        b = next;
    }
}

/* Moves old bucket i of tb into nt: locks it, copies its live keys, marks it MOVED. */
static void idx_move_bucket(struct idx_hash *h, struct idx_table *tb, struct idx_table *nt,
                            size_t i)
{
    struct idx_bucket *head = &tb->buckets[i];
    struct waiter wt = WAITER_LATCH;
    /* relaxed: a hint, the CAS decides (an old bucket is never MOVED before its mover) */
    while (!idx_try_lock(head, atomic_load_explicit(&head->seq, memory_order_relaxed)))
        wait_round(&wt);
    for (struct idx_bucket *b = head; b != NULL;
         b = atomic_load_explicit(&b->next, memory_order_relaxed))
        for (int k = 0; k < BUCKET_SLOTS; k++) {
            struct row *row = atomic_load_explicit(&b->slots[k].row, memory_order_relaxed);
            if (row == NULL)
                continue;
            uint64_t key = atomic_load_explicit(&b->slots[k].key, memory_order_relaxed);
            idx_chain_append(h, &nt->buckets[idx_hv(h, key) & nt->mask], key, row);
        }
    /* release: publishes the new buckets' keys to whoever acquires MOVED */
    SHW(SHW_INDEX);
    atomic_store_explicit(&head->seq, MOVED, memory_order_release);
}

/* One inserter's share of a growth: claims the next MOVE_CHUNK buckets of tb and moves
 * them into nt; whoever moves the last one makes nt current and ends the growth. */
static void idx_help_move(struct idx_hash *h, struct idx_table *tb, struct idx_table *nt)
{
    size_t n = tb->mask + 1;
    /* relaxed: the counters only hand out disjoint ranges; the bucket locks order the
     * moves, and the release store of cur publishes them all (see below) */
    SHW(SHW_TABLE);
    size_t i = atomic_fetch_add_explicit(&tb->claim, MOVE_CHUNK, memory_order_relaxed);
    if (i >= n)
        return;
    size_t end = i + MOVE_CHUNK < n ? i + MOVE_CHUNK : n;
    for (size_t k = i; k < end; k++)
        idx_move_bucket(h, tb, nt, k);
    /* acq_rel: the last mover acquires every other mover's moves before it publishes */
    SHW(SHW_TABLE);
    if (atomic_fetch_add_explicit(&tb->moved, end - i, memory_order_acq_rel) + (end - i) == n) {
        /* release: see idx_cur */
        atomic_store_explicit(&h->cur, nt, memory_order_release);
        atomic_store_explicit(&h->growing, false, memory_order_release);
    }
}

/* Starts a growth of tb (the current table): links a table of 2^GROW_BITS times the
 * buckets as its next; the buckets then move in chunks, one chunk per insert
 * (idx_help_move), so no insert pauses for the whole table. The caller won h->growing. */
static unsigned idx_bits(const struct idx_table *tb)
{
    unsigned bits = 0;
    while (((size_t)1 << bits) <= tb->mask)
        bits++;
    return bits;
}

/* Links a table of 2^bits buckets as tb's next (bits > tb's; populated: its pages faulted
 * in first, idx_hash_reserve's). Returns its bytes, 0 if bits is past the cap. */
static size_t idx_grow_to(struct idx_hash *h, struct idx_table *tb, unsigned bits, bool populated)
{
    if (bits > MAX_BUCKET_BITS) {
        atomic_store_explicit(&h->growing, false, memory_order_release);
        return 0;
    }
    struct idx_table *nt = idx_table_new(bits);
    size_t bytes = ((size_t)1 << bits) * sizeof(struct idx_bucket);
    if (populated) /* not yet published */
        mem_prefault(nt->buckets, bytes);
    nt->older = tb;
    /* release: publishes nt (its zeroed buckets) to whoever follows next (MOVED, or a
     * helper in idx_hash_insert) */
    SHW(SHW_TABLE);
    atomic_store_explicit(&tb->next, nt, memory_order_release);
    return bytes;
}

static void idx_grow_start(struct idx_hash *h, struct idx_table *tb)
{
    idx_grow_to(h, tb, idx_bits(tb) + GROW_BITS, false);
}

/* This thread's size-counter stripe, numbered once per thread in order of first use. */
static inline int count_stripe(void)
{
    static _Atomic unsigned next;
    static _Thread_local int stripe = -1;
    if (__builtin_expect(stripe < 0, 0)) /* relaxed: a number, once per thread */
        stripe = (int)(atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % COUNT_STRIPES);
    return stripe;
}

size_t idx_hash_size(struct idx_hash *h)
{
    size_t n = 0;
    for (int i = 0; i < COUNT_STRIPES; i++) {
        /* relaxed: a statistic (see idx_hash_insert) */
        n += atomic_load_explicit(&h->counts[i].live, memory_order_relaxed);
    }
    /* A stripe of a thread that mostly removes is "negative" (wrapped), and the loads are
     * not one snapshot: a sum that saw removes without their inserts wraps below 0. */
    return (int64_t)n < 0 ? 0 : n;
}

bool idx_hash_insert(struct idx_hash *h, uint64_t key, struct row *row)
{
    assert(row != NULL); /* invariant 1 */
    uint64_t hv = idx_hv(h, key), locked;
    struct idx_table *tb;
    struct idx_bucket *head = idx_bucket_lock(h, hv, &tb, &locked);
    struct idx_slot *empty;
    struct idx_bucket *tail;
    bool inserted = idx_chain_locate(head, key, &empty, &tail) == NULL, chained = false;
    if (inserted) {
        chained = idx_chain_put(h, empty, tail, key, row);
        /* relaxed: a statistic; size is exact only when no update is in flight */
        SHW(SHW_OWN);
        atomic_fetch_add_explicit(&h->counts[count_stripe()].live, 1, memory_order_relaxed);
    }
    idx_bucket_unlock(head, locked);
    /* a growth in progress: move a chunk of it */
    struct idx_table *cur = idx_cur(h), *nt = idx_next(cur);
    if (__builtin_expect(nt != NULL, 0)) {
        idx_help_move(h, cur, nt);
    } else if (chained && idx_hash_size(h) > GROW_KEYS_PER_BUCKET * (tb->mask + 1) &&
               (SHW(SHW_TABLE), !atomic_exchange_explicit(&h->growing, true,
                                                          memory_order_acquire))) {
        /* acquire: pairs with the release store that ended the previous growth */
        if (idx_cur(h) == tb && idx_next(tb) == NULL) /* not grown meanwhile */
            idx_grow_start(h, tb);
        else {
            SHW(SHW_TABLE);
            atomic_store_explicit(&h->growing, false, memory_order_release);
        }
    }
    return inserted;
}

bool idx_hash_remove(struct idx_hash *h, uint64_t key)
{
    uint64_t hv = idx_hv(h, key), locked;
    struct idx_table *tb;
    struct idx_bucket *head = idx_bucket_lock(h, hv, &tb, &locked);
    struct idx_slot *empty;
    struct idx_bucket *tail;
    struct idx_slot *s = idx_chain_locate(head, key, &empty, &tail);
    if (s != NULL) {
        /* release: pairs with the acquire load of row in idx_chain_find (top comment) */
        SHW(SHW_INDEX);
        atomic_store_explicit(&s->row, NULL, memory_order_release);
        /* relaxed: a statistic, as in idx_hash_insert */
        SHW(SHW_OWN);
        atomic_fetch_sub_explicit(&h->counts[count_stripe()].live, 1, memory_order_relaxed);
    }
    idx_bucket_unlock(head, locked);
    return s != NULL;
}

size_t idx_hash_buckets(struct idx_hash *h) { return idx_cur(h)->mask + 1; }

/* The bucket bits idx_hash_reserve grows to for `keys` keys. */
static unsigned reserve_bits(size_t keys)
{
    unsigned bits = 0;
    while (bits < MAX_BUCKET_BITS && GROW_KEYS_PER_BUCKET * ((size_t)1 << bits) < keys)
        bits++;
    return bits;
}

size_t idx_hash_reserve_bytes(struct idx_hash *h, size_t keys)
{
    unsigned bits = reserve_bits(keys);
    size_t bytes = 0, now = idx_hash_size(h);
    struct idx_table *cur = idx_cur(h);
    bool grows = idx_bits(cur) < bits;
    if (grows)
        bytes += ((size_t)1 << bits) * sizeof(struct idx_bucket);
    /* a growth (ours, or one under way that idx_hash_reserve helps end) moves the keys
     * first, and the chains it builds take the pool's room: count a new region then */
    size_t lines = keys > now ? (keys - now) / NEW_KEYS_PER_NODE : 0;
    if (grows || idx_next(cur) != NULL)
        bytes += lpool_region_bytes(lines);
    else
        bytes += lpool_reserve_bytes(h->nodes, lines);
    return bytes;
}

size_t idx_hash_reserve(struct idx_hash *h, size_t keys)
{
    unsigned bits = reserve_bits(keys);
    size_t bytes = 0;
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        struct idx_table *cur = idx_cur(h), *nt = idx_next(cur);
        if (nt != NULL) { /* a growth under way (ours or an inserter's): help it end */
            size_t claimed = atomic_load_explicit(&cur->claim, memory_order_relaxed);
            if (claimed <= cur->mask)
                idx_help_move(h, cur, nt);
            else
                wait_round(&wt); /* the last chunks are someone else's */
            continue;
        }
        if (idx_bits(cur) >= bits) {
            size_t now = idx_hash_size(h);
            if (keys > now) /* and the overflow nodes the new keys will chain */
                bytes += lpool_reserve(h->nodes, (keys - now) / NEW_KEYS_PER_NODE);
            return bytes;
        }
        /* acquire: pairs with the release store that ended the previous growth */
        if (atomic_exchange_explicit(&h->growing, true, memory_order_acquire)) {
            wait_round(&wt);
            continue;
        }
        if (idx_cur(h) == cur && idx_next(cur) == NULL) /* not grown meanwhile */
            bytes += idx_grow_to(h, cur, bits, true);
        else
            atomic_store_explicit(&h->growing, false, memory_order_release);
    }
}

const char *idx_hash_kind(void)
{
    return "own";
}
