/* Unit tests of storage/index.h: the hash index (whichever implementation is linked: the
 * own one in storage/index_hash.c or the TBB one) and the ordered index, single-threaded
 * and under concurrent inserts, removes and lookups. Rows are fake pointers derived from
 * the key, so a lookup that returns a row of another key is caught. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/hash_mix.h"
#include "storage/index.h"
#include "tests/unit/check.h"

#define THREADS 4

/* Odd, so never NULL (also for key UINT64_MAX); distinct for keys that differ below bit 63.
 * Never dereferenced. */
static struct row *fake_row(uint64_t key)
{
    return (struct row *)(uintptr_t)(key * 2 + 1);
}

/* xorshift64: a cheap per-thread random stream; the state must be non-zero. */
static uint64_t next_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void run_threads(void *(*fn)(void *), void *args, size_t arg_size, int n)
{
    pthread_t tids[THREADS * 2];
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&tids[i], NULL, fn, (char *)args + (size_t)i * arg_size) == 0);
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
}

/* ---- hash index, one thread ---- */

static void test_hash_basic(void)
{
    struct idx_hash *h = idx_hash_create(100, 0);
    CHECK(idx_hash_kind()[0] != '\0');
    CHECK_EQ_U(idx_hash_size(h), 0);
    CHECK(idx_hash_get(h, 7) == NULL);
    CHECK(!idx_hash_remove(h, 7));
    /* Every uint64_t is a valid key, including 0 and UINT64_MAX. */
    const uint64_t edge[] = {0, 1, UINT64_MAX, UINT64_MAX - 1, (uint64_t)1 << 63};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        CHECK(idx_hash_insert(h, edge[i], fake_row(i)));
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        CHECK(idx_hash_get(h, edge[i]) == fake_row(i));
    for (uint64_t k = 100; k < 200; k++)
        CHECK(idx_hash_insert(h, k, fake_row(k)));
    CHECK_EQ_U(idx_hash_size(h), 105);
    CHECK(!idx_hash_insert(h, 150, fake_row(999)));  /* duplicate: no change */
    CHECK(idx_hash_get(h, 150) == fake_row(150));
    CHECK_EQ_U(idx_hash_size(h), 105);
    CHECK(idx_hash_remove(h, 150));
    CHECK(!idx_hash_remove(h, 150));
    CHECK(idx_hash_get(h, 150) == NULL);
    CHECK(idx_hash_get(h, 151) == fake_row(151));
    CHECK_EQ_U(idx_hash_size(h), 104);
    CHECK(idx_hash_insert(h, 150, fake_row(777)));   /* re-insert after remove */
    CHECK(idx_hash_get(h, 150) == fake_row(777));
    CHECK(idx_hash_remove(h, UINT64_MAX));
    CHECK(idx_hash_get(h, UINT64_MAX) == NULL);
    CHECK(idx_hash_get(h, 0) == fake_row(0));
    CHECK_EQ_U(idx_hash_size(h), 104);
    idx_hash_destroy(h);
}

/* 40x more keys than `expected`, half of them packed keys that differ only in high bits. */
static void test_hash_chaining(void)
{
    struct idx_hash *h = idx_hash_create(1000, 0);
    const uint64_t n = 20000;
    for (uint64_t k = 0; k < n; k++) {
        CHECK(idx_hash_insert(h, k, fake_row(k)));
        CHECK(idx_hash_insert(h, (k + 1) << 40 | 5, fake_row((k + 1) << 40 | 5)));
    }
    CHECK_EQ_U(idx_hash_size(h), 2 * n);
    /* it grew: a few keys per bucket, not 2 * n / 700 */
    CHECK(idx_hash_buckets(h) >= idx_hash_size(h) / 4);
    for (uint64_t k = 0; k < n; k++) {
        CHECK(idx_hash_get(h, k) == fake_row(k));
        CHECK(idx_hash_get(h, (k + 1) << 40 | 5) == fake_row((k + 1) << 40 | 5));
    }
    for (uint64_t k = 0; k < n; k += 2)
        CHECK(idx_hash_remove(h, k));
    for (uint64_t k = 0; k < n; k++)
        CHECK(idx_hash_get(h, k) == (k % 2 ? fake_row(k) : NULL));
    for (uint64_t k = 0; k < n; k += 2)   /* refills the slots the removes emptied */
        CHECK(idx_hash_insert(h, k, fake_row(k)));
    CHECK_EQ_U(idx_hash_size(h), 2 * n);
    CHECK(idx_hash_get(h, n) == NULL);
    idx_hash_destroy(h);
}

/* ---- hash index, concurrent ---- */

#define INSERT_PER_THREAD 20000

struct hash_arg {
    struct idx_hash *h;
    int id;
    _Atomic int *inserters_left;
    long bad; /* lookups or updates with a wrong result */
};

static void *insert_thread(void *p)
{
    struct hash_arg *a = p;
    uint64_t base = (uint64_t)a->id * INSERT_PER_THREAD;
    for (uint64_t k = base; k < base + INSERT_PER_THREAD; k++) {
        if (!idx_hash_insert(a->h, k, fake_row(k)) || idx_hash_get(a->h, k) != fake_row(k))
            a->bad++;
    }
    atomic_fetch_sub(a->inserters_left, 1);
    return NULL;
}

/* Looks up random keys (half of them never inserted) until the inserters finish. */
static void *lookup_thread(void *p)
{
    struct hash_arg *a = p;
    uint64_t rng = hash_fib((uint64_t)a->id) + 1;
    while (atomic_load(a->inserters_left) > 0) {
        uint64_t k = next_rand(&rng) % (2 * THREADS * INSERT_PER_THREAD);
        struct row *r = idx_hash_get(a->h, k);
        if (r != NULL && r != fake_row(k))
            a->bad++;
    }
    return NULL;
}

static void *insert_or_lookup_thread(void *p)
{
    struct hash_arg *a = p;
    return a->id < THREADS ? insert_thread(p) : lookup_thread(p);
}

/* THREADS inserters of disjoint keys and THREADS readers of random ones on h, then every
 * key found; destroys h. */
static void insert_while_reading(struct idx_hash *h)
{
    _Atomic int left = THREADS;
    struct hash_arg args[2 * THREADS];
    for (int i = 0; i < 2 * THREADS; i++)
        args[i] = (struct hash_arg){.h = h, .id = i, .inserters_left = &left};
    run_threads(insert_or_lookup_thread, args, sizeof args[0], 2 * THREADS);
    for (int i = 0; i < 2 * THREADS; i++)
        CHECK_EQ_U(args[i].bad, 0);
    CHECK_EQ_U(idx_hash_size(h), THREADS * INSERT_PER_THREAD);
    CHECK(idx_hash_buckets(h) >= idx_hash_size(h) / 4); /* grew under the readers */
    for (uint64_t k = 0; k < THREADS * INSERT_PER_THREAD; k++)
        CHECK(idx_hash_get(h, k) == fake_row(k));
    idx_hash_destroy(h);
}

static void test_hash_concurrent_insert(void)
{
    insert_while_reading(idx_hash_create(1000, 0)); /* chains grow while readers walk them */
}

/* The same with cluster bits (the own index's hash keeps a key's low 6 bits as its
 * bucket's low bits): every growth under the readers must move each key to the bucket
 * that look-ups and later inserts compute for it. */
static void test_hash_clustered_insert(void)
{
    insert_while_reading(idx_hash_create(16, 6));
}

/* Reserved ahead (idx_hash_reserve: the bucket array and the overflow nodes), then the
 * same concurrent inserts and look-ups: every key is found, and the destroy frees the
 * nodes allocated past the reservation but not the reserved ones (AddressSanitizer
 * reports a double or a missed free). Half the keys are reserved for, so the chains use
 * both kinds of node, and the growth past the reservation may be under way at the end. */
static void test_hash_reserved_insert(void)
{
    struct idx_hash *h = idx_hash_create(16, 0);
    idx_hash_reserve(h, THREADS * INSERT_PER_THREAD / 2);
    insert_while_reading(h);
}

/* idx_hash_reserve_bytes never reckons less than idx_hash_reserve then allocates. The
 * index is reserved for RESERVE_KEYS keys and holds them all, so its bucket array is full
 * (2 keys a bucket) and its node region partly used; a reservation for more keys doubles
 * the array, and the move of the keys into it chains nodes from that region. For some of
 * the sizes swept, what the region has left covers the new keys' nodes before the move
 * but not after it: the reservation then takes a new region, which the reckoning must
 * have counted (with INDEX=tbb both are 0). */
#define RESERVE_KEYS 32768

static void test_hash_reserve_bytes_covers_growth(void)
{
    for (size_t lines = 128; lines <= 2048; lines += 128) {
        struct idx_hash *h = idx_hash_create(16, 0);
        idx_hash_reserve(h, RESERVE_KEYS);
        for (uint64_t k = 0; k < RESERVE_KEYS; k++)
            CHECK(idx_hash_insert(h, k, fake_row(k)));
        size_t keys = RESERVE_KEYS + 8 * lines; /* one overflow node per 8 new keys */
        size_t reckoned = idx_hash_reserve_bytes(h, keys);
        size_t reserved = idx_hash_reserve(h, keys);
        CHECK(reserved <= reckoned);
        CHECK_EQ_U(idx_hash_size(h), RESERVE_KEYS);
        CHECK(idx_hash_get(h, RESERVE_KEYS - 1) == fake_row(RESERVE_KEYS - 1));
        idx_hash_destroy(h);
    }
}

/* Keys [0, CHURN_KEYS) interleaved between the churn threads (thread t owns k % THREADS
 * == t), so a thread's own results are deterministic while buckets are shared; an index
 * sized for one key puts them in few chains, so slots go empty and get reused by other keys
 * under the readers. A torn read (key of one entry, row of another) needs a reader delayed
 * between two loads, so this check is probabilistic. */
#define CHURN_KEYS 32
#define CHURN_ROUNDS 3000

static void *churn_thread(void *p)
{
    struct hash_arg *a = p;
    uint64_t rng = (uint64_t)a->id + 1;
    if (a->id >= THREADS) { /* readers */
        while (atomic_load(a->inserters_left) > 0) {
            uint64_t k = next_rand(&rng) % CHURN_KEYS;
            struct row *r = idx_hash_get(a->h, k);
            if (r != NULL && r != fake_row(k))
                a->bad++;
        }
        return NULL;
    }
    for (int round = 0; round < CHURN_ROUNDS; round++) {
        for (uint64_t k = (uint64_t)a->id; k < CHURN_KEYS; k += THREADS) {
            if (!idx_hash_insert(a->h, k, fake_row(k)) || idx_hash_get(a->h, k) != fake_row(k))
                a->bad++;
        }
        for (uint64_t k = (uint64_t)a->id; k < CHURN_KEYS; k += THREADS) {
            if (idx_hash_insert(a->h, k, fake_row(k + 1)) || !idx_hash_remove(a->h, k) ||
                idx_hash_get(a->h, k) != NULL || idx_hash_remove(a->h, k))
                a->bad++;
        }
    }
    /* Leave every other owned key in. */
    for (uint64_t k = (uint64_t)a->id; k < CHURN_KEYS; k += 2 * THREADS)
        if (!idx_hash_insert(a->h, k, fake_row(k)))
            a->bad++;
    atomic_fetch_sub(a->inserters_left, 1);
    return NULL;
}

static void test_hash_concurrent_churn(void)
{
    struct idx_hash *h = idx_hash_create(1, 0);
    _Atomic int left = THREADS;
    struct hash_arg args[THREADS + 2];
    for (int i = 0; i < THREADS + 2; i++)
        args[i] = (struct hash_arg){.h = h, .id = i, .inserters_left = &left};
    run_threads(churn_thread, args, sizeof args[0], THREADS + 2);
    for (int i = 0; i < THREADS + 2; i++)
        CHECK_EQ_U(args[i].bad, 0);
    CHECK_EQ_U(idx_hash_size(h), CHURN_KEYS / 2);
    for (uint64_t k = 0; k < CHURN_KEYS; k++)
        CHECK(idx_hash_get(h, k) == (k % (2 * THREADS) < THREADS ? fake_row(k) : NULL));
    idx_hash_destroy(h);
}

/* ---- ordered index ---- */

#define MAX_SEEN 64

struct seen {
    uint64_t keys[MAX_SEEN];
    size_t n;
    size_t stop_after; /* 0: never stop */
    bool bad_row;
};

static bool record(uint64_t key, struct row *row, void *arg)
{
    struct seen *s = arg;
    if (row != fake_row(key))
        s->bad_row = true;
    if (s->n < MAX_SEEN)
        s->keys[s->n] = key;
    s->n++;
    return s->stop_after == 0 || s->n < s->stop_after;
}

/* Checks that a scan visited exactly keys from `first` in steps of `step` (signed). */
static void check_seen(const struct seen *s, size_t returned, size_t count, uint64_t first,
                       int64_t step)
{
    CHECK(!s->bad_row);
    CHECK_EQ_U(returned, count);
    CHECK_EQ_U(s->n, count);
    for (size_t i = 0; i < count && i < MAX_SEEN; i++)
        CHECK_EQ_U(s->keys[i], first + (uint64_t)((int64_t)i * step));
}

static void test_ordered_scans(void)
{
    struct idx_ordered *o = idx_ordered_create();
    for (uint64_t k = 100; k >= 10; k -= 10) /* descending insert order */
        CHECK(idx_ordered_insert(o, k, fake_row(k)));
    CHECK_EQ_U(idx_ordered_size(o), 10);
    CHECK(idx_ordered_get(o, 30) == fake_row(30));
    CHECK(idx_ordered_get(o, 35) == NULL);
    CHECK(!idx_ordered_insert(o, 30, fake_row(31)));
    CHECK(idx_ordered_get(o, 30) == fake_row(30));

    struct seen s = {0};
    check_seen(&s, idx_ordered_scan(o, 25, 75, record, &s), 5, 30, 10);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan_desc(o, 25, 75, record, &s), 5, 70, -10);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan(o, 0, UINT64_MAX, record, &s), 10, 10, 10);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan_desc(o, 0, UINT64_MAX, record, &s), 10, 100, -10);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan(o, 30, 30, record, &s), 1, 30, 0);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan_desc(o, 41, 49, record, &s), 0, 0, 0);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan(o, 75, 25, record, &s), 0, 0, 0); /* lo > hi */

    /* Early stop: the visitor's false ends the scan; the stopping entry counts. */
    s = (struct seen){.stop_after = 2};
    check_seen(&s, idx_ordered_scan(o, 0, UINT64_MAX, record, &s), 2, 10, 10);
    s = (struct seen){.stop_after = 1};
    check_seen(&s, idx_ordered_scan_desc(o, 0, 55, record, &s), 1, 50, 0);
    idx_ordered_destroy(o);
}

static void test_ordered_tombstones(void)
{
    struct idx_ordered *o = idx_ordered_create();
    for (uint64_t k = 1; k <= 5; k++)
        CHECK(idx_ordered_insert(o, k, fake_row(k)));
    CHECK(idx_ordered_insert(o, UINT64_MAX, fake_row(UINT64_MAX)));
    CHECK(idx_ordered_insert(o, 0, fake_row(0)));
    CHECK(!idx_ordered_remove(o, 9));
    CHECK(idx_ordered_remove(o, 3));
    CHECK(!idx_ordered_remove(o, 3));
    CHECK(idx_ordered_remove(o, 1));
    CHECK(idx_ordered_get(o, 3) == NULL);
    CHECK_EQ_U(idx_ordered_size(o), 5);

    struct seen s = {0};
    CHECK_EQ_U(idx_ordered_scan(o, 1, 5, record, &s), 3);
    CHECK(s.keys[0] == 2 && s.keys[1] == 4 && s.keys[2] == 5);
    s = (struct seen){0};
    CHECK_EQ_U(idx_ordered_scan_desc(o, 0, UINT64_MAX, record, &s), 5);
    CHECK(s.keys[0] == UINT64_MAX && s.keys[1] == 5 && s.keys[2] == 4 && s.keys[3] == 2 &&
          s.keys[4] == 0);
    /* Stopping at the first live entry skips tombstones before it. */
    s = (struct seen){.stop_after = 1};
    CHECK_EQ_U(idx_ordered_scan_desc(o, 1, 3, record, &s), 1);
    CHECK_EQ_U(s.keys[0], 2);
    CHECK(!s.bad_row);

    CHECK(idx_ordered_insert(o, 3, fake_row(3))); /* revive */
    CHECK(!idx_ordered_insert(o, 3, fake_row(4)));
    CHECK(idx_ordered_get(o, 3) == fake_row(3));
    CHECK_EQ_U(idx_ordered_size(o), 6);
    s = (struct seen){0};
    check_seen(&s, idx_ordered_scan(o, 2, 5, record, &s), 4, 2, 1);
    idx_ordered_destroy(o);
}

/* Thread t toggles keys k % THREADS == t of [0, ORD_KEYS) live and dead; a scanner checks
 * order and rows. */
#define ORD_KEYS 512
#define ORD_ROUNDS 40

struct ord_arg {
    struct idx_ordered *o;
    int id;
    _Atomic int *writers_left;
    long bad;
};

struct order_check {
    uint64_t prev;
    bool first;
    bool desc;
    long bad;
};

static bool check_order(uint64_t key, struct row *row, void *arg)
{
    struct order_check *c = arg;
    if (row != fake_row(key) || key >= ORD_KEYS ||
        (!c->first && (c->desc ? key >= c->prev : key <= c->prev)))
        c->bad++;
    c->prev = key;
    c->first = false;
    return true;
}

static void *ordered_thread(void *p)
{
    struct ord_arg *a = p;
    if (a->id >= THREADS) { /* scanner */
        for (bool desc = false; atomic_load(a->writers_left) > 0; desc = !desc) {
            struct order_check c = {.first = true, .desc = desc};
            size_t n = desc ? idx_ordered_scan_desc(a->o, 0, UINT64_MAX, check_order, &c)
                            : idx_ordered_scan(a->o, 0, UINT64_MAX, check_order, &c);
            a->bad += c.bad + (n > ORD_KEYS);
        }
        return NULL;
    }
    for (int round = 0; round < ORD_ROUNDS; round++) {
        for (uint64_t k = (uint64_t)a->id; k < ORD_KEYS; k += THREADS)
            if (!idx_ordered_insert(a->o, k, fake_row(k)) || idx_ordered_get(a->o, k) != fake_row(k))
                a->bad++;
        for (uint64_t k = (uint64_t)a->id; k < ORD_KEYS; k += THREADS)
            if (!idx_ordered_remove(a->o, k) || idx_ordered_get(a->o, k) != NULL)
                a->bad++;
    }
    for (uint64_t k = (uint64_t)a->id; k < ORD_KEYS; k += 2 * THREADS)
        if (!idx_ordered_insert(a->o, k, fake_row(k)))
            a->bad++;
    atomic_fetch_sub(a->writers_left, 1);
    return NULL;
}

static void test_ordered_concurrent(void)
{
    struct idx_ordered *o = idx_ordered_create();
    _Atomic int left = THREADS;
    struct ord_arg args[THREADS + 1];
    for (int i = 0; i < THREADS + 1; i++)
        args[i] = (struct ord_arg){.o = o, .id = i, .writers_left = &left};
    run_threads(ordered_thread, args, sizeof args[0], THREADS + 1);
    for (int i = 0; i < THREADS + 1; i++)
        CHECK_EQ_U(args[i].bad, 0);
    CHECK_EQ_U(idx_ordered_size(o), ORD_KEYS / 2);
    struct order_check c = {.first = true};
    CHECK_EQ_U(idx_ordered_scan(o, 0, UINT64_MAX, check_order, &c), ORD_KEYS / 2);
    CHECK_EQ_U(c.bad, 0);
    idx_ordered_destroy(o);
}

int main(void)
{
    printf("hash index: %s\n", idx_hash_kind());
    RUN_CASE(test_hash_basic);
    RUN_CASE(test_hash_chaining);
    RUN_CASE(test_hash_concurrent_insert);
    RUN_CASE(test_hash_clustered_insert);
    RUN_CASE(test_hash_reserved_insert);
    RUN_CASE(test_hash_reserve_bytes_covers_growth);
    RUN_CASE(test_hash_concurrent_churn);
    RUN_CASE(test_ordered_scans);
    RUN_CASE(test_ordered_tombstones);
    RUN_CASE(test_ordered_concurrent);
    CHECK_EXIT();
}
