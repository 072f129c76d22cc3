/* Unit tests of the TPC-C workload: NURand's range and shape (against the exact
 * distribution), the run-time constant C's delta rule, last names from syllables, random
 * strings; the loader (row counts, clause 4.3.3.1 value rules, the customer-by-name
 * index in C_FIRST order) and the consistency conditions right after the load; then
 * 3,000 queries of the standard mix run one after another (the `none` algorithm, one
 * thread) and the conditions still hold; each STOCK column that conditions 14-17 compare,
 * off by one on the most ordered item, fails its condition. */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/tpcc.h"
#include "storage/clock.h"
#include "storage/mem.h"
#include "tests/unit/check.h"

static void nurand_shape(uint32_t a, uint32_t x, uint32_t y, uint32_t c)
{
    uint32_t n = y - x + 1;
    /* exact: P(v) = #{(p, q) : ((p | q) + c) % n + x == v} / ((a + 1) n) */
    double *p = calloc(n, sizeof(*p));
    for (uint32_t i = 0; i <= a; i++)
        for (uint32_t j = x; j <= y; j++)
            p[((i | j) + c) % n] += 1.0 / ((double)(a + 1) * n);
    uint64_t draws = 2000000;
    uint64_t *cnt = calloc(n, sizeof(*cnt));
    struct rng r;
    rng_seed(&r, 42, a);
    bool in_range = true;
    for (uint64_t i = 0; i < draws; i++) {
        uint32_t v = tpcc_nurand(&r, a, x, y, c);
        if (v < x || v > y) {
            in_range = false;
            continue;
        }
        cnt[v - x]++;
    }
    CHECK(in_range);
    int bad = 0;
    for (uint32_t v = 0; v < n; v++) {
        double mean = p[v] * (double)draws, sd = sqrt(mean * (1 - p[v]));
        if (fabs((double)cnt[v] - mean) > 6 * sd + 1) {
            if (bad++ < 3)
                printf("  NURand(%u, %u, %u): value %u drawn %llu times, expected %.0f +- %.0f\n",
                       a, x, y, v + x, (unsigned long long)cnt[v], mean, sd);
        }
    }
    CHECK(bad == 0);
    free(cnt);
    free(p);
}

static void nurand(void)
{
    nurand_shape(255, 0, 999, 123);
    nurand_shape(1023, 1, 3000, 259);
    nurand_shape(8191, 1, 100000, 7911);
}

static void c_delta(void)
{
    for (uint64_t seed = 0; seed < 2000; seed++) {
        struct tpcc_consts c;
        tpcc_consts_init(&c, seed);
        int d = abs((int)c.c_last_run - (int)c.c_last_load);
        CHECK(c.c_last_load <= 255 && c.c_last_run <= 255);
        CHECK(d >= 65 && d <= 119 && d != 96 && d != 112);
        CHECK(c.c_id <= 1023 && c.ol_i_id <= 8191);
    }
}

static void last_names(void)
{
    char s[TPCC_LAST_MAX];
    CHECK(tpcc_last_name(0, s) == 9 && strcmp(s, "BARBARBAR") == 0);
    CHECK(tpcc_last_name(371, s) == 13 && strcmp(s, "PRICALLYOUGHT") == 0); /* clause 4.3.2.3 */
    CHECK(tpcc_last_name(999, s) == 12 && strcmp(s, "EINGEINGEING") == 0);
    for (uint32_t n = 0; n < 1000; n++) {
        int len = tpcc_last_name(n, s);
        CHECK(len >= 9 && len <= 15 && (int)strnlen(s, TPCC_LAST_MAX) == len);
    }
}

static void strings(void)
{
    struct rng r;
    rng_seed(&r, 1, 2);
    char buf[64];
    for (int i = 0; i < 1000; i++) {
        int len = tpcc_astring(&r, buf, 8, 16);
        CHECK(len >= 8 && len <= 16);
        for (int k = 0; k < 16; k++)
            CHECK(k < len ? (buf[k] >= '0' && buf[k] <= 'z') : buf[k] == 0);
        len = tpcc_nstring(&r, buf, 4, 4);
        CHECK(len == 4);
        for (int k = 0; k < 4; k++)
            CHECK(buf[k] >= '0' && buf[k] <= '9');
    }
}

static struct options opts;

static void load(void)
{
    char *argv[] = {"test", "--workload", "tpcc", "--threads", "2", "--seed", "7", NULL};
    options_parse(&opts, 7, argv);
    double t0 = clock_now_s();
    tpcc_load(&opts);
    printf("  loaded 1 warehouse in %.2f s\n", clock_now_s() - t0);
    uint64_t n[TPCC_NTABLES];
    tpcc_count_rows(n);
    CHECK_EQ_U(n[T_WAREHOUSE], 1);
    CHECK_EQ_U(n[T_DISTRICT], 10);
    CHECK_EQ_U(n[T_CUSTOMER], 30000);
    CHECK_EQ_U(n[T_HISTORY], 30000);
    CHECK_EQ_U(n[T_ORDER], 30000);
    CHECK_EQ_U(n[T_NEW_ORDER], 9000);
    CHECK(n[T_ORDER_LINE] > 30000 * 9 && n[T_ORDER_LINE] < 30000 * 11);
    CHECK_EQ_U(n[T_ITEM], 100000);
    CHECK_EQ_U(n[T_STOCK], 100000);
}

static void value_rules(void)
{
    uint64_t original = 0, bc = 0;
    for (uint32_t i = 1; i <= TPCC_ITEMS; i++) {
        struct row *r = idx_hash_get(tpcc.tab[T_ITEM]->primary, i);
        int64_t price = tpcc_get64(T_ITEM, r->data, I_PRICE);
        CHECK(price >= 100 && price <= 10000);
        original += memmem(tpcc_text(T_ITEM, r->data, I_DATA), 50, "ORIGINAL", 8) != NULL;
    }
    CHECK(original > 9000 && original < 11000);
    for (uint32_t c = 1; c <= TPCC_CUSTOMERS; c++) {
        struct row *r = idx_hash_get(tpcc.tab[T_CUSTOMER]->primary, tpcc_ckey(1, 3, c));
        bc += memcmp(tpcc_text(T_CUSTOMER, r->data, C_CREDIT), "BC", 2) == 0;
        CHECK(tpcc_get64(T_CUSTOMER, r->data, C_BALANCE) == -1000);
        int32_t disc = tpcc_get32(T_CUSTOMER, r->data, C_DISCOUNT);
        CHECK(disc >= 0 && disc <= 5000);
        size_t dl = strnlen(tpcc_text(T_CUSTOMER, r->data, C_DATA), 500);
        CHECK(dl >= 300 && dl <= 500);
    }
    CHECK(bc > 150 && bc < 450);
    for (uint32_t o = 1; o <= TPCC_ORDERS; o++) {
        struct row *r = idx_hash_get(tpcc.tab[T_ORDER]->primary, tpcc_okey(1, 5, o));
        int32_t carrier = tpcc_get32(T_ORDER, r->data, O_CARRIER_ID);
        CHECK(o <= 2100 ? carrier >= 1 && carrier <= 10 : carrier == 0);
    }
}

struct name_walk {
    uint32_t last;
    int n;
    char prev_first[17];
    bool ok;
};
static void name_visit(struct name_walk *s, const struct row *r)
{
    char last[TPCC_LAST_MAX], first[17] = {0};
    tpcc_last_name(s->last, last);
    memcpy(first, tpcc_text(T_CUSTOMER, r->data, C_FIRST), 16);
    if (memcmp(tpcc_text(T_CUSTOMER, r->data, C_LAST), last, 16) != 0)
        s->ok = false;
    if (s->n > 0 && strcmp(s->prev_first, first) > 0)
        s->ok = false;
    memcpy(s->prev_first, first, 17);
    s->n++;
}

/* Each name's customers lie under ranks 0, 1, ... in C_FIRST order, as Payment and
 * OrderStatus look them up (up to the first rank not found): the district's total shows
 * that no rank was skipped. */
static void names_index(void)
{
    int total = 0;
    for (uint32_t last = 0; last < 1000; last++) {
        struct name_walk s = {last, 0, {0}, true};
        struct row *rows[TPCC_MAX_SAME_LAST];
        int n = tpcc_customers_by_name(1, 2, last, rows);
        for (int i = 0; i < n; i++)
            name_visit(&s, rows[i]);
        CHECK(s.ok);
        CHECK(s.n >= 1); /* customers 1..1000 carry every name once */
        total += s.n;
    }
    CHECK_EQ_U(total, TPCC_CUSTOMERS);
}

static void initial_consistency(void) { CHECK(tpcc_check(&opts, stdout)); }

static void run_queries(void)
{
    struct txn *t = txn_create(0, false);
    cc_thread_init(t);
    struct rng r;
    rng_seed(&r, 3, 0);
    struct tpcc_query q;
    uint64_t commits[5] = {0}, user_aborts = 0;
    for (int i = 0; i < 3000; i++) {
        tpcc_workload.gen_query(&q, &r, 0, &opts);
        /* single-threaded, so the only abort is NewOrder's rollback, which is final */
        txn_begin(t, false);
        enum rc rc = tpcc_workload.run(t, &q);
        if (rc == RC_OK && txn_commit(t) == RC_OK) {
            commits[q.type]++;
            continue;
        }
        CHECK(txn_abort_reason(t) == AR_USER && q.type == TX_NEW_ORDER);
        user_aborts++;
        txn_abort(t);
    }
    for (int k = 0; k < 5; k++)
        CHECK(commits[k] > 0);
    CHECK(user_aborts > 0 && user_aborts < 60);
    cc_thread_fini(t);
    txn_destroy(t);
    CHECK(tpcc_check(&opts, stdout));
    uint64_t n[TPCC_NTABLES];
    tpcc_count_rows(n);
    CHECK(n[T_ORDER] > 30000 && n[T_HISTORY] > 30000);
}

/* The first line tpcc_check prints, or "" when it passes. */
static void check_line(char *line, size_t n)
{
    FILE *f = tmpfile();
    line[0] = 0;
    if (!tpcc_check(&opts, f)) {
        rewind(f);
        if (!fgets(line, (int)n, f))
            line[0] = 0;
    }
    fclose(f);
}

static void stock_conditions(void)
{
    /* the item of the run's lines with the highest S_ORDER_CNT (NURand makes it > 1) */
    struct row *r = NULL;
    for (uint32_t i = 1; i <= TPCC_ITEMS; i++) {
        struct row *s = idx_hash_get(tpcc.tab[T_STOCK]->primary, tpcc_skey(1, i));
        if (!r || tpcc_get32(T_STOCK, s->data, S_ORDER_CNT) > tpcc_get32(T_STOCK, r->data, S_ORDER_CNT))
            r = s;
    }
    CHECK(tpcc_get32(T_STOCK, r->data, S_ORDER_CNT) > 1);
    static const struct { int col; const char *line; } cases[] = {
        {S_YTD, "tpcc check: 14: "}, {S_ORDER_CNT, "tpcc check: 15: "},
        {S_REMOTE_CNT, "tpcc check: 16: "}, {S_QUANTITY, "tpcc check: 17: "}};
    char line[256];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        int32_t v = tpcc_get32(T_STOCK, r->data, cases[k].col);
        tpcc_put32(T_STOCK, r->data, cases[k].col, v == 100 ? v - 1 : v + 1);
        check_line(line, sizeof(line));
        if (strncmp(line, cases[k].line, strlen(cases[k].line)) != 0)
            printf("  column %d off by one: '%s'\n", cases[k].col, line);
        CHECK(strncmp(line, cases[k].line, strlen(cases[k].line)) == 0);
        tpcc_put32(T_STOCK, r->data, cases[k].col, v);
    }
    CHECK(tpcc_check(&opts, stdout));
}

int main(void)
{
    mem_init(0);
    clock_calibrate();
    RUN_CASE(nurand);
    RUN_CASE(c_delta);
    RUN_CASE(last_names);
    RUN_CASE(strings);
    RUN_CASE(load);
    RUN_CASE(value_rules);
    RUN_CASE(names_index);
    RUN_CASE(initial_consistency);
    RUN_CASE(run_queries);
    RUN_CASE(stock_conditions);
    CHECK_EXIT();
}
