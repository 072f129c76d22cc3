/* The sampler (see sampler.h). */
#include "benchmarks/sampler.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/deadline.h"
#include "benchmarks/progress.h"
#include "storage/clock.h"
#include "storage/mem.h"

#define SAMPLER_SLICE_S 0.02 /* the longest sleep between looks at the clock */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

uint64_t sampler_commits(const struct sampler *sm)
{
    uint64_t c = 0;
    for (int i = 0; i < sm->n; i++) /* relaxed: see struct sampler_feed */
        c += atomic_load_explicit(&sm->feeds[i]->committed, memory_order_relaxed);
    return c;
}

/* The watchdog's progress counts: the run's (commits, workers that left, sleeps of idle
 * open-loop clients and of paused workers, sampler_feed's idle_beats) as the result,
 * each worker's (the same, plus its aborted attempts) into each[]. */
static uint64_t stall_progress(const struct sampler *sm, uint64_t *each)
{
    uint64_t c = 0;
    for (int i = 0; i < sm->n; i++) {
        const struct sampler_feed *f = sm->feeds[i];
        /* relaxed: see struct sampler_feed */
        /* acquire: see struct sampler_feed */
        bool left = atomic_load_explicit(&f->exited, memory_order_acquire);
        uint64_t mine = atomic_load_explicit(&f->committed, memory_order_relaxed) +
                        atomic_load_explicit(&f->idle_beats, memory_order_relaxed) + left;
        c += mine;
        each[i] = left ? WATCHDOG_LEFT
                       : mine + atomic_load_explicit(&f->aborted, memory_order_relaxed);
    }
    return c;
}

void sampler_start(struct sampler *sm, const struct sampler_feed *const *feeds, int n,
                   struct series *s, double stall_timeout_s)
{
    *sm = (struct sampler){.feeds = feeds, .n = n, .s = s};
    sm->t0 = sm->last_s = clock_now_s();
    cpu_usage_now(&sm->last_cpu);
    sm->each = mem_alloc((size_t)n * sizeof(*sm->each));
    uint64_t c = stall_progress(sm, sm->each);
    watchdog_start(&sm->wd, stall_timeout_s, sm->t0, c, n, sm->each);
}

/* Feeds the watchdog; on a stall, reports and exits with status 3. */
static void feed_watchdog(struct sampler *sm, double now)
{
    uint64_t c = stall_progress(sm, sm->each);
    if (!watchdog_stalled(&sm->wd, now, c, sm->each))
        return;
    const struct wait_rec **recs = mem_alloc((size_t)sm->n * sizeof(*recs));
    uint64_t *commits = mem_alloc((size_t)sm->n * sizeof(*commits));
    for (int i = 0; i < sm->n; i++) {
        recs[i] = &sm->feeds[i]->wait;
        /* relaxed: see struct sampler_feed */
        commits[i] = atomic_load_explicit(&sm->feeds[i]->committed, memory_order_relaxed);
    }
    progress_clear();
    watchdog_report(stderr, &sm->wd, now, recs, commits);
    deadline_report_threads(stderr);
    fflush(stderr);
    _exit(3); /* the workers still run: no exit handlers, no destructors under them */
}

void sampler_sample(struct sampler *sm, double now)
{
    struct series *s = sm->s;
    uint64_t c = sampler_commits(sm);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->t_s = mem_realloc(s->t_s, s->cap * sizeof(*s->t_s));
        s->commits_per_s = mem_realloc(s->commits_per_s, s->cap * sizeof(*s->commits_per_s));
        s->rss_mib = mem_realloc(s->rss_mib, s->cap * sizeof(*s->rss_mib));
        s->sys_share = mem_realloc(s->sys_share, s->cap * sizeof(*s->sys_share));
        s->minor_faults = mem_realloc(s->minor_faults, s->cap * sizeof(*s->minor_faults));
        s->cpu_busy = mem_realloc(s->cpu_busy, s->cap * sizeof(*s->cpu_busy));
    }
    s->rss_mib[s->n] = (double)mem_rss_bytes() / (1024.0 * 1024.0);
    struct cpu_usage cpu;
    cpu_usage_now(&cpu);
    struct cpu_usage d = cpu_usage_sub(&cpu, &sm->last_cpu);
    s->sys_share[s->n] = cpu_usage_sys_share(&d);
    s->minor_faults[s->n] = d.minor_faults;
    s->cpu_busy[s->n] = now > sm->last_s ? (d.user_s + d.sys_s) / (now - sm->last_s) : 0;
    sm->last_cpu = cpu;
    s->t_s[s->n] = now - sm->t0;
    s->commits_per_s[s->n] = now > sm->last_s ? (double)(c - sm->last) / (now - sm->last_s) : 0;
    s->n++;
    sm->last_s = now;
    sm->last = c;
}

void sampler_timed_phase(struct sampler *sm, const char *name, double start, double len)
{
    double iv = sm->s->interval_s, end = start + len;
    uint64_t k = 1; /* the next interval end is start + k * iv */
    progress_timed(true, name, 0, len, sampler_commits(sm));
    for (;;) {
        double now = clock_now_s();
        if (now >= end)
            return;
        double next = start + (double)k * iv;
        if (now >= next) {
            if (next < end - 0.01 * iv)
                sampler_sample(sm, now);
            uint64_t kn = (uint64_t)((now - start) / iv) + 1; /* skip what was overslept */
            k = kn > k ? kn : k + 1;
            continue;
        }
        progress_timed(false, name, now - start, len, sampler_commits(sm));
        feed_watchdog(sm, now);
        double until = next < end ? next : end;
        sleep_s(until - now < SAMPLER_SLICE_S ? until - now : SAMPLER_SLICE_S);
    }
}

/* Feeds the watchdog until *flag is set, looking every slice_s. acquire: pairs with the
 * release store that sets it (a worker's exited, the reserver's done). */
static void feed_until(struct sampler *sm, const _Atomic bool *flag, double slice_s)
{
    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        feed_watchdog(sm, clock_now_s());
        sleep_s(slice_s);
    }
}

void sampler_wait_flag(struct sampler *sm, const _Atomic bool *flag)
{
    feed_until(sm, flag, SAMPLER_SLICE_S);
}

void sampler_wait_exits(struct sampler *sm)
{
    for (int i = 0; i < sm->n; i++)
        feed_until(sm, &sm->feeds[i]->exited, 0.001);
    watchdog_fini(&sm->wd);
    mem_free(sm->each);
    sm->each = NULL;
}
