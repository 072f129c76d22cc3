/* TPC-C input generation (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1), per worker thread,
 * before the clock starts.
 *
 * Home warehouse and district of a query (T = --threads, W = --warehouses, t = thread):
 *  - T >= W: thread t's home warehouse is t % W + 1; its district is random in 1..10,
 *    except StockLevel's, which is the thread's own ("terminal's") district
 *    (t / W) % 10 + 1.
 *  - T < W: the warehouse and district are random for every query.
 * With --partition-by-warehouse (the RCC paper partitions WAREHOUSE and DISTRICT by
 * warehouse), no two threads share a DISTRICT row and threads share a WAREHOUSE row only
 * when T > W:
 *  - T >= W: the k threads of warehouse w (t = w - 1, w - 1 + W, ...) split its ten
 *    districts round-robin (thread j of k gets the d with (d - 1) % k == j; beyond 10
 *    threads per warehouse they share districts, j % 10 + 1); every query of the thread,
 *    StockLevel's included, uses one of its districts.
 *  - T < W: thread t owns the warehouses w with (w - 1) % T == t and draws among them.
 * Remote accesses stay as in the specification in both modes: Payment's 15% remote
 * customer and NewOrder's 1% remote supply warehouse per line touch CUSTOMER and STOCK
 * rows of other warehouses, never their WAREHOUSE or DISTRICT rows; --remote off drops
 * them (every access in the home warehouse). */
#include "benchmarks/tpcc.h"

static uint32_t home_w(struct rng *r, int t, const struct options *o)
{
    uint32_t T = (uint32_t)o->threads, W = (uint32_t)o->warehouses, th = (uint32_t)t;
    if (T >= W)
        return th % W + 1;
    if (o->partition_by_warehouse) {
        uint32_t owned = (W - 1 - th) / T + 1;
        return th + 1 + T * tpcc_rand(r, 0, owned - 1);
    }
    return tpcc_rand(r, 1, W);
}

/* The district of a query; `terminal`: StockLevel's fixed district. */
static uint32_t home_d(struct rng *r, int t, uint32_t w, bool terminal, const struct options *o)
{
    uint32_t T = (uint32_t)o->threads, W = (uint32_t)o->warehouses, th = (uint32_t)t;
    if (T < W)
        return tpcc_rand(r, 1, TPCC_DISTRICTS);
    uint32_t j = th / W;
    if (o->partition_by_warehouse) {
        uint32_t k = (T - w) / W + 1; /* threads of warehouse w */
        if (k > TPCC_DISTRICTS)
            return j % TPCC_DISTRICTS + 1;
        uint32_t mine = (TPCC_DISTRICTS - 1 - j) / k + 1;
        return j + 1 + k * tpcc_rand(r, 0, mine - 1);
    }
    return terminal ? j % TPCC_DISTRICTS + 1 : tpcc_rand(r, 1, TPCC_DISTRICTS);
}

static uint32_t other_w(struct rng *r, uint32_t w, uint32_t W)
{
    uint32_t x = tpcc_rand(r, 1, W - 1);
    return x >= w ? x + 1 : x;
}

/* Customer by last name (60%, NURand(255, 0, 999)) or by id (NURand(1023, 1, 3000)). */
static void pick_customer(struct rng *r, struct tpcc_query *q)
{
    q->by_name = tpcc_rand(r, 1, 100) <= 60;
    q->c_id = q->by_name ? tpcc_nurand(r, 255, 0, 999, tpcc_c.c_last_run)
                         : tpcc_nurand(r, 1023, 1, TPCC_CUSTOMERS, tpcc_c.c_id);
}

void tpcc_gen_query(void *qv, struct rng *r, int thread, const struct options *o)
{
    struct tpcc_query *q = qv;
    memset(q, 0, sizeof(*q));
    uint32_t W = (uint32_t)o->warehouses;
    uint32_t x = tpcc_rand(r, 1, 100);
    if (o->mix == TPCC_MIX_NEWORDER_PAYMENT)
        q->type = x <= 50 ? TX_NEW_ORDER : TX_PAYMENT;
    else /* 45/43/4/4/4 */
        q->type = x <= 45   ? TX_NEW_ORDER
                  : x <= 88 ? TX_PAYMENT
                  : x <= 92 ? TX_ORDER_STATUS
                  : x <= 96 ? TX_DELIVERY
                            : TX_STOCK_LEVEL;
    q->thread = (uint16_t)thread;
    uint32_t w = home_w(r, thread, o);
    q->w_id = (uint16_t)w;
    q->d_id = (uint16_t)home_d(r, thread, w, q->type == TX_STOCK_LEVEL, o);
    switch (q->type) {
    case TX_NEW_ORDER: {
        q->c_id = tpcc_nurand(r, 1023, 1, TPCC_CUSTOMERS, tpcc_c.c_id);
        q->ol_cnt = (uint8_t)tpcc_rand(r, 5, TPCC_MAX_OL);
        bool rollback = tpcc_rand(r, 1, 100) == 1;
        q->all_local = 1;
        for (int i = 0; i < q->ol_cnt; i++) {
            struct tpcc_ol_in *l = &q->ol[i];
            l->i_id = tpcc_nurand(r, 8191, 1, TPCC_ITEMS, tpcc_c.ol_i_id);
            l->supply_w_id = (uint16_t)w;
            if (W > 1 && tpcc_rand(r, 1, 100) == 1 && o->tpcc_remote) {
                l->supply_w_id = (uint16_t)other_w(r, w, W);
                q->all_local = 0;
            }
            l->quantity = (uint16_t)tpcc_rand(r, 1, 10);
        }
        if (rollback)
            q->ol[q->ol_cnt - 1].i_id = TPCC_ITEMS + 1; /* unused: the transaction rolls back */
        break;
    }
    case TX_PAYMENT:
        if (W > 1 && tpcc_rand(r, 1, 100) > 85 && o->tpcc_remote) {
            q->c_w_id = (uint16_t)other_w(r, w, W);
            q->c_d_id = (uint16_t)tpcc_rand(r, 1, TPCC_DISTRICTS);
        } else {
            q->c_w_id = q->w_id;
            q->c_d_id = q->d_id;
        }
        pick_customer(r, q);
        q->h_amount = tpcc_rand(r, 100, 500000); /* 1.00 .. 5,000.00 */
        break;
    case TX_ORDER_STATUS:
        pick_customer(r, q);
        break;
    case TX_DELIVERY:
        q->o_carrier_id = (uint16_t)tpcc_rand(r, 1, 10);
        break;
    case TX_STOCK_LEVEL:
        q->threshold = tpcc_rand(r, 10, 20);
        break;
    }
}
