/* The geo workloads (--geo, cc/geo.h): each query is a list of operations on distinct
 * keys that geo_run executes across the emulated datacenters. Keys 0..--rows-1, shard
 * = key % shards, drawn from a Zipfian(--theta) distribution.
 *
 *   retwis   the Twitter clone of TAPIR and of the D2PC authors' code
 *            (store/benchmark/retwisClient.cc in ZhangZihao270/D2PC): add_user 5% (read
 *            and write 1 key, write 2 more), follow 15% (read and write 2 keys),
 *            post_tweet 30% (read and write 3 keys, write 2 more), load_timeline 50%
 *            (read 1 to 10 keys, uniform). A key that is read and written is one
 *            read-modify-write (GEO_ADD); "write" alone is a blind write.
 *   ycsbt    YCSB+T workload A: --txn-ops operations, each a read or (50%) a blind
 *            update, with operation i on shard i % shards, so every transaction touches
 *            every shard once it has at least as many operations as there are shards.
 *   geo-bank transfers between two accounts on different shards (when there are two):
 *            each a read-modify-write (-x, +x); the leaders' balances must sum to what
 *            was loaded after the run.
 *
 * A query is its seed; run() expands it (so a retry repeats the same operations) and
 * hands the operations to geo_run, which copies them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "benchmarks/zipf.h"
#include "cc/geo.h"
#include "storage/table.h"

#define BANK_BALANCE 1000
#define BANK_MAX_TRANSFER 100

static struct zipf zipf;
static const struct options *opts;

struct geo_query {
    uint64_t seed;
    uint32_t type;
};

enum { RETWIS_ADD_USER, RETWIS_FOLLOW, RETWIS_POST, RETWIS_TIMELINE };

static uint64_t geo_rows(const struct options *o)
{
    (void)o;
    return geo_rows_to_load(geo_cfg.keys);
}

static void load_part(int i, void *arg)
{
    const struct options *o = arg;
    uint64_t lo, hi;
    load_slice(geo_cfg.keys, i, o->threads, &lo, &hi);
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        load_rows(geo_table(dc), NULL, lo, hi, NULL, NULL);
    geo_fill_items(lo, hi);
}

static int64_t bank_init(uint64_t key)
{
    (void)key;
    return BANK_BALANCE;
}

static void load_with(const struct options *o, int64_t (*init)(uint64_t))
{
    opts = o;
    geo_create(init);
    progress_phase("load", "rows", geo_rows(o));
    parallel_for(o->threads, load_part, (void *)o);
    zipf_init(&zipf, geo_cfg.keys, o->theta);
}

static void geo_load_zero(const struct options *o) { load_with(o, NULL); }
static void geo_load_bank(const struct options *o) { load_with(o, bank_init); }

static size_t query_size(const struct options *o)
{
    (void)o;
    return sizeof(struct geo_query);
}

static int query_type(const void *q) { return (int)((const struct geo_query *)q)->type; }

/* ---- expansion ---- */

static bool has_key(const struct geo_spec *s, uint64_t k)
{
    for (int i = 0; i < s->nops; i++)
        if (s->op[i].key == k)
            return true;
    return false;
}

/* A key not yet in s: Zipfian, redrawn while taken (or, on shard `shard` >= 0, moved to
 * the nearest key of that shard). */
static uint64_t fresh_key(const struct geo_spec *s, struct rng *r, int shard)
{
    uint64_t n = geo_cfg.keys, S = (uint64_t)geo_cfg.d.nshards;
    for (;;) {
        uint64_t k = zipf_next(&zipf, r);
        if (shard >= 0) {
            k = k - k % S + (uint64_t)shard;
            if (k >= n)
                k = (uint64_t)shard;
        }
        if (!has_key(s, k))
            return k;
    }
}

static void add_op(struct geo_spec *s, uint64_t key, enum geo_op_kind kind, int32_t arg)
{
    s->op[s->nops++] = (struct geo_op){.key = key, .arg = arg, .kind = (uint8_t)kind};
}

static void add_ops(struct geo_spec *s, struct rng *r, int n, enum geo_op_kind kind)
{
    for (int i = 0; i < n; i++) {
        uint64_t k = fresh_key(s, r, -1);
        add_op(s, k, kind, kind == GEO_WRITE ? (int32_t)(k & 0x7fffffff) : 1);
    }
}

static void retwis_gen(void *q, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    (void)o;
    struct geo_query *g = q;
    g->seed = rng_next(r);
    uint64_t x = rng_next(r) % 100;
    g->type = x < 5 ? RETWIS_ADD_USER : x < 20 ? RETWIS_FOLLOW : x < 50 ? RETWIS_POST
                                                                         : RETWIS_TIMELINE;
}

static void retwis_expand(const struct geo_query *g, struct geo_spec *s)
{
    struct rng r;
    rng_seed(&r, g->seed, 0);
    s->tag = g->seed;
    s->nops = 0;
    switch (g->type) {
    case RETWIS_ADD_USER:
        add_ops(s, &r, 1, GEO_ADD);
        add_ops(s, &r, 2, GEO_WRITE);
        break;
    case RETWIS_FOLLOW:
        add_ops(s, &r, 2, GEO_ADD);
        break;
    case RETWIS_POST:
        add_ops(s, &r, 3, GEO_ADD);
        add_ops(s, &r, 2, GEO_WRITE);
        break;
    default:
        add_ops(s, &r, 1 + (int)(rng_next(&r) % 10), GEO_READ);
        break;
    }
}

static void ycsbt_gen(void *q, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    (void)o;
    struct geo_query *g = q;
    g->seed = rng_next(r);
    g->type = 0;
}

static void ycsbt_expand(const struct geo_query *g, struct geo_spec *s)
{
    struct rng r;
    rng_seed(&r, g->seed, 0);
    s->tag = g->seed;
    s->nops = 0;
    for (int i = 0; i < opts->txn_ops; i++) {
        uint64_t k = fresh_key(s, &r, i % geo_cfg.d.nshards);
        if (rng_next(&r) % 2)
            add_op(s, k, GEO_READ, 0);
        else
            add_op(s, k, GEO_WRITE, (int32_t)(rng_next(&r) & 0x7fffffff));
    }
}

static void bank_expand(const struct geo_query *g, struct geo_spec *s)
{
    struct rng r;
    rng_seed(&r, g->seed, 0);
    s->tag = g->seed;
    s->nops = 0;
    int S = geo_cfg.d.nshards;
    uint64_t a = fresh_key(s, &r, -1);
    int32_t amount = 1 + (int32_t)(rng_next(&r) % BANK_MAX_TRANSFER);
    add_op(s, a, GEO_ADD, -amount);
    int other = S > 1 ? (int)((a + 1 + rng_next(&r) % (uint64_t)(S - 1)) % (uint64_t)S) : 0;
    add_op(s, fresh_key(s, &r, other), GEO_ADD, amount);
}

static enum rc run_with(struct txn *t, const void *q,
                        void (*expand)(const struct geo_query *, struct geo_spec *))
{
    struct geo_spec s;
    expand(q, &s);
    return geo_run(t, &s, NULL);
}

static enum rc retwis_run(struct txn *t, const void *q) { return run_with(t, q, retwis_expand); }
static enum rc ycsbt_run(struct txn *t, const void *q) { return run_with(t, q, ycsbt_expand); }
static enum rc bank_run(struct txn *t, const void *q) { return run_with(t, q, bank_expand); }

static bool geo_check_run(const struct options *o, FILE *out)
{
    (void)o;
    return geo_check(out);
}

static bool bank_check(const struct options *o, FILE *out)
{
    bool ok = geo_check_run(o, out);
    int64_t want = (int64_t)geo_cfg.keys * BANK_BALANCE, got = geo_sum();
    if (got != want) {
        fprintf(out, "geo-bank: the balances sum to %lld, %lld were loaded\n", (long long)got,
                (long long)want);
        ok = false;
    }
    return ok;
}

static void geo_json(const struct options *o, FILE *f)
{
    (void)o;
    fputs("\"geo\":", f);
    geo_report_json(f);
}

const struct workload retwis_workload = {
    .name = "retwis",
    .ntypes = 4,
    .type_names = {"add_user", "follow", "post_tweet", "load_timeline"},
    .load = geo_load_zero,
    .rows_to_load = geo_rows,
    .query_size = query_size,
    .gen_query = retwis_gen,
    .query_type = query_type,
    .run = retwis_run,
    .check = geo_check_run,
    .json = geo_json,
    .geo = true,
};

const struct workload ycsbt_workload = {
    .name = "ycsbt",
    .ntypes = 1,
    .type_names = {"txn"},
    .load = geo_load_zero,
    .rows_to_load = geo_rows,
    .query_size = query_size,
    .gen_query = ycsbt_gen,
    .query_type = query_type,
    .run = ycsbt_run,
    .check = geo_check_run,
    .json = geo_json,
    .geo = true,
};

const struct workload geo_bank_workload = {
    .name = "geo-bank",
    .ntypes = 1,
    .type_names = {"transfer"},
    .load = geo_load_bank,
    .rows_to_load = geo_rows,
    .query_size = query_size,
    .gen_query = ycsbt_gen,
    .query_type = query_type,
    .run = bank_run,
    .check = bank_check,
    .json = geo_json,
    .geo = true,
};
