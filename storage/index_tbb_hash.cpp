// The TBB hash index (INDEX=tbb): the idx_hash_* functions of storage/index.h over
// tbb::concurrent_hash_map<uint64_t, row *>, as the baseline for the own index in
// storage/index_hash.c. Linked instead of index_hash.c, never with it.
//
// concurrent_hash_map hashes with std::hash, the identity for integers in libstdc++, and
// takes the low bits; a hash_compare with the own index's mixer keeps packed composite keys
// from piling into few buckets and makes the two indexes comparable.
//
// No exception crosses the extern "C" boundary (storage/tbb_guard.hpp). A row must be
// non-NULL (NULL is the "absent" answer of get).
#include <cassert>

#include <tbb/concurrent_hash_map.h>

#include "storage/tbb_guard.hpp"
extern "C" {
#include "storage/hash_mix.h"
#include "storage/index.h"
}

namespace {

struct mixed_hash_compare {
    // splitmix64's finalizer, as the own index uses (storage/hash_mix.h).
    static size_t hash(uint64_t x) { return static_cast<size_t>(hash_mix(x)); }
    static bool equal(uint64_t a, uint64_t b) { return a == b; }
};

using map_t = tbb::concurrent_hash_map<uint64_t, row *, mixed_hash_compare>;

} // namespace

struct idx_hash {
    map_t map;
    explicit idx_hash(size_t expected) : map(expected) {}
};

extern "C" {

struct idx_hash *idx_hash_create(size_t expected, unsigned cluster_bits)
{
    (void)cluster_bits; // tbb::concurrent_hash_map places keys by its own hash
    return tbb_guarded(__func__, [&] { return new idx_hash(expected); });
}

void idx_hash_destroy(struct idx_hash *h)
{
    delete h;
}

bool idx_hash_insert(struct idx_hash *h, uint64_t key, struct row *row)
{
    assert(row != nullptr);
    // The map's bucket lock orders this insert before any find that sees it, so the
    // caller's writes to the row are published with it.
    return tbb_guarded(__func__, [&] { return h->map.insert(map_t::value_type(key, row)); });
}

struct row *idx_hash_get(struct idx_hash *h, uint64_t key)
{
    return tbb_guarded(__func__, [&]() -> row * {
        map_t::const_accessor acc; // read lock on the element until acc goes out of scope
        return h->map.find(acc, key) ? acc->second : nullptr;
    });
}

void idx_hash_prefetch(struct idx_hash *h, uint64_t key)
{
    (void)h;
    (void)key;
}

bool idx_hash_remove(struct idx_hash *h, uint64_t key)
{
    return tbb_guarded(__func__, [&] { return h->map.erase(key); });
}

size_t idx_hash_size(struct idx_hash *h)
{
    return h->map.size();
}

size_t idx_hash_buckets(struct idx_hash *h)
{
    return h->map.bucket_count();
}

size_t idx_hash_reserve(struct idx_hash *h, size_t keys)
{
    (void)h; /* tbb::concurrent_hash_map::rehash is not safe against concurrent use */
    (void)keys;
    return 0;
}

size_t idx_hash_reserve_bytes(struct idx_hash *h, size_t keys)
{
    (void)h;
    (void)keys;
    return 0;
}

const char *idx_hash_kind(void)
{
    return "tbb";
}

} // extern "C"
