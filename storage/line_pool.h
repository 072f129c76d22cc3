/* A pool of zeroed cache lines faulted in ahead of use, for a structure that allocates
 * lines one at a time on a hot path and frees them only all together (the own hash
 * index's overflow nodes, storage/index_hash.c). A line from the allocator is fresh
 * memory: its first touch faults a page in, in the measured window of a run that
 * inserts. The pool's lines were faulted in when they were reserved (mem_prefault).
 *
 * A thread takes lines from a block of its own (LPOOL_BLOCK_BYTES, claimed from the
 * pool with one atomic add), so taking a line writes nothing shared. lpool_take returns
 * NULL once the reservation is used up: the caller then allocates as before. A thread's
 * unused rest of a block stays unused: at most one block per thread and pool, unless
 * two pools share one of the thread's slots (line_pool.c: more pools than slots), where
 * every switch between them leaves a block's rest. Lines are never given back singly;
 * the pool's memory is freed by lpool_destroy.
 */
#ifndef STORAGE_LINE_POOL_H
#define STORAGE_LINE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#define LPOOL_LINE 64
#define LPOOL_BLOCK_BYTES 4096

struct lpool;

/* An empty pool (lpool_take returns NULL until lpool_reserve). */
struct lpool *lpool_create(void);
/* Not concurrent with any other call on p; every line taken from it is freed. */
void lpool_destroy(struct lpool *p);
/* Makes at least `lines` lines available beyond those handed out (a new region, faulted
 * in now, replaces the current one if the current one has fewer left: the threads' blocks
 * already claimed there are still used up). Safe while others take lines. Returns the
 * bytes it allocated (0: enough left). */
size_t lpool_reserve(struct lpool *p, size_t lines);
/* The bytes lpool_reserve(p, lines) would allocate now (changes nothing). */
size_t lpool_reserve_bytes(struct lpool *p, size_t lines);
/* The bytes of a new region for `lines` lines (whole blocks): what lpool_reserve
 * allocates when the current region has fewer left, 0 for 0 lines. */
size_t lpool_region_bytes(size_t lines);
/* A zeroed, line-aligned LPOOL_LINE bytes, or NULL when the reservation is used up. */
void *lpool_take(struct lpool *p);
/* Whether `line` came from p (walks the regions: for a teardown, before lpool_destroy). */
bool lpool_owns(const struct lpool *p, const void *line);

#endif
