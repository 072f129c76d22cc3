/* Integer hash mixing, written once for every layer: Fibonacci hashing (a multiply by
 * 2^64 / phi, whose top bits are the hash) where the caller takes the high bits, and
 * splitmix64's finalizer where every output bit must depend on every input bit (the low
 * bits choose a bucket). Used by the hash indexes, the FPSketch store, the access set,
 * the history checker, the random-number seeding and the workloads' value patterns. */
#ifndef STORAGE_HASH_MIX_H
#define STORAGE_HASH_MIX_H

#include <stdint.h>

/* 2^64 / phi, rounded to odd: consecutive keys land far apart in the product's top bits. */
#define HASH_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

/* Fibonacci hashing: the product's high bits are well mixed, its low bits are not, so
 * callers shift right (x * HASH_GOLDEN >> (64 - bits)). */
static inline uint64_t hash_fib(uint64_t x) { return x * HASH_GOLDEN; }

/* splitmix64's finalizer: a bijection whose low bits depend on every bit of x, so packed
 * composite keys (warehouse, district, id) spread over buckets chosen by a mask. */
static inline uint64_t hash_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

#endif
