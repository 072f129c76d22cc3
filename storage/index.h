/* Index API: a hash index (key -> row) and an ordered index (key -> row, range scans).
 *
 * Two hash index implementations provide the idx_hash_* functions; the Makefile links
 * exactly one (INDEX=own: storage/index_hash.c, the default; INDEX=tbb: the
 * tbb::concurrent_hash_map in storage/index_tbb_hash.cpp). The ordered index is always
 * tbb::concurrent_map behind storage/index_tbb_ordered.cpp. No C++ type leaks into this
 * header.
 *
 * Thread safety: every function may be called concurrently from any thread. A key maps to
 * at most one row (unique index); non-unique keys (e.g. customer by last name) are made
 * unique by the caller appending a discriminator to the key. Rows are never freed while
 * the index is alive, so a returned pointer stays valid.
 *
 * Concurrency control does not happen here: index entries are published by the generic
 * transaction at commit (inserts) and removed at commit (deletes).
 */
#ifndef STORAGE_INDEX_H
#define STORAGE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct row;

/* ---- hash index ---- */
struct idx_hash;

/* Creates an index sized for about `expected` keys (it grows beyond: both kinds resize).
 * cluster_bits > 0 (at most IDX_MAX_CLUSTER_BITS) asks the own index to keep neighbours
 * together: keys equal above their low cluster_bits bits fall into one aligned block
 * of 2^cluster_bits consecutive buckets, which the hash of the rest of the key picks, each
 * at an offset of its own. For keys that come in runs (TPC-C's lines of one order, a
 * district's next orders, a thread's history rows), a run's look-ups and inserts then
 * touch one page of buckets, not one page per key: on a machine whose TLB misses are
 * dear, the bulk of a random bucket access. Keys whose low bits are not spread (all
 * multiples of 64, say) would crowd a few buckets of each block: 0 hashes the whole key.
 * INDEX=tbb hashes its own way and ignores it. */
#define IDX_MAX_CLUSTER_BITS 12
struct idx_hash *idx_hash_create(size_t expected, unsigned cluster_bits);
void idx_hash_destroy(struct idx_hash *h);
/* Inserts key -> row. Returns false (and changes nothing) if the key is present. */
bool idx_hash_insert(struct idx_hash *h, uint64_t key, struct row *row);
/* Returns the row of key, or NULL. */
struct row *idx_hash_get(struct idx_hash *h, uint64_t key);
/* Hint: a look-up of key comes soon; requests the line it starts at (the own index: the
 * key's bucket; INDEX=tbb: nothing). No effect on the index's contents. */
void idx_hash_prefetch(struct idx_hash *h, uint64_t key);
/* Removes key. Returns false if it was absent. */
bool idx_hash_remove(struct idx_hash *h, uint64_t key);
size_t idx_hash_size(struct idx_hash *h);
/* Buckets of the current table (the index grows as keys are inserted). */
size_t idx_hash_buckets(struct idx_hash *h);
/* Grows the index now to hold about `keys` keys without growing again (safe while others
 * use it; the own index moves every bucket itself, its new bucket array faulted in
 * first), and reserves the overflow nodes the keys to come will chain (the own index:
 * one per 8 keys, faulted in; past them a node is allocated when chained); the bytes it
 * allocated (0: big enough already, or INDEX=tbb, which only grows as TBB does). For the
 * warm-up, ahead of a run's inserts. */
size_t idx_hash_reserve(struct idx_hash *h, size_t keys);
/* The bytes idx_hash_reserve(h, keys) would allocate now (changes nothing): a bucket
 * array, if the current one is too small, and the overflow nodes (a new region whenever
 * a growth, ours or one under way, moves keys into the pool's room). */
size_t idx_hash_reserve_bytes(struct idx_hash *h, size_t keys);
/* Name of the linked implementation ("own" or "tbb"), reported in results. */
const char *idx_hash_kind(void);

/* ---- ordered index ---- */
struct idx_ordered;

/* Visitor for scans: return true to continue, false to stop. */
typedef bool (*idx_visit_fn)(uint64_t key, struct row *row, void *arg);

struct idx_ordered *idx_ordered_create(void);
void idx_ordered_destroy(struct idx_ordered *o);
bool idx_ordered_insert(struct idx_ordered *o, uint64_t key, struct row *row);
struct row *idx_ordered_get(struct idx_ordered *o, uint64_t key);
bool idx_ordered_remove(struct idx_ordered *o, uint64_t key);
size_t idx_ordered_size(struct idx_ordered *o);
/* Visits keys in [lo, hi] in ascending order; returns the number visited. */
size_t idx_ordered_scan(struct idx_ordered *o, uint64_t lo, uint64_t hi, idx_visit_fn fn,
                        void *arg);
/* Visits keys in [lo, hi] in descending order; returns the number visited. */
size_t idx_ordered_scan_desc(struct idx_ordered *o, uint64_t lo, uint64_t hi, idx_visit_fn fn,
                             void *arg);

#endif
