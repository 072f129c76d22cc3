/* Synthetic hotspot benchmark (RCC paper, section 6.2): one table; a transaction makes one
 * read-modify-write of a single hot row (key 0) and --len random reads, each thread
 * reading its own partition of the table (so the only conflict is the hot row). The hot
 * update comes after floor(--distance * --len) of the reads: 0 = hotspot first, 1 = last.
 * Rows per partition: --rows / threads, at least --len. The hot row's last access is
 * hinted (txn_last_access) right after its write. Partition i is placed on the NUMA node
 * of thread i (a placed table, storage/table.h). */
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "storage/table.h"
#include "storage/topology.h"

struct synth_query {
    uint32_t n;       /* reads */
    uint32_t hot_pos; /* reads before the hot update */
    uint64_t key[];
};

static struct table *synth_table;
static int col_value, col_payload;
static uint64_t part_rows; /* rows per thread's partition; partition i: 1 + i * part_rows */

/* A new row's payload: its key. */
static void fill_payload(struct row *row, void *arg)
{
    (void)arg;
    int64_t v = (int64_t)row->key;
    memcpy(col_ptr(&synth_table->schema, row->data, col_payload), &v, sizeof(v));
}

static void load_part(int i, void *arg)
{
    (void)arg;
    /* partition i on thread i's node (a placed table); loader 0 also loads the hot row */
    struct row_freelist fl = {0};
    table_freelist_set_node(&fl, topo_node_of(i));
    uint64_t lo = i == 0 ? 0 : 1 + (uint64_t)i * part_rows;
    uint64_t hi = 1 + (uint64_t)(i + 1) * part_rows;
    load_rows(synth_table, &fl, lo, hi, fill_payload, NULL);
}

static void synth_load(const struct options *o)
{
    struct schema s;
    schema_init(&s, o->verify);
    col_value = schema_add(&s, "value", COL_INT64, 8);
    col_payload = schema_add(&s, "payload", COL_INT64, 8);
    schema_seal(&s);
    part_rows = o->rows / (uint64_t)o->threads;
    if (part_rows < (uint64_t)o->len)
        part_rows = (uint64_t)o->len;
    uint64_t total = 1 + part_rows * (uint64_t)o->threads;
    synth_table = workload_keyed_table("synth", &s, total, true, o);
    progress_phase("load", "rows", total);
    parallel_for(o->threads, load_part, (void *)o);
}

static size_t synth_query_size(const struct options *o)
{
    return sizeof(struct synth_query) + (size_t)o->len * sizeof(uint64_t);
}

static void synth_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    struct synth_query *q = qv;
    q->n = (uint32_t)o->len;
    q->hot_pos = (uint32_t)(o->distance * o->len); /* floor */
    if (q->hot_pos > q->n)
        q->hot_pos = q->n;
    uint64_t base = 1 + (uint64_t)thread * part_rows;
    for (uint32_t i = 0; i < q->n; i++)
        q->key[i] = base + rng_below(r, part_rows);
}

static int synth_type(const void *q)
{
    (void)q;
    return 0;
}

static enum rc hot_update(struct txn *t)
{
    struct row *hot = txn_lookup(t, synth_table, 0);
    const unsigned char *img;
    if (txn_read_for_update(t, hot, COL_BIT(col_value), &img) != RC_OK)
        return RC_ABORT;
    int64_t v;
    memcpy(&v, col_ptr(&synth_table->schema, img, col_value), sizeof(v));
    v++;
    if (txn_write(t, hot, col_value, &v) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, hot);
    return RC_OK;
}

static enum rc synth_run(struct txn *t, const void *qv)
{
    const struct synth_query *q = qv;
    const struct schema *s = &synth_table->schema;
    int64_t sum = 0;
    for (uint32_t i = 0; i <= q->n; i++) {
        if (i == q->hot_pos && hot_update(t) != RC_OK)
            return RC_ABORT;
        if (i == q->n)
            break;
        struct row *row = txn_lookup(t, synth_table, q->key[i]);
        const unsigned char *img;
        if (txn_read(t, row, COL_BIT(col_payload), &img) != RC_OK)
            return RC_ABORT;
        int64_t v;
        memcpy(&v, col_ptr(s, img, col_payload), sizeof(v));
        sum += v;
    }
    __asm__ __volatile__("" ::"r"(sum)); /* keep the reads */
    return RC_OK;
}

static void synth_json(const struct options *o, FILE *f)
{
    fprintf(f, "\"rows_per_thread\":%llu,\"table_rows\":%llu", (unsigned long long)part_rows,
            (unsigned long long)(1 + part_rows * (uint64_t)o->threads));
}

const struct workload synth_workload = {
    .name = "synth",
    .ntypes = 1,
    .type_names = {"txn"},
    .load = synth_load,
    .rows_to_load = workload_rows_flag,
    .query_size = synth_query_size,
    .gen_query = synth_gen,
    .query_type = synth_type,
    .run = synth_run,
    .check = NULL,
    .json = synth_json,
    .dense_keys = true,
};
