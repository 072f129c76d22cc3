/* The round trip of a cache line between two pinned threads (storage/line_trip.h): a ping
 * thread and a pong thread take turns on one counter, each waiting for the other's value
 * before it writes the next. */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "storage/clock.h"
#include "storage/line_trip.h"
#include "storage/topology.h"

#define LINE_TRIP_BATCHES 5
#define LINE_TRIP_ROUNDS 4000 /* per batch: 1-4 ms at 250-1000 ns a round trip */
/* A batch slower than this (the two threads share a CPU after all: each turn waits for
 * a time slice) ends the measurement without a result. */
#define LINE_TRIP_MAX_BATCH_S 0.05
#define STOP UINT64_MAX

struct trip {
    /* the line handed back and forth: ping writes odd values, pong the next even one;
     * STOP ends pong */
    alignas(CACHE_LINE) _Atomic uint64_t turn;
    alignas(CACHE_LINE) int pong_thread;
};

/* relaxed: only the line's movement is measured, and each side's next write depends on
 * the value it loaded (no other data goes with it). Pong answers with a compare-and-swap
 * from the value it waited for, so an answer that comes after ping gave up cannot
 * overwrite STOP (a store could, and pong would then wait for good). */
static void *pong(void *p)
{
    struct trip *tr = p;
    topo_pin_self(tr->pong_thread);
    for (uint64_t i = 1;; i += 2) {
        uint64_t v;
        while ((v = atomic_load_explicit(&tr->turn, memory_order_relaxed)) != i)
            if (v == STOP)
                return NULL;
        if (!atomic_compare_exchange_strong_explicit(&tr->turn, &v, i + 1,
                                                     memory_order_relaxed,
                                                     memory_order_relaxed))
            return NULL; /* only ping's STOP replaces a value pong waited for */
    }
}

struct ping_arg {
    struct trip *tr;
    int thread;
    bool ok;
    double ns[LINE_TRIP_BATCHES];
};

static void *ping(void *p)
{
    struct ping_arg *pa = p;
    struct trip *tr = pa->tr;
    topo_pin_self(pa->thread);
    uint64_t v = 0, max_ticks = (uint64_t)(LINE_TRIP_MAX_BATCH_S * clock_ticks_per_s);
    pa->ok = true;
    for (int b = 0; b < LINE_TRIP_BATCHES && pa->ok; b++) {
        uint64_t t0 = clock_ticks();
        for (int i = 0; i < LINE_TRIP_ROUNDS && pa->ok; i++) {
            atomic_store_explicit(&tr->turn, ++v, memory_order_relaxed);
            ++v;
            /* the clock is read every 1024 polls only, so it costs the round trip nothing
             * where pong answers, and ends the wait where it does not */
            for (unsigned spins = 1;
                 atomic_load_explicit(&tr->turn, memory_order_relaxed) != v; spins++)
                if (spins % 1024 == 0 && clock_ticks() - t0 > max_ticks) {
                    pa->ok = false;
                    break;
                }
            if (i % 64 == 63 && clock_ticks() - t0 > max_ticks)
                pa->ok = false;
        }
        pa->ns[b] = clock_ticks_to_s(clock_ticks() - t0) * 1e9 / LINE_TRIP_ROUNDS;
    }
    atomic_store_explicit(&tr->turn, STOP, memory_order_relaxed);
    return NULL;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double line_trip_ns(int a, int b)
{
    const struct topo_slot *sa = topo_slot_of(a), *sb = topo_slot_of(b);
    if (!sa || !sb || sa->os_cpu == sb->os_cpu)
        return -1;
    struct trip *tr = aligned_alloc(CACHE_LINE, sizeof(*tr));
    if (!tr)
        return -1;
    atomic_init(&tr->turn, 0);
    tr->pong_thread = b;
    struct ping_arg pa = {.tr = tr, .thread = a};
    pthread_t th[2];
    if (pthread_create(&th[0], NULL, pong, tr) != 0) {
        free(tr);
        return -1;
    }
    if (pthread_create(&th[1], NULL, ping, &pa) != 0) {
        atomic_store(&tr->turn, STOP);
        pa.ok = false;
    } else {
        pthread_join(th[1], NULL);
    }
    pthread_join(th[0], NULL);
    free(tr);
    if (!pa.ok)
        return -1;
    qsort(pa.ns, LINE_TRIP_BATCHES, sizeof(pa.ns[0]), cmp_double);
    return pa.ns[LINE_TRIP_BATCHES / 2];
}
