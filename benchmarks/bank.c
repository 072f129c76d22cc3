/* Bank: an invariant workload. --accounts accounts of balance 1000 each, cut into
 * branches of --branch-size consecutive accounts (the last branch also takes the
 * remainder). Within a branch [lo, hi) the accounts lo + 2j and lo + 2j + 1 form a pair;
 * the last account of a branch of odd length is in none. A transaction's source account
 * is drawn from the hot set (the first --hot-accounts accounts) with probability
 * --hot-prob, else from all accounts. Three types, in fixed shares:
 *  - 60% transfer a random amount from the source to another account of its branch
 *    (uniform): plain-read both (txn_read), then read them for update and write them, so
 *    the algorithm's read path and its read -> write upgrade are both exercised. It
 *    refuses an overdraft; when the destination is not the source's partner, it also
 *    plain-reads the partner and refuses to take the pair below PAIR_FLOOR.
 *  - 30% withdraw a random amount from the source to an account of its branch outside the
 *    source's pair (the partner, in a branch of two accounts): plain-read both accounts of
 *    the pair, and if the source covers the amount and the pair's sum stays at or above
 *    PAIR_FLOOR, read the source for update and write it and the destination. The partner
 *    is only read: two concurrent withdrawals from the two accounts of one pair that both
 *    commit, each blind to the other's write, are the classic write skew (the pair ends
 *    below the floor), which the transfers' and audits' checks cannot see.
 *  - 10% audit one whole branch (a hot account's branch with probability --hot-prob)
 *    with plain reads.
 * A refused transfer or withdrawal commits without writing.
 *
 * Invariants: money only moves within a branch, so every branch's total stays
 * branch-length * 1000 at every commit; and every pair's sum stays at or above
 * PAIR_FLOOR, since the only transactions that lower one (money moving out of the pair)
 * check it against what they read of both accounts. A transaction that commits under a
 * serializable algorithm (cc_alg_serializable) is equivalent to running alone between two
 * others, so an audit must have seen exactly its branch's total and no transaction may
 * have seen a pair below the floor. A committed audit that saw another total is a
 * mismatch ("audit_mismatches" in the result), a committed transaction that saw a pair
 * below the floor a floor violation ("floor_violations"): counted, and under a
 * serializable algorithm either fails the run (exit 1, the first one on stderr). At
 * RC/RR an audit may see some transfers and not others and withdrawals may skew: counted
 * only. After the run the total balance must equal the initial total and no balance may
 * be negative, else the run fails; pairs below the floor ("pairs_below_floor") fail it
 * under a serializable algorithm.
 *
 * What an attempt saw is kept in its context's note (txn_note), not in the thread, so an
 * attempt a failed client left to the backup coordinator is judged too. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "storage/table.h"

#define INITIAL_BALANCE 1000
/* The least a pair may hold: half its initial balance, so withdrawals and transfers drain
 * the hot pairs down to it and then keep working at its edge, where skew shows. */
#define PAIR_FLOOR INITIAL_BALANCE

enum { BANK_TRANSFER, BANK_AUDIT, BANK_WITHDRAW };

struct bank_query {
    uint32_t type;
    uint32_t amount;
    uint64_t from, to; /* transfer, withdrawal: two accounts of one branch; audit: from is
                        * the branch */
};

/* What an attempt saw, judged by bank_committed if it commits. */
struct bank_note {
    int64_t audit_seen, audit_expected; /* an audit: the branch total it saw, the right one */
    int64_t low_sum;                    /* the lowest pair sum it saw (INT64_MAX: none) */
    uint64_t low_pair;                  /* that pair's first account */
};
_Static_assert(sizeof(struct bank_note) <= TXN_NOTE_SIZE, "bank: the note outgrew txn_note");

static struct table *accounts;
static int col_balance;
static uint64_t branch_size, nbranches;

/* Committed audits that saw a wrong total, committed transactions that saw a pair below
 * the floor. Touched only on a violation (rare, or a bug), by workers and the backup
 * coordinator: relaxed, the counts and the first violation's details are read after
 * those threads were joined. */
static _Atomic uint64_t audit_mismatches, floor_violations;
static _Atomic int64_t first_seen, first_expected, first_low_sum;
static _Atomic uint64_t first_low_pair;

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
    accounts = workload_keyed_table("accounts", &s, o->accounts, false, o);
    branch_size = o->branch_size;
    nbranches = o->accounts / o->branch_size;
    atomic_store(&audit_mismatches, 0);
    atomic_store(&floor_violations, 0);
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

/* The other account of acct's pair; acct itself where it has none (the last account of
 * a branch of odd length). */
static uint64_t partner_of(uint64_t acct)
{
    uint64_t lo, hi;
    branch_range(branch_of(acct), &lo, &hi);
    if ((acct - lo) % 2)
        return acct - 1;
    return acct + 1 < hi ? acct + 1 : acct;
}

static void bank_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    struct bank_query *q = qv;
    uint64_t u = rng_below(r, 10);
    q->type = u == 0 ? BANK_AUDIT : u <= 3 ? BANK_WITHDRAW : BANK_TRANSFER;
    q->amount = 1 + (uint32_t)rng_below(r, 100);
    q->from = pick(r, o);
    uint64_t lo, hi;
    branch_range(branch_of(q->from), &lo, &hi);
    if (q->type == BANK_AUDIT) {
        q->from = branch_of(q->from);
        return;
    }
    if (q->type == BANK_TRANSFER) {
        /* two distinct accounts: any other one of the branch */
        q->to = lo + rng_below(r, hi - lo - 1);
        if (q->to >= q->from)
            q->to++;
        return;
    }
    if (partner_of(q->from) == q->from) /* unpaired (odd branch, >= 3): its neighbour */
        q->from--;
    if (hi - lo == 2) { /* the branch is one pair */
        q->to = partner_of(q->from);
        return;
    }
    /* any account of the branch outside the pair [first, first + 1] */
    uint64_t first = q->from < partner_of(q->from) ? q->from : partner_of(q->from);
    q->to = lo + rng_below(r, hi - lo - 2);
    if (q->to >= first)
        q->to += 2;
}

static int bank_type(const void *q) { return (int)((const struct bank_query *)q)->type; }

static int64_t balance_of(const unsigned char *img)
{
    int64_t b;
    memcpy(&b, col_ptr(&accounts->schema, img, col_balance), sizeof(b));
    return b;
}

/* Account r's balance into *b, read plainly or for update. */
static enum rc read_balance(struct txn *t, struct row *r, bool for_update, int64_t *b)
{
    const unsigned char *img;
    enum rc rc = for_update ? txn_read_for_update(t, r, COL_BIT(col_balance), &img)
                            : txn_read(t, r, COL_BIT(col_balance), &img);
    if (rc == RC_OK)
        *b = balance_of(img);
    return rc;
}

/* The attempt saw the pair whose first account is `first` hold `sum`. */
static void note_pair(struct bank_note *n, uint64_t first, int64_t sum)
{
    if (sum < n->low_sum) {
        n->low_sum = sum;
        n->low_pair = first;
    }
}

/* Whether taking `amount` from an account of balance fb, whose partner holds pb, is
 * refused: an overdraft, or the pair below the floor. */
static bool refuses(int64_t fb, int64_t pb, uint32_t amount)
{
    return fb < (int64_t)amount || fb + pb - amount < PAIR_FLOOR;
}

/* Writes the new balances of `from` and `to` (both held for update): the last accesses
 * to both. */
static enum rc move(struct txn *t, struct row *from, int64_t fb, struct row *to, int64_t tb)
{
    if (txn_write(t, from, col_balance, &fb) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, from);
    if (txn_write(t, to, col_balance, &tb) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, to);
    return RC_OK;
}

static enum rc bank_audit(struct txn *t, const struct bank_query *q, struct bank_note *n)
{
    txn_declare_read_only(t);
    uint64_t lo, hi;
    branch_range(q->from, &lo, &hi);
    int64_t sum = 0, prev = 0;
    for (uint64_t k = lo; k < hi; k++) {
        struct row *r = txn_lookup(t, accounts, k);
        int64_t b;
        if (read_balance(t, r, false, &b) != RC_OK)
            return RC_ABORT;
        txn_last_access(t, r); /* an audit never comes back to an account */
        sum += b;
        if ((k - lo) % 2)
            note_pair(n, k - 1, prev + b);
        prev = b;
    }
    n->audit_seen = sum;
    n->audit_expected = (int64_t)(hi - lo) * INITIAL_BALANCE;
    return RC_OK;
}

static enum rc bank_transfer(struct txn *t, const struct bank_query *q, struct bank_note *n)
{
    struct row *from = txn_lookup(t, accounts, q->from);
    struct row *to = txn_lookup(t, accounts, q->to);
    uint64_t p = partner_of(q->from);
    bool out_of_pair = p != q->from && p != q->to; /* lowers the sum of from's pair */
    int64_t fb, tb, pb = 0;
    /* plain reads first (the balances a teller would look at), then read for update: an
     * upgrade for 2PL, a speculative read then a write for RCC at SER */
    if (read_balance(t, from, false, &fb) != RC_OK || read_balance(t, to, false, &tb) != RC_OK)
        return RC_ABORT;
    if (out_of_pair) {
        struct row *pr = txn_lookup(t, accounts, p);
        if (read_balance(t, pr, false, &pb) != RC_OK)
            return RC_ABORT;
        txn_last_access(t, pr); /* the partner is only looked at */
    }
    if (read_balance(t, from, true, &fb) != RC_OK || read_balance(t, to, true, &tb) != RC_OK)
        return RC_ABORT;
    if (out_of_pair)
        note_pair(n, q->from < p ? q->from : p, fb + pb);
    else if (p == q->to)
        note_pair(n, q->from < p ? q->from : p, fb + tb);
    if (fb < (int64_t)q->amount || (out_of_pair && refuses(fb, pb, q->amount)))
        return RC_OK; /* refused */
    return move(t, from, fb - q->amount, to, tb + q->amount);
}

static enum rc bank_withdraw(struct txn *t, const struct bank_query *q, struct bank_note *n)
{
    struct row *from = txn_lookup(t, accounts, q->from);
    uint64_t p = partner_of(q->from);
    struct row *pr = txn_lookup(t, accounts, p);
    int64_t fb, pb, tb;
    if (read_balance(t, from, false, &fb) != RC_OK || read_balance(t, pr, false, &pb) != RC_OK)
        return RC_ABORT;
    if (q->to != p)
        txn_last_access(t, pr); /* the partner is only looked at */
    note_pair(n, q->from < p ? q->from : p, fb + pb);
    if (refuses(fb, pb, q->amount)) {
        txn_last_access(t, from); /* nothing more to do */
        return RC_OK;
    }
    struct row *to = txn_lookup(t, accounts, q->to);
    if (read_balance(t, from, true, &fb) != RC_OK || read_balance(t, to, true, &tb) != RC_OK)
        return RC_ABORT;
    /* the same balance as the plain read, but at RC/RR, where it may have moved since */
    if (refuses(fb, pb, q->amount))
        return RC_OK;
    return move(t, from, fb - q->amount, to, tb + q->amount);
}

static enum rc bank_run(struct txn *t, const void *qv)
{
    const struct bank_query *q = qv;
    struct bank_note *n = txn_note(t);
    *n = (struct bank_note){.low_sum = INT64_MAX};
    switch (q->type) {
    case BANK_AUDIT:
        return bank_audit(t, q, n);
    case BANK_WITHDRAW:
        return bank_withdraw(t, q, n);
    default:
        return bank_transfer(t, q, n);
    }
}

static void bank_committed(struct txn *t, const void *qv)
{
    const struct bank_query *q = qv;
    const struct bank_note *n = txn_note(t);
    /* relaxed: see audit_mismatches */
    if (q->type == BANK_AUDIT && n->audit_seen != n->audit_expected &&
        atomic_fetch_add_explicit(&audit_mismatches, 1, memory_order_relaxed) == 0) {
        atomic_store_explicit(&first_seen, n->audit_seen, memory_order_relaxed);
        atomic_store_explicit(&first_expected, n->audit_expected, memory_order_relaxed);
    }
    if (n->low_sum < PAIR_FLOOR &&
        atomic_fetch_add_explicit(&floor_violations, 1, memory_order_relaxed) == 0) {
        atomic_store_explicit(&first_low_sum, n->low_sum, memory_order_relaxed);
        atomic_store_explicit(&first_low_pair, n->low_pair, memory_order_relaxed);
    }
}

/* The pairs below the floor now (after the run); the first one's first account and sum
 * into *first, *first_sum. */
static uint64_t pairs_below_floor(uint64_t *first, int64_t *first_sum)
{
    uint64_t low = 0;
    for (uint64_t b = 0; b < nbranches; b++) {
        uint64_t lo, hi;
        branch_range(b, &lo, &hi);
        for (uint64_t k = lo; k + 1 < hi; k += 2) {
            int64_t sum = balance_of(table_get(accounts, k)->data) +
                          balance_of(table_get(accounts, k + 1)->data);
            if (sum < PAIR_FLOOR && low++ == 0) {
                *first = k;
                *first_sum = sum;
            }
        }
    }
    return low;
}

static bool bank_check(const struct options *o, FILE *out)
{
    bool ok = true;
    uint64_t bad = atomic_load(&audit_mismatches);
    if (bad && cc_alg_serializable) {
        fprintf(out,
                "bank: %llu committed audits saw a wrong branch total (first: saw %lld, "
                "expected %lld) under a serializable algorithm\n",
                (unsigned long long)bad, (long long)atomic_load(&first_seen),
                (long long)atomic_load(&first_expected));
        ok = false;
    }
    uint64_t seen_low = atomic_load(&floor_violations);
    if (seen_low && cc_alg_serializable) {
        fprintf(out,
                "bank: %llu committed transactions saw an account pair below the floor %d "
                "(first: accounts %llu and %llu held %lld) under a serializable algorithm\n",
                (unsigned long long)seen_low, PAIR_FLOOR,
                (unsigned long long)atomic_load(&first_low_pair),
                (unsigned long long)atomic_load(&first_low_pair) + 1,
                (long long)atomic_load(&first_low_sum));
        ok = false;
    }
    uint64_t first = 0;
    int64_t first_sum = 0;
    uint64_t low = pairs_below_floor(&first, &first_sum);
    if (low && cc_alg_serializable) {
        fprintf(out,
                "bank: %llu account pairs below the floor %d after the run (first: accounts "
                "%llu and %llu hold %lld) under a serializable algorithm\n",
                (unsigned long long)low, PAIR_FLOOR, (unsigned long long)first,
                (unsigned long long)first + 1, (long long)first_sum);
        ok = false;
    }
    int64_t sum = 0, neg = 0;
    uint64_t n = table_nrows(accounts);
    for (uint64_t i = 0; i < n; i++) {
        int64_t b = balance_of(table_row_at(accounts, i)->data);
        sum += b;
        neg += b < 0;
    }
    int64_t want = (int64_t)o->accounts * INITIAL_BALANCE;
    if (sum != want || neg) {
        fprintf(out, "bank: total balance %lld, expected %lld; %lld negative balances\n",
                (long long)sum, (long long)want, (long long)neg);
        ok = false;
    }
    return ok;
}

static void bank_json(const struct options *o, FILE *f)
{
    uint64_t first = 0;
    int64_t first_sum = 0;
    fprintf(f,
            "\"accounts\":%llu,\"initial_total\":%llu,\"audit_mismatches\":%llu,"
            "\"floor_violations\":%llu,\"pairs_below_floor\":%llu",
            (unsigned long long)o->accounts, (unsigned long long)o->accounts * INITIAL_BALANCE,
            (unsigned long long)atomic_load(&audit_mismatches),
            (unsigned long long)atomic_load(&floor_violations),
            (unsigned long long)pairs_below_floor(&first, &first_sum));
}

const struct workload bank_workload = {
    .name = "bank",
    .ntypes = 3,
    .type_names = {"transfer", "audit", "withdraw"},
    .load = bank_load,
    .rows_to_load = bank_rows_to_load,
    .query_size = bank_query_size,
    .gen_query = bank_gen,
    .query_type = bank_type,
    .run = bank_run,
    .committed = bank_committed,
    .check = bank_check,
    .json = bank_json,
    .dense_keys = true,
};
