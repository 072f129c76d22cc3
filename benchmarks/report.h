/* Result reporting (see report.c). */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "benchmarks/driver.h"
#include "benchmarks/options.h"
#include "benchmarks/workload.h"
#include "cc/history.h"

struct report_in {
    const struct options *o;
    const struct workload *w;
    const struct run_result *res;
    double load_s;
    struct cpu_usage load_cpu; /* the load's (storage/cpu_usage.h) */
    bool verified;
    struct hist_result hres;
    double verify_s;
    bool checked, check_ok;
};

void report_print(const struct report_in *in);

#endif
