/* TPC-C random input: the run-time constants C of NURand (clause 2.1.6), last names from
 * syllables (clause 4.3.2.3), a-strings, n-strings and the "ORIGINAL" marker (4.3.2.2,
 * 4.3.3.1). NURand itself is inline in tpcc.h. */
#include <string.h>

#include "benchmarks/tpcc.h"

struct tpcc_consts tpcc_c;

/* The run-time constants' random stream: rng_seed(--seed ^ TPCC_CONSTS_SEED_SALT,
 * TPCC_CONSTS_STREAM), apart from the loaders' and the workers' streams. */
#define TPCC_CONSTS_SEED_SALT 0xC0C0C0ull
#define TPCC_CONSTS_STREAM 7

void tpcc_consts_init(struct tpcc_consts *c, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed ^ TPCC_CONSTS_SEED_SALT, TPCC_CONSTS_STREAM);
    c->c_last_load = tpcc_rand(&r, 0, 255);
    uint32_t delta;
    do
        delta = tpcc_rand(&r, 65, 119);
    while (delta == 96 || delta == 112);
    /* C_RUN in [0, 255] with |C_RUN - C_LOAD| = delta */
    c->c_last_run = c->c_last_load >= delta ? c->c_last_load - delta : c->c_last_load + delta;
    c->c_id = tpcc_rand(&r, 0, 1023);
    c->ol_i_id = tpcc_rand(&r, 0, 8191);
}

static const char *const syllables[10] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                          "ESE", "ANTI",  "CALLY", "ATION", "EING"};

int tpcc_last_name(uint32_t n, char out[TPCC_LAST_MAX])
{
    memset(out, 0, TPCC_LAST_MAX);
    const char *s[3] = {syllables[n / 100 % 10], syllables[n / 10 % 10], syllables[n % 10]};
    int len = 0;
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(s[i]);
        memcpy(out + len, s[i], l);
        len += (int)l;
    }
    return len;
}

static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

int tpcc_astring(struct rng *r, char *out, int lo, int hi)
{
    int len = (int)tpcc_rand(r, (uint32_t)lo, (uint32_t)hi);
    for (int i = 0; i < len; i++)
        out[i] = alnum[rng_below(r, sizeof(alnum) - 1)];
    memset(out + len, 0, (size_t)(hi - len));
    return len;
}

int tpcc_nstring(struct rng *r, char *out, int lo, int hi)
{
    int len = (int)tpcc_rand(r, (uint32_t)lo, (uint32_t)hi);
    for (int i = 0; i < len; i++)
        out[i] = (char)('0' + rng_below(r, 10));
    memset(out + len, 0, (size_t)(hi - len));
    return len;
}

void tpcc_original(struct rng *r, char *s, int len)
{
    memcpy(s + tpcc_rand(r, 0, (uint32_t)(len - 8)), "ORIGINAL", 8);
}
