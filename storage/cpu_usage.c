/* Process CPU time, faults and context switches by getrusage (see cpu_usage.h). */
#include "storage/cpu_usage.h"

#include <sys/resource.h>

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6; }

void cpu_usage_now(struct cpu_usage *u)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r); /* cannot fail for RUSAGE_SELF with a valid pointer */
    *u = (struct cpu_usage){
        .user_s = seconds(r.ru_utime),
        .sys_s = seconds(r.ru_stime),
        .minor_faults = (uint64_t)r.ru_minflt,
        .major_faults = (uint64_t)r.ru_majflt,
        .voluntary_switches = (uint64_t)r.ru_nvcsw,
        .involuntary_switches = (uint64_t)r.ru_nivcsw,
    };
}

struct cpu_usage cpu_usage_sub(const struct cpu_usage *later, const struct cpu_usage *earlier)
{
    return (struct cpu_usage){
        .user_s = later->user_s - earlier->user_s,
        .sys_s = later->sys_s - earlier->sys_s,
        .minor_faults = later->minor_faults - earlier->minor_faults,
        .major_faults = later->major_faults - earlier->major_faults,
        .voluntary_switches = later->voluntary_switches - earlier->voluntary_switches,
        .involuntary_switches = later->involuntary_switches - earlier->involuntary_switches,
    };
}

double cpu_usage_sys_share(const struct cpu_usage *u)
{
    double all = u->user_s + u->sys_s;
    return all > 0 ? u->sys_s / all : 0;
}
