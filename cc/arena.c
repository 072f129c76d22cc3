/* Transaction log area chunks (see arena.h). */
#include "cc/arena.h"

#include "config/config.h"
#include "storage/mem.h"

static struct arena_chunk *chunk_new(size_t size)
{
    struct arena_chunk *c = mem_alloc_aligned(CACHE_LINE, sizeof(*c) + size);
    c->next = NULL;
    c->size = size;
    return c;
}

void arena_init(struct arena *a)
{
    a->first = chunk_new(ARENA_CHUNK_BYTES);
    arena_reset(a);
}

void arena_free(struct arena *a)
{
    for (struct arena_chunk *c = a->first, *n; c; c = n) {
        n = c->next;
        mem_free(c);
    }
    a->first = a->cur = NULL;
    a->ptr = a->end = NULL;
}

void *arena_alloc_slow(struct arena *a, size_t n)
{
    /* Move to the next kept chunk if it is big enough, else splice in a new one. */
    struct arena_chunk *next = a->cur->next;
    if (!next || next->size < n) {
        struct arena_chunk *c = chunk_new(n > ARENA_CHUNK_BYTES ? n : ARENA_CHUNK_BYTES);
        c->next = next;
        a->cur->next = c;
        next = c;
    }
    a->cur = next;
    a->ptr = next->data + n;
    a->end = next->data + next->size;
    return next->data;
}
