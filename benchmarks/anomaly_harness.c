/* The anomaly matrix's harness (benchmarks/anomaly.h): one table, one thread per script
 * transaction (its own struct txn, as a driver worker), and the main thread that issues a
 * script's steps in order.
 *
 * Issuing a step queues it on its transaction's thread; the main thread then settles: it
 * waits until every thread is idle, or until block_ms pass with no step returning. A step
 * still pending then is blocked (recorded, and the script goes on; the step's eventual
 * result is recorded when it returns, and a later step of the same transaction queues
 * behind it). After the last step the main thread waits END_WAIT_MS for every thread;
 * a transaction still blocked then is released by wait_stop (storage/wait.h: every long
 * wait gives up, AR_STOPPED) and the run is HUNG; one that does not return even then
 * leaves the harness unusable (an_harness_run returns false).
 *
 * A cp step's commit stops in txn_publish (txn_publish_hook, set before the threads
 * start) and counts as idle there, not blocked, so that the script goes on with the
 * commit half done; the main thread lets it go on (go_on) once every step has been issued
 * and settled, before the end-of-run wait.
 *
 * Rows: each run gets a fresh block of BLOCK keys (so no run sees another's versions,
 * locks or inserts): x, y, the range rows of A and B (their one column holds the range's
 * row count, its bound, as TPC-C's range rows do: benchmarks/tpcc.h), then A's rows and
 * B's rows, dense from the first. A scan reads the range row, then looks up and reads the
 * rows its bound names (a key missing means the bound and the index disagree: the scan
 * aborts, AR_RETRY, as TPC-C's do); an insert or a delete reads the range row for update
 * and writes the new bound.
 *
 * Synchronisation: `mu` guards the queues, the busy flags, the run's results and the
 * completion count; a thread runs its step without it. A thread's begun/aborted flags and
 * the run's script and key base are written by the main thread under `mu` while every
 * thread is idle, before any job of the run is queued, and read by the threads after they
 * took `mu` to dequeue: ordered by the mutex. A thread's `self` is its own. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/anomaly.h"
#include "benchmarks/workload.h"
#include "storage/mem.h"
#include "storage/table.h"
#include "storage/wait.h"

/* Offsets in a run's key block. */
enum { K_X, K_Y, K_RANGE_A, K_RANGE_B, K_A0, K_B0 = K_A0 + AN_RANGE_MAX,
       BLOCK = K_B0 + AN_RANGE_MAX };
/* The job number of the fresh transaction that reads the final values. */
#define JOB_FINAL AN_MAX_STEPS
/* How long the end of a run waits for blocked transactions, before and after wait_stop. */
#define END_WAIT_MS 1000.0
#define STOP_WAIT_MS 5000.0

struct worker {
    pthread_t th;
    int id;
    struct txn *t;
    bool begun, aborted;          /* the script's transaction on this thread */
    int queue[AN_MAX_STEPS + 1];  /* jobs (step indexes, JOB_FINAL): under mu */
    int head, tail;               /* under mu */
    bool busy;                    /* running a job: under mu */
    int job;                      /* the job it runs, when busy: under mu */
    bool paused;                  /* its cp commit is stopped in txn_publish: under mu */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv; /* a job was queued, or quit */
static pthread_cond_t done_cv; /* a job returned, or a cp commit stopped */
static pthread_cond_t go_cv;   /* go_on was set */
static bool go_on;             /* every step issued and settled: a cp commit goes on; under mu */
static _Thread_local struct worker *self; /* this transaction thread's worker */
static struct worker wk[AN_MAX_TXNS];
static struct wait_rec recs[AN_MAX_TXNS];
static bool quit;             /* under mu */
static uint64_t completions;  /* jobs returned: under mu */
static const struct an_script *cur;
static struct an_run *res; /* the run's results: under mu */
static struct table *tab;
static uint64_t base, next_base; /* the run's key block */
static double block_ms;
static int issued; /* the run's steps issued so far: under mu */

static int64_t img_value(const unsigned char *img)
{
    int64_t v;
    memcpy(&v, col_ptr(&tab->schema, img, 0), sizeof(v));
    return v;
}

static void fill(struct row *r, void *arg)
{
    (void)arg;
    static const int64_t initial[BLOCK] = {[K_X] = 10, [K_Y] = 20, [K_RANGE_A] = 1,
                                           [K_RANGE_B] = 1, [K_A0] = 30, [K_B0] = 40};
    memcpy(col_ptr(&tab->schema, r->data, 0), &initial[r->key - base], sizeof(int64_t));
}

/* The row at offset off of the block, or NULL. */
static struct row *row_at(struct txn *t, uint64_t off) { return txn_lookup(t, tab, base + off); }

/* Reads (for update) the row at offset off, which exists: *r and its value *v. */
static enum rc read_row(struct txn *t, uint64_t off, bool update, struct row **r, int64_t *v)
{
    *r = row_at(t, off);
    if (!*r) {
        fprintf(stderr, "anomalies: row %llu is missing\n", (unsigned long long)off);
        exit(1);
    }
    const unsigned char *img;
    enum rc rc = update ? txn_read_for_update(t, *r, COL_BIT(0), &img)
                        : txn_read(t, *r, COL_BIT(0), &img);
    if (rc == RC_OK)
        *v = img_value(img);
    return rc;
}

static uint64_t range_row(int obj) { return obj == AN_A ? K_RANGE_A : K_RANGE_B; }
static uint64_t range_first(int obj) { return obj == AN_A ? K_A0 : K_B0; }

/* A predicate read: the range row's bound n, then rows first .. first + n - 1. */
static enum rc scan(struct txn *t, int obj, int64_t *count)
{
    struct row *r;
    int64_t n;
    if (read_row(t, range_row(obj), false, &r, &n) != RC_OK)
        return RC_ABORT;
    for (int64_t i = 0; i < n; i++) {
        r = row_at(t, range_first(obj) + (uint64_t)i);
        const unsigned char *img;
        if (!r)
            return txn_abort_retry(t);
        if (txn_read(t, r, COL_BIT(0), &img) != RC_OK)
            return RC_ABORT;
    }
    *count = n;
    return RC_OK;
}

/* An insert of value v (delete: v unused) at the range's end, and its new bound. */
static enum rc change_range(struct txn *t, int obj, bool insert, int64_t v)
{
    struct row *rr, *r;
    int64_t n;
    if (read_row(t, range_row(obj), true, &rr, &n) != RC_OK)
        return RC_ABORT;
    if (insert) {
        if (n >= AN_RANGE_MAX) {
            fprintf(stderr, "anomalies: range %c is full\n", obj == AN_A ? 'A' : 'B');
            exit(1);
        }
        unsigned char *img;
        if (txn_insert(t, tab, base + range_first(obj) + (uint64_t)n, &r, &img) != RC_OK)
            return RC_ABORT;
        memcpy(col_ptr(&tab->schema, img, 0), &v, sizeof(v));
        n++;
    } else {
        if (n == 0)
            return RC_OK; /* nothing to delete */
        r = row_at(t, range_first(obj) + (uint64_t)n - 1);
        if (!r)
            return txn_abort_retry(t);
        if (txn_delete(t, r) != RC_OK)
            return RC_ABORT;
        n--;
    }
    return txn_write(t, rr, 0, &n);
}

/* A point read of range obj's n-th row by its key, without the range row: *v is its
 * value, 0 when the key is absent. */
static enum rc get_row(struct txn *t, int obj, int64_t n, int64_t *v)
{
    struct row *r = row_at(t, range_first(obj) + (uint64_t)(n - 1));
    const unsigned char *img;
    *v = 0;
    if (!r)
        return RC_OK;
    enum rc rc = txn_read(t, r, COL_BIT(0), &img);
    if (rc == RC_OK)
        *v = img_value(img);
    return rc;
}

/* Runs step st on t; *value: what a read or scan returned. */
static enum rc exec_step(struct txn *t, const struct an_step *st, int64_t *value)
{
    struct row *r;
    uint64_t off = st->obj == AN_X ? K_X : K_Y;
    switch (st->op) {
    case AN_READ:
    case AN_RFU:
        return read_row(t, off, st->op == AN_RFU, &r, value);
    case AN_WRITE:
        return txn_write(t, row_at(t, off), 0, &st->value);
    case AN_LAST:
        txn_last_access(t, row_at(t, off));
        return RC_OK;
    case AN_SCAN:
        return scan(t, st->obj, value);
    case AN_INSERT:
    case AN_DELETE:
        return change_range(t, st->obj, st->op == AN_INSERT, st->value);
    case AN_GET:
        return get_row(t, st->obj, st->value, value);
    case AN_RO:
        txn_declare_read_only(t);
        return RC_OK;
    case AN_COMMIT:
    case AN_COMMIT_PAUSED:
        return txn_commit(t);
    default: /* AN_ABORT */
        return txn_user_abort(t);
    }
}

/* A fresh transaction reads x and y (retried until it commits: it is no part of the case). */
static void final_read(struct txn *t, int64_t *x, int64_t *y)
{
    for (int attempt = 0;; attempt++) {
        txn_begin(t, attempt > 0);
        struct row *r;
        if (read_row(t, K_X, false, &r, x) == RC_OK && read_row(t, K_Y, false, &r, y) == RC_OK &&
            txn_commit(t) == RC_OK)
            return;
        txn_abort(t);
    }
}

/* Runs one job on w's thread (without mu), then takes mu and records its result; returns
 * holding mu (the caller marks the thread idle under it). */
static void run_job(struct worker *w, int job)
{
    if (job == JOB_FINAL) {
        int64_t x, y;
        final_read(w->t, &x, &y);
        pthread_mutex_lock(&mu);
        res->final[0] = x;
        res->final[1] = y;
        return; /* the caller unlocks */
    }
    const struct an_step *st = &cur->steps[job];
    struct an_step_res out = {.state = AN_OK};
    bool committed = false;
    if (w->aborted) {
        out.state = AN_SKIPPED;
    } else {
        if (!w->begun)
            txn_begin(w->t, false);
        w->begun = true;
        enum rc rc = exec_step(w->t, st, &out.value);
        if (rc != RC_OK) {
            out.reason = (uint8_t)txn_abort_reason(w->t);
            txn_abort(w->t); /* never retried: an abort is an outcome */
            w->aborted = true;
            out.state = st->op == AN_ABORT ? AN_OK : AN_ABORTED;
        }
        committed = (st->op == AN_COMMIT || st->op == AN_COMMIT_PAUSED) && rc == RC_OK;
    }
    pthread_mutex_lock(&mu);
    struct an_step_res *o = &res->r[job];
    /* a cp commit that committed without reaching txn_publish: the case tested nothing */
    res->unstopped |= committed && st->op == AN_COMMIT_PAUSED && !o->paused;
    o->state = out.state;
    o->value = out.value;
    o->reason = out.reason;
    res->committed[st->txn] |= committed;
    res->cc_abort |= out.state == AN_ABORTED;
}

/* txn_publish_hook: the commit of a cp step stops here until go_on; every other commit
 * (a c step's, the final read's) passes. */
static void stop_at_publish(struct txn *t)
{
    (void)t;
    struct worker *w = self;
    if (!w) /* not a transaction thread of the harness */
        return;
    pthread_mutex_lock(&mu);
    if (w->job != JOB_FINAL && cur->steps[w->job].op == AN_COMMIT_PAUSED && !go_on) {
        res->r[w->job].paused = true;
        w->paused = true;
        pthread_cond_broadcast(&done_cv); /* settle: this thread is idle now */
        while (!go_on)
            pthread_cond_wait(&go_cv, &mu);
        w->paused = false;
    }
    pthread_mutex_unlock(&mu);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    self = w;
    mem_thread_init();
    wait_register(w->id, &recs[w->id]);
    w->t = txn_create(w->id, false);
    cc_thread_init(w->t);
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!quit && w->head == w->tail)
            pthread_cond_wait(&work_cv, &mu);
        if (w->head == w->tail)
            break;
        int job = w->queue[w->head++];
        w->busy = true;
        w->job = job;
        pthread_mutex_unlock(&mu);
        run_job(w, job); /* returns holding mu */
        w->busy = false;
        completions++;
        pthread_cond_broadcast(&done_cv);
    }
    pthread_mutex_unlock(&mu);
    cc_thread_fini(w->t);
    txn_destroy(w->t);
    return NULL;
}

static struct timespec deadline_in(double ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = ts.tv_nsec + (long long)(ms * 1e6);
    ts.tv_sec += ns / 1000000000;
    ts.tv_nsec = ns % 1000000000;
    return ts;
}

/* Under mu: a thread stopped in a cp commit counts as idle until go_on (then its commit
 * runs on, though it may not have woken yet to clear `paused`). */
static bool all_idle(void)
{
    for (int i = 0; i < AN_MAX_TXNS; i++)
        if ((wk[i].busy && !(wk[i].paused && !go_on)) || wk[i].head != wk[i].tail)
            return false;
    return true;
}

/* Under mu: queues job on thread i. */
static void issue(int i, int job)
{
    wk[i].queue[wk[i].tail++] = job;
    pthread_cond_broadcast(&work_cv);
}

/* Under mu: waits until every thread is idle, or until block_ms pass with no job
 * returning; then marks the steps still pending blocked (but a cp commit stopped in
 * txn_publish, which the harness holds). */
static void settle(void)
{
    struct timespec dl = deadline_in(block_ms);
    uint64_t seen = completions;
    while (!all_idle())
        if (pthread_cond_timedwait(&done_cv, &mu, &dl) == ETIMEDOUT) {
            if (completions == seen)
                break;
            seen = completions;
            dl = deadline_in(block_ms);
        }
    for (int i = 0; i < issued; i++)
        if (res->r[i].state == AN_PENDING && !res->r[i].paused)
            res->r[i].blocked = true;
}

/* Under mu: waits up to ms for every thread to be idle. */
static bool wait_idle(double ms)
{
    struct timespec dl = deadline_in(ms);
    while (!all_idle())
        if (pthread_cond_timedwait(&done_cv, &mu, &dl) == ETIMEDOUT)
            return all_idle();
    return true;
}

void an_harness_start(double ms)
{
    block_ms = ms;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&work_cv, &ca);
    pthread_cond_init(&done_cv, &ca);
    pthread_cond_init(&go_cv, &ca);
    pthread_condattr_destroy(&ca);
    txn_publish_hook = stop_at_publish; /* before the threads start: they read it */
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "v", COL_INT64, 8);
    schema_seal(&s);
    tab = table_create("anomaly", &s, 4096, true);
    atomic_store(&wait_stop, false);
    cc_init(AN_MAX_TXNS);
    for (int i = 0; i < AN_MAX_TXNS; i++) {
        wk[i].id = i;
        if (pthread_create(&wk[i].th, NULL, worker_main, &wk[i]) != 0) {
            fprintf(stderr, "anomalies: cannot create a thread\n");
            exit(1);
        }
    }
}

bool an_harness_run(const struct an_script *s, struct an_run *r)
{
    pthread_mutex_lock(&mu);
    base = next_base;
    next_base += BLOCK;
    load_rows(tab, NULL, base, base + K_A0 + 1, fill, NULL);
    load_rows(tab, NULL, base + K_B0, base + K_B0 + 1, fill, NULL);
    memset(r, 0, sizeof(*r));
    cur = s;
    res = r;
    go_on = false;
    for (int i = 0; i < AN_MAX_TXNS; i++) {
        wk[i].head = wk[i].tail = 0;
        wk[i].begun = wk[i].aborted = false;
    }
    for (issued = 0; issued < s->nsteps;) {
        issue(s->steps[issued].txn, issued);
        issued++;
        settle();
    }
    go_on = true;
    pthread_cond_broadcast(&go_cv);
    bool usable = true;
    if (!wait_idle(END_WAIT_MS)) {
        r->hung = true;
        /* release: pairs with wait_stopped's acquire load in the waiters */
        atomic_store_explicit(&wait_stop, true, memory_order_release);
        usable = wait_idle(STOP_WAIT_MS);
        if (usable) /* relaxed: every thread is idle */
            atomic_store_explicit(&wait_stop, false, memory_order_relaxed);
    }
    if (usable && s->needs_final) {
        issue(0, JOB_FINAL);
        usable = wait_idle(STOP_WAIT_MS);
    }
    pthread_mutex_unlock(&mu);
    return usable;
}

void an_harness_stop(void)
{
    pthread_mutex_lock(&mu);
    quit = true;
    pthread_cond_broadcast(&work_cv);
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < AN_MAX_TXNS; i++) {
        pthread_join(wk[i].th, NULL);
        wait_unregister(i);
    }
    txn_publish_hook = NULL; /* the threads are gone */
    cc_fini();
}
