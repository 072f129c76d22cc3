/* Unit tests of the latency histogram (storage/latency.h): bucket boundaries and
 * relative error, quantiles, and merging the histograms of many threads past 2^32
 * samples in one bucket (a long run on many cores). */
#include <string.h>

#include "storage/latency.h"
#include "tests/unit/check.h"

/* Values below LAT_SUB are exact; above, each bucket's middle is within 3% of every value
 * that lands in it, and buckets grow with the value. */
static void buckets(void)
{
    for (uint64_t v = 0; v < LAT_SUB; v++)
        CHECK_EQ_U(latency_bucket(v), v);
    unsigned last = 0;
    for (uint64_t v = LAT_SUB; v < ((uint64_t)1 << 40); v += v / 7 + 1) {
        unsigned b = latency_bucket(v);
        CHECK(b >= last && b < LAT_NBUCKETS);
        last = b;
        struct latency l;
        memset(&l, 0, sizeof(l));
        latency_add(&l, v);
        latency_add(&l, UINT64_MAX / 2); /* max above v: the quantile is the bucket's */
        uint64_t mid = latency_quantile(&l, 0.0);
        CHECK(mid * 100 >= v * 97 && mid * 100 <= v * 103);
    }
    CHECK(latency_bucket(UINT64_MAX) < LAT_NBUCKETS);
}

static void quantiles(void)
{
    struct latency l;
    memset(&l, 0, sizeof(l));
    for (uint64_t v = 1; v <= 1000; v++)
        latency_add(&l, v);
    CHECK_EQ_U(l.count, 1000);
    CHECK_EQ_U(l.max, 1000);
    uint64_t p50 = latency_quantile(&l, 0.5), p99 = latency_quantile(&l, 0.99);
    CHECK(p50 >= 485 && p50 <= 515);
    CHECK(p99 >= 960 && p99 <= 1000);
    CHECK_EQ_U(latency_quantile(&l, 1.0), 1000);
}

/* 128 threads' histograms with 40 M samples each in one bucket, and one sample above:
 * the merged bucket holds 5.1 G, past 32 bits; the median stays in it. */
static void merge_many(void)
{
    static struct latency each, all;
    memset(&each, 0, sizeof(each));
    memset(&all, 0, sizeof(all));
    const uint64_t n = 40000000;
    unsigned b = latency_bucket(100);
    each.b[b] = n;
    each.count = n;
    each.sum = 100 * n;
    each.max = 100;
    for (int t = 0; t < 128; t++)
        latency_merge(&all, &each);
    latency_add(&all, 1000000);
    CHECK_EQ_U(all.count, 128 * n + 1);
    CHECK_EQ_U(all.b[b], 128 * n);
    uint64_t p50 = latency_quantile(&all, 0.5);
    CHECK(p50 >= 97 && p50 <= 103);
    CHECK_EQ_U(latency_quantile(&all, 0.999), p50);
}

int main(void)
{
    RUN_CASE(buckets);
    RUN_CASE(quantiles);
    RUN_CASE(merge_many);
    CHECK_EXIT();
}
