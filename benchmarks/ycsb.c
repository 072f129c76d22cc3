/* YCSB: one table of --rows rows, --fields fields of --field-size random bytes each, keys
 * 0..rows-1 in a hash index (or the array index, --index array). A transaction makes --req-per-txn requests on distinct keys
 * drawn from a Zipfian(theta) distribution: a read reads the whole row (every field), a
 * write is YCSB's read-modify-write of one field, or, a --blind-writes share of them, a
 * blind write of one field (txn_write with no read first: its history record replaces a
 * version the transaction never read, so only a WW edge orders it, cc/history.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "benchmarks/zipf.h"
#include "storage/table.h"

enum { YCSB_READ, YCSB_RMW, YCSB_BLIND };

struct ycsb_req {
    uint64_t key;
    uint32_t field;
    uint32_t write; /* YCSB_READ, YCSB_RMW or YCSB_BLIND */
};

struct ycsb_query {
    uint32_t n;
    uint32_t read_only; /* no request writes */
    struct ycsb_req req[];
};

static struct table *usertable;
static struct zipf zipf;
static bool prefetch; /* --prefetch */

/* Every field of a new row: random bytes of the loader's stream. */
static void fill_fields(struct row *row, void *rng)
{
    struct rng *r = rng;
    const struct schema *s = &usertable->schema;
    for (int f = 0; f < s->ncols; f++) {
        unsigned char *p = col_ptr(s, row->data, f);
        for (uint32_t b = 0; b < s->cols[f].size; b += 8) {
            uint64_t x = rng_next(r);
            memcpy(p + b, &x, s->cols[f].size - b < 8 ? s->cols[f].size - b : 8);
        }
    }
}

static void load_part(int i, void *arg) { load_random_slice(i, arg, usertable, fill_fields); }

static void ycsb_load(const struct options *o)
{
    static char names[MAX_COLUMNS][16];
    struct schema s;
    schema_init(&s, o->verify);
    for (int f = 0; f < o->fields; f++) {
        snprintf(names[f], sizeof(names[f]), "f%d", f);
        schema_add(&s, names[f], COL_CHAR, o->field_size);
    }
    schema_seal(&s);
    usertable = workload_keyed_table("usertable", &s, o->rows, false, o);
    prefetch = o->prefetch;
    progress_phase("load", "rows", o->rows);
    parallel_for(o->threads, load_part, (void *)o);
    zipf_init(&zipf, o->rows, o->theta);
}

static size_t ycsb_query_size(const struct options *o)
{
    return sizeof(struct ycsb_query) + (size_t)o->req_per_txn * sizeof(struct ycsb_req);
}

static bool key_used(const struct ycsb_query *q, uint32_t n, uint64_t key)
{
    for (uint32_t j = 0; j < n; j++)
        if (q->req[j].key == key)
            return true;
    return false;
}

static void ycsb_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    struct ycsb_query *q = qv;
    q->n = (uint32_t)o->req_per_txn;
    q->read_only = 1;
    for (uint32_t i = 0; i < q->n; i++) {
        uint64_t key = zipf_next(&zipf, r);
        /* distinct keys: redraw; after many collisions (tiny tables, high skew) take the
         * next unused key, so generation always ends */
        for (int tries = 0; key_used(q, i, key); tries++)
            key = tries < 64 ? zipf_next(&zipf, r) : (key + 1) % o->rows;
        q->req[i].key = key;
        q->req[i].write = rng_double(r) >= o->read_ratio ? YCSB_RMW : YCSB_READ;
        q->req[i].field = (uint32_t)rng_below(r, (uint64_t)o->fields);
        /* drawn only when asked, so the default query streams stay as they were */
        if (q->req[i].write && o->blind_writes > 0 && rng_double(r) < o->blind_writes)
            q->req[i].write = YCSB_BLIND;
        q->read_only &= !q->req[i].write;
    }
}

static int ycsb_type(const void *q)
{
    (void)q;
    return 0;
}

static enum rc ycsb_run(struct txn *t, const void *qv)
{
    const struct ycsb_query *q = qv;
    const struct schema *s = &usertable->schema;
    unsigned char buf[YCSB_FIELD_SIZE_MAX];
    uint64_t sink = 0;
    uint32_t words = s->data_size / 8; /* row images are 8-aligned, sizes multiples of 8 */
    if (q->read_only)
        txn_declare_read_only(t);
    /* --prefetch: the keys' index lines requested, then every row looked up (the keys
     * never change: YCSB inserts and deletes nothing) and its lines requested, so the
     * misses overlap */
    struct row *rows[YCSB_REQ_MAX];
    for (uint32_t i = 0; prefetch && i < q->n; i++)
        table_prefetch_key(usertable, q->req[i].key);
    for (uint32_t i = 0; prefetch && i < q->n; i++) {
        rows[i] = txn_lookup(t, usertable, q->req[i].key);
        bool read = q->req[i].write == YCSB_READ; /* a read reads every field */
        txn_prefetch(t, usertable, rows[i], !read,
                     read ? COLS_ALL : COL_BIT((int)q->req[i].field));
    }
    for (uint32_t i = 0; i < q->n; i++) {
        const struct ycsb_req *rq = &q->req[i];
        struct row *row = prefetch ? rows[i] : txn_lookup(t, usertable, rq->key);
        const unsigned char *img;
        if (rq->write == YCSB_READ) {
            if (txn_read(t, row, COLS_ALL, &img) != RC_OK)
                return RC_ABORT;
            const uint64_t *w = (const uint64_t *)(const void *)img;
            for (uint32_t k = 0; k < words; k++) /* read the whole row: every field */
                sink += w[k];
        } else if (rq->write == YCSB_BLIND) {
            int f = (int)rq->field;
            memset(buf, (int)(rq->key + i), s->cols[f].size); /* any value will do */
            if (txn_write(t, row, f, buf) != RC_OK)
                return RC_ABORT;
        } else {
            int f = (int)rq->field;
            if (txn_read_for_update(t, row, COL_BIT(f), &img) != RC_OK)
                return RC_ABORT;
            uint32_t sz = s->cols[f].size;
            memcpy(buf, col_ptr(s, img, f), sz);
            buf[0]++; /* modify */
            if (txn_write(t, row, f, buf) != RC_OK)
                return RC_ABORT;
        }
        txn_last_access(t, row); /* keys are distinct: the last access to this row */
    }
    __asm__ __volatile__("" ::"r"(sink)); /* keep the reads */
    return RC_OK;
}

static void ycsb_json(const struct options *o, FILE *f)
{
    fprintf(f, "\"rows\":%llu,\"row_bytes\":%u,\"row_stride\":%zu",
            (unsigned long long)o->rows, usertable->schema.data_size, usertable->stride);
}

const struct workload ycsb_workload = {
    .name = "ycsb",
    .ntypes = 1,
    .type_names = {"txn"},
    .load = ycsb_load,
    .rows_to_load = workload_rows_flag,
    .query_size = ycsb_query_size,
    .gen_query = ycsb_gen,
    .query_type = ycsb_type,
    .run = ycsb_run,
    .check = NULL,
    .json = ycsb_json,
    .dense_keys = true,
};
