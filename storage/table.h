/* Row store: schemas, rows and tables.
 *
 * A row is the algorithm-owned metadata slot (CC_META_SIZE bytes, cache-line aligned,
 * cast only by the linked algorithm) followed by a small generic header and the data
 * bytes laid out by the table's schema. With history verification on (schema->verify),
 * every column is preceded by a hidden 8-byte writer id (see cc/history.h), so the layout
 * of column c is: data + col[c].off - 8: writer id, data + col[c].off: value.
 *
 * Tables hold rows in chunks of 2^chunk_shift rows allocated from the memory module; a
 * row never moves and is never freed while the table lives, so row pointers are stable
 * (indexes and access sets keep them). Row numbers are handed out by an atomic counter
 * (inserts take them in per-thread blocks, struct row_freelist); a chunk is allocated by
 * whoever first needs it, under the table's chunk lock.
 *
 * Placed tables (table_create_placed: partitioned data, e.g. TPC-C's per-warehouse
 * tables) put each row on the NUMA node of the thread that owns it. Every chunk lives on
 * one node (or is interleaved: node -1) and row blocks come from a chunk of the node the
 * reserving row_freelist names (its `node`), so a thread's rows share its node's chunks.
 * Invariants: rows are taken only through row_freelist blocks (never table_new_row);
 * chunks are allocated whole, in order, under the chunk lock, and nrows is the number of
 * rows of the allocated chunks (a multiple of the chunk size): the rows of a chunk not
 * handed out yet are zero rows (key 0, in no index; table_id 0, or the table's own where
 * a freelist reserved them), which a scan of
 * [0, nrows) skips as it skips rows of aborted inserts.
 */
#ifndef STORAGE_TABLE_H
#define STORAGE_TABLE_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "storage/index.h"

enum col_type { COL_INT64, COL_UINT64, COL_INT32, COL_DOUBLE, COL_CHAR };

struct column {
    const char *name;
    enum col_type type;
    uint32_t size; /* bytes of the value (8 for numbers, the width for COL_CHAR) */
    uint32_t off;  /* byte offset of the value within the row's data */
    /* the 8-byte words of the row's data [word_lo, word_hi) that hold the value and its
     * writer id (--verify): what an install of the column stores */
    uint16_t word_lo, word_hi;
};

struct schema {
    int ncols;
    bool verify;        /* each column has a hidden writer id before its value */
    uint32_t data_size; /* bytes of a row's data, writer ids included */
    uint64_t all_cols;  /* a column mask (cc.h) of every column, set by schema_seal */
    unsigned key_cluster_bits; /* the primary hash index's cluster bits (0: none) */
    struct column cols[MAX_COLUMNS];
};

#define WID_SIZE 8

struct table;

/* Rows start on a cache line (table strides are cache-line multiples and chunks are
 * page aligned), so the metadata slot starts a line; the struct itself is not padded to
 * a line, so small slots leave room for data in the first line. */
struct row {
    alignas(8) unsigned char cc[CC_META_SIZE]; /* owned by the CC algorithm */
    uint64_t key;                                       /* primary key */
    /* Its table's catalog id (row_table): 2 bytes where a pointer took 8, so the header
     * is 16 bytes. Set once, when the row number is handed out or reserved for a
     * freelist; a row never seen by either (key 0 in no index) keeps 0. */
    uint16_t table_id;
    /* Set (relaxed) by a committing delete while the deleter holds exclusive access;
     * read by accessors after they gained access through the CC protocol. */
    _Atomic uint16_t deleted;
    /* The storage model's residency, reference and dirty bits (storage/storage_model.h,
     * SM_*; 0 with the model off): the header's last 4 bytes, so rows do not grow.
     * Kept when a row is freed for reuse (table_free_row), as a cache slot may hold it. */
    _Atomic uint32_t sm_state;
    alignas(8) unsigned char data[];
};
_Static_assert(sizeof(struct row) == CC_META_SIZE + 16, "the row header is 16 bytes");

struct table {
    uint16_t id;
    const char *name;
    struct schema schema;
    size_t stride;       /* bytes from one row to the next (cache-line multiple) */
    unsigned chunk_shift;
    _Atomic(unsigned char *) *chunks; /* MAX chunks; NULL until first needed */
    size_t max_chunks;
    _Atomic uint64_t nrows;           /* rows handed out so far (placed: in chunks) */
    pthread_mutex_t chunk_lock;
    /* not placed: rows [0, populated) lie in chunks reserved ahead and faulted in
     * (catalog_reserve_ahead); only grows, under chunk_lock */
    uint64_t populated;
    struct idx_hash *primary;         /* primary key index, or NULL */
    /* The array index (table_create_array), 0 with none: key k < dense is row number k,
     * so a look-up is the row's address, no hashing, no probe. Such a table is loaded
     * whole (rows [0, dense), table_load_row) and takes no inserts. Set at creation. */
    uint64_t dense;
    /* Rows that row_freelists of owners gone away gave back (table_freelist_return),
     * linked through their key fields, for the next table_reserve_rows of any thread:
     * written under chunk_lock, read without it only as a hint. Placed tables keep them
     * per stream instead (the node their chunks are on). */
    _Atomic(struct row *) returned;
    /* Placed tables only (NULL otherwise): per node, the rows of its current chunk not
     * handed out yet, [next, end), under the stream's lock (taken before chunk_lock);
     * its given-back rows, as `returned` above; index 0: interleaved, k + 1: OS node k. */
    struct table_stream {
        alignas(CACHE_LINE) pthread_mutex_t lock;
        uint64_t next, end;
        uint64_t taken; /* rows of the chunks this stream started (and spares it took) */
        _Atomic(struct row *) returned;
        /* chunks reserved ahead for this stream (catalog_reserve_ahead), taken in order
         * before a new one is allocated, and the rows they hold; under lock */
        struct table_spare {
            uint64_t start;
            struct table_spare *next;
        } *spares, **spares_tail;
        uint64_t spare_rows;
    } *streams;
};

/* Stream slots of a placed table: interleaved, then OS nodes 0 .. TABLE_MAX_NODES - 1. */
#define TABLE_MAX_NODES 64

/* Schema building: add columns in order, then seal. */
void schema_init(struct schema *s, bool verify);
int schema_add(struct schema *s, const char *name, enum col_type type, uint32_t size);
void schema_seal(struct schema *s);
/* Keys that differ only in their low `bits` bits come in runs (a parent's children, a
 * sequence): the primary hash index keeps each run in neighbouring buckets
 * (idx_hash_create's cluster_bits, storage/index.h). */
void schema_cluster_keys(struct schema *s, unsigned bits);

/* Creates a table expected to hold about `rows_hint` rows (it can grow). With
 * `with_primary`, a hash index on the key is created (sized for rows_hint, clustered as
 * the schema says). */
struct table *table_create(const char *name, const struct schema *s, uint64_t rows_hint,
                           bool with_primary);
/* The same for partitioned data: a placed table (see the top). */
struct table *table_create_placed(const char *name, const struct schema *s,
                                  uint64_t rows_hint, bool with_primary);
/* A table of exactly `nkeys` rows keyed 0 .. nkeys - 1 whose primary index is the array:
 * row k holds key k (see `dense`), for workloads with dense keys and no inserts, so a
 * run measures concurrency control without index cost (--index array). Its chunks are
 * interleaved over the NUMA nodes. */
struct table *table_create_array(const char *name, const struct schema *s, uint64_t nkeys);
void table_destroy(struct table *t);

/* A new row: key set, data zeroed, cc slot zeroed (the caller runs cc_row_init). Not for
 * placed tables (table_new_row_from) nor array-indexed ones (table_load_row). */
struct row *table_new_row(struct table *t, uint64_t key);

/* One thread's rows for inserts, per table id: the rows of its aborted inserts, reused
 * first, so an abort-heavy run does not grow the tables; then a block of ROW_BLOCK row
 * numbers reserved with one atomic add, so inserts do not share the table's counter line.
 * A free row is unreachable by every other thread (it never entered an index) and is
 * reset to the state of a new row when freed; the list links through the rows' key
 * fields. Reserved rows not handed out yet are zero rows (key 0, in no index), like rows
 * of aborted inserts to anyone walking the table. Owned by one thread, no
 * synchronisation; all zero: empty, taking rows of placed tables from node 0 (`node`:
 * the OS node whose chunks its blocks of placed tables come from, -1: interleaved ones;
 * table_freelist_set_node changes it). Invariant: a row is held by at most one row_freelist
 * at a time, and a transaction context's rows outlive it: when it goes away
 * (txn_destroy, an abandoned context's included) its free rows and its reserved rows go
 * back to their tables (table_freelist_return), whose next reservation for any thread
 * hands them out again. (A loader's leftover block, at most ROW_BLOCK rows per table,
 * stays zero rows.) */
#define MAX_TABLES 32
#define ROW_BLOCK 64
struct row_freelist {
    struct row *head[MAX_TABLES];
    uint64_t next[MAX_TABLES], end[MAX_TABLES]; /* reserved row numbers [next, end) */
    int node;
};
/* Makes fl take placed tables' rows from `node`'s chunks from now on (OS index, -1:
 * interleaved; out of range: interleaved). Reserved rows of another node are dropped
 * (they stay zero rows). */
void table_freelist_set_node(struct row_freelist *fl, int node);
/* Gives back row r of its table: the caller guarantees no other thread can reach it. */
void table_free_row(struct row_freelist *fl, struct row *r);
/* Refills fl for t (table.c): with the rows given back to t (table_freelist_return), as
 * free rows, else with the next block of row numbers. */
void table_reserve_rows(struct row_freelist *fl, struct table *t);
/* Gives every row fl holds back to its table, free rows and reserved rows not handed out
 * yet alike (as free rows), and leaves fl empty; for an owner that goes away. Safe
 * against other freelists' reservations; rows of tables destroyed already are dropped. */
void table_freelist_return(struct row_freelist *fl);
static inline struct row *table_row_at(struct table *t, uint64_t i);
/* Like table_new_row, taking a free row of fl first, else one of its reserved block. */
static inline struct row *table_new_row_from(struct row_freelist *fl, struct table *t,
                                             uint64_t key)
{
    struct row *r = fl->head[t->id];
    if (!r && fl->next[t->id] == fl->end[t->id]) {
        table_reserve_rows(fl, t); /* given-back rows as free rows, or a block */
        r = fl->head[t->id];
    }
    if (r)
        fl->head[t->id] = (struct row *)(uintptr_t)r->key;
    else
        r = table_row_at(t, fl->next[t->id]++);
    r->key = key;
    return r;
}

/* ---- reserving ahead of a run's inserts (the driver, during the warm-up) ----
 * A table that grows (TPC-C's orders, order lines, history) allocates a chunk of rows as
 * its inserts reach it and faults its pages in as they write it; its primary index grows
 * its bucket array the same way. In the measured window that is kernel time (page
 * clearing, most of it) that measures memory management, not concurrency control. So the
 * driver samples every table's size in the warm-up and, from the rate between the
 * samples (twice: see benchmarks/driver.c), has each table allocate and fault in the
 * chunks, and its index grow to the bucket array, that the rest of the run will need,
 * within a memory budget, its workers paused meanwhile. Past the reservation, rows and
 * buckets are allocated and faulted in on demand as before. */
struct catalog_sizes {
    int ntables;
    uint64_t rows[MAX_TABLES]; /* table_nrows */
    size_t keys[MAX_TABLES];   /* primary index keys (0: no primary index) */
    /* a placed table's streams' `taken`: a reservation goes to the streams that grew */
    uint64_t stream_rows[MAX_TABLES][TABLE_MAX_NODES + 1];
};
void catalog_sizes(struct catalog_sizes *s);
/* Says the load is over (the driver, before the warm-up): chunks allocated from then on
 * hold a run's inserts, written once in order, and come in base pages
 * (mem_alloc_shared_base_pages), which fault in several times faster than huge ones;
 * the loaded chunks keep huge pages for their random accesses. */
void catalog_loaded(void);
/* Has every table hold, reserved ahead of what it handed out, `factor` times its growth
 * from `before` to `now` (rows, and its primary index room for as many more keys);
 * reserves only what is missing, so a second call with a fresher rate tops the first
 * one up, and scales what is missing down so that what it allocates (whole chunks, a
 * bucket array's power of two, whole blocks of overflow nodes) fits `budget` bytes (a
 * caller that bounds all its calls together passes what is left): first by one scale
 * for every table, then each table's own as far as what is left allows. A placed
 * table's rows are split over the streams that grew, in proportion, in whole chunks on
 * each one's node. Returns the bytes it reserved: <= budget when nothing inserts
 * meanwhile (small headers aside); *cut (if not NULL) says whether the budget scaled
 * it down. */
size_t catalog_reserve_ahead(const struct catalog_sizes *before, const struct catalog_sizes *now,
                             double factor, size_t budget, bool *cut);

/* Row number i (< table_nrows) in allocation order. */
static inline struct row *table_row_at(struct table *t, uint64_t i)
{
    /* acquire: pairs with the release store that published the chunk */
    unsigned char *c = atomic_load_explicit(&t->chunks[i >> t->chunk_shift],
                                            memory_order_acquire);
    return (struct row *)(c + (i & (((uint64_t)1 << t->chunk_shift) - 1)) * t->stride);
}

/* The row of primary key `key` by the table's primary index (hash or array), or NULL.
 * An array-indexed table's rows were all loaded before any reader ran (the loaders were
 * joined), so its row needs no publication beyond the chunk's. */
static inline struct row *table_get(struct table *t, uint64_t key)
{
    if (t->dense)
        return key < t->dense ? table_row_at(t, key) : NULL;
    return idx_hash_get(t->primary, key);
}

/* Asks the CPU to bring in the index line a look-up of key starts at, so that the
 * look-ups of a transaction's keys overlap their misses (idx_hash_prefetch; nothing for
 * the array index, whose look-up is an address). A hint only. */
static inline void table_prefetch_key(const struct table *t, uint64_t key)
{
    if (t->primary)
        idx_hash_prefetch(t->primary, key);
}

/* Asks the CPU to bring row r's cache lines in ahead of an access: shared for a read,
 * exclusive (`write`) for a row about to be written, so a transaction's row misses overlap
 * instead of coming one after another. How many: every line of the row (at most
 * TABLE_PREFETCH_MAX_LINES) where the access touches the whole row (`whole`: it reads
 * every column, or it copies the row), else the first TABLE_PREFETCH_LINES. The first
 * line, the metadata slot's, comes exclusive also where `meta_write` (an algorithm whose
 * reads write the slot: a read lock, a latch, a raised read timestamp), which saves the
 * upgrade of a shared line at that write. A hint only: no effect on what any access
 * sees. */
#define TABLE_PREFETCH_LINES 4
#define TABLE_PREFETCH_MAX_LINES 32
static inline void table_prefetch(const struct table *t, const struct row *r, bool write,
                                  bool meta_write, bool whole)
{
    size_t lines = whole ? TABLE_PREFETCH_MAX_LINES : TABLE_PREFETCH_LINES;
    size_t end = t->stride < lines * CACHE_LINE ? t->stride : lines * CACHE_LINE;
    for (size_t off = 0; off < end; off += CACHE_LINE) {
        if (write || (off == 0 && meta_write))
            __builtin_prefetch((const char *)r + off, 1);
        else
            __builtin_prefetch((const char *)r + off, 0);
    }
}

/* The loaders' new row of key `key` (cc slot and data zeroed; the caller runs
 * cc_row_init and fills it, then table_index_loaded): row number `key` of an
 * array-indexed table, else a new row (from fl where given: placed tables). */
struct row *table_load_row(struct table *t, struct row_freelist *fl, uint64_t key);
/* Enters a loaded row in the table's hash index (nothing for the array index, which
 * holds every row by position). */
void table_index_loaded(struct table *t, struct row *r);
/* The bound of a scan: rows handed out, with zero rows among them (reserved and not used
 * yet, aborted inserts, a placed table's chunk tails). */
static inline uint64_t table_nrows(struct table *t)
{
    return atomic_load_explicit(&t->nrows, memory_order_acquire);
}

/* Column value address in a row image (the row's data or a private copy of it). */
static inline unsigned char *col_ptr(const struct schema *s, const unsigned char *img, int c)
{
    return (unsigned char *)img + s->cols[c].off;
}
static inline uint64_t *col_wid(const struct schema *s, const unsigned char *img, int c)
{
    return (uint64_t *)(void *)((unsigned char *)img + s->cols[c].off - WID_SIZE);
}

/* The catalog: every table gets a small id (1 to MAX_TABLES - 1; history records and rows
 * name tables by id). Id 0 names no table (table_catalog[0] stays NULL), so row_table of
 * a row whose id was never set is NULL, a crash at first use rather than another table's
 * schema. table_catalog[id] is set when the table is created, before any of its rows
 * exists, and cleared when it is destroyed; read it through row_table or catalog_table.
 * catalog_count() is one past the highest id given. */
extern struct table *table_catalog[MAX_TABLES];
static inline struct table *catalog_table(int id) { return table_catalog[id]; }
/* The table row r belongs to: its id, then the catalog's slot (a line that stays in
 * cache). */
static inline struct table *row_table(const struct row *r) { return catalog_table(r->table_id); }
int catalog_count(void);
const char *const *catalog_names(void);

#endif
