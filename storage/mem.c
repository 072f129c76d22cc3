/* The memory module (see mem.h): jemalloc for all allocation, libnuma for placement. */
#include "storage/mem.h"

#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef MEM_SYSTEM_MALLOC
/* Sanitizer builds: the sanitizer owns malloc, so jemalloc is not linked; the few
 * jemalloc extensions used here map to their plain equivalents. */
#define MALLOCX_ALIGN(a) (a)
#define MALLOCX_ZERO 0
static void *mallocx(size_t size, size_t align)
{
    void *p = aligned_alloc(align, (size + align - 1) / align * align);
    if (p)
        memset(p, 0, size);
    return p;
}
#else
#include <jemalloc/jemalloc.h>
#endif

static int numa_nodes = 1;
/* mem_init's node set: where shared regions are interleaved (0: over all nodes). */
static unsigned long long interleave_nodes;

void mem_init(unsigned long long nodes)
{
    interleave_nodes = nodes;
    if (numa_available() >= 0) {
        int n = numa_num_configured_nodes();
        numa_nodes = n > 0 ? n : 1;
    }
}

int mem_numa_nodes(void) { return numa_nodes; }

void mem_thread_init(void)
{
#ifndef MEM_SYSTEM_MALLOC
    unsigned arena;
    size_t sz = sizeof(arena);
    /* A fresh arena per worker: its pages are first touched by the (pinned) worker, so
     * they land on the worker's node, and workers never contend on an arena lock. */
    if (mallctl("arenas.create", &arena, &sz, NULL, 0) == 0)
        mallctl("thread.arena", NULL, NULL, &arena, sizeof(arena));
#endif
}

_Noreturn void mem_die_oom(const char *what, size_t size)
{
    fprintf(stderr, "%s: out of memory (%zu bytes)\n", what, size);
    exit(1);
}

void *mem_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        mem_die_oom("mem_alloc", size);
    return p;
}

void *mem_zalloc(size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p)
        mem_die_oom("mem_zalloc", size);
    return p;
}

void *mem_alloc_aligned(size_t align, size_t size)
{
    void *p = mallocx(size ? size : 1, MALLOCX_ALIGN(align));
    if (!p)
        mem_die_oom("mem_alloc_aligned", size);
    return p;
}

void *mem_realloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        mem_die_oom("mem_realloc", size);
    return q;
}

void mem_free(void *p) { free(p); }

void mem_free_sized(void *p, size_t size)
{
#ifdef MEM_SYSTEM_MALLOC
    (void)size;
    free(p);
#else
    sdallocx(p, size ? size : 1, 0);
#endif
}

/* Shared regions are whole base pages, page aligned (the unit of NUMA placement). */
#define PAGE_BYTES ((size_t)4096)
/* Shared regions at least this large ask for transparent huge pages. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* n rounded up to whole pages. */
static inline size_t page_round_up(size_t n) { return (n + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1); }

static void *alloc_shared(size_t size, int node, bool huge)
{
    size = page_round_up(size);
    /* MALLOCX_ZERO on a large size maps fresh zero pages without touching them, so the
     * policy set next still decides where each page lands on first touch: on `node`, or
     * interleaved over the nodes the run's threads are pinned to (all nodes when they are
     * not pinned). */
    void *p = mallocx(size, MALLOCX_ALIGN(PAGE_BYTES) | MALLOCX_ZERO);
    if (!p)
        mem_die_oom("mem_alloc_shared", size);
    if (numa_nodes > 1 && node >= 0 && node <= numa_max_node()) {
        /* preferred, not bound: a full node spills to the others instead of failing */
        struct bitmask *b = numa_bitmask_alloc((unsigned)numa_max_possible_node() + 1);
        numa_bitmask_setbit(b, (unsigned)node);
        mbind(p, size, MPOL_PREFERRED, b->maskp, b->size + 1, 0);
        numa_bitmask_free(b);
    } else if (numa_nodes > 1) {
        unsigned long long m = interleave_nodes;
        if (m) {
            struct bitmask *b = numa_bitmask_alloc((unsigned)numa_max_possible_node() + 1);
            for (unsigned k = 0; k < 64; k++)
                if (m >> k & 1)
                    numa_bitmask_setbit(b, k);
            numa_interleave_memory(p, size, b);
            numa_bitmask_free(b);
        } else {
            numa_interleave_memory(p, size, numa_all_nodes_ptr);
        }
    }
    /* Transparent huge pages where the kernel gives them on request (the common
     * "madvise" setting): random row and bucket accesses over gigabytes miss the TLB far
     * less. Only a hint: without THP the pages stay 4 KiB. Base pages are asked for
     * explicitly (THP "always" would otherwise give huge ones): faulting in memory the
     * machine has not touched lately costs per byte 2.4-6x more in 2 MiB pages than in
     * 4 KiB ones on the virtual machines we measured (0.45 against 1.1-2.8 GB/s), while
     * rows written once at a table's tail gain little from the TLB reach. */
    if (size >= HUGE_PAGE_BYTES)
        madvise(p, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    return p;
}

void *mem_alloc_shared_on(size_t size, int node) { return alloc_shared(size, node, true); }

void *mem_alloc_shared_base_pages(size_t size, int node)
{
    return alloc_shared(size, node, false);
}

void *mem_alloc_shared(size_t size) { return mem_alloc_shared_on(size, -1); }

void mem_free_shared(void *p, size_t size)
{
    (void)size;
    free(p);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's uapi value, for older headers */
#endif

bool mem_populate(void *p, size_t size)
{
    return madvise(p, size, MADV_POPULATE_WRITE) == 0;
}

void mem_prefault(void *p, size_t size)
{
    mem_populate(p, size);
    /* Then a store to each page from this address space. The kernel fills the pages
     * through its own mapping of them; where a hypervisor shadows the guest's page tables
     * (as a PVM guest's does), the process's first store to each page still exits to it,
     * microseconds the guest never counts as its own system time. Measured on such a VM
     * (1 GiB, 4 KiB pages): the first store to a populated page cost 4.4 us, 20 ns after
     * a load from it and 3 ns after a store; in a TPC-C window, 21% of the blocks of
     * reserved rows still took the exit after a load, 6% after a store (the hypervisor
     * maps a page it saw only loaded read-only, to see it dirtied). The store writes the
     * byte it reads (an atomic or of 0), as the memory is zero or unused. Where the
     * kernel cannot populate (before Linux 5.14) the stores fault the pages in. */
    for (size_t off = 0; off < size; off += PAGE_BYTES)
        __atomic_fetch_or((unsigned char *)p + off, 0, __ATOMIC_RELAXED);
}

size_t mem_phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* The first number in file `path` (0 if none, as for v2's "max": no limit). */
static unsigned long long file_u64(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* The number after `key` and a space on its line of file `path` (0 if none): a line of
 * memory.stat ("inactive_file 123") or of /proc/meminfo ("MemAvailable:  123 kB"). */
static unsigned long long keyed_u64(const char *path, const char *key)
{
    char *line = NULL;
    size_t cap = 0, n = strlen(key);
    unsigned long long v = 0;
    FILE *f = fopen(path, "r");
    while (f && getline(&line, &cap, f) > 0)
        if (!strncmp(line, key, n) && line[n] == ' ')
            v = strtoull(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    free(line);
    return v;
}

/* The files of one cgroup version's memory controller. */
struct cg_files {
    const char *limit, *usage, *inactive; /* inactive: memory.stat's reclaimable cache */
};

/* What the cgroup at dir leaves below its limit (0: it has none; 1: nothing left). Its
 * usage leaves out inactive file pages, which the kernel reclaims before it fails an
 * allocation (MemAvailable counts them as available too). */
static size_t cg_level_left(const char *dir, const struct cg_files *cf)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, cf->limit) >= (int)sizeof(path))
        return 0;
    unsigned long long limit = file_u64(path);
    if (!limit || limit >= 1ULL << 60) /* v1 writes "no limit" as about 2^63 */
        return 0;
    if (snprintf(path, sizeof(path), "%s/%s", dir, cf->usage) >= (int)sizeof(path))
        return 0;
    unsigned long long usage = file_u64(path);
    if (snprintf(path, sizeof(path), "%s/memory.stat", dir) >= (int)sizeof(path))
        return 0;
    unsigned long long cache = keyed_u64(path, cf->inactive);
    usage = cache < usage ? usage - cache : 0;
    return usage < limit ? (size_t)(limit - usage) : 1;
}

/* The least that the cgroup at mount + cg and each of its ancestors up to the mount
 * leave (0: none has a limit). Where mount + cg does not exist (a cgroup namespace), the
 * mount's root is the process's own cgroup. */
static size_t cg_chain_left(const char *mount, const char *cg, const struct cg_files *cf)
{
    char dir[PATH_MAX];
    size_t root = strlen(mount), least = 0;
    if (snprintf(dir, sizeof(dir), "%s%s", mount, strcmp(cg, "/") ? cg : "") >= (int)sizeof(dir) ||
        access(dir, R_OK))
        dir[root] = 0;
    for (;;) {
        size_t left = cg_level_left(dir, cf);
        if (left && (!least || left < least))
            least = left;
        char *slash = strrchr(dir, '/');
        if (strlen(dir) <= root || !slash || (size_t)(slash - dir) < root)
            break;
        *slash = 0;
    }
    return least;
}

size_t mem_cgroup_left(const char *cgroup_file, const char *root)
{
    static const struct cg_files v1 = {"memory.limit_in_bytes", "memory.usage_in_bytes",
                                       "total_inactive_file"};
    static const struct cg_files v2 = {"memory.max", "memory.current", "inactive_file"};
    FILE *f = fopen(cgroup_file, "r");
    char *line = NULL, mount[PATH_MAX];
    size_t cap = 0, least = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = 0;
        /* hierarchy-id:controllers:path */
        char *ctl = strchr(line, ':'), *cg = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!cg)
            continue;
        *ctl++ = 0;
        *cg++ = 0;
        size_t left = 0;
        if (!strcmp(line, "0") && !*ctl) {
            left = cg_chain_left(root, cg, &v2);
        } else {
            char *save;
            for (char *c = strtok_r(ctl, ",", &save); c; c = strtok_r(NULL, ",", &save))
                if (!strcmp(c, "memory")) {
                    snprintf(mount, sizeof(mount), "%s/memory", root);
                    left = cg_chain_left(mount, cg, &v1);
                }
        }
        if (left && (!least || left < least))
            least = left;
    }
    if (f)
        fclose(f);
    free(line);
    return least;
}

size_t mem_avail_bytes(void)
{
    size_t avail = (size_t)keyed_u64("/proc/meminfo", "MemAvailable:") << 10;
    if (!avail)
        avail = mem_phys_bytes();
    size_t left = mem_cgroup_left("/proc/self/cgroup", "/sys/fs/cgroup");
    return left && left < avail ? left : avail;
}

size_t mem_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, resident;
    int n = f ? fscanf(f, "%llu %llu", &size, &resident) : 0;
    if (f)
        fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return n == 2 && page > 0 ? (size_t)resident * (size_t)page : 0;
}
