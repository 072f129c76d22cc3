/* The five TPC-C transactions (clauses 2.4.2, 2.5.2, 2.6.2, 2.7.4, 2.8.2) on the
 * transaction API of cc/cc.h, and the workload's struct.
 *
 * Every row is reached by a primary-key look-up (ranges too, see tpcc.h) or look-ups of
 * the customer-by-name index and then accessed through the CC protocol, naming exactly
 * the columns read (the mask of txn_read / txn_read_for_update) and written (txn_write).
 * Inserts go through txn_insert, filling the private row image in place (primary index
 * at commit); Delivery's delete of a NEW-ORDER row through txn_delete.
 *
 * Phantoms: every range whose rows change (NEW-ORDER for Delivery, a customer's orders
 * for OrderStatus, a district's recent ORDER-LINEs for StockLevel) is looked up only after
 * the transaction read the range's row (tpcc.h) through the protocol, and every insert or
 * delete in it writes that row, so each algorithm orders them like any other conflict. The grain adds
 * no conflict TPC-C does not have beyond the phantom ones: all inserts come from NewOrder
 * at the district's tail, and NewOrders of a district already conflict on D_NEXT_O_ID;
 * Deliveries of a district already conflict on its oldest NEW-ORDER row; StockLevel
 * already reads D_NEXT_O_ID, which NewOrder writes. New are NewOrder vs OrderStatus of
 * the same customer, and NewOrder vs a Delivery that found the district empty: exactly
 * the phantoms. A look-up sees only published rows, so where an algorithm lets it read an
 * uncommitted bound, what it finds disagrees with the bound and the query retries
 * (range_mismatch).
 *
 * Rollback: the 1% of NewOrders with an unused item id call txn_user_abort when they
 * reach it; the driver counts the query as rolled back and does not retry it.
 *
 * Last-access hints (txn_last_access, a promise: the attempt touches the row no more):
 * sent right after the access to a row that the transaction never comes back to, writes
 * (Payment's WAREHOUSE and DISTRICT) and plain reads alike (NewOrder's WAREHOUSE, CUSTOMER
 * and ITEM rows, an ITEM only at its last line in the order; every read of OrderStatus and
 * StockLevel; Delivery's read of a district's tail), so that an algorithm that releases
 * early (RCC seals the entry of an SER read, Bamboo retires a write lock) does so in TPC-C
 * too. Right after the access, since RCC only seals the attempt's newest entry. */
#include <stdalign.h>
#include <stdlib.h>
#include <time.h>

#include "benchmarks/tpcc.h"

/* Per worker thread: the counter that makes inserted HISTORY keys unique. */
struct thread_state {
    alignas(CACHE_LINE) uint64_t history_seq;
};
static struct thread_state tstate[MAX_THREADS];

#define C(x) COL_BIT(x)

/* The columns NewOrder reads of its customer and of each item, and the columns of a stock
 * row it updates (district d, a remote supplier or not): named once, for the prefetch and
 * the access. */
#define NO_CUSTOMER_COLS (C(C_DISCOUNT) | C(C_LAST) | C(C_CREDIT))
#define NO_ITEM_COLS (C(I_PRICE) | C(I_NAME) | C(I_DATA))
static inline int stock_dist_col(uint32_t d) { return S_DIST_01 + (int)d - 1; }
static inline colmask_t stock_cols(uint32_t d, bool remote)
{
    return C(S_QUANTITY) | C(stock_dist_col(d)) | C(S_DATA) | C(S_YTD) | C(S_ORDER_CNT) |
           (remote ? C(S_REMOTE_CNT) : 0);
}
/* The columns Payment reads of its customer, C_DATA among them: written for bad credit,
 * declared with the others, as column-level algorithms need (cc.h). */
#define PAY_CUSTOMER_COLS                                                                      \
    (C(C_ID) | C(C_FIRST) | C(C_MIDDLE) | C(C_LAST) | C(C_STREET_1) | C(C_STREET_2) |         \
     C(C_CITY) | C(C_STATE) | C(C_ZIP) | C(C_PHONE) | C(C_SINCE) | C(C_CREDIT) |               \
     C(C_CREDIT_LIM) | C(C_DISCOUNT) | C(C_BALANCE) | C(C_YTD_PAYMENT) | C(C_PAYMENT_CNT) |   \
     C(C_DATA))

/* A row that a committed order implies is not reachable by its key: txn_publish makes an
 * order's rows visible one by one (its ORDER before its lines), so a reader that is not
 * ordered after the commit by the protocol (an optimistic one, which validation would
 * reject) may catch it half published. The query is retried (AR_RETRY) rather than
 * reading a partial order. */
static enum rc missing_row(struct txn *t) { return txn_abort_retry(t); }

/* The look-ups found other rows than the range row's bound says: an insert or delete it
 * depends on is not published yet (or, for an optimistic algorithm, one committed since
 * it read the bound, which validation would reject). Retried like missing_row. */
static enum rc range_mismatch(struct txn *t) { return txn_abort_retry(t); }

/* Reads the bound of range row (k, w, d, c), as a scan of its range does before it
 * scans; `update` when the transaction will write it (a delete in the range). */
static enum rc range_read(struct txn *t, enum tpcc_range k, uint32_t w, uint32_t d, uint32_t c,
                          bool update, struct row **rr, int32_t *bound)
{
    const unsigned char *img;
    *rr = txn_lookup(t, tpcc.range, tpcc_rkey(k, w, d, c));
    enum rc rc = update ? txn_read_for_update(t, *rr, COL_BIT(RG_BOUND), &img)
                        : txn_read(t, *rr, COL_BIT(RG_BOUND), &img);
    if (rc == RC_OK)
        memcpy(bound, col_ptr(&tpcc.range->schema, img, RG_BOUND), sizeof(*bound));
    if (rc == RC_OK && !update)
        txn_last_access(t, *rr); /* a scan reads its range's bound once */
    return rc;
}

/* Sets the bound of range row (k, w, d, c): an insert or delete in its range. */
static enum rc range_write(struct txn *t, enum tpcc_range k, uint32_t w, uint32_t d, uint32_t c,
                           int32_t bound)
{
    const unsigned char *img;
    struct row *rr = txn_lookup(t, tpcc.range, tpcc_rkey(k, w, d, c));
    if (txn_read_for_update(t, rr, COL_BIT(RG_BOUND), &img) != RC_OK)
        return RC_ABORT;
    return txn_write(t, rr, RG_BOUND, &bound);
}

static inline enum rc write32(struct txn *t, struct row *r, int c, int32_t v)
{
    return txn_write(t, r, c, &v);
}
static inline enum rc write64(struct txn *t, struct row *r, int c, int64_t v)
{
    return txn_write(t, r, c, &v);
}

/* The customer of a Payment / OrderStatus: by id, or the middle one (position n/2
 * rounded up) of those with the last name, in C_FIRST order (clause 2.5.2.2). */
static struct row *find_customer(struct txn *t, uint32_t w, uint32_t d, bool by_name,
                                 uint32_t c_id)
{
    if (!by_name)
        return txn_lookup(t, tpcc.tab[T_CUSTOMER], tpcc_ckey(w, d, c_id));
    struct row *rows[TPCC_MAX_SAME_LAST];
    int n = tpcc_customers_by_name(w, d, c_id, rows);
    txn_shot_end(t); /* the customer row is known from the index's reply */
    return n ? rows[(n - 1) / 2] : NULL;
}

/* Whether the n-byte text s contains "ORIGINAL". */
static bool has_original(const char *s, size_t n) { return memmem(s, n, "ORIGINAL", 8) != NULL; }

/* Whether line i is the order's last line of its item (items may repeat in an order). */
static bool last_of_item(const struct tpcc_query *q, int i)
{
    for (int j = i + 1; j < q->ol_cnt; j++)
        if (q->ol[j].i_id == q->ol[i].i_id)
            return false;
    return true;
}

static enum rc new_order(struct txn *t, const struct tpcc_query *q)
{
    uint32_t w = q->w_id, d = q->d_id;
    const unsigned char *img;
    struct row *irows[TPCC_MAX_OL], *srows[TPCC_MAX_OL], *cr = NULL;
    uint64_t ckey = tpcc_ckey(w, d, q->c_id);
    if (tpcc.prefetch) /* tpcc.prefetch (tpcc.h) */
        table_prefetch_key(tpcc.tab[T_CUSTOMER], ckey);
    for (int i = 0; tpcc.prefetch && i < q->ol_cnt; i++) {
        table_prefetch_key(tpcc.tab[T_ITEM], q->ol[i].i_id);
        table_prefetch_key(tpcc.tab[T_STOCK], tpcc_skey(q->ol[i].supply_w_id, q->ol[i].i_id));
    }
    if (tpcc.prefetch) { /* the customer's row: no insert or delete moves it */
        cr = txn_lookup(t, tpcc.tab[T_CUSTOMER], ckey);
        if (cr)
            txn_prefetch(t, tpcc.tab[T_CUSTOMER], cr, false, NO_CUSTOMER_COLS);
    }
    for (int i = 0; tpcc.prefetch && i < q->ol_cnt; i++) {
        irows[i] = txn_lookup(t, tpcc.tab[T_ITEM], q->ol[i].i_id);
        srows[i] = txn_lookup(t, tpcc.tab[T_STOCK], tpcc_skey(q->ol[i].supply_w_id, q->ol[i].i_id));
        if (irows[i])
            txn_prefetch(t, tpcc.tab[T_ITEM], irows[i], false, NO_ITEM_COLS);
        if (srows[i])
            txn_prefetch(t, tpcc.tab[T_STOCK], srows[i], true,
                         stock_cols(d, q->ol[i].supply_w_id != w));
    }
    struct row *wr = txn_lookup(t, tpcc.tab[T_WAREHOUSE], w);
    if (txn_read(t, wr, C(W_TAX), &img) != RC_OK)
        return RC_ABORT;
    int64_t w_tax = tpcc_get32(T_WAREHOUSE, img, W_TAX);
    txn_last_access(t, wr);

    struct row *dr = txn_lookup(t, tpcc.tab[T_DISTRICT], tpcc_dkey(w, d));
    if (txn_read_for_update(t, dr, C(D_TAX) | C(D_NEXT_O_ID), &img) != RC_OK)
        return RC_ABORT;
    int64_t d_tax = tpcc_get32(T_DISTRICT, img, D_TAX);
    uint32_t o_id = (uint32_t)tpcc_get32(T_DISTRICT, img, D_NEXT_O_ID);
    if (write32(t, dr, D_NEXT_O_ID, (int32_t)o_id + 1) != RC_OK)
        return RC_ABORT;
    /* the keys the commit inserts are known now: their index buckets, random lines of
     * large tables, come in meanwhile instead of one after another at the commit */
    if (tpcc.prefetch) {
        for (int i = 0; i < q->ol_cnt; i++)
            table_prefetch_key(tpcc.tab[T_ORDER_LINE], tpcc_olkey(w, d, o_id, (uint32_t)i + 1));
        table_prefetch_key(tpcc.tab[T_ORDER], tpcc_okey(w, d, o_id));
        table_prefetch_key(tpcc.tab[T_NEW_ORDER], tpcc_okey(w, d, o_id));
    }

    if (!tpcc.prefetch)
        cr = txn_lookup(t, tpcc.tab[T_CUSTOMER], ckey);
    if (txn_read(t, cr, NO_CUSTOMER_COLS, &img) != RC_OK)
        return RC_ABORT;
    int64_t c_discount = tpcc_get32(T_CUSTOMER, img, C_DISCOUNT);
    txn_last_access(t, cr);

    int64_t now = (int64_t)time(NULL);
    uint64_t okey = tpcc_okey(w, d, o_id);
    struct row *orow, *norow;
    unsigned char *nimg;
    if (txn_insert(t, tpcc.tab[T_ORDER], okey, &orow, &nimg) != RC_OK)
        return RC_ABORT;
    tpcc_put32(T_ORDER, nimg, O_ID, (int32_t)o_id);
    tpcc_put32(T_ORDER, nimg, O_D_ID, (int32_t)d);
    tpcc_put32(T_ORDER, nimg, O_W_ID, (int32_t)w);
    tpcc_put32(T_ORDER, nimg, O_C_ID, (int32_t)q->c_id);
    tpcc_put64(T_ORDER, nimg, O_ENTRY_D, now); /* O_CARRIER_ID null: 0 */
    tpcc_put32(T_ORDER, nimg, O_OL_CNT, q->ol_cnt);
    tpcc_put32(T_ORDER, nimg, O_ALL_LOCAL, q->all_local);
    if (txn_insert(t, tpcc.tab[T_NEW_ORDER], okey, &norow, &nimg) != RC_OK)
        return RC_ABORT;
    tpcc_put32(T_NEW_ORDER, nimg, NO_O_ID, (int32_t)o_id);
    tpcc_put32(T_NEW_ORDER, nimg, NO_D_ID, (int32_t)d);
    tpcc_put32(T_NEW_ORDER, nimg, NO_W_ID, (int32_t)w);

    int64_t total = 0;
    for (int i = 0; i < q->ol_cnt; i++) {
        const struct tpcc_ol_in *l = &q->ol[i];
        struct row *ir = tpcc.prefetch ? irows[i] : txn_lookup(t, tpcc.tab[T_ITEM], l->i_id);
        if (!ir) /* the unused item id: roll back (the driver does not retry it) */
            return txn_user_abort(t);
        if (txn_read(t, ir, NO_ITEM_COLS, &img) != RC_OK)
            return RC_ABORT;
        int64_t price = tpcc_get64(T_ITEM, img, I_PRICE);
        bool original = has_original(tpcc_text(T_ITEM, img, I_DATA), 50);
        if (last_of_item(q, i))
            txn_last_access(t, ir);

        int dist = stock_dist_col(d);
        struct row *sr = tpcc.prefetch ? srows[i]
                                       : txn_lookup(t, tpcc.tab[T_STOCK],
                                                    tpcc_skey(l->supply_w_id, l->i_id));
        bool remote = l->supply_w_id != w;
        if (txn_read_for_update(t, sr, stock_cols(d, remote), &img) != RC_OK)
            return RC_ABORT;
        int32_t s_qty = tpcc_get32(T_STOCK, img, S_QUANTITY);
        int32_t s_ytd = tpcc_get32(T_STOCK, img, S_YTD);
        int32_t s_cnt = tpcc_get32(T_STOCK, img, S_ORDER_CNT);
        /* S_REMOTE_CNT is asked for (stock_cols) only for a remote line */
        int32_t s_remote = remote ? tpcc_get32(T_STOCK, img, S_REMOTE_CNT) : 0;
        char dist_info[24];
        memcpy(dist_info, tpcc_text(T_STOCK, img, dist), 24);
        original = original && has_original(tpcc_text(T_STOCK, img, S_DATA), 50);
        s_qty = s_qty >= l->quantity + 10 ? s_qty - l->quantity : s_qty - l->quantity + 91;
        if (write32(t, sr, S_QUANTITY, s_qty) != RC_OK ||
            write32(t, sr, S_YTD, s_ytd + l->quantity) != RC_OK ||
            write32(t, sr, S_ORDER_CNT, s_cnt + 1) != RC_OK ||
            (remote && write32(t, sr, S_REMOTE_CNT, s_remote + 1) != RC_OK))
            return RC_ABORT;

        int64_t amount = l->quantity * price;
        total += amount;
        uint64_t olkey = tpcc_olkey(w, d, o_id, (uint32_t)i + 1);
        struct row *olrow;
        if (txn_insert(t, tpcc.tab[T_ORDER_LINE], olkey, &olrow, &nimg) != RC_OK)
            return RC_ABORT;
        tpcc_put32(T_ORDER_LINE, nimg, OL_O_ID, (int32_t)o_id);
        tpcc_put32(T_ORDER_LINE, nimg, OL_D_ID, (int32_t)d);
        tpcc_put32(T_ORDER_LINE, nimg, OL_W_ID, (int32_t)w);
        tpcc_put32(T_ORDER_LINE, nimg, OL_NUMBER, i + 1);
        tpcc_put32(T_ORDER_LINE, nimg, OL_I_ID, (int32_t)l->i_id);
        tpcc_put32(T_ORDER_LINE, nimg, OL_SUPPLY_W_ID, l->supply_w_id); /* OL_DELIVERY_D null */
        tpcc_put32(T_ORDER_LINE, nimg, OL_QUANTITY, l->quantity);
        tpcc_put64(T_ORDER_LINE, nimg, OL_AMOUNT, amount);
        tpcc_put_text(T_ORDER_LINE, nimg, OL_DIST_INFO, dist_info);
        (void)original; /* brand-generic: "B" if both contain ORIGINAL, else "G" */
    }
    /* The ranges this order was inserted into: the district's tail (ORDER, NEW-ORDER,
     * ORDER-LINE) and the customer's orders. Written last, so that an algorithm that
     * shows uncommitted writes shows these bounds as briefly as it can. */
    if (range_write(t, RG_ORDER_TAIL, w, d, 0, (int32_t)o_id + 1) != RC_OK ||
        range_write(t, RG_CUST_ORDERS, w, d, q->c_id, (int32_t)o_id + 1) != RC_OK)
        return RC_ABORT;
    /* the total the terminal would display */
    total = total * (10000 - c_discount) / 10000 * (10000 + w_tax + d_tax) / 10000;
    __asm__ __volatile__("" ::"r"(total));
    return RC_OK;
}

/* A HISTORY row's key: the thread's, then its sequence number (HISTORY has no key of its
 * own; the index needs one). */
static inline uint64_t history_key(uint32_t thread, uint64_t seq)
{
    return (uint64_t)(thread + 1) << 40 | seq;
}

static enum rc payment(struct txn *t, const struct tpcc_query *q)
{
    uint32_t w = q->w_id, d = q->d_id;
    const unsigned char *img;
    struct thread_state *ts = &tstate[q->thread];
    struct row *cr = NULL;
    if (tpcc.prefetch) { /* the index buckets of the insert's key and of the customer */
        table_prefetch_key(tpcc.tab[T_HISTORY], history_key(q->thread, ts->history_seq + 1));
        if (q->by_name) { /* its name's first rank (the others share its page) */
            idx_hash_prefetch(tpcc.cust_by_name, tpcc_namekey(q->c_w_id, q->c_d_id, q->c_id, 0));
        } else { /* and its row, while the WAREHOUSE and DISTRICT rows are updated */
            uint64_t ckey = tpcc_ckey(q->c_w_id, q->c_d_id, q->c_id);
            table_prefetch_key(tpcc.tab[T_CUSTOMER], ckey);
            cr = txn_lookup(t, tpcc.tab[T_CUSTOMER], ckey);
            if (cr)
                txn_prefetch(t, tpcc.tab[T_CUSTOMER], cr, true, PAY_CUSTOMER_COLS);
        }
    }
    struct row *wr = txn_lookup(t, tpcc.tab[T_WAREHOUSE], w);
    colmask_t wcols = C(W_NAME) | C(W_STREET_1) | C(W_STREET_2) | C(W_CITY) | C(W_STATE) |
                      C(W_ZIP) | C(W_YTD);
    if (txn_read_for_update(t, wr, wcols, &img) != RC_OK)
        return RC_ABORT;
    char h_data[24] = {0};
    memcpy(h_data, tpcc_text(T_WAREHOUSE, img, W_NAME), 10);
    if (write64(t, wr, W_YTD, tpcc_get64(T_WAREHOUSE, img, W_YTD) + q->h_amount) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, wr); /* Payment never comes back to its WAREHOUSE row */

    struct row *dr = txn_lookup(t, tpcc.tab[T_DISTRICT], tpcc_dkey(w, d));
    colmask_t dcols = C(D_NAME) | C(D_STREET_1) | C(D_STREET_2) | C(D_CITY) | C(D_STATE) |
                      C(D_ZIP) | C(D_YTD);
    if (txn_read_for_update(t, dr, dcols, &img) != RC_OK)
        return RC_ABORT;
    /* H_DATA = W_NAME, four spaces, D_NAME */
    size_t wl = strnlen(h_data, 10);
    memset(h_data + wl, ' ', 4);
    memcpy(h_data + wl + 4, tpcc_text(T_DISTRICT, img, D_NAME), 10);
    if (write64(t, dr, D_YTD, tpcc_get64(T_DISTRICT, img, D_YTD) + q->h_amount) != RC_OK)
        return RC_ABORT;
    txn_last_access(t, dr); /* nor to its DISTRICT row */

    if (!cr)
        cr = find_customer(t, q->c_w_id, q->c_d_id, q->by_name, q->c_id);
    if (!cr)
        return missing_row(t); /* cannot happen: every last name exists in every district */
    if (txn_read_for_update(t, cr, PAY_CUSTOMER_COLS, &img) != RC_OK)
        return RC_ABORT;
    int32_t c_id = tpcc_get32(T_CUSTOMER, img, C_ID);
    bool bad_credit = memcmp(tpcc_text(T_CUSTOMER, img, C_CREDIT), "BC", 2) == 0;
    int64_t balance = tpcc_get64(T_CUSTOMER, img, C_BALANCE) - q->h_amount;
    int64_t ytd = tpcc_get64(T_CUSTOMER, img, C_YTD_PAYMENT) + q->h_amount;
    int32_t cnt = tpcc_get32(T_CUSTOMER, img, C_PAYMENT_CNT) + 1;
    if (write64(t, cr, C_BALANCE, balance) != RC_OK ||
        write64(t, cr, C_YTD_PAYMENT, ytd) != RC_OK ||
        write32(t, cr, C_PAYMENT_CNT, cnt) != RC_OK)
        return RC_ABORT;
    if (bad_credit) { /* C_DATA = the payment, then the old C_DATA, cut to 500 */
        if (txn_read_for_update(t, cr, C(C_DATA), &img) != RC_OK)
            return RC_ABORT;
        char data[501 + 64];
        int n = snprintf(data, 64, "%d %u %u %u %u %lld.%02lld | ", c_id, q->c_d_id, q->c_w_id,
                         d, w, (long long)(q->h_amount / 100), (long long)(q->h_amount % 100));
        memcpy(data + n, tpcc_text(T_CUSTOMER, img, C_DATA), 500);
        if (txn_write(t, cr, C_DATA, data) != RC_OK)
            return RC_ABORT;
    }

    uint64_t hkey = history_key(q->thread, ++ts->history_seq);
    struct row *hr;
    unsigned char *himg;
    if (txn_insert(t, tpcc.tab[T_HISTORY], hkey, &hr, &himg) != RC_OK)
        return RC_ABORT;
    tpcc_put32(T_HISTORY, himg, H_C_ID, c_id);
    tpcc_put32(T_HISTORY, himg, H_C_D_ID, q->c_d_id);
    tpcc_put32(T_HISTORY, himg, H_C_W_ID, q->c_w_id);
    tpcc_put32(T_HISTORY, himg, H_D_ID, (int32_t)d);
    tpcc_put32(T_HISTORY, himg, H_W_ID, (int32_t)w);
    tpcc_put64(T_HISTORY, himg, H_DATE, (int64_t)time(NULL));
    tpcc_put64(T_HISTORY, himg, H_AMOUNT, q->h_amount);
    tpcc_put_text(T_HISTORY, himg, H_DATA, h_data);
    return RC_OK;
}

static enum rc order_status(struct txn *t, const struct tpcc_query *q)
{
    uint32_t w = q->w_id, d = q->d_id;
    const unsigned char *img;
    txn_declare_read_only(t);
    struct row *cr = find_customer(t, w, d, q->by_name, q->c_id);
    if (!cr)
        return missing_row(t); /* cannot happen */
    if (txn_read(t, cr, C(C_ID) | C(C_BALANCE) | C(C_FIRST) | C(C_MIDDLE) | C(C_LAST), &img) !=
        RC_OK)
        return RC_ABORT;
    uint32_t c_id = (uint32_t)tpcc_get32(T_CUSTOMER, img, C_ID);
    txn_last_access(t, cr);
    if (q->by_name)
        txn_shot_end(t); /* c_id came from the customer row */

    /* the customer's last order: the one before the range's bound (every customer has
     * an order from the load on); not published yet, or (read uncommitted) another
     * customer's order under that o_id: the bound is not the committed one */
    struct row *rr;
    int32_t tail;
    if (range_read(t, RG_CUST_ORDERS, w, d, c_id, false, &rr, &tail) != RC_OK)
        return RC_ABORT;
    txn_shot_end(t); /* the order's key is the range's bound */
    struct row *orow = txn_lookup(t, tpcc.tab[T_ORDER], tpcc_okey(w, d, (uint32_t)tail - 1));
    if (!orow)
        return range_mismatch(t);
    if (txn_read(t, orow, C(O_ID) | C(O_C_ID) | C(O_ENTRY_D) | C(O_CARRIER_ID) | C(O_OL_CNT),
                 &img) != RC_OK)
        return RC_ABORT;
    if ((uint32_t)tpcc_get32(T_ORDER, img, O_C_ID) != c_id)
        return range_mismatch(t);
    uint32_t o_id = (uint32_t)tpcc_get32(T_ORDER, img, O_ID);
    int32_t ol_cnt = tpcc_get32(T_ORDER, img, O_OL_CNT);
    txn_last_access(t, orow);
    txn_shot_end(t); /* the line count came from the order */
    int64_t sum = 0;
    for (int32_t ol = 1; ol <= ol_cnt; ol++) {
        struct row *l = txn_lookup(t, tpcc.tab[T_ORDER_LINE], tpcc_olkey(w, d, o_id, (uint32_t)ol));
        colmask_t cols = C(OL_I_ID) | C(OL_SUPPLY_W_ID) | C(OL_QUANTITY) | C(OL_AMOUNT) |
                         C(OL_DELIVERY_D);
        if (!l)
            return missing_row(t);
        if (txn_read(t, l, cols, &img) != RC_OK)
            return RC_ABORT;
        sum += tpcc_get64(T_ORDER_LINE, img, OL_AMOUNT);
        txn_last_access(t, l);
    }
    __asm__ __volatile__("" ::"r"(sum));
    return RC_OK;
}

static enum rc delivery(struct txn *t, const struct tpcc_query *q)
{
    uint32_t w = q->w_id;
    const unsigned char *img;
    int64_t now = (int64_t)time(NULL);
    for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
        /* the district's oldest undelivered order: the range row's head */
        struct row *hr, *tr;
        int32_t head, tail;
        if (range_read(t, RG_NEW_ORDER_HEAD, w, d, 0, true, &hr, &head) != RC_OK)
            return RC_ABORT;
        txn_shot_end(t); /* the order's key is the head */
        uint64_t nokey = tpcc_okey(w, d, (uint32_t)head);
        struct row *norow = txn_lookup(t, tpcc.tab[T_NEW_ORDER], nokey);
        if (!norow) {
            /* none at the head: an insert could only land at the district's tail, so the
             * district is empty iff head = tail (else an order is not published yet) */
            if (range_read(t, RG_ORDER_TAIL, w, d, 0, false, &tr, &tail) != RC_OK)
                return RC_ABORT;
            if (tail != head)
                return range_mismatch(t);
            continue; /* none: skipped (clause 2.7.4.2) */
        }
        uint32_t o_id = (uint32_t)head;
        /* written before the next access: RCC seals an entry there (a later write would
         * be a re-update) */
        if (txn_write(t, hr, RG_BOUND, &(int32_t){head + 1}) != RC_OK ||
            txn_delete(t, norow) != RC_OK)
            return RC_ABORT;

        struct row *orow = txn_lookup(t, tpcc.tab[T_ORDER], nokey);
        if (!orow)
            return missing_row(t);
        if (txn_read_for_update(t, orow, C(O_C_ID) | C(O_OL_CNT) | C(O_CARRIER_ID), &img) !=
            RC_OK)
            return RC_ABORT;
        uint32_t c_id = (uint32_t)tpcc_get32(T_ORDER, img, O_C_ID);
        int32_t ol_cnt = tpcc_get32(T_ORDER, img, O_OL_CNT);
        if (write32(t, orow, O_CARRIER_ID, q->o_carrier_id) != RC_OK)
            return RC_ABORT;
        txn_shot_end(t); /* lines and customer come from the order (the next district's
                          * head, independent, joins their shot) */

        int64_t sum = 0;
        for (int32_t ol = 1; ol <= ol_cnt; ol++) {
            struct row *l =
                txn_lookup(t, tpcc.tab[T_ORDER_LINE], tpcc_olkey(w, d, o_id, (uint32_t)ol));
            if (!l)
                return missing_row(t);
            if (txn_read_for_update(t, l, C(OL_AMOUNT) | C(OL_DELIVERY_D), &img) != RC_OK)
                return RC_ABORT;
            sum += tpcc_get64(T_ORDER_LINE, img, OL_AMOUNT);
            if (write64(t, l, OL_DELIVERY_D, now) != RC_OK)
                return RC_ABORT;
        }

        struct row *cr = txn_lookup(t, tpcc.tab[T_CUSTOMER], tpcc_ckey(w, d, c_id));
        if (txn_read_for_update(t, cr, C(C_BALANCE) | C(C_DELIVERY_CNT), &img) != RC_OK)
            return RC_ABORT;
        int64_t balance = tpcc_get64(T_CUSTOMER, img, C_BALANCE) + sum;
        int32_t cnt = tpcc_get32(T_CUSTOMER, img, C_DELIVERY_CNT) + 1;
        if (write64(t, cr, C_BALANCE, balance) != RC_OK ||
            write32(t, cr, C_DELIVERY_CNT, cnt) != RC_OK)
            return RC_ABORT;
    }
    return RC_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static enum rc stock_level(struct txn *t, const struct tpcc_query *q)
{
    uint32_t w = q->w_id, d = q->d_id;
    const unsigned char *img;
    txn_declare_read_only(t);
    struct row *dr = txn_lookup(t, tpcc.tab[T_DISTRICT], tpcc_dkey(w, d));
    if (txn_read(t, dr, C(D_NEXT_O_ID), &img) != RC_OK)
        return RC_ABORT;
    uint32_t next = (uint32_t)tpcc_get32(T_DISTRICT, img, D_NEXT_O_ID);
    txn_last_access(t, dr);
    /* the scanned range ends at the district's tail */
    struct row *rr;
    int32_t tail;
    if (range_read(t, RG_ORDER_TAIL, w, d, 0, false, &rr, &tail) != RC_OK)
        return RC_ABORT;
    if ((uint32_t)tail != next)
        return range_mismatch(t);
    txn_shot_end(t); /* the orders scanned come from D_NEXT_O_ID */

    /* the lines of orders [next - 20, next): each order's lines 1.. up to the first key
     * not found. NewOrders of a district publish in o_id order (each reads D_NEXT_O_ID
     * from the one before), so the orders not (all) shown yet are the newest ones: each
     * order must show a line, and the newest one all of its O_OL_CNT lines. */
    enum { MAX_LINES = TPCC_STOCK_LEVEL_ORDERS * TPCC_MAX_OL };
    struct row *rows[MAX_LINES];
    uint32_t items[MAX_LINES];
    int n = 0, newest = 0;
    for (uint32_t o = next - TPCC_STOCK_LEVEL_ORDERS; o < next; o++) {
        int k = 0;
        struct row *l;
        while (k < TPCC_MAX_OL &&
               (l = txn_lookup(t, tpcc.tab[T_ORDER_LINE], tpcc_olkey(w, d, o, (uint32_t)k + 1))))
            rows[n + k++] = l;
        if (!k)
            return range_mismatch(t);
        n += k;
        newest = k;
    }
    struct row *orow = txn_lookup(t, tpcc.tab[T_ORDER], tpcc_okey(w, d, next - 1));
    if (!orow)
        return missing_row(t);
    if (txn_read(t, orow, C(O_OL_CNT), &img) != RC_OK)
        return RC_ABORT;
    if (tpcc_get32(T_ORDER, img, O_OL_CNT) != newest)
        return range_mismatch(t);
    txn_last_access(t, orow);
    for (int i = 0; i < n; i++) {
        if (txn_read(t, rows[i], C(OL_I_ID), &img) != RC_OK)
            return RC_ABORT;
        items[i] = (uint32_t)tpcc_get32(T_ORDER_LINE, img, OL_I_ID);
        txn_last_access(t, rows[i]);
    }
    txn_shot_end(t); /* the stock rows come from the lines' items */
    qsort(items, (size_t)n, sizeof(items[0]), cmp_u32);
    int low = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && items[i] == items[i - 1])
            continue; /* distinct items */
        struct row *sr = txn_lookup(t, tpcc.tab[T_STOCK], tpcc_skey(w, items[i]));
        if (txn_read(t, sr, C(S_QUANTITY), &img) != RC_OK)
            return RC_ABORT;
        low += tpcc_get32(T_STOCK, img, S_QUANTITY) < (int32_t)q->threshold;
        txn_last_access(t, sr); /* the items are distinct */
    }
    __asm__ __volatile__("" ::"r"(low));
    return RC_OK;
}

static enum rc tpcc_run(struct txn *t, const void *qv)
{
    const struct tpcc_query *q = qv;
    switch (q->type) {
    case TX_NEW_ORDER:
        return new_order(t, q);
    case TX_PAYMENT:
        return payment(t, q);
    case TX_ORDER_STATUS:
        return order_status(t, q);
    case TX_DELIVERY:
        return delivery(t, q);
    default:
        return stock_level(t, q);
    }
}

static size_t tpcc_query_size(const struct options *o)
{
    (void)o;
    return sizeof(struct tpcc_query);
}

/* Per warehouse: STOCK, CUSTOMER and HISTORY, ORDER and its ORDER-LINEs (10 a order on
 * average), NEW-ORDER; and ITEM once. */
static uint64_t tpcc_rows_to_load(const struct options *o)
{
    uint64_t per_wh = TPCC_ITEMS + (uint64_t)TPCC_DISTRICTS * (2 * TPCC_CUSTOMERS +
                                                                11 * TPCC_ORDERS + TPCC_NEW_ORDERS);
    return TPCC_ITEMS + (uint64_t)o->warehouses * per_wh;
}

static int tpcc_type(const void *q) { return ((const struct tpcc_query *)q)->type; }

const struct workload tpcc_workload = {
    .name = "tpcc",
    .ntypes = 5,
    .type_names = {"neworder", "payment", "orderstatus", "delivery", "stocklevel"},
    .load = tpcc_load,
    .rows_to_load = tpcc_rows_to_load,
    .query_size = tpcc_query_size,
    .gen_query = tpcc_gen_query,
    .query_type = tpcc_type,
    .run = tpcc_run,
    .check = tpcc_check,
    .json = tpcc_json,
    .check_on_request = true,
    .dump = tpcc_dump,
    .server_of = tpcc_server_of,
    .rmw_at_server = true,
};
