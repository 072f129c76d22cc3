/* NCC's key (server) side: the key latch, the response queue, response timing control,
 * the execution of read and write requests on the key's versions, and the release and
 * decision (commit and abort messages) on the key. The protocol, and which part of it
 * lives where, is cc/ncc.c's opening essay; the per-key state and its invariants I1-I7
 * are above struct ncc_row in cc/ncc_key.h; the nk_* functions below are the messages
 * cc/ncc.c sends (declared there). Each runs in the thread of the client that sends it,
 * under the key's latch, which it releases before it returns.
 */
#include <string.h>

#include "cc/ncc_key.h"
#include "storage/dlist.h"
#include "storage/latch.h"
#include "storage/wait.h"

/* The latch protects the key's fields and the row image: the image is written only under
 * it (nk_commit's install, nk_abort's restore), while the row is private (an insert before
 * its row is published), or by an in-place writer that nothing else reaches (I7), so
 * reads under it copy the image plainly (memcpy: wide loads, 1.07x partitioned TPC-C over
 * a word-by-word relaxed copy). A read in place (cc/ncc.c) reads it without the latch:
 * its queued entry keeps every install and every in-place writer out until its
 * transaction decides (I5, I7), and the latch's release and acquire order their writes
 * after the reader's commit or abort message. */
static void latch(struct ncc_row *k)
{
    SHW(SHW_ROW); /* the key's latch, queue and timestamps (one per access) */
    latch_acquire(&k->latch);
}

static void unlatch(struct ncc_row *k)
{
    latch_release(&k->latch);
    wait_wake_flush(); /* wake-ups of released responses, after the latch */
}

void nk_row_init(struct ncc_row *k)
{
    latch_init(&k->latch);
    k->tw = k->tr = 0;
    k->head = k->tail = NULL;
}

/* ts moved past tr: the write rule of I2. `own`: tr is the writer's own read's, which
 * raised it to ts (its response said so, and the read-modify-write check saw no write
 * since); the write may then keep ts (ours). */
static inline uint64_t ts_after(uint64_t tr, uint64_t ts, bool own)
{
    return ts > tr || (own && ts == tr) ? ts
                                        : ((tr >> TS_CID_BITS) + 1) << TS_CID_BITS | (ts & TS_CID_MASK);
}

/* ---- the key's queue (under its latch) ---- */

static void q_append(struct ncc_row *k, struct ncc_entry *e)
{
    DLIST_PUSH_BACK(k->head, k->tail, e, next, prev);
    e->linked = 1;
}

static void q_unlink(struct ncc_row *k, struct ncc_entry *e)
{
    DLIST_UNLINK(k->head, k->tail, e, next, prev);
    e->linked = 0;
}

/* The newest undecided write entry (its version is the key's newest), NULL when the
 * committed version is newest: the last write in the queue (I1). Read from the tail:
 * with nothing undecided at the key (the common case) that is one load. */
static inline struct ncc_entry *newest(const struct ncc_row *k)
{
    for (struct ncc_entry *x = k->tail; x; x = x->prev)
        if (x->kind == E_WRITE)
            return x;
    return NULL;
}

/* Owners (attempt ids) of the entries seen so far, for I3: NOBODY none (ids are never 0),
 * SEVERAL more than one. */
#define NOBODY ((uint64_t)0)
#define SEVERAL UINT64_MAX
static inline uint64_t join(uint64_t who, uint64_t owner)
{
    return who == NOBODY || who == owner ? owner : SEVERAL;
}

/* Whether an entry of `kind` and `thread` behind entries whose threads are `all` (writes:
 * `wr`) is released (I3). The mutant lets writes pass earlier reads: timestamp
 * inversion becomes possible (the strict check must see it). */
static inline bool releasable(uint8_t kind, uint64_t owner, uint64_t all, uint64_t wr)
{
#ifdef MUTANT_NCC_NO_RTC
    (void)kind;
    (void)all;
    return wr == NOBODY || wr == owner;
#else
    return kind == E_WRITE ? (all == NOBODY || all == owner) : (wr == NOBODY || wr == owner);
#endif
}

/* A read-only read at t_ro raises the committed version's tr to t_ro (I6): a writer whose
 * t is below t_ro and that writes the key after this read then takes tw > t_ro (I2), so
 * the reader, which missed that write, cannot see the writer's other writes either
 * (the writer commits them all past t_ro, where the reader aborts on them). */
static inline void ro_raise_tr(struct ncc_row *k, uint64_t t_ro)
{
#ifdef MUTANT_NCC_RO_NO_TR /* mutant: tr stays, such a writer stays below the snapshot */
    (void)k;
    (void)t_ro;
#else
    if (k->tr < t_ro)
        k->tr = t_ro;
#endif
}

/* Releases e's response: an entry with a private image (dst) gets the committed value
 * with it (I5). A read-only read (I6) takes the committed version if it is not newer
 * than its snapshot, and leaves the queue. */
static void release(struct ncc_entry *e)
{
    if (e->ro) {
        struct ncc_row *k = key_of(e->row);
        if (k->tw > e->ts)
            e->early_abort = 1;
        else
            ro_raise_tr(k, e->ts);
        q_unlink(k, e);
    }
    if (e->dst && !e->early_abort)
        /* a plain copy: the latch orders it after every install (nk_commit) and every
         * in-place writer's writes (its commit or abort message, I7) */
        memcpy(e->dst, e->row->data, row_table(e->row)->schema.data_size);
    int owner = e->thread; /* e may be reused once released (a read-only read's owner
                            * never comes back to this key) */
    if (owner != wait_self_id)
        SHW(SHW_PEER); /* another client's response */
    /* release: publishes the response (and the copy) to the owner's acquire poll */
    atomic_store_explicit(&e->released, 1, memory_order_release);
    wait_wake(owner);
}

/* Response timing control (Algorithm 5.3, I3): releases every entry that may go. */
static void rtc(struct ncc_row *k)
{
    uint64_t all = NOBODY, wr = NOBODY;
    for (struct ncc_entry *e = k->head, *next; e && !(all == SEVERAL && wr == SEVERAL); e = next) {
        next = e->next;
        if (!atomic_load_explicit(&e->released, memory_order_relaxed) &&
            releasable(e->kind, e->owner, all, wr)) {
            bool gone = e->ro; /* a read-only read leaves at its release */
            release(e);
            if (gone)
                continue;
        }
        all = join(all, e->owner);
        if (e->kind == E_WRITE)
            wr = join(wr, e->owner);
    }
}

/* Early abort (I4): true if a request of e's kind would wait and an undecided entry of
 * another transaction (for a read: a write) has a higher t. */
static bool early_abort(const struct ncc_row *k, const struct ncc_entry *e)
{
    uint64_t all = NOBODY, wr = NOBODY;
    bool higher = false;
    for (const struct ncc_entry *x = k->head; x; x = x->next) {
        if (x == e)
            continue;
        all = join(all, x->owner);
        if (x->kind == E_WRITE)
            wr = join(wr, x->owner);
        if (x->owner != e->owner && x->ts > e->ts && (e->kind == E_WRITE || x->kind == E_WRITE))
            higher = true;
    }
    return higher && !releasable(e->kind, e->owner, all, wr);
}

/* Executes a read on version v (an undecided write entry, or NULL: the committed
 * version); a new read takes the newest (I2). */
static void exec_read(struct ncc_row *k, struct ncc_entry *e, struct ncc_entry *v)
{
    uint64_t *tr = v ? &v->tr : &k->tr;
    if (*tr < e->ts)
        *tr = e->ts;
    e->tw = v ? v->tw : k->tw;
    e->tr = *tr;
    e->ver = v;
    if (v)
        v->read_on = 1;
}

/* Executes write e, not queued yet, after v (newest(k): the caller has it): a new
 * undecided version, the newest once the caller appends e (I1, I2). rd: the writer's own
 * read of the key (a read-modify-write), or NULL. */
static void exec_write(struct ncc_row *k, struct ncc_entry *e, const struct ncc_entry *rd,
                       const struct ncc_entry *v)
{
    e->tw = e->tr = ts_after(v ? v->tr : k->tr, e->ts, rd && rd->tr == e->ts);
}

/* The version a re-executed read of `owner` takes: the newest, unless its own
 * read-modify-write's write is queued (the pair of request_pair): then the one before
 * that write (I1: versions in queue order), which is what the pair's read stands before. */
static struct ncc_entry *version_before(const struct ncc_row *k, uint64_t owner)
{
    struct ncc_entry *v = NULL;
    for (struct ncc_entry *x = k->head; x; x = x->next)
        if (x->kind == E_WRITE) {
            if (x->owner == owner)
                return v;
            v = x;
        }
    return v; /* the last write: the newest (I1) */
}

/* Removes an undecided entry whose transaction aborted (the abort message), or a
 * request that failed: a write's version goes, and the reads of it are re-executed. */
static void drop_entry(struct ncc_row *k, struct ncc_entry *e)
{
    q_unlink(k, e); /* if e was the newest write, the previous write is newest now (I1) */
    if (e->kind != E_WRITE)
        return;
    struct ncc_entry *end = k->tail;
    for (struct ncc_entry *x = k->head, *next; x; x = next) {
        next = x->next;
        if (x->kind == E_READ && x->ver == e) { /* re-execute at the tail */
            q_unlink(k, x);
            if (early_abort(k, x)) {
                x->early_abort = 1;
                release(x);
            } else {
                exec_read(k, x, version_before(k, x->owner));
                q_append(k, x);
            }
        }
        if (x == end)
            break;
    }
}

/* ---- requests ---- */

/* Appends e (executed) to k's queue and releases what may go: e alone is released at
 * once, without the queue walk of rtc. */
static inline void append_and_release(struct ncc_row *k, struct ncc_entry *e)
{
    bool alone = !k->head;
    q_append(k, e);
    if (alone)
        release(e);
    else
        rtc(k);
}

enum nk_rc nk_request(struct ncc_row *k, struct ncc_entry *e, const struct ncc_entry *rd)
{
    latch(k);
    struct ncc_entry *v = newest(k);
    if (e->kind == E_WRITE && rd) { /* the write of a read-modify-write */
        if ((v ? v->tw : k->tw) != rd->tw) { /* a write came between */
            unlatch(k);
            return NK_MOVED;
        }
    }
    if (k->head && early_abort(k, e)) {
        unlatch(k);
        return NK_EARLY;
    }
    if (e->kind == E_WRITE)
        exec_write(k, e, rd, v);
    else
        exec_read(k, e, v);
    append_and_release(k, e);
    /* relaxed: set under this latch, just above */
    bool now = atomic_load_explicit(&e->released, memory_order_relaxed);
    unlatch(k);
    return (enum nk_rc)now;
}

/* The early-abort test is the write's (section 5.1). */
enum nk_rc nk_request_pair(struct ncc_row *k, struct ncc_entry *e, struct ncc_entry *w)
{
    latch(k);
    if (k->head && early_abort(k, w)) {
        unlatch(k);
        return NK_EARLY;
    }
    bool alone = !k->head;
    struct ncc_entry *v = newest(k); /* still the newest after e, a read, is queued */
    exec_read(k, e, v);
    q_append(k, e);
    exec_write(k, w, e, v);
    q_append(k, w);
    if (alone) { /* the queue is the pair: both go at once, as rtc's walk would decide */
        release(e);
        release(w);
    } else {
        rtc(k);
    }
    /* relaxed: set under this latch, just above */
    bool now = atomic_load_explicit(&w->released, memory_order_relaxed);
    unlatch(k);
    return (enum nk_rc)now; /* released: the read, ahead of it, went too */
}

enum nk_rc nk_read_ro(struct txn *t, struct row *r, uint64_t t_ro, unsigned char *dst,
                      struct ncc_entry **out)
{
    struct ncc_row *k = key_of(r);
    latch(k);
    const struct ncc_entry *v = newest(k);
    if ((v ? v->tw : k->tw) > t_ro) {
        unlatch(k);
        return NK_STALE;
    }
    if (!k->head) { /* nothing undecided: the committed version, at once */
        ro_raise_tr(k, t_ro);
        memcpy(dst, r->data, row_table(r)->schema.data_size); /* under the latch, as release */
        unlatch(k);
        return NK_RELEASED;
    }
    struct ncc_entry *e = entry_new(t, E_READ, t_ro, r, dst);
    e->ro = 1;
    q_append(k, e);
    rtc(k);
    /* relaxed: set under this latch, by rtc just above */
    bool now = atomic_load_explicit(&e->released, memory_order_relaxed);
    unlatch(k);
    *out = e;
    return (enum nk_rc)now;
}

/* Takes back the entries of a request that failed inside cc_access (the generic layer
 * then forgets a new access, so cc_abort would not see them). */
void nk_take_back(struct ncc_entry *e)
{
    if (!e)
        return;
    struct ncc_row *k = key_of(e->row);
    latch(k);
    if (e->linked) {
        drop_entry(k, e);
        rtc(k);
    }
    unlatch(k);
}

/* ---- decisions ---- */

bool nk_smart_retry(struct ncc_entry *e, uint64_t t2)
{
    struct ncc_row *k = key_of(e->row);
    bool kept = true;
    latch(k);
    if (e->kind == E_WRITE) {
        kept = newest(k) == e && !e->read_on;
        if (kept)
            e->tw = e->tr = t2;
    } else { /* its version is the committed one (I5); every later one is queued (I1) */
        for (const struct ncc_entry *x = k->head; x && kept; x = x->next)
            if (x->kind == E_WRITE && x->owner != e->owner && x->tw <= t2)
                kept = false;
        if (kept && k->tr < t2)
            k->tr = t2;
    }
    unlatch(k);
    return kept;
}

void nk_commit(const struct access *a, struct ncc_entry *rd, struct ncc_entry *wr)
{
    struct ncc_row *k = key_of(a->row);
    latch(k);
    if (wr) { /* the version becomes the committed one (the older ones are decided) */
        if (!a->in_place) /* written in place: nothing to install (I7) */
            row_install_written(a);
        k->tw = wr->tw;
        k->tr = wr->tr;
        q_unlink(k, wr); /* the newest now: a later write in the queue, if any (I1) */
        for (struct ncc_entry *x = k->head; x; x = x->next)
            if (x->ver == wr)
                x->ver = NULL;
    }
    if (rd && rd->linked)
        q_unlink(k, rd);
    if (k->head)
        rtc(k);
    unlatch(k);
}

void nk_abort(const struct access *a, struct ncc_entry *rd, struct ncc_entry *wr)
{
    struct ncc_row *k = key_of(a->row);
    latch(k);
    /* written in place (I7; only such a pair has a before-image): the before-image back
     * before anyone reads the row again (a re-executed read of our version takes the
     * committed one). None for a pair that only deletes or that found its row deleted:
     * the client wrote nothing */
    txn_undo_access(a);
    if (rd && rd->linked) /* first: re-executions of others' reads skip our write */
        drop_entry(k, rd);
    if (wr && wr->linked)
        drop_entry(k, wr);
    if (k->head)
        rtc(k);
    unlatch(k);
}
