/* The machine's topology and the pin plan (see topology.h). */
#include "storage/topology.h"

#include <hwloc.h>
#include <sched.h>
#include <stdlib.h>

#include "storage/mem.h"

static hwloc_topology_t topo;
static struct topo_slot *pus;  /* usable PUs, in the policy's order */
static int npus, ncores;
static int *numa_os;           /* OS index of each NUMA node (by logical index) */
static struct topo_slot *plan; /* one per thread; NULL: not pinned */
static int plan_threads;
static bool this_system;

static int logical(hwloc_obj_t o) { return o ? (int)o->logical_index : -1; }

static int numa_of(hwloc_obj_t pu)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index))
            return i;
    }
    return -1;
}

/* The policy's order, as a sort key over the PUs' fields and their rank within the core
 * (0: the core's first PU). */
struct pu_rec {
    struct topo_slot s;
    int rank;  /* index among its core's usable PUs */
    int domain; /* scatter: its NUMA node (or package, on one node) */
    int nrank;  /* scatter: index of its core among its domain's cores */
};

static int cmp_compact(const void *a, const void *b)
{
    const struct pu_rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return x->s.pu - y->s.pu; /* logical order: package by package, core by core */
}

static int cmp_scatter(const void *a, const void *b)
{
    const struct pu_rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->nrank != y->nrank)
        return x->nrank - y->nrank;
    if (x->domain != y->domain)
        return x->domain - y->domain;
    return x->s.pu - y->s.pu;
}

/* Loads the topology; *recs: the usable PUs in logical order (caller frees). */
static bool load(struct pu_rec **recs, char *err, size_t errlen)
{
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        snprintf(err, errlen, "hwloc cannot read this machine's topology%s",
                 getenv("HWLOC_SYNTHETIC") ? " (check HWLOC_SYNTHETIC)" : "");
        return false;
    }
    this_system = hwloc_topology_is_thissystem(topo);
    hwloc_bitmap_t usable = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
    if (this_system) { /* also what the process was restricted to (taskset, cgroups) */
        hwloc_bitmap_t bound = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0)
            hwloc_bitmap_and(usable, usable, bound);
        hwloc_bitmap_free(bound);
    }
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    numa_os = mem_zalloc((size_t)(nn > 0 ? nn : 1) * sizeof(int));
    for (int i = 0; i < nn; i++)
        numa_os[i] = (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i)->os_index;
    struct pu_rec *rec = mem_zalloc((size_t)(n > 0 ? n : 1) * sizeof(*rec));
    int last_core = -2, rank = 0;
    npus = ncores = 0;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
        if (!hwloc_bitmap_isset(usable, pu->os_index))
            continue;
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        struct pu_rec *r = &rec[npus++];
        r->s.pu = i;
        r->s.core = core ? logical(core) : -1;
        r->s.package = logical(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu));
        r->s.numa_node = numa_of(pu);
        r->s.os_cpu = (int)pu->os_index;
        /* PUs of a core are consecutive in logical order; a PU without a core is one */
        int key = core ? r->s.core : -3 - i;
        if (key != last_core) {
            rank = 0;
            ncores++;
            last_core = key;
        }
        r->rank = rank++;
    }
    hwloc_bitmap_free(usable);
    if (npus == 0) {
        snprintf(err, errlen, "no processing unit of this machine may be used");
        mem_free(rec);
        return false;
    }
    /* scatter's domains: the NUMA nodes, or the packages where all PUs share one node */
    bool by_node = false;
    for (int i = 1; i < npus; i++)
        by_node |= rec[i].s.numa_node != rec[0].s.numa_node;
    int np = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    int *seen = mem_zalloc((size_t)((by_node ? nn : np) + 1) * sizeof(int));
    for (int i = 0; i < npus; i++) { /* each core's index among its domain's cores */
        rec[i].domain = by_node ? rec[i].s.numa_node : rec[i].s.package;
        int d = rec[i].domain + 1; /* -1 (none) is a domain of its own */
        rec[i].nrank = seen[d];
        if (i + 1 == npus || rec[i + 1].rank == 0)
            seen[d]++;
    }
    mem_free(seen);
    *recs = rec;
    return true;
}

bool topo_plan_build(enum topo_policy pol, int nthreads, char *err, size_t errlen)
{
    struct pu_rec *rec;
    if (!load(&rec, err, errlen))
        return false;
    if (pol == TOPO_COMPACT)
        qsort(rec, (size_t)npus, sizeof(*rec), cmp_compact);
    else if (pol == TOPO_SCATTER)
        qsort(rec, (size_t)npus, sizeof(*rec), cmp_scatter);
    /* TOPO_SMT: logical order already fills each core's PUs before the next core */
    pus = mem_alloc((size_t)npus * sizeof(*pus));
    for (int i = 0; i < npus; i++)
        pus[i] = rec[i].s;
    mem_free(rec);
    plan_threads = nthreads;
    if (pol != TOPO_NONE) {
        plan = mem_alloc((size_t)nthreads * sizeof(*plan));
        for (int i = 0; i < nthreads; i++)
            plan[i] = pus[i % npus];
    }
    return true;
}

int topo_ncpus(void) { return npus; }
int topo_ncores(void) { return ncores; }
bool topo_is_this_system(void) { return this_system; }

const struct topo_slot *topo_slot_of(int thread)
{
    return plan && thread >= 0 && thread < plan_threads ? &plan[thread] : NULL;
}

static void bind_set(cpu_set_t *set)
{
    /* best effort: a CPU taken away since the plan was made leaves the thread unbound */
    (void)sched_setaffinity(0, sizeof(*set), set);
}

void topo_pin_self(int thread)
{
    const struct topo_slot *s = topo_slot_of(thread);
    if (!s || !this_system || s->os_cpu >= CPU_SETSIZE)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->os_cpu, &set);
    bind_set(&set);
}

void topo_pin_helper(void)
{
    if (!plan || !this_system)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < plan_threads && i < npus; i++)
        if (plan[i].os_cpu < CPU_SETSIZE)
            CPU_SET(plan[i].os_cpu, &set);
    bind_set(&set);
}

unsigned long long topo_plan_nodes(void)
{
    unsigned long long m = 0;
    for (int i = 0; plan && i < plan_threads && i < npus; i++)
        if (plan[i].numa_node >= 0 && numa_os[plan[i].numa_node] < 64)
            m |= 1ull << numa_os[plan[i].numa_node];
    return __builtin_popcountll(m) > 1 ? m : 0;
}

int topo_node_of(int thread)
{
    const struct topo_slot *s = topo_slot_of(thread);
    return s && s->numa_node >= 0 ? numa_os[s->numa_node] : -1;
}

void topo_plan_json(FILE *f)
{
    fputc('[', f);
    for (int i = 0; plan && i < plan_threads; i++) {
        const struct topo_slot *s = &plan[i];
        fprintf(f, "%s{\"thread\":%d,\"pu\":%d,\"core\":%d,\"package\":%d,\"numa_node\":%d,"
                   "\"os_cpu\":%d}",
                i ? "," : "", i, s->pu, s->core, s->package, s->numa_node, s->os_cpu);
    }
    fputc(']', f);
}
