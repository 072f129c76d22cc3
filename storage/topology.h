/* Where threads run and memory lives: the machine's topology (hwloc) and the pin plan.
 *
 * The plan maps worker thread i to one processing unit (PU), chosen by the policy from
 * the PUs this process may use:
 *   compact  one thread per physical core, filling a package (socket) before the next;
 *            a core's SMT siblings are used only after every core has one thread;
 *   scatter  round-robin over the NUMA nodes (node 0's first core, node 1's first core,
 *            ...; over the packages where every PU is on one node), each node's cores in
 *            compact order, siblings last;
 *   smt      every PU of a core before the next core (for studying SMT);
 *   none     no pinning (the plan is empty).
 * Threads beyond the PU count wrap around (oversubscription). Indexes in the plan are
 * hwloc's logical indexes; os_cpu is the PU's operating-system number.
 *
 * Loader threads and helper threads (Silo's epoch thread) use the same plan: a loader i
 * runs where worker i will, a helper on all the plan's PUs. Shared memory is interleaved
 * over the NUMA nodes of the plan's PUs only (main hands topo_plan_nodes to mem_init);
 * partitioned data is placed on the node of the thread that owns it (topo_node_of).
 *
 * HWLOC_SYNTHETIC (hwloc's environment variable, e.g. "pack:2 core:64 pu:2") makes the
 * plan for a made-up machine: only --pin-plan may use it (topo_is_this_system). */
#ifndef STORAGE_TOPOLOGY_H
#define STORAGE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum topo_policy { TOPO_COMPACT, TOPO_SCATTER, TOPO_SMT, TOPO_NONE };

struct topo_slot {
    int pu, core, package, numa_node; /* hwloc logical indexes (-1: the machine has none) */
    int os_cpu;                       /* the PU's OS index (what the kernel calls it) */
};

/* Loads the topology and builds the plan for nthreads threads; false (with a one-line
 * reason in err) if hwloc cannot read the machine or no PU may be used. Once per process,
 * before any thread is pinned. */
bool topo_plan_build(enum topo_policy pol, int nthreads, char *err, size_t errlen);

/* PUs and physical cores this process may use. */
int topo_ncpus(void);
int topo_ncores(void);
/* Whether the topology is this machine's (false under HWLOC_SYNTHETIC). */
bool topo_is_this_system(void);

/* Thread i's slot (NULL: not pinned). */
const struct topo_slot *topo_slot_of(int thread);
/* Binds the calling thread to thread i's PU (no-op when not pinned). */
void topo_pin_self(int thread);
/* Binds the calling thread (a helper) to every PU of the plan (no-op when not pinned). */
void topo_pin_helper(void);
/* OS indexes of the NUMA nodes of the plan's PUs, as a bit mask (bit k: node k); 0 when
 * not pinned or on one node. */
unsigned long long topo_plan_nodes(void);

/* OS index of the NUMA node of thread i's PU (the node its data is placed on, see
 * table.h's placed tables); -1 when not pinned or the node is unknown. */
int topo_node_of(int thread);

/* The plan as one JSON array of {"thread","pu","core","package","numa_node"}. */
void topo_plan_json(FILE *f);

#endif
