/* The backup coordinator of client-failure runs (see recovery.h). */
#include "benchmarks/recovery.h"

#include "benchmarks/deadline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/workload.h"
#include "cc/cc.h"
#include "storage/clock.h"
#include "storage/mem.h"

struct pending {
    struct txn *t;
    void *q; /* a copy of its query: the client's query array may be gone by the decision */
    uint64_t handed, deadline; /* ticks */
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool running, stop, verify;
    const struct workload *w;
    uint64_t timeout_ticks;
    struct pending *q; /* FIFO: deadlines grow with hand-off times */
    size_t head, n, cap;
    struct recovery_result res;
} rc_ = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* Finishes one abandoned attempt (outside the mutex). */
static void finish(const struct pending *p, bool at_stop)
{
    enum rc rc = txn_commit(p->t);
    if (rc != RC_OK)
        txn_abort(p->t);
    else if (rc_.w->committed) /* judged as the client would have (its note is in p->t) */
        rc_.w->committed(p->t, p->q);
    uint64_t now = clock_ticks();
    pthread_mutex_lock(&rc_.mu);
    if (rc == RC_OK)
        rc_.res.committed++;
    else
        rc_.res.aborted++;
    rc_.res.at_stop += at_stop;
    latency_add(&rc_.res.delay, now - p->handed);
    if (rc_.verify) {
        struct hist_log **h = realloc(rc_.res.hist, (size_t)(rc_.res.nhist + 1) * sizeof(*h));
        if (!h)
            abort();
        rc_.res.hist = h;
        h[rc_.res.nhist++] = txn_take_history(p->t);
    }
    pthread_mutex_unlock(&rc_.mu);
    cc_thread_fini(p->t);
    txn_destroy(p->t);
    free(p->q);
}

static void *backup_main(void *arg)
{
    (void)arg;
    deadline_enter("backup", -1);
    deadline_phase("recover");
    pthread_mutex_lock(&rc_.mu);
    for (;;) {
        if (rc_.head == rc_.n) {
            if (rc_.stop)
                break;
            pthread_cond_wait(&rc_.cv, &rc_.mu);
            continue;
        }
        struct pending p = rc_.q[rc_.head];
        uint64_t now = clock_ticks();
        if (!rc_.stop && now < p.deadline) { /* sleep until the first deadline */
            double s = (double)(p.deadline - now) / clock_ticks_per_s;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)(s * 1e9);
            ts.tv_sec += (time_t)(ns / 1000000000u);
            ts.tv_nsec = (long)(ns % 1000000000u);
            pthread_cond_timedwait(&rc_.cv, &rc_.mu, &ts);
            continue;
        }
        rc_.head++;
        bool early = now < p.deadline; /* the run is over before its deadline */
        pthread_mutex_unlock(&rc_.mu);
        finish(&p, early);
        pthread_mutex_lock(&rc_.mu);
    }
    pthread_mutex_unlock(&rc_.mu);
    deadline_leave();
    return NULL;
}

void recovery_start(double timeout_ms, bool verify, const struct workload *w)
{
    rc_.w = w;
    rc_.timeout_ticks = (uint64_t)(timeout_ms * 1e-3 * clock_ticks_per_s);
    rc_.verify = verify;
    rc_.stop = false;
    rc_.head = rc_.n = 0;
    rc_.res = (struct recovery_result){0};
    if (pthread_create(&rc_.th, NULL, backup_main, NULL) != 0) {
        fprintf(stderr, "rundb: cannot create the backup coordinator thread\n");
        exit(1);
    }
    rc_.running = true;
}

void recovery_submit(struct txn *t, const void *q, size_t qsize)
{
    void *qc = malloc(qsize);
    if (!qc)
        abort();
    memcpy(qc, q, qsize);
    uint64_t now = clock_ticks();
    pthread_mutex_lock(&rc_.mu);
    if (rc_.n == rc_.cap) {
        size_t cap = rc_.cap ? 2 * rc_.cap : 64;
        struct pending *q = realloc(rc_.q, cap * sizeof(*q));
        if (!q)
            abort();
        rc_.q = q;
        rc_.cap = cap;
    }
    rc_.q[rc_.n++] = (struct pending){t, qc, now, now + rc_.timeout_ticks};
    rc_.res.dropped++;
    pthread_cond_signal(&rc_.cv);
    pthread_mutex_unlock(&rc_.mu);
}

void recovery_stop(struct recovery_result *res)
{
    if (!rc_.running) {
        *res = (struct recovery_result){0};
        return;
    }
    pthread_mutex_lock(&rc_.mu);
    rc_.stop = true;
    pthread_cond_signal(&rc_.cv);
    pthread_mutex_unlock(&rc_.mu);
    pthread_join(rc_.th, NULL);
    rc_.running = false;
    *res = rc_.res;
    free(rc_.q);
    rc_.q = NULL;
    rc_.cap = 0;
}
