/* Bank: an invariant workload. --accounts accounts of balance 1000 each; 90% of
 * transactions transfer a random amount between two distinct accounts (each side drawn
 * from a hot set of --hot-accounts with probability --hot-prob), refusing overdrafts;
 * 10% audit four accounts with plain reads. After the run the total balance must equal
 * the initial total, else the run fails. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/progress.h"
#include "benchmarks/workload.h"
#include "storage/index.h"
#include "storage/table.h"

#define INITIAL_BALANCE 1000
#define AUDIT_READS 4

enum { BANK_TRANSFER, BANK_AUDIT };

struct bank_query {
    uint32_t type;
    uint32_t amount;
    uint64_t acct[AUDIT_READS]; /* transfer: from, to */
};

static struct table *accounts;
static int col_balance;

static void load_part(int i, void *arg)
{
    const struct options *o = arg;
    uint64_t lo = o->accounts * (uint64_t)i / (uint64_t)o->threads;
    uint64_t hi = o->accounts * (uint64_t)(i + 1) / (uint64_t)o->threads;
    for (uint64_t k = lo; k < hi; k++) {
        struct row *row = table_new_row(accounts, k);
        cc_row_init(row);
        int64_t b = INITIAL_BALANCE;
        memcpy(col_ptr(&accounts->schema, row->data, col_balance), &b, sizeof(b));
        idx_hash_insert(accounts->primary, k, row);
        if ((k - lo) % PROGRESS_BATCH == PROGRESS_BATCH - 1)
            progress_add(PROGRESS_BATCH);
    }
    progress_add((hi - lo) % PROGRESS_BATCH);
}

static void bank_load(const struct options *o)
{
    struct schema s;
    schema_init(&s, o->verify);
    col_balance = schema_add(&s, "balance", COL_INT64, 8);
    schema_seal(&s);
    accounts = table_create("accounts", &s, o->accounts, true);
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

static void bank_gen(void *qv, struct rng *r, int thread, const struct options *o)
{
    (void)thread;
    struct bank_query *q = qv;
    q->type = rng_below(r, 10) == 0 ? BANK_AUDIT : BANK_TRANSFER;
    q->amount = 1 + (uint32_t)rng_below(r, 100);
    for (int i = 0; i < AUDIT_READS; i++)
        q->acct[i] = pick(r, o);
    if (q->acct[1] == q->acct[0]) /* a transfer needs two distinct accounts */
        q->acct[1] = (q->acct[0] + 1 + rng_below(r, o->accounts - 1)) % o->accounts;
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
        int64_t sum = 0;
        for (int i = 0; i < AUDIT_READS; i++) {
            struct row *r = txn_lookup(t, accounts, q->acct[i]);
            if (txn_read(t, r, COL_BIT(col_balance), &img) != RC_OK)
                return RC_ABORT;
            sum += balance_of(img);
        }
        __asm__ __volatile__("" ::"r"(sum));
        return RC_OK;
    }
    struct row *from = txn_lookup(t, accounts, q->acct[0]);
    struct row *to = txn_lookup(t, accounts, q->acct[1]);
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

static bool bank_check(const struct options *o, FILE *out)
{
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
    return sum == want && neg == 0;
}

static void bank_json(const struct options *o, FILE *f)
{
    fprintf(f, "\"accounts\":%llu,\"initial_total\":%llu", (unsigned long long)o->accounts,
            (unsigned long long)o->accounts * INITIAL_BALANCE);
}

const struct workload bank_workload = {
    .name = "bank",
    .ntypes = 2,
    .type_names = {"transfer", "audit"},
    .load = bank_load,
    .query_size = bank_query_size,
    .gen_query = bank_gen,
    .query_type = bank_type,
    .run = bank_run,
    .check = bank_check,
    .json = bank_json,
};
