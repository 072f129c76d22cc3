/* Zipfian generator by rejection-inversion (see zipf.h).
 *
 * With h(x) = x^-theta and H an antiderivative of h, a continuous x is drawn by inverting
 * H over [H(n + 0.5), H(1.5) - 1], rounded to k; k is accepted if x lies in the part of
 * k's cell under h(k) (the squeeze test k - x <= s decides most draws without computing
 * H again). The accepted k (1-based) has probability exactly k^-theta / zeta(n, theta). */
#include "benchmarks/zipf.h"

#include <math.h>

/* log1p(x) / x, continuous at 0 */
static double log1p_over(double x) { return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x / 2; }
/* expm1(x) / x, continuous at 0 */
static double expm1_over(double x) { return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x / 2; }

static double h(double theta, double x) { return exp(-theta * log(x)); }

/* H(x) = (x^(1-theta) - 1) / (1 - theta), written to stay accurate as theta -> 1 */
static double big_h(double theta, double x)
{
    double lx = log(x);
    return expm1_over((1 - theta) * lx) * lx;
}

static double big_h_inv(double theta, double y)
{
    double t = y * (1 - theta);
    if (t < -1)
        t = -1; /* guards rounding at the lower end */
    return exp(log1p_over(t) * y);
}

void zipf_init(struct zipf *z, uint64_t n, double theta)
{
    z->n = n;
    z->theta = theta;
    z->h_x1 = big_h(theta, 1.5) - 1;
    z->h_n = big_h(theta, (double)n + 0.5);
    z->s = 2 - big_h_inv(theta, big_h(theta, 2.5) - h(theta, 2));
}

uint64_t zipf_next(const struct zipf *z, struct rng *r)
{
    if (z->theta == 0)
        return rng_below(r, z->n);
    for (;;) {
        double u = z->h_n + rng_double(r) * (z->h_x1 - z->h_n);
        double x = big_h_inv(z->theta, u);
        double kd = floor(x + 0.5);
        if (kd < 1)
            kd = 1;
        else if (kd > (double)z->n)
            kd = (double)z->n;
        if (kd - x <= z->s || u >= big_h(z->theta, kd + 0.5) - h(z->theta, kd))
            return (uint64_t)kd - 1;
    }
}

double zipf_zeta(uint64_t n, double theta)
{
    double s = 0;
    for (uint64_t i = n; i >= 1; i--) /* small terms first, for accuracy */
        s += pow((double)i, -theta);
    return s;
}
