/* The stall watchdog (see watchdog.h). */
#include "benchmarks/watchdog.h"

#include "storage/table.h"

void watchdog_start(struct watchdog *wd, double timeout_s, double now_s, uint64_t progress)
{
    wd->timeout_s = timeout_s;
    wd->since_s = now_s;
    wd->progress = progress;
}

bool watchdog_stalled(struct watchdog *wd, double now_s, uint64_t progress)
{
    if (progress != wd->progress) {
        wd->progress = progress;
        wd->since_s = now_s;
        return false;
    }
    return wd->timeout_s > 0 && now_s - wd->since_s >= wd->timeout_s;
}

void watchdog_report(FILE *f, const struct watchdog *wd, double now_s, int n,
                     const struct wait_rec *const *recs, const uint64_t *commits)
{
    fprintf(f, "stall: nothing committed for %.1f s (--stall-timeout %g); the workers:\n",
            now_s - wd->since_s, wd->timeout_s);
    for (int i = 0; i < n; i++) {
        /* relaxed: a snapshot of a stalled run (storage/wait.h) */
        uint32_t k = atomic_load_explicit(&recs[i]->kind, memory_order_relaxed);
        int holder = atomic_load_explicit(&recs[i]->holder, memory_order_relaxed);
        const struct row *row =
            (const struct row *)atomic_load_explicit(&recs[i]->row, memory_order_relaxed);
        fprintf(f, "  thread %d: %s", i, k < WAIT_NKINDS ? wait_kind_names[k] : "?");
        if (k != WAIT_NONE && k != WAIT_BACKOFF && k != WAIT_EXITED) {
            if (row) /* rows live until the tables are freed, after the run */
                fprintf(f, " on %s key %llu", row->table->name, (unsigned long long)row->key);
            if (holder >= 0)
                fprintf(f, ", blocked by thread %d", holder);
        }
        fprintf(f, " (%llu commits)\n", (unsigned long long)commits[i]);
    }
}
