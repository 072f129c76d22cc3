/* Per-transaction log area (TLA): a bump allocator over chunks owned by one thread.
 *
 * A transaction allocates its private copies, undo images, sorted write sets and the
 * like here; txn_begin resets the arena, so nothing is freed one by one. Chunks are kept
 * across transactions: after warm-up the hot path never calls the general allocator.
 * Invariant: cur is first or a chunk chained after it; [ptr, end) is free in cur. */
#ifndef CC_ARENA_H
#define CC_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* bytes of data[] */
    unsigned char data[];
};

struct arena {
    struct arena_chunk *first, *cur;
    unsigned char *ptr, *end;
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
void *arena_alloc_slow(struct arena *a, size_t n);

/* 16-byte aligned, uninitialised. */
static inline void *arena_alloc(struct arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if ((size_t)(a->end - a->ptr) < n)
        return arena_alloc_slow(a, n);
    void *p = a->ptr;
    a->ptr += n;
    return p;
}

static inline void arena_reset(struct arena *a)
{
    a->cur = a->first;
    a->ptr = a->first->data;
    a->end = a->first->data + a->first->size;
}

#endif
