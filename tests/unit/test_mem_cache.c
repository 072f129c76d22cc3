/* Unit tests of the thread-owned block cache (storage/mem_cache.h), built with a small
 * bound of its own (the sanitizer builds' default keeps nothing): blocks come back last
 * in, first out; no more than the bound is held, the rest is freed; the drain frees
 * what is held (LeakSanitizer reports a block it misses). */
#define MEM_CACHE_BYTES 256u
#include "storage/mem_cache.h"
#include "tests/unit/check.h"

#define SIZE 64 /* 4 blocks fit the bound */

static void reuses_last_in_first(void)
{
    struct mem_cache c = {0};
    void *a = mem_cache_get(&c, SIZE), *b = mem_cache_get(&c, SIZE);
    CHECK(a && b && a != b);
    mem_cache_put(&c, a, SIZE);
    mem_cache_put(&c, b, SIZE);
    CHECK_EQ_U(c.bytes, 2 * SIZE);
    CHECK(mem_cache_get(&c, SIZE) == b);
    CHECK(mem_cache_get(&c, SIZE) == a);
    CHECK_EQ_U(c.bytes, 0);
    CHECK(c.head == NULL);
    mem_cache_put(&c, a, SIZE);
    mem_cache_put(&c, b, SIZE);
    mem_cache_drain(&c);
}

static void holds_at_most_the_bound(void)
{
    struct mem_cache c = {0};
    void *p[10];
    for (int i = 0; i < 10; i++)
        p[i] = mem_cache_get(&c, SIZE);
    for (int i = 0; i < 10; i++) {
        mem_cache_put(&c, p[i], SIZE);
        CHECK(c.bytes <= MEM_CACHE_BYTES);
    }
    CHECK_EQ_U(c.bytes, MEM_CACHE_BYTES);
    /* the first 4 were kept; the others were freed, not linked */
    int held = 0;
    for (void *q = c.head; q; q = *(void **)q)
        held++;
    CHECK_EQ_U(held, MEM_CACHE_BYTES / SIZE);
    CHECK(c.head == p[3]);
    mem_cache_drain(&c);
    CHECK(c.head == NULL);
    CHECK_EQ_U(c.bytes, 0);
}

/* A block larger than the bound is never held. */
static void frees_a_block_over_the_bound(void)
{
    struct mem_cache c = {0};
    void *p = mem_cache_get(&c, 2 * MEM_CACHE_BYTES);
    mem_cache_put(&c, p, 2 * MEM_CACHE_BYTES);
    CHECK(c.head == NULL);
    CHECK_EQ_U(c.bytes, 0);
}

int main(void)
{
    RUN_CASE(reuses_last_in_first);
    RUN_CASE(holds_at_most_the_bound);
    RUN_CASE(frees_a_block_over_the_bound);
    CHECK_EXIT();
}
