/* Unit tests of the thread-owned block cache (storage/mem_cache.h), built with a small
 * bound of its own: blocks come back last in, first out; no more than the bound is held,
 * the rest is freed; a held block is poisoned (AddressSanitizer reports its use); the
 * drain frees what is held (LeakSanitizer reports a block it misses). */
#define MEM_CACHE_BYTES 256u
#include "storage/mem_cache.h"
#include "tests/unit/check.h"

#ifdef __SANITIZE_ADDRESS__
#define POISONED(p) __asan_address_is_poisoned(p)
#else
#define POISONED(p) 1 /* (the unit tests are AddressSanitizer builds) */
#endif

#define SIZE 64 /* 4 blocks fit the bound */
#define HELD (int)(MEM_CACHE_BYTES / SIZE)

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
    CHECK_EQ_U(c.size, SIZE);
    /* the first 4 were kept (the others were freed, not linked): they come back, newest
     * first, and then a new block */
    for (int i = HELD - 1; i >= 0; i--)
        CHECK(mem_cache_get(&c, SIZE) == p[i]);
    CHECK(c.head == NULL);
    CHECK_EQ_U(c.bytes, 0);
    void *q = mem_cache_get(&c, SIZE);
    for (int i = 0; i < HELD; i++)
        mem_cache_put(&c, p[i], SIZE);
    mem_cache_put(&c, q, SIZE);
    mem_cache_drain(&c);
    CHECK(c.head == NULL);
    CHECK_EQ_U(c.bytes, 0);
}

/* A held block is poisoned, every byte of it; one handed out again is not. */
static void poisons_what_it_holds(void)
{
    struct mem_cache c = {0};
    unsigned char *p = mem_cache_get(&c, SIZE);
    CHECK(!POISONED(p) && !POISONED(p + SIZE - 1));
    mem_cache_put(&c, p, SIZE);
    CHECK(POISONED(p) && POISONED(p + 8) && POISONED(p + SIZE - 1));
    CHECK(mem_cache_get(&c, SIZE) == p);
    CHECK(!POISONED(p) && !POISONED(p + SIZE - 1));
    p[SIZE - 1] = 1; /* writable again */
    mem_cache_put(&c, p, SIZE);
    mem_cache_drain(&c);
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
    RUN_CASE(poisons_what_it_holds);
    RUN_CASE(frees_a_block_over_the_bound);
    CHECK_EXIT();
}
