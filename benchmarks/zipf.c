/* Zipfian generator (see zipf.h). */
#include "benchmarks/zipf.h"

#include <math.h>
#include <pthread.h>

struct zeta_part {
    uint64_t lo, hi;
    double theta, sum;
};

static void *zeta_worker(void *arg)
{
    struct zeta_part *p = arg;
    double s = 0;
    /* sum from the small terms up, for accuracy */
    for (uint64_t i = p->hi; i >= p->lo && i > 0; i--)
        s += pow((double)i, -p->theta);
    p->sum = s;
    return NULL;
}

double zipf_zeta(uint64_t n, double theta)
{
    enum { PARTS = 8 };
    struct zeta_part parts[PARTS];
    pthread_t th[PARTS];
    uint64_t step = n / PARTS + 1;
    int started = 0;
    for (int i = 0; i < PARTS; i++) {
        parts[i] = (struct zeta_part){.lo = 1 + i * step, .hi = (i + 1) * step, .theta = theta};
        if (parts[i].hi > n)
            parts[i].hi = n;
        if (parts[i].lo > parts[i].hi) {
            parts[i].sum = 0;
            continue;
        }
        if (n < 100000 || pthread_create(&th[i], NULL, zeta_worker, &parts[i]) != 0)
            zeta_worker(&parts[i]);
        else
            started |= 1 << i;
    }
    double s = 0;
    for (int i = PARTS - 1; i >= 0; i--) {
        if (started & (1 << i))
            pthread_join(th[i], NULL);
        s += parts[i].sum;
    }
    return s;
}

void zipf_init(struct zipf *z, uint64_t n, double theta)
{
    z->n = n;
    z->theta = theta;
    if (theta == 0)
        return;
    double zeta2 = 1 + pow(0.5, theta);
    z->zetan = zipf_zeta(n, theta);
    z->alpha = 1 / (1 - theta);
    z->eta = (1 - pow(2.0 / (double)n, 1 - theta)) / (1 - zeta2 / z->zetan);
    z->half_pow = zeta2;
}

uint64_t zipf_next(const struct zipf *z, struct rng *r)
{
    if (z->theta == 0)
        return rng_below(r, z->n);
    double u = rng_double(r);
    double uz = u * z->zetan;
    if (uz < 1)
        return 0;
    if (uz < z->half_pow)
        return z->n > 1 ? 1 : 0;
    uint64_t k = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1, z->alpha));
    return k < z->n ? k : z->n - 1;
}
