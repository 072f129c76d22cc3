// The ordered index: the idx_ordered_* functions of storage/index.h over
// tbb::concurrent_map<uint64_t, std::atomic<row *>> (a concurrent skip list).
//
// Invariants:
//   1. Entries are never erased while the index is alive: concurrent_map has only
//      unsafe_erase. A remove leaves a tombstone (row == NULL) in the entry; an insert of a
//      tombstoned key revives it. So iterators and entry pointers stay valid until
//      idx_ordered_destroy, and the skip list holds every key ever inserted.
//   2. An entry is live iff its row is non-NULL; a row passed to insert must be non-NULL.
//      Only an atomic operation on the entry's row changes liveness (CAS NULL -> row,
//      exchange row -> NULL), so concurrent inserts and removes of one key serialize there.
//   3. live counts the live entries: +1 after a successful NULL -> row, -1 after a
//      successful row -> NULL. It is exact when no insert or remove is in flight.
//
// Scans are not snapshots: an entry inserted or removed during a scan may or may not be
// visited, but every visited entry was live when its row was loaded, and keys are visited
// in strictly ascending (or descending) order.
//
// Descending scans: in TBB 2021.8 the skip list links forward only (skip_list_iterator is a
// forward iterator, no operator--), so scan_desc collects the entries of [lo, hi] with one
// forward walk and then visits them backwards, loading each row at visit time. Its cost is
// linear in the entries of [lo, hi] even when the visitor stops at the first one: callers
// should keep descending ranges tight (e.g. one customer's orders).
//
// No exception crosses the extern "C" boundary (storage/tbb_guard.hpp).
#include <atomic>
#include <cassert>
#include <vector>

#include <tbb/concurrent_map.h>

#include "storage/tbb_guard.hpp"
extern "C" {
#include "storage/index.h"
}

namespace {

using map_t = tbb::concurrent_map<uint64_t, std::atomic<row *>>;

// acquire: pairs with the release CAS in idx_ordered_insert, so the caller sees the
// writes made to the row before it was inserted.
row *load_row(const map_t::value_type &entry)
{
    return entry.second.load(std::memory_order_acquire);
}

} // namespace

struct idx_ordered {
    map_t map;
    std::atomic<size_t> live{0}; // invariant 3
};

extern "C" {

struct idx_ordered *idx_ordered_create(void)
{
    return tbb_guarded(__func__, [] { return new idx_ordered(); });
}

void idx_ordered_destroy(struct idx_ordered *o)
{
    delete o;
}

bool idx_ordered_insert(struct idx_ordered *o, uint64_t key, struct row *row)
{
    assert(row != nullptr); // invariant 2
    return tbb_guarded(__func__, [&] {
        map_t::iterator it = o->map.find(key);
        if (it == o->map.end()) {
            // The skip list's insert publishes the node with the row in it (its own
            // release/acquire on the links), so a new key needs no CAS.
            auto res = o->map.emplace(key, row);
            if (res.second) {
                o->live.fetch_add(1, std::memory_order_relaxed); // a statistic
                return true;
            }
            it = res.first; // a concurrent insert added the key first
        }
        struct row *expected = nullptr; // "struct": the parameter row hides the type
        // release: pairs with the acquire in load_row; acquire on failure is not needed
        // (the value is only compared). Revives a tombstone, fails on a live entry.
        if (!it->second.compare_exchange_strong(expected, row, std::memory_order_release,
                                                std::memory_order_relaxed))
            return false;
        o->live.fetch_add(1, std::memory_order_relaxed); // a statistic
        return true;
    });
}

struct row *idx_ordered_get(struct idx_ordered *o, uint64_t key)
{
    return tbb_guarded(__func__, [&]() -> row * {
        map_t::iterator it = o->map.find(key);
        return it == o->map.end() ? nullptr : load_row(*it);
    });
}

bool idx_ordered_remove(struct idx_ordered *o, uint64_t key)
{
    return tbb_guarded(__func__, [&] {
        map_t::iterator it = o->map.find(key);
        if (it == o->map.end())
            return false;
        // relaxed: the removed row is not read here; the tombstone needs no publication
        // beyond the atomicity of the exchange (invariant 2).
        if (it->second.exchange(nullptr, std::memory_order_relaxed) == nullptr)
            return false;
        o->live.fetch_sub(1, std::memory_order_relaxed); // a statistic
        return true;
    });
}

size_t idx_ordered_size(struct idx_ordered *o)
{
    return o->live.load(std::memory_order_relaxed); // a statistic (invariant 3)
}

size_t idx_ordered_scan(struct idx_ordered *o, uint64_t lo, uint64_t hi, idx_visit_fn fn,
                        void *arg)
{
    return tbb_guarded(__func__, [&] {
        size_t visited = 0;
        for (map_t::iterator it = o->map.lower_bound(lo); it != o->map.end() && it->first <= hi;
             ++it) {
            row *r = load_row(*it);
            if (r == nullptr)
                continue;
            visited++;
            if (!fn(it->first, r, arg))
                break;
        }
        return visited;
    });
}

size_t idx_ordered_scan_desc(struct idx_ordered *o, uint64_t lo, uint64_t hi, idx_visit_fn fn,
                             void *arg)
{
    return tbb_guarded(__func__, [&] {
        // Entries of [lo, hi] in ascending order; valid until destroy (invariant 1).
        std::vector<map_t::value_type *> entries;
        for (map_t::iterator it = o->map.lower_bound(lo); it != o->map.end() && it->first <= hi;
             ++it)
            entries.push_back(&*it);
        size_t visited = 0;
        for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
            row *r = load_row(**e);
            if (r == nullptr)
                continue;
            visited++;
            if (!fn((*e)->first, r, arg))
                break;
        }
        return visited;
    });
}

} // extern "C"
