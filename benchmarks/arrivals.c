/* Open-loop arrivals (see arrivals.h). */
#include "benchmarks/arrivals.h"

#include <sched.h>
#include <time.h>

#include "cc/clock.h"
#include "storage/wait.h"

#define SLEEP_SLICE_NS 20000000L /* a sleeping client looks at stop() every 20 ms */

void arrivals_init(struct arrivals *a, double rate, uint64_t start, struct rng *r)
{
    a->mean_ticks = clock_ticks_per_s / rate;
    /* the first arrival one gap after start, as in a stream that was already running */
    a->next = (double)start;
    arrivals_take(a, r);
}

bool arrivals_wait(uint64_t t, bool yield, bool (*stop)(void))
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
        } else if (yield) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

uint64_t arrivals_drain(struct arrivals *a, struct rng *r, uint64_t until)
{
    uint64_t n = 0;
    while (a->next < (double)until) {
        arrivals_take(a, r);
        n++;
    }
    return n;
}

void arrivals_merge(struct arrivals_result *dst, const struct arrivals_result *src)
{
    dst->due += src->due;
    dst->started += src->started;
    dst->queued += src->queued;
    latency_merge(&dst->queue_wait, &src->queue_wait);
    latency_merge(&dst->lateness, &src->lateness);
}
