/* The generic transaction: the transaction API of cc/cc.h on top of the linked
 * algorithm's cc_* functions. Owns the access set, the log area, history records, the
 * per-attempt timers and stats (see cc/txn.h for the invariants). */
#include "cc/txn.h"

#include <stdio.h>
#include <stdlib.h>

#include "storage/hash_mix.h"
#include "storage/index.h"
#include "storage/mem.h"
#include "storage/wait.h"
#include "storage/shared_writes.h"
#include "storage/topology.h"

#define ACC_INITIAL_CAP 64
/* the per-access path is small: inlined whole into each API function */
#define ALWAYS_INLINE inline __attribute__((always_inline))

static inline uint32_t slot_hash(const struct row *r, uint32_t mask)
{
    /* rows are cache-line aligned: drop the low bits, then Fibonacci hashing */
    return (uint32_t)(hash_fib((uint64_t)((uintptr_t)r >> 6)) >> 32) & mask;
}

static void slots_alloc(struct txn *t, uint32_t nslots)
{
    t->slots = mem_zalloc(nslots * sizeof(*t->slots));
    t->slot_mask = nslots - 1;
}

static inline void slot_put(struct txn *t, struct row *r, uint32_t idx)
{
    uint32_t h = slot_hash(r, t->slot_mask);
    while (t->slots[h].gen == t->gen)
        h = (h + 1) & t->slot_mask;
    t->slots[h] = (struct acc_slot){.row = r, .idx = idx, .gen = t->gen};
}

/* Finds r's entry; when absent, *free_slot is where acc_new puts it (one probe sequence
 * for the look-up and the insert). */
static ALWAYS_INLINE struct access *acc_find_slot(struct txn *t, struct row *r,
                                                  struct acc_slot **free_slot)
{
    for (uint32_t h = slot_hash(r, t->slot_mask);; h = (h + 1) & t->slot_mask) {
        struct acc_slot *s = &t->slots[h];
        if (s->gen != t->gen) {
            *free_slot = s;
            return NULL;
        }
        if (s->row == r)
            return &t->acc[s->idx];
    }
}

static ALWAYS_INLINE struct access *acc_find(struct txn *t, struct row *r)
{
    struct acc_slot *unused;
    return acc_find_slot(t, r, &unused);
}

/* Doubles the access set and rehashes (rare: kept for later transactions). */
static __attribute__((noinline)) void acc_grow(struct txn *t)
{
    t->acc_cap *= 2;
    t->acc = mem_realloc(t->acc, t->acc_cap * sizeof(*t->acc));
    mem_free(t->slots);
    slots_alloc(t, 2 * t->acc_cap);
    t->gen = 1;
    for (uint32_t i = 0; i < t->nacc; i++)
        slot_put(t, t->acc[i].row, i);
}

/* Appends r's entry; `slot` is its free slot from acc_find_slot, or NULL to probe. */
static ALWAYS_INLINE struct access *acc_new(struct txn *t, struct row *r, struct acc_slot *slot)
{
    if (t->nacc == t->acc_cap) {
        acc_grow(t);
        slot = NULL; /* the slots were rebuilt */
    }
    uint32_t idx = t->nacc++;
    struct access *a = &t->acc[idx];
    a->row = r;
    a->data = NULL;
    a->undo = NULL;
    a->wmask = 0;
    a->type = ACC_NONE;
    a->in_place = 0;
    a->cc_flags = 0;
    if (slot)
        *slot = (struct acc_slot){.row = r, .idx = idx, .gen = t->gen};
    else
        slot_put(t, r, idx);
    return a;
}

struct txn *txn_create(int thread_id, bool verify)
{
    struct txn *t = mem_alloc_aligned(CACHE_LINE, sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->thread_id = thread_id;
    /* its inserts into placed tables (partitioned data) go to its node */
    table_freelist_set_node(&t->free_rows, topo_node_of(thread_id));
    net_thread_init(&t->net, thread_id, &t->net_st);
    t->acc_cap = ACC_INITIAL_CAP;
    t->acc = mem_alloc(t->acc_cap * sizeof(*t->acc));
    slots_alloc(t, 2 * t->acc_cap);
    arena_init(&t->arena);
    if (verify) {
        t->hist = mem_alloc(sizeof(*t->hist));
        hist_log_init(t->hist);
    }
    return t;
}

struct txn *txn_fork(struct txn *t)
{
    struct txn *n = txn_create(t->thread_id, t->hist != NULL);
    n->counter = t->counter;
    n->prio_last = t->prio_last;
    return n;
}

void txn_destroy(struct txn *t)
{
    /* its rows go back to their tables: an abandoned context's too (benchmarks/recovery.c:
     * the client went on with a fork, and the backup may have freed rows of its inserts) */
    table_freelist_return(&t->free_rows);
    if (t->hist) {
        hist_log_free(t->hist);
        mem_free(t->hist);
    }
    arena_free(&t->arena);
    mem_free(t->slots);
    mem_free(t->acc);
    mem_free(t);
}

const struct txn_stats *txn_stats(const struct txn *t) { return &t->st; }
void txn_stats_reset(struct txn *t)
{
    memset(&t->st, 0, sizeof(t->st));
    memset(&t->sm_st, 0, sizeof(t->sm_st));
    memset(&t->net_st, 0, sizeof(t->net_st));
}
void txn_add_backoff(struct txn *t, uint64_t ticks) { t->st.t_backoff += ticks; }
uint64_t txn_decided_at(const struct txn *t) { return t->net.decided_at; }
const struct net_stats *txn_net_stats(const struct txn *t) { return &t->net_st; }
const struct sm_stats *txn_sm_stats(const struct txn *t) { return &t->sm_st; }
struct hist_log *txn_take_history(struct txn *t)
{
    struct hist_log *h = t->hist;
    t->hist = NULL;
    return h;
}

enum abort_reason txn_abort_reason(const struct txn *t) { return t->reason; }

/* Optional declarations of the algorithm (see cc.h): weak, NULL where not defined. */
extern const bool cc_alg_strict __attribute__((weak));
extern const enum cc_level cc_alg_weak_level __attribute__((weak));

enum cc_level txn_level_claimed(void)
{
    if (&cc_alg_strict && cc_alg_strict)
        return CC_LEVEL_STRICT;
    if (cc_alg_serializable)
        return CC_LEVEL_SER;
    return &cc_alg_weak_level ? cc_alg_weak_level : CC_LEVEL_NONE;
}

const char *txn_level_name(enum cc_level l)
{
    static const char *const names[] = {"none", "read committed", "repeatable read",
                                        "serializable", "strict serializable"};
    return l <= CC_LEVEL_STRICT ? names[l] : "?";
}

/* A fresh attempt id, or with --verify a fresh version id: (thread + 1) << 40 | counter,
 * so attempt and version ids never collide (cc/history.h). */
static inline uint64_t next_id(struct txn *t)
{
    return ((uint64_t)(t->thread_id + 1) << 40) | ++t->counter;
}

void txn_begin(struct txn *t, bool retry)
{
    arena_reset(&t->arena);
    t->nacc = 0;
    t->npublish = 0;
    t->dropped = NULL;
    t->missed = NULL;
    t->index_ops = NULL;
    t->index_ops_tail = &t->index_ops;
    if (++t->gen == 0) { /* generation wrapped: clear the slots once */
        memset(t->slots, 0, (t->slot_mask + 1) * sizeof(*t->slots));
        t->gen = 1;
    }
    t->aborted = false;
    t->read_only = false;
    t->id = next_id(t);
    if (t->hist) {
        hist_txn_begin(t->hist, t->id);
        t->hist_begin = clock_now_ns();
    }
    t->a_wait = t->a_precommit = t->a_deadlock = t->a_index = t->a_commit = t->a_ww_wait = 0;
    t->attempt_start = STATS_TICKS();
    t->net.decided_at = 0; /* set at the decision (txn_client_decided, the network model) */
    net_begin(&t->net);
    cc_begin(t, retry);
}

static inline enum rc mark_abort(struct txn *t)
{
    t->aborted = true;
    return RC_ABORT;
}

/* Finds or creates the access entry of r and makes sure it holds at least `type`;
 * *held: the access type the entry held before (ACC_NONE for a new one). */
static ALWAYS_INLINE enum rc acc_get(struct txn *t, struct row *r, enum access_type type,
                                     struct access **out, enum access_type *held)
{
    if (t->aborted)
        return RC_ABORT;
    struct acc_slot *slot = NULL;
    struct access *a = acc_find_slot(t, r, &slot);
    *held = a ? (enum access_type)a->type : ACC_NONE;
    if (!a) {
        net_access(&t->net, row_table(r), r->key); /* the request reaches r's server */
        a = acc_new(t, r, slot);
        if (sm_on) /* the storage model: the row is brought in, then the protocol runs */
            t->a_wait += sm_touch(&t->sm_st, r);
        if (cc_access(t, a, type) != RC_OK) {
            t->nacc--; /* the algorithm holds nothing for it; no look-up follows */
            return mark_abort(t);
        }
        /* relaxed: the flag is set by a deleter while it held the row exclusively, and
         * the access just granted orders this load after that deleter's commit */
        if (atomic_load_explicit(&r->deleted, memory_order_relaxed)) {
            t->reason = AR_DELETED;
            return mark_abort(t);
        }
    } else if (a->type < type && !(type == ACC_WRITE && a->type == ACC_INSERT)) {
        if (cc_access(t, a, type) != RC_OK)
            return mark_abort(t);
    }
    *out = a;
    return RC_OK;
}

/* Optional (see cc.h): a weak reference, NULL where the algorithm does not define it. */
extern const bool cc_alg_column_grain __attribute__((weak));

/* Records the read of a row image. A row-grain algorithm vouches for the whole image, so
 * every column of it counts as read, whatever the workload declared: a read outside the
 * declared columns is then seen, at no risk of a false alarm. A column-grain algorithm
 * vouches for the declared columns only: recording the others would blame it for columns
 * it never promised, so only those are recorded (see docs/correctness.md, --verify). */
static inline void hist_reads(struct txn *t, const struct access *a, colmask_t cols)
{
    const struct table *tab = row_table(a->row);
    colmask_t all = schema_all_cols(&tab->schema);
    cols = &cc_alg_column_grain && cc_alg_column_grain ? cols & all : all;
    while (cols) {
        int c = __builtin_ctzll(cols);
        cols &= cols - 1;
        hist_append(t->hist, HIST_READ, tab->id, a->row->key, (uint16_t)c,
                    *col_wid(&tab->schema, a->data, c), 0);
    }
}

/* Records writes of every column of image img (an insert or a delete): each replaces the
 * column's version by a fresh one. `set`: also store the new ids in the image (an insert,
 * whose image becomes the row; a delete leaves its image alone: nobody reads a deleted
 * row, and an aborted delete must leave no trace in it). */
static void hist_write_all(struct txn *t, struct row *r, unsigned char *img, bool set)
{
    const struct schema *s = &row_table(r)->schema;
    for (int c = 0; c < s->ncols; c++) {
        uint64_t *wid = col_wid(s, img, c), nwid = next_id(t);
        if (t->hist)
            hist_append(t->hist, HIST_WRITE, r->table_id, r->key, (uint16_t)c, *wid, nwid);
        if (set)
            *wid = nwid;
    }
}

/* The before-image of an in-place row (txn.h, a->undo), taken before its first write. */
static __attribute__((noinline)) void undo_save(struct txn *t, struct access *a)
{
    SHW(SHW_ROW); /* the in-place row's data is written next (once counted per row) */
    uint32_t size = row_table(a->row)->schema.data_size;
    a->undo = txn_alloc(t, size);
    memcpy(a->undo, a->data, size);
}

static ALWAYS_INLINE enum rc read_as(struct txn *t, struct row *r, colmask_t cols,
                              const unsigned char **img, enum access_type type)
{
    struct access *a;
    enum access_type held;
    t->req_cols = cols;
    if (acc_get(t, r, type, &a, &held) != RC_OK)
        return RC_ABORT;
    if (t->hist)
        hist_reads(t, a, cols);
    t->st.reads++;
    if (type == ACC_WRITE && held != ACC_INSERT) { /* an update (stats.h) */
        t->st.updates++;
        t->st.reupdates += held == ACC_WRITE;
        /* an in-place row held for writing is written next: its before-image now, so
         * txn_write's common case needs none (the row is held exclusively since) */
        if (a->in_place && !a->undo && a->type != ACC_INSERT)
            undo_save(t, a);
    }
    *img = a->data;
    return RC_OK;
}

enum rc txn_read(struct txn *t, struct row *r, colmask_t cols, const unsigned char **img)
{
    return read_as(t, r, cols, img, ACC_READ);
}

enum rc txn_read_for_update(struct txn *t, struct row *r, colmask_t cols,
                            const unsigned char **img)
{
    return read_as(t, r, cols, img, ACC_WRITE);
}

/* txn_write in general: gains write access when the row is not the last one accessed for
 * writing; takes the before-image at an in-place row's first write; makes a new version
 * with --verify (every write makes one, cc/history.h). */
static __attribute__((noinline)) enum rc write_general(struct txn *t, struct row *r, int c,
                                                       const void *value)
{
    struct access *a = t->nacc ? &t->acc[t->nacc - 1] : NULL;
    if (t->aborted || !a || a->row != r || a->type < ACC_WRITE) {
        enum access_type held;
        t->req_cols = COL_BIT(c);
        t->acc_blind = true;
        enum rc rc = acc_get(t, r, ACC_WRITE, &a, &held);
        t->acc_blind = false;
        if (rc != RC_OK)
            return RC_ABORT;
        t->st.updates += held < ACC_WRITE; /* a write without declared intent: an update */
    }
    const struct schema *s = &row_table(r)->schema;
    if (a->in_place && !a->undo && a->type != ACC_INSERT)
        undo_save(t, a);
    if (s->verify) {
        uint64_t *wid = col_wid(s, a->data, c), nwid = next_id(t);
        if (t->hist)
            hist_append(t->hist, HIST_WRITE, r->table_id, r->key, (uint16_t)c, *wid, nwid);
        *wid = nwid;
    }
    memcpy(col_ptr(s, a->data, c), value, s->cols[c].size);
    a->wmask |= COL_BIT(c);
    t->st.writes++;
    return RC_OK;
}

enum rc txn_write(struct txn *t, struct row *r, int c, const void *value)
{
    /* The common case, a leaf: a read-modify-write of the row accessed last, which holds
     * it for writing, needs no before-image, makes no version, and writes a column of 4 or
     * 8 to 16 bytes. Anything else goes to write_general. */
    struct access *a = &t->acc[t->nacc ? t->nacc - 1 : 0]; /* only used when nacc > 0 */
    const struct schema *s = &row_table(r)->schema;
    uint32_t size = s->cols[c].size;
    if (__builtin_expect(t->aborted || !t->nacc || a->row != r || a->type < ACC_WRITE ||
                             (a->in_place && !a->undo && a->type != ACC_INSERT) ||
                             s->verify || (size != 4 && size - 8 > 8), 0))
        return write_general(t, r, c, value);
    unsigned char *dst = col_ptr(s, a->data, c);
    if (size == 4) {
        memcpy(dst, value, 4);
    } else { /* 8 to 16 bytes: two 8-byte moves, overlapping below 16 */
        memcpy(dst, value, 8);
        memcpy(dst + size - 8, (const unsigned char *)value + size - 8, 8);
    }
    a->wmask |= COL_BIT(c);
    t->st.writes++;
    return RC_OK;
}

enum rc txn_insert(struct txn *t, struct table *tab, uint64_t key, struct row **out,
                   unsigned char **img)
{
    if (t->aborted)
        return RC_ABORT;
    t->st.rows_reused += t->free_rows.head[tab->id] != NULL;
    struct row *r = table_new_row_from(&t->free_rows, tab, key);
    cc_row_init(r);
    t->req_cols = COLS_ALL;
    net_insert(&t->net, tab, key); /* sent with the prepare / commit: no execution round */
    struct access *a = acc_new(t, r, NULL);
    if (sm_on) /* the storage model: a new row enters the cache, dirty */
        t->a_wait += sm_insert(&t->sm_st, r);
    if (cc_access(t, a, ACC_INSERT) != RC_OK) {
        t->nacc--;
        table_free_row(&t->free_rows, r);
        return mark_abort(t);
    }
    if (tab->schema.verify) /* absent -> present: every column gets its first version */
        hist_write_all(t, r, a->data, true);
    t->npublish++;
    *out = r;
    if (img)
        *img = a->data;
    return RC_OK;
}

enum rc txn_delete(struct txn *t, struct row *r)
{
    struct access *a = t->aborted ? NULL : acc_find(t, r);
    if (a && a->type == ACC_INSERT) {
        /* deleting its own insert: the row is still private; it is simply never
         * published (relaxed: no other thread can reach the row) */
        if (!txn_dropped(t, r)) {
            struct dropped_row *d = txn_alloc(t, sizeof(*d));
            d->row = r;
            d->next = t->dropped;
            t->dropped = d;
        }
        SHW(SHW_ROW);
        atomic_store_explicit(&r->deleted, 1, memory_order_relaxed);
        if (row_table(r)->schema.verify) /* present -> absent, over its own versions */
            hist_write_all(t, r, a->data, true);
        return RC_OK;
    }
    enum access_type held;
    t->req_cols = COLS_ALL;
    if (acc_get(t, r, ACC_DELETE, &a, &held) != RC_OK)
        return RC_ABORT;
    if (row_table(r)->schema.verify && held != ACC_DELETE) /* present -> absent */
        hist_write_all(t, r, a->data, false);
    t->npublish++;
    return RC_OK;
}

/* Optional (see cc.h): a weak reference, NULL where the algorithm does not define it, so
 * the hint costs other algorithms one test. */
extern void cc_last_access(struct txn *t, struct access *a) __attribute__((weak));

bool txn_rmw_at_server;

void txn_declare_read_only(struct txn *t) { t->read_only = true; }

void *txn_note(struct txn *t) { return t->note; }

void txn_shot_end(struct txn *t)
{
    if (net_on)
        net_shot_end_slow(&t->net);
}

void txn_last_access(struct txn *t, struct row *r)
{
    if (!cc_last_access || t->aborted)
        return;
    struct access *a = t->nacc && t->acc[t->nacc - 1].row == r ? &t->acc[t->nacc - 1]
                                                                : acc_find(t, r);
    if (a)
        cc_last_access(t, a);
}

/* Index time is sampled: every INDEX_SAMPLE-th look-up is timed and counts for
 * INDEX_SAMPLE of them (two time-stamp reads cost about as much as the probe itself). */
#define INDEX_SAMPLE 16

extern void cc_prefetch(const struct row *r, bool write) __attribute__((weak));
extern const bool cc_alg_reads_write_meta __attribute__((weak));
extern const bool cc_alg_copies_rows __attribute__((weak));
extern const bool cc_alg_rechecks_misses __attribute__((weak));

void txn_prefetch(struct txn *t, const struct table *tab, const struct row *r, bool write,
                  colmask_t cols)
{
    (void)t;
    bool whole = (&cc_alg_copies_rows && cc_alg_copies_rows) ||
                 !(schema_all_cols(&tab->schema) & ~cols); /* every column */
    table_prefetch(tab, r, write, &cc_alg_reads_write_meta && cc_alg_reads_write_meta, whole);
    if (cc_prefetch)
        cc_prefetch(r, write);
}

/* The primary-key look-up, its index time sampled. */
static inline struct row *lookup(struct txn *t, struct table *tab, uint64_t key)
{
    if (STATS_ENABLED && ++t->lookups % INDEX_SAMPLE == 0) {
        uint64_t start = STATS_TICKS();
        struct row *r = table_get(tab, key);
        t->a_index += (STATS_TICKS() - start) * INDEX_SAMPLE;
        return r;
    }
    return table_get(tab, key);
}

/* txn_lookup where the algorithm rechecks misses: records each (txn_missed_still_absent).
 * Apart, so that the others' look-up stays a tail call with no register to keep. */
__attribute__((noinline)) static struct row *lookup_noting_miss(struct txn *t,
                                                                struct table *tab,
                                                                uint64_t key)
{
    struct row *r = lookup(t, tab, key);
    if (!r) {
        struct missed_key *m = txn_alloc(t, sizeof(*m));
        m->tab = tab;
        m->key = key;
        m->next = t->missed;
        t->missed = m;
    }
    return r;
}

struct row *txn_lookup(struct txn *t, struct table *tab, uint64_t key)
{
    if (&cc_alg_rechecks_misses && cc_alg_rechecks_misses)
        return lookup_noting_miss(t, tab, key);
    return lookup(t, tab, key);
}

bool txn_missed_still_absent(const struct txn *t)
{
    for (const struct missed_key *m = t->missed; m; m = m->next)
        if (table_get(m->tab, m->key))
            return false;
    return true;
}

enum rc txn_user_abort(struct txn *t)
{
    t->reason = AR_USER;
    return mark_abort(t);
}

enum rc txn_abort_retry(struct txn *t)
{
    t->reason = AR_RETRY;
    return mark_abort(t);
}

static inline uintptr_t acc_row(const struct access *a) { return (uintptr_t)a->row; }

/* Sifts v[i] down the max-heap v[0, n) (keyed by row address). */
static void heap_sift(struct access **v, uint32_t i, uint32_t n)
{
    struct access *x = v[i];
    for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && acc_row(v[c + 1]) > acc_row(v[c]))
            c++;
        if (acc_row(v[c]) <= acc_row(x))
            break;
        v[i] = v[c];
    }
    v[i] = x;
}

/* In place, no allocation (qsort's merge sort mallocs a buffer): insertion sort for the
 * common small sets (a TPC-C NewOrder writes up to 18 rows), heapsort beyond. */
void txn_sort_by_row(struct access **v, uint32_t n)
{
    if (n > 32) {
        for (uint32_t i = n / 2; i-- > 0;)
            heap_sift(v, i, n);
        for (uint32_t end = n - 1; end > 0; end--) {
            struct access *top = v[0];
            v[0] = v[end];
            v[end] = top;
            heap_sift(v, 0, end);
        }
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        struct access *x = v[i];
        uint32_t j = i;
        for (; j > 0 && acc_row(v[j - 1]) > acc_row(x); j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

void txn_undo_in_place(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++)
        txn_undo_access(&t->acc[i]);
}

static void index_op_add(struct txn *t, struct idx_ordered *o, uint64_t key, struct row *r)
{
    struct index_op *op = txn_alloc(t, sizeof(*op));
    *op = (struct index_op){.next = NULL, .index = o, .key = key, .row = r};
    *t->index_ops_tail = op;
    t->index_ops_tail = &op->next;
    t->npublish++;
}

void txn_index_insert(struct txn *t, struct idx_ordered *o, uint64_t key, struct row *r)
{
    index_op_add(t, o, key, r);
}

void txn_index_remove(struct txn *t, struct idx_ordered *o, uint64_t key)
{
    index_op_add(t, o, key, NULL);
}

void (*txn_publish_hook)(struct txn *t); /* cc/cc.h: the anomaly matrix's stop */

/* Primary keys first, then the ordered-index operations in call order: a reader that
 * finds a row through an ordered index can then reach every row this transaction
 * inserted by its key. */

void txn_publish(struct txn *t)
{
    if (txn_publish_hook)
        txn_publish_hook(t);
    for (uint32_t i = 0; t->npublish && i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        struct table *tab = row_table(a->row);
        if (a->type == ACC_INSERT && tab->primary &&
            !atomic_load_explicit(&a->row->deleted, memory_order_relaxed)) {
            if (!idx_hash_insert(tab->primary, a->row->key, a->row)) {
                fprintf(stderr, "table %s: committed insert of duplicate key %llu\n",
                        tab->name, (unsigned long long)a->row->key);
                exit(1);
            }
        } else if (a->type == ACC_DELETE) {
            SHW(SHW_ROW);
            atomic_store_explicit(&a->row->deleted, 1, memory_order_relaxed);
            if (tab->primary)
                idx_hash_remove(tab->primary, a->row->key);
        }
    }
    for (struct index_op *op = t->index_ops; op; op = op->next) {
        if (op->row && !idx_ordered_insert(op->index, op->key, op->row)) {
            fprintf(stderr, "ordered index: committed insert of duplicate key %llu\n",
                    (unsigned long long)op->key);
            exit(1);
        }
        if (!op->row)
            idx_ordered_remove(op->index, op->key);
    }
}

/* Gives the rows this attempt inserted back to the thread's free rows after an abort,
 * once the algorithm released them: none was published, so no other thread can reach
 * it. */
static void free_inserted(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++)
        if (t->acc[i].type == ACC_INSERT)
            table_free_row(&t->free_rows, t->acc[i].row);
}

/* After a commit: gives back the rows this attempt deleted again (t->dropped), never
 * published. Not a row it published that another transaction has deleted since: the
 * deleted flag does not tell the two apart, and others may still hold that row. */
static void free_dropped(struct txn *t)
{
    for (struct dropped_row *d = t->dropped; d; d = d->next)
        table_free_row(&t->free_rows, d->row);
}

/* The storage model, after a commit: the rows it wrote, inserted or deleted are dirty.
 * Returns the ticks stalled (write-throughs of rows evicted since their access). */
static __attribute__((noinline)) uint64_t storage_commit(struct txn *t)
{
    uint64_t d = 0;
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->wmask || a->type == ACC_INSERT || a->type == ACC_DELETE)
            d += sm_mark(&t->sm_st, a->row, SM_DIRTY);
    }
    return d;
}

enum rc txn_commit(struct txn *t)
{
    if (t->aborted)
        return RC_ABORT;
    uint64_t start = STATS_TICKS();
    if (net_on)
        net_before_commit_slow(&t->net);
    enum rc rc = cc_commit(t);
    uint64_t end = STATS_TICKS();
    t->a_commit += end - start;
    if (rc != RC_OK)
        return mark_abort(t);
    wait_txn_end(); /* threads that wait for this transaction's end: before any stall */
    if (sm_on) { /* a stall here is wait time, after the commit's own time */
        t->a_wait += storage_commit(t);
        end = STATS_TICKS();
    }
    if (t->hist) /* with the network model the client knows the outcome at the decision */
        hist_txn_times(t->hist, t->hist_begin,
                       t->net.decided_at ? t->net.decided_ns : clock_now_ns());
    free_dropped(t);
    struct txn_stats *st = &t->st;
    st->commits++;
#if STATS_ENABLED
    uint64_t total = end - t->attempt_start;
    uint64_t parts = t->a_wait + t->a_precommit + t->a_deadlock + t->a_index + t->a_commit;
    st->t_exec += total > parts ? total - parts : 0;
    st->t_wait += t->a_wait;
    st->t_precommit += t->a_precommit;
    st->t_deadlock += t->a_deadlock;
    st->t_index += t->a_index;
    st->t_commit += t->a_commit;
    st->t_ww_wait += t->a_ww_wait;
#endif
    return RC_OK;
}

void txn_abort(struct txn *t)
{
    if (net_on) /* the servers release when the abort reaches them */
        net_before_abort_slow(&t->net);
    cc_abort(t);
    if (!t->no_wait) /* see txn_finish */
        wait_txn_end();
    if (t->npublish)
        free_inserted(t);
    if (t->hist)
        hist_txn_abort(t->hist);
    t->st.aborts++;
    t->st.aborts_by[t->reason]++;
    t->st.t_abort += STATS_TICKS() - t->attempt_start;
}

/* Optional (see cc.h): weak references, NULL where the algorithm has no commit split. */
extern enum rc cc_prepare(struct txn *t) __attribute__((weak));
extern void cc_finish(struct txn *t) __attribute__((weak));

bool txn_has_commit_split(void) { return cc_prepare && cc_finish; }

enum rc txn_prepare(struct txn *t)
{
    if (t->aborted)
        return RC_ABORT;
    return cc_prepare(t) == RC_OK ? RC_OK : mark_abort(t);
}

void txn_finish(struct txn *t)
{
    cc_finish(t);
    /* a no_wait context (the geo layer's, run by its executor, not a worker) has no
     * watchers: nobody waits for it, and the executor outlives the driver's wait mode */
    if (!t->no_wait)
        wait_txn_end();
    t->st.commits++;
}
