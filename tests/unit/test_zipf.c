/* Unit tests of the Zipfian generator: its distribution shape against the exact
 * probabilities 1/(k+1)^theta / zeta(n, theta), uniformity at theta 0, range, and that
 * zeta for 10 M rows is computed (the time is printed, not asserted). */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/zipf.h"
#include "storage/clock.h"
#include "tests/unit/check.h"

static void shape(uint64_t n, double theta, uint64_t draws)
{
    struct zipf z;
    zipf_init(&z, n, theta);
    struct rng r;
    rng_seed(&r, 42, 0);
    uint64_t *cnt = calloc(n, sizeof(*cnt));
    for (uint64_t i = 0; i < draws; i++) {
        uint64_t k = zipf_next(&z, &r);
        CHECK(k < n);
        if (k < n)
            cnt[k]++;
    }
    double zeta = zipf_zeta(n, theta);
    /* the hottest ranks, each within 5 standard deviations of the exact expectation */
    for (uint64_t k = 0; k < 5; k++) {
        double p = pow((double)(k + 1), -theta) / zeta;
        double mean = p * (double)draws, sd = sqrt(mean * (1 - p));
        if (fabs((double)cnt[k] - mean) > 5 * sd + 1) {
            printf("  n %llu theta %.2f rank %llu: %llu draws, expected %.0f +- %.0f\n",
                   (unsigned long long)n, theta, (unsigned long long)k,
                   (unsigned long long)cnt[k], mean, sd);
            CHECK(0);
        }
    }
    /* monotone on average: the first decile outweighs the last one */
    uint64_t head = 0, tail = 0;
    for (uint64_t k = 0; k < n / 10; k++) {
        head += cnt[k];
        tail += cnt[n - 1 - k];
    }
    CHECK(head > tail);
    free(cnt);
}

static void zipf_shape_099(void) { shape(1000, 0.99, 2000000); }
static void zipf_shape_06(void) { shape(10000, 0.6, 2000000); }
static void zipf_shape_09_small(void) { shape(20, 0.9, 1000000); }

static void zipf_uniform(void)
{
    struct zipf z;
    zipf_init(&z, 1000, 0);
    struct rng r;
    rng_seed(&r, 7, 1);
    uint64_t cnt[10] = {0};
    for (int i = 0; i < 1000000; i++)
        cnt[zipf_next(&z, &r) / 100]++;
    for (int b = 0; b < 10; b++)
        CHECK(cnt[b] > 97000 && cnt[b] < 103000);
}

static void zipf_zeta_values(void)
{
    CHECK(fabs(zipf_zeta(1, 0.99) - 1.0) < 1e-12);
    CHECK(fabs(zipf_zeta(2, 0.5) - (1 + 1 / sqrt(2.0))) < 1e-12);
    double direct = 0;
    for (int i = 1; i <= 300000; i++)
        direct += pow(i, -0.8);
    CHECK(fabs(zipf_zeta(300000, 0.8) - direct) < 1e-6 * direct);
}

static void zipf_10m_rows(void)
{
    double t0 = clock_now_s();
    struct zipf z;
    zipf_init(&z, 10000000, 0.99);
    struct rng r;
    rng_seed(&r, 1, 0);
    uint64_t hot = 0;
    for (int i = 0; i < 1000000; i++)
        hot += zipf_next(&z, &r) == 0;
    printf("  10 M rows, theta 0.99: set-up and 1 M draws in %.2f s; key 0 drawn %.2f%%\n",
           clock_now_s() - t0, hot / 1e4);
    CHECK(hot > 0);
}

int main(void)
{
    RUN_CASE(zipf_shape_099);
    RUN_CASE(zipf_shape_06);
    RUN_CASE(zipf_shape_09_small);
    RUN_CASE(zipf_uniform);
    RUN_CASE(zipf_zeta_values);
    RUN_CASE(zipf_10m_rows);
    CHECK_EXIT();
}
