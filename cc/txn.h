/* The generic transaction's internals, shared by cc/txn.c and the algorithms (never by
 * workloads, which see only cc/cc.h).
 *
 * The generic transaction owns the bookkeeping: the access set (one entry per row, found
 * again through a small per-transaction hash), the transaction log area (arena), ids,
 * history records, per-attempt timers and stats. Algorithms own the fields named cc_*
 * and t->cc.
 *
 * Access set invariants:
 *  - acc[0..nacc) are the rows this attempt accessed, in first-access order, each once.
 *  - a->data is the image the transaction reads and writes: the row's own data when
 *    a->in_place (2PL family, NONE, inserts; NCC's reads, which the row's response queue
 *    keeps stable, and its server-side read-modify-writes; record-level RCC's SER reads
 *    of a row whose chain was empty; MVTO's writes of the newest version), else a
 *    private copy in the arena that the algorithm installs at commit.
 *  - a->undo (in-place writers only) is the before-image, taken when the access gained
 *    write intent (txn_read_for_update) or else at the first write, while the algorithm
 *    holds the row exclusively; it restores it on abort (txn_undo_in_place, or row by
 *    row with txn_undo_access: NCC, under each key's latch) while still holding the
 *    row. An algorithm may set it itself when it grants the access (MVTO: its
 *    old-version node; txn_undo_in_place restores from it all the same), and then the
 *    generic layer takes none.
 */
#ifndef CC_TXN_H
#define CC_TXN_H

#include <stdatomic.h>
#include <string.h>

#include "cc/arena.h"
#include "cc/cc.h"
#include "storage/clock.h"
#include "cc/history.h"
#include "cc/netmodel.h"
#include "storage/shared_writes.h"
#include "storage/storage_model.h"
#include "storage/table.h"
#include "storage/wait.h"

struct access {
    struct row *row;
    unsigned char *data;
    unsigned char *undo;
    colmask_t wmask;   /* columns written */
    uint8_t type;      /* enum access_type held */
    uint8_t in_place;  /* data == row->data */
    uint16_t cc_flags; /* algorithm-owned */
    uint32_t cc_u32;   /* algorithm-owned */
    uint64_t cc_a;     /* algorithm-owned (e.g. observed version) */
    uint64_t cc_b;     /* algorithm-owned */
    void *cc_ptr;      /* algorithm-owned (e.g. the key's timestamp-store entry) */
};

/* A row the attempt inserted, then deleted again (txn_delete): never published. */
struct dropped_row {
    struct dropped_row *next;
    struct row *row;
};

/* A primary key the attempt looked up and did not find (txn_lookup). */
struct missed_key {
    struct missed_key *next;
    struct table *tab;
    uint64_t key;
};

/* A deferred ordered-index operation (txn_index_insert / txn_index_remove). */
struct index_op {
    struct index_op *next;
    struct idx_ordered *index;
    uint64_t key;
    struct row *row; /* NULL: remove */
};

struct acc_slot {
    struct row *row;
    uint32_t idx;
    uint32_t gen; /* valid iff equal to txn.gen */
};

struct txn {
    int thread_id;
    bool aborted;              /* sticky abort flag */
    bool read_only;            /* txn_declare_read_only was called in this attempt */
    bool no_wait;              /* must never wait for another transaction (the geo layer's
                                * leaders, cc/geo.h): an access that would wait aborts */
    bool acc_blind;            /* while cc_access runs: a write of a row the attempt has not
                                * read (txn_write without txn_read_for_update); NCC sends
                                * no read request for it */
    enum abort_reason reason;  /* set by whoever returned RC_ABORT */
    uint64_t id;               /* this attempt's unique id: (thread + 1) << 40 | counter */
    uint64_t counter;          /* also numbers --verify's version ids (cc/history.h) */
    uint64_t ts;               /* algorithm-owned timestamp */
    uint64_t prio_last;        /* the last txn_priority_ts */
    uint64_t lookups;          /* index look-ups so far (index-time sampling) */
    colmask_t req_cols;        /* columns of the access cc_access is asked for: the read
                                * set of a read (for update), the written column of a
                                * write without one, all columns for inserts and deletes
                                * (column-level algorithms use it) */
    struct access *acc;
    uint32_t nacc, acc_cap;
    struct acc_slot *slots;    /* open addressing, 2 * acc_cap entries */
    uint32_t slot_mask, gen;
    uint32_t npublish;         /* inserts + deletes of this attempt (txn_publish's work) */
    /* rows this attempt inserted, then deleted (never published), in the arena. Known by
     * this list, not by the row's deleted flag: a row the attempt published can be
     * deleted by another transaction before the attempt's commit returns */
    struct dropped_row *dropped;
    struct missed_key *missed; /* txn_lookup's misses, in the arena (txn_missed_still_absent) */
    struct row_freelist free_rows; /* rows of this thread's aborted inserts (table.h) */
    struct index_op *index_ops, **index_ops_tail; /* in call order, in the arena */
    struct arena arena;
    struct hist_log *hist;     /* NULL unless verifying */
    uint64_t hist_begin;       /* when verifying: the attempt's begin time (ns) */
    void *cc;                  /* algorithm-owned per-thread state */
    /* per-attempt timers (ticks) */
    uint64_t attempt_start, a_wait, a_precommit, a_deadlock, a_index, a_commit;
    uint64_t a_ww_wait; /* the part of a_wait spent waiting for write access */
    uint64_t note[TXN_NOTE_SIZE / 8]; /* the workload's (txn_note) */
    struct net_txn net; /* the network model's view of the attempt (cc/netmodel.h) */
    struct txn_stats st;
    struct sm_stats sm_st;   /* the storage model's counters (reset with st) */
    struct net_stats net_st; /* the model's counters (reset with st); last: it is large */
};

/* Low bits of a priority timestamp that hold the thread id. */
#define PRIO_THREAD_BITS 12
_Static_assert(MAX_THREADS <= 1 << PRIO_THREAD_BITS, "thread ids must fit PRIO_THREAD_BITS");

/* A priority timestamp (wait-die, wound-wait, Bamboo, RCC-W: smaller = older) taken
 * with no shared write: ticks since the process started, shifted, with the thread id in
 * the low bits. Unique (the thread bits); increasing per thread (at least one tick after
 * the thread's last); and across threads ordered by when they were taken, since the
 * time-stamp counter is invariant and synchronised across cores on the machines we
 * target. So a transaction that keeps its timestamp over retries becomes, in time, the
 * oldest one running (no starvation), as with a global counter. 2^52 ticks: 17 days at
 * 3 GHz before it would wrap. */
static inline uint64_t txn_priority_ts(struct txn *t)
{
    uint64_t ts = (clock_ticks() - clock_ticks_base) << PRIO_THREAD_BITS |
                  (uint64_t)t->thread_id;
    if (ts <= t->prio_last)
        ts = t->prio_last + (1u << PRIO_THREAD_BITS);
    t->prio_last = ts;
    return ts;
}

/* The network model's decision point, for algorithms that take their locks in cc_commit
 * (cc_net_rounds.decides_in_commit): call it after validating, before installing or
 * releasing. A no-op when the model is off. */
static inline void txn_net_decision(struct txn *t)
{
    if (net_on)
        net_decision_slow(&t->net);
}

/* One more round to every participant before the decision (NCC's smart retry). A no-op
 * when the model is off. */
static inline void txn_net_round(struct txn *t)
{
    if (net_on)
        net_round_slow(&t->net);
}

/* A request that depends on a reply of the open shot (NCC's write of a read-modify-write
 * whose value the client computes): it goes in a new shot. A no-op when the model is off. */
static inline void txn_net_new_shot(struct txn *t, const struct row *r)
{
    if (net_on)
        net_new_shot_slow(&t->net, row_table(r), r->key);
}

/* An attempt that ends with nothing to tell any server (NCC's read-only protocol): the
 * reply leg of its open shot, and the decision without a commit or abort leg. */
static inline void txn_net_end_local(struct txn *t)
{
    if (net_on) {
        net_shot_end_slow(&t->net);
        net_decision_local_slow(&t->net);
    }
}

/* The client decides and answers now (asynchronous commit): the end of the attempt for
 * latency and --verify's real-time order. `messages`: commit messages go to the servers
 * (the model's decision and commit leg, as txn_net_decision); else nothing is sent (NCC's
 * read-only protocol). With the model off it only records the time. */
static inline void txn_client_decided(struct txn *t, bool messages)
{
    if (net_on) {
        if (messages)
            net_decision_slow(&t->net);
        else
            net_decision_local_slow(&t->net);
        return;
    }
    t->net.decided_at = clock_ticks();
    t->net.decided_ns = t->hist ? clock_now_ns() : 0;
}

/* The storage model (storage/storage_model.h), for algorithms that keep their timestamps on
 * storage (cc_alg_ts_on_storage): the algorithm changed row r's timestamps (e.g. raised a
 * read timestamp), so r's metadata is dirty and its eviction costs a write (written
 * through at once if r is not resident). A no-op with the model off or without
 * cc_alg_ts_on_storage. Its stall is not added to any timer: it counts where the
 * algorithm is (its access or its commit). */
static inline void txn_storage_meta_dirty(struct txn *t, struct row *r)
{
    if (sm_on)
        sm_mark(&t->sm_st, r, SM_META_DIRTY);
}

/* The commit split (cc/cc.h: cc_prepare, cc_finish), for the geo layer: whether the
 * linked algorithm has it; the vote (RC_ABORT: call txn_abort); the end after a commit
 * decision (install, publish, release; counted as a commit of t). */
bool txn_has_commit_split(void);
enum rc txn_prepare(struct txn *t);
void txn_finish(struct txn *t);

/* Allocates n bytes in the transaction's log area (16-byte aligned). */
static inline void *txn_alloc(struct txn *t, size_t n) { return arena_alloc(&t->arena, n); }

/* Sets the reason and returns RC_ABORT, for algorithms: `return txn_fail(t, AR_X);`. */
static inline enum rc txn_fail(struct txn *t, enum abort_reason why)
{
    t->reason = why;
    return RC_ABORT;
}

/* Every column of schema s, as a mask. */
static inline colmask_t schema_all_cols(const struct schema *s) { return s->all_cols; }

/* Bytes [lo, hi) of column c in a row image, its writer id (--verify) included. */
static inline void col_bytes(const struct schema *s, int c, uint32_t *lo, uint32_t *hi)
{
    *lo = s->cols[c].off - (s->verify ? WID_SIZE : 0);
    *hi = s->cols[c].off + s->cols[c].size;
}

/* Copies the bytes of columns `cols` (exactly theirs) from image src to image dst. */
static inline void image_copy_cols(const struct schema *s, unsigned char *dst,
                                   const unsigned char *src, colmask_t cols)
{
    for (; cols; cols &= cols - 1) {
        uint32_t lo, hi;
        col_bytes(s, __builtin_ctzll(cols), &lo, &hi);
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

/* Copies a row's data into dst with relaxed atomic word loads, for optimistic readers
 * that copy while a writer may install (the algorithm validates the copy with its own
 * version check afterwards). data_size is a multiple of 8 and row data is 8-aligned. */
static inline void row_copy_relaxed(unsigned char *dst, const struct row *r, uint32_t size)
{
    const _Atomic uint64_t *src = (const _Atomic uint64_t *)(const void *)r->data;
    uint64_t *d = (uint64_t *)(void *)dst;
#pragma GCC unroll 4
    for (uint32_t i = 0; i < size / 8; i++)
        d[i] = atomic_load_explicit(&src[i], memory_order_relaxed);
}

/* The part of an optimistic algorithm's cc_access that needs no protocol: an upgrade
 * keeps the private copy (or the private insert); an insert is written in place, since
 * the row is invisible until commit. True when it handled the access. */
static inline bool occ_access_private(struct access *a, enum access_type type)
{
    if (a->type == ACC_NONE && type != ACC_INSERT)
        return false;
    if (a->type == ACC_NONE) {
        a->data = a->row->data;
        a->in_place = 1;
        a->cc_a = a->cc_b = 0;
    }
    a->type = (uint8_t)type;
    return true;
}

/* Stores the words of the columns a->wmask from a's private image into its row, with
 * word stores of memory order `order` (a constant once inlined): the caller holds the
 * row's write lock and knows the image's other columns equal the row's, so words shared
 * with a neighbouring column are rewritten with unchanged values. Writer ids (--verify)
 * are stored with their columns. */
static inline void row_store_written(const struct access *a, memory_order order)
{
    _Atomic uint64_t *dst = (_Atomic uint64_t *)(void *)a->row->data;
    const uint64_t *src = (const uint64_t *)(const void *)a->data;
    const struct schema *s = &row_table(a->row)->schema;
    for (colmask_t m = a->wmask; m; m &= m - 1) {
        const struct column *c = &s->cols[__builtin_ctzll(m)];
        /* bounds in locals: the stores below may alias the schema for all the compiler
         * knows */
        uint32_t i = c->word_lo, hi = c->word_hi; /* hi > i: a value has bytes */
        do
            atomic_store_explicit(&dst[i], src[i], order);
        while (++i < hi);
    }
}

/* Installs the columns an optimistic writer wrote (row_store_written, relaxed stores),
 * after validating that the image's other columns equal the row's. The caller publishes
 * with a release store of its version. */
static inline void row_install_written(const struct access *a)
{
    SHW(SHW_ROW); /* one per row installed */
    row_store_written(a, memory_order_relaxed);
}

/* Sorts access pointers by row address: the global lock order of commit-time locking. */
void txn_sort_by_row(struct access **v, uint32_t n);

/* For in-place writers, on abort: restores the before-image of access a's row, if it
 * has one (txn_undo_in_place: of every written row). */
static inline void txn_undo_access(const struct access *a)
{
    if (a->undo)
        memcpy(a->row->data, a->undo, row_table(a->row)->schema.data_size);
}
void txn_undo_in_place(struct txn *t);
/* Whether this attempt inserted row r and deleted it again (r is never published). */
static inline bool txn_dropped(const struct txn *t, const struct row *r)
{
    for (const struct dropped_row *d = t->dropped; d; d = d->next)
        if (d->row == r)
            return true;
    return false;
}
/* Whether every primary key this attempt looked up and missed is still absent from the
 * index. For an algorithm that lets an attempt read writes of transactions that have not
 * committed (RCC at serializable, Bamboo's retired locks): such a writer publishes its
 * inserts only at its commit, so a dependent reader may miss a row its predecessor
 * inserts, which no algorithm tracks (a miss takes no lock and leaves no version to
 * validate). Called after every predecessor has finished its commit (its inserts are
 * then in the index): a key found then aborts the attempt, which is conservative (the
 * inserter may be no predecessor). Recording costs an arena allocation per miss; the
 * check, a look-up per miss. */
bool txn_missed_still_absent(const struct txn *t);
/* (An algorithm that calls it defines cc_alg_rechecks_misses = true, cc/cc.h: only then
 * are the misses recorded.) */
/* Publishes inserts (primary index) and deletes (deleted flag, index removal); called by
 * the algorithm inside cc_commit while it holds exclusive access to those rows. */
void txn_publish(struct txn *t);

/* ThreadSanitizer does not model fences; GCC says so (-Wtsan) where a fence is inlined
 * from a helper, as from occ_read and occ_install, though not where a fence is written in
 * the function that runs it. What these fences order are atomic words (the version word,
 * the row's data words), so TSan sees no race with or without them. */
#ifdef __SANITIZE_THREAD__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif

/* The read of an optimistic algorithm's cc_access (after occ_access_private): sets a's
 * type and takes a private copy of its row into a->data, copied while the row's version
 * word *w is unlocked (no bit of `lock` set) and with the bits `stable` (the lock bit
 * among them) unchanged across the copy; other bits (TicToc's rts delta) may move. Waits
 * while the row is locked or changes under the copy, except in a no_wait context, where
 * a locked row returns false at once. Else true, with *word the word as re-loaded after
 * the copy. */
static inline bool occ_try_read(struct txn *t, struct access *a, enum access_type type,
                                _Atomic uint64_t *w, uint64_t lock, uint64_t stable,
                                uint64_t *word)
{
    struct row *r = a->row;
    a->type = (uint8_t)type;
    uint32_t size = row_table(r)->schema.data_size;
    a->data = txn_alloc(t, size);
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        /* acquire: pairs with the release store of the word in occ_install (or the
         * committer's unlock at abort), so the copy sees at least the image that word
         * published */
        uint64_t v1 = atomic_load_explicit(w, memory_order_acquire);
        if (!(v1 & lock)) {
            row_copy_relaxed(a->data, r, size);
            /* acquire: pairs with the committer's release fence before its install
             * (occ_install), so a copy that saw any installed word sees the lock bit on
             * the re-load */
            atomic_thread_fence(memory_order_acquire);
            /* relaxed: ordered after the copy by the fence above */
            uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
            if (((v ^ v1) & stable) == 0) {
                *word = v;
                return true;
            }
        } else if (t->no_wait) {
            a->type = ACC_NONE; /* holds nothing new (cc_access's contract on abort) */
            return false;
        }
        wait_round(&wt);
    }
}

/* occ_try_read for contexts that may wait (every caller but a no_wait one): returns the
 * word. */
static inline uint64_t occ_read(struct txn *t, struct access *a, enum access_type type,
                                _Atomic uint64_t *w, uint64_t lock, uint64_t stable)
{
    uint64_t v = 0;
    (void)occ_try_read(t, a, type, w, lock, stable, &v); /* true: the context may wait */
    return v;
}

/* The install phase of an optimistic algorithm's cc_commit, with the write set ws[0, nw)
 * locked and validated: installs the written columns of each row of ws, stores v into the
 * version word of each row the attempt inserted, publishes inserts and deletes
 * (txn_publish), then stores v into the word of each row of ws (v has the lock bit clear:
 * this unlocks it) and adds `flags` to its access's cc_flags. word(a): the version word
 * of access a. */
static inline void occ_install(struct txn *t, struct access **ws, uint32_t nw,
                               _Atomic uint64_t *(*word)(const struct access *a), uint64_t v,
                               uint16_t flags)
{
    uint32_t n = t->nacc;
    /* release fence: pairs with a reader's acquire fence after its copy (occ_read), so a
     * reader that copied any word installed below sees our lock bit */
    atomic_thread_fence(memory_order_release);
    for (uint32_t i = 0; i < nw; i++)
        row_install_written(ws[i]);
    for (uint32_t i = 0; t->npublish && i < n; i++)
        /* relaxed: the row is still private; the index insert of txn_publish (release)
         * publishes it with its data */
        if (t->acc[i].type == ACC_INSERT) {
            SHW(SHW_ROW);
            atomic_store_explicit(word(&t->acc[i]), v, memory_order_relaxed);
        }
    txn_publish(t);
    for (uint32_t i = 0; i < nw; i++) {
        /* release: unlocks and publishes the image; pairs with the acquire load of the
         * word in occ_read */
        SHW(SHW_ROW);
        atomic_store_explicit(word(ws[i]), v, memory_order_release);
        ws[i]->cc_flags |= flags;
    }
}

#ifdef __SANITIZE_THREAD__
#pragma GCC diagnostic pop
#endif

/* Wait timing for algorithms: start = txn_timer_start(); ...; txn_wait_done(t, start). */
static inline uint64_t txn_timer_start(void) { return STATS_TICKS(); }
static inline void txn_wait_done(struct txn *t, uint64_t start)
{
    t->a_wait += STATS_TICKS() - start;
}
/* The same for a wait for write (exclusive) access to a row: it counts as wait time and,
 * besides, as ww_wait (stats.h). */
static inline void txn_ww_wait_done(struct txn *t, uint64_t start)
{
    uint64_t d = STATS_TICKS() - start;
    t->a_wait += d;
    t->a_ww_wait += d;
}
static inline void txn_deadlock_done(struct txn *t, uint64_t start)
{
    t->a_deadlock += STATS_TICKS() - start;
}
static inline void txn_precommit_done(struct txn *t, uint64_t start)
{
    t->a_precommit += STATS_TICKS() - start;
}

#endif
