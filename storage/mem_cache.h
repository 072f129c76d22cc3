/* A thread-owned cache of freed blocks of one size, in front of the allocator: for a
 * hot path that frees and allocates blocks of the same size at the same rate (mvto's
 * version nodes: about 8 of each per TPC-C commit). jemalloc's thread cache serves the
 * same pattern, but in bursts (a GC pass frees hundreds at once) it flushes to its arena
 * and refills from it: 66 instructions a malloc and 86 a sized free on average there,
 * about 1,200 per mvto TPC-C commit, against a few for a pop and a push here.
 *
 * Invariants: every block on the list came from mem_alloc(size) for the size the caller
 * passes (one cache per size, which each put records for the drain); at most
 * MEM_CACHE_BYTES are held, so the memory a cache keeps back from the allocator is
 * bounded; the list links through each block's first word. Owned by one thread, no
 * synchronisation. All zero: empty. The owner calls mem_cache_drain before it goes
 * away. */
#ifndef STORAGE_MEM_CACHE_H
#define STORAGE_MEM_CACHE_H

#include <stdint.h>
#include <stddef.h>

#include "storage/mem.h"

/* (A test may set its own bound.) */
#ifndef MEM_CACHE_BYTES
#ifdef MEM_SYSTEM_MALLOC
/* Sanitizer builds keep nothing: every free reaches the sanitizer, so a use of a block
 * after its free is reported there rather than read back from a recycled block. */
#define MEM_CACHE_BYTES 0
#else
/* Room for a burst: mvto's GC pass every 64 commits frees about 320 stock versions of
 * 360 bytes at once on TPC-C (115 KiB). */
#define MEM_CACHE_BYTES (256u << 10)
#endif
#endif

struct mem_cache {
    void *head;
    uint32_t bytes; /* held on the list */
    uint32_t size;  /* the size of its blocks (0: none given back yet) */
};

/* A block of `size` bytes (>= sizeof(void *)), uninitialised: a cached one, else a new. */
static inline void *mem_cache_get(struct mem_cache *c, size_t size)
{
    void *p = c->head;
    if (!p)
        return mem_alloc(size);
    c->head = *(void **)p;
    c->bytes -= (uint32_t)size;
    return p;
}

/* Gives back p, a block from mem_cache_get(c, size): kept while there is room, else
 * freed. */
static inline void mem_cache_put(struct mem_cache *c, void *p, size_t size)
{
    if (c->bytes + size > MEM_CACHE_BYTES) {
        mem_free_sized(p, size);
        return;
    }
    *(void **)p = c->head;
    c->head = p;
    c->bytes += (uint32_t)size;
    c->size = (uint32_t)size;
}

/* Frees every block c holds and leaves it empty. */
static inline void mem_cache_drain(struct mem_cache *c)
{
    while (c->head) {
        void *next = *(void **)c->head;
        mem_free_sized(c->head, c->size);
        c->head = next;
    }
    c->bytes = 0;
}

#endif
