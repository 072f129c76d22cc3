/* Per-thread pseudo-random numbers (xoshiro256**, seeded through splitmix64): fast,
 * reproducible from --seed and the thread number, no shared state. */
#ifndef STORAGE_RAND_H
#define STORAGE_RAND_H

#include <stdint.h>

#include "storage/hash_mix.h"

struct rng {
    uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
    return hash_mix(*x += HASH_GOLDEN);
}

/* rng_seed's multipliers: seed and stream spread over the 64 bits before they are mixed
 * (the FNV-1a 64-bit prime for the seed, an odd 64-bit constant for the stream). */
#define RNG_SEED_MUL 0x100000001B3ull
#define RNG_STREAM_MUL 0xD6E8FEB86659FD93ull

/* State for stream `stream` of seed `seed` (streams: threads, loaders). */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed * RNG_SEED_MUL ^ (stream + 1) * RNG_STREAM_MUL;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) (Lemire's multiply-shift; bias below 2^-32 for n < 2^32). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double rng_double(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

#endif
