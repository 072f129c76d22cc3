/* NONE: no concurrency control at all, the upper bound of what CC can cost.
 *
 * Every access reads and writes the row in place with no lock, no version and no check;
 * an abort (only the workload's own rollbacks) restores the before-images. Correct only
 * with one thread; with several, lost updates and dirty reads are expected (it does not
 * claim serializability and is excluded from the correctness tests). */
#include "cc/txn.h"

const char cc_alg_name[] = "NONE";
const bool cc_alg_serializable = false;
/* Network rounds (cc/netmodel.h): execute / commit, 2 rounds, 1 RTT. */
const struct cc_net_rounds cc_net_rounds = {.prepare = false};

void cc_init(int nthreads) { (void)nthreads; }
void cc_fini(void) {}
void cc_thread_init(struct txn *t) { (void)t; }
void cc_thread_fini(struct txn *t) { (void)t; }
void cc_row_init(struct row *r) { (void)r; }
void cc_begin(struct txn *t, bool retry)
{
    (void)t;
    (void)retry;
}

enum rc cc_access(struct txn *t, struct access *a, enum access_type type)
{
    (void)t;
    a->type = (uint8_t)type;
    a->data = a->row->data;
    a->in_place = 1;
    return RC_OK;
}

enum rc cc_commit(struct txn *t)
{
    txn_publish(t);
    return RC_OK;
}

void cc_abort(struct txn *t) { txn_undo_in_place(t); }
