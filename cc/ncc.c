/* NCC and NCC-RW: natural concurrency control (Lu et al., OSDI'23, seeds/001), strictly
 * serializable, hosted on one machine: each worker thread is a client and its own
 * coordinator, and the "server" work on a key (execution, response timing control,
 * commit and abort messages) runs in whichever thread sends the request or message,
 * under the key's latch. NCC-RW runs every transaction by the read-write protocol; NCC
 * (NCC_READ_ONLY) runs transactions the workload declared read-only
 * (txn_declare_read_only) by a read-only protocol of ours (I6), since the paper's
 * section 5.5 is not in the seed text.
 *
 * Files: this one is the client side: the cc_* entry points, timestamps, the requests
 * and their waits, the safeguard, smart retry, the read-only protocol's client part,
 * per-thread state, counters and the recovery hooks. cc/ncc_key.c is the key (server)
 * side: the key latch, the response queue, response timing control, the execution of
 * requests on the key's versions, release, and the commit and abort messages at the key
 * (and smart retry's check there). cc/ncc_key.h, the private interface between them,
 * holds the per-key structs and the messages (nk_*) this file sends to a key.
 *
 * Timestamps (section 5.1, 5.3) are one 64-bit word (clk << 12 | thread): clk in
 * clock ticks, compared first; the thread id stands for cid. A transaction's
 * pre-assigned timestamp t (cc_begin) has clk = max(now, the thread's last clk + 1),
 * plus the network model's expected one-way delay when the model is on (asynchrony
 * aware). The thread's clk grows with every attempt, so (clk, thread) is unique per
 * attempt without the paper's attempt number; a retry is a new attempt, with a new t.
 * --clock-skew-us sets odd threads' clocks back (to study skew).
 *
 * Per key (struct ncc_row, the row's CC slot): its fields (tw, tr, the response queue)
 * and the invariants are stated above the struct in cc/ncc_key.h: I1 versions
 * in queue order, I2 timestamps grow along versions, I3 response timing control, I4
 * early abort, I5 a released read's version stays the committed one, I6 the read-only
 * protocol (ours), I7 in-place writes (ours).
 *
 * Requests (cc_access). The client waits for each response before its next request
 * (ours: the paper sends a shot's requests together and waits once; values are final at
 * release either way). Read: a read entry. Write or delete: a read-modify-write, a read
 * request and then a write request (section 5.1's rule): the write aborts if the newest
 * version's tw differs from the one the read returned; only the write's response enters
 * the safeguard. With the network model the first read-modify-write's write opens a new
 * shot (YCSB's writes are in shot 2). A read-modify-write run at the server writes the
 * row in place once its write's response is released (I7). Inserts create the key's
 * first version at commit (the row is invisible until then).
 *
 * Commit (cc_commit): the safeguard (section 5.1): over the responses (a write's is
 * (tw, tw), a read's (tw, tr)), commit iff max(tw) <= min(tr); the synchronisation point
 * is max(tw). Else smart retry (section 5.4; one more round): t' = max(tw); a read is
 * kept iff no undecided version with tw <= t' was created after it (by I5 its version
 * is the committed one and every later version is in the queue), then curr.tr =
 * max(curr.tr, t'); a write iff its version is still newest and unread, then tw = tr =
 * t'. All kept: commit at t'; else abort and retry from scratch. Then the decision
 * (the client's answer: txn_client_decided) and the commit messages, one per key:
 * install the written columns (unless written in place), the version becomes the
 * committed one, entries leave, response timing control runs. Abort messages remove the
 * entries; a removed write's version is gone (written in place: the before-image goes
 * back), and the reads that had read it are re-executed on the newest version and move
 * to the tail (Algorithm 5.3).
 *
 * Client failure (benchmarks/recovery.h): a failed client's attempt is finished by a
 * backup thread with cc_commit / cc_abort on its context, so it decides exactly as the
 * client would have. Entries name their attempt (owner = t->id), not their thread, since
 * the client's next attempts run on the same thread meanwhile.
 *
 * Lock order: one key latch at a time (struct ncc_row's, taken only inside the nk_*
 * messages of cc/ncc_key.c, each of which releases it before it returns); no wait while
 * holding one: a client waits for a response only after the latch is released, and the
 * wake-ups of released responses are sent after it (unlatch's wait_wake_flush).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/ncc_key.h"
#include "cc/txn.h"
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
/* A read latches the key's state in the row's slot (txn_prefetch: the line comes
 * exclusive). */
const bool cc_alg_reads_write_meta = true;
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

/* Per-thread state (t->cc). */
struct ncc_thread {
    uint64_t last_clk;
    bool retried, early; /* the query so far: an attempt aborted; one aborted early */
    bool delayed;        /* this attempt: a response was delayed */
    bool rmw_shot;       /* this attempt: the shot of read-modify-write writes is open */
    uint64_t t_ro;       /* this attempt: the read-only snapshot (0: not taken yet) */
};

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

void cc_row_init(struct row *r) { nk_row_init(key_of(r)); }

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

/* ---- requests ---- */

/* Waits until e's response is released (or the run is over). */
static enum rc wait_response(struct txn *t, struct ncc_entry *e, struct row *r, bool write)
{
    uint64_t start = txn_timer_start();
    struct waiter wt = WAITER(WAIT_WOKEN);
    wait_note(WAIT_RESPONSE, r, -1);
    enum rc rc = RC_OK;
    /* acquire: pairs with release() (cc/ncc_key.c); the response and a read's copied value */
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

/* Sends one request of a's row and waits for its response. */
static enum rc request(struct txn *t, struct access *a, uint8_t kind, struct ncc_entry **out)
{
    struct ncc_thread *s = t->cc;
    struct row *r = a->row;
    /* the value goes to the access's private image: a read's, unless the read uses the
     * row in place (cc_access), and a blind write's (I5); not a read-modify-write's
     * write, whose image its read filled */
    unsigned char *dst = kind == E_READ ? (a->in_place ? NULL : a->data)
                                        : (a->cc_a ? NULL : a->data);
    struct ncc_entry *e = entry_new(t, kind, t->ts, r, dst);
    /* for a write: the read of its read-modify-write, if any */
    enum nk_rc kr = nk_request(key_of(r), e, (const struct ncc_entry *)(uintptr_t)a->cc_a);
    if (kr == NK_MOVED)
        return txn_fail(t, AR_VALIDATION);
    if (kr == NK_EARLY) {
        s->early = true;
        return txn_fail(t, AR_EARLY);
    }
    *out = e;
    if (kr == NK_RELEASED)
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
    struct ncc_entry *e = entry_new(t, E_READ, t->ts, r, NULL); /* in place (I7) */
    struct ncc_entry *w = entry_new(t, E_WRITE, t->ts, r, NULL);
    enum nk_rc kr = nk_request_pair(key_of(r), e, w);
    if (kr == NK_EARLY) {
        s->early = true;
        return txn_fail(t, AR_EARLY);
    }
    *rout = e;
    *wout = w;
    if (kr == NK_RELEASED) /* the read, ahead of it, went too */
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
    struct ncc_entry *e = NULL;
    enum nk_rc kr = nk_read_ro(t, r, s->t_ro, a->data, &e);
    if (kr == NK_STALE) {
        txn_net_end_local(t); /* the reply says so; nothing to tell any server */
        return txn_fail(t, AR_READ_ONLY);
    }
    if (!e) /* nothing undecided: the committed version, at once */
        return RC_OK;
    *out = e;
    if (kr == NK_QUEUED)
        s->delayed = true;
    enum rc rc = kr == NK_RELEASED ? RC_OK : wait_response(t, e, r, false);
    if (rc == RC_OK && e->early_abort) {
        txn_net_end_local(t);
        rc = txn_fail(t, AR_READ_ONLY);
    }
    return rc;
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
        a->data = txn_alloc(t, row_table(r)->schema.data_size);
        if (request_ro(t, a, &rd) != RC_OK) {
            nk_take_back(rd);
            return RC_ABORT;
        }
        a->type = ACC_READ; /* nothing left in any queue: no commit message for it */
        return RC_OK;
    }
    /* a read-modify-write run at the server: one request for both (request_pair) */
    bool pair = fresh && !t->acc_blind && type != ACC_READ && txn_rmw_at_server;
    if (fresh) {
        /* A read uses the row's image in place, without a copy: from the read's release
         * until its transaction decides, its version is the committed one and no one
         * installs into the row (I5), so the image is stable while the transaction runs.
         * (The read-only protocol's reads, above, leave the queue at release: they copy.)
         * An upgrade to a write takes a private copy first (below). A pair writes in
         * place (I7): the generic layer takes the before-image once it returns. */
        a->cc_a = a->cc_b = 0;
        a->in_place = type == ACC_READ || pair;
        a->data = a->in_place ? r->data : txn_alloc(t, row_table(r)->schema.data_size);
    }
    if (pair) {
        if (request_pair(t, a, &rd, &wr) != RC_OK) {
            nk_take_back(wr);
            nk_take_back(rd);
            return RC_ABORT;
        }
        a->cc_a = (uintptr_t)rd;
        a->cc_b = (uintptr_t)wr;
        a->type = (uint8_t)type;
        return RC_OK;
    }
    if (fresh && !t->acc_blind) {
        if (request(t, a, E_READ, &rd) != RC_OK) {
            nk_take_back(rd);
            return RC_ABORT;
        }
        a->cc_a = (uintptr_t)rd;
        if (type == ACC_READ) {
            a->type = ACC_READ;
            return RC_OK;
        }
    }
    if (a->in_place) { /* an upgrade of an in-place read: the writer's private image, a
                        * copy of the version it read, still committed and unchanged
                        * (I5: its read is queued) */
        uint32_t size = row_table(r)->schema.data_size;
        a->data = txn_alloc(t, size);
        memcpy(a->data, r->data, size);
        a->in_place = 0;
    }
    struct ncc_thread *s = t->cc;
    /* the write of a read-modify-write the client computes: a shot of its own */
    if (net_on && !s->rmw_shot && a->cc_a && !txn_rmw_at_server) {
        s->rmw_shot = true;
        txn_net_new_shot(t, r);
    }
    if (request(t, a, E_WRITE, &wr) != RC_OK) {
        nk_take_back(wr);
        if (fresh) {
            nk_take_back(rd);
            a->cc_a = 0;
        }
        return RC_ABORT;
    }
    a->cc_b = (uintptr_t)wr;
    a->type = (uint8_t)type;
    return RC_OK;
}

/* ---- commit ---- */

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
#ifdef MUTANT_NCC_NO_RTC /* smart retry assumes I3, which the mutant breaks (and with it I5
                          * and I7: a writer may install, or write in place, under a running
                          * reader's image) */
        return txn_fail(t, AR_SAFEGUARD);
#endif
        txn_net_round(t); /* the smart-retry round */
        for (uint32_t i = 0; i < t->nacc; i++) {
            struct ncc_entry *e = response_of(&t->acc[i]);
            if (e && !nk_smart_retry(e, sync))
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
        if (entries_of(a, &rd, &wr))
            nk_commit(a, rd, wr);
    }
    return RC_OK;
}

void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        struct ncc_entry *rd, *wr;
        if (entries_of(a, &rd, &wr))
            nk_abort(a, rd, wr);
    }
}
