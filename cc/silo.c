/* SILO: optimistic concurrency control with epoch-based TIDs (Tu et al., SOSP'13).
 *
 * Row state: one 64-bit TID word in the row's metadata slot (struct silo_row, below:
 * its layout and who writes it).
 *
 * Global state: the epoch number, advanced every SILO_EPOCH_MS by the epoch thread
 * (started in cc_init, stopped in cc_fini) and read by every commit at its serialization
 * point. Per thread: the last TID it chose, kept in t->ts.
 *
 * Read phase: each first access takes a private copy of the row with the optimistic
 * protocol (TID acquire, relaxed copy, acquire fence, re-load; retry while locked or
 * changed) and remembers the TID in a->cc_a. Writes go to the private copy.
 *
 * Commit (the paper's Figure 2):
 *   Phase 1: lock the write set (ACC_WRITE, ACC_DELETE) in row-address order, no-wait.
 *            The lock CAS expects exactly the TID the copy was taken at, so it also
 *            validates the write set (every write is a read-modify-write).
 *   Serialization point: read the global epoch.
 *   Phase 2: validate the read set (ACC_READ): TID unchanged and not locked.
 *            Compute the commit TID.
 *   Phase 3: install the written columns, publish inserts/deletes (txn_publish) under the
 *            locks, then release each lock with the new TID.
 *
 * Abort paths: cc_access waits while a row is locked (the generic layer aborts with
 * AR_DELETED on a deleted row), except in a context that must not wait (t->no_wait, the
 * geo layer's leaders, whose locks are held across emulated network delays): there a
 * locked row aborts the access (AR_WRITE_LOCK). In commit: a write-set row locked by another
 * committer -> AR_WRITE_LOCK; a write-set row whose TID changed since the copy, or a
 * read-set row changed or locked -> AR_VALIDATION. cc_abort restores the TID of every row
 * this attempt locked (ACC_LOCKED in cc_flags), so it copes with a commit that failed half
 * way. Nothing was installed before Phase 3, which cannot fail.
 *
 * Lock order: write-set rows by address; locks are only tried, never waited for.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cc/txn.h"
#include "config/config.h"
#include "storage/topology.h"
#include "storage/shared_writes.h"

const char cc_alg_name[] = "SILO";
const bool cc_alg_serializable = true;
/* Network rounds (cc/netmodel.h): distributed OCC, execute / prepare (lock, validate) /
 * commit (install, unlock): 3 rounds, 2 RTTs. */
const struct cc_net_rounds cc_net_rounds = {.prepare = true, .decides_in_commit = true};
/* Every first access takes a private copy of the whole row (occ_try_read): a prefetch
 * requests every line (txn_prefetch). */
const bool cc_alg_copies_rows = true;

#define TID_LOCK ((uint64_t)1)
#define TID_STEP ((uint64_t)2) /* one sequence number */
#define EPOCH_SHIFT 40
#define ACC_LOCKED 1          /* a->cc_flags: this attempt holds the row's lock bit */

/* Row state: one 64-bit TID word in the row's metadata slot.
 *
 *     63            40 39                    1    0
 *    +----------------+-----------------------+------+
 *    |     epoch      |   sequence in epoch   | lock |
 *    +----------------+-----------------------+------+
 *
 *   The word without the lock bit is the TID of the row's current version. It is
 *   written only by the holder of the lock bit (or by the inserter while the row is
 *   still private): a committer sets the lock bit with a CAS, installs its image and
 *   publishes the new TID with one release store that also clears the lock bit; an
 *   aborting committer restores the old TID. TIDs of a row strictly increase, so a TID
 *   names one version (no ABA).
 */
struct silo_row {
    _Atomic uint64_t tid;
};
_Static_assert(sizeof(struct silo_row) <= CC_META_SIZE, "silo: CC_META_SIZE too small");

static inline _Atomic uint64_t *row_tid(struct row *r)
{
    return &((struct silo_row *)(void *)r->cc)->tid;
}
static inline _Atomic uint64_t *acc_tid(const struct access *a) { return row_tid(a->row); }

/* ---- Epochs ---- */

static _Atomic uint64_t silo_epoch = 1;
static _Atomic bool epoch_stop;
static pthread_t epoch_thread;

static void *epoch_main(void *arg)
{
    (void)arg;
    topo_pin_helper();
    struct timespec ts = {0, SILO_EPOCH_MS * 1000000L};
    while (!atomic_load(&epoch_stop)) {
        nanosleep(&ts, NULL);
        SHW(SHW_GLOBAL);
        atomic_fetch_add(&silo_epoch, 1);
    }
    return NULL;
}

void cc_init(int nthreads)
{
    (void)nthreads;
    atomic_store(&epoch_stop, false);
    if (pthread_create(&epoch_thread, NULL, epoch_main, NULL) != 0) {
        fprintf(stderr, "silo: cannot start the epoch thread\n");
        exit(1);
    }
}

void cc_fini(void)
{
    atomic_store(&epoch_stop, true);
    pthread_join(epoch_thread, NULL);
}

void cc_thread_init(struct txn *t)
{
    t->ts = 0;
}
void cc_thread_fini(struct txn *t)
{
    (void)t;
}

void cc_row_init(struct row *r)
{
    atomic_init(row_tid(r), 0);
}

void cc_begin(struct txn *t, bool retry)
{
    (void)t;
    (void)retry;
}

/* ---- Read phase ---- */

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    if (occ_access_private(a, type)) /* upgrade or insert */
        return RC_OK;
    /* the TID as it was over the whole copy (every bit stable) */
    if (!occ_try_read(t, a, type, row_tid(a->row), TID_LOCK, ~(uint64_t)0, &a->cc_a))
        return txn_fail(t, AR_WRITE_LOCK);
    return RC_OK;
}

/* ---- Commit ---- */

/* The write set between silo_prepare and silo_install, in the arena (t->cc points to it
 * in between; Silo keeps no other per-thread state there). */
struct silo_commit {
    struct access **ws;
    uint32_t nw;
};

/* Phases 1 and 2 (cc_prepare, cc_commit): on RC_OK the write set ws[0, *nw) is locked
 * and validated and t->ts is the commit TID. */
static enum rc silo_prepare(struct txn *t)
{
    /* one scan: write set ws[0, nw) (locked, installed), read set rs[0, nr) (validated) */
    uint32_t n = t->nacc, nw = 0, nr = 0;
    struct access **ws = txn_alloc(t, 2 * (size_t)n * sizeof(*ws)), **rs = ws + n;
    uint64_t max_tid = t->ts; /* (b) larger than the worker's last TID */
    for (uint32_t i = 0; i < n; i++) {
        struct access *a = &t->acc[i];
        if (a->type == ACC_READ)
            rs[nr++] = a;
        else if (a->type != ACC_INSERT) /* ACC_WRITE, ACC_DELETE */
            ws[nw++] = a;
        if (a->cc_a > max_tid) /* (a) larger than every TID read or written */
            max_tid = a->cc_a;
    }
    txn_sort_by_row(ws, nw);

    /* Phase 1: lock the write set in address order. seq_cst CAS: with the seq_cst
     * loads of the epoch and of Phase 2 it orders the locks before the validation (a
     * concurrent committer that read one of our rows sees our lock, or we see its) */
    for (uint32_t i = 0; i < nw; i++) {
        struct access *a = ws[i];
#ifdef MUTANT_SILO_LOCK_ANY_TID /* mutant: the lock CAS no longer validates the write set */
        a->cc_a = atomic_load(row_tid(a->row)) & ~TID_LOCK;
#endif
        uint64_t expect = a->cc_a;
        SHW(SHW_ROW);
        if (!atomic_compare_exchange_strong(row_tid(a->row), &expect, expect | TID_LOCK))
            return txn_fail(t, expect == (a->cc_a | TID_LOCK) ? AR_WRITE_LOCK : AR_VALIDATION);
        a->cc_flags |= ACC_LOCKED;
    }

    /* Serialization point */
    uint64_t epoch = atomic_load(&silo_epoch);

    /* Phase 2: validate the read set (the write set was validated by the lock CAS) */
#ifdef MUTANT_SILO_SKIP_READ_VALIDATION /* mutant: no read-set validation */
    nr = 0;
#endif
#ifdef MUTANT_SILO_RW_SKIP_READ_VALIDATION /* mutant: a writer leaves the rows it only read */
    if (nw)
        nr = 0;
#endif
    for (uint32_t i = 0; i < nr; i++)
        if (atomic_load(row_tid(rs[i]->row)) != rs[i]->cc_a)
            return txn_fail(t, AR_VALIDATION);
    /* (c) in the current epoch */
    uint64_t tid = max_tid + TID_STEP;
    if (tid < epoch << EPOCH_SHIFT)
        tid = epoch << EPOCH_SHIFT;
    t->ts = tid;
    struct silo_commit *c = txn_alloc(t, sizeof(*c));
    *c = (struct silo_commit){ws, nw};
    t->cc = c;
    return RC_OK;
}

/* Phase 3: install, publish, unlock with the new TID */
static void silo_install(struct txn *t)
{
    const struct silo_commit *c = t->cc;
    occ_install(t, c->ws, c->nw, acc_tid, t->ts, 0);
}

enum rc cc_commit(struct txn *t)
{
    if (silo_prepare(t) != RC_OK)
        return RC_ABORT;
    txn_net_decision(t); /* network model: write locks held till the commit arrives */
    silo_install(t);
    return RC_OK;
}

enum rc cc_prepare(struct txn *t) { return silo_prepare(t); }
void cc_finish(struct txn *t) { silo_install(t); }

void cc_abort(struct txn *t)
{
    for (uint32_t i = 0; i < t->nacc; i++) {
        struct access *a = &t->acc[i];
        if (a->cc_flags & ACC_LOCKED) {
            /* release: unlocks with the unchanged TID; pairs with the acquire TID load
             * of occ_read (nothing was installed, the image is the old one) */
            SHW(SHW_ROW);
            atomic_store_explicit(row_tid(a->row), a->cc_a, memory_order_release);
            a->cc_flags &= (uint16_t)~ACC_LOCKED;
        }
    }
}
