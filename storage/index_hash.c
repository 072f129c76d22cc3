/* The own concurrent hash index (INDEX=own, the default): key -> row on the per-access hot
 * path. Lookups take no lock and write nothing shared; inserts and removes lock one bucket.
 *
 * Layout: a fixed power-of-two array of buckets, each one cache line holding a sequence
 * word, BUCKET_SLOTS (key, row) slots and a pointer to an overflow node. Overflow nodes
 * have the same layout (their seq word is unused) and are chained from the bucket, so the
 * index grows past `expected` keys by chaining; it never resizes.
 *
 * Invariants:
 *   1. A slot is live iff its row is non-NULL (so every uint64_t key is valid and a row
 *      passed to insert must be non-NULL). A removed slot keeps its stale key; the key is
 *      meaningful only while the row is non-NULL.
 *   2. A key is live in at most one slot of its chain.
 *   3. Only the holder of the bucket lock (head seq odd) writes any slot or next pointer of
 *      the chain. Writers change seq even -> odd (lock) -> next even (unlock), so seq only
 *      grows and an unchanged even seq means nothing in the chain changed.
 *   4. Overflow nodes are linked once (next goes from NULL to a node, never back) and stay
 *      linked, possibly empty, until idx_hash_destroy: a reader can never reach freed
 *      memory, and empty slots are reused by later inserts. A chain is as long as the
 *      most keys its bucket has held at once.
 *
 * Reads are a seqlock: load seq (acquire), read the chain with acquire loads, re-load seq;
 * retry if seq was odd or changed. Writers store slots and next pointers with release, so
 * a reader whose acquire load sees a store of a critical section also sees that section's
 * lock CAS, and its re-load of seq cannot return the old value (H. Boehm, "Can seqlocks get
 * along with programming language memory models?", 2012). Acquire loads and release stores
 * are plain moves on x86. The release store of a row also publishes the row's contents,
 * written by the caller before insert, to the reader that acquires it.
 */
#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/wait.h"
#include "storage/mem.h"
#include "storage/index.h"

#define CACHE_LINE 64
#define BUCKET_SLOTS 3
/* Size counters are striped by bucket so inserts on different buckets rarely share one. */
#define COUNT_STRIPES 16
/* Caps the bucket array at 2^40 buckets (64 TiB); larger `expected` just chains. */
#define MAX_BUCKET_BITS 40

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

struct idx_count {
    alignas(CACHE_LINE) _Atomic size_t live; /* live keys in the buckets of this stripe */
};

struct idx_hash {
    struct idx_bucket *buckets;
    size_t mask; /* number of buckets - 1 */
    struct idx_count counts[COUNT_STRIPES];
};

/* Small allocations (the handle, overflow nodes): zeroed, cache-line aligned, from the
 * memory module (which exits on failure). The bucket array is a shared region. */
static void *idx_alloc(size_t size)
{
    size_t rounded = (size + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
    return memset(mem_alloc_aligned(CACHE_LINE, rounded), 0, rounded);
}

/* splitmix64's finalizer: a bijection whose low bits depend on every key bit, so packed
 * composite keys (warehouse, district, id) spread over the buckets. */
static inline uint64_t idx_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static inline size_t idx_bucket_of(const struct idx_hash *h, uint64_t key)
{
    return (size_t)idx_mix(key) & h->mask;
}

struct idx_hash *idx_hash_create(size_t expected)
{
    /* Two slots per expected key, rounded up to a power of two of buckets: on average
     * 0.75 to 1.5 keys per 3-slot bucket, so most lookups touch one cache line. Beyond
     * `expected` the chains lengthen: a lookup reads about keys / (3 * buckets) lines. */
    size_t want = expected / BUCKET_SLOTS * 2 + 1;
    unsigned bits = 0;
    while (bits < MAX_BUCKET_BITS && ((size_t)1 << bits) < want)
        bits++;
    struct idx_hash *h = idx_alloc(sizeof *h);
    h->mask = ((size_t)1 << bits) - 1;
    h->buckets = mem_alloc_shared(((size_t)1 << bits) * sizeof(struct idx_bucket));
    return h;
}

/* Not concurrent with any other call on h. */
void idx_hash_destroy(struct idx_hash *h)
{
    if (h == NULL)
        return;
    for (size_t i = 0; i <= h->mask; i++) {
        struct idx_bucket *node = atomic_load_explicit(&h->buckets[i].next, memory_order_relaxed);
        while (node != NULL) {
            struct idx_bucket *next = atomic_load_explicit(&node->next, memory_order_relaxed);
            mem_free(node);
            node = next;
        }
    }
    mem_free_shared(h->buckets, (h->mask + 1) * sizeof(struct idx_bucket));
    mem_free(h);
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

/* One optimistic read of the chain of head: false if a writer held or changed it. */
static inline bool idx_try_get(struct idx_bucket *head, uint64_t key, struct row **row)
{
    /* acquire: pairs with the release store of seq in idx_bucket_unlock, so the chain
     * reads see every store of the critical sections that ended before it */
    uint64_t seq = atomic_load_explicit(&head->seq, memory_order_acquire);
    if (seq & 1)
        return false;
    *row = idx_chain_find(head, key);
    /* relaxed: ordered after the chain reads by their acquire; it reads the lock CAS of
     * any writer whose stores they saw (see the top comment) */
    return atomic_load_explicit(&head->seq, memory_order_relaxed) == seq;
}

/* The retry loop, out of line so the common path of idx_hash_get stays short. */
static __attribute__((noinline)) struct row *idx_get_contended(struct idx_bucket *head,
                                                               uint64_t key)
{
    struct row *row;
    unsigned rounds = 0;
    do
        wait_round(&rounds);
    while (!idx_try_get(head, key, &row));
    return row;
}

struct row *idx_hash_get(struct idx_hash *h, uint64_t key)
{
    struct idx_bucket *head = &h->buckets[idx_bucket_of(h, key)];
    struct row *row;
    if (__builtin_expect(idx_try_get(head, key, &row), 1))
        return row;
    return idx_get_contended(head, key);
}

/* Locks the chain of head; returns the (odd) locked seq for idx_bucket_unlock. */
static uint64_t idx_bucket_lock(struct idx_bucket *head)
{
    unsigned rounds = 0;
    for (;;) {
        /* relaxed: only a hint; the CAS below decides */
        uint64_t seq = atomic_load_explicit(&head->seq, memory_order_relaxed);
        /* acquire on success: pairs with the release store in idx_bucket_unlock of the
         * previous holder, so its chain writes are visible to this one */
        if ((seq & 1) == 0 &&
            atomic_compare_exchange_weak_explicit(&head->seq, &seq, seq + 1,
                                                  memory_order_acquire, memory_order_relaxed))
            return seq + 1;
        wait_round(&rounds);
    }
}

static void idx_bucket_unlock(struct idx_bucket *head, uint64_t locked_seq)
{
    /* release: pairs with the acquire load of seq in idx_hash_get and the acquire CAS in
     * idx_bucket_lock; publishes the chain writes of this critical section */
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

bool idx_hash_insert(struct idx_hash *h, uint64_t key, struct row *row)
{
    assert(row != NULL); /* invariant 1 */
    size_t i = idx_bucket_of(h, key);
    struct idx_bucket *head = &h->buckets[i];
    uint64_t locked = idx_bucket_lock(head);
    struct idx_slot *empty;
    struct idx_bucket *tail;
    bool inserted = idx_chain_locate(head, key, &empty, &tail) == NULL;
    if (inserted) {
        struct idx_bucket *node = NULL;
        if (empty == NULL) {
            node = idx_alloc(sizeof *node);
            empty = &node->slots[0];
        }
        /* release (key, row): pair with the acquire loads in idx_chain_find (top comment);
         * the row's release also publishes the caller's writes to the row */
        atomic_store_explicit(&empty->key, key, memory_order_release);
        atomic_store_explicit(&empty->row, row, memory_order_release);
        if (node != NULL) {
            /* release: pairs with the acquire load of next in idx_chain_find */
            atomic_store_explicit(&tail->next, node, memory_order_release);
        }
        /* relaxed: a statistic; size is exact only when no update is in flight */
        atomic_fetch_add_explicit(&h->counts[i % COUNT_STRIPES].live, 1, memory_order_relaxed);
    }
    idx_bucket_unlock(head, locked);
    return inserted;
}

bool idx_hash_remove(struct idx_hash *h, uint64_t key)
{
    size_t i = idx_bucket_of(h, key);
    struct idx_bucket *head = &h->buckets[i];
    uint64_t locked = idx_bucket_lock(head);
    struct idx_slot *empty;
    struct idx_bucket *tail;
    struct idx_slot *s = idx_chain_locate(head, key, &empty, &tail);
    if (s != NULL) {
        /* release: pairs with the acquire load of row in idx_chain_find (top comment) */
        atomic_store_explicit(&s->row, NULL, memory_order_release);
        /* relaxed: a statistic, as in idx_hash_insert */
        atomic_fetch_sub_explicit(&h->counts[i % COUNT_STRIPES].live, 1, memory_order_relaxed);
    }
    idx_bucket_unlock(head, locked);
    return s != NULL;
}

size_t idx_hash_size(struct idx_hash *h)
{
    size_t n = 0;
    for (int i = 0; i < COUNT_STRIPES; i++) {
        /* relaxed: a statistic (see idx_hash_insert) */
        n += atomic_load_explicit(&h->counts[i].live, memory_order_relaxed);
    }
    return n;
}

const char *idx_hash_kind(void)
{
    return "own";
}
