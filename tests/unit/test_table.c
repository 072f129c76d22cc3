/* Unit tests of placed tables (storage/table.h): rows reserved for a node come only from
 * chunks of that node, concurrently too; a scan of [0, table_nrows) finds every row handed
 * out exactly once among zero rows; switching a row_freelist's node moves its next rows to
 * that node's chunks; mem_prefault, which reserved chunks not yet published go through,
 * leaves their bytes as they are; a reservation ahead for a placed table whose streams
 * took no chunk in the sample still reserves; a reservation stays within its budget;
 * reservations ahead that race inserters for a chunk lose none of their rows. Nodes here are stream slots: on a one-node machine the
 * chunks' memory is the same, but which chunk a row comes from is what is checked. */
#include <pthread.h>
#include <string.h>

#include "storage/mem.h"
#include "storage/table.h"
#include "tests/unit/check.h"

#define NODES 4         /* stream slots used: interleaved, 0, 1, 5 */
#define ROWS_EACH 20000 /* rows per (thread, node); more than two chunks */
#define THREADS 4

static const int node_of_slot[NODES] = {-1, 0, 1, 5};

static struct table *make_placed(uint64_t hint)
{
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    return table_create_placed("placed", &s, hint, false);
}

/* A table that is not placed, of one int64 column, created with a hint of one row
 * (chunks of 1024 rows). */
static struct table *make_flat(const char *name)
{
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    return table_create(name, &s, 1, false);
}

/* key: 1 + (slot * THREADS + thread) * ROWS_EACH + i, so a key names its node's slot */
static uint64_t key_of(int slot, int thread, uint64_t i)
{
    return 1 + ((uint64_t)slot * THREADS + (uint64_t)thread) * ROWS_EACH + i;
}
static int slot_of_key(uint64_t key) { return (int)((key - 1) / ROWS_EACH / THREADS); }

struct worker_arg {
    struct table *t;
    int thread;
};

/* Inserts ROWS_EACH rows for every node, switching node every 100 rows. */
static void *fill(void *p)
{
    struct worker_arg *a = p;
    struct row_freelist fl;
    memset(&fl, 0, sizeof(fl));
    uint64_t done[NODES] = {0};
    for (int round = 0; done[NODES - 1] < ROWS_EACH; round++) {
        int slot = round % NODES;
        table_freelist_set_node(&fl, node_of_slot[slot]);
        for (int k = 0; k < 100 && done[slot] < ROWS_EACH; k++, done[slot]++)
            table_new_row_from(&fl, a->t, key_of(slot, a->thread, done[slot]));
    }
    return NULL;
}

#define MAX_KEY ((uint64_t)NODES * THREADS * ROWS_EACH)

/* Every chunk holds rows of one node only; every row is found once; want_rows in all. */
static void check_layout(struct table *t, uint64_t want_rows)
{
    uint64_t n = table_nrows(t), chunk = (uint64_t)1 << t->chunk_shift;
    CHECK_EQ_U(n % chunk, 0);
    uint64_t found = 0;
    unsigned char *seen = mem_zalloc(MAX_KEY + 1);
    for (uint64_t c = 0; c < n / chunk; c++) {
        int chunk_slot = -1;
        for (uint64_t i = c * chunk; i < (c + 1) * chunk; i++) {
            struct row *r = table_row_at(t, i);
            if (r->key == 0)
                continue; /* a zero row */
            if (row_table(r) != t || r->key > MAX_KEY || seen[r->key]) {
                CHECK(row_table(r) == t && r->key <= MAX_KEY && !seen[r->key]);
                break;
            }
            seen[r->key] = 1;
            found++;
            int s = slot_of_key(r->key);
            if (chunk_slot < 0)
                chunk_slot = s;
            if (s != chunk_slot) {
                printf("  chunk %llu holds rows of slots %d and %d\n", (unsigned long long)c,
                       chunk_slot, s);
                CHECK(s == chunk_slot);
                break;
            }
        }
    }
    CHECK_EQ_U(found, want_rows);
    mem_free(seen);
}

static void rows_stay_on_their_node(void)
{
    struct table *t = make_placed(5000); /* chunks of 8192 rows */
    struct worker_arg a = {t, 0};
    fill(&a);
    check_layout(t, (uint64_t)NODES * ROWS_EACH);
    table_destroy(t);
}

static void concurrent_reservations(void)
{
    struct table *t = make_placed(1 << 20); /* chunks of 65536 rows (the cap) */
    CHECK_EQ_U(t->chunk_shift, 16);
    pthread_t th[THREADS];
    struct worker_arg a[THREADS];
    for (int i = 0; i < THREADS; i++) {
        a[i] = (struct worker_arg){t, i};
        pthread_create(&th[i], NULL, fill, &a[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    check_layout(t, MAX_KEY);
    table_destroy(t);
}

static uint64_t chunk_of(struct table *t, const struct row *r)
{
    for (uint64_t i = 0, n = table_nrows(t); i < n; i++)
        if (table_row_at(t, i) == r)
            return i >> t->chunk_shift;
    CHECK(!"row not found");
    return ~(uint64_t)0;
}

static void switching_node_moves_rows(void)
{
    struct table *t = make_placed(1024);
    struct row_freelist fl;
    memset(&fl, 0, sizeof(fl));
    table_freelist_set_node(&fl, 0);
    struct row *r0 = table_new_row_from(&fl, t, 1);
    table_freelist_set_node(&fl, 1);
    struct row *r1 = table_new_row_from(&fl, t, 2);
    table_freelist_set_node(&fl, 0);
    struct row *r2 = table_new_row_from(&fl, t, 3);
    /* node 1's row is in another chunk; node 0's next row in node 0's chunk */
    CHECK(chunk_of(t, r1) != chunk_of(t, r0));
    CHECK_EQ_U(chunk_of(t, r2), chunk_of(t, r0));
    CHECK_EQ_U(table_nrows(t), 2 * ((uint64_t)1 << t->chunk_shift));
    table_destroy(t);
}

/* The prefault's store to each page writes back the byte it read: a reserved chunk keeps
 * its zero rows, and any other memory its contents. */
static void prefault_keeps_contents(void)
{
    size_t bytes = (size_t)64 << 12;
    unsigned char *p = mem_alloc_shared_base_pages(bytes, -1);
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(i * 7 + 1);
    mem_prefault(p, bytes);
    size_t differ = 0;
    for (size_t i = 0; i < bytes; i++)
        differ += p[i] != (unsigned char)(i * 7 + 1);
    CHECK_EQ_U(differ, 0);
    mem_free_shared(p, bytes);
}

/* A sample in which a placed table's keys grew but none of its streams took a chunk (a
 * sample shorter than a stream's use of one) still reserves it, on the stream that took
 * its rows so far: the next chunk that stream takes is the reserved one. */
static void placed_reserve_without_new_chunk(void)
{
    struct table *t = make_placed(1 << 20); /* chunks of 65536 rows */
    struct row_freelist fl;
    memset(&fl, 0, sizeof(fl));
    table_freelist_set_node(&fl, 0);
    for (uint64_t k = 1; k <= 100; k++)
        table_new_row_from(&fl, t, k);
    struct catalog_sizes before, now;
    catalog_sizes(&before);
    now = before;
    now.keys[t->id] += 1000; /* keys grew; the streams' taken did not */
    uint64_t rows = table_nrows(t);
    /* 100x: 100,000 rows wanted, more than the rest of node 0's chunk */
    bool cut = true;
    CHECK(catalog_reserve_ahead(&before, &now, 100.0, (size_t)1 << 30, &cut) > 0);
    CHECK(!cut); /* well within its budget */
    CHECK_EQ_U(table_nrows(t), rows + ((uint64_t)1 << t->chunk_shift));
    /* node 0 uses its chunk up, then takes the reserved one: no chunk is added */
    for (uint64_t k = 101; k <= ((uint64_t)1 << t->chunk_shift) + 100; k++)
        table_new_row_from(&fl, t, k);
    CHECK_EQ_U(table_nrows(t), rows + ((uint64_t)1 << t->chunk_shift));
    table_destroy(t);
}

/* Two streams (nodes 0 and 1) that grew 3:1 get the reservation in that proportion,
 * each in whole chunks queued as its own spares: node 1 uses up its rows ahead and its
 * spares without a new chunk, then takes a new one, not node 0's spares. */
static void placed_reserve_splits_by_stream(void)
{
    struct table *t = make_placed(5000); /* chunks of 8192 rows */
    uint64_t chunk = (uint64_t)1 << t->chunk_shift, key = 1;
    struct row_freelist fl[2];
    memset(fl, 0, sizeof(fl));
    for (int k = 0; k < 2; k++) {
        table_freelist_set_node(&fl[k], k);
        for (int i = 0; i < 100; i++)
            table_new_row_from(&fl[k], t, key++);
    }
    struct catalog_sizes before, now;
    catalog_sizes(&before);
    for (uint64_t i = 0; i < 3 * chunk; i++)
        table_new_row_from(&fl[0], t, key++);
    for (uint64_t i = 0; i < chunk; i++)
        table_new_row_from(&fl[1], t, key++);
    catalog_sizes(&now);
    bool cut = true;
    CHECK(catalog_reserve_ahead(&before, &now, 2.0, (size_t)1 << 30, &cut) > 0);
    CHECK(!cut);
    /* 2 x 4 chunks grown: 6 chunks' rows for node 0, 2 for node 1, less the rest of each
     * one's current chunk (chunk - 100), in whole chunks */
    struct table_stream *s0 = &t->streams[1], *s1 = &t->streams[2];
    CHECK_EQ_U(s0->spare_rows, 6 * chunk);
    CHECK_EQ_U(s1->spare_rows, 2 * chunk);
    uint64_t rows = table_nrows(t);
    /* node 1: the rest of its chunk and both spares, no new chunk */
    for (uint64_t i = 0; i < chunk - 100 + 2 * chunk; i++)
        table_new_row_from(&fl[1], t, key++);
    CHECK_EQ_U(table_nrows(t), rows);
    CHECK_EQ_U(s1->spare_rows, 0);
    /* then a new chunk: node 0's spares stay node 0's */
    table_new_row_from(&fl[1], t, key++);
    CHECK_EQ_U(table_nrows(t), rows + chunk);
    CHECK_EQ_U(s0->spare_rows, 6 * chunk);
    table_destroy(t);
}

/* A reservation stays within its budget, to the byte, whatever the growth asks for, a
 * placed table's too, and one with a primary index (whose bucket array grows by powers
 * of two); it fills the budget to within a chunk; a top-up's budget goes to the rows
 * still missing; with nothing left, a top-up reserves nothing. */
static void reserve_ahead_within_budget(void)
{
    struct table *t = make_flat("bounded");
    for (uint64_t k = 1; k <= 100; k++)
        table_new_row(t, k);
    struct catalog_sizes before, now;
    catalog_sizes(&before);
    now = before;
    now.rows[t->id] += 1000;
    size_t chunk_bytes = ((size_t)1 << t->chunk_shift) * t->stride, budget = 64 * chunk_bytes;
    bool cut = false;
    size_t bytes = catalog_reserve_ahead(&before, &now, 1e6, budget, &cut); /* asks for 1e9 rows */
    CHECK(bytes > 0);
    CHECK(cut);
    CHECK(bytes <= budget);
    CHECK(bytes + chunk_bytes >= budget);
    /* a top-up given as much again adds about as much: only the rows still missing count
     * against its budget, not those the first call reserved */
    size_t more = catalog_reserve_ahead(&before, &now, 1e6, budget, NULL);
    CHECK(more + chunk_bytes >= budget);
    CHECK(more <= budget);
    CHECK_EQ_U(catalog_reserve_ahead(&before, &now, 1e6, 0, NULL), 0);
    table_destroy(t);

    /* a placed table: its streams' chunks within the budget too */
    struct table *p = make_placed(1 << 20);
    struct row_freelist fl;
    memset(&fl, 0, sizeof(fl));
    table_freelist_set_node(&fl, 0);
    for (uint64_t k = 1; k <= 100; k++)
        table_new_row_from(&fl, p, k);
    catalog_sizes(&before);
    now = before;
    now.keys[p->id] += 1000;
    chunk_bytes = ((size_t)1 << p->chunk_shift) * p->stride;
    budget = 4 * chunk_bytes;
    cut = false;
    bytes = catalog_reserve_ahead(&before, &now, 1e6, budget, &cut);
    CHECK(cut);
    CHECK(bytes + chunk_bytes >= budget);
    CHECK(bytes <= budget);
    table_destroy(p);

    /* a primary index: 1,000 keys grown, 100x, ask for 100,000 more rows and keys, whose
     * bucket array alone (2^16 buckets of 64 bytes: 4 MiB) passes a budget of 2 MiB */
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    struct table *x = table_create("indexed", &s, 1, true);
    for (uint64_t k = 1; k <= 1000; k++)
        idx_hash_insert(x->primary, k, table_new_row(x, k));
    catalog_sizes(&before);
    for (uint64_t k = 1001; k <= 2000; k++)
        idx_hash_insert(x->primary, k, table_new_row(x, k));
    catalog_sizes(&now);
    budget = (size_t)2 << 20;
    cut = false;
    bytes = catalog_reserve_ahead(&before, &now, 100.0, budget, &cut);
    CHECK(cut);
    CHECK(bytes > 0);
    CHECK(bytes <= budget);
    table_destroy(x);
}

/* A flat table of 8-byte rows in chunks of 2^22 rows: a first chunk over any budget the
 * reservation cases give. */
static struct table *make_big(void)
{
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    return table_create("big", &s, (uint64_t)1 << 22, false);
}

/* Gives each of the n tables 100 rows; *before is the catalog's sizes then, *now the
 * same with 1,000 rows more in each of them (as if they had grown since). */
static void grown_by_1000(struct table *const *t, int n, struct catalog_sizes *before,
                          struct catalog_sizes *now)
{
    for (uint64_t k = 1; k <= 100; k++)
        for (int i = 0; i < n; i++)
            table_new_row(t[i], k);
    catalog_sizes(before);
    *now = *before;
    for (int i = 0; i < n; i++)
        now->rows[t[i]->id] += 1000;
}

/* A table whose next step passes the budget on its own (a whole chunk of 2^22 rows) does
 * not hold the others back: the small table still gets its whole share. */
static void reserve_ahead_big_step_leaves_the_rest(void)
{
    struct table *big = make_big(), *small = make_flat("small"); /* chunks of 1024 rows */
    CHECK_EQ_U(big->chunk_shift, 22);
    struct catalog_sizes before, now;
    grown_by_1000((struct table *[]){big, small}, 2, &before, &now);
    /* 100x: 100,000 rows each; small's take 98 chunks, within 200; big's first chunk alone
     * is far over */
    size_t budget = 200 * ((size_t)1024 * small->stride);
    CHECK(budget < ((size_t)1 << 22) * big->stride);
    bool cut = false;
    size_t bytes = catalog_reserve_ahead(&before, &now, 100.0, budget, &cut);
    CHECK(cut);
    CHECK(bytes <= budget);
    CHECK(small->populated >= 100 + 100000);
    CHECK_EQ_U(big->populated, 0);
    table_destroy(big);
    table_destroy(small);
}

/* What the budget leaves once one table's step (a whole chunk of 2^22 rows) stops it goes
 * to the tables that can still grow, shared as one horizon, not to the first in catalog
 * order: two small tables that asked for the same rows get the same number of chunks,
 * give or take one, and together fill the budget to within two. */
static void reserve_ahead_shares_what_a_step_leaves(void)
{
    struct table *big = make_big(), *first = make_flat("first"), *second = make_flat("second");
    struct catalog_sizes before, now;
    grown_by_1000((struct table *[]){big, first, second}, 3, &before, &now);
    /* 1,000x: 1 M rows each, 977 chunks of the small tables', far over 200; big's first
     * chunk (at its first row, a millionth of the way) stops the three together before
     * the small ones take a chunk of their own */
    size_t chunk = (size_t)1024 * first->stride, budget = 200 * chunk;
    bool cut = false;
    size_t bytes = catalog_reserve_ahead(&before, &now, 1000.0, budget, &cut);
    CHECK(cut);
    CHECK(bytes <= budget);
    CHECK(bytes + 2 * chunk >= budget);
    CHECK_EQ_U(big->populated, 0);
    uint64_t a = first->populated >> first->chunk_shift,
             b = second->populated >> second->chunk_shift;
    CHECK(a + 1 >= b && b + 1 >= a);
    table_destroy(big);
    table_destroy(first);
    table_destroy(second);
}

/* Reservations ahead (catalog_reserve_ahead) while inserters grow a table that is not
 * placed, in chunks of 1024 rows: the reserver's chunks race the inserters' (chunk_reserve
 * loses some: an inserter publishes the chunk while the reserver prefaults its own, which
 * must then be dropped, not published over the inserter's rows). Every row inserted is
 * found once, its value intact. */
#define GROW_ROWS 300000 /* per inserter */
#define GROWERS 2

struct grow_arg {
    struct table *t;
    int thread;
    _Atomic int *running;
};

static void *grow(void *p)
{
    struct grow_arg *a = p;
    for (uint64_t i = 0; i < GROW_ROWS; i++) {
        uint64_t key = 1 + (uint64_t)a->thread * GROW_ROWS + i, v = key * 3;
        struct row *r = table_new_row(a->t, key);
        memcpy(col_ptr(&a->t->schema, r->data, 0), &v, sizeof(v));
    }
    atomic_fetch_sub(a->running, 1);
    return NULL;
}

static void reserve_ahead_races_inserters(void)
{
    struct table *t = make_flat("grown");
    CHECK_EQ_U(t->chunk_shift, 10);
    _Atomic int running = GROWERS;
    pthread_t th[GROWERS];
    struct grow_arg a[GROWERS];
    for (int i = 0; i < GROWERS; i++) {
        a[i] = (struct grow_arg){t, i, &running};
        pthread_create(&th[i], NULL, grow, &a[i]);
    }
    struct catalog_sizes before, now;
    size_t reserved = 0;
    catalog_sizes(&before);
    while (atomic_load(&running) > 0) {
        catalog_sizes(&now);
        reserved += catalog_reserve_ahead(&before, &now, 2.0, (size_t)1 << 28, NULL);
        before = now;
    }
    for (int i = 0; i < GROWERS; i++)
        pthread_join(th[i], NULL);
    CHECK(reserved > 0);
    uint64_t max_key = (uint64_t)GROWERS * GROW_ROWS, found = 0, bad = 0;
    unsigned char *seen = mem_zalloc(max_key + 1);
    for (uint64_t i = 0, n = table_nrows(t); i < n; i++) {
        struct row *r = table_row_at(t, i);
        uint64_t v;
        memcpy(&v, col_ptr(&t->schema, r->data, 0), sizeof(v));
        if (r->key == 0 && v == 0)
            continue; /* a row reserved, not handed out */
        if (r->key == 0 || r->key > max_key || seen[r->key] || v != r->key * 3) {
            bad++;
            continue;
        }
        seen[r->key] = 1;
        found++;
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(found, max_key);
    mem_free(seen);
    table_destroy(t);
}

/* A row names its table by id (struct row): a row handed out names its own, and one
 * whose id was never set (all zero) names none, since id 0 is never given. */
static void rows_name_their_table(void)
{
    struct table *t = make_flat("named");
    CHECK(t->id != 0 && catalog_table(0) == NULL);
    struct row *r = table_new_row(t, 7);
    CHECK(row_table(r) == t && r->key == 7);
    struct row *zero = calloc(1, sizeof(struct row) + 8);
    CHECK(row_table(zero) == NULL);
    free(zero);
    table_destroy(t);
}

int main(void)
{
    mem_init(0);
    RUN_CASE(rows_name_their_table);
    RUN_CASE(rows_stay_on_their_node);
    RUN_CASE(concurrent_reservations);
    RUN_CASE(switching_node_moves_rows);
    RUN_CASE(prefault_keeps_contents);
    RUN_CASE(placed_reserve_without_new_chunk);
    RUN_CASE(placed_reserve_splits_by_stream);
    RUN_CASE(reserve_ahead_within_budget);
    RUN_CASE(reserve_ahead_big_step_leaves_the_rest);
    RUN_CASE(reserve_ahead_shares_what_a_step_leaves);
    RUN_CASE(reserve_ahead_races_inserters);
    CHECK_EXIT();
}
