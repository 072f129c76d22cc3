/* Open-loop arrivals (see arrivals.h). */
#include "benchmarks/arrivals.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "storage/clock.h"
#include "storage/wait.h"

#define SLEEP_SLICE_NS 20000000L /* a sleeping client looks at stop() every 20 ms */

void arrivals_init(struct arrivals *a, double rate, uint64_t start, struct rng *r)
{
    a->mean_ticks = clock_ticks_per_s / rate;
    a->origin = start;
    /* the first arrival one gap after start, as in a stream that was already running */
    a->next = 0;
    arrivals_take(a, r);
}

bool arrivals_wait(uint64_t t, bool yield, bool (*stop)(void), _Atomic uint64_t *beat)
{
    uint64_t spin = (uint64_t)(ARRIVALS_SPIN_NS * 1e-9 * clock_ticks_per_s);
    for (;;) {
        if (stop())
            return false;
        uint64_t now = clock_ticks();
        if (now >= t)
            return true;
        if (t - now > spin) {
            double ns = clock_ticks_to_s(t - now - spin) * 1e9;
            struct timespec ts = {0, ns < SLEEP_SLICE_NS ? (long)ns : SLEEP_SLICE_NS};
            nanosleep(&ts, NULL);
            atomic_store_explicit(beat, atomic_load_explicit(beat, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        } else if (yield) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

/* Moves the stream to its first arrival at or after offset x (from the stream's next). */
static uint64_t skip_to(struct arrivals *a, struct rng *r, double x)
{
    if (a->next >= x)
        return 0;
    double expect = (x - a->next) / a->mean_ticks;
    if (expect > ARRIVALS_COUNT_EXACT) {
        a->next = x;
        arrivals_take(a, r); /* memoryless: the first arrival after x is x + a gap */
        return (uint64_t)(expect + 1.0); /* the one at next, and those expected after it */
    }
    uint64_t n = 0;
    for (; a->next < x; n++)
        arrivals_take(a, r);
    return n;
}

uint64_t arrivals_count(struct arrivals *a, struct rng *r, uint64_t from, uint64_t until)
{
    double f = from > a->origin ? (double)(from - a->origin) : 0.0;
    double u = until > a->origin ? (double)(until - a->origin) : 0.0;
    skip_to(a, r, f);
    return u > f ? skip_to(a, r, u) : 0;
}

void arrivals_merge(struct arrivals_result *dst, const struct arrivals_result *src)
{
    dst->due += src->due;
    dst->started += src->started;
    dst->queued += src->queued;
    latency_merge(&dst->queue_wait, &src->queue_wait);
    latency_merge(&dst->lateness, &src->lateness);
}
