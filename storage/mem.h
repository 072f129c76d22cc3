/* The memory module: every allocation of the testbed goes through here.
 *
 * Backed by jemalloc (linked as the process allocator). Shared tables are placed with
 * NUMA interleaving through libnuma when the machine has more than one node; on one node,
 * or where NUMA is unavailable, they are plain jemalloc allocations. Per-thread structures
 * (transaction log areas, access sets) come from a jemalloc arena private to the thread
 * (mem_thread_init), and the pinned thread touches them first, so they are node-local.
 * Allocation failure is fatal: the functions never return NULL. */
#ifndef STORAGE_MEM_H
#define STORAGE_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* Once, before any thread starts: probes NUMA. Shared regions not placed on one node are
 * interleaved over `nodes`, a bit mask of NUMA nodes' OS indexes (bit k: node k; the
 * caller's choice, e.g. the nodes the pin plan uses: topo_plan_nodes), or over all nodes
 * when it is 0. */
void mem_init(unsigned long long nodes);
/* In each worker thread, after pinning: binds the thread to a private jemalloc arena. */
void mem_thread_init(void);

void *mem_alloc(size_t size);
void *mem_zalloc(size_t size);
void *mem_alloc_aligned(size_t align, size_t size);
void *mem_realloc(void *p, size_t size);
void mem_free(void *p);
/* mem_free for p from mem_alloc(size), size as asked: jemalloc then skips looking the
 * size class up (sdallocx; mvto's version nodes, partitioned TPC-C: 2% fewer
 * instructions per commit). */
void mem_free_sized(void *p, size_t size);

/* Large shared region (tables): zeroed, cache-line aligned, NUMA-interleaved where the
 * machine has several nodes. */
void *mem_alloc_shared(size_t size);
/* The same, placed on NUMA node `node` (OS index) where the machine has several nodes
 * (node < 0: interleaved, as mem_alloc_shared). */
void *mem_alloc_shared_on(size_t size, int node);
/* Like mem_alloc_shared_on, in base (4 KiB) pages: for memory written once in order as a
 * run inserts, where a fresh transparent huge page costs more to fault in than its TLB
 * reach saves (see mem.c). */
void *mem_alloc_shared_base_pages(size_t size, int node);
void mem_free_shared(void *p, size_t size);

/* The process's resident set size in bytes (/proc/self/statm; 0 if unreadable). */
size_t mem_rss_bytes(void);
/* Faults [p, p + size) in for writing now (madvise MADV_POPULATE_WRITE, Linux 5.14+; p
 * page-aligned), leaving its contents as they are, so it is safe while other threads use
 * the memory. False where the kernel cannot (the pages then fault in on first touch). */
bool mem_populate(void *p, size_t size);
/* mem_populate, then a store to each page from the process itself, so that the first
 * touch costs nothing on a virtual machine whose hypervisor shadows the page tables
 * either (see mem.c), and the pages are faulted in where the kernel cannot populate.
 * Only for memory no other thread can reach yet: the store is an atomic or of 0, which
 * leaves the bytes as they are but races with a plain access. */
void mem_prefault(void *p, size_t size);
/* Physical memory of the machine, bytes (0 if unknown). */
size_t mem_phys_bytes(void);
/* Memory the process can still take now, bytes: the kernel's estimate of what is
 * available without swapping (MemAvailable of /proc/meminfo; mem_phys_bytes where it
 * cannot be read), or less where the process's memory cgroups leave less below their
 * limits (mem_cgroup_left). */
size_t mem_avail_bytes(void);
/* What the memory cgroups of the process leave below their limits, bytes (0: no limit
 * found; 1: nothing left): the least, over its cgroup and each ancestor, of the limit
 * (v2 memory.max, v1 memory.limit_in_bytes) less the usage without inactive file pages.
 * The cgroups are those that cgroup_file names (/proc/self/cgroup: v2 "0::/p", v1
 * "N:...,memory,...:/p"), read under root (/sys/fs/cgroup; v1's controller under
 * root/memory). Where /p is not under its mount (a cgroup namespace), the mount's root
 * is the process's own cgroup. */
size_t mem_cgroup_left(const char *cgroup_file, const char *root);

/* Number of NUMA nodes seen (1 where NUMA is unavailable). */
int mem_numa_nodes(void);

/* Prints "<what>: out of memory (<size> bytes)" and exits with status 1. */
_Noreturn void mem_die_oom(const char *what, size_t size);

#endif
