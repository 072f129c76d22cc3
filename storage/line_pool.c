/* The pool of pre-faulted cache lines (storage/line_pool.h).
 *
 * A pool is a list of regions, newest first; blocks are claimed from the newest one
 * (`cur`). Each thread keeps, per pool, the block it takes lines from, in a small table
 * of its own indexed by the pool's id (THREAD_SLOTS slots: a pool whose id shares a slot
 * with another pool's takes the slot over, leaving the rest of that pool's block
 * unused; ids are consecutive, so only pools more than THREAD_SLOTS apart share one). Ids are never reused, so a slot never names a destroyed pool's memory as
 * another's.
 *
 * Invariants:
 *   L1 A region's blocks [0, claimed) are handed out, each to one thread, at most once:
 *      claimed only grows (atomic add), and a claim past `bytes` hands out nothing.
 *   L2 Regions are zeroed and faulted in before they are published (the release store of
 *      cur; a taker's acquire load of it), and stay allocated until lpool_destroy.
 */
#include "storage/line_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "storage/mem.h"
#include "storage/shared_writes.h"

/* Slots per thread: more than the hash indexes a run creates (one per table, at most
 * MAX_TABLES of storage/table.h: 32, and a workload's few secondary ones: TPC-C's
 * customer by name), so that their pools, numbered in order of creation, do not share
 * one. */
#define THREAD_SLOTS 64
_Static_assert(LPOOL_BLOCK_BYTES % LPOOL_LINE == 0, "a block is whole lines");

struct lpool_region {
    struct lpool_region *older; /* kept until lpool_destroy (L2) */
    unsigned char *base;
    size_t bytes;               /* a multiple of LPOOL_BLOCK_BYTES */
    _Atomic size_t claimed;     /* bytes handed out as blocks (L1) */
};

struct lpool {
    unsigned id;                       /* unique: names the pool in the threads' slots */
    _Atomic(struct lpool_region *) cur; /* the newest region, where blocks are claimed */
    pthread_mutex_t lock;              /* lpool_reserve's, one at a time */
};

/* A thread's block of one pool: lines [next, end) are its own to hand out. */
struct thread_block {
    unsigned id; /* the pool's id; 0: none */
    unsigned char *next, *end;
};

static _Atomic unsigned next_id = 1;
static _Thread_local struct thread_block blocks[THREAD_SLOTS];

struct lpool *lpool_create(void)
{
    struct lpool *p = mem_zalloc(sizeof(*p));
    /* relaxed: a unique number is all that is needed */
    p->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    atomic_init(&p->cur, NULL);
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void lpool_destroy(struct lpool *p)
{
    if (p == NULL)
        return;
    struct lpool_region *r = atomic_load_explicit(&p->cur, memory_order_relaxed);
    while (r != NULL) {
        struct lpool_region *older = r->older;
        mem_free_shared(r->base, r->bytes);
        mem_free(r);
        r = older;
    }
    pthread_mutex_destroy(&p->lock);
    mem_free(p);
}

/* Bytes of r not claimed yet. */
static size_t region_left(struct lpool_region *r)
{
    if (r == NULL)
        return 0;
    /* relaxed: an estimate for the reserver; claims decide with their own add (L1) */
    size_t claimed = atomic_load_explicit(&r->claimed, memory_order_relaxed);
    return claimed < r->bytes ? r->bytes - claimed : 0;
}

size_t lpool_region_bytes(size_t lines)
{
    return (lines * LPOOL_LINE + LPOOL_BLOCK_BYTES - 1) / LPOOL_BLOCK_BYTES * LPOOL_BLOCK_BYTES;
}

size_t lpool_reserve_bytes(struct lpool *p, size_t lines)
{
    size_t bytes = lpool_region_bytes(lines);
    pthread_mutex_lock(&p->lock);
    size_t left = region_left(atomic_load_explicit(&p->cur, memory_order_relaxed));
    pthread_mutex_unlock(&p->lock);
    return left >= bytes ? 0 : bytes;
}

size_t lpool_reserve(struct lpool *p, size_t lines)
{
    size_t bytes = lpool_region_bytes(lines);
    pthread_mutex_lock(&p->lock);
    struct lpool_region *cur = atomic_load_explicit(&p->cur, memory_order_relaxed);
    if (bytes == 0 || region_left(cur) >= bytes) {
        pthread_mutex_unlock(&p->lock);
        return 0;
    }
    struct lpool_region *r = mem_zalloc(sizeof(*r));
    r->base = mem_alloc_shared(bytes); /* zeroed */
    mem_prefault(r->base, bytes);      /* no other thread can reach it yet */
    r->bytes = bytes;
    atomic_init(&r->claimed, 0);
    r->older = cur;
    /* release: publishes the region's fields and its faulted-in pages (L2) */
    SHW(SHW_TABLE);
    atomic_store_explicit(&p->cur, r, memory_order_release);
    pthread_mutex_unlock(&p->lock);
    return bytes;
}

void *lpool_take(struct lpool *p)
{
    struct thread_block *b = &blocks[p->id % THREAD_SLOTS];
    if (__builtin_expect(b->id != p->id || b->next == b->end, 0)) {
        /* acquire: pairs with lpool_reserve's release store (L2) */
        struct lpool_region *r = atomic_load_explicit(&p->cur, memory_order_acquire);
        /* the load first: once the region is used up, a take writes nothing shared */
        if (region_left(r) < LPOOL_BLOCK_BYTES)
            return NULL;
        /* relaxed: the add alone decides which block is ours (L1) */
        SHW(SHW_TABLE);
        size_t off = atomic_fetch_add_explicit(&r->claimed, LPOOL_BLOCK_BYTES,
                                               memory_order_relaxed);
        if (off + LPOOL_BLOCK_BYTES > r->bytes)
            return NULL;
        b->id = p->id;
        b->next = r->base + off;
        b->end = b->next + LPOOL_BLOCK_BYTES;
    }
    void *line = b->next;
    b->next += LPOOL_LINE;
    return line;
}

bool lpool_owns(const struct lpool *p, const void *line)
{
    uintptr_t a = (uintptr_t)line;
    for (const struct lpool_region *r = atomic_load_explicit(&p->cur, memory_order_relaxed);
         r != NULL; r = r->older)
        if (a >= (uintptr_t)r->base && a < (uintptr_t)r->base + r->bytes)
            return true;
    return false;
}
