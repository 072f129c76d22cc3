/* Zipfian key generator over [0, n): P(k) = (k+1)^-theta / zeta(n, theta), theta in
 * [0, 1) (0 = uniform). Key 0 is the hottest.
 *
 * Exact sampling by rejection-inversion (Hoermann and Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996): O(1) set-up and O(1)
 * expected time per draw (a few log/exp), no zeta(n) sum, so 10 M or 10 G rows cost the
 * same. (The method of Gray et al. used by YCSB and DBx1000 is an approximation whose
 * ranks 2..5 come out 5-20% too frequent; tests/unit/test_zipf.c checks exactness.) */
#ifndef BENCH_ZIPF_H
#define BENCH_ZIPF_H

#include <stdint.h>

#include "storage/rand.h"

struct zipf {
    uint64_t n;
    double theta;
    double h_x1;   /* H(1.5) - 1 */
    double h_n;    /* H(n + 0.5) */
    double s;      /* squeeze: accept at once when k - x <= s */
};

void zipf_init(struct zipf *z, uint64_t n, double theta);
uint64_t zipf_next(const struct zipf *z, struct rng *r);
/* zeta(n, theta) = sum_{i=1..n} 1 / i^theta, summed directly (for tests). */
double zipf_zeta(uint64_t n, double theta);

#endif
