/* Row store implementation: schema layout, chunked row allocation, the table catalog. */
#include "storage/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/index.h"
#include "storage/mem.h"
#include "storage/shared_writes.h"

struct table *table_catalog[MAX_TABLES];
static const char *catalog_name[MAX_TABLES];
/* the next id; 0 is never given (see catalog_table in table.h) */
static atomic_int catalog_n = 1;
static atomic_bool catalog_after_load; /* catalog_loaded was called */

void catalog_loaded(void)
{
    /* relaxed: only chooses the page size of later chunks */
    atomic_store_explicit(&catalog_after_load, true, memory_order_relaxed);
}

/* A new chunk's memory on `node` (-1: interleaved). Huge pages while loading and for a
 * chunk reserved ahead (`ahead`: faulted in before the window); base pages for a chunk a
 * run's insert allocates (after catalog_loaded), whose faults the window pays, cheaper in
 * base pages (storage/mem.c). Reserved chunks need huge pages where a hypervisor shadows
 * the guest's page tables: its mappings of base pages do not last. Measured on a PVM guest
 * (2 x 1 GiB, each faulted in with a store per page, then the first again): the first
 * GiB's stores cost 0.8-2.7 us per 4 KiB page again in base pages (lost mappings, 20 ns
 * when kept), 28-30 ns in huge pages. */
static unsigned char *chunk_alloc(size_t bytes, int node, bool ahead)
{
    return !ahead && atomic_load_explicit(&catalog_after_load, memory_order_relaxed)
               ? mem_alloc_shared_base_pages(bytes, node)
               : mem_alloc_shared_on(bytes, node);
}

void schema_init(struct schema *s, bool verify)
{
    memset(s, 0, sizeof(*s));
    s->verify = verify;
}

void schema_cluster_keys(struct schema *s, unsigned bits)
{
    s->key_cluster_bits = bits;
}

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

int schema_add(struct schema *s, const char *name, enum col_type type, uint32_t size)
{
    if (s->ncols == MAX_COLUMNS) {
        fprintf(stderr, "schema: more than %d columns\n", MAX_COLUMNS);
        exit(1);
    }
    if (type != COL_CHAR)
        size = type == COL_INT32 ? 4 : 8;
    if (size == 0) { /* every value has a word (row_install_written) */
        fprintf(stderr, "schema: column %s has no bytes\n", name);
        exit(1);
    }
    uint32_t off = s->data_size;
    if (s->verify)
        off = align_up(off, 8) + WID_SIZE; /* writer id, then the value */
    else if (type != COL_CHAR)
        off = align_up(off, size); /* numbers naturally aligned; text packed */
    struct column *c = &s->cols[s->ncols];
    c->name = name;
    c->type = type;
    c->size = size;
    c->off = off;
    s->data_size = off + size;
    if (s->data_size > (uint32_t)UINT16_MAX * 8) {
        fprintf(stderr, "schema: a row of more than %u bytes\n", (unsigned)UINT16_MAX * 8);
        exit(1);
    }
    c->word_lo = (uint16_t)((off - (s->verify ? WID_SIZE : 0)) / 8);
    c->word_hi = (uint16_t)((off + size + 7) / 8);
    return s->ncols++;
}

void schema_seal(struct schema *s)
{
    s->data_size = align_up(s->data_size, 8);
    s->all_cols = s->ncols == 64 ? ~(uint64_t)0 : ((uint64_t)1 << s->ncols) - 1;
}

/* Placed tables' chunks hold at most 2^PLACED_CHUNK_SHIFT rows: every node in use starts
 * a chunk of its own, which should not be mostly empty. */
#define PLACED_CHUNK_SHIFT 16

static struct table *create(const char *name, const struct schema *s, uint64_t rows_hint,
                            bool with_primary, bool placed)
{
    int id = atomic_fetch_add(&catalog_n, 1);
    if (id >= MAX_TABLES) {
        fprintf(stderr, "catalog: more than %d tables\n", MAX_TABLES - 1);
        exit(1);
    }
    struct table *t = mem_zalloc(sizeof(*t));
    t->id = (uint16_t)id;
    t->name = name;
    t->schema = *s;
    t->stride = (sizeof(struct row) + s->data_size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    /* Chunks of at least 1024 rows and at most 2^22; the initial rows fit in few chunks. */
    unsigned shift = 10;
    while (shift < (placed ? PLACED_CHUNK_SHIFT : 22) && ((uint64_t)1 << shift) < rows_hint)
        shift++;
    t->chunk_shift = shift;
    if (placed) {
        t->streams = mem_alloc_aligned(CACHE_LINE, (TABLE_MAX_NODES + 1) * sizeof(*t->streams));
        for (int k = 0; k <= TABLE_MAX_NODES; k++) {
            pthread_mutex_init(&t->streams[k].lock, NULL);
            t->streams[k].next = t->streams[k].end = t->streams[k].taken = 0;
            t->streams[k].spares = NULL;
            t->streams[k].spare_rows = 0;
            t->streams[k].spares_tail = &t->streams[k].spares;
        }
    }
    t->max_chunks = ((uint64_t)1 << 34) >> shift; /* up to 2^34 rows per table */
    t->chunks = mem_zalloc(t->max_chunks * sizeof(*t->chunks));
    pthread_mutex_init(&t->chunk_lock, NULL);
    if (with_primary)
        t->primary = idx_hash_create(rows_hint ? rows_hint : 1024, s->key_cluster_bits);
    table_catalog[id] = t;
    catalog_name[id] = name;
    return t;
}

struct table *table_create(const char *name, const struct schema *s, uint64_t rows_hint,
                           bool with_primary)
{
    return create(name, s, rows_hint, with_primary, false);
}

struct table *table_create_placed(const char *name, const struct schema *s,
                                  uint64_t rows_hint, bool with_primary)
{
    return create(name, s, rows_hint, with_primary, true);
}


void table_destroy(struct table *t)
{
    size_t chunk_bytes = ((size_t)1 << t->chunk_shift) * t->stride;
    for (size_t c = 0; c < t->max_chunks; c++) {
        unsigned char *p = atomic_load_explicit(&t->chunks[c], memory_order_relaxed);
        if (p)
            mem_free_shared(p, chunk_bytes);
    }
    if (t->primary)
        idx_hash_destroy(t->primary);
    table_catalog[t->id] = NULL;
    for (int k = 0; t->streams && k <= TABLE_MAX_NODES; k++) {
        for (struct table_spare *sp = t->streams[k].spares, *nx; sp; sp = nx) {
            nx = sp->next;
            mem_free(sp);
        }
        pthread_mutex_destroy(&t->streams[k].lock);
    }
    mem_free(t->streams);
    mem_free(t->chunks);
    pthread_mutex_destroy(&t->chunk_lock);
    mem_free(t);
}

static _Noreturn void too_many_rows(const struct table *t)
{
    fprintf(stderr, "table %s: more than %llu rows\n", t->name,
            (unsigned long long)(t->max_chunks << t->chunk_shift));
    exit(1);
}

static unsigned char *chunk_get(struct table *t, uint64_t c)
{
    if (c >= t->max_chunks) {
        too_many_rows(t);
    }
    /* acquire: pairs with the release store below */
    unsigned char *p = atomic_load_explicit(&t->chunks[c], memory_order_acquire);
    if (p)
        return p;
    pthread_mutex_lock(&t->chunk_lock);
    p = atomic_load_explicit(&t->chunks[c], memory_order_relaxed);
    if (!p) {
        p = chunk_alloc(((size_t)1 << t->chunk_shift) * t->stride, -1, false);
        SHW(SHW_TABLE);
        atomic_store_explicit(&t->chunks[c], p, memory_order_release);
    }
    pthread_mutex_unlock(&t->chunk_lock);
    return p;
}

struct row *table_new_row(struct table *t, uint64_t key)
{
    if (t->streams) {
        fprintf(stderr, "table %s: table_new_row on a placed table\n", t->name);
        abort();
    }
    SHW(SHW_TABLE);
    uint64_t i = atomic_fetch_add_explicit(&t->nrows, 1, memory_order_relaxed);
    unsigned char *c = chunk_get(t, i >> t->chunk_shift);
    struct row *r = (struct row *)(c + (i & (((uint64_t)1 << t->chunk_shift) - 1)) * t->stride);
    /* Chunks are zeroed when mapped and a row number is handed out once: the row is
     * still all zero here. */
    r->key = key;
    r->table_id = t->id;
    return r;
}

struct table *table_create_array(const char *name, const struct schema *s, uint64_t nkeys)
{
    struct table *t = create(name, s, nkeys, false, false);
    if (nkeys == 0 || (nkeys - 1) >> t->chunk_shift >= t->max_chunks)
        too_many_rows(t);
    t->dense = nkeys;
    /* every row is loaded before the workers start (table_load_row): a scan covers all */
    atomic_store_explicit(&t->nrows, nkeys, memory_order_relaxed);
    return t;
}

struct row *table_load_row(struct table *t, struct row_freelist *fl, uint64_t key)
{
    if (!t->dense)
        return fl ? table_new_row_from(fl, t, key) : table_new_row(t, key);
    if (key >= t->dense) {
        fprintf(stderr, "table %s: key %llu beyond its array index of %llu keys\n", t->name,
                (unsigned long long)key, (unsigned long long)t->dense);
        exit(1);
    }
    chunk_get(t, key >> t->chunk_shift); /* allocated and published by the first loader */
    struct row *r = table_row_at(t, key);
    r->key = key; /* still all zero, as in table_new_row: each key is loaded once */
    r->table_id = t->id;
    return r;
}

void table_index_loaded(struct table *t, struct row *r)
{
    if (t->primary && !idx_hash_insert(t->primary, r->key, r)) {
        fprintf(stderr, "table %s: loaded key %llu twice\n", t->name,
                (unsigned long long)r->key);
        exit(1);
    }
}

/* A placed table's next block of row numbers for `node` (see table.h's top). */
static uint64_t reserve_placed(struct table *t, int node)
{
    struct table_stream *st = &t->streams[node >= 0 && node < TABLE_MAX_NODES ? node + 1 : 0];
    SHW(SHW_TABLE);
    pthread_mutex_lock(&st->lock);
    if (st->next == st->end && st->spares) { /* a chunk reserved ahead */
        struct table_spare *sp = st->spares;
        st->spares = sp->next;
        if (!st->spares)
            st->spares_tail = &st->spares;
        st->next = sp->start;
        st->end = sp->start + ((uint64_t)1 << t->chunk_shift);
        st->taken += (uint64_t)1 << t->chunk_shift;
        st->spare_rows -= (uint64_t)1 << t->chunk_shift;
        mem_free(sp);
    }
    if (st->next == st->end) { /* chunk sizes are multiples of ROW_BLOCK: never partial */
        uint64_t rows = (uint64_t)1 << t->chunk_shift;
        pthread_mutex_lock(&t->chunk_lock);
        /* relaxed: nrows of a placed table is only written under chunk_lock */
        uint64_t i = atomic_load_explicit(&t->nrows, memory_order_relaxed);
        uint64_t c = i >> t->chunk_shift;
        if (c >= t->max_chunks) {
            too_many_rows(t);
        }
        int at = st == &t->streams[0] ? -1 : node;
        unsigned char *p = chunk_alloc(rows * t->stride, at, false);
        SHW(SHW_TABLE);
        /* release both: a scan that reads nrows (acquire) finds the chunk published */
        atomic_store_explicit(&t->chunks[c], p, memory_order_release);
        atomic_store_explicit(&t->nrows, i + rows, memory_order_release);
        pthread_mutex_unlock(&t->chunk_lock);
        st->next = i;
        st->end = i + rows;
        st->taken += rows;
    }
    uint64_t i = st->next;
    st->next += ROW_BLOCK;
    pthread_mutex_unlock(&st->lock);
    return i;
}

void table_freelist_set_node(struct row_freelist *fl, int node)
{
    if (fl->node == node)
        return;
    fl->node = node;
    for (int k = 0; k < MAX_TABLES; k++)
        fl->next[k] = fl->end[k] = 0;
}

/* Where t keeps the rows given back by freelists of `node` (see struct table). */
static _Atomic(struct row *) *returned_of(struct table *t, int node)
{
    if (!t->streams)
        return &t->returned;
    return &t->streams[node >= 0 && node < TABLE_MAX_NODES ? node + 1 : 0].returned;
}

/* Moves the rows given back to t for fl's node into fl's free rows (empty before);
 * false if there were none. */
static bool take_returned(struct row_freelist *fl, struct table *t)
{
    _Atomic(struct row *) *ret = returned_of(t, fl->node);
    /* relaxed: a hint, so the common case takes no lock; the exchange under it decides */
    if (!atomic_load_explicit(ret, memory_order_relaxed))
        return false;
    SHW(SHW_TABLE);
    pthread_mutex_lock(&t->chunk_lock);
    /* relaxed: under chunk_lock, which orders the giver's links before this */
    struct row *r = atomic_exchange_explicit(ret, NULL, memory_order_relaxed);
    pthread_mutex_unlock(&t->chunk_lock);
    fl->head[t->id] = r;
    return r != NULL;
}

void table_freelist_return(struct row_freelist *fl)
{
    for (int k = 0; k < MAX_TABLES; k++) {
        struct table *t = table_catalog[k];
        if (!t) { /* destroyed (ids are never reused): its rows went with it */
            fl->head[k] = NULL;
            fl->next[k] = fl->end[k] = 0;
            continue;
        }
        while (fl->next[k] < fl->end[k]) /* zero rows of t: free rows like the others */
            table_free_row(fl, table_row_at(t, fl->next[k]++));
        struct row *h = fl->head[k];
        if (!h)
            continue;
        struct row *tail = h;
        while (tail->key)
            tail = (struct row *)(uintptr_t)tail->key;
        _Atomic(struct row *) *ret = returned_of(t, fl->node);
        SHW(SHW_TABLE);
        pthread_mutex_lock(&t->chunk_lock);
        /* relaxed: under chunk_lock (see take_returned) */
        tail->key = (uint64_t)(uintptr_t)atomic_load_explicit(ret, memory_order_relaxed);
        atomic_store_explicit(ret, h, memory_order_relaxed);
        pthread_mutex_unlock(&t->chunk_lock);
        fl->head[k] = NULL;
    }
}

void table_reserve_rows(struct row_freelist *fl, struct table *t)
{
    if (t->dense) { /* its rows are its keys, all loaded: an insert has no row to take */
        fprintf(stderr, "table %s: an insert into a table with the array index "
                        "(--index array takes no inserts)\n", t->name);
        exit(1);
    }
    if (take_returned(fl, t))
        return;
    uint64_t i;
    if (t->streams) {
        i = reserve_placed(t, fl->node);
    } else {
        SHW(SHW_TABLE);
        i = atomic_fetch_add_explicit(&t->nrows, ROW_BLOCK, memory_order_relaxed);
        for (uint64_t c = i >> t->chunk_shift; c <= (i + ROW_BLOCK - 1) >> t->chunk_shift;
             c++)
            chunk_get(t, c);
    }
    for (uint64_t k = i; k < i + ROW_BLOCK; k++) /* zero rows otherwise (see table_new_row) */
        table_row_at(t, k)->table_id = t->id;
    fl->next[t->id] = i;
    fl->end[t->id] = i + ROW_BLOCK;
}

void table_free_row(struct row_freelist *fl, struct row *r)
{
    struct table *t = row_table(r);
    memset(r->cc, 0, sizeof(r->cc));
    memset(r->data, 0, t->schema.data_size);
    /* relaxed: the row is private to this thread (see struct row_freelist) */
    atomic_store_explicit(&r->deleted, 0, memory_order_relaxed);
    /* sm_state stays: a cache slot of the storage model may still hold the row */
    r->key = (uint64_t)(uintptr_t)fl->head[t->id];
    fl->head[t->id] = r;
}

void catalog_sizes(struct catalog_sizes *s)
{
    s->ntables = catalog_count();
    for (int i = 0; i < s->ntables; i++) {
        struct table *t = table_catalog[i];
        s->rows[i] = t ? table_nrows(t) : 0;
        s->keys[i] = t && t->primary ? idx_hash_size(t->primary) : 0;
        for (int k = 0; k <= TABLE_MAX_NODES; k++) {
            s->stream_rows[i][k] = 0;
            if (t && t->streams) {
                pthread_mutex_lock(&t->streams[k].lock);
                s->stream_rows[i][k] = t->streams[k].taken;
                pthread_mutex_unlock(&t->streams[k].lock);
            }
        }
    }
}

/* The shares of a placed table's growth from before[] to now[] among its streams (their
 * `taken`) in share[]; returns their sum (0: no stream took rows). A stream that did not
 * grow gets none: the loader's is done growing. `taken` grows a chunk at a time, and a
 * sample shorter than a stream's use of one may see none grow while the table's keys did
 * (partitioned TPC-C at 1 WH, 1 thread: HISTORY takes a chunk of 65,536 rows about every
 * 0.4 s, the warm-up's second sample lasts 0.25 s): then the streams share it by what
 * each took so far (the loader takes a warehouse's rows from its owner's stream), so such
 * a table is reserved for all the same (without it, 2 of 6 windows took 24,000-32,000
 * faults in chunks taken in the window). */
static uint64_t stream_shares(const uint64_t *before, const uint64_t *now, uint64_t *share)
{
    uint64_t grown = 0, total = 0;
    for (int k = 0; k <= TABLE_MAX_NODES; k++) {
        grown += now[k] > before[k] ? now[k] - before[k] : 0;
        total += now[k];
    }
    for (int k = 0; k <= TABLE_MAX_NODES; k++)
        share[k] = grown ? (now[k] > before[k] ? now[k] - before[k] : 0) : now[k];
    return grown ? grown : total;
}

/* The rows each stream of placed t lacks (missing[k]) to hold its share of `rows` ahead,
 * beyond what it holds already (the rest of its chunk, its spares); their sum. */
static uint64_t placed_missing(struct table *t, uint64_t rows, const uint64_t *before,
                               const uint64_t *now, uint64_t *missing)
{
    uint64_t share[TABLE_MAX_NODES + 1], sum = stream_shares(before, now, share), all = 0;
    for (int k = 0; k <= TABLE_MAX_NODES; k++) {
        missing[k] = 0;
        if (!sum || !share[k])
            continue;
        struct table_stream *st = &t->streams[k];
        uint64_t want = (uint64_t)((double)share[k] / (double)sum * (double)rows);
        pthread_mutex_lock(&st->lock);
        uint64_t ahead = st->end - st->next + st->spare_rows;
        pthread_mutex_unlock(&st->lock);
        missing[k] = want > ahead ? want - ahead : 0;
        all += missing[k];
    }
    return all;
}

/* missing[k] more rows ahead for each stream k of placed t: whole chunks allocated on the
 * stream's node, faulted in, and queued as the stream's spares. */
static size_t reserve_placed_ahead(struct table *t, const uint64_t *missing)
{
    uint64_t per_chunk = (uint64_t)1 << t->chunk_shift;
    size_t chunk_bytes = per_chunk * t->stride, bytes = 0;
    for (int k = 0; k <= TABLE_MAX_NODES; k++) {
        struct table_stream *st = &t->streams[k];
        uint64_t chunks = (missing[k] + per_chunk - 1) / per_chunk;
        for (uint64_t j = 0; j < chunks; j++) {
            unsigned char *p = chunk_alloc(chunk_bytes, k - 1, true);
            mem_prefault(p, chunk_bytes); /* not yet published */
            struct table_spare *sp = mem_alloc(sizeof(*sp));
            sp->next = NULL;
            pthread_mutex_lock(&st->lock);
            pthread_mutex_lock(&t->chunk_lock); /* the order reserve_placed takes them in */
            /* relaxed: nrows of a placed table is only written under chunk_lock */
            uint64_t i = atomic_load_explicit(&t->nrows, memory_order_relaxed);
            if ((i >> t->chunk_shift) >= t->max_chunks) {
                pthread_mutex_unlock(&t->chunk_lock);
                pthread_mutex_unlock(&st->lock);
                mem_free(sp);
                mem_free_shared(p, chunk_bytes);
                return bytes;
            }
            /* release both, as reserve_placed: the chunk's zero rows are skipped by scans */
            atomic_store_explicit(&t->chunks[i >> t->chunk_shift], p, memory_order_release);
            atomic_store_explicit(&t->nrows, i + per_chunk, memory_order_release);
            pthread_mutex_unlock(&t->chunk_lock);
            sp->start = i;
            *st->spares_tail = sp;
            st->spares_tail = &sp->next;
            st->spare_rows += per_chunk;
            pthread_mutex_unlock(&st->lock);
            bytes += chunk_bytes;
        }
    }
    return bytes;
}

/* Chunk c of t (not placed), faulted in: allocated, prefaulted and only then published
 * where no inserter published it first; else (inserters may be writing it) populated
 * without the prefault's stores. */
static void chunk_reserve(struct table *t, uint64_t c, size_t chunk_bytes)
{
    /* acquire: pairs with the release store that published the chunk (chunk_get's, or
     * this function's) */
    unsigned char *p = atomic_load_explicit(&t->chunks[c], memory_order_acquire);
    if (p) {
        mem_populate(p, chunk_bytes);
        return;
    }
    unsigned char *fresh = chunk_alloc(chunk_bytes, -1, true);
    mem_prefault(fresh, chunk_bytes);
    pthread_mutex_lock(&t->chunk_lock);
    p = atomic_load_explicit(&t->chunks[c], memory_order_relaxed);
    if (!p) {
        SHW(SHW_TABLE);
        atomic_store_explicit(&t->chunks[c], fresh, memory_order_release); /* as chunk_get */
    }
    pthread_mutex_unlock(&t->chunk_lock);
    if (p) { /* an inserter reached it meanwhile */
        mem_free_shared(fresh, chunk_bytes);
        mem_populate(p, chunk_bytes);
    }
}

/* The rows t (not placed) lacks to hold `rows` ahead of nrows, beyond the populated ones. */
static uint64_t flat_missing(struct table *t, uint64_t rows)
{
    uint64_t n = table_nrows(t);
    pthread_mutex_lock(&t->chunk_lock);
    uint64_t ahead = t->populated > n ? t->populated - n : 0;
    pthread_mutex_unlock(&t->chunk_lock);
    return rows > ahead ? rows - ahead : 0;
}

/* The chunks [*first, *last] of t (not placed) that hold `more` rows past those reserved
 * ahead already (past max(nrows, populated)); how many (0: more is 0, or the rows run
 * past the table's last chunk). */
static uint64_t flat_span(struct table *t, uint64_t more, uint64_t *first, uint64_t *last)
{
    uint64_t from = table_nrows(t);
    pthread_mutex_lock(&t->chunk_lock);
    if (t->populated > from)
        from = t->populated;
    pthread_mutex_unlock(&t->chunk_lock);
    uint64_t end = from + more - 1;
    if (more == 0 || (end >> t->chunk_shift) >= t->max_chunks)
        return 0;
    *first = from >> t->chunk_shift;
    *last = end >> t->chunk_shift;
    return *last - *first + 1;
}

/* Allocates and faults in the chunks of t (not placed) for `more` rows past those reserved
 * ahead already (flat_span); its bytes. Safe against inserters: a chunk is published
 * once, and one they may be writing is only populated, which changes no byte. */
static size_t reserve_flat_ahead(struct table *t, uint64_t more)
{
    uint64_t first, last;
    if (!flat_span(t, more, &first, &last))
        return 0;
    size_t chunk_bytes = ((size_t)1 << t->chunk_shift) * t->stride, bytes = 0;
    for (uint64_t c = first; c <= last; c++) {
        chunk_reserve(t, c, chunk_bytes);
        bytes += chunk_bytes;
    }
    pthread_mutex_lock(&t->chunk_lock);
    if (t->populated < (last + 1) << t->chunk_shift)
        t->populated = (last + 1) << t->chunk_shift;
    pthread_mutex_unlock(&t->chunk_lock);
    return bytes;
}

/* What catalog_reserve_ahead reserves in each table before its budget scales it: rows
 * (a placed table's per stream) and index keys still missing; and the scale of each. */
struct reserve_plan {
    uint64_t missing[MAX_TABLES];
    uint64_t stream_missing[MAX_TABLES][TABLE_MAX_NODES + 1];
    size_t keys[MAX_TABLES];
    double scale[MAX_TABLES];
};

/* Reserves what the plan holds at its scales (reserve), or only reckons the bytes that
 * would take (!reserve: changes nothing), rounded as the reserve functions allocate:
 * whole chunks (per stream of a placed table), a bucket array's power of two, whole
 * blocks of overflow nodes. One walk for both, so the two cannot round apart. */
static size_t plan_walk(const struct reserve_plan *p, const struct catalog_sizes *now,
                        bool reserve)
{
    size_t bytes = 0;
    for (int i = 0; i < now->ntables; i++) {
        struct table *t = table_catalog[i];
        if (!t)
            continue;
        double sc = p->scale[i];
        uint64_t per_chunk = (uint64_t)1 << t->chunk_shift, first, last;
        size_t chunk_bytes = per_chunk * t->stride;
        if (t->streams) {
            uint64_t scaled[TABLE_MAX_NODES + 1];
            for (int k = 0; k <= TABLE_MAX_NODES; k++)
                scaled[k] = (uint64_t)(sc * (double)p->stream_missing[i][k]);
            if (reserve)
                bytes += reserve_placed_ahead(t, scaled);
            else
                for (int k = 0; k <= TABLE_MAX_NODES; k++)
                    bytes += (scaled[k] + per_chunk - 1) / per_chunk * chunk_bytes;
        } else {
            uint64_t more = (uint64_t)(sc * (double)p->missing[i]);
            bytes += reserve ? reserve_flat_ahead(t, more)
                             : flat_span(t, more, &first, &last) * chunk_bytes;
        }
        size_t keys = now->keys[i] + (size_t)(sc * (double)p->keys[i]);
        if (keys > now->keys[i])
            bytes += reserve ? idx_hash_reserve(t->primary, keys)
                             : idx_hash_reserve_bytes(t->primary, keys);
    }
    return bytes;
}

/* Raises the scale of the tables in `rising` from `from` (where the plan fits) together,
 * as far as the plan still fits the budget, by bisection: bytes grow with the scale, in
 * steps (whole chunks, a bucket array's power of two), and a growth that asks for far
 * more than the budget needs a fine scale: 60 halvings. Returns the scale. */
static double plan_fit(struct reserve_plan *p, const struct catalog_sizes *now,
                       const bool *rising, double from, size_t budget)
{
    double lo = from, hi = 1;
    for (int step = 0; step < 60; step++) {
        double mid = (lo + hi) / 2;
        for (int i = 0; i < now->ntables; i++)
            if (rising[i])
                p->scale[i] = mid;
        if (plan_walk(p, now, false) <= budget)
            lo = mid;
        else
            hi = mid;
    }
    for (int i = 0; i < now->ntables; i++)
        if (rising[i])
            p->scale[i] = lo;
    return lo;
}

/* Whether table i alone can still take bytes of the budget from its scale `level`, all
 * else as it is (the plan unchanged; `at`: its bytes). */
static bool plan_can_rise(struct reserve_plan *p, const struct catalog_sizes *now, int i,
                          double level, size_t at, size_t budget)
{
    bool only[MAX_TABLES] = {false};
    only[i] = true;
    plan_fit(p, now, only, level, budget);
    bool rose = plan_walk(p, now, false) > at;
    p->scale[i] = level;
    return rose;
}

/* Shares a budget the plan passes, as water fills: every table with something to reserve
 * rises to one scale, the largest that fits (the same horizon for all); a table whose
 * next step cannot fit even alone (a whole chunk, a bucket array's doubling) stops there
 * for good (what is left only shrinks), and the others rise on together from that scale.
 * That ends when none is left, or when each left could rise alone but not all together
 * (their steps fit one at a time): then what is left goes to each of them in turn. At
 * most one round per table, each about 62 plan walks per table. */
static void plan_share(struct reserve_plan *p, const struct catalog_sizes *now, size_t budget)
{
    bool rising[MAX_TABLES] = {false}, only[MAX_TABLES] = {false};
    int n = 0;
    for (int i = 0; i < now->ntables; i++)
        if (p->missing[i] || p->keys[i]) {
            rising[i] = true;
            n++;
        }
    double level = plan_fit(p, now, rising, 0, budget);
    for (;;) {
        int stopped = 0;
        size_t at = plan_walk(p, now, false);
        for (int i = 0; i < now->ntables; i++)
            if (rising[i] && !plan_can_rise(p, now, i, level, at, budget)) {
                rising[i] = false;
                stopped++;
            }
        n -= stopped;
        if (!stopped || !n)
            break;
        level = plan_fit(p, now, rising, level, budget);
    }
    for (int i = 0; i < now->ntables; i++)
        if (rising[i]) {
            only[i] = true;
            plan_fit(p, now, only, p->scale[i], budget);
            only[i] = false;
        }
}

size_t catalog_reserve_ahead(const struct catalog_sizes *before, const struct catalog_sizes *now,
                             double factor, size_t budget, bool *cut)
{
    struct reserve_plan *p = mem_zalloc(sizeof(*p));
    for (int i = 0; i < now->ntables; i++)
        p->scale[i] = 1;
    for (int i = 0; i < now->ntables && i < before->ntables; i++) {
        struct table *t = table_catalog[i];
        /* rows handed out (a placed table's in whole chunks) or, finer, keys committed */
        uint64_t grown = now->rows[i] > before->rows[i] ? now->rows[i] - before->rows[i] : 0;
        if (now->keys[i] > before->keys[i] && now->keys[i] - before->keys[i] > grown)
            grown = now->keys[i] - before->keys[i];
        if (!t || !grown)
            continue;
        uint64_t rows = (uint64_t)(factor * (double)grown);
        /* (the workers are paused, or in a test the table's streams took no rows since:
         * the shares stay as computed here until the reservation below) */
        p->missing[i] = t->streams ? placed_missing(t, rows, before->stream_rows[i],
                                                    now->stream_rows[i], p->stream_missing[i])
                                   : flat_missing(t, rows);
        if (t->primary && now->keys[i] > before->keys[i])
            p->keys[i] = (size_t)(factor * (double)(now->keys[i] - before->keys[i]));
    }
    /* over the budget: shared as one horizon (a step of one table that does not fit must
     * not hold the others back, nor give what it leaves to the first in catalog order) */
    bool over = plan_walk(p, now, false) > budget;
    if (over)
        plan_share(p, now, budget);
    if (cut)
        *cut = over;
    size_t bytes = plan_walk(p, now, true);
    mem_free(p);
    return bytes;
}

int catalog_count(void) { return atomic_load(&catalog_n); }
const char *const *catalog_names(void) { return catalog_name; }
