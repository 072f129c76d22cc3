/* TPC-C: the shared declarations of the workload's files.
 *
 *   tpcc_rand.c    NURand, the run-time constants C, last names, random strings (clause 2.1, 4.3.2)
 *   tpcc_schema.c  the nine tables (clause 1.3), their keys and indexes, the loader (clause 4.3.3)
 *   tpcc_query.c   the per-thread input generation of the five transactions (clause 2.x.1)
 *   tpcc_txn.c     the five transactions (clause 2.x.2) and the workload struct
 *   tpcc_check.c   the consistency conditions (clause 3.3.2), --check
 *   tpcc_dump.c    the final database as CSV, --dump DIR
 *
 * Values: ids, counts and quantities are int32; money is int64 cents; rates (W_TAX,
 * D_TAX, C_DISCOUNT) are int32 in units of 1/10000; dates are int64 Unix seconds with 0 =
 * null; O_CARRIER_ID 0 = null. Text columns are fixed width, NUL padded.
 *
 * Keys (uint64): d = district 1..10, w = warehouse 1..TPCC_MAX_WAREHOUSES,
 *   dkey  = w << 4 | d                      (20 bits)
 *   WAREHOUSE w; DISTRICT dkey; CUSTOMER dkey << 12 | c; ORDER, NEW-ORDER dkey << 32 | o;
 *   ORDER-LINE (dkey << 32 | o) << 4 | ol_number; ITEM i; STOCK w << 17 | i;
 *   HISTORY: loaded rows 1 << 63 | customer key, inserted rows (thread + 1) << 40 | n.
 * The secondary index (a hash index of its own):
 *   customer by name  dkey << 24 | c_last_number << 14 | rank, where rank orders the
 *                     district's customers of that last name by C_FIRST (then C_ID);
 *                     computed at load (C_LAST, C_FIRST never change, no customer is
 *                     ever inserted), so the ranks of a name are dense from 0 and
 *                     look-ups of rank 0, 1, ... up to the first not found give its
 *                     customers in C_FIRST order. Clustered (6 bits): a name's ranks lie
 *                     in neighbouring buckets of one page.
 * Every other range is found by primary-key look-ups (clause 1.4.1 leaves the access
 * method open): o_ids are dense per district (a NewOrder that rolls back gives its o_id
 * back with D_NEXT_O_ID) and lines are numbered 1..O_OL_CNT, so the range rows below
 * name the keys a scan would find:
 *   a customer's last order        ORDER (w, d, its RG_CUST_ORDERS bound - 1)
 *   a district's oldest new order  NEW-ORDER (w, d, its RG_NEW_ORDER_HEAD bound)
 *   the last 20 orders' lines      ORDER-LINE (w, d, o, 1..) for o in [tail - 20, tail),
 *                                  each order's lines up to the first key not found.
 * No index but the primary ones is then updated at run time (TBB's ordered index cost a
 * third of a NewOrder when TPC-C updated it at run time; its by-name scan, 6-10% of every
 * variant's partitioned NewOrder+Payment run, is gone too).
 * Range rows (phantom protection): a hidden table, tpcc.range (not one of the nine: not
 * dumped, not counted), holds one row per key range that a scan reads; its one column,
 * RG_BOUND, is the range's bound (an o_id). A scan reads the row through the CC API
 * before it scans; a transaction that inserts into or deletes from the range writes it.
 * Each algorithm thus orders scans against inserts and deletes with its own protocol,
 * and --verify sees the edges. Since the index shows only published (committed) entries
 * while a dirty-reading algorithm may show the row's uncommitted bound, a scan whose
 * result disagrees with the bound it read retries (AR_RETRY) instead of using it.
 *   RG_NEW_ORDER_HEAD  per district: the oldest undelivered o_id (= D_NEXT_O_ID when
 *                      none); Delivery reads it for update, scans, writes it + 1.
 *   RG_ORDER_TAIL      per district: one past the newest order (= D_NEXT_O_ID) of its
 *                      ORDER, NEW-ORDER and ORDER-LINE entries; NewOrder writes it;
 *                      StockLevel reads it, and Delivery when a district shows no
 *                      NEW-ORDER row (the tail is the only place an insert can land).
 *   RG_CUST_ORDERS     per customer: one past its newest o_id; NewOrder writes it,
 *                      OrderStatus reads it.
 * Customers are never inserted or deleted, so customer-by-name look-ups need no range row.
 * Key: kind << 32 | customer key (c = 0 for the per-district rows).
 */
#ifndef BENCH_TPCC_H
#define BENCH_TPCC_H

#include <stdint.h>
#include <string.h>

#include "benchmarks/workload.h"
#include "storage/index.h"
#include "storage/table.h"

/* ---- scale (clause 1.2, 4.3) ---- */
#define TPCC_MAX_WAREHOUSES 1024
#define TPCC_DISTRICTS 10
#define TPCC_CUSTOMERS 3000 /* per district */
#define TPCC_ORDERS 3000    /* initial, per district */
#define TPCC_NEW_ORDERS 900 /* the last 900 initial orders are undelivered */
#define TPCC_ITEMS 100000
#define TPCC_MAX_OL 15
#define TPCC_STOCK_LEVEL_ORDERS 20
/* Most customers of one last name in one district (the loader checks it holds). */
#define TPCC_MAX_SAME_LAST 256

/* ---- tables and columns (the enums follow the schemas' column order) ---- */
enum tpcc_table { T_WAREHOUSE, T_DISTRICT, T_CUSTOMER, T_HISTORY, T_NEW_ORDER, T_ORDER,
                  T_ORDER_LINE, T_ITEM, T_STOCK, TPCC_NTABLES };

enum { W_ID, W_NAME, W_STREET_1, W_STREET_2, W_CITY, W_STATE, W_ZIP, W_TAX, W_YTD };
enum { D_ID, D_W_ID, D_NAME, D_STREET_1, D_STREET_2, D_CITY, D_STATE, D_ZIP, D_TAX, D_YTD,
       D_NEXT_O_ID };
enum { C_ID, C_D_ID, C_W_ID, C_FIRST, C_MIDDLE, C_LAST, C_STREET_1, C_STREET_2, C_CITY,
       C_STATE, C_ZIP, C_PHONE, C_SINCE, C_CREDIT, C_CREDIT_LIM, C_DISCOUNT, C_BALANCE,
       C_YTD_PAYMENT, C_PAYMENT_CNT, C_DELIVERY_CNT, C_DATA };
enum { H_C_ID, H_C_D_ID, H_C_W_ID, H_D_ID, H_W_ID, H_DATE, H_AMOUNT, H_DATA };
enum { NO_O_ID, NO_D_ID, NO_W_ID };
enum { O_ID, O_D_ID, O_W_ID, O_C_ID, O_ENTRY_D, O_CARRIER_ID, O_OL_CNT, O_ALL_LOCAL };
enum { OL_O_ID, OL_D_ID, OL_W_ID, OL_NUMBER, OL_I_ID, OL_SUPPLY_W_ID, OL_DELIVERY_D,
       OL_QUANTITY, OL_AMOUNT, OL_DIST_INFO };
enum { I_ID, I_IM_ID, I_NAME, I_PRICE, I_DATA };
enum { S_I_ID, S_W_ID, S_QUANTITY, S_DIST_01, S_DIST_10 = S_DIST_01 + 9, S_YTD,
       S_ORDER_CNT, S_REMOTE_CNT, S_DATA };

/* How the dump prints a column. */
enum tpcc_fmt { F_INT, F_MONEY, F_RATE, F_DATE, F_NULL0, F_TEXT };

struct tpcc_coldef {
    const char *name; /* the specification's name, lower case */
    enum col_type type;
    uint32_t size;
    enum tpcc_fmt fmt;
};

struct tpcc_tabdef {
    const char *name; /* table (and dump file) name */
    const struct tpcc_coldef *cols;
    int ncols;
};

extern const struct tpcc_tabdef tpcc_tabdefs[TPCC_NTABLES];

/* The loaded database (set by tpcc_load). */
struct tpcc_db {
    int warehouses;
    struct table *tab[TPCC_NTABLES];
    struct idx_hash *cust_by_name; /* customer by name (above): no insert or remove at run time */
    struct table *range; /* the range rows (above) */
    int64_t load_time; /* Unix seconds: C_SINCE, O_ENTRY_D, H_DATE of loaded rows */
    /* Whether every warehouse has an owner thread (threads >= warehouses, or
     * --partition-by-warehouse): then its rows are placed on that thread's NUMA node
     * (placed tables, storage/table.h) and new rows on the inserting thread's node. */
    bool placed;
    /* --prefetch: NewOrder looks up its customer's, items' and stocks' rows first and
     * prefetches them, Payment its customer's by id (none of these tables takes inserts
     * or deletes), so their misses overlap; NewOrder and Payment also request the index
     * buckets of the keys their commits insert */
    bool prefetch;
    /* The loaded S_QUANTITY of STOCK (w, i), at [(w - 1) * TPCC_ITEMS + i - 1]: --check's
     * condition 17 derives the final quantity from it (tpcc_check.c). */
    uint8_t *stock_qty0;
};
/* The network model's server of a row: its warehouse's ((w - 1) mod servers); ITEM is on
 * every server (-1); HISTORY by its key. */
int tpcc_server_of(const struct table *tab, uint64_t key, int servers);
/* The thread that owns warehouse w (tpcc.placed): the one its rows are placed for. */
int tpcc_owner(const struct options *o, uint32_t w);
extern struct tpcc_db tpcc;

/* ---- keys ---- */
static inline uint64_t tpcc_dkey(uint32_t w, uint32_t d) { return (uint64_t)w << 4 | d; }
static inline uint64_t tpcc_ckey(uint32_t w, uint32_t d, uint32_t c)
{
    return tpcc_dkey(w, d) << 12 | c;
}
static inline uint64_t tpcc_okey(uint32_t w, uint32_t d, uint32_t o)
{
    return tpcc_dkey(w, d) << 32 | o;
}
static inline uint64_t tpcc_olkey(uint32_t w, uint32_t d, uint32_t o, uint32_t ol)
{
    return tpcc_okey(w, d, o) << 4 | ol;
}
static inline uint64_t tpcc_skey(uint32_t w, uint32_t i) { return (uint64_t)w << 17 | i; }
static inline uint64_t tpcc_namekey(uint32_t w, uint32_t d, uint32_t last, uint32_t rank)
{
    return tpcc_dkey(w, d) << 24 | (uint64_t)last << 14 | rank;
}
#define TPCC_HIST_LOADED (1ull << 63)

enum tpcc_range { RG_NEW_ORDER_HEAD, RG_ORDER_TAIL, RG_CUST_ORDERS };
enum { RG_BOUND }; /* the range row's one column (int32) */
static inline uint64_t tpcc_rkey(enum tpcc_range k, uint32_t w, uint32_t d, uint32_t c)
{
    return (uint64_t)k << 32 | tpcc_ckey(w, d, c);
}

/* ---- row image access ---- */
static inline int32_t tpcc_get32(int tab, const unsigned char *img, int c)
{
    int32_t v;
    memcpy(&v, col_ptr(&tpcc.tab[tab]->schema, img, c), sizeof(v));
    return v;
}
static inline int64_t tpcc_get64(int tab, const unsigned char *img, int c)
{
    int64_t v;
    memcpy(&v, col_ptr(&tpcc.tab[tab]->schema, img, c), sizeof(v));
    return v;
}
static inline const char *tpcc_text(int tab, const unsigned char *img, int c)
{
    return (const char *)col_ptr(&tpcc.tab[tab]->schema, img, c);
}
/* Column stores into a row image: the loader's rows, and inserted rows (private until
 * commit, filled in place: see txn_insert). Text takes the column's full width. */
static inline void tpcc_put32(int tab, unsigned char *img, int c, int32_t v)
{
    memcpy(col_ptr(&tpcc.tab[tab]->schema, img, c), &v, sizeof(v));
}
static inline void tpcc_put64(int tab, unsigned char *img, int c, int64_t v)
{
    memcpy(col_ptr(&tpcc.tab[tab]->schema, img, c), &v, sizeof(v));
}
static inline void tpcc_put_text(int tab, unsigned char *img, int c, const char *s)
{
    memcpy(col_ptr(&tpcc.tab[tab]->schema, img, c), s, tpcc.tab[tab]->schema.cols[c].size);
}
/* Whether row r is a committed, not deleted row of its table (rows of aborted inserts
 * stay allocated but never enter the primary index). Only when no transaction runs. */
static inline bool tpcc_row_live(struct table *t, struct row *r)
{
    return !atomic_load_explicit(&r->deleted, memory_order_relaxed) &&
           idx_hash_get(t->primary, r->key) == r;
}

/* ---- random input (tpcc_rand.c) ---- */
struct tpcc_consts {
    uint32_t c_last_load, c_last_run; /* C for NURand(255, 0, 999) at load and at run */
    uint32_t c_id;                    /* C for NURand(1023, 1, 3000) */
    uint32_t ol_i_id;                 /* C for NURand(8191, 1, 100000) */
};
extern struct tpcc_consts tpcc_c;

/* Chooses the constants from the seed; the run's C_LAST constant differs from the
 * load's by a delta in [65, 119] other than 96 and 112 (clause 2.1.6.1). */
void tpcc_consts_init(struct tpcc_consts *c, uint64_t seed);
/* Uniform integer in [lo, hi]. */
static inline uint32_t tpcc_rand(struct rng *r, uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)rng_below(r, (uint64_t)hi - lo + 1);
}
/* NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. */
static inline uint32_t tpcc_nurand(struct rng *r, uint32_t a, uint32_t x, uint32_t y, uint32_t c)
{
    return ((tpcc_rand(r, 0, a) | tpcc_rand(r, x, y)) + c) % (y - x + 1) + x;
}
#define TPCC_LAST_MAX 16 /* longest last name: 3 x 5 letters, NUL padded to 16 */
#define TPCC_LAST_NAMES 1000 /* last-name numbers 0..999 (clause 4.3.2.3) */
/* Writes the last name of number n in [0, 999] (three syllables) into out[16], NUL
 * padded; returns its length. */
int tpcc_last_name(uint32_t n, char out[TPCC_LAST_MAX]);
/* Random a-string (letters and digits) / n-string (digits) of a length in [lo, hi] into
 * out (NUL padded to hi bytes); returns the length. */
int tpcc_astring(struct rng *r, char *out, int lo, int hi);
int tpcc_nstring(struct rng *r, char *out, int lo, int hi);
/* Puts "ORIGINAL" at a random position of the len-byte string s (len >= 8). */
void tpcc_original(struct rng *r, char *s, int len);

/* ---- queries (tpcc_query.c) ---- */
enum tpcc_type { TX_NEW_ORDER, TX_PAYMENT, TX_ORDER_STATUS, TX_DELIVERY, TX_STOCK_LEVEL };

struct tpcc_ol_in {
    uint32_t i_id; /* TPCC_ITEMS + 1: the unused item of a rollback */
    uint16_t supply_w_id;
    uint16_t quantity;
};

struct tpcc_query {
    uint8_t type;
    uint8_t by_name; /* payment, order status: customer by last name */
    uint8_t ol_cnt;
    uint8_t all_local;
    uint16_t thread;
    uint16_t w_id;
    uint16_t d_id;
    uint16_t c_w_id, c_d_id; /* payment: the customer's warehouse and district */
    uint16_t o_carrier_id;   /* delivery */
    uint32_t c_id;           /* or the last name's number when by_name */
    uint32_t threshold;      /* stock level */
    int64_t h_amount;        /* payment, cents */
    struct tpcc_ol_in ol[TPCC_MAX_OL];
};

void tpcc_gen_query(void *q, struct rng *r, int thread, const struct options *o);

/* ---- the rest ---- */
void tpcc_load(const struct options *o);
/* The customers of district (w, d) with last name number `last`, in C_FIRST order, into
 * rows[TPCC_MAX_SAME_LAST]: the customer-by-name index's ranks 0, 1, ... up to the first
 * not found (above); returns how many. */
int tpcc_customers_by_name(uint32_t w, uint32_t d, uint32_t last, struct row **rows);
void tpcc_json(const struct options *o, FILE *f);
bool tpcc_check(const struct options *o, FILE *out);
bool tpcc_dump(const struct options *o, const char *dir, FILE *err);
/* Counts the live rows of each table (no transaction may run). */
void tpcc_count_rows(uint64_t counts[TPCC_NTABLES]);

#endif
