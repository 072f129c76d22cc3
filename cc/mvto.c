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
 * Key state, over a timestamp store (cc/ts_store.h): the key's entry words and the chain
 * of older versions in the row's slot are described above APPROX and struct mvto_ver
 * below.
 *
 * Invariants:
 *   I1  The committed versions of a row (row->data, then the chain) have strictly
 *       decreasing wts; row->data's wts is the greatest. While a writer writes
 *       row->data in place (IN_PLACE), the head's committed version is the chain's
 *       first node instead, the writer's before-image, with the head's wts.
 *   I2  A version's rts >= its wts, and no transaction with ts > rts has read it.
 *   I3  At most one pending version per row; the writer owning it holds it from its
 *       write access until the end of its attempt (a->cc_flags & MV_PENDING).
 *   I4  A writer at ts holds the pending marker only if the version visible at ts (the
 *       one it read and follows) had rts <= ts when it took the marker, and it raised
 *       that rts to ts: no version can later be created between the two.
 *   I5  A read at ts returns the version visible at ts only if no pending version would
 *       be visible at ts instead (it waits for that writer otherwise), so every version
 *       it can return is final for ts.
 *   I6  Row data, the chain and its images are read and written under the latch only,
 *       but for row->data while IN_PLACE: the pending writer then writes it without the
 *       latch, and nobody else reads or writes it (readers older than the writer read
 *       the before-image node, younger ones wait, I5; other writers abort or wait).
 *       IN_PLACE is set and cleared under the latch, so the latch orders every other
 *       access of row->data before or after the writer's. Every reader copies the
 *       image it returns into its arena (a->data), so a version freed or an image
 *       overwritten later is never seen by anyone.
 *   I7  (approximate head; sketch only) An entry unfolded from the sketch with wts > 0
 *       has APPROX set: its wts is an upper bound of the head's true wts (S1), and its rts
 *       of the true rts. Every chain version is older than the TRUE head wts, which may
 *       be <= ts < bound: the head may be the version visible at ts, and the chain's
 *       newest version with wts <= ts the wrong one. So an access at ts < bound on an
 *       APPROX head finds no visible version and aborts (AR_TS_ORDER, in visible()),
 *       never walking the chain; at ts >= bound the head is visible (true wts <= bound <=
 *       ts) and the access goes on as usual, its checks against the bounds. A commit of a
 *       new head makes the entry exact (APPROX cleared); the old head's node (the
 *       writer's before-image) carries its bound as wts, and the versions below it are
 *       freed (visible to no one: an access before the bound aborted, and one at or after
 *       it reads the old head).
 *       A delete also clears it. The row store unfolds only new rows, at (0, 0): never
 *       APPROX, so mvto behaves as before.
 *
 * Serializability with the sketch (seed 002's claim, for MVTO): active keys are exact
 * (S2), so while anyone holds a key MVTO runs on its true stamps. An inactive key's
 * stamps come back over-approximated (S1): a larger rts only makes more writers abort
 * (the write check rts > ts), never lets one pass; a larger wts is an APPROX head, where
 * I7 either aborts (ts < bound: an abort the exact store might not make) or reads the
 * head, which is the version visible at ts with the true stamps too; raising rts to ts
 * there is what the exact protocol would do. So every access that succeeds makes the
 * same choice (version read or followed) and leaves stamps >= the exact protocol's, and
 * the old head's node's bound wts only hides older versions (I7). The executions that
 * remain are executions of exact MVTO with extra aborts, hence serializable. The aborts
 * the exact stamps would have avoided count as sketch_false_aborts (ts_exact and the
 * rule again on the exact stamps, count_sketch_abort).
 *
 * Memory orders: the latch's acquire CAS and release store order everything in the
 * key state; no field of it is read outside the latch but the pending marker, which a
 * waiter polls (relaxed, a hint) on the entry it holds. The one access of row data
 * outside the latch is the pending writer's own, reads and writes, while IN_PLACE (I6). The per-thread timestamp slots
 * of the garbage collector are relaxed (see GC: their precision is not what makes GC
 * safe). A reader's check of row->deleted (cc/txn.c) is ordered after the deleter's
 * publish by the latch: a deleter publishes before it clears its marker.
 *
 * Access (cc_access):
 *   READ    latch; v = the version visible at ts; if the pending writer p (not us) has
 *           wts(v) < p < ts, unlatch and wait for p's thread, then look again (I5);
 *           else copy v, rts(v) = max(rts(v), ts), unlatch.
 *   WRITE, DELETE (new access)   latch; v as above; rts(v) > ts -> abort; another
 *           writer's pending marker: older -> unlatch, wait, look again; younger ->
 *           abort; else raise rts(v) to ts, set pending = ts, and: a write of the head
 *           (v is row->data) copies v into a new node stamped (wts(v), ts), the chain's
 *           first, sets IN_PLACE and writes row->data in place (a->data; the node is
 *           a->undo, the before-image, so the generic layer takes none); a delete, or a
 *           write of an older version (the mutant below), copies v into a->data.
 *   READ -> WRITE upgrade   as WRITE, its image moving from the read's copy to row->data
 *           (cc.h: a later write may move the image). The version
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
 * newest version finds rts > ts and aborts; blind writes too (they read the version
 * they follow all the same). The chain insert stays for the mutant that skips the rts
 * check.
 *
 * Commit (no validation, cannot fail): txn_net_decision; inserted rows get wts = rts =
 * ts while private; txn_publish (index inserts, deleted flags) while our pending markers
 * give us the written rows exclusively (a reader at a later ts waits for our marker, so
 * it sees the deleted flag once it reads); then per written row, under its latch: a row
 * written in place (ts > wts: it followed the head, I4) already holds our version, and
 * its before-image node, stamped at the write, is the old head's chain node: the entry
 * takes (ts, ts), IN_PLACE is cleared; a version that followed a chain node goes into
 * the chain in wts order (a copy of our image); clear the marker; prune. A delete frees
 * the whole chain instead: every later access of the row aborts (AR_DELETED). The
 * waiters of our markers wake at wait_txn_end (cc/txn.c).
 *
 * Abort paths: a write whose visible version was read later (rts > ts), a write that
 * meets a younger writer's pending version (AR_DIE; not reached in practice: that writer
 * raised the version's rts to its own ts, so the rts check aborts first), an access for
 * which no version is visible at ts (the row was inserted after ts, or pruned in the
 * watermark race): AR_TS_ORDER; a wait given up at the end of the run: AR_STOPPED; the
 * generic AR_DELETED. cc_abort clears the markers of the attempt (MV_PENDING); a row
 * written in place first gets its before-image back (txn_undo_in_place: a->undo is the
 * node's image), while IN_PLACE still gives the writer row->data (I6), then drops the
 * node under the latch. Nothing else: rts raises stay (they only cause extra
 * aborts of older writers).
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
 * thread queues (row, ts) for every row its commit at ts gives an old version, and
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
 * thread (the result's cc_state gives the count left at the end of a run). The prune
 * rule reads the head's wts: an APPROX head's bound is >= the true wts, so `head wts <=
 * wm` (free the whole chain) only holds where it holds for the true wts; it keeps more
 * versions, never fewer (and those under an APPROX head are unreachable anyway, I7).
 * gc_drain acquires the entry of each queued row (free with the row store).
 *
 * Lock order: one entry latch (TS_LATCH) at a time; no wait while holding one
 * (wait_pending polls unlatched). Under the latch the allocator may run (node_new's
 * malloc at a write access, free_from's free when pruning, deleting or aborting, where
 * the thread's spare nodes run out or overflow; gc_push growing the thread's own GC
 * queue): its locks are its
 * own, and nothing of ours is taken inside it. With the sketch, the active table's
 * bucket lock (cc/ts_sketch.c) is taken only while no entry latch is held, never
 * together with one: ts_acquire at an access's first touch, ts_release in
 * ts_access_end after the markers are cleared (for a dead key only: a live key's
 * release is a decrement without the lock), and gc_drain acquires a queued row's
 * entry, then latches, prunes, unlatches and releases it. The GC's slots are per-thread
 * atomics and its queue is the thread's own: no latch. Pending markers are held across
 * waits like locks, but waits go only to older writers (Deadlock freedom, above).
 */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc/ts_store.h"
#include "cc/txn.h"
#include "storage/mem.h"
#include "storage/mem_cache.h"
#include "storage/shared_writes.h"
#include "storage/wait.h"

#ifndef MVTO_GC_PERIOD
#define MVTO_GC_PERIOD 64 /* commits between a thread's watermark recomputations */
#endif
#define GC_PREFETCH_AHEAD 8 /* queued rows whose metadata gc_drain requests ahead */
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
/* The storage model (storage/storage_model.h): with the row store the versions'
 * timestamps are metadata kept with the row on storage (a read raising rts dirties
 * them); the sketch keeps the newest version's in memory. */
const bool cc_alg_ts_on_storage = !TS_STORE_SKETCH;
/* With the row store a read latches the entry in the row's slot and raises its rts
 * (txn_prefetch: the line comes exclusive); the sketch keeps the entry off the row. */
const bool cc_alg_reads_write_meta = !TS_STORE_SKETCH;
/* A read copies its version's whole image, a write makes a before-image (I6): a prefetch
 * requests every line (txn_prefetch). */
const bool cc_alg_copies_rows = true;

/* MVTO's counters in the result (cc.h), per committed transaction, after the store's. */
enum { MV_CREATED = TS_NCTRS, MV_FREED, MV_WAITS };
_Static_assert(MV_WAITS < CC_ALG_COUNTERS, "mvto: too many counters");
const char *const cc_alg_counter_names[CC_ALG_COUNTERS] = {
    TS_COUNTER_NAMES,
    [MV_CREATED] = "versions_created", /* old-version nodes made (by any attempt) */
    [MV_FREED] = "versions_freed",     /* nodes reclaimed (pruned, or a delete's chain) */
    [MV_WAITS] = "pending_waits",      /* waits for an older pending version */
};

#define MV_PENDING 1 /* a->cc_flags: this attempt holds the row's pending marker (besides
                      * the store's TS_ACC_HELD and TS_ACC_META, cc/ts_store.h); with
                      * a->in_place it writes row->data in place (IN_PLACE) */

#define TS_THREAD_MASK (((uint64_t)1 << PRIO_THREAD_BITS) - 1)

/* Key state, over a timestamp store (cc/ts_store.h: `row` or `sketch`, chosen by the
 * variant: mvto, mvto-sketch). The key's entry (three words, under its latch bit):
 *   w[0]  bit 63: latch (spin, acquire CAS / release store, back-off of storage/wait.h);
 *         bit 62: APPROX, the head's stamps are the sketch's bounds (I7); bit 61:
 *         IN_PLACE, the pending writer writes row->data in place (I6); bits 0..60: ts of
 *         the one writer whose version is not committed yet (0: none), the pending
 *         marker; its image is row->data (IN_PLACE) or its private copy (a->data), which
 *         nobody else reads
 *   w[1], w[2]  wts, rts of the newest committed version (the head), whose image is
 *         row->data, or the chain's first node while IN_PLACE
 * The row's metadata slot (row->cc) holds, at MV_CHAIN_OFF, the chain of older committed
 * versions (struct mvto_chain), newest first: nodes (wts, rts, image copy), their stamps
 * exact data (not the store's); before it, the store's part: with the row store the entry
 * itself (ts_acquire returns row->cc: [w0 w1 w2][chain], 40 bytes), with the sketch its
 * shadow of the exact stamps (measurement only: [shadow 16 bytes][chain], 32 bytes). An
 * attempt acquires the key's entry at its first access (a->cc_ptr, TS_ACC_HELD) and
 * releases it when it ends, so every access to the key's state, chain and image is under
 * the latch of an entry that is held (with the sketch: exact, the key's only copy, S2 of
 * cc/ts_sketch.c).
 */
/* The entry's word 0 (see Key state): the latch (TS_LATCH, cc/ts_store.h), approximate
 * head, pending writer's ts. */
#define APPROX ((uint64_t)1 << 62)
#define IN_PLACE ((uint64_t)1 << 61)
#define PENDING_MASK (IN_PLACE - 1)

struct mvto_ver {
    struct mvto_ver *next; /* older */
    uint64_t wts, rts;
    alignas(16) unsigned char data[];
};

/* A row's older versions, in its slot; read and written under the entry's latch only.
 * Invariant (P): at most one version of the row, head or node, has wts <= pruned. A prune
 * at a watermark wm <= pruned would free nothing (it keeps the newest version with wts <=
 * wm and everything newer), so it returns at once: a hot row is walked once per new
 * watermark, not at every access. A prune at wm leaves one version at most with wts <= wm
 * and sets pruned = wm; a version added with wts <= pruned resets it to 0 (known
 * nothing); a sketch's bound only raises the head's wts, leaving fewer versions <= it. */
struct mvto_chain {
    struct mvto_ver *first; /* newest first */
    uint64_t pruned;
};

/* The chain in the row's slot: after the store's part of it (the sketch's shadow, or the
 * row store's entry itself). */
#define MV_CHAIN_OFF (TS_STORE_SKETCH ? TS_ROW_META_BYTES : sizeof(struct ts_entry))
_Static_assert(TS_ROW_META_BYTES <= CC_META_SIZE, "mvto: CC_META_SIZE too small");
_Static_assert(MV_CHAIN_OFF % alignof(struct mvto_chain) == 0, "mvto: chain misaligned");
_Static_assert(MV_CHAIN_OFF + sizeof(struct mvto_chain) <= CC_META_SIZE,
               "mvto: CC_META_SIZE too small");

static inline struct mvto_chain *chain_of(struct row *r)
{
    return (struct mvto_chain *)(void *)(r->cc + MV_CHAIN_OFF);
}

/* A version stamped wts was added to r's chain or made its head: keeps (P) true. */
static inline void chain_added(struct mvto_chain *c, uint64_t wts)
{
    if (wts <= c->pruned)
        c->pruned = 0;
}

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
    /* Freed version nodes by table id (a table's nodes have one size), for node_new: a
     * GC pass frees them in bursts, which jemalloc's thread cache meets with a flush and
     * a refill (partitioned TPC-C: about 1,200 instructions per commit in malloc and
     * free, 7% of them); at most 256 KiB each. A node here counts as freed (live,
     * MV_FREED); another thread's node may land here (whoever prunes a chain frees it),
     * as with free(). */
    struct mem_cache spare[MAX_TABLES];
};

/* The running attempt's ts per thread, UINT64_MAX when idle; written by its thread. */
struct mvto_slot {
    alignas(CACHE_LINE) _Atomic uint64_t ts;
};
static struct mvto_slot slots[MAX_THREADS];
static int nthreads;
/* Totals of the threads that ended (cc_thread_fini), reported by cc_fini. */
static _Atomic int64_t live_total, live_bytes_total;

void cc_ts_fold(const struct ts_entry *e, uint64_t *wts, uint64_t *rts)
{
    *wts = atomic_load_explicit(&e->w[1], memory_order_relaxed);
    *rts = atomic_load_explicit(&e->w[2], memory_order_relaxed);
}

/* I7: stamps from the sketch are bounds; a head wts of 0 is exact all the same (the true
 * one is <= 0). The row store unfolds only new rows, with (0, 0). */
void cc_ts_unfold(struct ts_entry *e, uint64_t wts, uint64_t rts)
{
    atomic_store_explicit(&e->w[0], wts ? APPROX : 0, memory_order_relaxed);
    atomic_store_explicit(&e->w[1], wts, memory_order_relaxed);
    atomic_store_explicit(&e->w[2], rts, memory_order_relaxed);
}

/* A new version node holding a copy of img, stamped (wts, rts); counted in the thread's
 * versions_created. */
static struct mvto_ver *node_new(struct txn *t, const struct table *tb, uint64_t wts,
                                 uint64_t rts, const unsigned char *img)
{
    struct mvto_thread *p = t->cc;
    uint32_t size = tb->schema.data_size;
    struct mvto_ver *n = mem_cache_get(&p->spare[tb->id], sizeof(*n) + size);
    n->wts = wts;
    n->rts = rts;
    memcpy(n->data, img, size);
    p->live++;
    p->live_bytes += (int64_t)(sizeof(*n) + size);
    t->st.alg[MV_CREATED]++;
    return n;
}

static inline void free_from(struct txn *t, struct mvto_ver *n, const struct table *tb)
{
    struct mvto_thread *p = t->cc;
    uint32_t size = tb->schema.data_size;
    struct mem_cache *spare = &p->spare[tb->id];
    while (n) {
        struct mvto_ver *next = n->next;
        mem_cache_put(spare, n, sizeof(*n) + size);
        p->live--;
        p->live_bytes -= (int64_t)(sizeof(*n) + size);
        t->st.alg[MV_FREED]++;
        n = next;
    }
}

/* prune's walk, where (P) leaves something to free: out of line, since most prunes
 * return at the check. */
static void __attribute__((noinline))
prune_walk(struct txn *t, struct mvto_chain *c, const struct ts_entry *e, uint64_t w0,
           const struct table *tb, uint64_t wm)
{
    c->pruned = wm;
    /* IN_PLACE: row->data is not committed; the head's version is the chain's first node,
     * which the walk keeps (the newest version with wts <= wm or one newer) */
    if (!(w0 & IN_PLACE) && ts_get(e, 1) <= wm) {
        free_from(t, c->first, tb);
        c->first = NULL;
        return;
    }
    for (struct mvto_ver *n = c->first; n; n = n->next)
        if (n->wts <= wm) {
            free_from(t, n->next, tb);
            n->next = NULL;
            return;
        }
}

/* GC under the latch: keeps the newest version with wts <= wm and the newer ones. An
 * approximate head wts (I7) is >= the true one, so `wts <= wm` only holds where it holds
 * for the true wts as well: it keeps more, never less. */
static inline void prune(struct txn *t, struct row *r, const struct ts_entry *e,
                         uint64_t w0)
{
    uint64_t wm = ((struct mvto_thread *)t->cc)->wm;
    struct mvto_chain *c = chain_of(r);
    if (!c->first || wm <= c->pruned) /* (P): nothing to free */
        return;
    prune_walk(t, c, e, w0, row_table(r), wm);
}

/* The committed version visible at ts in the chain (exact stamps), or NULL. */
static struct mvto_ver *chain_visible(struct row *r, uint64_t ts)
{
    for (struct mvto_ver *n = chain_of(r)->first; n; n = n->next)
        if (n->wts <= ts)
            return n;
    return NULL;
}

/* The committed version visible at ts, under the latch: the head (*node = NULL: its
 * stamps are the entry's; while IN_PLACE its before-image node instead, *node set, whose
 * wts is the entry's) or a chain node; NULL: none (inserted after ts, or pruned), or the
 * head is approximate and later than ts (I7: which version is visible is unknown). */
static const unsigned char *visible(struct row *r, const struct ts_entry *e, uint64_t w0,
                                    uint64_t ts, uint64_t *wts, struct mvto_ver **node)
{
    uint64_t hw = ts_get(e, 1);
    if (hw <= ts) {
        *wts = hw;
        if (w0 & IN_PLACE) { /* I6: the pending writer's before-image is the head's */
            *node = chain_of(r)->first;
            return (*node)->data;
        }
        *node = NULL;
        return r->data;
    }
    if (w0 & APPROX) /* I7: T's true wts may be <= ts; the chain may be the wrong one */
        return NULL;
    struct mvto_ver *n = chain_visible(r, ts);
    if (!n)
        return NULL;
    *wts = n->wts;
    *node = n;
    return n->data;
}

/* An access at ts aborts (AR_TS_ORDER) on the head's stamps (no visible version with an
 * approximate head, or a write after a later read of the head): counts it as added by the
 * sketch if the exact stamps would have let it pass. Under the latch (the chain). */
static void count_sketch_abort(struct txn *t, struct row *r, const struct ts_entry *e,
                               uint64_t ts, bool write)
{
    uint64_t wts = ts_get(e, 1), rts = ts_get(e, 2);
    if (!ts_exact(e, &wts, &rts))
        return;
    if (wts <= ts) { /* the head, with its exact stamps */
        if (!write || rts <= ts)
            t->st.alg[TS_CTR_FALSE_ABORTS]++;
        return;
    }
    struct mvto_ver *n = chain_visible(r, ts); /* the exact head is later: the chain */
    if (n && (!write || n->rts <= ts))
        t->st.alg[TS_CTR_FALSE_ABORTS]++;
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

/* Requests the metadata line (the entry with the row store, the chain's head) of the
 * i-th queued row, if there is one. The queued rows were written a GC period ago and have
 * mostly left the cache; asked for GC_PREFETCH_AHEAD rows ahead, their misses overlap
 * instead of each stalling gc_drain's latch. A hint: a row not due yet costs the fetch. */
static inline void gc_prefetch(const struct mvto_thread *p, uint32_t i)
{
    if (i < p->gc_len)
        __builtin_prefetch(p->gc[(p->gc_head + i) & (p->gc_cap - 1)].row->cc, 1);
}

/* Prunes the queued rows whose version ts the watermark has passed: the old version our
 * commit made there is then no longer needed (unless the row was pruned already). So a
 * row written once and never accessed again does not keep its old version forever. The
 * key's entry is acquired for it (the latch is in it; free with the row store). */
static void gc_drain(struct txn *t)
{
    struct mvto_thread *p = t->cc;
    for (uint32_t i = 0; i < GC_PREFETCH_AHEAD; i++)
        gc_prefetch(p, i);
    while (p->gc_len && p->gc[p->gc_head].ts <= p->wm) {
        gc_prefetch(p, GC_PREFETCH_AHEAD);
        struct row *r = p->gc[p->gc_head].row;
        p->gc_head = (p->gc_head + 1) & (p->gc_cap - 1);
        p->gc_len--;
        struct ts_entry *e = ts_acquire(t, r);
        uint64_t w0 = ts_latch(e);
        prune(t, r, e, w0);
        ts_unlatch(e, w0);
        ts_release(t, r, e);
    }
}

void cc_init(int n)
{
    nthreads = n;
    for (int i = 0; i < MAX_THREADS; i++)
        atomic_init(&slots[i].ts, UINT64_MAX);
    atomic_init(&live_total, 0);
    atomic_init(&live_bytes_total, 0);
    ts_store_init(n);
}

void cc_fini(void)
{
    ts_store_fini();
}

/* The result's cc_state: the timestamp store and the old versions left at the end. */
void cc_report_json(FILE *f)
{
    fputs("{\"ts_store\":", f);
    ts_store_json(f);
    /* relaxed: the threads that added to them were joined */
    fprintf(f, ",\"old_versions_live\":%lld,\"old_version_bytes_live\":%lld}",
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
    for (int i = 0; i < MAX_TABLES; i++)
        mem_cache_drain(&p->spare[i]);
    free(p->gc);
    free(p);
    t->cc = NULL;
}

void cc_row_init(struct row *r)
{
    ts_row_init(r); /* the row store: the entry, (0, 0), no latch, nothing pending */
    /* a row reused after an aborted insert never had a chain */
    *chain_of(r) = (struct mvto_chain){NULL, 0};
}

void cc_begin(struct txn *t, bool retry)
{
    (void)retry; /* a retry takes a new timestamp: the old one would be late again */
    t->ts = txn_priority_ts(t);
    if (t->ts & ~PENDING_MASK) { /* after 2^49 ticks (2.5 days at 2.6 GHz): the flag bits */
        fprintf(stderr, "mvto: timestamps outgrew the pending marker's 61 bits\n");
        exit(1);
    }
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

/* Waits (latch released) until the pending version p of r (entry e, which we hold) is
 * committed or aborted; false: the run is over. */
static bool wait_pending(struct txn *t, struct row *r, struct ts_entry *e, uint64_t p,
                         uint64_t *start)
{
    int holder = (int)(p & TS_THREAD_MASK);
    if (!*start) {
        *start = txn_timer_start() | 1;
        wait_note(WAIT_PENDING, r, holder);
        t->st.alg[MV_WAITS]++;
    }
    struct waiter wt = WAITER(holder); /* it wakes its watchers when its attempt ends */
    /* relaxed: a hint only; the caller looks again under the latch */
    while ((atomic_load_explicit(&e->w[0], memory_order_relaxed) & PENDING_MASK) == p) {
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
    struct row *r = a->row;
    if (a->type == ACC_NONE) { /* the key's entry, held until the attempt ends */
        ts_access_begin(t, a);
    }
    if (type == ACC_INSERT || a->type == ACC_INSERT) /* private in place until commit */
        return occ_access_private(a, type), RC_OK;
    struct ts_entry *e = a->cc_ptr;
    uint32_t size = row_table(r)->schema.data_size;
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
    uint64_t w0;
    for (;;) {
        w0 = ts_latch(e);
        prune(t, r, e, w0);
        uint64_t wts = 0;
        struct mvto_ver *node;
        const unsigned char *img = visible(r, e, w0, ts, &wts, &node);
        if (!img || (upgrade && wts != a->cc_a)) {
            if (!img && (w0 & APPROX))
                count_sketch_abort(t, r, e, ts, write); /* I7 */
            why = AR_TS_ORDER;
            break;
        }
        uint64_t p = w0 & PENDING_MASK, vrts = node ? node->rts : ts_get(e, 2);
        if (!write) {
            if (p && wts < p && p < ts) { /* I5: an older pending version we must see */
                ts_unlatch(e, w0);
                if (!wait_pending(t, r, e, p, &start)) {
                    why = AR_STOPPED;
                    break;
                }
                continue;
            }
            a->data = txn_alloc(t, size);
            memcpy(a->data, img, size);
            if (vrts < ts) {
                if (node)
                    node->rts = ts;
                else
                    ts_set(e, 2, ts);
                raised = true;
            }
            a->cc_a = wts;
            break;
        }
#ifndef MUTANT_MVTO_NO_RTS_CHECK /* mutant: a write ignores a later read of its version */
        /* a later reader read the version this write would follow */
        if (vrts > ts) {
            if (!node)
                count_sketch_abort(t, r, e, ts, true);
            why = AR_TS_ORDER;
            break;
        }
#endif
        if (p && p < ts) { /* an older writer: wait for it (I3) */
            ts_unlatch(e, w0);
            if (!wait_pending(t, r, e, p, &start)) {
                why = AR_STOPPED;
                break;
            }
            continue;
        }
        if (p) { /* a younger writer: die */
            why = AR_DIE;
            break;
        }
        if (!upgrade)
            a->cc_a = wts;
        /* I4: the write reads the version it follows (rts <= ts here) */
        if (node)
            node->rts = ts;
        else
            ts_set(e, 2, ts);
        raised = true;
        w0 = (w0 & ~PENDING_MASK) | ts; /* the marker, published by the unlatch */
        a->cc_flags |= MV_PENDING;
        if (!node && type == ACC_WRITE) {
            /* the head: written in place (I6), its before-image the chain's new first
             * node, stamped (wts, ts): the head's wts, and the rts our write raised */
            struct mvto_chain *c = chain_of(r);
            struct mvto_ver *pre = node_new(t, row_table(r), wts, ts, r->data);
            pre->next = c->first;
            c->first = pre;
            chain_added(c, wts);
            SHW(SHW_ROW); /* the row's data, written in place next: counted once per row
                           * here (an install counted it at commit) */
            a->data = r->data;
            /* the generic layer takes no before-image of its own, and an abort restores
             * from this one (txn_undo_in_place, then frees the node); at commit the node
             * stays in the chain, a->undo unused */
            a->undo = pre->data;
            a->in_place = 1;
            w0 |= IN_PLACE;
        } else if (!upgrade) { /* a delete, or a write that follows an older version (the
                                * mutant's): a private copy */
            a->data = txn_alloc(t, size);
            memcpy(a->data, img, size);
        }
        break;
    }
    if (why == AR_COUNT || why == AR_TS_ORDER || why == AR_DIE)
        ts_unlatch(e, w0);
    if (raised)
        a->cc_flags |= TS_ACC_META;
    wait_finish(t, start, write);
    if (why != AR_COUNT) {
        if (!upgrade) /* the generic layer forgets a new access: release its entry */
            ts_access_end(t, a, true);
        return txn_fail(t, why);
    }
    a->type = (uint8_t)type;
    return RC_OK;
}

/* Inserts version n into r's chain in wts order (n's wts < the head's wts). */
static void insert_in_chain(struct row *r, struct mvto_ver *n)
{
    struct mvto_chain *c = chain_of(r);
    chain_added(c, n->wts);
    struct mvto_ver **at = &c->first;
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
            struct ts_entry *e = t->acc[i].cc_ptr;
            SHW(SHW_ROW);
            ts_set(e, 0, 0); /* exact: the row's only version */
            ts_set(e, 1, ts);
            ts_set(e, 2, ts);
        }
    /* our pending markers hold the written rows exclusively: nobody reads past them */
    txn_publish(t);
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (!(a->cc_flags & MV_PENDING))
            continue;
        struct row *r = a->row;
        struct ts_entry *e = a->cc_ptr;
        struct mvto_chain *c = chain_of(r);
        uint64_t w0 = ts_latch(e), wts = ts_get(e, 1);
        if (a->type == ACC_DELETE) { /* nobody reads a deleted row again (AR_DELETED) */
            free_from(t, c->first, row_table(r));
            c->first = NULL;
            if (ts > wts) {
                ts_set(e, 1, ts);
                ts_set(e, 2, ts);
                w0 &= ~APPROX;
            }
        } else if (a->in_place) { /* with MV_PENDING, not an insert: written in place */
            /* the newest version (ts > wts: the write followed the head, I4), already in
             * row->data; the old head's image is our before-image, the chain's first node
             * since our access (only the marker's holder adds a first node, and prune
             * keeps it), stamped (wts, ts) */
            struct mvto_ver *n = c->first;
            if (w0 & APPROX) { /* I7: the old head's wts is a bound; nothing older is ever
                                * visible again (a reader before the bound aborts) */
                free_from(t, n->next, row_table(r));
                n->next = NULL;
            }
            chain_added(c, ts); /* the new head; the node keeps the old head's wts */
            ts_set(e, 1, ts);
            ts_set(e, 2, ts);
            w0 &= ~APPROX;
            gc_push(t->cc, r, ts);
        } else { /* a write that followed a chain version (ts < wts; only the mutant that
                  * skips the rts check makes one): into the chain in wts order (I1) */
            insert_in_chain(r, node_new(t, row_table(r), ts, ts, a->data));
        }
        w0 &= ~(PENDING_MASK | IN_PLACE); /* the marker: cleared by the unlatch */
        a->cc_flags = (uint16_t)((a->cc_flags & ~MV_PENDING) | TS_ACC_META);
        prune(t, r, e, w0);
        ts_unlatch(e, w0);
    }
    ts_access_end_all(t, false); /* the markers are cleared: the marks, the entries */
    attempt_end(t, true);
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    /* the rows written in place get their before-images back (a->undo, the nodes), while
     * IN_PLACE still gives us row->data (I6) */
    txn_undo_in_place(t);
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & MV_PENDING) {
            struct ts_entry *e = a->cc_ptr;
            uint64_t w0 = ts_latch(e);
            if (a->in_place) { /* the restored before-image's node dropped */
                struct row *r = a->row;
                struct mvto_chain *c = chain_of(r);
                struct mvto_ver *pre = c->first;
                c->first = pre->next;
                pre->next = NULL;
                free_from(t, pre, row_table(r));
            }
            ts_unlatch(e, w0 & ~(PENDING_MASK | IN_PLACE));
            a->cc_flags &= (uint16_t)~MV_PENDING;
        }
    }
    ts_access_end_all(t, true);
    attempt_end(t, false);
}
