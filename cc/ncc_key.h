/* NCC's private interface between its two sides (included by cc/ncc.c and cc/ncc_key.c
 * only; cc/ncc.c's opening essay describes the protocol and which file holds what):
 *   - the per-key structs, struct ncc_entry (a request's response) and struct ncc_row
 *     (the key's state, with the invariants I1-I7 that the rest of NCC refers to);
 *   - the messages a client sends to a key (nk_*, cc/ncc_key.c): each takes the key's
 *     latch, does the server's work on the key and releases the latch before it
 *     returns, so a caller never holds a latch.
 */
#ifndef CC_NCC_KEY_H
#define CC_NCC_KEY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cc/txn.h"

/* Timestamps (cc/ncc.c): clk << TS_CID_BITS | thread. */
#define TS_CID_BITS PRIO_THREAD_BITS
#define TS_CID_MASK (((uint64_t)1 << TS_CID_BITS) - 1)

enum { E_READ = 1, E_WRITE = 2 };

/* A request's response (and, for a write, its version), in the client's arena. Fields
 * other than `released` are read and written under the key's latch only, but for the
 * owner's reads of its released response (tw, tr: stable once released, read after the
 * acquire of `released`; cc_commit's safeguard). */
struct ncc_entry {
    struct ncc_entry *next, *prev;
    struct ncc_entry *ver; /* read: the undecided write whose version it read, or NULL */
    unsigned char *dst;    /* where the value goes at release (the access's private
                            * image): a client-side read-modify-write's read, a
                            * read-only read, a blind write (I5); NULL: a read in
                            * place, a server-side pair (I7), a read-modify-write's
                            * write */
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

/* Per key (struct ncc_row, the row's CC slot), under its latch:
 *   tw, tr    the committed version's timestamps; row->data is its value.
 *   queue     the response queue (section 5.2, Algorithm 5.3): one entry per request
 *             whose transaction is undecided, in execution order; decided entries leave
 *             at once (the paper drops them at the head; nothing reads a decided entry,
 *             so leaving early changes no decision).
 *   The key's newest version is the last write entry in the queue (I1), or the committed
 *   one when the queue holds no write: newest() in cc/ncc_key.c finds it from the tail.
 *   (Not a field: 40 bytes keep the slot small enough that TPC-C's ORDER-LINE rows
 *   take two cache lines, not three, with the 16-byte row header; config/variants.tsv.
 *   With the 24-byte header of before 2026-12-07, STOCK and HISTORY rows.)
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
 *       decides (a later write waits for the read, I3, and installs only after it
 *       decides): no one writes the row's image meanwhile. So a plain read uses the
 *       image in place (cc_access); a blind write's image is copied from the row at
 *       release, under the latch (and a read-modify-write's read's, which its writer
 *       then changes, unless run at the server: I7).
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
 *       the reader instead). A writer that began before t_ro and writes a key after the
 *       reader read it takes tw > t_ro there (the read raised tr to t_ro, I2), so it
 *       commits with all its writes at tw > t_ro (the safeguard, or smart retry) or
 *       aborts, and the reader, reading another of them later, aborts: it never sees
 *       part of such a writer. The paper's client-side knowledge of each server's newest
 *       writes, which picks a larger snapshot, is not built: its safety argument is not
 *       in the seed text.
 *   I7. In-place writes (ours): a read-modify-write run at the server (nk_request_pair)
 *       writes the row's image in place, with no private image and no install at
 *       commit. Its client writes only after its write's response is released, when
 *       every entry before it is its own (I3): every earlier writer has installed (or
 *       written in place) and left, or aborted (its before-image put back), and every
 *       earlier reader has decided (a read-only read copied and left at its release),
 *       so the image is the committed version. From then until its transaction decides
 *       nothing else reads or writes the image: a later read of its version, a later
 *       write and a read-only read wait for the decision (I3, I6). The generic layer
 *       takes the before-image (a->undo) when the request returns; the abort message
 *       puts it back under the latch before the reads of the version are re-executed;
 *       the commit message's latch orders the writes before the releases it makes.
 */
struct ncc_row {
    _Atomic uint32_t latch;
    uint32_t pad;
    uint64_t tw, tr;
    struct ncc_entry *head, *tail;
};
_Static_assert(sizeof(struct ncc_row) <= CC_META_SIZE, "ncc: CC_META_SIZE too small");

static inline struct ncc_row *key_of(struct row *r) { return (struct ncc_row *)(void *)r->cc; }

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

/* ---- the messages to a key (cc/ncc_key.c) ---- */

/* What a request's execution at the key answered. */
enum nk_rc {
    NK_QUEUED = 0,   /* executed and queued: the client waits for `released` */
    NK_RELEASED = 1, /* executed; its response is released already (0 and 1: a request
                      * returns its `released` flag as it is, on the hot path) */
    NK_MOVED,        /* not executed: the write of a read-modify-write found another write
                      * since its read (the client aborts, AR_VALIDATION) */
    NK_EARLY,        /* not executed: early abort (I4; AR_EARLY) */
    NK_STALE,        /* not executed: a read-only read found a version newer than its
                      * snapshot (I6; AR_READ_ONLY) */
};

/* Initialises the key of a new row (load or insert): latch free, no version but the
 * committed one, at (0, 0), empty queue. */
void nk_row_init(struct ncc_row *k);
/* Executes request e (fresh from entry_new; e->kind says read or write) at key k. rd: for
 * a write, the writer's own read entry of the key (the read of a read-modify-write), or
 * NULL (a blind write); ignored for a read. NK_RELEASED, NK_QUEUED, NK_EARLY, or
 * NK_MOVED (writes with rd only). */
enum nk_rc nk_request(struct ncc_row *k, struct ncc_entry *e, const struct ncc_entry *rd);
/* Executes a read-modify-write at the server (txn_rmw_at_server): read e and write w of
 * one transaction, one after the other under the latch (no request comes between), as
 * one logical request. NK_RELEASED (both), NK_QUEUED (the client waits for e, then w) or
 * NK_EARLY (the write's test). e copies nothing (dst NULL): the pair writes in place
 * (I7). */
enum nk_rc nk_request_pair(struct ncc_row *k, struct ncc_entry *e, struct ncc_entry *w);
/* A read of the read-only protocol of t (I6) at row r with snapshot t_ro: NK_STALE; or,
 * with nothing undecided at the key, the committed version copied to dst at once
 * (NK_RELEASED, *out untouched); else a new entry, queued behind the undecided writes
 * (*out: NK_RELEASED or NK_QUEUED; its early_abort says whether it failed at release). */
enum nk_rc nk_read_ro(struct txn *t, struct row *r, uint64_t t_ro, unsigned char *dst,
                      struct ncc_entry **out);
/* Takes back entry e (NULL: nothing) of a request that failed inside cc_access, if it is
 * still queued. */
void nk_take_back(struct ncc_entry *e);
/* Smart retry of entry e at t2 (section 5.4) at its key; true if kept. */
bool nk_smart_retry(struct ncc_entry *e, uint64_t t2);
/* The commit message of access a, whose read and write entries are rd and wr (NULL where
 * it has none): its version becomes the committed one (installed, unless written in
 * place: I7), its entries leave, response timing control runs. */
void nk_commit(const struct access *a, struct ncc_entry *rd, struct ncc_entry *wr);
/* The abort message of access a (entries as nk_commit's): its entries leave, a write's
 * version goes (written in place: the before-image back first, I7) and the reads of it
 * are re-executed. */
void nk_abort(const struct access *a, struct ncc_entry *rd, struct ncc_entry *wr);

#endif
