/* The geo layer's emulated network (cc/geo_internal.h): delays from the deployment, one
 * global queue of messages ordered by delivery deadline, GEO_EXECUTORS executor threads
 * that run each message's handler at its deadline, and the co-coordinators' service
 * queues.
 *
 * Queue invariant: heap[0..n) is a binary min-heap on `at`; `running` counts handlers
 * taken off the heap and not yet returned. Both are guarded by q_mu; an executor sleeps
 * on q_cv until the earliest deadline (or a push of an earlier one, which signals). A
 * drain (geo_net_drain_stop) ends once n == 0 and running == 0: a running handler may
 * push more, so both must be zero together, under q_mu.
 *
 * Lateness: how far past its deadline each handler started, per executor; a run whose
 * p99 exceeds 1% of the smallest inter-datacenter delay is marked invalid in the report.
 */
#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc/geo_internal.h"
#include "storage/mem.h"
#include "storage/rand.h"

bool geo_on;
struct geo_config geo_cfg;
struct geo_exec_stats geo_exec_st[GEO_EXECUTORS];

/* the executor's nice value (the clients keep 0) */
#define GEO_EXECUTOR_NICE (-10)
/* how early an executor wakes before a deadline, to yield the rest of the way */
#define GEO_SPIN_NS 150000ull

static pthread_mutex_t q_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cv;
static struct geo_ev *heap;
static size_t q_n, q_cap, q_running;
/* heap[0].at (UINT64_MAX when empty), written under q_mu, read by a yielding executor
 * without it (relaxed: a stale value only ends its yielding a round early or late) */
static _Atomic uint64_t q_top = UINT64_MAX;
static bool q_stop;
static pthread_t executors[GEO_EXECUTORS];
static bool started;

/* co-coordinator service queues: the time each (dc, group) node is busy until (ns) */
static _Atomic uint64_t busy_until[GEO_MAX_DCS][GEO_MAX_GROUPS];

uint64_t geo_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double geo_delay_ms(int a, int b)
{
    const struct geo_deploy *d = &geo_cfg.d;
    double ms = a == b ? d->intra_ms : d->one_way_ms[a][b];
    return ms / geo_cfg.time_scale;
}

uint64_t geo_delay_ns(int a, int b, uint64_t *seed)
{
    double ms = geo_delay_ms(a, b);
    if (geo_cfg.d.jitter_ms > 0) {
        /* splitmix step: a per-attempt stream, so runs with one seed draw the same */
        uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        ms += geo_cfg.d.jitter_ms / geo_cfg.time_scale * (double)(z >> 11) * 0x1.0p-53;
    }
    return (uint64_t)(ms * 1e6);
}

static void heap_push(const struct geo_ev *ev)
{
    if (q_n == q_cap) {
        q_cap = q_cap ? 2 * q_cap : 4096;
        heap = realloc(heap, q_cap * sizeof(*heap));
        if (!heap) {
            fprintf(stderr, "geo: out of memory for the message queue\n");
            exit(1);
        }
    }
    size_t i = q_n++;
    while (i > 0 && heap[(i - 1) / 2].at > ev->at) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = *ev;
    atomic_store_explicit(&q_top, heap[0].at, memory_order_relaxed);
}

static struct geo_ev heap_pop(void)
{
    struct geo_ev top = heap[0], last = heap[--q_n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q_n)
            break;
        if (c + 1 < q_n && heap[c + 1].at < heap[c].at)
            c++;
        if (heap[c].at >= last.at)
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (q_n)
        heap[i] = last;
    atomic_store_explicit(&q_top, q_n ? heap[0].at : UINT64_MAX, memory_order_relaxed);
    return top;
}

static void queue_push(const struct geo_ev *ev)
{
    pthread_mutex_lock(&q_mu);
    heap_push(ev);
    /* a new earliest deadline: an executor sleeping towards a later one re-arms */
    if (heap[0].at == ev->at)
        pthread_cond_signal(&q_cv);
    pthread_mutex_unlock(&q_mu);
}

void geo_send(struct geo_ev ev, uint64_t now_ns, int from, int to, bool internal)
{
    ev.at = now_ns + (internal ? 0 : geo_delay_ns(from, to, &ev.att->seed));
    ev.sent = now_ns;
    ev.served = 0;
    /* relaxed: the reference only has to be counted before the event can run; the queue's
     * mutex orders the push before any pop */
    atomic_fetch_add_explicit(&ev.att->refs, 1, memory_order_relaxed);
    if (!internal)
        ev.att->msgs++;
    queue_push(&ev);
}

void geo_send_timer(struct geo_ev ev, uint64_t at)
{
    ev.at = ev.sent = at;
    ev.served = 0;
    queue_push(&ev);
}

void geo_requeue(const struct geo_ev *ev, uint64_t at)
{
    struct geo_ev e = *ev;
    e.at = at;
    e.served = 1;
    atomic_fetch_add_explicit(&e.att->refs, 1, memory_order_relaxed);
    queue_push(&e);
}

uint64_t geo_serve(int dc, int group, uint64_t at)
{
    if (geo_cfg.service_us <= 0)
        return at;
    uint64_t svc = (uint64_t)(geo_cfg.service_us * 1e3 / geo_cfg.time_scale);
    _Atomic uint64_t *b = &busy_until[dc][group];
    /* relaxed: the word is the node's FIFO by itself (each message takes the next slot) */
    uint64_t cur = atomic_load_explicit(b, memory_order_relaxed), done;
    do
        done = (cur > at ? cur : at) + svc;
    while (!atomic_compare_exchange_weak_explicit(b, &cur, done, memory_order_relaxed,
                                                  memory_order_relaxed));
    return done;
}

static void sleep_until_locked(uint64_t at)
{
    struct timespec ts = {(time_t)(at / 1000000000ull), (long)(at % 1000000000ull)};
    pthread_cond_timedwait(&q_cv, &q_mu, &ts);
}

struct exec_arg {
    int i;
};
static struct exec_arg exec_args[GEO_EXECUTORS];

static void *executor_main(void *arg)
{
    int me = ((struct exec_arg *)arg)->i;
    /* timed waits end when asked, not up to 50 us later (the default timer slack) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    prctl(PR_SET_NAME, "geo-net", 0, 0, 0);
    /* the network runs ahead of the clients it wakes: a higher CFS weight (needs
     * CAP_SYS_NICE; without it the executor keeps the default, and its lateness shows) */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), GEO_EXECUTOR_NICE);
    pthread_mutex_lock(&q_mu);
    for (;;) {
        if (q_n == 0) {
            if (q_stop && q_running == 0)
                break;
            pthread_cond_wait(&q_cv, &q_mu);
            continue;
        }
        uint64_t now = geo_now_ns(), at = heap[0].at;
        if (at > now + GEO_SPIN_NS) {
            /* a timed wait wakes tens of microseconds late: wake GEO_SPIN_NS early */
            sleep_until_locked(at - GEO_SPIN_NS);
            continue;
        }
        if (at > now) {
            /* the last stretch: yield until the earliest deadline (a message pushed
             * meanwhile may be earlier), the queue unlocked */
            pthread_mutex_unlock(&q_mu);
            for (;;) {
                uint64_t top = atomic_load_explicit(&q_top, memory_order_relaxed);
                if (top == UINT64_MAX || geo_now_ns() >= top)
                    break; /* emptied by another executor, or due */
                sched_yield();
            }
            pthread_mutex_lock(&q_mu);
            continue;
        }
        struct geo_ev ev = heap_pop();
        q_running++;
        pthread_mutex_unlock(&q_mu);
        struct geo_exec_stats *st = geo_exec_rec(me);
        if (st)
            latency_add(&st->lateness, now - ev.at);
        geo_handle(&ev, me);
        pthread_mutex_lock(&q_mu);
        q_running--;
        if (q_stop && q_n == 0 && q_running == 0)
            pthread_cond_broadcast(&q_cv);
    }
    pthread_mutex_unlock(&q_mu);
    return NULL;
}

void geo_net_start(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q_cv, &ca);
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < GEO_EXECUTORS; i++) {
        exec_args[i].i = i;
        if (pthread_create(&executors[i], NULL, executor_main, &exec_args[i]) != 0) {
            fprintf(stderr, "geo: cannot start an executor thread\n");
            exit(1);
        }
    }
    started = true;
}

void geo_net_drain_stop(void)
{
    if (!started)
        return;
    pthread_mutex_lock(&q_mu);
    q_stop = true;
    pthread_cond_broadcast(&q_cv);
    pthread_mutex_unlock(&q_mu);
    for (int i = 0; i < GEO_EXECUTORS; i++)
        pthread_join(executors[i], NULL);
    started = false;
    free(heap);
    heap = NULL;
    q_n = q_cap = 0;
}
