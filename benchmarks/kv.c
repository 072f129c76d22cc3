/* f1 and tao: read-dominated key-value transaction workloads after the NCC paper's
 * evaluation (seeds/001, section 7: "Google-F1 and Facebook-TAO have 1 M keys, with the
 * popular keys randomly distributed to balance load"). One table of --rows keys (default
 * 1 M) with one 64-byte value; a key's popularity rank is drawn from a Zipfian(--theta)
 * and mapped to a key by a fixed permutation, so popular keys are scattered over the
 * key space and so over the network model's servers (a hash of the key).
 *
 * A transaction is a write with probability --write-fraction, else a read; both are one
 * shot. The shapes are ours (the seed text gives no numbers; docs/running.md marks them):
 *   f1   read: 1-10 keys, uniform; write: blind writes of 1-4 keys, uniform.
 *   tao  read: 5-50 keys, uniform (TAO's larger read transactions); write: blind writes
 *        of 1-2 keys (an object, or an association and its inverse).
 * Reads are declared read-only (txn_declare_read_only). Keys of a transaction are
 * distinct. The two transaction types report apart ("read", "write"), so the read-only
 * latency of the paper's Figure 7 is the "read" type's. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "benchmarks/zipf.h"
#include "storage/hash_mix.h"
#include "storage/table.h"

#define KV_VALUE_BYTES 64
#define KV_MAX_KEYS 50
/* A prime above any --rows: rank * KV_SCATTER mod rows is a permutation of the keys. */
#define KV_SCATTER 10000000019ull

enum { KV_READ, KV_WRITE };

struct kv_shape {
    uint32_t read_min, read_max, write_min, write_max;
};

struct kv_query {
    uint32_t n;
    uint32_t type;
    uint64_t key[KV_MAX_KEYS];
};

static struct table *kvtable;
static struct zipf zipf;
static const struct kv_shape *shape;
static bool prefetch; /* --prefetch */

static const struct kv_shape f1_shape = {1, 10, 1, 4};
static const struct kv_shape tao_shape = {5, 50, 1, 2};

/* A new row's value: random bytes of the loader's stream. */
static void fill_value(struct row *row, void *rng)
{
    struct rng *r = rng;
    unsigned char *p = col_ptr(&kvtable->schema, row->data, 0);
    for (uint32_t b = 0; b < KV_VALUE_BYTES; b += 8) {
        uint64_t x = rng_next(r);
        memcpy(p + b, &x, 8);
    }
}

static void load_part(int i, void *arg) { load_random_slice(i, arg, kvtable, fill_value); }

static void kv_load(const struct options *o, const struct kv_shape *s)
{
    struct schema sc;
    schema_init(&sc, o->verify);
    schema_add(&sc, "value", COL_CHAR, KV_VALUE_BYTES);
    schema_seal(&sc);
    shape = s;
    kvtable = workload_keyed_table("kv", &sc, o->rows, false, o);
    prefetch = o->prefetch;
    progress_phase("load", "rows", o->rows);
    parallel_for(o->threads, load_part, (void *)o);
    zipf_init(&zipf, o->rows, o->theta);
}

static void f1_load(const struct options *o) { kv_load(o, &f1_shape); }
static void tao_load(const struct options *o) { kv_load(o, &tao_shape); }

static size_t kv_query_size(const struct options *o)
{
    (void)o;
    return sizeof(struct kv_query);
}

static bool key_used(const struct kv_query *q, uint32_t n, uint64_t key)
{
    for (uint32_t j = 0; j < n; j++)
        if (q->key[j] == key)
            return true;
    return false;
}

static void kv_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    struct kv_query *q = qv;
    q->type = rng_double(r) < o->write_fraction ? KV_WRITE : KV_READ;
    uint32_t lo = q->type == KV_WRITE ? shape->write_min : shape->read_min;
    uint32_t hi = q->type == KV_WRITE ? shape->write_max : shape->read_max;
    q->n = lo + (uint32_t)rng_below(r, hi - lo + 1);
    if (q->n > o->rows)
        q->n = (uint32_t)o->rows;
    for (uint32_t i = 0; i < q->n; i++) {
        uint64_t key;
        /* distinct keys: redraw; after many collisions (tiny tables) take the next unused */
        for (int tries = 0;; tries++) {
            uint64_t rank = zipf_next(&zipf, r);
            key = (uint64_t)((unsigned __int128)rank * KV_SCATTER % o->rows);
            while (tries >= 64 && key_used(q, i, key))
                key = (key + 1) % o->rows;
            if (!key_used(q, i, key))
                break;
        }
        q->key[i] = key;
    }
}

static int kv_type(const void *q) { return (int)((const struct kv_query *)q)->type; }

static enum rc kv_run(struct txn *t, const void *qv)
{
    const struct kv_query *q = qv;
    const struct schema *s = &kvtable->schema;
    /* --prefetch: the keys' index lines requested, then every row looked up (no key is
     * inserted or deleted) and its lines requested, so the misses overlap */
    struct row *rows[KV_MAX_KEYS];
    for (uint32_t i = 0; prefetch && i < q->n; i++)
        table_prefetch_key(kvtable, q->key[i]);
    for (uint32_t i = 0; prefetch && i < q->n; i++) {
        rows[i] = txn_lookup(t, kvtable, q->key[i]);
        txn_prefetch(t, kvtable, rows[i], q->type == KV_WRITE, COLS_ALL); /* its only column */
    }
    if (q->type == KV_READ) {
        txn_declare_read_only(t);
        uint64_t sink = 0;
        for (uint32_t i = 0; i < q->n; i++) {
            const unsigned char *img;
            struct row *row = prefetch ? rows[i] : txn_lookup(t, kvtable, q->key[i]);
            if (txn_read(t, row, COLS_ALL, &img) != RC_OK)
                return RC_ABORT;
            uint64_t w;
            memcpy(&w, col_ptr(s, img, 0), 8);
            sink += w;
        }
        __asm__ __volatile__("" ::"r"(sink)); /* keep the reads */
        return RC_OK;
    }
    unsigned char value[KV_VALUE_BYTES];
    for (uint32_t i = 0; i < q->n; i++) {
        uint64_t v[KV_VALUE_BYTES / 8];
        for (uint32_t j = 0; j < KV_VALUE_BYTES / 8; j++)
            v[j] = hash_fib(q->key[i]) + j + (uint64_t)(uintptr_t)t;
        memcpy(value, v, sizeof(value));
        struct row *row = prefetch ? rows[i] : txn_lookup(t, kvtable, q->key[i]);
        if (txn_write(t, row, 0, value) != RC_OK)
            return RC_ABORT;
    }
    return RC_OK;
}

static void kv_json(const struct options *o, FILE *f)
{
    fprintf(f, "\"rows\":%llu,\"row_bytes\":%u,\"read_keys\":[%u,%u],\"write_keys\":[%u,%u]",
            (unsigned long long)o->rows, kvtable->schema.data_size, shape->read_min,
            shape->read_max, shape->write_min, shape->write_max);
}

const struct workload f1_workload = {
    .name = "f1",
    .ntypes = 2,
    .type_names = {"read", "write"},
    .load = f1_load,
    .rows_to_load = workload_rows_flag,
    .query_size = kv_query_size,
    .gen_query = kv_gen,
    .query_type = kv_type,
    .run = kv_run,
    .json = kv_json,
    .dense_keys = true,
};

const struct workload tao_workload = {
    .name = "tao",
    .ntypes = 2,
    .type_names = {"read", "write"},
    .load = tao_load,
    .rows_to_load = workload_rows_flag,
    .query_size = kv_query_size,
    .gen_query = kv_gen,
    .query_type = kv_type,
    .run = kv_run,
    .json = kv_json,
    .dense_keys = true,
};
