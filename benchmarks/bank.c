/* Bank: an invariant workload. --accounts accounts of balance 1000 each, cut into
 * branches of --branch-size consecutive accounts (the last branch also takes the
 * remainder). 90% of transactions transfer a random amount between two distinct accounts
 * of one branch: the source is drawn from the hot set (the first --hot-accounts accounts)
 * with probability --hot-prob, else from all accounts, and the destination uniformly from
 * the source's branch; a transfer plain-reads both accounts (txn_read), then reads them
 * for update and writes them, so the algorithm's read path and its read -> write upgrade
 * are both exercised; it refuses overdrafts. 10% audit one whole branch (a hot account's
 * branch with probability --hot-prob) with plain reads.
 *
 * Invariants: money only moves within a branch, so every branch's total stays
 * branch-length * 1000 at every commit. An audit that commits under a serializable
 * algorithm (cc_alg_serializable) must have seen exactly that total: it is equivalent to
 * running alone between two transfers. A committed audit that saw another total is a
 * mismatch: counted ("audit_mismatches" in the result), and under a serializable
 * algorithm it fails the run (exit 1, the first mismatch's seen and expected totals on
 * stderr). At RC/RR an audit may see some transfers and not others: mismatches are
 * counted only. After the run the total balance must equal the initial total and no
 * balance may be negative, else the run fails. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "storage/table.h"

#define INITIAL_BALANCE 1000

enum { BANK_TRANSFER, BANK_AUDIT };

struct bank_query {
    uint32_t type;
    uint32_t amount;
    uint64_t from, to; /* transfer: two accounts of one branch; audit: from is the branch */
};

static struct table *accounts;
static int col_balance;
static uint64_t branch_size, nbranches;

/* Audits that committed having seen a wrong total. Touched only on a mismatch (rare, or a
 * bug): relaxed, the count and the first seen/expected pair are read after the workers
 * joined. */
static _Atomic uint64_t audit_mismatches;
static _Atomic int64_t first_seen, first_expected;
/* The total the worker's last audit attempt saw, and what it should have seen. */
static _Thread_local int64_t audit_seen, audit_expected;

static void fill_balance(struct row *row, void *arg)
{
    (void)arg;
    int64_t b = INITIAL_BALANCE;
    memcpy(col_ptr(&accounts->schema, row->data, col_balance), &b, sizeof(b));
}

static uint64_t bank_rows_to_load(const struct options *o) { return o->accounts; }

static void load_part(int i, void *arg)
{
    const struct options *o = arg;
    uint64_t lo, hi;
    load_slice(o->accounts, i, o->threads, &lo, &hi);
    load_rows(accounts, NULL, lo, hi, fill_balance, NULL);
}

static void bank_load(const struct options *o)
{
    struct schema s;
    schema_init(&s, o->verify);
    col_balance = schema_add(&s, "balance", COL_INT64, 8);
    schema_seal(&s);
    accounts = table_create("accounts", &s, o->accounts, true);
    branch_size = o->branch_size;
    nbranches = o->accounts / o->branch_size;
    atomic_store(&audit_mismatches, 0);
    progress_phase("load", "rows", o->accounts);
    parallel_for(o->threads, load_part, (void *)o);
}

static size_t bank_query_size(const struct options *o)
{
    (void)o;
    return sizeof(struct bank_query);
}

static uint64_t pick(struct rng *r, const struct options *o)
{
    if (rng_double(r) < o->hot_prob)
        return rng_below(r, o->hot_accounts);
    return rng_below(r, o->accounts);
}

static uint64_t branch_of(uint64_t acct)
{
    uint64_t b = acct / branch_size;
    return b < nbranches ? b : nbranches - 1;
}

/* The accounts [*lo, *hi) of branch b (at least branch_size >= 2 of them). */
static void branch_range(uint64_t b, uint64_t *lo, uint64_t *hi)
{
    *lo = b * branch_size;
    *hi = b + 1 == nbranches ? table_nrows(accounts) : *lo + branch_size;
}

static void bank_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    struct bank_query *q = qv;
    q->type = rng_below(r, 10) == 0 ? BANK_AUDIT : BANK_TRANSFER;
    q->amount = 1 + (uint32_t)rng_below(r, 100);
    q->from = pick(r, o);
    uint64_t lo, hi;
    branch_range(branch_of(q->from), &lo, &hi);
    if (q->type == BANK_AUDIT) {
        q->from = branch_of(q->from);
        return;
    }
    /* a transfer needs two distinct accounts: any other one of the branch */
    q->to = lo + rng_below(r, hi - lo - 1);
    if (q->to >= q->from)
        q->to++;
}

static int bank_type(const void *q) { return (int)((const struct bank_query *)q)->type; }

static int64_t balance_of(const unsigned char *img)
{
    int64_t b;
    memcpy(&b, col_ptr(&accounts->schema, img, col_balance), sizeof(b));
    return b;
}

static enum rc bank_run(struct txn *t, const void *qv)
{
    const struct bank_query *q = qv;
    const unsigned char *img;
    if (q->type == BANK_AUDIT) {
        txn_declare_read_only(t);
        uint64_t lo, hi;
        branch_range(q->from, &lo, &hi);
        int64_t sum = 0;
        for (uint64_t k = lo; k < hi; k++) {
            struct row *r = txn_lookup(t, accounts, k);
            if (txn_read(t, r, COL_BIT(col_balance), &img) != RC_OK)
                return RC_ABORT;
            sum += balance_of(img);
        }
        audit_seen = sum; /* judged by bank_committed, if this attempt commits */
        audit_expected = (int64_t)(hi - lo) * INITIAL_BALANCE;
        return RC_OK;
    }
    struct row *from = txn_lookup(t, accounts, q->from);
    struct row *to = txn_lookup(t, accounts, q->to);
    /* plain reads first (the balances a teller would look at), then read for update: an
     * upgrade for 2PL, a speculative read then a write for RCC at SER */
    if (txn_read(t, from, COL_BIT(col_balance), &img) != RC_OK ||
        txn_read(t, to, COL_BIT(col_balance), &img) != RC_OK)
        return RC_ABORT;
    if (txn_read_for_update(t, from, COL_BIT(col_balance), &img) != RC_OK)
        return RC_ABORT;
    int64_t fb = balance_of(img);
    if (txn_read_for_update(t, to, COL_BIT(col_balance), &img) != RC_OK)
        return RC_ABORT;
    int64_t tb = balance_of(img);
    if (fb < (int64_t)q->amount)
        return RC_OK; /* overdraft refused: commits without writing */
    fb -= q->amount;
    tb += q->amount;
    if (txn_write(t, from, col_balance, &fb) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, from);
    if (txn_write(t, to, col_balance, &tb) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, to);
    return RC_OK;
}

static void bank_committed(const void *qv)
{
    const struct bank_query *q = qv;
    if (q->type != BANK_AUDIT || audit_seen == audit_expected)
        return;
    /* relaxed: see audit_mismatches */
    if (atomic_fetch_add_explicit(&audit_mismatches, 1, memory_order_relaxed) == 0) {
        atomic_store_explicit(&first_seen, audit_seen, memory_order_relaxed);
        atomic_store_explicit(&first_expected, audit_expected, memory_order_relaxed);
    }
}

static bool bank_check(const struct options *o, FILE *out)
{
    uint64_t bad = atomic_load(&audit_mismatches);
    if (bad && cc_alg_serializable)
        fprintf(out,
                "bank: %llu committed audits saw a wrong branch total (first: saw %lld, "
                "expected %lld) under a serializable algorithm\n",
                (unsigned long long)bad, (long long)atomic_load(&first_seen),
                (long long)atomic_load(&first_expected));
    int64_t sum = 0, neg = 0;
    uint64_t n = table_nrows(accounts);
    for (uint64_t i = 0; i < n; i++) {
        int64_t b = balance_of(table_row_at(accounts, i)->data);
        sum += b;
        neg += b < 0;
    }
    int64_t want = (int64_t)o->accounts * INITIAL_BALANCE;
    if (sum != want || neg)
        fprintf(out, "bank: total balance %lld, expected %lld; %lld negative balances\n",
                (long long)sum, (long long)want, (long long)neg);
    return sum == want && neg == 0 && !(bad && cc_alg_serializable);
}

static void bank_json(const struct options *o, FILE *f)
{
    fprintf(f, "\"accounts\":%llu,\"initial_total\":%llu,\"audit_mismatches\":%llu",
            (unsigned long long)o->accounts, (unsigned long long)o->accounts * INITIAL_BALANCE,
            (unsigned long long)atomic_load(&audit_mismatches));
}

const struct workload bank_workload = {
    .name = "bank",
    .ntypes = 2,
    .type_names = {"transfer", "audit"},
    .load = bank_load,
    .rows_to_load = bank_rows_to_load,
    .query_size = bank_query_size,
    .gen_query = bank_gen,
    .query_type = bank_type,
    .run = bank_run,
    .committed = bank_committed,
    .check = bank_check,
    .json = bank_json,
};
