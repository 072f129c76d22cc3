/* Zipfian key generator over [0, n) with skew theta in [0, 1) (0 = uniform), after Gray et
 * al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD'94), as YCSB and
 * DBx1000 use. Key 0 is the hottest. zipf_init computes zeta(n, theta) once, in parallel
 * chunks (10 M rows take well under a second); zipf_next is O(1). */
#ifndef BENCH_ZIPF_H
#define BENCH_ZIPF_H

#include <stdint.h>

#include "benchmarks/rand.h"

struct zipf {
    uint64_t n;
    double theta, alpha, zetan, eta, half_pow; /* half_pow = 1 + 0.5^theta */
};

void zipf_init(struct zipf *z, uint64_t n, double theta);
uint64_t zipf_next(const struct zipf *z, struct rng *r);
/* zeta(n, theta) = sum_{i=1..n} 1 / i^theta (exposed for tests). */
double zipf_zeta(uint64_t n, double theta);

#endif
