/* The driver (see driver.h).
 *
 * Phases, published through `phase` (release) and read by workers (acquire): WARMUP ->
 * MEASURE -> STOP, stored by the main thread, with PAUSE inside WARMUP, stored by the
 * warm-up's reserving thread while it faults memory in (below; the main thread stores
 * MEASURE only after joining it). A worker resets its stats the first time it sees
 * MEASURE and stops at the first query boundary after STOP; so commits of the measured
 * window are counted, give or take the one transaction each worker has in flight at each
 * edge. The window length is the main thread's time between the two stores.
 *
 * Meanwhile the main thread samples the commits each worker publishes (its struct
 * sampler_feed), for the progress line and the throughput series, and watches for stalls:
 * see benchmarks/sampler.h.
 *
 * Ending: with STOP the main thread also sets wait_stop (storage/wait.h), so every long
 * wait gives up (the attempt aborts with AR_STOPPED) and no query is retried; the main
 * thread then waits for the workers to leave (overrun_s: STOP until the last one left). */
#include "benchmarks/driver.h"
#include "benchmarks/recovery.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/arrivals.h"
#include "benchmarks/deadline.h"
#include "benchmarks/progress.h"
#include "benchmarks/sampler.h"
#include "cc/geo.h"
#include "storage/clock.h"
#include "storage/line_trip.h"
#include "storage/wait.h"
#include "storage/mem.h"
#include "storage/topology.h"

enum phase { PH_GENERATE, PH_WARMUP, PH_PAUSE, PH_MEASURE, PH_STOP };

/* Reserving ahead of the run's inserts (storage/table.h): a thread of the warm-up samples
 * the tables' sizes at its start and at its middle, then reserves what the same rate needs
 * until the window's end, RESERVE_MARGIN times over, within its budget
 * (--reserve-budget-mib, default half the memory left at the warm-up's start,
 * RESERVE_BUDGET_SHARE). That rate is the
 * warm-up's coldest (its inserts fault their memory in), so it samples again,
 * RESERVE_SETTLE_S after the reservation's end, over the rest of the warm-up (at least a
 * quarter of it, at most RESERVE_SAMPLE_MAX_S), and tops the reservation up to what that
 * rate needs over the whole window; RESERVE_TOPUPS times, so the reservation covers the
 * fastest of those samples. The workers pause while it reserves (PH_PAUSE): running, they
 * would insert into what it reserves while it faults it in, and on a machine that faults
 * in slowly leave the window little of it. They run RESERVE_SETTLE_S after the last pause
 * before the window starts, so it starts with warm caches. A run that inserts thus warms
 * up longer than --warmup: by the reservations' time, the settles and the top-ups' samples
 * past its end (a 1 s warm-up: about 0.75 s more, plus the reservations' time); one that
 * inserts nothing, as asked. */
/* 1.25 left the reservation short near the window's end in some partitioned TPC-C runs */
#define RESERVE_MARGIN 1.5
/* How long the insert rate takes to climb back after a pause: faulting gigabytes in
 * evicts the caches. Partitioned TPC-C, 2 WH, 2 threads (none, ncc, mvto; 2026-12-05):
 * over the first 0.25 s after the pause the rate was 0.64-1.15x the window's, and a
 * top-up sampled there left 1,800-27,000 faults in 6 of 12 windows; sampled from 0.25 s
 * on, 0.79-1.41x (20 runs), and at most 207 faults in each of 12 windows. */
#define RESERVE_SETTLE_S 0.25
/* With one top-up, 4 of 60 such windows (2 WH, 2 threads, 12 variants) took 6,500-50,900
 * faults; 3 of those runs had reserved 2.5-3.1 GB, the same variants' runs without
 * faults 3.5-4.8 GB: their sample ran slower than the window. A top-up only adds, so a
 * second sample at the window's pace makes up for a slow first. */
#define RESERVE_TOPUPS 2
/* A top-up's sample past the warm-up's end lasts a quarter of the warm-up, at most this
 * long (the warm-up grows by it). */
#define RESERVE_SAMPLE_MAX_S 0.5
/* How long the reserver waits for every worker to reach a query boundary and pause: one
 * that does not (a long attempt: geo round trips, the storage model; an idle open-loop
 * client sleeping till its next arrival) runs on, and its inserts meanwhile are counted
 * (rows_during), as are a backup coordinator's (--fail-commit-at), which never pauses. */
#define PAUSE_WAIT_S 0.1
/* A paused worker sleeps on the phase word (resume_workers wakes it at once), at most
 * this long per round, each round in which the reserver ran a beat for the watchdog
 * (reserver_clock): as often as an idle open-loop client's (benchmarks/arrivals.c), not
 * 1,000 wake-ups a second per worker while the reserver needs the CPU. */
#define PAUSE_BEAT_NS 20000000L
/* The default budget: this share of the memory the process can still take when the
 * warm-up starts (mem_avail_bytes: after the load, within its cgroup). A quarter of the
 * machine's memory (6 GB of 24 here) left bamboo on TPC-C at 2 warehouses, 2 threads and
 * a 3 s window 417-546 faults of huge pages, 15-20% of the window's CPU in the kernel
 * (its rows were wider then: ORDER-LINE's 192 bytes against 128, before the row header
 * shrank); with 12 GB it reserved
 * 7.4-8.0 GB and took none (2026-12-07). What the run reserves is what its inserts will
 * take, RESERVE_MARGIN times over at most, so a run that the budget binds would take
 * most of it in the window anyway. */
#define RESERVE_BUDGET_SHARE 0.5
struct reserver {
    pthread_t th;
    _Atomic bool done; /* set (release) when it is done; the main thread waits for it */
    int nworkers;
    double warmup_s, duration_s;
    size_t budget;        /* all the reservations together (--reserve-budget-mib) */
    size_t bytes;
    double seconds;       /* reserving, the sampling in between excluded */
    uint64_t rows_during; /* rows the workers inserted while it reserved (the pauses') */
    bool paused;          /* it paused the workers at least once */
    bool capped;          /* the budget cut a reservation short, or was spent before the
                           * top-ups (reserver_main, at its end) */
};

static _Atomic int phase;
/* The reserver's CPU clock (pthread_getcpuclockid): a paused worker's round counts as the
 * watchdog's progress only if the reserver ran since the round before (worker_pause), so
 * a reserver blocked for good with the workers paused is a stall, not a run kept alive by
 * their beats. Its limits: a reserver that sleeps in the kernel without CPU for
 * --stall-timeout (reclaim, swap, a cgroup's memory.high throttling) is called stalled,
 * and one that spins for good is caught by --run-timeout only. Set by the reserver before
 * its first pause (the monotonic clock if its CPU clock cannot be had: every round counts,
 * as before 2026-12-08); published to the workers by pause_workers' release store of
 * PH_PAUSE. */
static clockid_t reserver_clock;
/* Workers waiting in PH_PAUSE: a worker adds itself with release, after its last
 * insert, and the reserver polls with acquire, so its count of rows inserted while
 * reserving starts after every paused worker's inserts. */
static atomic_int npaused;

static void sleep_s(double s)
{
    if (s > 0)
        nanosleep(&(struct timespec){(time_t)s, (long)((s - (double)(time_t)s) * 1e9)}, NULL);
}

/* The reserver's pause of the workers (PH_WARMUP -> PH_PAUSE -> PH_WARMUP; the main
 * thread stores no phase until it joined the reserver). Release stores: pair with the
 * workers' acquire loads of the phase. */
static void pause_workers(int n)
{
    atomic_store_explicit(&phase, PH_PAUSE, memory_order_release);
    double until = clock_now_s() + PAUSE_WAIT_S;
    while (atomic_load_explicit(&npaused, memory_order_acquire) < n && clock_now_s() < until)
        sleep_s(100e-6);
}

static void resume_workers(void)
{
    atomic_store_explicit(&phase, PH_WARMUP, memory_order_release);
    wait_word_wake(&phase); /* the paused workers' sleeps (worker_pause) */
}

/* Keys in every table's primary index, for counting the inserts committed while
 * reserving (its rows count the chunks the reservation allocates too). */
static uint64_t catalog_keys(struct catalog_sizes *s)
{
    catalog_sizes(s);
    uint64_t n = 0;
    for (int i = 0; i < s->ntables; i++)
        n += s->keys[i];
    return n;
}

/* Whether any table grew from a to b (else there is nothing to reserve). */
static bool catalog_grew(const struct catalog_sizes *a, const struct catalog_sizes *b)
{
    for (int i = 0; i < b->ntables; i++)
        if (i >= a->ntables || b->rows[i] != a->rows[i] || b->keys[i] != a->keys[i])
            return true;
    return false;
}

/* Reserves for growth from a to b, `factor` times over, with the workers paused (not
 * paused when nothing grew: YCSB, geo runs), within what is left of the budget
 * (rv->budget) after the reservations before (rv->bytes); c is scratch. */
static size_t reserve_paused(struct reserver *rv, const struct catalog_sizes *a,
                             const struct catalog_sizes *b, double factor, struct catalog_sizes *c)
{
    if (!catalog_grew(a, b))
        return 0;
    if (rv->bytes >= rv->budget) { /* spent, or none at all (a full cgroup): short */
        rv->capped = true;
        return 0;
    }
    rv->paused = true;
    pause_workers(rv->nworkers);
    deadline_phase("reserve");
    uint64_t keys = catalog_keys(c);
    bool cut = false;
    size_t bytes = catalog_reserve_ahead(a, b, factor, rv->budget - rv->bytes, &cut);
    rv->capped |= cut;
    rv->rows_during += catalog_keys(c) - keys;
    resume_workers();
    deadline_phase("sample");
    return bytes;
}

static void *reserver_main(void *arg)
{
    struct reserver *rv = arg;
    deadline_enter("reserver", -1);
    deadline_phase("sample");
    if (pthread_getcpuclockid(pthread_self(), &reserver_clock) != 0)
        reserver_clock = CLOCK_MONOTONIC;
    struct catalog_sizes *a = mem_alloc(sizeof(*a)), *b = mem_alloc(sizeof(*b));
    struct catalog_sizes *c = mem_alloc(sizeof(*c));
    catalog_sizes(a);
    double t0 = clock_now_s(), end = t0 + rv->warmup_s;
    sleep_s(rv->warmup_s / 2);
    catalog_sizes(b);
    double t1 = clock_now_s();
    rv->bytes += reserve_paused(rv, a, b, RESERVE_MARGIN * (end + rv->duration_s - t1) / (t1 - t0), c);
    rv->seconds = clock_now_s() - t1;
    /* a sample lasts the rest of the warm-up, at least a quarter of it, up to
     * RESERVE_SAMPLE_MAX_S past its end */
    double least = rv->warmup_s / 4 < RESERVE_SAMPLE_MAX_S ? rv->warmup_s / 4 : RESERVE_SAMPLE_MAX_S;
    /* (nothing grew, nothing paused: YCSB needs no second round; nor does a spent budget) */
    for (int round = 0; round < RESERVE_TOPUPS &&
                        (round == 0 || (rv->paused && rv->bytes < rv->budget));
         round++) {
        if (rv->paused)
            sleep_s(RESERVE_SETTLE_S);
        catalog_sizes(a);
        double t2 = clock_now_s();
        sleep_s(end - t2 > least ? end - t2 : least);
        catalog_sizes(b);
        double t3 = clock_now_s();
        rv->bytes += reserve_paused(rv, a, b, RESERVE_MARGIN * rv->duration_s / (t3 - t2), c);
        rv->seconds += clock_now_s() - t3;
    }
    /* a budget spent to the byte by a reservation that was not cut skipped the top-ups:
     * short of what the run needs as well */
    if (rv->paused && rv->bytes >= rv->budget)
        rv->capped = true;
    if (rv->paused)
        sleep_s(RESERVE_SETTLE_S);
    mem_free(a);
    mem_free(b);
    mem_free(c);
    deadline_leave();
    atomic_store_explicit(&rv->done, true, memory_order_release);
    return NULL;
}

/* Whether the reserver used CPU since *last (its clock's value then; updated): true too
 * if its clock cannot be read (a worker that slept past the resume, the reserver gone),
 * which only makes a late round count. */
static bool reserver_ran(struct timespec *last)
{
    struct timespec ts;
    if (clock_gettime(reserver_clock, &ts) != 0)
        return true;
    bool ran = ts.tv_sec != last->tv_sec || ts.tv_nsec != last->tv_nsec;
    *last = ts;
    return ran;
}

/* A worker at a query boundary (holding nothing) while the reserver has the workers
 * paused: sleeps on the phase word until it resumes them, counting its sleeps (rounds of
 * at most PAUSE_BEAT_NS) in which the reserver ran as the watchdog's progress (as an idle
 * open-loop client's, sampler.h): a pause lasts as long as the reservation, which may be
 * longer than --stall-timeout, but a reserver that no longer runs leaves the workers
 * paused for good. */
static void worker_pause(struct sampler_feed *f)
{
    wait_note(WAIT_PAUSED, NULL, -1);
    deadline_phase("paused");
    atomic_fetch_add_explicit(&npaused, 1, memory_order_release); /* see npaused */
    struct timespec seen = {0, 0};
    reserver_ran(&seen);
    /* acquire: pairs with resume_workers' release store, and with pause_workers' (the
     * reserver's clock) */
    while (atomic_load_explicit(&phase, memory_order_acquire) == PH_PAUSE) {
        wait_word_sleep(&phase, PH_PAUSE, PAUSE_BEAT_NS);
        if (!reserver_ran(&seen))
            continue;
        /* relaxed: a count the main thread reads, written by this worker only */
        atomic_store_explicit(&f->idle_beats,
                              atomic_load_explicit(&f->idle_beats, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    atomic_fetch_sub_explicit(&npaused, 1, memory_order_relaxed);
    wait_end();
    deadline_phase("run");
}

struct worker {
    int id;
    bool oversub; /* more threads than CPUs: back-off yields instead of spinning */
    const struct workload *w;
    const struct options *o;
    pthread_t th;
    struct txn_stats st;
    struct type_result types[MAX_TXN_TYPES];
    struct hist_log *hist;
    uint64_t shw[SHW_NKINDS]; /* shared writes of the measured window */
    struct arrivals_result arr; /* open loop (--rate): the measured window's arrivals */
    struct net_stats net;       /* network model: the measured window's */
    struct sm_stats sm;         /* storage model: the measured window's */
    /* client failure (recovery.h): the counters of the contexts this client left to the
     * backup coordinator, for the measured window */
    struct txn_stats st_prev;
    struct net_stats net_prev;
    struct sm_stats sm_prev;
    bool failed; /* this client has failed (once per run) */
    double gen_s;
    struct sampler_feed feed; /* what the main thread samples (sampler.h) */
};

static atomic_int ready;
/* clock_ticks() when the measured window started and ended: stored (relaxed) before the
 * release store of PH_MEASURE / PH_STOP that publishes them */
static _Atomic uint64_t window_start, window_end;
/* --fail-commit-at as a tick (0: no failure): stored before the release store of
 * PH_WARMUP, which publishes it */
static uint64_t fail_at;

/* Whether an arrival at tick t, reached (or abandoned at STOP), lies in the measured
 * window. Relaxed loads: each bound is stored before the phase store that publishes it; an
 * arrival is counted once its time has passed (then a window that started before it has
 * been published, but for the few instructions between the main thread's clock read and
 * its store) or at STOP (both published). 0: not published yet. */
static uint64_t count_due(uint64_t t)
{
    uint64_t ws = atomic_load_explicit(&window_start, memory_order_relaxed);
    uint64_t we = atomic_load_explicit(&window_end, memory_order_relaxed);
    return ws && t >= ws && (!we || t < we);
}

static bool stopped(void)
{
    /* acquire: pairs with the main thread's release store of the phase */
    return atomic_load_explicit(&phase, memory_order_acquire) == PH_STOP;
}

static void backoff(struct rng *r, unsigned retries, double max_us, bool yield)
{
    if (max_us <= 0)
        return;
    double cap = retries < 20 ? (double)(1u << retries) : max_us;
    if (cap > max_us)
        cap = max_us;
    uint64_t until = clock_ticks() + (uint64_t)(rng_double(r) * cap * 1e-6 * clock_ticks_per_s);
    while (clock_ticks() < until && !wait_stopped()) {
        if (yield)
            sched_yield();
        else
            cpu_relax();
    }
}

/* The client fails (recovery.h): its attempt t of query q, about to be decided, goes to
 * the backup coordinator; the client goes on with a fresh context. */
static __attribute__((noinline)) void fail_client(struct worker *wk, struct txn **tp,
                                                  const void *q)
{
    struct txn *old = *tp, *t = txn_fork(old);
    cc_thread_init(t);
    txn_stats_add(&wk->st_prev, txn_stats(old));
    net_stats_merge(&wk->net_prev, txn_net_stats(old));
    sm_stats_merge(&wk->sm_prev, txn_sm_stats(old));
    wk->failed = true;
    recovery_submit(old, q, wk->w->query_size(wk->o));
    *tp = t;
}

/* Runs one query to commit (or to the workload's own rollback), retrying after aborts;
 * false if the run stopped first. Its latency runs from tick `start` (its arrival).
 * Kept out of line so profilers can count exactly the transaction work:
 * valgrind --tool=callgrind --toggle-collect=driver_run_query ... */
__attribute__((noinline)) bool driver_run_query(struct worker *wk, struct txn **tp, const void *q,
                                                 struct rng *brng, uint64_t start)
{
    const struct workload *w = wk->w;
    struct txn *t = *tp;
    int type = w->query_type(q);
    for (unsigned retries = 0;; retries++) {
        txn_begin(t, retries > 0);
        enum rc rc = w->run(t, q);
        if (rc == RC_OK && fail_at && !wk->failed && clock_ticks() >= fail_at) {
            fail_client(wk, tp, q); /* the query's outcome is the backup coordinator's */
            return true;
        }
        if (rc == RC_OK)
            rc = txn_commit(t);
        if (rc == RC_OK)
            break;
        txn_abort(t);
        wk->types[type].aborts++;
        /* relaxed: see struct sampler_feed; this thread is the only writer */
        atomic_store_explicit(&wk->feed.aborted,
                              atomic_load_explicit(&wk->feed.aborted, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (txn_abort_reason(t) == AR_USER) { /* a rollback is the query's outcome */
            wk->types[type].rollbacks++;
            uint64_t decided = txn_decided_at(t); /* network model: the client knew then */
            uint64_t end = decided ? decided : clock_ticks();
            latency_add(&wk->types[type].lat, end > start ? end - start : 0);
            return true;
        }
        uint64_t b0 = STATS_TICKS();
        wait_note(WAIT_BACKOFF, NULL, -1);
        backoff(brng, retries, wk->o->backoff_max_us, wk->oversub); /* ends early at STOP */
        wait_end();
        txn_add_backoff(t, STATS_TICKS() - b0);
        if (stopped()) /* no retry after the window */
            return false;
    }
    uint64_t decided = txn_decided_at(t); /* network model: the client knew then */
    uint64_t end = decided ? decided : clock_ticks();
    wk->types[type].commits++;
    if (w->committed)
        w->committed(t, q);
    /* relaxed: see struct sampler_feed; a plain load, this thread is the only writer */
    atomic_store_explicit(&wk->feed.committed,
                          atomic_load_explicit(&wk->feed.committed, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    latency_add(&wk->types[type].lat, end > start ? end - start : 0);
    return true;
}

static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    const struct options *o = wk->o;
    const struct workload *w = wk->w;
    topo_pin_self(wk->id); /* before anything it allocates is touched */
    mem_thread_init();
    wait_register(wk->id, &wk->feed.wait);
    deadline_enter("worker", wk->id);
    deadline_phase("generate");
    /* waiters sleep in short slices (storage/wait.h): keep the kernel's timer slack small */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    if (sm_on) /* the storage model's sleeps are shorter still */
        sm_thread_init();
    struct txn *t = txn_create(wk->id, o->verify);
    cc_thread_init(t);

    /* queries, generated by the worker itself so they sit in its local memory */
    double g0 = clock_now_s();
    struct rng rng;
    rng_seed(&rng, o->seed, (uint64_t)wk->id);
    size_t qsize = (w->query_size(o) + 15) & ~(size_t)15;
    uint64_t nq = o->queries_per_thread;
    unsigned char *queries = mem_alloc(qsize * nq);
    for (uint64_t i = 0; i < nq; i++) {
        w->gen_query(queries + i * qsize, &rng, wk->id, o);
        if (i % PROGRESS_BATCH == PROGRESS_BATCH - 1)
            progress_add(PROGRESS_BATCH);
    }
    progress_add(nq % PROGRESS_BATCH);
    wk->gen_s = clock_now_s() - g0;
    struct rng brng, arng;
    rng_seed(&brng, o->seed ^ 0xBAC0FFull, (uint64_t)wk->id);
    rng_seed(&arng, o->seed ^ 0xA771AEull, (uint64_t)wk->id);
    bool open = o->rate > 0; /* open loop: arrivals.h */
    struct arrivals ar;
    uint64_t due = 0; /* arrivals in the measured window, counted once each (count_due) */

    atomic_fetch_add(&ready, 1);
    deadline_phase("ready");
    /* acquire (in wait_word): pairs with the main thread's release store of PH_WARMUP.
     * Not a loop of WAIT_BLIND rounds: 64 threads on 2 CPUs waking every 20 us starved
     * the workers still generating their queries; 7 of 649 such bank runs (two at once)
     * stalled past the 10 s watchdog, none of 636 since. */
    wait_word(&phase, PH_GENERATE);

    bool measuring = false;
    deadline_phase("run");
    if (open)
        arrivals_init(&ar, o->rate / o->threads, clock_ticks(), &arng);
    for (uint64_t qi = 0;; qi = qi + 1 == nq ? 0 : qi + 1) {
        /* open loop: the next arrival, waited for if the client is idle, before the phase
         * is looked at, so the transaction counts in the phase it starts in */
        uint64_t arr = 0, now = 0;
        bool queued = false;
        if (open) {
            arr = arrivals_take(&ar, &arng);
            now = clock_ticks();
            queued = now > arr; /* the client was busy when it arrived */
            if (!queued && !arrivals_wait(arr, wk->oversub, stopped, &wk->feed.idle_beats)) {
                due += count_due(arr); /* stopped before it arrived: maybe after the window */
                break;
            }
            due += count_due(arr);
        }
        /* acquire: pairs with the main thread's release store of the phase */
        int ph = atomic_load_explicit(&phase, memory_order_acquire);
        if (ph == PH_STOP)
            break;
        if (ph == PH_PAUSE) { /* the warm-up's reservation: this arrival is dropped */
            worker_pause(&wk->feed);
            if (open) /* a new schedule from now: no backlog of the pause's arrivals */
                arrivals_init(&ar, o->rate / o->threads, clock_ticks(), &arng);
            continue;
        }
        if (ph == PH_MEASURE && !measuring) {
            measuring = true;
            txn_stats_reset(t);
            memset(&wk->st_prev, 0, sizeof(wk->st_prev));
            memset(&wk->net_prev, 0, sizeof(wk->net_prev));
            memset(&wk->sm_prev, 0, sizeof(wk->sm_prev));
            memset(wk->types, 0, sizeof(wk->types));
            shw_take(wk->shw); /* drops the warm-up's */
            memset(&wk->arr, 0, sizeof(wk->arr));
        }
        const void *q = queries + qi * qsize;
        uint64_t start = arr;
        if (open) {
            uint64_t begin = queued ? now : clock_ticks();
            if (measuring) {
                wk->arr.started++;
                wk->arr.queued += queued;
                latency_add(queued ? &wk->arr.queue_wait : &wk->arr.lateness, begin - arr);
            }
        } else {
            start = clock_ticks();
        }
        if (!driver_run_query(wk, &t, q, &brng, start))
            break;
    }
    if (open) { /* the window's arrivals its client did not take (every exit is after STOP) */
        /* relaxed: published by the PH_STOP store this thread acquired before leaving */
        due += arrivals_count(&ar, &arng, atomic_load_explicit(&window_start, memory_order_relaxed),
                              atomic_load_explicit(&window_end, memory_order_relaxed));
        wk->arr.due = due;
    }
    wait_note(WAIT_EXITED, NULL, -1);
    /* release: the main thread joins after seeing it (acquire); it reads the worker's
     * results only after the join */
    atomic_store_explicit(&wk->feed.exited, true, memory_order_release);
    deadline_phase("exit"); /* the main thread's stall watchdog no longer waits for it */
    shw_take(wk->shw);
    wk->st = wk->st_prev;
    txn_stats_add(&wk->st, txn_stats(t));
    wk->net = wk->net_prev;
    net_stats_merge(&wk->net, txn_net_stats(t));
    wk->sm = wk->sm_prev;
    sm_stats_merge(&wk->sm, txn_sm_stats(t));
    wk->hist = txn_take_history(t);
    cc_thread_fini(t);
    txn_destroy(t);
    mem_free(queries);
    deadline_leave();
    return NULL;
}

void run_result_free(struct run_result *res)
{
    mem_free(res->series.t_s);
    mem_free(res->series.commits_per_s);
    mem_free(res->series.rss_mib);
    mem_free(res->series.sys_share);
    mem_free(res->series.minor_faults);
    mem_free(res->series.cpu_busy);
    res->series.t_s = res->series.commits_per_s = res->series.rss_mib = NULL;
    res->series.sys_share = res->series.cpu_busy = NULL;
    res->series.minor_faults = NULL;
    res->series.n = res->series.cap = 0;
}

/* Optional in an algorithm (cc.h): a weak reference, NULL where it does not define it. */
extern const bool cc_alg_ts_on_storage __attribute__((weak));

/* The storage model's settings from the flags (options_parse checked them); after the
 * load, as the default cache size counts the rows loaded. */
static bool storage_configure(const struct options *o, char *err, unsigned errlen)
{
    struct sm_config c = {.preset = "custom", .cache_rows = o->cache_rows,
                          .ts_on_storage = &cc_alg_ts_on_storage && cc_alg_ts_on_storage};
    if (*o->storage) {
        c.preset = o->storage;
        sm_preset(o->storage, &c.read_us, &c.write_us);
    } else {
        c.read_us = c.write_us = o->storage_latency_us;
    }
    if (o->storage_write_latency_us > 0)
        c.write_us = o->storage_write_latency_us;
    return sm_configure(&c, err, errlen);
}

void driver_run(const struct workload *w, const struct options *o, struct run_result *res)
{
    int n = o->threads;
    int ncpus = topo_ncpus();
    memset(res, 0, sizeof(*res));
    res->ncpus = ncpus;
    res->oversubscribed = n > ncpus;
    if (res->oversubscribed) {
        progress_clear();
        fprintf(stderr, "warning: %d threads on %d CPUs: threads share cores\n", n, ncpus);
    }
    struct worker *wk = mem_alloc_aligned(CACHE_LINE, (size_t)n * sizeof(*wk));
    memset(wk, 0, (size_t)n * sizeof(*wk));
    const struct sampler_feed **feeds = mem_alloc((size_t)n * sizeof(*feeds));
    for (int i = 0; i < n; i++)
        feeds[i] = &wk[i].feed;
    atomic_store(&phase, PH_GENERATE);
    atomic_store(&window_start, 0);
    atomic_store(&window_end, 0);
    atomic_store(&wait_stop, false);
    wait_set_parking(res->oversubscribed); /* storage/wait.h: spin or park */
    struct net_config nc = {o->net_rtt_us, o->net_jitter_us, o->net_msg_cpu_us, o->servers,
                            w->server_of};
    char err[160];
    txn_rmw_at_server = w->rmw_at_server;
    if (!net_configure(&nc, err, sizeof(err))) {
        fprintf(stderr, "rundb: %s\n", err);
        exit(2);
    }
    if (!storage_configure(o, err, sizeof(err))) {
        fprintf(stderr, "rundb: %s\n", err);
        exit(2);
    }
    atomic_store(&ready, 0);
    res->line_trip_ns[0] = n > 1 ? line_trip_ns(0, 1) : -1;
    struct cpu_usage cu[CPU_NPHASES + 1]; /* at each phase's start, and the window's end */
    cpu_usage_now(&cu[CPU_GENERATE]);
    deadline_phase("generate");
    progress_phase("generate", "queries", (uint64_t)n * o->queries_per_thread);
    for (int i = 0; i < n; i++) {
        wk[i].id = i;
        wk[i].oversub = res->oversubscribed;
        wk[i].w = w;
        wk[i].o = o;
        if (pthread_create(&wk[i].th, NULL, worker_main, &wk[i]) != 0) {
            fprintf(stderr, "cannot create worker thread %d\n", i);
            exit(1);
        }
    }
    while (atomic_load(&ready) < n) {
        progress_tick();
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* polls every millisecond */
    }
    res->series.interval_s = o->series_interval_s;
    if (o->fail_commit_at_s > 0)
        recovery_start(o->recovery_timeout_ms, o->verify, w);
    fail_at = o->fail_commit_at_s > 0
                  ? clock_ticks() + (uint64_t)(o->fail_commit_at_s * clock_ticks_per_s)
                  : 0;
    if (geo_on)
        geo_window_set(0);
    cpu_usage_now(&cu[CPU_WARMUP]);
    size_t budget = o->reserve_budget_mib
                        ? (size_t)o->reserve_budget_mib << 20
                        : (size_t)(RESERVE_BUDGET_SHARE * (double)mem_avail_bytes());
    struct reserver rv = {.nworkers = n, .warmup_s = o->warmup_s, .duration_s = o->duration_s,
                          .budget = budget};
    bool reserving = o->reserve_ahead && o->warmup_s > 0;
    /* release: workers start after seeing the phase change (acquire) */
    atomic_store_explicit(&phase, PH_WARMUP, memory_order_release);
    wait_word_wake(&phase); /* the workers in the start barrier */
    /* after that store: the reserver's pauses change the phase from PH_WARMUP */
    if (reserving && pthread_create(&rv.th, NULL, reserver_main, &rv) != 0) {
        fprintf(stderr, "cannot create the reserving thread\n");
        exit(1);
    }
    deadline_phase("warmup");
    struct sampler sm;
    sampler_start(&sm, feeds, n, &res->series, o->stall_timeout_s);
    if (o->warmup_s > 0)
        sampler_timed_phase(&sm, "warmup", sm.t0, o->warmup_s);
    if (reserving) {
        /* its top-ups sample past the warm-up's end: the watchdog looks on meanwhile */
        sampler_wait_flag(&sm, &rv.done);
        pthread_join(rv.th, NULL);
        res->reserved_bytes = rv.bytes;
        res->reserve_s = rv.seconds;
        res->reserve_rows_during = rv.rows_during;
        res->reserve_capped = rv.capped;
    }
    res->reserve_budget = rv.budget;
    atomic_store_explicit(&window_start, clock_ticks(), memory_order_relaxed);
    if (geo_on)
        geo_window_set(1);
    atomic_store_explicit(&phase, PH_MEASURE, memory_order_release);
    deadline_phase("measure");
    double t0 = clock_now_s();
    if (o->warmup_s > 0)
        sampler_sample(&sm, t0);
    /* the window's CPU counters start (and end, below) with its series intervals: the
     * sampler's getrusage samples, so those intervals add up to them */
    cu[CPU_WINDOW] = sm.last_cpu;
    res->series.measure_start_s = t0 - sm.t0;
    sampler_timed_phase(&sm, "measure", t0, o->duration_s);
    atomic_store_explicit(&window_end, clock_ticks(), memory_order_relaxed);
    if (geo_on)
        geo_window_set(2);
    atomic_store_explicit(&phase, PH_STOP, memory_order_release);
    /* release: pairs with wait_stopped's acquire load (storage/wait.h): a waiter that
     * gives up then sees PH_STOP too */
    atomic_store_explicit(&wait_stop, true, memory_order_release);
    double t1 = clock_now_s();
    res->window_s = t1 - t0;
    sampler_sample(&sm, t1);
    cu[CPU_NPHASES] = sm.last_cpu;
    for (int k = 0; k < CPU_NPHASES; k++)
        res->cpu[k] = cpu_usage_sub(&cu[k + 1], &cu[k]);
    progress_timed(true, "measure", res->window_s, o->duration_s, sampler_commits(&sm));
    deadline_phase("exit-wait");
    sampler_wait_exits(&sm);
    res->overrun_s = clock_now_s() - t1;
    deadline_phase("join");
    for (int i = 0; i < n; i++) {
        pthread_join(wk[i].th, NULL);
        wait_unregister(i);
    }
    deadline_phase("recovery");
    recovery_stop(&res->recovery); /* finishes what is still pending */
    res->line_trip_ns[1] = n > 1 ? line_trip_ns(0, 1) : -1;
    wait_set_parking(false);
    if (o->verify)
        res->hist = mem_zalloc((size_t)n * sizeof(*res->hist));
    for (int i = 0; i < n; i++) {
        txn_stats_add(&res->total, &wk[i].st);
        for (int k = 0; k < SHW_NKINDS; k++)
            res->shared_writes[k] += wk[i].shw[k];
        for (int k = 0; k < w->ntypes; k++) {
            res->types[k].commits += wk[i].types[k].commits;
            res->types[k].aborts += wk[i].types[k].aborts;
            res->types[k].rollbacks += wk[i].types[k].rollbacks;
            latency_merge(&res->types[k].lat, &wk[i].types[k].lat);
        }
        arrivals_merge(&res->arrivals, &wk[i].arr);
        net_stats_merge(&res->net, &wk[i].net);
        sm_stats_merge(&res->sm, &wk[i].sm);
        if (wk[i].gen_s > res->gen_s)
            res->gen_s = wk[i].gen_s;
        if (o->verify)
            res->hist[i] = wk[i].hist;
    }
    mem_free(feeds);
    mem_free(wk);
}
