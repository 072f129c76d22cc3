/* NCC and NCC-RW: natural concurrency control (Lu et al., OSDI'23, seeds/001), strictly
 * serializable, hosted on one machine: each worker thread is a client and its own
 * coordinator, and the "server" work on a key (execution, response timing control,
 * commit and abort messages) runs in whichever thread sends the request or message,
 * under the key's latch. NCC-RW runs every transaction by the read-write protocol; NCC
 * (NCC_READ_ONLY) runs transactions the workload declared read-only
 * (txn_declare_read_only) by a read-only protocol of ours (I6), since the paper's
 * section 5.5 is not in the seed text.
 *
 * Timestamps (section 5.1, 5.3) are one 64-bit word (clk << 12 | thread): clk in
 * clock ticks, compared first; the thread id stands for cid. A transaction's
 * pre-assigned timestamp t (cc_begin) has clk = max(now, the thread's last clk + 1),
 * plus the network model's expected one-way delay when the model is on (asynchrony
 * aware). The thread's clk grows with every attempt, so (clk, thread) is unique per
 * attempt without the paper's attempt number; a retry is a new attempt, with a new t.
 * --clock-skew-us sets odd threads' clocks back (to study skew).
 *
 * Per key (struct ncc_row, the row's CC slot), under its latch:
 *   tw, tr    the committed version's timestamps; row->data is its value.
 *   queue     the response queue (section 5.2, Algorithm 5.3): one entry per request
 *             whose transaction is undecided, in execution order; decided entries leave
 *             at once (the paper drops them at the head; nothing reads a decided entry,
 *             so leaving early changes no decision).
 *   newest    the newest undecided write entry (its version is the key's newest), NULL
 *             when the committed version is newest.
 * Invariants:
 *   I1. Versions are created in queue order: the write entries in the queue, in order,
 *       are the undecided versions, oldest first, all newer than the committed one.
 *   I2. Timestamps grow along versions: each version's tw > the previous version's tr
 *       (a write takes tw = t if t > curr.tr, else (curr.tr.clk + 1, t.cid)), or equals
 *       it where that tr is the writer's own read's t (ours: a read-modify-write keeps
 *       t); a read raises curr.tr to its t.
 *   I3. Response timing control: an entry's response is released when every entry
 *       before it belongs to its own transaction, or it is a read and every entry of
 *       another transaction before it is a read. So a read of an undecided version waits
 *       for that version's decision, and a write waits for every earlier request. (Ours:
 *       own entries never block each other; the paper groups a read-modify-write's pair.)
 *   I4. Early abort (section 5.2): a request that would not be released at once aborts
 *       before executing if an undecided entry of another transaction (write: any
 *       entry; read: a write) has a higher t. So every wait is for a transaction with a
 *       lower t: no wait cycle. A read re-executed after its version's writer aborted
 *       passes the same test; if it fails, it is released with early_abort set.
 *   I5. A released read's version is the committed one and stays so until the reader
 *       decides (a later write waits for the read, I3); so the value is copied from the
 *       row at release, under the latch.
 *   I6. Read-only protocol (ours): the snapshot t_ro is the reader's clock at its first
 *       read less --clock-skew-us, so every transaction that begins after that read has
 *       a larger t (its clock is at most the skew behind) and so a larger tw. A read
 *       aborts (read_only_stale) if the key's newest version, undecided or not, has
 *       tw > t_ro; else it queues (ts = t_ro, for I4 of later writes) only while an
 *       undecided write is ahead of it, and at release takes the committed version
 *       (aborting if smart retry moved it past t_ro), raises its tr to t_ro and leaves
 *       the queue. So the transaction is consistent at t_ro without a safeguard, leaves
 *       nothing behind and sends no commit message: one round per shot. Strict: a
 *       writer W that committed before the reader began has tw <= t_ro or (if still
 *       undecided at the key) is waited for; a writer that began after its first read
 *       has tw > t_ro, so the reader cannot see it (the inversion of section 5.2 aborts
 *       the reader instead). The paper's client-side knowledge of each server's newest
 *       writes, which picks a larger snapshot, is not built: its safety argument is not
 *       in the seed text.
 *
 * Requests (cc_access). The client waits for each response before its next request
 * (ours: the paper sends a shot's requests together and waits once; values are final at
 * release either way). Read: a read entry. Write or delete: a read-modify-write, a read
 * request and then a write request (section 5.1's rule): the write aborts if the newest
 * version's tw differs from the one the read returned; only the write's response enters
 * the safeguard. With the network model the first read-modify-write's write opens a new
 * shot (YCSB's writes are in shot 2). Inserts create the key's first version at commit
 * (the row is invisible until then).
 *
 * Commit (cc_commit): the safeguard (section 5.1): over the responses (a write's is
 * (tw, tw), a read's (tw, tr)), commit iff max(tw) <= min(tr); the synchronisation point
 * is max(tw). Else smart retry (section 5.4; one more round): t' = max(tw); a read is
 * kept iff no undecided version with tw <= t' was created after it (by I5 its version
 * is the committed one and every later version is in the queue), then curr.tr =
 * max(curr.tr, t'); a write iff its version is still newest and unread, then tw = tr =
 * t'. All kept: commit at t'; else abort and retry from scratch. Then the decision
 * (the client's answer: txn_client_decided) and the commit messages, one per key:
 * install the written columns, the version becomes the committed one, entries leave,
 * response timing control runs. Abort messages remove the entries; a removed write's
 * version is gone, and the reads that had read it are re-executed on the newest version
 * and move to the tail (Algorithm 5.3).
 *
 * Client failure (benchmarks/recovery.h): a failed client's attempt is finished by a
 * backup thread with cc_commit / cc_abort on its context, so it decides exactly as the
 * client would have. Entries name their attempt (owner = t->id), not their thread, since
 * the client's next attempts run on the same thread meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cc/txn.h"
#include "storage/latch.h"
#include "storage/wait.h"

#ifndef NCC_READ_ONLY
#define NCC_READ_ONLY 0 /* 1: variant ncc, with the read-only protocol */
#endif

#if NCC_READ_ONLY
const char cc_alg_name[] = "NCC";
#else
const char cc_alg_name[] = "NCC-RW";
#endif
const bool cc_alg_serializable = true;
const bool cc_alg_strict = true;
/* A failed client's attempt is finished by the backup coordinator (benchmarks/recovery.h)
 * with cc_commit / cc_abort on its context: the same safeguard and smart retry. */
const bool cc_alg_recoverable = true;
/* Network rounds (cc/netmodel.h): execute (one round per shot), then the decision and the
 * asynchronous commit: 2 rounds, 1 RTT; smart retry adds one (txn_net_round). */
const struct cc_net_rounds cc_net_rounds = {.prepare = false, .decides_in_commit = true};

/* NCC's counters in the result (cc.h, cc_alg_counter_names), per committed transaction. */
enum {
    NC_SAFEGUARD,  /* passed the safeguard at first try */
    NC_SMART,      /* committed after smart retry */
    NC_RETRIED,    /* had an aborted attempt before (retried from scratch) */
    NC_EARLY,      /* had an attempt end in an early abort */
    NC_DELAYED,    /* its committed attempt had a response delayed by response timing */
    NC_RO_ONE,     /* read-only, committed at its first attempt, no commit message (ncc) */
};
const char *const cc_alg_counter_names[CC_ALG_COUNTERS] = {
    [NC_SAFEGUARD] = "safeguard_first_try", [NC_SMART] = "smart_retry",
    [NC_RETRIED] = "retried_from_scratch", [NC_EARLY] = "early_abort",
    [NC_DELAYED] = "response_delayed", [NC_RO_ONE] = NCC_READ_ONLY ? "read_only_one_round" : NULL,
};

#define TS_CID_BITS PRIO_THREAD_BITS
#define TS_CID_MASK (((uint64_t)1 << TS_CID_BITS) - 1)

enum { E_READ = 1, E_WRITE = 2 };

/* A request's response (and, for a write, its version), in the client's arena. Fields
 * other than `released` are read and written under the key's latch only. */
struct ncc_entry {
    struct ncc_entry *next, *prev;
    struct ncc_entry *ver; /* read: the undecided write whose version it read, or NULL */
    unsigned char *dst;    /* where the value goes at release (the access's image): reads
                            * and blind writes (I5); NULL: a read-modify-write's write */
    struct row *row;
    uint64_t ts;           /* its transaction's pre-assigned timestamp */
    uint64_t tw, tr;       /* read: the response; write: its version's (tw, tr) */
    uint64_t owner;        /* its attempt's id (t->id: unique, also across a failed client's
                            * abandoned attempt and its next ones) */
    int thread;            /* its transaction's thread: whom to wake */
    uint8_t kind;
    uint8_t linked;        /* in the key's queue */
    uint8_t read_on;       /* write: a read executed on its version */
    uint8_t early_abort;   /* released to say: aborted early at re-execution, or (ro) the
                            * version is newer than the snapshot */
    uint8_t ro;            /* a read of the read-only protocol: leaves the queue when
                            * released (no commit message) */
    _Atomic uint8_t released; /* release store by the releaser; the owner polls (acquire) */
};

struct ncc_row {
    _Atomic uint32_t latch;
    uint32_t pad;
    uint64_t tw, tr;
    struct ncc_entry *head, *tail, *newest;
};
_Static_assert(sizeof(struct ncc_row) <= CC_META_SIZE, "ncc: CC_META_SIZE too small");

/* Per-thread state (t->cc). */
struct ncc_thread {
    uint64_t last_clk;
    bool retried, early; /* the query so far: an attempt aborted; one aborted early */
    bool delayed;        /* this attempt: a response was delayed */
    bool rmw_shot;       /* this attempt: the shot of read-modify-write writes is open */
    uint64_t t_ro;       /* this attempt: the read-only snapshot (0: not taken yet) */
};

static inline struct ncc_row *key_of(struct row *r) { return (struct ncc_row *)(void *)r->cc; }

/* The latch protects the key's fields and the row image. */
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

void cc_init(int nthreads) { (void)nthreads; }
void cc_fini(void) {}

void cc_thread_init(struct txn *t)
{
    struct ncc_thread *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    t->cc = s;
}

void cc_thread_fini(struct txn *t)
{
    free(t->cc);
    t->cc = NULL;
}

void cc_row_init(struct row *r)
{
    struct ncc_row *k = key_of(r);
    latch_init(&k->latch);
    k->tw = k->tr = 0;
    k->head = k->tail = k->newest = NULL;
}

void cc_begin(struct txn *t, bool retry)
{
    struct ncc_thread *s = t->cc;
    uint64_t now = clock_ticks() - clock_ticks_base;
    if (t->thread_id & 1) /* --clock-skew-us: odd threads' clocks run behind */
        now -= now < clock_skew_ticks ? now : clock_skew_ticks;
    uint64_t clk = now > s->last_clk ? now : s->last_clk + 1;
    s->last_clk = clk;
    clk += net_delay_ticks; /* asynchrony aware (0 with the model off) */
    t->ts = clk << TS_CID_BITS | (uint64_t)t->thread_id;
    if (!retry)
        s->retried = s->early = false;
    else
        s->retried = true;
    s->delayed = s->rmw_shot = false;
    s->t_ro = 0;
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
    e->next = NULL;
    e->prev = k->tail;
    if (k->tail)
        k->tail->next = e;
    else
        k->head = e;
    k->tail = e;
    e->linked = 1;
}

static void q_unlink(struct ncc_row *k, struct ncc_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        k->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        k->tail = e->prev;
    e->linked = 0;
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

/* Releases e's response: a read's value goes with it (I5). A read-only read (I6) takes the
 * committed version if it is not newer than its snapshot, and leaves the queue. */
static void release(struct ncc_entry *e)
{
    if (e->ro) {
        struct ncc_row *k = key_of(e->row);
        if (k->tw > e->ts) {
            e->early_abort = 1;
        } else if (k->tr < e->ts) {
            k->tr = e->ts;
        }
        q_unlink(k, e);
    }
    if (e->dst && !e->early_abort)
        row_copy_relaxed(e->dst, e->row, e->row->table->schema.data_size);
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

/* Executes a write: a new undecided version, the newest (I1, I2). rd: the writer's own
 * read of the key (a read-modify-write), or NULL. */
static void exec_write(struct ncc_row *k, struct ncc_entry *e, const struct ncc_entry *rd)
{
    e->tw = e->tr = ts_after(k->newest ? k->newest->tr : k->tr, e->ts, rd && rd->tr == e->ts);
    k->newest = e;
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
    return k->newest;
}

/* Removes an undecided entry whose transaction aborted (the abort message), or a
 * request that failed: a write's version goes, and the reads of it are re-executed. */
static void drop_entry(struct ncc_row *k, struct ncc_entry *e)
{
    q_unlink(k, e);
    if (e->kind != E_WRITE)
        return;
    if (k->newest == e) { /* the previous write in the queue is newest now (I1) */
        k->newest = NULL;
        for (struct ncc_entry *x = k->tail; x; x = x->prev)
            if (x->kind == E_WRITE) {
                k->newest = x;
                break;
            }
    }
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

/* Waits until e's response is released (or the run is over). */
static enum rc wait_response(struct txn *t, struct ncc_entry *e, struct row *r, bool write)
{
    uint64_t start = txn_timer_start();
    struct waiter wt = WAITER(WAIT_WOKEN);
    wait_note(WAIT_RESPONSE, r, -1);
    enum rc rc = RC_OK;
    /* acquire: pairs with release(); the response and a read's copied value */
    while (!atomic_load_explicit(&e->released, memory_order_acquire)) {
        if (wait_stopped()) {
            rc = txn_fail(t, AR_STOPPED);
            break;
        }
        wait_round(&wt);
    }
    wait_end();
    if (write)
        txn_ww_wait_done(t, start);
    else
        txn_wait_done(t, start);
    return rc;
}

/* A new entry of t for row r, in t's arena (every field set: no memset on the hot path). */
static inline struct ncc_entry *entry_new(struct txn *t, uint8_t kind, uint64_t ts,
                                          struct row *r, unsigned char *dst)
{
    struct ncc_entry *e = txn_alloc(t, sizeof(*e));
    e->next = e->prev = e->ver = NULL;
    e->dst = dst;
    e->row = r;
    e->ts = ts;
    e->tw = e->tr = 0;
    e->owner = t->id;
    e->thread = t->thread_id;
    e->kind = kind;
    e->linked = e->read_on = e->early_abort = e->ro = 0;
    atomic_init(&e->released, 0);
    return e;
}

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

/* Sends one request of a's row and waits for its response. */
static enum rc request(struct txn *t, struct access *a, uint8_t kind, struct ncc_entry **out)
{
    struct ncc_thread *s = t->cc;
    struct row *r = a->row;
    struct ncc_row *k = key_of(r);
    struct ncc_entry *e =
        entry_new(t, kind, t->ts, r, kind == E_READ || !a->cc_a ? a->data : NULL);
    latch(k);
    if (kind == E_WRITE && a->cc_a) { /* the write of a read-modify-write */
        const struct ncc_entry *rd = (const struct ncc_entry *)(uintptr_t)a->cc_a;
        if ((k->newest ? k->newest->tw : k->tw) != rd->tw) { /* a write came between */
            unlatch(k);
            return txn_fail(t, AR_VALIDATION);
        }
    }
    if (k->head && early_abort(k, e)) {
        unlatch(k);
        s->early = true;
        return txn_fail(t, AR_EARLY);
    }
    if (kind == E_WRITE)
        exec_write(k, e, (const struct ncc_entry *)(uintptr_t)a->cc_a);
    else
        exec_read(k, e, k->newest);
    append_and_release(k, e);
    /* relaxed: set under this latch, just above */
    bool now = atomic_load_explicit(&e->released, memory_order_relaxed);
    unlatch(k);
    *out = e;
    if (now)
        return RC_OK;
    s->delayed = true;
    enum rc rc = wait_response(t, e, r, kind == E_WRITE);
    if (rc == RC_OK && e->early_abort) { /* already unlinked by the re-execution */
        s->early = true;
        rc = txn_fail(t, AR_EARLY);
    }
    return rc;
}

/* A read-modify-write run at the server (txn_rmw_at_server): its read and its write are
 * executed together, one after the other under the latch (no request comes between),
 * as one logical request (section 5.1): the early-abort test is the write's, and only
 * the write's response enters the safeguard. Waits for both responses. */
static enum rc request_pair(struct txn *t, struct access *a, struct ncc_entry **rout,
                            struct ncc_entry **wout)
{
    struct ncc_thread *s = t->cc;
    struct row *r = a->row;
    struct ncc_row *k = key_of(r);
    struct ncc_entry *e = entry_new(t, E_READ, t->ts, r, a->data);
    struct ncc_entry *w = entry_new(t, E_WRITE, t->ts, r, NULL);
    latch(k);
    if (k->head && early_abort(k, w)) {
        unlatch(k);
        s->early = true;
        return txn_fail(t, AR_EARLY);
    }
    exec_read(k, e, k->newest);
    q_append(k, e);
    exec_write(k, w, e);
    q_append(k, w);
    rtc(k);
    /* relaxed: set under this latch, by rtc just above */
    bool now = atomic_load_explicit(&w->released, memory_order_relaxed);
    unlatch(k);
    *rout = e;
    *wout = w;
    if (now) /* the read, ahead of it, went too */
        return RC_OK;
    s->delayed = true;
    enum rc rc = wait_response(t, e, r, false);
    if (rc == RC_OK && e->early_abort) {
        s->early = true;
        rc = txn_fail(t, AR_EARLY);
    }
    if (rc == RC_OK)
        rc = wait_response(t, w, r, true);
    return rc;
}

/* A read of the read-only protocol (I6): t_ro is the reader's clock at its first read
 * less --clock-skew-us (so any transaction that begins later has a larger t on any
 * thread); a read whose key's newest version (undecided or not) is newer aborts. Else it
 * waits in the queue only behind undecided writes, and leaves it at release. */
static enum rc request_ro(struct txn *t, struct access *a, struct ncc_entry **out)
{
    struct ncc_thread *s = t->cc;
    if (!s->t_ro) {
        uint64_t now = clock_ticks() - clock_ticks_base;
        now -= now < clock_skew_ticks ? now : clock_skew_ticks;
        /* plus the expected delay that every later t carries too (asynchrony aware) */
        now += net_delay_ticks;
        s->t_ro = now << TS_CID_BITS | (uint64_t)t->thread_id;
    }
    struct row *r = a->row;
    struct ncc_row *k = key_of(r);
    latch(k);
    if ((k->newest ? k->newest->tw : k->tw) > s->t_ro) {
        unlatch(k);
        txn_net_end_local(t); /* the reply says so; nothing to tell any server */
        return txn_fail(t, AR_READ_ONLY);
    }
    if (!k->head) { /* nothing undecided: the committed version, at once */
        if (k->tr < s->t_ro)
            k->tr = s->t_ro;
        row_copy_relaxed(a->data, r, r->table->schema.data_size);
        unlatch(k);
        return RC_OK;
    }
    struct ncc_entry *e = entry_new(t, E_READ, s->t_ro, r, a->data);
    e->ro = 1;
    q_append(k, e);
    rtc(k);
    /* relaxed: set under this latch, by rtc just above */
    bool now = atomic_load_explicit(&e->released, memory_order_relaxed);
    unlatch(k);
    *out = e;
    if (!now)
        s->delayed = true;
    enum rc rc = now ? RC_OK : wait_response(t, e, r, false);
    if (rc == RC_OK && e->early_abort) {
        txn_net_end_local(t);
        rc = txn_fail(t, AR_READ_ONLY);
    }
    return rc;
}

/* Takes back the entries of a request that failed inside cc_access (the generic layer
 * then forgets a new access, so cc_abort would not see them). */
static void drop_if_linked(struct ncc_entry *e)
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

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    struct row *r = a->row;
    if (NCC_READ_ONLY && t->read_only && type != ACC_READ) {
        fprintf(stderr, "ncc: a transaction declared read-only asked to write\n");
        abort();
    }
    if (type == ACC_INSERT) { /* private until commit: written in place */
        a->data = r->data;
        a->in_place = 1;
        a->cc_a = a->cc_b = 0;
        a->type = ACC_INSERT;
        return RC_OK;
    }
    if (a->type >= ACC_WRITE) { /* ACC_WRITE -> ACC_DELETE: the write request stands */
        a->type = (uint8_t)type;
        return RC_OK;
    }
    bool fresh = a->type == ACC_NONE;
    struct ncc_entry *rd = NULL, *wr = NULL;
    if (NCC_READ_ONLY && t->read_only) {
        a->cc_a = a->cc_b = 0;
        a->in_place = 0;
        a->data = txn_alloc(t, r->table->schema.data_size);
        if (request_ro(t, a, &rd) != RC_OK) {
            drop_if_linked(rd);
            return RC_ABORT;
        }
        a->type = ACC_READ; /* nothing left in any queue: no commit message for it */
        return RC_OK;
    }
    if (fresh) {
        a->cc_a = a->cc_b = 0;
        a->in_place = 0;
        a->data = txn_alloc(t, r->table->schema.data_size);
    }
    if (fresh && !t->acc_blind && type != ACC_READ && txn_rmw_at_server) {
        if (request_pair(t, a, &rd, &wr) != RC_OK) {
            drop_if_linked(wr);
            drop_if_linked(rd);
            return RC_ABORT;
        }
        a->cc_a = (uintptr_t)rd;
        a->cc_b = (uintptr_t)wr;
        a->type = (uint8_t)type;
        return RC_OK;
    }
    if (fresh && !t->acc_blind) {
        if (request(t, a, E_READ, &rd) != RC_OK) {
            drop_if_linked(rd);
            return RC_ABORT;
        }
        a->cc_a = (uintptr_t)rd;
        if (type == ACC_READ) {
            a->type = ACC_READ;
            return RC_OK;
        }
    }
    struct ncc_thread *s = t->cc;
    /* the write of a read-modify-write the client computes: a shot of its own */
    if (net_on && !s->rmw_shot && a->cc_a && !txn_rmw_at_server) {
        s->rmw_shot = true;
        txn_net_new_shot(t, r);
    }
    if (request(t, a, E_WRITE, &wr) != RC_OK) {
        drop_if_linked(wr);
        if (fresh) {
            drop_if_linked(rd);
            a->cc_a = 0;
        }
        return RC_ABORT;
    }
    a->cc_b = (uintptr_t)wr;
    a->type = (uint8_t)type;
    return RC_OK;
}

/* ---- commit ---- */

/* Smart retry of one entry at t2 (section 5.4); true if kept. */
static bool smart_retry_one(struct ncc_entry *e, uint64_t t2)
{
    struct ncc_row *k = key_of(e->row);
    bool kept = true;
    latch(k);
    if (e->kind == E_WRITE) {
        kept = k->newest == e && !e->read_on;
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

/* Access a's read and write entries (NULL where it has none); false if it has neither (an
 * insert, or a read of the read-only protocol). */
static inline bool entries_of(const struct access *a, struct ncc_entry **rd,
                              struct ncc_entry **wr)
{
    *rd = (struct ncc_entry *)(uintptr_t)a->cc_a;
    *wr = (struct ncc_entry *)(uintptr_t)a->cc_b;
    return *rd || *wr;
}

/* The safeguard's response of access a: its write's, else its read's. */
static inline struct ncc_entry *response_of(const struct access *a)
{
    return (struct ncc_entry *)(uintptr_t)(a->cc_b ? a->cc_b : a->cc_a);
}

enum rc cc_commit(struct txn *t)
{
    struct ncc_thread *s = t->cc;
    if (NCC_READ_ONLY && t->read_only) { /* consistent at t_ro already; nothing to send */
        txn_client_decided(t, false);
        t->st.alg[NC_RO_ONE] += !s->retried;
        t->st.alg[NC_RETRIED] += s->retried;
        t->st.alg[NC_EARLY] += s->early;
        t->st.alg[NC_DELAYED] += s->delayed;
        return RC_OK;
    }
    uint64_t tmax = 0, tmin = UINT64_MAX;
    bool any = false;
    for (uint32_t i = 0; i < t->nacc; i++) {
        const struct ncc_entry *e = response_of(&t->acc[i]);
        if (!e)
            continue; /* an insert */
        /* A write's response is (tw, tw): its version's tr grows with other readers'
         * requests (under the latch). tw is written by its owner only, and a read's
         * response is stable once released (acquire in request()). */
        uint64_t tr = e->kind == E_WRITE ? e->tw : e->tr;
        any = true;
        tmax = e->tw > tmax ? e->tw : tmax;
        tmin = tr < tmin ? tr : tmin;
    }
    uint64_t sync = any ? tmax : t->ts;
    bool first = tmax <= tmin;
    if (!first) {
#ifdef MUTANT_NCC_NO_RTC /* smart retry assumes I3; the mutant stays serializable without */
        return txn_fail(t, AR_SAFEGUARD);
#endif
        txn_net_round(t); /* the smart-retry round */
        for (uint32_t i = 0; i < t->nacc; i++) {
            struct ncc_entry *e = response_of(&t->acc[i]);
            if (e && !smart_retry_one(e, sync))
                return txn_fail(t, AR_SAFEGUARD);
        }
    }
    txn_client_decided(t, true); /* asynchronous commit: the commit messages leave */
    t->st.alg[first ? NC_SAFEGUARD : NC_SMART]++;
    t->st.alg[NC_RETRIED] += s->retried;
    t->st.alg[NC_EARLY] += s->early;
    t->st.alg[NC_DELAYED] += s->delayed;

    /* Commit messages. Inserts first: their version is committed at sync before the index
     * publishes them; txn_publish also marks deletes before any response behind them is
     * released, so a reader released after a delete sees the row gone. */
    for (uint32_t i = 0; t->npublish && i < t->nacc; i++)
        if (t->acc[i].type == ACC_INSERT) {
            struct ncc_row *k = key_of(t->acc[i].row);
            k->tw = k->tr = sync; /* still private: the index insert publishes it */
        }
    txn_publish(t);
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        struct ncc_entry *rd, *wr;
        if (!entries_of(a, &rd, &wr))
            continue;
        struct ncc_row *k = key_of(a->row);
        latch(k);
        if (wr) { /* the version becomes the committed one (the older ones are decided) */
            row_install_written(a);
            k->tw = wr->tw;
            k->tr = wr->tr;
            if (k->newest == wr)
                k->newest = NULL;
            q_unlink(k, wr);
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
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        struct ncc_entry *rd, *wr;
        if (!entries_of(a, &rd, &wr))
            continue;
        struct ncc_row *k = key_of(a->row);
        latch(k);
        if (rd && rd->linked) /* first: re-executions of others' reads skip our write */
            drop_entry(k, rd);
        if (wr && wr->linked)
            drop_entry(k, wr);
        if (k->head)
            rtc(k);
        unlatch(k);
    }
}
