/* Where a run's CPU time goes: the process's user and system CPU seconds, page faults and
 * context switches (getrusage(RUSAGE_SELF): every thread, the main one included), sampled
 * at the edges of a run's phases so that a result can say how much of its measured window
 * the kernel took (the driver and benchmarks/report.c use it). */
#ifndef STORAGE_CPU_USAGE_H
#define STORAGE_CPU_USAGE_H

#include <stdint.h>

struct cpu_usage {
    double user_s, sys_s;
    uint64_t minor_faults, major_faults;
    uint64_t voluntary_switches, involuntary_switches;
};

/* The process's counters since it started. */
void cpu_usage_now(struct cpu_usage *u);
/* What happened between two samples: later - earlier. */
struct cpu_usage cpu_usage_sub(const struct cpu_usage *later, const struct cpu_usage *earlier);
/* The share of u's CPU time spent in the kernel (0 when there was none). */
double cpu_usage_sys_share(const struct cpu_usage *u);

#endif
