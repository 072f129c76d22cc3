/* variants: ncc-rw ncc ncc-rw-no-rtc ncc-ro-no-tr
 * NCC's mechanisms, driven through the transaction API with several transaction contexts
 * interleaved by hand (one per "thread" id; a request that must wait runs in a thread of
 * its own). The Makefile links this file against each variant or mutant named on the
 * first line (a mutant with VTEST_MUTANT and its own -DMUTANT_ flag, tests/mutants.tsv).
 * Linked against the mutant without response timing control it runs only the
 * timestamp-inversion case and then requires the history NOT to be strictly
 * serializable: the check sees the bug. Linked against the mutant whose read-only reads
 * do not raise tr it runs every case; all but the writer-began-before case pass as on
 * the base, and that one requires the read-only transaction to see part of the writer
 * (a history that is not serializable).
 * Cases: refinement (a write ordered after a later-timestamped read commits through smart
 * retry), early abort, reads behind reads are not delayed, a read of an undecided write
 * waits for its commit / is re-executed after its abort, smart retry fails on a version
 * created in between, a read-modify-write at the server is one request (written in
 * place, its before-image put back at an abort), a failed
 * client's attempt is committed by the backup coordinator, timestamp inversion with
 * skewed clocks (strict check); with the read-only protocol (ncc): a read-only read
 * leaves nothing that delays or early-aborts an older writer, a version past the
 * snapshot aborts it, a read-only read behind an undecided in-place write waits and
 * takes the committed version, a writer that began before the snapshot and writes a key
 * after the read-only transaction read it is never seen in part (the reader aborts on
 * its other write, and its retry sees both), and the inversion case aborts the
 * read-only transaction instead of committing it. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "benchmarks/recovery.h"
#include "benchmarks/workload.h"
#include "cc/txn.h"
#include "storage/index.h"
#include "storage/mem.h"
#include "tests/unit/check.h"
#include "tests/variant/rows.h"

#ifdef MUTANT_NCC_NO_RTC
#define NO_RTC 1 /* the mutant without response timing control */
#else
#define NO_RTC 0
#endif
#ifdef MUTANT_NCC_RO_NO_TR
#define RO_NO_TR 1 /* the mutant whose read-only reads leave tr as it is */
#else
#define RO_NO_TR 0
#endif

#define NT 4
static struct txn *T[NT];

/* T0 begins first (smaller t); T1 reads row 1 and commits; T0's write of row 1 must be
 * ordered after T1's read: its tw is refined past T1's t, so T0's own read of row 2
 * (tr = T0's t) fails the safeguard, and smart retry moves everything to max(tw). */
static void refinement_and_smart_retry(void)
{
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    CHECK(rd(T[1], 1, NULL) == RC_OK);
    CHECK(txn_commit(T[1]) == RC_OK);
    uint64_t smart = counter(T[0], "smart_retry");
    CHECK(rd(T[0], 2, NULL) == RC_OK);
    CHECK(add(T[0], 1, 7) == RC_OK);
    CHECK(txn_commit(T[0]) == RC_OK);
    CHECK_EQ_U(counter(T[0], "smart_retry"), smart + 1);
    CHECK(committed(1) == 7);
}

/* A write that would wait behind an undecided read with a higher timestamp aborts early;
 * once the read's transaction has decided, the same write goes through. */
static void early_abort(void)
{
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    CHECK(rd(T[1], 3, NULL) == RC_OK);
    CHECK(add(T[0], 3, 1) == RC_ABORT);
    CHECK(txn_abort_reason(T[0]) == AR_EARLY);
    txn_abort(T[0]);
    CHECK(txn_commit(T[1]) == RC_OK);
    txn_begin(T[0], true);
    CHECK(add(T[0], 3, 1) == RC_OK);
    CHECK(txn_commit(T[0]) == RC_OK);
    CHECK(committed(3) == 1);
}

/* Reads behind an undecided read are released at once, whatever their timestamps. */
static void reads_not_delayed(void)
{
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    uint64_t delayed = counter(T[0], "response_delayed");
    CHECK(rd(T[1], 4, NULL) == RC_OK);
    CHECK(rd(T[0], 4, NULL) == RC_OK); /* older, behind a younger read: no early abort */
    CHECK(txn_commit(T[0]) == RC_OK);
    CHECK(txn_commit(T[1]) == RC_OK);
    CHECK_EQ_U(counter(T[0], "response_delayed"), delayed);
}

/* Reads row key on t, on a thread of its own, behind w's undecided write of it: checks
 * that its response is held back, ends w's attempt (commit, or abort), and returns the
 * value the read then saw. */
static int64_t read_behind(struct txn *t, uint64_t key, struct txn *w, bool commit)
{
    struct bg b = {.t = t, .key = key};
    bg_start(&b, bg_read);
    bg_wait_blocked(&b);
    CHECK(!atomic_load(&b.done)); /* its response is held back */
    CHECK(decide(w, commit));
    bg_join(&b);
    CHECK(b.rc == RC_OK);
    return b.seen;
}

/* A read of an undecided write waits (response timing control) until the writer's
 * commit arrives and then sees its value; after an abort it is re-executed on the
 * version before. */
static void read_waits_for_decision(void)
{
    for (int commit = 1; commit >= 0; commit--) {
        int64_t before = committed(5);
        uint64_t delayed = counter(T[1], "response_delayed");
        txn_begin(T[0], false);
        CHECK(add(T[0], 5, 10) == RC_OK);
        sleep_ms(1);
        txn_begin(T[1], false);
        CHECK(read_behind(T[1], 5, T[0], commit) == before + (commit ? 10 : 0));
        CHECK(txn_commit(T[1]) == RC_OK);
        CHECK_EQ_U(counter(T[1], "response_delayed"), delayed + 1);
    }
}

/* Smart retry fails when a version with tw <= t' was created after a read: T0 (oldest)
 * reads row 7, T2 (middle) writes row 7 behind it (waits), T1 (youngest) read row 6,
 * which T0 then writes with tw past T1's t; smart retry at t' = that tw finds T2's
 * version (tw = T2's t < t') after T0's read: abort from scratch. */
static void smart_retry_fails(void)
{
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[2], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    CHECK(rd(T[1], 6, NULL) == RC_OK);
    CHECK(txn_commit(T[1]) == RC_OK);
    CHECK(rd(T[0], 7, NULL) == RC_OK);
    struct bg b = {.t = T[2], .key = 7};
    bg_start(&b, bg_add);
    bg_wait_blocked(&b);
    CHECK(!atomic_load(&b.done)); /* behind T0's undecided read */
    CHECK(add(T[0], 6, 1) == RC_OK);
    CHECK(txn_commit(T[0]) == RC_ABORT);
    CHECK(txn_abort_reason(T[0]) == AR_SAFEGUARD);
    txn_abort(T[0]);
    bg_join(&b);
    CHECK(b.rc == RC_OK);
    CHECK(txn_commit(T[2]) == RC_OK);
}

/* A read-modify-write run at the server (txn_rmw_at_server, TPC-C) is one request: its
 * read and write are queued together, so a younger transaction's read of the row waits
 * for the writer's decision and then sees the new value; the writer passes the safeguard
 * at first try (its read is not checked, its write keeps its t). */
static void rmw_at_server(void)
{
    txn_rmw_at_server = true;
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    uint64_t first = counter(T[0], "safeguard_first_try");
    CHECK(add(T[0], 12, 5) == RC_OK);
    CHECK(read_behind(T[1], 12, T[0], true) == 5);
    CHECK(txn_commit(T[1]) == RC_OK);
    CHECK_EQ_U(counter(T[0], "safeguard_first_try"), first + 1);
    txn_rmw_at_server = false;
}

/* A read-modify-write at the server writes the row in place (I7): the row holds the new
 * value before the commit, and a younger read of it waits for the decision and, after an
 * abort, sees the before-image, put back. Queued behind an undecided read, the writer is
 * released (and writes) only after the reader decided; its abort puts the row back too. */
static void rmw_in_place(void)
{
    txn_rmw_at_server = true;
    int64_t before = committed(8);
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    CHECK(add(T[0], 8, 5) == RC_OK);
    CHECK(committed(8) == before + 5); /* in place */
    CHECK(read_behind(T[1], 8, T[0], false) == before);
    CHECK(committed(8) == before);
    CHECK(txn_commit(T[1]) == RC_OK);

    before = committed(9);
    txn_begin(T[1], false);
    sleep_ms(1);
    txn_begin(T[0], false); /* younger: waits behind the read, no early abort */
    CHECK(rd(T[1], 9, NULL) == RC_OK);
    struct bg w = {.t = T[0], .key = 9};
    bg_start(&w, bg_add);
    bg_wait_blocked(&w);
    CHECK(!atomic_load(&w.done));
    CHECK(committed(9) == before); /* not written while the reader runs */
    CHECK(txn_commit(T[1]) == RC_OK);
    bg_join(&w);
    CHECK(w.rc == RC_OK);
    CHECK(committed(9) == before + 1);
    CHECK(decide(T[0], false));
    CHECK(committed(9) == before);
    txn_rmw_at_server = false;
}

/* The workload's committed hook as the backup coordinator calls it: the calls, and the
 * query and note they saw (read after recovery_stop joined the backup thread). */
static int hook_calls;
static uint64_t hook_query, hook_note;
static void hook_committed(struct txn *t, const void *q)
{
    hook_calls++;
    memcpy(&hook_query, q, sizeof(hook_query));
    memcpy(&hook_note, txn_note(t), sizeof(hook_note));
}
static const struct workload hook_workload = {.name = "hook", .committed = hook_committed};

/* Client failure: a client hands its undecided attempt (a write of row 13) to the backup
 * coordinator instead of deciding it; a later reader of the row waits (response timing
 * control) until the backup, 100 ms later, runs the safeguard and commits it, then sees
 * the value. The backup decides as the client would: it commits, it does not just abort;
 * and it calls the workload's committed hook once, with the query as it was handed over
 * (the client's own copy is gone) and the attempt's note. */
static void recovery_commits(void)
{
    struct txn *x = txn_create(3, false);
    cc_thread_init(x);
    recovery_start(100, false, &hook_workload);
    txn_begin(x, false);
    CHECK(add(x, 13, 3) == RC_OK);
    uint64_t query = 1313, note = 31;
    memcpy(txn_note(x), &note, sizeof(note));
    uint64_t t0 = clock_ticks();
    recovery_submit(x, &query, sizeof(query)); /* the client fails before its decision */
    query = 0;
    sleep_ms(1);
    txn_begin(T[1], false);
    struct bg b = {.t = T[1], .key = 13};
    bg_start(&b, bg_read);
    bg_join(&b);
    double waited = (double)(clock_ticks() - t0) / clock_ticks_per_s;
    CHECK(b.rc == RC_OK && b.seen == 3);
    CHECK(waited >= 0.09);
    CHECK(txn_commit(T[1]) == RC_OK);
    struct recovery_result res;
    recovery_stop(&res);
    CHECK_EQ_U(res.dropped, 1);
    CHECK_EQ_U(res.committed, 1);
    CHECK_EQ_U(res.aborted, 0);
    CHECK(hook_calls == 1);
    CHECK_EQ_U(hook_query, 1313);
    CHECK_EQ_U(hook_note, 31);
}

/* A failed client goes on, on the same thread, with a forked context (txn_fork) while its
 * abandoned attempt is still undecided: its next attempts are other transactions to
 * response timing control (entries name attempts, not threads), so a read of the
 * abandoned write waits for that attempt's decision. */
static void fork_is_another_attempt(void)
{
    struct txn *x = txn_create(3, false);
    cc_thread_init(x);
    txn_begin(x, false);
    CHECK(add(x, 15, 4) == RC_OK); /* abandoned, undecided */
    struct txn *y = txn_fork(x);
    cc_thread_init(y);
    sleep_ms(1);
    txn_begin(y, false);
    /* not released as if it were its own; then x's backup decides */
    CHECK(read_behind(y, 15, x, true) == 4);
    CHECK(txn_commit(y) == RC_OK);
    cc_thread_fini(x);
    cc_thread_fini(y);
    txn_destroy(x);
    txn_destroy(y);
}

/* ---- the read-only protocol (variant ncc) ---- */

static bool has_read_only_protocol(void) { return strcmp(cc_alg_name, "NCC") == 0; }

/* A read-only read leaves no entry: an older transaction's write of the same row neither
 * waits for the reader nor aborts early (the read-write protocol early-aborts it). */
static void read_only_leaves_nothing(void)
{
    if (!has_read_only_protocol())
        return;
    txn_begin(T[0], false);
    sleep_ms(1);
    txn_begin(T[1], false);
    txn_declare_read_only(T[1]);
    CHECK(rd(T[1], 10, NULL) == RC_OK);
    CHECK(add(T[0], 10, 1) == RC_OK); /* not early-aborted, not delayed */
    CHECK(txn_commit(T[0]) == RC_OK);
    uint64_t one = counter(T[1], "read_only_one_round");
    CHECK(txn_commit(T[1]) == RC_OK);
    CHECK_EQ_U(counter(T[1], "read_only_one_round"), one + 1);
}

/* A read-only read of a version past its snapshot aborts: the snapshot is the reader's
 * clock less --clock-skew-us, so with 50 ms of skew a version just written is too new. */
static void read_only_stale(void)
{
    if (!has_read_only_protocol())
        return;
    txn_begin(T[0], false);
    CHECK(add(T[0], 11, 1) == RC_OK);
    CHECK(txn_commit(T[0]) == RC_OK);
    clock_skew_ticks = (uint64_t)(0.05 * clock_ticks_per_s);
    txn_begin(T[2], false);
    txn_declare_read_only(T[2]);
    CHECK(rd(T[2], 11, NULL) == RC_ABORT);
    CHECK(txn_abort_reason(T[2]) == AR_READ_ONLY);
    txn_abort(T[2]);
    clock_skew_ticks = 0;
    txn_begin(T[2], true);
    txn_declare_read_only(T[2]);
    int64_t v;
    CHECK(rd(T[2], 11, &v) == RC_OK && v == 1);
    CHECK(txn_commit(T[2]) == RC_OK);
}

/* A read-only read (I6) of a row that an undecided server-side pair wrote in place (I7)
 * waits in the queue behind the write and then takes the committed version: the new
 * value after its commit, the before-image (put back) after its abort. */
static void read_only_behind_in_place(void)
{
    if (!has_read_only_protocol())
        return;
    txn_rmw_at_server = true;
    for (int commit = 1; commit >= 0; commit--) {
        int64_t before = committed(0);
        txn_begin(T[0], false);
        CHECK(add(T[0], 0, 5) == RC_OK); /* in place, undecided */
        sleep_ms(1);
        txn_begin(T[2], false); /* its snapshot is past T[0]'s timestamp */
        txn_declare_read_only(T[2]);
        CHECK(read_behind(T[2], 0, T[0], commit) == before + (commit ? 5 : 0));
        CHECK(txn_commit(T[2]) == RC_OK);
    }
    txn_rmw_at_server = false;
}

/* A writer W that began before a read-only snapshot and writes a key after the reader
 * read it (I6): R (t_ro > W's t) reads row 16; W then writes 17 (tw = its t) and 16,
 * whose tr R raised to t_ro, so that write takes tw > t_ro; W's safeguard fails and smart
 * retry commits both writes at that tw. R's read of 17 must then abort (read_only_stale:
 * W's version is past t_ro) rather than return W's 17 beside the 16 before W, and its
 * retry reads both of W's values. On the mutant R's read left tr below W's t: W commits
 * at its t at first try, and R reads W's 17 with the old 16 (not serializable). */
static void read_only_writer_began_before(void)
{
    if (!has_read_only_protocol())
        return;
    struct txn *w = txn_create(0, true), *r = txn_create(2, true);
    cc_thread_init(w);
    cc_thread_init(r);
    int64_t x0 = committed(16), y0 = committed(17), x, y;
    txn_begin(w, false);
    sleep_ms(1);
    txn_begin(r, false);
    txn_declare_read_only(r);
    CHECK(rd(r, 16, &x) == RC_OK && x == x0);
    CHECK(add(w, 17, 1) == RC_OK);
    CHECK(add(w, 16, 1) == RC_OK); /* after R's read, not early-aborted (R left no entry) */
    CHECK(txn_commit(w) == RC_OK);
    CHECK_EQ_U(counter(w, "smart_retry"), RO_NO_TR ? 0 : 1);
    CHECK(committed(16) == x0 + 1 && committed(17) == y0 + 1);
    if (RO_NO_TR) {
        CHECK(rd(r, 17, &y) == RC_OK && y == y0 + 1); /* W's 17, the 16 before W */
        CHECK(txn_commit(r) == RC_OK);
    } else {
        CHECK(rd(r, 17, NULL) == RC_ABORT);
        CHECK(txn_abort_reason(r) == AR_READ_ONLY);
        txn_abort(r);
        txn_begin(r, true);
        txn_declare_read_only(r);
        CHECK(rd(r, 16, &x) == RC_OK && x == x0 + 1);
        CHECK(rd(r, 17, &y) == RC_OK && y == y0 + 1);
        CHECK(txn_commit(r) == RC_OK);
    }
    struct hist_log *logs[2] = {txn_take_history(w), txn_take_history(r)};
    const char *names[64];
    for (int i = 0; i < 64; i++)
        names[i] = "t";
    struct hist_result res;
    hist_check(logs, 2, names, tab->id + 1, HIST_LEVEL_STRICT, stdout, &res);
    CHECK(res.txns == 2u);
    CHECK(res.ok == !RO_NO_TR); /* the mutant's R read W's 17 but not W's 16: a cycle */
    for (int i = 0; i < 2; i++) {
        hist_log_free(logs[i]);
        mem_free(logs[i]);
    }
    cc_thread_fini(w);
    cc_thread_fini(r);
    txn_destroy(w);
    txn_destroy(r);
}

/* ---- timestamp inversion (section 5.2's pitfall) ---- */

static atomic_int stage; /* 1: A read y; 2: T1 committed; 3: T2 committed */

static void wait_stage(int s, long timeout_ms)
{
    for (long i = 0; i < timeout_ms && atomic_load(&stage) < s; i++)
        sleep_ms(1);
}

/* A reads y, then (after T2 or a timeout) x. */
static void *inv_a(void *arg)
{
    struct txn *t = arg;
    txn_begin(t, false);
    if (has_read_only_protocol())
        txn_declare_read_only(t);
    CHECK(rd(t, 8, NULL) == RC_OK);
    atomic_store(&stage, 1);
    /* without the read-only protocol, response timing control holds T1 until A decides:
     * the timeout is how A goes on, 2 s (T1 and T2 commit well within it where nothing
     * holds them, as in a mutant without it). With it nothing holds them: up to 10 s */
    wait_stage(3, has_read_only_protocol() ? 10000 : 2000);
    if (has_read_only_protocol()) { /* T2's version is past A's snapshot */
        CHECK(rd(t, 9, NULL) == RC_ABORT);
        CHECK(txn_abort_reason(t) == AR_READ_ONLY);
        txn_abort(t);
        return NULL;
    }
    CHECK(rd(t, 9, NULL) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    return NULL;
}

/* T1 writes y after A read it. */
static void *inv_t1(void *arg)
{
    struct txn *t = arg;
    wait_stage(1, 5000);
    txn_begin(t, false);
    CHECK(add(t, 8, 1) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    atomic_store(&stage, 2);
    return NULL;
}

/* T2 starts after T1 committed, on a clock 50 ms behind, and writes x. */
static void *inv_t2(void *arg)
{
    struct txn *t = arg;
    wait_stage(2, 5000);
    txn_begin(t, false);
    CHECK(add(t, 9, 1) == RC_OK);
    CHECK(txn_commit(t) == RC_OK);
    atomic_store(&stage, 3);
    return NULL;
}

/* With response timing control, T1's write of y waits for A's decision, so A cannot see
 * T2's x: strict. Without it, A reads y before T1 and x from T2, while T1 committed
 * before T2 began; T2's skewed timestamp lets A's safeguard pass: serializable (by
 * timestamps) but not strictly. With the read-only protocol A leaves no entry, so T1
 * and T2 commit; A's snapshot (its clock less the skew) is below T2's timestamp, so its
 * read of x aborts. */
static void timestamp_inversion(void)
{
    struct txn *a = txn_create(0, true), *t1 = txn_create(2, true), *t2 = txn_create(1, true);
    cc_thread_init(a);
    cc_thread_init(t1);
    cc_thread_init(t2);
    clock_skew_ticks = (uint64_t)(0.05 * clock_ticks_per_s); /* odd thread ids: T2 */
    pthread_t pa, p1, p2;
    pthread_create(&pa, NULL, inv_a, a);
    pthread_create(&p1, NULL, inv_t1, t1);
    pthread_create(&p2, NULL, inv_t2, t2);
    pthread_join(pa, NULL);
    pthread_join(p1, NULL);
    pthread_join(p2, NULL);
    clock_skew_ticks = 0;
    struct hist_log *logs[3] = {txn_take_history(a), txn_take_history(t1), txn_take_history(t2)};
    const char *names[64];
    for (int i = 0; i < 64; i++)
        names[i] = "t";
    struct hist_result res;
    hist_check(logs, 3, names, tab->id + 1, HIST_LEVEL_SER, stdout, &res);
    CHECK(res.ok);      /* serializable either way */
    CHECK(res.txns == (has_read_only_protocol() ? 2u : 3u));
    CHECK(res.strict == (NO_RTC ? 0 : 1));
    for (int i = 0; i < 3; i++) {
        hist_log_free(logs[i]);
        mem_free(logs[i]);
    }
    cc_thread_fini(a);
    cc_thread_fini(t1);
    cc_thread_fini(t2);
    txn_destroy(a);
    txn_destroy(t1);
    txn_destroy(t2);
}

int main(void)
{
    clock_calibrate();
    cc_init(NT);
    tab = make_table(18, true);
    for (int i = 0; i < NT; i++) {
        T[i] = txn_create(i, false);
        cc_thread_init(T[i]);
    }
    if (!NO_RTC) {
        RUN_CASE(refinement_and_smart_retry);
        RUN_CASE(early_abort);
        RUN_CASE(reads_not_delayed);
        RUN_CASE(read_waits_for_decision);
        RUN_CASE(smart_retry_fails);
        RUN_CASE(rmw_at_server);
        RUN_CASE(rmw_in_place);
        RUN_CASE(recovery_commits);
        RUN_CASE(fork_is_another_attempt);
        RUN_CASE(read_only_leaves_nothing);
        RUN_CASE(read_only_stale);
        RUN_CASE(read_only_behind_in_place);
        RUN_CASE(read_only_writer_began_before);
    }
    RUN_CASE(timestamp_inversion);
    for (int i = 0; i < NT; i++) {
        cc_thread_fini(T[i]);
        txn_destroy(T[i]);
    }
    cc_fini();
    return check_failures ? 1 : 0;
}
