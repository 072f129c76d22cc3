/* Open-loop load (--rate R): when transactions arrive, independently of when earlier ones
 * finish.
 *
 * Each of the T worker threads is a client with its own Poisson arrival stream of rate
 * R / T (exponential gaps drawn from the client's generator); the T streams together are a
 * Poisson stream of rate R, and no arrival writes anything shared. An arrival is served by
 * its own client: if the client is still busy with an earlier transaction, the arrival
 * waits in that client's queue (FIFO; no client takes another's work), and the time from
 * arrival to start is its queue wait. A transaction's latency runs from its arrival, so
 * queueing is part of it. When the client is idle it sleeps until the next arrival (the
 * last ARRIVALS_SPIN_NS it spins, or yields when threads share cores); how late it starts
 * an arrival it was idle for is its start lateness, reported apart (a harness artefact,
 * also part of the latency).
 *
 * Offered rate: arrivals due in the measured window (taken or not) over its length;
 * achieved: commits over it; a point whose achieved rate is under ARRIVALS_SATURATED of
 * the offered one is saturated (its queues grow without bound). */
#ifndef BENCH_ARRIVALS_H
#define BENCH_ARRIVALS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/latency.h"
#include "storage/rand.h"

#define ARRIVALS_SPIN_NS 50000 /* sleep until this close to an arrival, then spin */
#define ARRIVALS_SATURATED 0.95

/* One client's stream (owned by its worker thread). Arrival ticks are kept as offsets
 * from the stream's origin, so the double keeps sub-tick precision however long the
 * machine has been up. */
struct arrivals {
    double mean_ticks; /* mean gap */
    uint64_t origin;   /* tick the stream started at */
    double next;       /* the next arrival, ticks after origin (no drift from rounding) */
};

/* What the clients saw in the measured window, summed over them. */
struct arrivals_result {
    uint64_t due;     /* arrivals due in the window */
    uint64_t started; /* of them and earlier ones, started in the window */
    uint64_t queued;  /* started arrivals that found their client busy */
    struct latency queue_wait; /* ticks, arrival to start, queued arrivals */
    struct latency lateness;   /* ticks, arrival to start, arrivals of an idle client */
};

/* A stream of `rate` arrivals per second starting at tick `start`. */
void arrivals_init(struct arrivals *a, double rate, uint64_t start, struct rng *r);

/* Takes the next arrival (its tick) and draws the one after it. */
static inline uint64_t arrivals_take(struct arrivals *a, struct rng *r)
{
    uint64_t t = a->origin + (uint64_t)a->next;
    /* exponential gap by inversion; 1 - u is in (0, 1] */
    a->next += -a->mean_ticks * log(1.0 - rng_double(r));
    return t;
}

/* Waits until tick t: sleeps, then spins (yields with `yield`) the last stretch; returns
 * early, false, once stop() is true. Bumps *beat (relaxed; its owner is the only writer)
 * after every sleep: an idle client is not a stalled one (the driver's watchdog). */
bool arrivals_wait(uint64_t t, bool yield, bool (*stop)(void), _Atomic uint64_t *beat);

/* Counts the arrivals of stream a not taken yet that fall in [from, until) and advances
 * the stream past `until`. Beyond ARRIVALS_COUNT_EXACT arrivals the count is its
 * expectation (the stream's next position past a gap is drawn afresh, which the
 * exponential's memorylessness makes exact): a backlog of millions costs no time. */
#define ARRIVALS_COUNT_EXACT 100000
uint64_t arrivals_count(struct arrivals *a, struct rng *r, uint64_t from, uint64_t until);

void arrivals_merge(struct arrivals_result *dst, const struct arrivals_result *src);

#endif
