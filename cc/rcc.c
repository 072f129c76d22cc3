/* RCC: speculative write versioning with redo logs (seed 000, sections 3-5), in an
 * in-memory single-version store. One binary per variant; compile flags:
 *   RCC_DEADLOCK  RCC_DL_COMMIT  (RCC)   one cycle search at pre-commit
 *                 RCC_DL_EAGER   (RCC-D) a cycle search on every new dependency edge
 *                 RCC_DL_WOUND   (RCC-W) wound-wait: an older transaction never depends
 *                                on a younger one; it wounds it and waits for it to go
 *   RCC_COLUMNAR  0: record-level chains (commit installs the words of the columns
 *                 it wrote); 1 (RCC-C): an entry depends only on entries whose column
 *                 sets overlap its own, and commit installs exactly the bytes of the
 *                 columns it wrote
 *   RCC_ISO       RCC_RC, RCC_RR (default), RCC_SER
 *
 * Row state (struct rcc_row, row->cc) and entries (struct rcc_entry, in their owners'
 * arenas): described above the structs below.
 *
 * Per thread (thr[i], allocated and first touched by thread i in cc_thread_init, freed
 * only by cc_fini; word and done, which others poll, in a cache line of their own):
 *   word  (attempt id << 4) | phase << 2 | reason. phase RUNNING, COMMITTING (passed
 *         pre-commit, cannot be killed), KILLED (reason = why). Others kill an attempt
 *         with a CAS that names it, so a late kill never hits a later attempt.
 *   done  id of the thread's last finished attempt (release after all unlinks).
 *   progress  bumped (release) after every seal and every finish: an append waiter reads
 *         it under the row latch, then polls it without the latch until it moves.
 * A dependency is an attempt id; it is satisfied when done[thread] >= id. Whoever makes
 * an attempt abort (cascade, re-update) kills it before publishing its own `done`, so a
 * waiter that sees all its predecessors done and is not killed may commit.
 *
 * Update (paper 3.3.1): seal the attempt's open entry (copy its image into `snap`, the
 * speculative unlock happens at the workload's last-access hint (cc_last_access), else
 * at the attempt's next access or at commit); latch; wait while an
 * overlapping entry is still OPEN (the write lock wait: ww_wait for writes); build the image from the committed row plus, per
 * column, the latest overlapping entry's snapshot; record those owners as predecessors;
 * append an OPEN entry; unlatch. An SER read appends a READ entry the same way; a
 * record-level one that finds the chain empty reads the row in place (no copy).
 * Re-update: a write after sealing is found at commit (image != snapshot) and kills the
 * overlapping entries after ours (AR_REUPDATE); an upgrade (SER read -> write, write ->
 * delete) kills them at once.
 * Waits (append's, pre-commit) give up when the run is over (AR_STOPPED, storage/wait.h):
 * append before linking its entry, pre-commit before COMMITTING; the abort then cascades
 * as any other.
 * Commit: seal; deadlock step; pre-commit wait (every predecessor done, not killed);
 * RUNNING -> COMMITTING; txn_publish (all entries still linked); per entry: latch,
 * re-update check, install of the written columns (seqlock), unlink, unlatch; done = id.
 * Abort: per linked entry: latch, kill the overlapping entries after it (AR_CASCADE),
 * unlink, unlatch; done = id. Nothing was installed, so nothing is rolled back.
 * Lock order: one row latch at a time; no wait while holding one.
 */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "cc/txn.h"
#include "storage/dlist.h"
#include "storage/latch.h"
#include "storage/wait.h"
#include "cc/waits_for.h"
#include "storage/mem.h"
#include "storage/shared_writes.h"

#define RCC_DL_COMMIT 0
#define RCC_DL_EAGER 1
#define RCC_DL_WOUND 2
#define RCC_RC 0
#define RCC_RR 1
#define RCC_SER 2

#ifndef RCC_DEADLOCK
#define RCC_DEADLOCK RCC_DL_COMMIT
#endif
#ifndef RCC_COLUMNAR
#define RCC_COLUMNAR 0
#endif
#ifndef RCC_ISO
#define RCC_ISO RCC_RR
#endif
#if RCC_DEADLOCK < RCC_DL_COMMIT || RCC_DEADLOCK > RCC_DL_WOUND
#error "RCC_DEADLOCK must be RCC_DL_COMMIT, RCC_DL_EAGER or RCC_DL_WOUND"
#endif
#if RCC_COLUMNAR != 0 && RCC_COLUMNAR != 1
#error "RCC_COLUMNAR must be 0 or 1"
#endif
#if RCC_ISO < RCC_RC || RCC_ISO > RCC_SER
#error "RCC_ISO must be RCC_RC, RCC_RR or RCC_SER"
#endif

#define NAME_DL_0 ""
#define NAME_DL_1 "-D"
#define NAME_DL_2 "-W"
#define NAME_COL_0 ""
#define NAME_COL_1 "-C"
#define NAME_ISO_0 "/RC"
#define NAME_ISO_1 "/RR"
#define NAME_ISO_2 "/SER"
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

const char cc_alg_name[] =
    "RCC" CAT(NAME_DL_, RCC_DEADLOCK) CAT(NAME_COL_, RCC_COLUMNAR) CAT(NAME_ISO_, RCC_ISO);
const bool cc_alg_serializable = RCC_ISO == RCC_SER;
const enum cc_level cc_alg_weak_level = RCC_ISO == RCC_RC ? CC_LEVEL_RC : CC_LEVEL_RR; /* cc.h */
/* Network rounds (cc/netmodel.h; ours): execute / prepare (the pre-commit wait for the
 * predecessors) / commit: 3 rounds, 2 RTTs. */
const struct cc_net_rounds cc_net_rounds = {.prepare = true, .decides_in_commit = true};
const bool cc_alg_column_grain = RCC_COLUMNAR; /* see cc.h */
/* SER's reads append an entry under the row's latch (RC and RR read the committed row
 * without writing): txn_prefetch then requests the row's first line exclusive (YCSB
 * theta 0.6, 90% reads, 2 threads: rcc-ser 1.27x, rcc-c-ser 1.14x). */
const bool cc_alg_reads_write_meta = RCC_ISO == RCC_SER;
/* An access copies the whole row: a plain read under RC and RR (read_committed), every
 * access with columnar chains; a prefetch requests every line (txn_prefetch). At SER a
 * record-level read finds the row in place while its chain is empty. */
const bool cc_alg_copies_rows = RCC_COLUMNAR || RCC_ISO != RCC_SER;
/* SER reads take dependencies on uncommitted writes: precommit looks the misses up again */
const bool cc_alg_rechecks_misses = RCC_ISO == RCC_SER;

static const bool SER = RCC_ISO == RCC_SER;
static const bool COLUMNAR = RCC_COLUMNAR;

enum { ENT_OPEN = 1, ENT_READ = 2, ENT_DELETE = 4 };
enum { PH_RUNNING = 0, PH_COMMITTING = 1, PH_KILLED = 2 };
enum { KR_CASCADE = 0, KR_REUPDATE = 1, KR_WOUNDED = 2 };
#define ACC_LINKED 1 /* a->cc_flags: a->cc_a is a linked struct rcc_entry */

/* Entry (struct rcc_entry, in its owner's arena): owner attempt id, wound-wait ts, column
 * set, flags (OPEN: the owner may still write its image, successors wait; READ: an SER
 * speculative read; DELETE) and `snap`, the sealed image successors copy from (an SER
 * read's image: the row itself for a read in place, see append). Others
 * touch an entry only under the row latch while it is linked; the owner unlinks every
 * entry (under the latch) before it publishes `done`, so its arena is unreachable once
 * cc_commit / cc_abort return.
 */
struct rcc_entry {
    struct rcc_entry *prev, *next;
    uint64_t owner, ts;
    colmask_t cols;
    unsigned char *snap;
    uint32_t flags;
};

/* Row state (row->cc, struct rcc_row):
 *   latch    spin latch (0/1); guards head/tail, every linked entry's fields and the
 *            row's data against installs. Held only for short, non-blocking work.
 *   version  seqlock for lock-free plain reads of the committed row: odd while a
 *            committer installs (under the latch).
 *   head..tail  the chain: linked entries of active attempts, in access order.
 */
struct rcc_row {
    _Atomic uint32_t latch;
    _Atomic uint64_t version;
    struct rcc_entry *head, *tail;
};
_Static_assert(sizeof(struct rcc_row) <= CC_META_SIZE, "rcc: CC_META_SIZE too small");

struct rcc_thread {
    alignas(CACHE_LINE) _Atomic uint64_t word;
    _Atomic uint64_t done;
    _Atomic uint64_t progress; /* bumped after each seal and each finish (append waits) */
    /* owner only, in the next cache line */
    alignas(CACHE_LINE) uint64_t ts;
    uint64_t *dep_of; /* per thread: the attempt of it this attempt depends on, or 0 */
    int *deps;        /* threads with dep_of set, ndeps of them */
    int ndeps;
    uint64_t *ids;    /* scratch for wf_set */
    int open;         /* index of the access whose entry is OPEN, or -1 */
};

static struct rcc_thread *_Atomic *thr;
static int nthreads;

/* Thread i's state. relaxed: thread i stores its pointer before it links any entry, and
 * others learn an attempt id of thread i only from its entries (under the row latch) or
 * from dependencies recorded from them, so the store happens before any such load. */
static inline struct rcc_thread *thr_of(int i)
{
    return atomic_load_explicit(&thr[i], memory_order_relaxed);
}

static inline int thread_of(uint64_t id) { return (int)(id >> 40) - 1; }
static inline struct rcc_row *rrow(struct row *r) { return (struct rcc_row *)(void *)r->cc; }
static inline struct rcc_entry *ent(const struct access *a)
{
    return (struct rcc_entry *)(uintptr_t)a->cc_a;
}

/* ---- latch and committed-row seqlock ---- */

static inline void latch(struct rcc_row *m)
{
    SHW(SHW_ROW);
    latch_acquire(&m->latch);
}

static inline void unlatch(struct rcc_row *m)
{
    SHW(SHW_ROW);
    latch_release(&m->latch);
    wait_wake_flush(); /* kills made under the latch */
}

/* Consistent copy of the committed row without the latch (RC/RR plain reads). */
static void read_committed(struct row *r, unsigned char *dst, uint32_t size)
{
    struct rcc_row *m = rrow(r);
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        /* acquire: pairs with install_end's release store */
        uint64_t v = atomic_load_explicit(&m->version, memory_order_acquire);
        if (!(v & 1)) {
            /* acquire (each word): pairs with the installer's release stores, so a copy
             * that saw an installed word sees the odd version on the re-load (no fences:
             * ThreadSanitizer does not model them) */
            const _Atomic uint64_t *src = (const _Atomic uint64_t *)(const void *)r->data;
            uint64_t *d = (uint64_t *)(void *)dst;
            for (uint32_t i = 0; i < size / 8; i++)
                d[i] = atomic_load_explicit(&src[i], memory_order_acquire);
            if (atomic_load_explicit(&m->version, memory_order_relaxed) == v)
                return;
        }
        wait_round(&wt);
    }
}

static inline void install_begin(struct rcc_row *m)
{
    uint64_t v = atomic_load_explicit(&m->version, memory_order_relaxed); /* latched */
    /* relaxed: the release stores of the install order it before the new words */
    SHW(SHW_ROW);
    atomic_store_explicit(&m->version, v + 1, memory_order_relaxed);
}

/* Record-level install (row_store_written, release stores: see read_committed): the
 * words of the columns the attempt wrote. The row's other words already equal the
 * image's: append built the image from the chain's last entry (a sealed writer's
 * snapshot, or an SER reader's image: a copy of the one before it, or the row itself when
 * it read in place), else from the committed row; every writer before our entry
 * installed its snapshot before our pre-commit wait ended (a re-update after its seal
 * kills us, its abort cascades to us), and every writer after it appended later and
 * waits for our commit. (Partitioned TPC-C, 1 warehouse, 1 thread: rcc-ser 14,000 ->
 * 13,163 instructions per commit against a whole-row install.) */
static inline void install_written(const struct access *a)
{
    row_store_written(a, memory_order_release);
}

static inline void install_end(struct rcc_row *m)
{
    uint64_t v = atomic_load_explicit(&m->version, memory_order_relaxed); /* latched */
    SHW(SHW_ROW);
    atomic_store_explicit(&m->version, v + 1, memory_order_release); /* read_committed */
}

/* The bytes [b0, b1) of a little-endian word, 0 <= b0 < b1 <= 8, as a mask. */
static inline uint64_t byte_mask(uint32_t b0, uint32_t b1)
{
    uint64_t below_b1 = b1 == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * b1)) - 1;
    return below_b1 & ~(((uint64_t)1 << (8 * b0)) - 1);
}
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "rcc: byte_mask assumes little endian");

/* Installs columns `cols` of img into the row, word by word (other columns' bytes of a
 * shared word are kept: they are stable, every installer holds the latch). Columns next
 * to each other in the row (one's bytes end where the next one's begin) go as one byte
 * range. A word the range covers whole is stored as is; an edge word shared with a
 * neighbour is merged under a byte mask. (Partitioned TPC-C, 1 warehouse, 1 thread,
 * callgrind: about 250 instructions per commit fewer than one column at a time with a
 * mask built by memset, 2% of rcc-c-ser's 14,000.) */
static void install_cols(struct row *r, const unsigned char *img, colmask_t cols)
{
    const struct schema *s = &row_table(r)->schema;
    _Atomic uint64_t *dst = (_Atomic uint64_t *)(void *)r->data;
    const uint64_t *src = (const uint64_t *)(const void *)img;
    while (cols) {
        int c = __builtin_ctzll(cols);
        cols &= cols - 1;
        uint32_t lo, hi, next_lo, next_hi;
        col_bytes(s, c, &lo, &hi);
        while (cols >> c & 2) { /* column c + 1 too: the run of adjacent columns */
            col_bytes(s, c + 1, &next_lo, &next_hi);
            if (next_lo != hi)
                break;
            hi = next_hi;
            c++;
            cols &= cols - 1;
        }
        uint32_t first = lo / 8, last = (hi - 1) / 8; /* hi > lo: a value has bytes */
        for (uint32_t w = first; w <= last; w++) {
            uint64_t v = src[w];
            uint32_t b0 = w == first ? lo % 8 : 0, b1 = w == last ? (hi - 1) % 8 + 1 : 8;
            if (b1 - b0 < 8) { /* an edge word: only the range's bytes [b0, b1) */
                uint64_t mask = byte_mask(b0, b1);
                uint64_t cur = atomic_load_explicit(&dst[w], memory_order_relaxed);
                v = (cur & ~mask) | (v & mask);
            }
            atomic_store_explicit(&dst[w], v, memory_order_release); /* read_committed */
        }
    }
}

static inline colmask_t all_cols(const struct row *r)
{
    return schema_all_cols(&row_table(r)->schema);
}

/* The column set of an access: for RCC-C the columns the transaction declared (the read
 * set of txn_read_for_update / an SER read, the written column of a blind write, all
 * for a delete); every column for record-level RCC. */
static inline colmask_t access_cols(const struct txn *t, const struct row *r)
{
    return COLUMNAR ? t->req_cols & all_cols(r) : all_cols(r);
}

/* RCC-C's contract with workloads: every column a transaction writes was declared when
 * it gained write access to the row (txn_read_for_update's columns); a write outside
 * them would escape dependency tracking, so it stops the run. */
static void check_declared(const struct row *r, colmask_t declared, colmask_t used)
{
    if (COLUMNAR && (used & ~declared)) {
        fprintf(stderr, "%s: table %s: column %d written without being declared in "
                        "txn_read_for_update\n",
                cc_alg_name, row_table(r)->name, __builtin_ctzll(used & ~declared));
        exit(1);
    }
}

static inline bool overlap(colmask_t a, colmask_t b) { return !COLUMNAR || (a & b); }

/* ---- attempts: kill, check, dependencies ---- */

/* Kills attempt `victim` unless it is committing or over; true if it is (now) killed. */
static bool kill(uint64_t victim, int why)
{
    struct rcc_thread *v = thr_of(thread_of(victim));
    uint64_t w = atomic_load(&v->word);
    while ((w >> 4) == victim) {
        if ((w >> 2 & 3) != PH_RUNNING)
            return (w >> 2 & 3) == PH_KILLED;
        /* seq_cst: pairs with the victim's loads of its word (killed_reason) */
        SHW(SHW_PEER);
        if (atomic_compare_exchange_weak(&v->word, &w, victim << 4 | PH_KILLED << 2 | why)) {
            wait_wake(thread_of(victim)); /* it may park in a wait it must now leave */
            return true;
        }
    }
    return false;
}

/* AR_COUNT if the attempt is not killed, else why. */
static enum abort_reason killed_reason(const struct txn *t)
{
    const struct rcc_thread *p = t->cc;
    uint64_t w = atomic_load(&p->word); /* seq_cst: pairs with kill */
    if ((w >> 2 & 3) != PH_KILLED)
        return AR_COUNT;
    switch (w & 3) {
    case KR_REUPDATE: return AR_REUPDATE;
    case KR_WOUNDED: return AR_WOUNDED;
    default: return AR_CASCADE;
    }
}

static inline bool is_done(uint64_t id)
{
    /* acquire: pairs with finish's release store: the finished attempt's kills and
     * installs happened before */
    return atomic_load_explicit(&thr_of(thread_of(id))->done, memory_order_acquire) >= id;
}

/* Records that the attempt depends on `id`; true if the edge is new. */
static bool add_dep(struct rcc_thread *p, uint64_t id)
{
    int j = thread_of(id);
    if (p->dep_of[j] >= id)
        return false;
    if (!p->dep_of[j])
        p->deps[p->ndeps++] = j;
    p->dep_of[j] = id;
    return true;
}

/* Kills the overlapping entries after e (their owners read a version e's owner is
 * withdrawing or changing). Latch held. */
static void kill_after(const struct rcc_entry *e, int why)
{
    for (const struct rcc_entry *s = e->next; s; s = s->next)
        if (overlap(s->cols, e->cols))
            kill(s->owner, why);
}

static void unlink_entry(struct rcc_row *m, struct rcc_entry *e)
{
    DLIST_UNLINK(m->head, m->tail, e, next, prev);
}

/* ---- interface ---- */

void cc_init(int n)
{
    nthreads = n;
    thr = mem_zalloc((size_t)n * sizeof(*thr));
    if (RCC_DEADLOCK != RCC_DL_WOUND)
        wf_init(n);
}

void cc_fini(void)
{
    if (RCC_DEADLOCK != RCC_DL_WOUND)
        wf_fini();
    for (int i = 0; i < nthreads; i++)
        mem_free(thr_of(i));
    mem_free(thr);
    thr = NULL;
}

void cc_thread_init(struct txn *t)
{
    /* in this thread's arena, so on its node (storage/mem.h) */
    struct rcc_thread *p = mem_alloc_aligned(CACHE_LINE, sizeof(*p));
    atomic_init(&p->word, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->progress, 0);
    atomic_store_explicit(&thr[t->thread_id], p, memory_order_relaxed); /* see thr_of */
    p->ts = 0;
    p->dep_of = mem_zalloc((size_t)nthreads * sizeof(*p->dep_of));
    p->deps = mem_alloc((size_t)nthreads * sizeof(*p->deps));
    p->ids = mem_alloc((size_t)nthreads * sizeof(*p->ids));
    p->ndeps = 0;
    p->open = -1;
    t->cc = p;
    if (RCC_DEADLOCK != RCC_DL_WOUND)
        wf_thread_init(t->thread_id);
}

void cc_thread_fini(struct txn *t)
{
    struct rcc_thread *p = t->cc;
    mem_free(p->dep_of);
    mem_free(p->deps);
    mem_free(p->ids);
    t->cc = NULL;
}

void cc_row_init(struct row *r)
{
    struct rcc_row *m = rrow(r);
    latch_init(&m->latch);
    atomic_init(&m->version, 0);
    m->head = m->tail = NULL;
}

void cc_begin(struct txn *t, bool retry)
{
    struct rcc_thread *p = t->cc;
    if (RCC_DEADLOCK == RCC_DL_WOUND && !retry)
        p->ts = txn_priority_ts(t);
    for (int i = 0; i < p->ndeps; i++)
        p->dep_of[p->deps[i]] = 0;
    p->ndeps = 0;
    p->open = -1;
    /* seq_cst: killers CAS on this word naming the new id only after they found one of
     * this attempt's entries, i.e. after this store */
    SHW(SHW_OWN);
    atomic_store(&p->word, t->id << 4 | PH_RUNNING << 2);
}

/* Tells append waiters that this thread sealed or finished an entry (see `progress`). */
static inline void bump_progress(struct rcc_thread *p)
{
    /* only this thread writes it: a load and a store, no read-modify-write. release: an
     * append waiter that sees it re-takes the row latch, which orders the rest */
    uint64_t v = atomic_load_explicit(&p->progress, memory_order_relaxed);
    SHW(SHW_OWN);
    atomic_store_explicit(&p->progress, v + 1, memory_order_release);
}

/* Speculative unlock: publishes the image of the attempt's OPEN entry as its snapshot. */
static void seal_open(struct txn *t)
{
    struct rcc_thread *p = t->cc;
    if (p->open < 0)
        return;
    struct access *a = &t->acc[p->open];
    p->open = -1;
    struct rcc_entry *e = ent(a);
    uint32_t size = row_table(a->row)->schema.data_size;
    unsigned char *snap = txn_alloc(t, size);
    memcpy(snap, a->data, size);
    struct rcc_row *m = rrow(a->row);
    latch(m);
    e->snap = snap;
    e->flags &= ~(uint32_t)ENT_OPEN;
    unlatch(m);
    bump_progress(p);
    wait_wake_watchers(); /* append waiters on this entry */
}

/* The workload will not touch a->row again (txn_last_access): the speculative unlock
 * (seal) happens now rather than at the next access, so successors wait less. */
void cc_last_access(struct txn *t, struct access *a)
{
    struct rcc_thread *p = t->cc;
    if (p->open >= 0 && &t->acc[p->open] == a)
        seal_open(t);
}

/* Eager deadlock check (RCC-D) after the new edges p->ids[0..n). */
static bool eager_cycle(struct txn *t, int n)
{
    struct rcc_thread *p = t->cc;
    uint64_t s = txn_timer_start();
    for (int i = 0; i < n; i++)
        wf_add(t->thread_id, t->id, p->ids[i]);
    bool cycle = wf_cycle(t->thread_id, t->id, &t->st);
    txn_deadlock_done(t, s);
    return cycle;
}

/* Leaves e's chain on abort: kills the dependants, unlinks. */
static void leave(struct row *r, struct rcc_entry *e)
{
    struct rcc_row *m = rrow(r);
    latch(m);
#ifndef MUTANT_RCC_NO_CASCADE /* mutant: dependants of an aborted attempt commit */
    kill_after(e, KR_CASCADE);
#endif
    unlink_entry(m, e);
    unlatch(m);
}

/* Ends a wait of append for an open overlapping entry: the write lock of the paper
 * (ww_wait) for a write or delete, plain wait for an SER speculative read. */
static inline void wait_done(struct txn *t, uint64_t start, enum access_type type)
{
    wait_end();
    if (type == ACC_READ)
        txn_wait_done(t, start);
    else
        txn_ww_wait_done(t, start);
}

/* A new chain entry for access a (write, delete, or an SER speculative read). */
static enum rc append(struct txn *t, struct access *a, enum access_type type)
{
    struct rcc_thread *p = t->cc;
    struct row *r = a->row;
    struct rcc_row *m = rrow(r);
    const struct schema *s = &row_table(r)->schema;
    colmask_t cols = access_cols(t, r);
    unsigned char *img = txn_alloc(t, s->data_size);
    struct rcc_entry *e = txn_alloc(t, sizeof(*e));
    struct waiter wt = WAITER(WAIT_BLIND); /* on: the entry's owner, once known */
    uint64_t wait_start = 0;
    for (;;) {
        latch(m);
        bool wait = false;
        uint64_t holder = 0; /* an attempt waited for (the wait record) */
        for (struct rcc_entry *x = m->tail; x; x = x->prev) {
            if (!overlap(x->cols, cols))
                continue;
            if (x->flags & ENT_DELETE) {
                unlatch(m);
                if (wait_start)
                    wait_done(t, wait_start, type);
                return txn_fail(t, AR_CONFLICT); /* being deleted: retry later */
            }
            if (RCC_DEADLOCK == RCC_DL_WOUND && x->ts > p->ts) {
#ifndef MUTANT_RCC_W_NO_WOUND /* mutant: an older attempt waits for a younger unwounded */
                kill(x->owner, KR_WOUNDED); /* a committing one just finishes */
#endif
                wait = true;
                holder = x->owner;
            }
            if (x->flags & ENT_OPEN) {
                wait = true;
                holder = x->owner;
            }
        }
        if (!wait)
            break;
        /* The holder can only seal or finish after it takes this latch, and bumps its
         * progress after that: wait for the bump without the latch, then look again. */
        struct rcc_thread *h = thr_of(thread_of(holder));
        uint64_t seen = atomic_load_explicit(&h->progress, memory_order_relaxed);
        unlatch(m);
        if (!wait_start) {
            wait_start = txn_timer_start();
            wait_note(WAIT_APPEND, r, thread_of(holder));
        }
        wt.on = thread_of(holder); /* it wakes its watchers when it seals or ends */
        wait_note_holder(wt.on);   /* the holder may differ from the last pass's */
        do {
            enum abort_reason why = wait_stopped() ? AR_STOPPED : killed_reason(t);
            if (why != AR_COUNT) { /* nothing of this access is linked yet */
                wait_done(t, wait_start, type);
                return txn_fail(t, why);
            }
            wait_round(&wt);
            /* acquire: pairs with the bump (the latch taken next orders the chain) */
        } while (atomic_load_explicit(&h->progress, memory_order_acquire) == seen);
    }
    /* latched: build the image from the committed row and the chain. A record-level SER
     * read that finds the chain empty reads the row in place, without a copy: no entry
     * is before its own, so no one installs into the row until its attempt is done (a
     * writer appended later depends on it, directly or through the entries between) and
     * the image is stable while the attempt runs; an upgrade to a write copies it. */
    int nnew = 0;
    bool in_place = !COLUMNAR && type == ACC_READ && !m->head;
    if (in_place)
        img = r->data;
    else
        memcpy(img, r->data, s->data_size);
    colmask_t need = cols;
    for (struct rcc_entry *x = m->tail; x && need; x = x->prev) {
        colmask_t ov = COLUMNAR ? x->cols & need : need;
#ifdef MUTANT_RCC_C_SAME_COLS_ONLY /* mutant: copies from, depends on same-set entries only */
        ov = x->cols == cols ? ov : 0;
#endif
        if (!ov)
            continue;
        image_copy_cols(s, img, x->snap, ov);
        if (add_dep(p, x->owner))
            p->ids[nnew++] = x->owner;
        need &= ~ov;
    }
    DLIST_PUSH_BACK(m->head, m->tail, e, next, prev);
    e->owner = t->id;
    e->ts = p->ts;
    e->cols = cols;
    if (type == ACC_READ) {
        e->flags = ENT_READ;
        e->snap = img; /* never written while the access is a read (in place: the row) */
    } else {
        e->flags = ENT_OPEN | (type == ACC_DELETE ? ENT_DELETE : 0);
        e->snap = NULL;
    }
    unlatch(m);
    if (wait_start)
        wait_done(t, wait_start, type);
    a->cc_a = (uintptr_t)e;
    a->cc_flags |= ACC_LINKED;
    a->data = img;
    a->in_place = in_place;
    a->type = (uint8_t)type;
    if (type != ACC_READ)
        p->open = (int)(a - t->acc);
    if (RCC_DEADLOCK == RCC_DL_EAGER && nnew && eager_cycle(t, nnew)) {
        /* a failed new access is dropped by the generic layer: leave the chain now */
        leave(r, e);
        a->cc_flags &= (uint16_t)~ACC_LINKED;
        p->open = -1;
        return txn_fail(t, AR_DEADLOCK);
    }
    return RC_OK;
}

/* Upgrade of a linked entry (SER read -> write/delete, write -> delete): the version
 * its successors read is about to change, so they abort. */
static enum rc upgrade(struct txn *t, struct access *a, enum access_type type)
{
    struct rcc_thread *p = t->cc;
    struct rcc_entry *e = ent(a);
    struct rcc_row *m = rrow(a->row);
    if (type != ACC_DELETE)
        check_declared(a->row, e->cols, access_cols(t, a->row));
    uint32_t size = row_table(a->row)->schema.data_size;
    unsigned char *img = a->in_place ? txn_alloc(t, size) : NULL;
    latch(m);
    if (type == ACC_DELETE) /* a delete covers the whole row */
        e->cols = all_cols(a->row);
    kill_after(e, KR_REUPDATE);
    if (img) { /* an in-place read (append): the writer's private copy of the row, still
                * the committed version (the entry is still first in its chain) */
        memcpy(img, a->row->data, size);
        a->data = img;
        a->in_place = 0;
    }
    if (e->flags & ENT_READ) {
        e->flags = ENT_OPEN;
        e->snap = NULL;
        p->open = (int)(a - t->acc);
    }
    if (type == ACC_DELETE)
        e->flags |= ENT_DELETE;
    unlatch(m);
    a->type = (uint8_t)type;
    return RC_OK;
}

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    struct rcc_thread *p = t->cc;
    if (type == ACC_INSERT) {
        a->type = ACC_INSERT;
        a->data = a->row->data;
        a->in_place = 1;
        return RC_OK;
    }
    if (p->open >= 0 && &t->acc[p->open] != a)
        seal_open(t);
    enum abort_reason why = killed_reason(t);
    if (why != AR_COUNT)
        return txn_fail(t, why);
#ifdef MUTANT_RCC_SER_PLAIN_READS /* mutant: SER reads take no dependency (RR) */
    (void)SER;
    if (type == ACC_READ) {
#else
    if (type == ACC_READ && !SER) { /* plain read of the committed row */
#endif
        uint32_t size = row_table(a->row)->schema.data_size;
        a->data = txn_alloc(t, size);
        read_committed(a->row, a->data, size);
        a->in_place = 0;
        a->type = ACC_READ;
        return RC_OK;
    }
    if (a->cc_flags & ACC_LINKED)
        return upgrade(t, a, type);
    return append(t, a, type);
}

/* Marks the attempt finished (after every entry left its chain). */
static void finish(struct txn *t)
{
    if (RCC_DEADLOCK != RCC_DL_WOUND)
        wf_clear(t->thread_id);
    struct rcc_thread *p = t->cc;
    /* release: pairs with is_done's acquire load */
    SHW(SHW_OWN);
    atomic_store_explicit(&p->done, t->id, memory_order_release);
    bump_progress(p);
}

/* Pre-commit: waits until every predecessor is done; fails if killed meanwhile. */
static enum rc precommit(struct txn *t)
{
    struct rcc_thread *p = t->cc;
    if (RCC_DEADLOCK == RCC_DL_COMMIT && p->ndeps) {
        uint64_t s = txn_timer_start();
        int n = 0;
        for (int i = 0; i < p->ndeps; i++)
            if (!is_done(p->dep_of[p->deps[i]]))
                p->ids[n++] = p->dep_of[p->deps[i]];
        bool cycle = false;
        if (n) {
            wf_set(t->thread_id, t->id, p->ids, n);
            cycle = wf_cycle(t->thread_id, t->id, &t->st);
        }
        txn_deadlock_done(t, s);
        if (cycle)
            return txn_fail(t, AR_DEADLOCK);
    }
    uint64_t s = txn_timer_start();
    bool stopped = false;
    for (int i = 0; i < p->ndeps && !stopped; i++) {
        uint64_t id = p->dep_of[p->deps[i]];
        struct waiter wt = WAITER(thread_of(id)); /* it wakes its watchers at its end */
#ifdef MUTANT_RCC_NO_PRECOMMIT_WAIT /* mutant: commit before the predecessors */
        break;
#endif
        while (!is_done(id)) {
            if (killed_reason(t) != AR_COUNT || (stopped = wait_stopped()))
                break;
            if (!wt.rounds)
                wait_note(WAIT_PRECOMMIT, NULL, thread_of(id));
            wait_round(&wt);
        }
        if (wt.rounds)
            wait_end();
    }
    txn_precommit_done(t, s);
    /* the run is over: abort before COMMITTING, as a deadlock victim does; cc_abort
     * cascades to the successors */
    if (stopped)
        return txn_fail(t, AR_STOPPED);
    /* serializable: every predecessor has finished (is_done, acquire), its inserts
     * published; a key we missed that one of them inserted is found now (cc/txn.h).
     * Killed, we left the wait early: the CAS below fails with the kill's reason. */
#ifndef MUTANT_RCC_NO_MISSED_KEY_CHECK /* mutant: no look-up of the misses after the wait */
    if (RCC_ISO == RCC_SER && killed_reason(t) == AR_COUNT && !txn_missed_still_absent(t))
        return txn_fail(t, AR_PHANTOM);
#endif
    uint64_t w = t->id << 4 | PH_RUNNING << 2;
    /* seq_cst: decides against a concurrent kill's CAS on the same word */
    SHW(SHW_OWN);
    if (!atomic_compare_exchange_strong(&p->word, &w, t->id << 4 | PH_COMMITTING << 2))
        return txn_fail(t, killed_reason(t));
    return RC_OK;
}

enum rc cc_commit(struct txn *t)
{
    seal_open(t);
    if (precommit(t) != RC_OK)
        return RC_ABORT;
    txn_net_decision(t); /* network model: successors keep waiting till the commit arrives */
    txn_publish(t); /* every entry still linked: successors still depend on us */
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (!(a->cc_flags & ACC_LINKED))
            continue;
        struct rcc_entry *e = ent(a);
        struct row *r = a->row;
        struct rcc_row *m = rrow(r);
        uint32_t size = row_table(r)->schema.data_size;
        check_declared(r, e->cols, a->wmask);
        latch(m);
        if (a->type == ACC_WRITE && a->wmask) {
            if (e->next && memcmp(e->snap, a->data, size) != 0)
                kill_after(e, KR_REUPDATE); /* written after successors read it */
            install_begin(m);
            if (COLUMNAR)
                install_cols(r, a->data, a->wmask);
            else
                install_written(a);
            install_end(m);
        }
        unlink_entry(m, e);
        unlatch(m);
        a->cc_flags &= (uint16_t)~ACC_LINKED;
    }
    finish(t);
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    struct rcc_thread *p = t->cc;
    p->open = -1;
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & ACC_LINKED) {
            leave(a->row, ent(a));
            a->cc_flags &= (uint16_t)~ACC_LINKED;
        }
    }
    finish(t);
}
