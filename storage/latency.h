/* Log-bucket latency histogram (one per transaction type per thread): values below 32
 * ticks exactly, above that 32 sub-buckets per power of two (relative error under 3%).
 * Recording is a few instructions and touches one counter. */
#ifndef STORAGE_LATENCY_H
#define STORAGE_LATENCY_H

#include <stdint.h>

#define LAT_SUB_BITS 5
#define LAT_SUB (1 << LAT_SUB_BITS)
/* LAT_SUB exact buckets, then LAT_SUB per power of two from 2^LAT_SUB_BITS to 2^63: every
 * uint64_t has a bucket (a bogus huge value too, e.g. a clock that stepped back). */
#define LAT_NBUCKETS ((64 - LAT_SUB_BITS + 1) * LAT_SUB)

/* Counts are 64-bit: the merged histogram of many threads over a long run passes 2^32
 * samples in one bucket. */
struct latency {
    uint64_t count, sum, max;
    uint64_t b[LAT_NBUCKETS];
};

static inline unsigned latency_bucket(uint64_t v)
{
    if (v < LAT_SUB)
        return (unsigned)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    return (msb - LAT_SUB_BITS + 1) * LAT_SUB +
           (unsigned)((v >> (msb - LAT_SUB_BITS)) & (LAT_SUB - 1));
}

static inline void latency_add(struct latency *l, uint64_t v)
{
    l->count++;
    l->sum += v;
    if (v > l->max)
        l->max = v;
    l->b[latency_bucket(v)]++;
}

void latency_merge(struct latency *dst, const struct latency *src);
/* Value at quantile q in [0, 1] (the middle of its bucket; the max for q = 1). */
uint64_t latency_quantile(const struct latency *l, double q);

#endif
