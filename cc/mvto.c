/* MVTO: multi-version timestamp ordering (Reed 1978; Bernstein & Goodman 1983; as in
 * Wu et al., "An Empirical Evaluation of In-Memory MVCC", VLDB'17, with one pending
 * version per row).
 *
 * Each attempt takes a timestamp ts at begin (txn_priority_ts: unique, increasing per
 * thread, no shared write; a retry takes a new one, since a late operation would only
 * be late again). The serialization order is the timestamp order: a read at ts sees the
 * newest version with wts <= ts and raises that version's rts to ts; a write at ts
 * creates the version wts = ts, allowed only if no transaction with a later timestamp
 * has read the version it follows (that version's rts <= ts). Reads never abort.
 *
 * Row state (row->cc, struct mvto_row, all fields under the row's latch):
 *   latch     spin latch (acquire CAS / release store), with back-off (storage/wait.h)
 *   wts, rts  the newest committed version, whose image is row->data
 *   pending   ts of the one writer whose version is not committed yet (0: none); its
 *             image is in the writer's private copy (a->data), which nobody else reads
 *   chain     older committed versions, newest first: nodes (wts, rts, image copy)
 *
 * Invariants:
 *   I1  The committed versions of a row (row->data, then the chain) have strictly
 *       decreasing wts; row->data's wts is the greatest.
 *   I2  A version's rts >= its wts, and no transaction with ts > rts has read it.
 *   I3  At most one pending version per row; the writer owning it holds it from its
 *       write access until the end of its attempt (a->cc_flags & MV_PENDING).
 *   I4  A writer at ts holds the pending marker only if the version visible at ts (the
 *       one it read and follows) had rts <= ts when it took the marker, and it raised
 *       that rts to ts: no version can later be created between the two.
 *   I5  A read at ts returns the version visible at ts only if no pending version would
 *       be visible at ts instead (it waits for that writer otherwise), so every version
 *       it can return is final for ts.
 *   I6  Row data, the chain and its images are read and written under the latch only;
 *       every reader copies the image it returns into its arena (a->data), so a version
 *       freed or an image overwritten later is never seen by anyone.
 *
 * Memory orders: the latch's acquire CAS and release store order everything in the
 * state above; no field of it is read outside the latch. The per-thread timestamp slots
 * of the garbage collector are relaxed (see GC: their precision is not what makes GC
 * safe). A reader's check of row->deleted (cc/txn.c) is ordered after the deleter's
 * publish by the latch: a deleter publishes before it installs and clears its marker.
 *
 * Access (cc_access):
 *   READ    latch; v = the version visible at ts; if the pending writer p (not us) has
 *           wts(v) < p < ts, unlatch and wait for p's thread, then look again (I5);
 *           else copy v, rts(v) = max(rts(v), ts), unlatch.
 *   WRITE, DELETE (new access)   latch; v as above; rts(v) > ts -> abort; another
 *           writer's pending marker: older -> unlatch, wait, look again; younger ->
 *           abort; else copy v (the image the workload reads and then writes), raise
 *           rts(v) to ts, set pending = ts.
 *   READ -> WRITE upgrade   as WRITE, keeping the copy made by the read. The version
 *           visible at ts is still the one the read copied: the read raised its rts to
 *           ts, so no writer with a timestamp between its wts and ts can follow it (I4),
 *           and one pending then would have made the read wait (I5). Pruning could only
 *           remove it in the watermark race described under GC; we check wts again and
 *           abort if it changed.
 *   INSERT  private in-place row, as the other optimistic algorithms.
 * Mid-chain writes: a writer whose ts is older than the newest committed version writes
 * when the version visible at ts allows it (rts <= ts), and its version goes into the
 * chain in wts order at commit (I1); no abort for that case. Here it does not occur:
 * every write reads the version it follows and raises its rts to its own ts (I4), so an
 * old version's rts is at least the next version's wts, and a write older than the
 * newest version finds rts > ts and aborts. The chain insert stays for blind writes
 * (and for the mutant that skips the rts check).
 *
 * Commit (no validation, cannot fail): txn_net_decision; inserted rows get wts = rts =
 * ts while private; txn_publish (index inserts, deleted flags) while our pending markers
 * give us the written rows exclusively (a reader at a later ts waits for our marker, so
 * it sees the deleted flag once it reads); then per written row, under its latch: if
 * ts > wts (our version is the newest, and the version it follows is row->data, I4)
 * push row->data as a chain node and install the written columns (row_install_written),
 * else insert a node with our full image in wts order; clear the marker; prune. A delete
 * frees the whole chain instead: every later access of the row aborts (AR_DELETED). The
 * waiters of our markers wake at wait_txn_end (cc/txn.c).
 *
 * Abort paths: a write whose visible version was read later (rts > ts), a write that
 * meets a younger writer's pending version (AR_DIE; not reached in practice: that writer
 * raised the version's rts to its own ts, so the rts check aborts first), an access for
 * which no version is visible at ts (the row was inserted after ts, or pruned in the
 * watermark race): AR_TS_ORDER; a wait given up at the end of the run: AR_STOPPED; the
 * generic AR_DELETED. cc_abort clears the markers of the attempt (MV_PENDING), nothing
 * else: rts raises stay (they only cause extra aborts of older writers).
 *
 * Deadlock freedom: a transaction waits only for a pending writer with a smaller
 * timestamp (a reader for an older pending version it must see; a writer for an older
 * pending writer); waits-for edges go from larger to smaller timestamps, so there is no
 * cycle. The latch is never held while waiting, and only one latch at a time.
 *
 * Garbage collection: each thread publishes its running attempt's ts (UINT64_MAX when
 * idle) in its own padded slot. Every MVTO_GC_PERIOD commits a thread recomputes its own
 * watermark wm = min over the slots (its private copy: no shared write). Whoever holds a
 * row's latch prunes the chain: it keeps the newest version with wts <= wm and everything
 * newer, frees the rest (readers with ts >= wm never need older ones). Besides, each
 * thread queues (row, ts) for every old version its commits make, in ts order, and
 * prunes those rows when its watermark passes ts (gc_drain, right after recomputing it):
 * a row written once and never read again would otherwise keep its old version forever
 * (TPC-C's delivered ORDER-LINE rows). A transaction
 * that took its ts just before another thread read its slot may be missed (its ts is
 * taken before it is published): then a version it needs may be pruned. That is safe:
 * pruning drops only the oldest versions, so such a reader finds no version visible at
 * its ts and aborts (AR_TS_ORDER); it never sees a wrong one. Memory: a row keeps only
 * versions newer than some thread's recent watermark plus one, and every queued row is
 * pruned once the watermark passes it, so the live old versions are about the writes
 * committed since the oldest running attempt began plus MVTO_GC_PERIOD commits per
 * thread (the result's cc_state gives the count left at the end of a run).
 */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc/txn.h"
#include "storage/shared_writes.h"
#include "storage/wait.h"

#ifndef MVTO_GC_PERIOD
#define MVTO_GC_PERIOD 64 /* commits between a thread's watermark recomputations */
#endif
#if MVTO_GC_PERIOD < 1
#error "MVTO_GC_PERIOD must be at least 1"
#endif

const char cc_alg_name[] = "MVTO";
const bool cc_alg_serializable = true;
/* Network rounds (cc/netmodel.h): reads and writes execute at the servers (reads raise
 * rts, writes take the pending marker, as 2PL takes locks), and an attempt whose
 * accesses all executed can no longer fail (no validation, nobody wounds it), so the
 * commit message follows without a prepare: 2 rounds, 1 RTT, as NO_WAIT. */
const struct cc_net_rounds cc_net_rounds = {.prepare = false, .decides_in_commit = true};
/* The storage model (storage/storage_model.h): the versions' timestamps are metadata kept
 * with the row on storage (a read raising rts dirties them). */
const bool cc_alg_ts_on_storage = true;

/* MVTO's counters in the result (cc.h), per committed transaction. */
enum { MV_CREATED, MV_FREED, MV_WAITS };
const char *const cc_alg_counter_names[CC_ALG_COUNTERS] = {
    [MV_CREATED] = "versions_created", /* old-version nodes made (by any attempt) */
    [MV_FREED] = "versions_freed",     /* nodes reclaimed (pruned, or a delete's chain) */
    [MV_WAITS] = "pending_waits",      /* waits for an older pending version */
};

#define MV_PENDING 1 /* a->cc_flags: this attempt holds the row's pending marker */
#define TS_THREAD_MASK (((uint64_t)1 << PRIO_THREAD_BITS) - 1)

struct mvto_ver {
    struct mvto_ver *next; /* older */
    uint64_t wts, rts;
    alignas(16) unsigned char data[];
};

struct mvto_row {
    _Atomic uint32_t latch;
    uint32_t pad;
    uint64_t wts, rts;
    _Atomic uint64_t pending; /* written under the latch; waiters poll it without */
    struct mvto_ver *chain;
};
_Static_assert(sizeof(struct mvto_row) <= CC_META_SIZE, "mvto: CC_META_SIZE too small");

/* A row this thread made an old version of, at commit timestamp ts (the GC queue). */
struct mvto_gc {
    struct row *row;
    uint64_t ts;
};

/* Per-thread state (t->cc). */
struct mvto_thread {
    uint64_t wm;              /* this thread's watermark (0: none yet, nothing pruned) */
    uint64_t commits;         /* since the thread started */
    int64_t live, live_bytes; /* nodes made minus nodes freed by this thread */
    struct mvto_gc *gc;       /* ring of rows to prune once wm passes their ts, in ts order */
    uint32_t gc_head, gc_len, gc_cap; /* gc_cap: a power of two */
};

/* The running attempt's ts per thread, UINT64_MAX when idle; written by its thread. */
struct mvto_slot {
    alignas(CACHE_LINE) _Atomic uint64_t ts;
};
static struct mvto_slot slots[MAX_THREADS];
static int nthreads;
/* Totals of the threads that ended (cc_thread_fini), reported by cc_fini. */
static _Atomic int64_t live_total, live_bytes_total;

static inline struct mvto_row *mv_of(struct row *r)
{
    return (struct mvto_row *)(void *)r->cc;
}

static void latch(struct mvto_row *m)
{
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        uint32_t z = 0;
        SHW(SHW_ROW); /* the row's latch and state (one per access and per install) */
        /* acquire: the latch protects the row's state, chain and image */
        if (atomic_compare_exchange_weak_explicit(&m->latch, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        /* relaxed: only a hint before the next try */
        while (atomic_load_explicit(&m->latch, memory_order_relaxed))
            wait_round(&wt);
    }
}

static void unlatch(struct mvto_row *m)
{
    /* release: pairs with the acquire CAS of the next holder */
    atomic_store_explicit(&m->latch, 0, memory_order_release);
}

static struct mvto_ver *node_new(struct txn *t, uint32_t size, uint64_t wts, uint64_t rts,
                                 const unsigned char *img)
{
    struct mvto_thread *p = t->cc;
    struct mvto_ver *n = malloc(sizeof(*n) + size);
    if (!n) {
        fprintf(stderr, "mvto: out of memory for a version\n");
        exit(1);
    }
    n->wts = wts;
    n->rts = rts;
    memcpy(n->data, img, size);
    p->live++;
    p->live_bytes += (int64_t)(sizeof(*n) + size);
    t->st.alg[MV_CREATED]++;
    return n;
}

static void free_from(struct txn *t, struct mvto_ver *n, uint32_t size)
{
    struct mvto_thread *p = t->cc;
    while (n) {
        struct mvto_ver *next = n->next;
        free(n);
        p->live--;
        p->live_bytes -= (int64_t)(sizeof(*n) + size);
        t->st.alg[MV_FREED]++;
        n = next;
    }
}

/* GC under the latch: keeps the newest version with wts <= wm and the newer ones. */
static void prune(struct txn *t, struct mvto_row *m, uint32_t size)
{
    uint64_t wm = ((struct mvto_thread *)t->cc)->wm;
    if (!m->chain)
        return;
    if (m->wts <= wm) {
        free_from(t, m->chain, size);
        m->chain = NULL;
        return;
    }
    for (struct mvto_ver *n = m->chain; n; n = n->next)
        if (n->wts <= wm) {
            free_from(t, n->next, size);
            n->next = NULL;
            return;
        }
}

/* The committed version visible at ts, under the latch: its image, and its wts and rts
 * fields (*rts points into the row or node). NULL: none (inserted after ts, or pruned). */
static const unsigned char *visible(struct row *r, uint64_t ts, uint64_t *wts, uint64_t **rts)
{
    struct mvto_row *m = mv_of(r);
    if (m->wts <= ts) {
        *wts = m->wts;
        *rts = &m->rts;
        return r->data;
    }
    for (struct mvto_ver *n = m->chain; n; n = n->next)
        if (n->wts <= ts) {
            *wts = n->wts;
            *rts = &n->rts;
            return n->data;
        }
    return NULL;
}

/* Remembers row r, given an old version by our commit at ts, for gc_drain. */
static void gc_push(struct mvto_thread *p, struct row *r, uint64_t ts)
{
    if (p->gc_len == p->gc_cap) { /* grow, unrolling the ring */
        uint32_t cap = p->gc_cap ? 2 * p->gc_cap : 256;
        struct mvto_gc *q = malloc(cap * sizeof(*q));
        if (!q) {
            fprintf(stderr, "mvto: out of memory for the GC queue\n");
            exit(1);
        }
        for (uint32_t i = 0; i < p->gc_len; i++)
            q[i] = p->gc[(p->gc_head + i) & (p->gc_cap - 1)];
        free(p->gc);
        p->gc = q;
        p->gc_head = 0;
        p->gc_cap = cap;
    }
    p->gc[(p->gc_head + p->gc_len++) & (p->gc_cap - 1)] = (struct mvto_gc){r, ts};
}

/* Prunes the queued rows whose version ts the watermark has passed: the old version our
 * commit made there is then no longer needed (unless the row was pruned already). So a
 * row written once and never accessed again does not keep its old version forever. */
static void gc_drain(struct txn *t)
{
    struct mvto_thread *p = t->cc;
    while (p->gc_len && p->gc[p->gc_head].ts <= p->wm) {
        struct row *r = p->gc[p->gc_head].row;
        p->gc_head = (p->gc_head + 1) & (p->gc_cap - 1);
        p->gc_len--;
        struct mvto_row *m = mv_of(r);
        latch(m);
        prune(t, m, r->table->schema.data_size);
        unlatch(m);
    }
}

void cc_init(int n)
{
    nthreads = n;
    for (int i = 0; i < MAX_THREADS; i++)
        atomic_init(&slots[i].ts, UINT64_MAX);
    atomic_init(&live_total, 0);
    atomic_init(&live_bytes_total, 0);
}

void cc_fini(void) {}

/* The result's cc_state: the old versions left at the end of the run. */
void cc_report_json(FILE *f)
{
    /* relaxed: the threads that added to them were joined */
    fprintf(f, "{\"old_versions_live\":%lld,\"old_version_bytes_live\":%lld}",
            (long long)atomic_load_explicit(&live_total, memory_order_relaxed),
            (long long)atomic_load_explicit(&live_bytes_total, memory_order_relaxed));
}

void cc_thread_init(struct txn *t)
{
    struct mvto_thread *p = calloc(1, sizeof(*p));
    if (!p)
        abort();
    t->cc = p;
}

void cc_thread_fini(struct txn *t)
{
    struct mvto_thread *p = t->cc;
    atomic_fetch_add_explicit(&live_total, p->live, memory_order_relaxed);
    atomic_fetch_add_explicit(&live_bytes_total, p->live_bytes, memory_order_relaxed);
    free(p->gc);
    free(p);
    t->cc = NULL;
}

void cc_row_init(struct row *r)
{
    struct mvto_row *m = mv_of(r);
    atomic_init(&m->latch, 0);
    m->pad = 0;
    m->wts = m->rts = 0;
    atomic_init(&m->pending, 0);
    m->chain = NULL; /* a row reused after an aborted insert never had a chain */
}

void cc_begin(struct txn *t, bool retry)
{
    (void)retry; /* a retry takes a new timestamp: the old one would be late again */
    t->ts = txn_priority_ts(t);
    /* relaxed: the GC's reading of the slots need not be exact (see GC at the top) */
    SHW(SHW_OWN);
    atomic_store_explicit(&slots[t->thread_id].ts, t->ts, memory_order_relaxed);
}

/* The attempt ended: its slot says idle; every MVTO_GC_PERIOD commits, a new watermark. */
static void attempt_end(struct txn *t, bool committed)
{
    struct mvto_thread *p = t->cc;
    if (committed && p->commits++ % MVTO_GC_PERIOD == 0) {
        uint64_t wm = UINT64_MAX;
        for (int i = 0; i < nthreads && i < MAX_THREADS; i++) {
            /* relaxed: a stale slot is safe (see GC) */
            uint64_t s = atomic_load_explicit(&slots[i].ts, memory_order_relaxed);
            if (s < wm)
                wm = s;
        }
        if (t->ts < wm) /* our own attempt (a test's context may have no slot of its own) */
            wm = t->ts;
        p->wm = wm;
        gc_drain(t);
    }
    SHW(SHW_OWN);
    atomic_store_explicit(&slots[t->thread_id].ts, UINT64_MAX, memory_order_relaxed);
}

/* Waits (latch released) until r's pending version p is committed or aborted; false:
 * the run is over. */
static bool wait_pending(struct txn *t, struct row *r, uint64_t p, uint64_t *start)
{
    int holder = (int)(p & TS_THREAD_MASK);
    if (!*start) {
        *start = txn_timer_start() | 1;
        wait_note(WAIT_PENDING, r, holder);
        t->st.alg[MV_WAITS]++;
    }
    struct waiter wt = WAITER(holder); /* it wakes its watchers when its attempt ends */
    struct mvto_row *m = mv_of(r);
    /* relaxed: a hint only; the caller looks again under the latch */
    while (atomic_load_explicit(&m->pending, memory_order_relaxed) == p) {
        if (wait_stopped())
            return false;
        wait_round(&wt);
    }
    return true;
}

static void wait_finish(struct txn *t, uint64_t start, bool write)
{
    if (!start)
        return;
    wait_end();
    if (write)
        txn_ww_wait_done(t, start);
    else
        txn_wait_done(t, start);
}

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (type == ACC_INSERT || a->type == ACC_INSERT) /* private in place until commit */
        return occ_access_private(a, type), RC_OK;
    struct row *r = a->row;
    struct mvto_row *m = mv_of(r);
    uint32_t size = r->table->schema.data_size;
    uint64_t ts = t->ts, start = 0;
    bool write = type != ACC_READ;
    /* READ -> WRITE / DELETE, or WRITE -> DELETE */
    bool upgrade = a->type != ACC_NONE;
    if (upgrade && (a->cc_flags & MV_PENDING)) { /* WRITE -> DELETE: the marker is ours */
        a->type = (uint8_t)type;
        return RC_OK;
    }
    enum abort_reason why = AR_COUNT;
    bool raised = false; /* this access raised a version's rts */
    for (;;) {
        latch(m);
        prune(t, m, size);
        uint64_t wts, *rts;
        const unsigned char *img = visible(r, ts, &wts, &rts);
        if (!img || (upgrade && wts != a->cc_a)) {
            why = AR_TS_ORDER;
            break;
        }
        /* relaxed: under the latch, which orders it */
        uint64_t p = atomic_load_explicit(&m->pending, memory_order_relaxed);
        if (!write) {
            if (p && wts < p && p < ts) { /* I5: an older pending version we must see */
                unlatch(m);
                if (!wait_pending(t, r, p, &start)) {
                    why = AR_STOPPED;
                    break;
                }
                continue;
            }
            a->data = txn_alloc(t, size);
            memcpy(a->data, img, size);
            if (*rts < ts) {
                *rts = ts;
                raised = true;
            }
            a->cc_a = wts;
            break;
        }
#ifndef MUTANT_MVTO_NO_RTS_CHECK /* mutant: a write ignores a later read of its version */
        /* a later reader read the version this write would follow */
        if (*rts > ts) {
            why = AR_TS_ORDER;
            break;
        }
#endif
        if (p && p < ts) { /* an older writer: wait for it (I3) */
            unlatch(m);
            if (!wait_pending(t, r, p, &start)) {
                why = AR_STOPPED;
                break;
            }
            continue;
        }
        if (p) { /* a younger writer: die */
            why = AR_DIE;
            break;
        }
        if (!upgrade) {
            a->data = txn_alloc(t, size);
            memcpy(a->data, img, size);
            a->cc_a = wts;
        }
        *rts = ts; /* I4: the write reads the version it follows (rts <= ts here) */
        raised = true;
        /* relaxed: under the latch; waiters only poll it */
        atomic_store_explicit(&m->pending, ts, memory_order_relaxed);
        a->cc_flags |= MV_PENDING;
        break;
    }
    if (why == AR_COUNT || why == AR_TS_ORDER || why == AR_DIE)
        unlatch(m);
    if (raised)
        txn_storage_meta_dirty(t, r); /* after the latch: it may stall for a write */
    wait_finish(t, start, write);
    if (why != AR_COUNT)
        return txn_fail(t, why);
    a->in_place = 0;
    a->type = (uint8_t)type;
    return RC_OK;
}

/* Inserts version n into m's chain in wts order (n's wts < the row's wts). */
static void insert_in_chain(struct mvto_row *m, struct mvto_ver *n)
{
    struct mvto_ver **at = &m->chain;
    while (*at && (*at)->wts > n->wts)
        at = &(*at)->next;
    n->next = *at;
    *at = n;
}

enum rc cc_commit(struct txn *t)
{
    uint64_t ts = t->ts;
    txn_net_decision(t); /* network model: markers held till the commit arrives */
    for (uint32_t i = 0; t->npublish && i < t->nacc; i++)
        if (t->acc[i].type == ACC_INSERT) { /* private: no latch needed */
            struct mvto_row *m = mv_of(t->acc[i].row);
            SHW(SHW_ROW);
            m->wts = m->rts = ts;
        }
    /* our pending markers hold the written rows exclusively: nobody reads past them */
    txn_publish(t);
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (!(a->cc_flags & MV_PENDING))
            continue;
        struct row *r = a->row;
        struct mvto_row *m = mv_of(r);
        uint32_t size = r->table->schema.data_size;
        latch(m);
        if (a->type == ACC_DELETE) { /* nobody reads a deleted row again (AR_DELETED) */
            free_from(t, m->chain, size);
            m->chain = NULL;
            if (ts > m->wts)
                m->wts = m->rts = ts;
        } else if (ts > m->wts) { /* the newest: it follows row->data (I4) */
            struct mvto_ver *n = node_new(t, size, m->wts, m->rts, r->data);
            n->next = m->chain;
            m->chain = n;
            row_install_written(a);
            m->wts = m->rts = ts;
            gc_push(t->cc, r, ts);
        } else { /* older than the newest: into the chain in wts order (I1) */
            insert_in_chain(m, node_new(t, size, ts, ts, a->data));
        }
        /* relaxed: under the latch; a waiter polling it then takes the latch */
        atomic_store_explicit(&m->pending, 0, memory_order_relaxed);
        a->cc_flags &= (uint16_t)~MV_PENDING;
        prune(t, m, size);
        unlatch(m);
    }
    attempt_end(t, true);
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & MV_PENDING) {
            struct mvto_row *m = mv_of(a->row);
            latch(m);
            /* relaxed: under the latch; a waiter polling it then takes the latch */
            atomic_store_explicit(&m->pending, 0, memory_order_relaxed);
            unlatch(m);
            a->cc_flags &= (uint16_t)~MV_PENDING;
        }
    }
    attempt_end(t, false);
}
