/* Latency histogram merge and quantiles (see latency.h). */
#include "storage/latency.h"

void latency_merge(struct latency *dst, const struct latency *src)
{
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->max > dst->max)
        dst->max = src->max;
    for (int i = 0; i < LAT_NBUCKETS; i++)
        dst->b[i] += src->b[i];
}

static uint64_t bucket_mid(unsigned i)
{
    if (i < LAT_SUB)
        return i;
    unsigned msb = i / LAT_SUB + LAT_SUB_BITS - 1;
    uint64_t sub = i % LAT_SUB;
    uint64_t width = (uint64_t)1 << (msb - LAT_SUB_BITS);
    return ((LAT_SUB + sub) << (msb - LAT_SUB_BITS)) + width / 2;
}

uint64_t latency_quantile(const struct latency *l, double q)
{
    if (l->count == 0)
        return 0;
    if (q >= 1)
        return l->max;
    uint64_t rank = (uint64_t)(q * (double)l->count) + 1, seen = 0;
    for (unsigned i = 0; i < LAT_NBUCKETS; i++) {
        seen += l->b[i];
        if (seen >= rank) {
            uint64_t v = bucket_mid(i);
            return v < l->max ? v : l->max;
        }
    }
    return l->max;
}
