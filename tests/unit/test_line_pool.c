/* Unit tests of the pool of pre-faulted lines (storage/line_pool.h): nothing before a
 * reservation; every reserved line handed out once, zeroed, aligned, owned by its pool,
 * then NULL; a reservation with enough left allocates nothing; threads that take at once
 * get disjoint lines and use the reservation up; two pools that share a thread's slot
 * keep their lines apart. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "storage/line_pool.h"
#include "tests/unit/check.h"

#define BLOCK_LINES (LPOOL_BLOCK_BYTES / LPOOL_LINE)

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

/* Whether the n lines are distinct (sorts them). */
static int distinct(void **lines, size_t n)
{
    qsort(lines, n, sizeof(*lines), cmp_ptr);
    for (size_t i = 1; i < n; i++)
        if (lines[i] == lines[i - 1])
            return 0;
    return 1;
}

static void empty_until_reserved(void)
{
    struct lpool *p = lpool_create();
    CHECK(lpool_take(p) == NULL);
    int local;
    CHECK(!lpool_owns(p, &local));
    lpool_destroy(p);
}

static void hands_out_each_reserved_line_once(void)
{
    struct lpool *p = lpool_create();
    size_t bytes = lpool_reserve(p, BLOCK_LINES + 1); /* rounded up to two blocks */
    CHECK_EQ_U(bytes, 2 * LPOOL_BLOCK_BYTES);
    size_t n = bytes / LPOOL_LINE, got = 0;
    void **lines = malloc(n * sizeof(*lines));
    for (unsigned char *l; (l = lpool_take(p)) != NULL; got++) {
        CHECK(got < n);
        if (got >= n)
            break;
        CHECK((uintptr_t)l % LPOOL_LINE == 0);
        CHECK(lpool_owns(p, l));
        for (int i = 0; i < LPOOL_LINE; i++)
            CHECK(l[i] == 0);
        l[0] = 1; /* written: it must not come back */
        lines[got] = l;
    }
    CHECK_EQ_U(got, n);
    CHECK(distinct(lines, got));
    CHECK(lpool_take(p) == NULL);
    free(lines);
    lpool_destroy(p);
}

static void reserves_only_what_is_missing(void)
{
    struct lpool *p = lpool_create();
    CHECK(lpool_reserve(p, 4 * BLOCK_LINES) > 0);
    CHECK_EQ_U(lpool_reserve(p, 2 * BLOCK_LINES), 0); /* enough left */
    CHECK(lpool_take(p) != NULL);                     /* claims one block */
    CHECK_EQ_U(lpool_reserve(p, 3 * BLOCK_LINES), 0);
    CHECK(lpool_reserve(p, 4 * BLOCK_LINES) > 0); /* only three left: a new region */
    size_t n = 0;
    while (n < 8 * BLOCK_LINES && lpool_take(p) != NULL) /* bounded: a pool that never runs dry */
        n++;
    /* the rest of the first block, then the new region's four (the old region's two
     * unclaimed blocks stay unused) */
    CHECK_EQ_U(n, (BLOCK_LINES - 1) + 4 * BLOCK_LINES);
    lpool_destroy(p);
}

#define THREADS 4
#define THREAD_MAX 4096

struct taker {
    struct lpool *p;
    void *lines[THREAD_MAX];
    size_t n;
};

static void *take_all(void *arg)
{
    struct taker *k = arg;
    void *l;
    while (k->n < THREAD_MAX && (l = lpool_take(k->p)) != NULL)
        k->lines[k->n++] = l;
    return NULL;
}

static void threads_take_disjoint_lines(void)
{
    struct lpool *p = lpool_create();
    size_t n = lpool_reserve(p, 32 * BLOCK_LINES) / LPOOL_LINE;
    static struct taker k[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        k[i].p = p;
        k[i].n = 0;
        CHECK(pthread_create(&tid[i], NULL, take_all, &k[i]) == 0);
    }
    void **all = malloc(n * sizeof(*all));
    size_t total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        CHECK(k[i].n % BLOCK_LINES == 0); /* whole blocks: each thread ran dry */
        for (size_t j = 0; j < k[i].n && total < n; j++)
            all[total++] = k[i].lines[j];
    }
    CHECK_EQ_U(total, n);
    CHECK(distinct(all, total));
    free(all);
    lpool_destroy(p);
}

static void pools_sharing_a_slot_stay_apart(void)
{
    /* ids are consecutive: among 65 pools the first and the last share a thread's slot */
    struct lpool *p[65];
    for (int i = 0; i < 65; i++)
        p[i] = lpool_create();
    struct lpool *a = p[0], *b = p[64];
    /* each take finds the slot the other pool's: it claims a block (the rest of the
     * other's stays unused), so 8 takes need 8 blocks */
    lpool_reserve(a, 8 * BLOCK_LINES);
    lpool_reserve(b, 8 * BLOCK_LINES);
    for (int i = 0; i < 8; i++) {
        void *x = lpool_take(a), *y = lpool_take(b);
        CHECK(x != NULL && y != NULL);
        CHECK(lpool_owns(a, x) && !lpool_owns(b, x));
        CHECK(lpool_owns(b, y) && !lpool_owns(a, y));
    }
    CHECK(lpool_take(a) == NULL); /* 8 blocks claimed, one line used of each */
    for (int i = 0; i < 65; i++)
        lpool_destroy(p[i]);
}

int main(void)
{
    RUN_CASE(empty_until_reserved);
    RUN_CASE(hands_out_each_reserved_line_once);
    RUN_CASE(reserves_only_what_is_missing);
    RUN_CASE(threads_take_disjoint_lines);
    RUN_CASE(pools_sharing_a_slot_stay_apart);
    return check_failures ? 1 : 0;
}
