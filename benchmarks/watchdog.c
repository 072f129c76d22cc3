/* The stall watchdog (see watchdog.h). */
#include "benchmarks/watchdog.h"

#include "storage/mem.h"
#include "storage/table.h"

void watchdog_start(struct watchdog *wd, double timeout_s, double now_s, uint64_t progress,
                    int n, const uint64_t *each)
{
    *wd = (struct watchdog){.timeout_s = timeout_s, .since_s = now_s, .last_s = now_s,
                            .progress = progress, .n = n, .stuck = -1};
    wd->each = mem_alloc((size_t)n * sizeof(*wd->each));
    wd->each_since = mem_alloc((size_t)n * sizeof(*wd->each_since));
    for (int i = 0; i < n; i++) {
        wd->each[i] = each[i];
        wd->each_since[i] = now_s;
    }
}

bool watchdog_stalled(struct watchdog *wd, double now_s, uint64_t progress,
                      const uint64_t *each)
{
    bool stalled = false;
    double skip = watchdog_unwatched_s(now_s - wd->last_s, wd->timeout_s);
    wd->last_s = now_s;
    wd->since_s += skip;
    for (int i = 0; i < wd->n; i++)
        wd->each_since[i] += skip;
    if (progress != wd->progress) {
        wd->progress = progress;
        wd->since_s = now_s;
    } else if (wd->timeout_s > 0 && now_s - wd->since_s >= wd->timeout_s) {
        wd->stuck = -1;
        stalled = true;
    }
    for (int i = 0; i < wd->n && !stalled; i++) {
        if (each[i] == WATCHDOG_LEFT)
            continue;
        if (each[i] != wd->each[i]) {
            wd->each[i] = each[i];
            wd->each_since[i] = now_s;
        } else if (wd->timeout_s > 0 && now_s - wd->each_since[i] >= wd->timeout_s) {
            wd->stuck = i;
            stalled = true;
        }
    }
    return stalled;
}

void watchdog_report(FILE *f, const struct watchdog *wd, double now_s,
                     const struct wait_rec *const *recs, const uint64_t *commits)
{
    if (wd->stuck < 0)
        fprintf(f, "stall: nothing committed for %.1f s (--stall-timeout %g); the workers:\n",
                now_s - wd->since_s, wd->timeout_s);
    else
        fprintf(f,
                "stall: thread %d ended no attempt for %.1f s (--stall-timeout %g); the "
                "workers:\n",
                wd->stuck, now_s - wd->each_since[wd->stuck], wd->timeout_s);
    for (int i = 0; i < wd->n; i++) {
        fprintf(f, "  thread %d: ", i);
        watchdog_print_wait(f, recs[i]);
        fprintf(f, " (%llu commits)\n", (unsigned long long)commits[i]);
    }
}

void watchdog_fini(struct watchdog *wd)
{
    mem_free(wd->each);
    mem_free(wd->each_since);
    wd->each = NULL;
    wd->each_since = NULL;
}

void watchdog_print_wait(FILE *f, const struct wait_rec *rec)
{
    /* relaxed: a snapshot of a stalled run (storage/wait.h) */
    uint32_t k = atomic_load_explicit(&rec->kind, memory_order_relaxed);
    int holder = atomic_load_explicit(&rec->holder, memory_order_relaxed);
    const struct row *row =
        (const struct row *)atomic_load_explicit(&rec->row, memory_order_relaxed);
    fputs(k < WAIT_NKINDS ? wait_kind_names[k] : "?", f);
    if (k != WAIT_NONE && k != WAIT_BACKOFF && k != WAIT_EXITED) {
        if (row) /* rows live until the tables are freed, after the run */
            fprintf(f, " on %s key %llu", row_table(row)->name, (unsigned long long)row->key);
        if (holder >= 0)
            fprintf(f, ", blocked by thread %d", holder);
    }
}
