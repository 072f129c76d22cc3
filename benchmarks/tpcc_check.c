/* TPC-C consistency conditions (clause 3.3.2), checked after the run with --check (and
 * by the unit test right after the load), and the workload's JSON data members.
 *
 * Checked, each over the committed rows (rows of aborted inserts and deleted rows are
 * skipped: a row is live when its primary index maps its key to it):
 *   1  W_YTD = sum(D_YTD) per warehouse
 *   2  D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district (the NEW-ORDER part only
 *      where the district has NEW-ORDER rows)
 *   3  max(NO_O_ID) - min(NO_O_ID) + 1 = number of NEW-ORDER rows per district
 *   4  sum(O_OL_CNT) = number of ORDER-LINE rows per district
 *   5  an ORDER has a NEW-ORDER row iff O_CARRIER_ID is null; a NEW-ORDER row has its ORDER
 *   6  every ORDER-LINE has its ORDER
 *   7  O_CARRIER_ID is null iff OL_DELIVERY_D of the order's lines is null
 *   8  W_YTD = sum(H_AMOUNT) per warehouse; D_YTD = sum(H_AMOUNT) per district
 *   9  sum(W_YTD) = sum(C_YTD_PAYMENT)
 *   10 C_BALANCE = sum(OL_AMOUNT of the customer's delivered orders) - sum(its H_AMOUNT)
 *   11 C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of its delivered orders)
 *   12 the keys the look-ups of tpcc.h rely on: ORDER and NEW-ORDER rows under (w, d,
 *      o), ORDER-LINE rows under (w, d, o, ol) with 1 <= ol <= their order's O_OL_CNT;
 *      the customer-by-name index holds every customer
 *   13 the range rows (tpcc.h) bound their ranges: NEW-ORDER head = min(NO_O_ID) (or
 *      D_NEXT_O_ID when none), order tail = D_NEXT_O_ID, a customer's = max(O_ID) + 1
 *   14-17 (ours) each STOCK row (w, i) against the run's ORDER-LINE rows that NewOrder
 *      inserted with OL_SUPPLY_W_ID = w and OL_I_ID = i (the run's lines: OL_O_ID >
 *      TPCC_ORDERS, since the loaded orders are 1..3000, D_NEXT_O_ID starts at 3001 and
 *      only grows; no transaction deletes a line, and a rolled-back NewOrder leaves
 *      neither its lines nor its STOCK writes):
 *   14 S_YTD = sum(OL_QUANTITY)  (loaded S_YTD, S_ORDER_CNT, S_REMOTE_CNT are 0)
 *   15 S_ORDER_CNT = number of those lines
 *   16 S_REMOTE_CNT = number of those lines with OL_SUPPLY_W_ID != OL_W_ID
 *   17 S_QUANTITY = 10 + (loaded S_QUANTITY - 10 - sum(OL_QUANTITY)) mod 91: NewOrder's
 *      rule (q >= k + 10 ? q - k : q - k + 91, k = OL_QUANTITY in 1..10) keeps q in
 *      10..100 (91 values) and q mod 91 falls by k, so the lines' quantities fix q in
 *      any order
 * Only when no transaction runs. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "benchmarks/tpcc.h"
#include "storage/topology.h"

#define MAX_REPORTED 10

struct viol {
    FILE *out;
    uint64_t n;
};

__attribute__((format(printf, 2, 3))) static void viol(struct viol *v, const char *fmt, ...)
{
    if (v->n++ >= MAX_REPORTED)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tpcc check: ", v->out);
    vfprintf(v->out, fmt, ap);
    fputc('\n', v->out);
    va_end(ap);
}

struct dist_acc {
    int64_t d_ytd, h_sum;
    int32_t next_o_id, max_o, max_no, min_no;
    int64_t n_no, sum_ol_cnt, n_ol;
};
struct cust_acc {
    int64_t balance, ytd, delivered, h_sum;
    int32_t max_o;
};
/* Per STOCK row: the run's order lines supplied from it (conditions 14-17). */
struct stock_acc {
    int64_t qty, lines, remote; /* sum(OL_QUANTITY), lines, remote lines */
};

/* Visits the live rows of a table. */
#define FOR_LIVE(tb, r)                                                                     \
    for (uint64_t i_ = 0, n_ = table_nrows(tpcc.tab[tb]); i_ < n_; i_++)                    \
        for (struct row *r = table_row_at(tpcc.tab[tb], i_); r; r = NULL)                   \
            if (tpcc_row_live(tpcc.tab[tb], r))

#define G32(tab, r, c) tpcc_get32(tab, (r)->data, c)
#define G64(tab, r, c) tpcc_get64(tab, (r)->data, c)

static size_t di(int32_t w, int32_t d) { return (size_t)(w - 1) * TPCC_DISTRICTS + (size_t)(d - 1); }
static size_t ci(int32_t w, int32_t d, int32_t c)
{
    return di(w, d) * TPCC_CUSTOMERS + (size_t)(c - 1);
}
static size_t si(int32_t w, int32_t i) { return (size_t)(w - 1) * TPCC_ITEMS + (size_t)(i - 1); }
static struct row *live_get(int tab, uint64_t key)
{
    struct row *r = idx_hash_get(tpcc.tab[tab]->primary, key);
    return r && !atomic_load_explicit(&r->deleted, memory_order_relaxed) ? r : NULL;
}

/* The bound of range row (k, w, d, c); INT32_MIN if it is missing. */
static int32_t range_bound(enum tpcc_range k, int32_t w, int32_t d, int32_t c)
{
    struct row *r =
        idx_hash_get(tpcc.range->primary, tpcc_rkey(k, (uint32_t)w, (uint32_t)d, (uint32_t)c));
    int32_t b = INT32_MIN;
    if (r)
        memcpy(&b, col_ptr(&tpcc.range->schema, r->data, RG_BOUND), sizeof(b));
    return b;
}

/* The sums and bounds the conditions compare, gathered in one pass over the tables. */
struct tally {
    int W;
    int64_t *w_ytd, *w_dsum, *w_hsum; /* per warehouse: W_YTD, sum(D_YTD), sum(H_AMOUNT) */
    struct dist_acc *ds;
    struct cust_acc *cs;
    struct stock_acc *ss;
    int64_t sum_w_ytd, sum_c_ytd;
};

static void tally_alloc(struct tally *t, int W)
{
    t->W = W;
    t->w_ytd = calloc((size_t)W, sizeof(*t->w_ytd));
    t->w_dsum = calloc((size_t)W, sizeof(*t->w_dsum));
    t->w_hsum = calloc((size_t)W, sizeof(*t->w_hsum));
    t->ds = calloc((size_t)W * TPCC_DISTRICTS, sizeof(*t->ds));
    t->cs = calloc((size_t)W * TPCC_DISTRICTS * TPCC_CUSTOMERS, sizeof(*t->cs));
    t->ss = calloc((size_t)W * TPCC_ITEMS, sizeof(*t->ss));
    for (size_t i = 0; i < (size_t)W * TPCC_DISTRICTS; i++)
        t->ds[i].min_no = INT32_MAX;
    t->sum_w_ytd = t->sum_c_ytd = 0;
}

static void tally_free(struct tally *t)
{
    free(t->ss);
    free(t->cs);
    free(t->ds);
    free(t->w_hsum);
    free(t->w_dsum);
    free(t->w_ytd);
}

/* W_YTD per warehouse, and their sum. */
static void tally_warehouses(struct tally *t)
{
    FOR_LIVE(T_WAREHOUSE, r) {
        t->w_ytd[G32(T_WAREHOUSE, r, W_ID) - 1] = G64(T_WAREHOUSE, r, W_YTD);
        t->sum_w_ytd += G64(T_WAREHOUSE, r, W_YTD);
    }
}

/* D_YTD and D_NEXT_O_ID per district, sum(D_YTD) per warehouse. */
static void tally_districts(struct tally *t)
{
    FOR_LIVE(T_DISTRICT, r) {
        int32_t w = G32(T_DISTRICT, r, D_W_ID);
        struct dist_acc *d = &t->ds[di(w, G32(T_DISTRICT, r, D_ID))];
        d->d_ytd = G64(T_DISTRICT, r, D_YTD);
        d->next_o_id = G32(T_DISTRICT, r, D_NEXT_O_ID);
        t->w_dsum[w - 1] += d->d_ytd;
    }
}

/* C_BALANCE and C_YTD_PAYMENT per customer, and the sum of the latter. */
static void tally_customers(struct tally *t)
{
    FOR_LIVE(T_CUSTOMER, r) {
        struct cust_acc *c = &t->cs[ci(G32(T_CUSTOMER, r, C_W_ID), G32(T_CUSTOMER, r, C_D_ID),
                                       G32(T_CUSTOMER, r, C_ID))];
        c->balance = G64(T_CUSTOMER, r, C_BALANCE);
        c->ytd = G64(T_CUSTOMER, r, C_YTD_PAYMENT);
        t->sum_c_ytd += c->ytd;
    }
}

/* sum(H_AMOUNT) per warehouse, district and customer. */
static void tally_history(struct tally *t)
{
    FOR_LIVE(T_HISTORY, r) {
        int64_t a = G64(T_HISTORY, r, H_AMOUNT);
        int32_t w = G32(T_HISTORY, r, H_W_ID);
        t->w_hsum[w - 1] += a;
        t->ds[di(w, G32(T_HISTORY, r, H_D_ID))].h_sum += a;
        t->cs[ci(G32(T_HISTORY, r, H_C_W_ID), G32(T_HISTORY, r, H_C_D_ID),
                 G32(T_HISTORY, r, H_C_ID))].h_sum += a;
    }
}

/* Conditions 12 (its key) and 5 (a NEW-ORDER row iff undelivered) of each ORDER; tallies
 * max(O_ID) and sum(O_OL_CNT) per district, max(O_ID) per customer. */
static void check_orders(struct tally *t, struct viol *v)
{
    FOR_LIVE(T_ORDER, r) {
        int32_t w = G32(T_ORDER, r, O_W_ID), dd = G32(T_ORDER, r, O_D_ID), id = G32(T_ORDER, r, O_ID);
        struct dist_acc *d = &t->ds[di(w, dd)];
        if (r->key != tpcc_okey((uint32_t)w, (uint32_t)dd, (uint32_t)id))
            viol(v, "12: order (%d, %d, %d) is not under its key", w, dd, id);
        if (id > d->max_o)
            d->max_o = id;
        d->sum_ol_cnt += G32(T_ORDER, r, O_OL_CNT);
        bool undelivered = G32(T_ORDER, r, O_CARRIER_ID) == 0;
        if (undelivered != (live_get(T_NEW_ORDER, r->key) != NULL))
            viol(v, "5: order (%d, %d, %d) %s but %s a NEW-ORDER row", w, dd, id,
                 undelivered ? "is undelivered" : "is delivered",
                 undelivered ? "has no" : "has");
        struct cust_acc *oc = &t->cs[ci(w, dd, G32(T_ORDER, r, O_C_ID))];
        oc->max_o = id > oc->max_o ? id : oc->max_o;
    }
}

/* Conditions 12 (its key) and 5 (its ORDER) of each NEW-ORDER row; tallies their number,
 * min(NO_O_ID) and max(NO_O_ID) per district. */
static void check_new_orders(struct tally *t, struct viol *v)
{
    FOR_LIVE(T_NEW_ORDER, r) {
        int32_t w = G32(T_NEW_ORDER, r, NO_W_ID), dd = G32(T_NEW_ORDER, r, NO_D_ID);
        int32_t id = G32(T_NEW_ORDER, r, NO_O_ID);
        struct dist_acc *d = &t->ds[di(w, dd)];
        d->n_no++;
        if (r->key != tpcc_okey((uint32_t)w, (uint32_t)dd, (uint32_t)id))
            viol(v, "12: NEW-ORDER (%d, %d, %d) is not under its key", w, dd, id);
        if (id > d->max_no)
            d->max_no = id;
        if (id < d->min_no)
            d->min_no = id;
        if (!live_get(T_ORDER, r->key))
            viol(v, "5: NEW-ORDER (%d, %d, %d) has no ORDER", w, dd, id);
    }
}

/* Tallies a line the run inserted (OL_O_ID > TPCC_ORDERS) for its STOCK row (14-17). */
static void tally_run_line(struct tally *t, struct viol *v, const struct row *r)
{
    int32_t w = G32(T_ORDER_LINE, r, OL_W_ID), sw = G32(T_ORDER_LINE, r, OL_SUPPLY_W_ID);
    int32_t i = G32(T_ORDER_LINE, r, OL_I_ID);
    if (sw < 1 || sw > t->W || i < 1 || i > TPCC_ITEMS) {
        viol(v, "14: ORDER-LINE (%d, %d, %d, %d) supplies item %d from warehouse %d: no "
                "such STOCK row", w, G32(T_ORDER_LINE, r, OL_D_ID),
             G32(T_ORDER_LINE, r, OL_O_ID), G32(T_ORDER_LINE, r, OL_NUMBER), i, sw);
        return;
    }
    struct stock_acc *s = &t->ss[si(sw, i)];
    s->qty += G32(T_ORDER_LINE, r, OL_QUANTITY);
    s->lines++;
    s->remote += sw != w;
}

/* Conditions 6 (its ORDER), 12 (its key, within O_OL_CNT) and 7 (delivered with its
 * order) of ORDER-LINE row r; tallies the district's lines, the customer's delivered
 * amount and, for a line of the run, its STOCK row's. */
static void check_order_line(struct tally *t, struct viol *v, const struct row *r)
{
    int32_t w = G32(T_ORDER_LINE, r, OL_W_ID), dd = G32(T_ORDER_LINE, r, OL_D_ID);
    int32_t id = G32(T_ORDER_LINE, r, OL_O_ID);
    int32_t ol = G32(T_ORDER_LINE, r, OL_NUMBER);
    t->ds[di(w, dd)].n_ol++;
    if (id > TPCC_ORDERS)
        tally_run_line(t, v, r);
    struct row *ord = live_get(T_ORDER, tpcc_okey((uint32_t)w, (uint32_t)dd, (uint32_t)id));
    if (!ord) {
        viol(v, "6: ORDER-LINE (%d, %d, %d, %d) has no ORDER", w, dd, id, ol);
        return;
    }
    if (r->key != tpcc_olkey((uint32_t)w, (uint32_t)dd, (uint32_t)id, (uint32_t)ol) ||
        ol < 1 || ol > G32(T_ORDER, ord, O_OL_CNT))
        viol(v, "12: ORDER-LINE (%d, %d, %d, %d) is not under its key or beyond "
                "O_OL_CNT", w, dd, id, ol);
    bool delivered = G32(T_ORDER, ord, O_CARRIER_ID) != 0;
    if (delivered != (G64(T_ORDER_LINE, r, OL_DELIVERY_D) != 0))
        viol(v, "7: order (%d, %d, %d): O_CARRIER_ID %s but line %d's OL_DELIVERY_D %s",
             w, dd, id, delivered ? "set" : "null", G32(T_ORDER_LINE, r, OL_NUMBER),
             delivered ? "null" : "set");
    if (delivered)
        t->cs[ci(w, dd, G32(T_ORDER, ord, O_C_ID))].delivered += G64(T_ORDER_LINE, r, OL_AMOUNT);
}

static void check_order_lines(struct tally *t, struct viol *v)
{
    FOR_LIVE(T_ORDER_LINE, r) check_order_line(t, v, r);
}

/* 14-17 of each STOCK row against the run's lines supplied from it. */
static void check_stock(const struct tally *t, struct viol *v)
{
    FOR_LIVE(T_STOCK, r) {
        int32_t w = G32(T_STOCK, r, S_W_ID), i = G32(T_STOCK, r, S_I_ID);
        if (w < 1 || w > t->W || i < 1 || i > TPCC_ITEMS) {
            viol(v, "14: STOCK row (%d, %d) is no warehouse's item", w, i);
            continue;
        }
        const struct stock_acc *s = &t->ss[si(w, i)];
        int32_t ytd = G32(T_STOCK, r, S_YTD), cnt = G32(T_STOCK, r, S_ORDER_CNT);
        int32_t remote = G32(T_STOCK, r, S_REMOTE_CNT), qty = G32(T_STOCK, r, S_QUANTITY);
        int64_t want_qty = 10 + ((tpcc.stock_qty0[si(w, i)] - 10 - s->qty) % 91 + 91) % 91;
        if (ytd != s->qty)
            viol(v, "14: stock (%d, %d): S_YTD %d != sum(OL_QUANTITY) %lld of the run's "
                    "lines", w, i, ytd, (long long)s->qty);
        if (cnt != s->lines)
            viol(v, "15: stock (%d, %d): S_ORDER_CNT %d != %lld lines of the run", w, i, cnt,
                 (long long)s->lines);
        if (remote != s->remote)
            viol(v, "16: stock (%d, %d): S_REMOTE_CNT %d != %lld remote lines of the run", w,
                 i, remote, (long long)s->remote);
        if (qty != want_qty)
            viol(v, "17: stock (%d, %d): S_QUANTITY %d, loaded %d less %lld ordered gives "
                    "%lld", w, i, qty, tpcc.stock_qty0[si(w, i)], (long long)s->qty,
                 (long long)want_qty);
    }
}

/* 1: W_YTD = sum(D_YTD). */
static void check_ytd(const struct tally *t, struct viol *v, int w)
{
    if (t->w_ytd[w - 1] != t->w_dsum[w - 1])
        viol(v, "1: warehouse %d: W_YTD %lld != sum(D_YTD) %lld", w,
             (long long)t->w_ytd[w - 1], (long long)t->w_dsum[w - 1]);
}

/* 8, a warehouse's part: W_YTD = sum(H_AMOUNT). */
static void check_warehouse_history(const struct tally *t, struct viol *v, int w)
{
    if (t->w_ytd[w - 1] != t->w_hsum[w - 1])
        viol(v, "8: warehouse %d: W_YTD %lld != sum(H_AMOUNT) %lld", w,
             (long long)t->w_ytd[w - 1], (long long)t->w_hsum[w - 1]);
}

/* 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID). */
static void check_next_order_id(struct viol *v, int w, int dd, const struct dist_acc *d)
{
    if (d->next_o_id - 1 != d->max_o || (d->n_no && d->max_no != d->max_o))
        viol(v, "2: district (%d, %d): D_NEXT_O_ID - 1 = %d, max(O_ID) = %d, "
                "max(NO_O_ID) = %d", w, dd, d->next_o_id - 1, d->max_o,
             d->n_no ? d->max_no : -1);
}

/* 3: max(NO_O_ID) - min(NO_O_ID) + 1 = number of NEW-ORDER rows. */
static void check_new_order_count(struct viol *v, int w, int dd, const struct dist_acc *d)
{
    if (d->n_no && d->max_no - d->min_no + 1 != d->n_no)
        viol(v, "3: district (%d, %d): NO_O_ID from %d to %d but %lld NEW-ORDER rows",
             w, dd, d->min_no, d->max_no, (long long)d->n_no);
}

/* 4: sum(O_OL_CNT) = number of ORDER-LINE rows. */
static void check_order_line_count(struct viol *v, int w, int dd, const struct dist_acc *d)
{
    if (d->sum_ol_cnt != d->n_ol)
        viol(v, "4: district (%d, %d): sum(O_OL_CNT) %lld != %lld ORDER-LINE rows", w,
             dd, (long long)d->sum_ol_cnt, (long long)d->n_ol);
}

/* 8, a district's part: D_YTD = sum(H_AMOUNT). */
static void check_district_history(struct viol *v, int w, int dd, const struct dist_acc *d)
{
    if (d->d_ytd != d->h_sum)
        viol(v, "8: district (%d, %d): D_YTD %lld != sum(H_AMOUNT) %lld", w, dd,
             (long long)d->d_ytd, (long long)d->h_sum);
}

/* 13, a district's ranges: NEW-ORDER head = min(NO_O_ID) (or D_NEXT_O_ID when none),
 * order tail = D_NEXT_O_ID. */
static void check_district_ranges(struct viol *v, int w, int dd, const struct dist_acc *d)
{
    int32_t head = range_bound(RG_NEW_ORDER_HEAD, w, dd, 0);
    if (head != (d->n_no ? d->min_no : d->next_o_id))
        viol(v, "13: district (%d, %d): NEW-ORDER range head %d, min(NO_O_ID) %d",
             w, dd, head, d->n_no ? d->min_no : -1);
    if (range_bound(RG_ORDER_TAIL, w, dd, 0) != d->next_o_id)
        viol(v, "13: district (%d, %d): order range tail %d != D_NEXT_O_ID %d", w, dd,
             range_bound(RG_ORDER_TAIL, w, dd, 0), d->next_o_id);
}

/* 13, a customer's range: its bound = max(O_ID) + 1. */
static void check_customer_range(struct viol *v, int w, int dd, int c, const struct cust_acc *x)
{
    if (range_bound(RG_CUST_ORDERS, w, dd, c) != x->max_o + 1)
        viol(v, "13: customer (%d, %d, %d): order range bound %d, max(O_ID) %d", w,
             dd, c, range_bound(RG_CUST_ORDERS, w, dd, c), x->max_o);
}

/* 10: C_BALANCE = delivered - paid; 11: C_BALANCE + C_YTD_PAYMENT = delivered. */
static void check_balance(struct viol *v, int w, int dd, int c, const struct cust_acc *x)
{
    if (x->balance != x->delivered - x->h_sum)
        viol(v, "10: customer (%d, %d, %d): C_BALANCE %lld != delivered %lld - "
                "paid %lld", w, dd, c, (long long)x->balance,
             (long long)x->delivered, (long long)x->h_sum);
    if (x->balance + x->ytd != x->delivered)
        viol(v, "11: customer (%d, %d, %d): C_BALANCE + C_YTD_PAYMENT %lld != "
                "delivered %lld", w, dd, c, (long long)(x->balance + x->ytd),
             (long long)x->delivered);
}

/* Conditions 2, 3, 4, 8 and 13 of district (w, dd), then 13, 10 and 11 of its customers. */
static void check_district(const struct tally *t, struct viol *v, int w, int dd)
{
    const struct dist_acc *d = &t->ds[di(w, dd)];
    check_next_order_id(v, w, dd, d);
    check_new_order_count(v, w, dd, d);
    check_order_line_count(v, w, dd, d);
    check_district_history(v, w, dd, d);
    check_district_ranges(v, w, dd, d);
    for (int c = 1; c <= TPCC_CUSTOMERS; c++) {
        const struct cust_acc *x = &t->cs[ci(w, dd, c)];
        check_customer_range(v, w, dd, c, x);
        check_balance(v, w, dd, c, x);
    }
}

/* 9: sum(W_YTD) = sum(C_YTD_PAYMENT). */
static void check_ytd_sums(const struct tally *t, struct viol *v)
{
    if (t->sum_w_ytd != t->sum_c_ytd)
        viol(v, "9: sum(W_YTD) %lld != sum(C_YTD_PAYMENT) %lld", (long long)t->sum_w_ytd,
             (long long)t->sum_c_ytd);
}

/* 12 (customer by name), one name of one district: each customer the look-ups find
 * (tpcc_customers_by_name) belongs to that district and name, in C_FIRST order; returns
 * how many they find. */
static int check_name(int32_t w, int32_t d, uint32_t last, struct viol *v)
{
    char name[TPCC_LAST_MAX] = {0};
    tpcc_last_name(last, name);
    struct row *rows[TPCC_MAX_SAME_LAST];
    int n = tpcc_customers_by_name((uint32_t)w, (uint32_t)d, last, rows);
    for (int i = 0; i < n; i++) {
        const struct row *r = rows[i];
        if (G32(T_CUSTOMER, r, C_W_ID) != w || G32(T_CUSTOMER, r, C_D_ID) != d ||
            memcmp(tpcc_text(T_CUSTOMER, r->data, C_LAST), name, TPCC_LAST_MAX) ||
            (i > 0 && memcmp(tpcc_text(T_CUSTOMER, rows[i - 1]->data, C_FIRST),
                             tpcc_text(T_CUSTOMER, r->data, C_FIRST), 16) > 0))
            viol(v, "12: customer (%d, %d, %d) under name %u rank %d", w, d,
                 G32(T_CUSTOMER, r, C_ID), last, i);
    }
    return n;
}

/* 12: the customer-by-name index holds every customer where Payment and OrderStatus
 * look (check_name): every district's 3,000, and no other key. */
static void check_name_index(const struct tally *t, struct viol *v)
{
    size_t found = 0;
    for (int32_t w = 1; w <= t->W; w++)
        for (int32_t d = 1; d <= TPCC_DISTRICTS; d++) {
            int n = 0;
            for (uint32_t last = 0; last < TPCC_LAST_NAMES; last++)
                n += check_name(w, d, last, v);
            if (n != TPCC_CUSTOMERS)
                viol(v, "12: district (%d, %d) has %d customers by name", w, d, n);
            found += (size_t)n;
        }
    if (idx_hash_size(tpcc.cust_by_name) != found)
        viol(v, "12: the customer-by-name index holds %zu keys, %zu where look-ups find them",
             idx_hash_size(tpcc.cust_by_name), found);
}

bool tpcc_check(const struct options *o, FILE *out)
{
    (void)o;
    struct viol v = {out, 0};
    struct tally t;
    tally_alloc(&t, tpcc.warehouses);
    tally_warehouses(&t);
    tally_districts(&t);
    tally_customers(&t);
    tally_history(&t);
    check_orders(&t, &v);
    check_new_orders(&t, &v);
    check_order_lines(&t, &v);
    for (int w = 1; w <= t.W; w++) {
        check_ytd(&t, &v, w);
        check_warehouse_history(&t, &v, w);
        for (int dd = 1; dd <= TPCC_DISTRICTS; dd++)
            check_district(&t, &v, w, dd);
    }
    check_ytd_sums(&t, &v);
    check_name_index(&t, &v);
    check_stock(&t, &v);
    if (v.n > MAX_REPORTED)
        fprintf(out, "tpcc check: ... %llu violations in all\n", (unsigned long long)v.n);
    tally_free(&t);
    return v.n == 0;
}

void tpcc_count_rows(uint64_t counts[TPCC_NTABLES])
{
    for (int t = 0; t < TPCC_NTABLES; t++) {
        counts[t] = 0;
        FOR_LIVE(t, r) counts[t]++;
    }
}

void tpcc_json(const struct options *o, FILE *f)
{
    uint64_t counts[TPCC_NTABLES];
    tpcc_count_rows(counts);
    fprintf(f, "\"warehouses\":%d,\"mix\":\"%s\",\"partition_by_warehouse\":%s,", o->warehouses,
            o->mix == TPCC_MIX_NEWORDER_PAYMENT ? "neworder-payment" : "standard",
            o->partition_by_warehouse ? "true" : "false");
    /* where each warehouse's rows are (OS NUMA node; -1: interleaved or unknown) */
    fprintf(f, "\"placement\":\"%s\",\"warehouse_nodes\":[", tpcc.placed ? "owner" : "interleaved");
    for (int w = 1; w <= o->warehouses; w++)
        fprintf(f, "%s%d", w > 1 ? "," : "",
                tpcc.placed ? topo_node_of(tpcc_owner(o, (uint32_t)w)) : -1);
    fputs("],", f);
    fprintf(f, "\"nurand_c\":{\"c_last_load\":%u,\"c_last_run\":%u,\"c_id\":%u,\"ol_i_id\":%u},",
            tpcc_c.c_last_load, tpcc_c.c_last_run, tpcc_c.c_id, tpcc_c.ol_i_id);
    fputs("\"rows\":{", f);
    for (int t = 0; t < TPCC_NTABLES; t++)
        fprintf(f, "%s\"%s\":%llu", t ? "," : "", tpcc_tabdefs[t].name,
                (unsigned long long)counts[t]);
    fputs("},\"row_stride\":{", f);
    for (int t = 0; t < TPCC_NTABLES; t++)
        fprintf(f, "%s\"%s\":%zu", t ? "," : "", tpcc_tabdefs[t].name, tpcc.tab[t]->stride);
    fputc('}', f);
}
