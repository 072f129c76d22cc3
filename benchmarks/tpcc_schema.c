/* TPC-C schema and loader: the nine tables of clause 1.3 with the specification's column
 * names, their primary hash indexes and the customer-by-name index (keys in tpcc.h),
 * and the initial population of clause 4.3.3.1.
 *
 * Loading is split into tasks: 10 slices of ITEM, and per warehouse 10 slices of STOCK
 * and 10 districts (a district task loads the DISTRICT row, its 3,000 customers with one
 * HISTORY row each, 3,000 orders with their lines, the last 900 NEW-ORDER rows and the
 * district's range rows (tpcc.h); the first district's task also loads the WAREHOUSE
 * row). min(--threads, online CPUs, tasks) loader threads take tasks from a shared
 * counter. Each task seeds its own random
 * stream from (--seed, task), so the data do not depend on the number of loaders.
 * Progress is counted in whole warehouses: the loader that finishes a warehouse's last
 * task counts it (progress.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/progress.h"
#include "benchmarks/tpcc.h"
#include "storage/mem.h"
#include "storage/topology.h"

struct tpcc_db tpcc;

#define ADDRESS(p)                                                                           \
    {p "street_1", COL_CHAR, 20, F_TEXT}, {p "street_2", COL_CHAR, 20, F_TEXT},              \
        {p "city", COL_CHAR, 20, F_TEXT}, {p "state", COL_CHAR, 2, F_TEXT},                  \
        {p "zip", COL_CHAR, 9, F_TEXT}

static const struct tpcc_coldef warehouse_cols[] = {
    {"w_id", COL_INT32, 4, F_INT}, {"w_name", COL_CHAR, 10, F_TEXT}, ADDRESS("w_"),
    {"w_tax", COL_INT32, 4, F_RATE}, {"w_ytd", COL_INT64, 8, F_MONEY}};
static const struct tpcc_coldef district_cols[] = {
    {"d_id", COL_INT32, 4, F_INT},        {"d_w_id", COL_INT32, 4, F_INT},
    {"d_name", COL_CHAR, 10, F_TEXT},     ADDRESS("d_"),
    {"d_tax", COL_INT32, 4, F_RATE},      {"d_ytd", COL_INT64, 8, F_MONEY},
    {"d_next_o_id", COL_INT32, 4, F_INT}};
static const struct tpcc_coldef customer_cols[] = {
    {"c_id", COL_INT32, 4, F_INT},          {"c_d_id", COL_INT32, 4, F_INT},
    {"c_w_id", COL_INT32, 4, F_INT},        {"c_first", COL_CHAR, 16, F_TEXT},
    {"c_middle", COL_CHAR, 2, F_TEXT},      {"c_last", COL_CHAR, 16, F_TEXT},
    ADDRESS("c_"),                          {"c_phone", COL_CHAR, 16, F_TEXT},
    {"c_since", COL_INT64, 8, F_DATE},      {"c_credit", COL_CHAR, 2, F_TEXT},
    {"c_credit_lim", COL_INT64, 8, F_MONEY}, {"c_discount", COL_INT32, 4, F_RATE},
    {"c_balance", COL_INT64, 8, F_MONEY},   {"c_ytd_payment", COL_INT64, 8, F_MONEY},
    {"c_payment_cnt", COL_INT32, 4, F_INT}, {"c_delivery_cnt", COL_INT32, 4, F_INT},
    {"c_data", COL_CHAR, 500, F_TEXT}};
static const struct tpcc_coldef history_cols[] = {
    {"h_c_id", COL_INT32, 4, F_INT},   {"h_c_d_id", COL_INT32, 4, F_INT},
    {"h_c_w_id", COL_INT32, 4, F_INT}, {"h_d_id", COL_INT32, 4, F_INT},
    {"h_w_id", COL_INT32, 4, F_INT},   {"h_date", COL_INT64, 8, F_DATE},
    {"h_amount", COL_INT64, 8, F_MONEY}, {"h_data", COL_CHAR, 24, F_TEXT}};
static const struct tpcc_coldef new_order_cols[] = {
    {"no_o_id", COL_INT32, 4, F_INT}, {"no_d_id", COL_INT32, 4, F_INT},
    {"no_w_id", COL_INT32, 4, F_INT}};
static const struct tpcc_coldef order_cols[] = {
    {"o_id", COL_INT32, 4, F_INT},         {"o_d_id", COL_INT32, 4, F_INT},
    {"o_w_id", COL_INT32, 4, F_INT},       {"o_c_id", COL_INT32, 4, F_INT},
    {"o_entry_d", COL_INT64, 8, F_DATE},   {"o_carrier_id", COL_INT32, 4, F_NULL0},
    {"o_ol_cnt", COL_INT32, 4, F_INT},     {"o_all_local", COL_INT32, 4, F_INT}};
static const struct tpcc_coldef order_line_cols[] = {
    {"ol_o_id", COL_INT32, 4, F_INT},        {"ol_d_id", COL_INT32, 4, F_INT},
    {"ol_w_id", COL_INT32, 4, F_INT},        {"ol_number", COL_INT32, 4, F_INT},
    {"ol_i_id", COL_INT32, 4, F_INT},        {"ol_supply_w_id", COL_INT32, 4, F_INT},
    {"ol_delivery_d", COL_INT64, 8, F_DATE}, {"ol_quantity", COL_INT32, 4, F_INT},
    {"ol_amount", COL_INT64, 8, F_MONEY},    {"ol_dist_info", COL_CHAR, 24, F_TEXT}};
static const struct tpcc_coldef item_cols[] = {
    {"i_id", COL_INT32, 4, F_INT},      {"i_im_id", COL_INT32, 4, F_INT},
    {"i_name", COL_CHAR, 24, F_TEXT},   {"i_price", COL_INT64, 8, F_MONEY},
    {"i_data", COL_CHAR, 50, F_TEXT}};
static const struct tpcc_coldef stock_cols[] = {
    {"s_i_id", COL_INT32, 4, F_INT},         {"s_w_id", COL_INT32, 4, F_INT},
    {"s_quantity", COL_INT32, 4, F_INT},     {"s_dist_01", COL_CHAR, 24, F_TEXT},
    {"s_dist_02", COL_CHAR, 24, F_TEXT},     {"s_dist_03", COL_CHAR, 24, F_TEXT},
    {"s_dist_04", COL_CHAR, 24, F_TEXT},     {"s_dist_05", COL_CHAR, 24, F_TEXT},
    {"s_dist_06", COL_CHAR, 24, F_TEXT},     {"s_dist_07", COL_CHAR, 24, F_TEXT},
    {"s_dist_08", COL_CHAR, 24, F_TEXT},     {"s_dist_09", COL_CHAR, 24, F_TEXT},
    {"s_dist_10", COL_CHAR, 24, F_TEXT},     {"s_ytd", COL_INT32, 4, F_INT},
    {"s_order_cnt", COL_INT32, 4, F_INT},    {"s_remote_cnt", COL_INT32, 4, F_INT},
    {"s_data", COL_CHAR, 50, F_TEXT}};

#define TABDEF(n, c) {n, c, (int)(sizeof(c) / sizeof(c[0]))}
const struct tpcc_tabdef tpcc_tabdefs[TPCC_NTABLES] = {
    [T_WAREHOUSE] = TABDEF("warehouse", warehouse_cols),
    [T_DISTRICT] = TABDEF("district", district_cols),
    [T_CUSTOMER] = TABDEF("customer", customer_cols),
    [T_HISTORY] = TABDEF("history", history_cols),
    [T_NEW_ORDER] = TABDEF("new_order", new_order_cols),
    [T_ORDER] = TABDEF("oorder", order_cols),
    [T_ORDER_LINE] = TABDEF("order_line", order_line_cols),
    [T_ITEM] = TABDEF("item", item_cols),
    [T_STOCK] = TABDEF("stock", stock_cols),
};
_Static_assert(sizeof(customer_cols) / sizeof(customer_cols[0]) == C_DATA + 1, "customer");
_Static_assert(sizeof(stock_cols) / sizeof(stock_cols[0]) == S_DATA + 1, "stock");
_Static_assert(sizeof(order_line_cols) / sizeof(order_line_cols[0]) == OL_DIST_INFO + 1, "ol");
_Static_assert(sizeof(district_cols) / sizeof(district_cols[0]) == D_NEXT_O_ID + 1, "district");
_Static_assert(sizeof(warehouse_cols) / sizeof(warehouse_cols[0]) == W_YTD + 1, "warehouse");

/* The range rows' table (tpcc.h): one int32 column, the range's bound. */
static const struct tpcc_coldef range_cols[] = {{"rg_bound", COL_INT32, 4, F_INT}};
static const struct tpcc_tabdef range_tabdef = TABDEF("range", range_cols);
enum { RANGE_ROWS_PER_WH = TPCC_DISTRICTS * (2 + TPCC_CUSTOMERS) };

/* ---- row filling at load (no transaction: the rows are private to the loader) ---- */

/* A loader's blocks of rows of the placed tables, from the node of the warehouse it
 * loads (run_task sets it). */
static _Thread_local struct row_freelist loader_fl;

static struct row *load_new_row(struct table *t, uint64_t key)
{
    struct row *r = t->streams ? table_new_row_from(&loader_fl, t, key) : table_new_row(t, key);
    cc_row_init(r);
    return r;
}
static struct row *new_row(int tab, uint64_t key) { return load_new_row(tpcc.tab[tab], key); }
static void publish_in(struct table *t, struct row *r)
{
    if (!idx_hash_insert(t->primary, r->key, r)) {
        fprintf(stderr, "tpcc: duplicate key %llu loading %s\n", (unsigned long long)r->key,
                t->name);
        exit(1);
    }
}
static void publish(int tab, struct row *r) { publish_in(tpcc.tab[tab], r); }
/* Loads a range row (tpcc.h) with its bound. */
static void load_range(enum tpcc_range k, uint32_t w, uint32_t d, uint32_t c, int32_t bound)
{
    struct row *r = load_new_row(tpcc.range, tpcc_rkey(k, w, d, c));
    memcpy(col_ptr(&tpcc.range->schema, r->data, RG_BOUND), &bound, sizeof(bound));
    publish_in(tpcc.range, r);
}
/* A random a-string of [lo, hi] characters into column c (whose width is hi). */
static void put_astring(struct rng *g, int tab, struct row *r, int c, int lo)
{
    char buf[512];
    int hi = (int)tpcc.tab[tab]->schema.cols[c].size;
    tpcc_astring(g, buf, lo, hi);
    tpcc_put_text(tab, r->data, c, buf);
}
/* Street 1, street 2, city, state (2 letters), zip (4 digits and "11111"), from column c. */
static void put_address(struct rng *g, int tab, struct row *r, int c)
{
    char zip[9];
    put_astring(g, tab, r, c, 10);
    put_astring(g, tab, r, c + 1, 10);
    put_astring(g, tab, r, c + 2, 10);
    put_astring(g, tab, r, c + 3, 2);
    tpcc_nstring(g, zip, 4, 4);
    memcpy(zip + 4, "11111", 5);
    tpcc_put_text(tab, r->data, c + 4, zip);
}
/* I_DATA / S_DATA: a-string [26, 50], 10% with "ORIGINAL" at a random position. */
static void put_data50(struct rng *g, int tab, struct row *r, int c)
{
    char buf[50];
    int len = tpcc_astring(g, buf, 26, 50);
    if (rng_below(g, 10) == 0)
        tpcc_original(g, buf, len);
    tpcc_put_text(tab, r->data, c, buf);
}

static void load_items(struct rng *g, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo; i <= hi; i++) {
        struct row *r = new_row(T_ITEM, i);
        tpcc_put32(T_ITEM, r->data, I_ID, (int32_t)i);
        tpcc_put32(T_ITEM, r->data, I_IM_ID, (int32_t)tpcc_rand(g, 1, 10000));
        put_astring(g, T_ITEM, r, I_NAME, 14);
        tpcc_put64(T_ITEM, r->data, I_PRICE, tpcc_rand(g, 100, 10000));
        put_data50(g, T_ITEM, r, I_DATA);
        publish(T_ITEM, r);
    }
}

static void load_stock(struct rng *g, uint32_t w, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo; i <= hi; i++) {
        struct row *r = new_row(T_STOCK, tpcc_skey(w, i));
        tpcc_put32(T_STOCK, r->data, S_I_ID, (int32_t)i);
        tpcc_put32(T_STOCK, r->data, S_W_ID, (int32_t)w);
        uint32_t qty = tpcc_rand(g, 10, 100);
        tpcc_put32(T_STOCK, r->data, S_QUANTITY, (int32_t)qty);
        tpcc.stock_qty0[(w - 1) * TPCC_ITEMS + i - 1] = (uint8_t)qty;
        for (int c = S_DIST_01; c <= S_DIST_10; c++)
            put_astring(g, T_STOCK, r, c, 24);
        put_data50(g, T_STOCK, r, S_DATA); /* S_YTD, S_ORDER_CNT, S_REMOTE_CNT stay 0 */
        publish(T_STOCK, r);
    }
}

static void load_warehouse(struct rng *g, uint32_t w)
{
    struct row *r = new_row(T_WAREHOUSE, w);
    tpcc_put32(T_WAREHOUSE, r->data, W_ID, (int32_t)w);
    put_astring(g, T_WAREHOUSE, r, W_NAME, 6);
    put_address(g, T_WAREHOUSE, r, W_STREET_1);
    tpcc_put32(T_WAREHOUSE, r->data, W_TAX, (int32_t)tpcc_rand(g, 0, 2000));
    tpcc_put64(T_WAREHOUSE, r->data, W_YTD, 30000000); /* 300,000.00 */
    publish(T_WAREHOUSE, r);
}

/* Orders customers of a district by (last name, first name, id) for the name ranks. */
struct cust_sort {
    uint32_t last;
    char first[16];
};
static int cust_cmp(const void *a, const void *b, void *arg)
{
    const struct cust_sort *cs = arg;
    const struct cust_sort *x = &cs[*(const uint16_t *)a], *y = &cs[*(const uint16_t *)b];
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    int c = memcmp(x->first, y->first, 16);
    if (c)
        return c;
    return *(const uint16_t *)a < *(const uint16_t *)b ? -1 : 1;
}

static void load_customers(struct rng *g, uint32_t w, uint32_t d)
{
    struct cust_sort *cs = malloc(TPCC_CUSTOMERS * sizeof(*cs));
    uint16_t *order = malloc(TPCC_CUSTOMERS * sizeof(*order));
    struct row **rows = malloc(TPCC_CUSTOMERS * sizeof(*rows));
    for (uint32_t c = 1; c <= TPCC_CUSTOMERS; c++) {
        struct row *r = new_row(T_CUSTOMER, tpcc_ckey(w, d, c));
        rows[c - 1] = r;
        tpcc_put32(T_CUSTOMER, r->data, C_ID, (int32_t)c);
        tpcc_put32(T_CUSTOMER, r->data, C_D_ID, (int32_t)d);
        tpcc_put32(T_CUSTOMER, r->data, C_W_ID, (int32_t)w);
        struct cust_sort *s = &cs[c - 1];
        s->last = c <= 1000 ? c - 1 : tpcc_nurand(g, 255, 0, 999, tpcc_c.c_last_load);
        char last[TPCC_LAST_MAX];
        tpcc_last_name(s->last, last);
        tpcc_put_text(T_CUSTOMER, r->data, C_LAST, last);
        tpcc_put_text(T_CUSTOMER, r->data, C_MIDDLE, "OE");
        tpcc_astring(g, s->first, 8, 16);
        tpcc_put_text(T_CUSTOMER, r->data, C_FIRST, s->first);
        put_address(g, T_CUSTOMER, r, C_STREET_1);
        char phone[16];
        tpcc_nstring(g, phone, 16, 16);
        tpcc_put_text(T_CUSTOMER, r->data, C_PHONE, phone);
        tpcc_put64(T_CUSTOMER, r->data, C_SINCE, tpcc.load_time);
        tpcc_put_text(T_CUSTOMER, r->data, C_CREDIT, rng_below(g, 10) == 0 ? "BC" : "GC");
        tpcc_put64(T_CUSTOMER, r->data, C_CREDIT_LIM, 5000000); /* 50,000.00 */
        tpcc_put32(T_CUSTOMER, r->data, C_DISCOUNT, (int32_t)tpcc_rand(g, 0, 5000));
        tpcc_put64(T_CUSTOMER, r->data, C_BALANCE, -1000);  /* -10.00 */
        tpcc_put64(T_CUSTOMER, r->data, C_YTD_PAYMENT, 1000); /* 10.00 */
        tpcc_put32(T_CUSTOMER, r->data, C_PAYMENT_CNT, 1);
        put_astring(g, T_CUSTOMER, r, C_DATA, 300);
        publish(T_CUSTOMER, r);

        struct row *h = new_row(T_HISTORY, TPCC_HIST_LOADED | tpcc_ckey(w, d, c));
        tpcc_put32(T_HISTORY, h->data, H_C_ID, (int32_t)c);
        tpcc_put32(T_HISTORY, h->data, H_C_D_ID, (int32_t)d);
        tpcc_put32(T_HISTORY, h->data, H_C_W_ID, (int32_t)w);
        tpcc_put32(T_HISTORY, h->data, H_D_ID, (int32_t)d);
        tpcc_put32(T_HISTORY, h->data, H_W_ID, (int32_t)w);
        tpcc_put64(T_HISTORY, h->data, H_DATE, tpcc.load_time);
        tpcc_put64(T_HISTORY, h->data, H_AMOUNT, 1000);
        put_astring(g, T_HISTORY, h, H_DATA, 12);
        publish(T_HISTORY, h);
    }
    /* ranks by C_FIRST within each last name, for the customer-by-name index */
    for (uint16_t i = 0; i < TPCC_CUSTOMERS; i++)
        order[i] = i;
    qsort_r(order, TPCC_CUSTOMERS, sizeof(*order), cust_cmp, cs);
    uint32_t rank = 0;
    for (int i = 0; i < TPCC_CUSTOMERS; i++) {
        const struct cust_sort *s = &cs[order[i]];
        rank = i > 0 && cs[order[i - 1]].last == s->last ? rank + 1 : 0;
        if (rank >= TPCC_MAX_SAME_LAST) {
            fprintf(stderr, "tpcc: more than %d customers named %u in a district\n",
                    TPCC_MAX_SAME_LAST, s->last);
            exit(1);
        }
        /* (w, d, last, rank) is new each time: the insert cannot find its key taken */
        idx_hash_insert(tpcc.cust_by_name, tpcc_namekey(w, d, s->last, rank), rows[order[i]]);
    }
    free(rows);
    free(order);
    free(cs);
}

static void load_orders(struct rng *g, uint32_t w, uint32_t d)
{
    /* O_C_ID: a random permutation of the customer ids */
    uint32_t *perm = malloc(TPCC_ORDERS * sizeof(*perm));
    for (uint32_t i = 0; i < TPCC_ORDERS; i++)
        perm[i] = i + 1;
    for (uint32_t i = TPCC_ORDERS - 1; i > 0; i--) {
        uint32_t j = (uint32_t)rng_below(g, i + 1), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    const uint32_t first_new = TPCC_ORDERS - TPCC_NEW_ORDERS + 1; /* 2101 */
    for (uint32_t o = 1; o <= TPCC_ORDERS; o++) {
        bool delivered = o < first_new;
        uint32_t c = perm[o - 1];
        int32_t ol_cnt = (int32_t)tpcc_rand(g, 5, 15);
        struct row *r = new_row(T_ORDER, tpcc_okey(w, d, o));
        tpcc_put32(T_ORDER, r->data, O_ID, (int32_t)o);
        tpcc_put32(T_ORDER, r->data, O_D_ID, (int32_t)d);
        tpcc_put32(T_ORDER, r->data, O_W_ID, (int32_t)w);
        tpcc_put32(T_ORDER, r->data, O_C_ID, (int32_t)c);
        tpcc_put64(T_ORDER, r->data, O_ENTRY_D, tpcc.load_time);
        tpcc_put32(T_ORDER, r->data, O_CARRIER_ID, delivered ? (int32_t)tpcc_rand(g, 1, 10) : 0);
        tpcc_put32(T_ORDER, r->data, O_OL_CNT, ol_cnt);
        tpcc_put32(T_ORDER, r->data, O_ALL_LOCAL, 1);
        publish(T_ORDER, r);
        load_range(RG_CUST_ORDERS, w, d, c, (int32_t)o + 1); /* the customer's one order */
        for (int32_t ol = 1; ol <= ol_cnt; ol++) {
            uint64_t key = tpcc_olkey(w, d, o, (uint32_t)ol);
            struct row *l = new_row(T_ORDER_LINE, key);
            tpcc_put32(T_ORDER_LINE, l->data, OL_O_ID, (int32_t)o);
            tpcc_put32(T_ORDER_LINE, l->data, OL_D_ID, (int32_t)d);
            tpcc_put32(T_ORDER_LINE, l->data, OL_W_ID, (int32_t)w);
            tpcc_put32(T_ORDER_LINE, l->data, OL_NUMBER, ol);
            tpcc_put32(T_ORDER_LINE, l->data, OL_I_ID, (int32_t)tpcc_rand(g, 1, TPCC_ITEMS));
            tpcc_put32(T_ORDER_LINE, l->data, OL_SUPPLY_W_ID, (int32_t)w);
            tpcc_put64(T_ORDER_LINE, l->data, OL_DELIVERY_D, delivered ? tpcc.load_time : 0);
            tpcc_put32(T_ORDER_LINE, l->data, OL_QUANTITY, 5);
            tpcc_put64(T_ORDER_LINE, l->data, OL_AMOUNT, delivered ? 0 : tpcc_rand(g, 1, 999999));
            put_astring(g, T_ORDER_LINE, l, OL_DIST_INFO, 24);
            publish(T_ORDER_LINE, l);
        }
        if (!delivered) {
            struct row *n = new_row(T_NEW_ORDER, tpcc_okey(w, d, o));
            tpcc_put32(T_NEW_ORDER, n->data, NO_O_ID, (int32_t)o);
            tpcc_put32(T_NEW_ORDER, n->data, NO_D_ID, (int32_t)d);
            tpcc_put32(T_NEW_ORDER, n->data, NO_W_ID, (int32_t)w);
            publish(T_NEW_ORDER, n);
        }
    }
    free(perm);
    load_range(RG_NEW_ORDER_HEAD, w, d, 0, (int32_t)first_new);
    load_range(RG_ORDER_TAIL, w, d, 0, TPCC_ORDERS + 1);
}

static void load_district(struct rng *g, uint32_t w, uint32_t d)
{
    struct row *r = new_row(T_DISTRICT, tpcc_dkey(w, d));
    tpcc_put32(T_DISTRICT, r->data, D_ID, (int32_t)d);
    tpcc_put32(T_DISTRICT, r->data, D_W_ID, (int32_t)w);
    put_astring(g, T_DISTRICT, r, D_NAME, 6);
    put_address(g, T_DISTRICT, r, D_STREET_1);
    tpcc_put32(T_DISTRICT, r->data, D_TAX, (int32_t)tpcc_rand(g, 0, 2000));
    tpcc_put64(T_DISTRICT, r->data, D_YTD, 3000000); /* 30,000.00 */
    tpcc_put32(T_DISTRICT, r->data, D_NEXT_O_ID, TPCC_ORDERS + 1);
    publish(T_DISTRICT, r);
    load_customers(g, w, d);
    load_orders(g, w, d);
}

/* ---- tasks ---- */

#define ITEM_SLICES 10
#define STOCK_SLICES 10
#define TASKS_PER_WH (STOCK_SLICES + TPCC_DISTRICTS)
/* Salt of the load tasks' random streams: rng_seed(--seed ^ TPCC_LOAD_SEED_SALT, task). */
#define TPCC_LOAD_SEED_SALT 0x7BCCull

struct load_ctx {
    const struct options *o;
    uint64_t seed;
    int ntasks;
    atomic_int next;
    atomic_int *wh_done; /* per warehouse: its tasks finished */
};

int tpcc_server_of(const struct table *tab, uint64_t key, int servers)
{
    uint64_t w; /* the warehouse, from the key's layout (tpcc.h) */
    if (tab == tpcc.tab[T_ITEM])
        return -1; /* read-only: every server holds it */
    if (tab == tpcc.tab[T_WAREHOUSE])
        w = key;
    else if (tab == tpcc.tab[T_DISTRICT])
        w = key >> 4;
    else if (tab == tpcc.tab[T_CUSTOMER])
        w = key >> 16;
    else if (tab == tpcc.tab[T_NEW_ORDER] || tab == tpcc.tab[T_ORDER])
        w = key >> 36;
    else if (tab == tpcc.tab[T_ORDER_LINE])
        w = key >> 40;
    else if (tab == tpcc.tab[T_STOCK])
        w = key >> 17;
    else if (tab == tpcc.range)
        w = (key & 0xFFFFFFFFu) >> 16;
    else /* HISTORY: its key names no warehouse */
        return (int)(key % (uint64_t)servers);
    return (int)((w - 1) % (uint64_t)servers);
}

int tpcc_owner(const struct options *o, uint32_t w)
{
    /* tpcc_query.c's home_w: with T >= W thread t works on warehouse t % W + 1; with
     * T < W, partitioned, on the warehouses w with (w - 1) % T == t */
    return (int)((w - 1) % (uint32_t)o->threads);
}

static void run_task(int task, const struct load_ctx *ctx)
{
    uint64_t seed = ctx->seed;
    struct rng g;
    rng_seed(&g, seed ^ TPCC_LOAD_SEED_SALT, (uint64_t)task);
    if (task < ITEM_SLICES) {
        uint32_t per = TPCC_ITEMS / ITEM_SLICES;
        load_items(&g, (uint32_t)task * per + 1, (uint32_t)(task + 1) * per);
        return;
    }
    task -= ITEM_SLICES;
    uint32_t w = (uint32_t)(task / TASKS_PER_WH) + 1;
    int k = task % TASKS_PER_WH;
    table_freelist_set_node(&loader_fl, tpcc.placed ? topo_node_of(tpcc_owner(ctx->o, w)) : -1);
    if (k < STOCK_SLICES) {
        uint32_t per = TPCC_ITEMS / STOCK_SLICES;
        load_stock(&g, w, (uint32_t)k * per + 1, (uint32_t)(k + 1) * per);
        return;
    }
    uint32_t d = (uint32_t)(k - STOCK_SLICES) + 1;
    if (d == 1)
        load_warehouse(&g, w);
    load_district(&g, w, d);
}

static void loader(int i, void *arg)
{
    (void)i;
    struct load_ctx *ctx = arg;
    for (int task; (task = atomic_fetch_add(&ctx->next, 1)) < ctx->ntasks;) {
        run_task(task, ctx);
        progress_beat(); /* a task is a part of a warehouse: the watchdog sees it */
        /* relaxed: a count to show progress; the loaded rows are published to the
         * run by parallel_for's join */
        if (task >= ITEM_SLICES &&
            atomic_fetch_add_explicit(&ctx->wh_done[(task - ITEM_SLICES) / TASKS_PER_WH], 1,
                                      memory_order_relaxed) == TASKS_PER_WH - 1)
            progress_add(1);
    }
}

static struct table *make_table(const struct tpcc_tabdef *td, bool verify, uint64_t rows,
                                unsigned cluster_bits)
{
    struct schema s;
    schema_init(&s, verify);
    schema_cluster_keys(&s, cluster_bits);
    for (int c = 0; c < td->ncols; c++)
        if (schema_add(&s, td->cols[c].name, td->cols[c].type, td->cols[c].size) != c)
            abort();
    schema_seal(&s);
    return tpcc.placed && td != &tpcc_tabdefs[T_ITEM] ? table_create_placed(td->name, &s, rows, true)
                                                     : table_create(td->name, &s, rows, true);
}

int tpcc_customers_by_name(uint32_t w, uint32_t d, uint32_t last, struct row **rows)
{
    int n = 0;
    while (n < TPCC_MAX_SAME_LAST &&
           (rows[n] = idx_hash_get(tpcc.cust_by_name, tpcc_namekey(w, d, last, (uint32_t)n))))
        n++;
    return n;
}

void tpcc_load(const struct options *o)
{
    uint64_t w = (uint64_t)o->warehouses;
    memset(&tpcc, 0, sizeof(tpcc));
    tpcc.warehouses = o->warehouses;
    tpcc.prefetch = o->prefetch;
    tpcc.load_time = (int64_t)time(NULL);
    tpcc.placed = o->threads >= o->warehouses || o->partition_by_warehouse;
    tpcc_consts_init(&tpcc_c, o->seed);
    /* Sizes hint the tables' chunks and primary indexes; the four tables NewOrder and
     * Payment insert into get twice their loaded rows, so a run of some seconds does not
     * grow their indexes (which grow by themselves past that, storage/index_hash.c). */
    static const uint64_t rows_per_wh[TPCC_NTABLES] = {
        [T_WAREHOUSE] = 1,         [T_DISTRICT] = TPCC_DISTRICTS,
        [T_CUSTOMER] = 30000,      [T_HISTORY] = 2 * 30000,
        [T_NEW_ORDER] = 2 * 9000,  [T_ORDER] = 2 * 30000,
        [T_ORDER_LINE] = 2 * 300000, [T_STOCK] = TPCC_ITEMS};
    /* The tables whose keys come in runs keep a run's keys in one page of index buckets
     * (storage/index.h): an order's lines (ol_number in the low 4 bits), a district's
     * next orders (o_id lowest) and a thread's next history rows (its sequence lowest).
     * 6 bits: 64 buckets, one 4 KiB page; NewOrder's order, new-order and 5-15
     * order-line inserts then touch 3 pages of buckets instead of 7-17. The other
     * tables' keys are drawn at random within their low bits: grouping gains nothing. */
    static const unsigned cluster_bits[TPCC_NTABLES] = {
        [T_HISTORY] = 6, [T_NEW_ORDER] = 6, [T_ORDER] = 6, [T_ORDER_LINE] = 6};
    for (int t = 0; t < TPCC_NTABLES; t++)
        tpcc.tab[t] = make_table(&tpcc_tabdefs[t], o->verify,
                                 t == T_ITEM ? TPCC_ITEMS : rows_per_wh[t] * w, cluster_bits[t]);
    tpcc.range = make_table(&range_tabdef, o->verify, RANGE_ROWS_PER_WH * w, 0);
    /* ranks in the low bits: a name's customers in one page of buckets (tpcc.h) */
    tpcc.cust_by_name = idx_hash_create((size_t)w * TPCC_DISTRICTS * TPCC_CUSTOMERS, 6);
    tpcc.stock_qty0 = mem_alloc(w * TPCC_ITEMS); /* each STOCK slice's loader writes its own */

    struct load_ctx ctx = {.o = o, .seed = o->seed, .ntasks = ITEM_SLICES + TASKS_PER_WH * (int)w};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = o->threads;
    if (cpus > 0 && n > cpus)
        n = (int)cpus;
    if (n > ctx.ntasks)
        n = ctx.ntasks;
    atomic_init(&ctx.next, 0);
    ctx.wh_done = mem_alloc(w * sizeof(*ctx.wh_done));
    for (uint64_t i = 0; i < w; i++)
        atomic_init(&ctx.wh_done[i], 0);
    progress_phase("load", "warehouses", w);
    parallel_for(n, loader, &ctx);
    mem_free(ctx.wh_done);
}
