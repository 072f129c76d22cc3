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
 * bounded (per cache: a user with one cache per table holds up to MAX_TABLES times
 * that); the list links through each block's first word. Used by one thread at a time
 * (the owner of the structure it lives in), no synchronisation. All zero: empty. The
 * owner calls mem_cache_drain before it goes away. */
#ifndef STORAGE_MEM_CACHE_H
#define STORAGE_MEM_CACHE_H

#include <sanitizer/asan_interface.h> /* ASAN_(UN)POISON_MEMORY_REGION: no-ops without ASan */
#include <stdint.h>
#include <stddef.h>

#include "storage/mem.h"

/* (A test may set its own bound.) */
#ifndef MEM_CACHE_BYTES
#ifdef MEM_SYSTEM_MALLOC
/* Sanitizer builds keep a few blocks only: the reuse path runs in the tests, and most
 * frees still reach the sanitizer, whose quarantine reports a use of a block long after
 * its free (a block held here is poisoned, below). */
#define MEM_CACHE_BYTES (4u << 10)
#else
/* Room for a burst: mvto's GC pass every 64 commits frees about 320 stock versions of
 * 360 bytes at once on TPC-C (115 KiB). */
#define MEM_CACHE_BYTES (256u << 10)
#endif
#endif
_Static_assert(MEM_CACHE_BYTES <= UINT32_MAX / 2, "mem_cache: bytes is a uint32_t");


/* Under AddressSanitizer a held block is poisoned: any use of it between its put and
 * the get that hands it out again is reported (use-after-poison). */
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
    ASAN_UNPOISON_MEMORY_REGION(p, size);
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
    ASAN_POISON_MEMORY_REGION(p, size);
    c->head = p;
    c->bytes += (uint32_t)size;
    c->size = (uint32_t)size;
}

/* Frees every block c holds and leaves it empty. */
static inline void mem_cache_drain(struct mem_cache *c)
{
    while (c->head) {
        void *p = c->head;
        ASAN_UNPOISON_MEMORY_REGION(p, c->size);
        c->head = *(void **)p;
        mem_free_sized(p, c->size);
    }
    c->bytes = 0;
}

#endif
