/* The stall watchdog (benchmarks/watchdog.h) in isolation: when it calls a run or one
 * worker stalled, and what its report says about each worker's wait record. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/watchdog.h"
#include "check.h"
#include "storage/table.h"

static void stalls_only_after_timeout(void)
{
    struct watchdog wd;
    uint64_t each[2] = {1, 1};
    watchdog_start(&wd, 10, 100.0, 5, 2, each);
    /* the workers' counts move (aborts), the run's does not: looks a second apart */
    for (double t = 101; t < 110; t++) {
        each[0]++, each[1]++;
        CHECK(!watchdog_stalled(&wd, t, 5, each));
    }
    each[0]++, each[1]++;
    CHECK(!watchdog_stalled(&wd, 109.9, 5, each));
    each[0]++, each[1]++;
    CHECK(watchdog_stalled(&wd, 110.0, 5, each));
    CHECK(wd.stuck == -1);
    /* progress restarts the clock */
    CHECK(!watchdog_stalled(&wd, 111.0, 6, each));
    for (double t = 112; t <= 120; t++)
        CHECK(!watchdog_stalled(&wd, t, 6, each));
    CHECK(!watchdog_stalled(&wd, 120.5, 6, each));
    CHECK(watchdog_stalled(&wd, 121.0, 6, each));
    watchdog_fini(&wd);
}

/* A gap between two looks (the watcher starved, the VM paused) counts a quarter of the
 * timeout at most: a 30 s gap in a 1 s timeout is no stall, of the run or of a worker;
 * the watched time after it is. */
static void an_unwatched_gap_is_no_stall(void)
{
    struct watchdog wd;
    uint64_t each[2] = {0, 0};
    watchdog_start(&wd, 1, 0.0, 0, 2, each);
    CHECK(!watchdog_stalled(&wd, 0.1, 0, each));
    CHECK(!watchdog_stalled(&wd, 30.0, 0, each)); /* 0.1 + 0.25 watched */
    for (double t = 30.2; t < 30.65; t += 0.2)     /* looks 0.2 s apart: all of it counts */
        CHECK(!watchdog_stalled(&wd, t, 0, each)); /* 0.95 watched at 30.6 */
    CHECK(watchdog_stalled(&wd, 30.7, 0, each));
    CHECK(wd.stuck == -1);
    watchdog_fini(&wd);
    /* worker 0 stuck while worker 1 commits: the same */
    uint64_t run = 0;
    each[0] = each[1] = 0;
    watchdog_start(&wd, 1, 0.0, run, 2, each);
    each[1]++;
    CHECK(!watchdog_stalled(&wd, 0.1, ++run, each));
    each[1]++;
    CHECK(!watchdog_stalled(&wd, 30.0, ++run, each));
    for (double t = 30.2; t < 30.65; t += 0.2) {
        each[1]++;
        CHECK(!watchdog_stalled(&wd, t, ++run, each));
    }
    each[1]++;
    CHECK(watchdog_stalled(&wd, 30.7, ++run, each));
    CHECK(wd.stuck == 0);
    watchdog_fini(&wd);
}

/* One worker stuck in a wait while the other commits: a stall of that worker. */
static void one_stuck_worker_stalls(void)
{
    struct watchdog wd;
    uint64_t each[2] = {0, 0};
    watchdog_start(&wd, 10, 0.0, 0, 2, each);
    uint64_t run = 0;
    for (double t = 1; t < 10; t++) {
        each[1]++;
        CHECK(!watchdog_stalled(&wd, t, ++run, each));
    }
    each[1]++;
    CHECK(watchdog_stalled(&wd, 10.0, ++run, each));
    CHECK(wd.stuck == 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    static struct wait_rec recs[2];
    const struct wait_rec *const p[2] = {&recs[0], &recs[1]};
    const uint64_t commits[2] = {0, 10};
    watchdog_report(f, &wd, 10.0, p, commits);
    fclose(f);
    CHECK(strstr(buf, "stall: thread 0 ended no attempt for 10.0 s") != NULL);
    free(buf);
    watchdog_fini(&wd);
}

/* A worker that left (WATCHDOG_LEFT) while another still runs its last attempt: no stall
 * until the run's own count stands still. */
static void a_worker_that_left_never_stalls(void)
{
    struct watchdog wd;
    uint64_t each[2] = {5, 5};
    watchdog_start(&wd, 10, 0.0, 0, 2, each);
    each[0] = WATCHDOG_LEFT;
    uint64_t run = 0;
    for (double t = 1; t <= 30; t++) {
        each[1]++;
        CHECK(!watchdog_stalled(&wd, t, ++run, each));
    }
    watchdog_fini(&wd);
}

static void off_never_stalls(void)
{
    struct watchdog wd;
    uint64_t each[1] = {0};
    watchdog_start(&wd, 0, 0.0, 0, 1, each);
    CHECK(!watchdog_stalled(&wd, 1e6, 0, each));
    watchdog_fini(&wd);
}

static void report_names_rows_and_holders(void)
{
    struct schema s;
    schema_init(&s, false);
    schema_add(&s, "balance", COL_INT64, 8);
    schema_seal(&s);
    struct table *tab = table_create("accounts", &s, 64, false);
    struct row *row = table_new_row(tab, 42);
    static struct wait_rec recs[4];
    struct wait_rec *saved = wait_self;
    wait_self = &recs[0];
    wait_note(WAIT_LOCK, row, -1);
    wait_note_holder(3); /* as a lock queue does under its latch */
    wait_self = &recs[1];
    wait_note(WAIT_PRECOMMIT, NULL, 0);
    wait_self = &recs[2];
    wait_note(WAIT_BACKOFF, NULL, -1);
    wait_self = &recs[3];
    wait_note(WAIT_APPEND, row, 1);
    wait_end(); /* a wait that ended: running again */
    wait_self = saved;
    const struct wait_rec *const p[4] = {&recs[0], &recs[1], &recs[2], &recs[3]};
    const uint64_t commits[4] = {7, 8, 9, 10};
    struct watchdog wd;
    watchdog_start(&wd, 10, 0.0, 34, 4, commits);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    watchdog_report(f, &wd, 12.0, p, commits);
    fclose(f);
    CHECK(strstr(buf, "nothing committed for 12.0 s") != NULL);
    CHECK(strstr(buf, "thread 0: waiting for a lock on accounts key 42, blocked by thread 3 "
                      "(7 commits)") != NULL);
    CHECK(strstr(buf, "thread 1: pre-commit wait, blocked by thread 0 (8 commits)") != NULL);
    CHECK(strstr(buf, "thread 2: back-off before a retry (9 commits)") != NULL);
    CHECK(strstr(buf, "thread 3: running (10 commits)") != NULL);
    if (check_case_failed)
        printf("%s", buf);
    free(buf);
    table_destroy(tab);
    watchdog_fini(&wd);
}

int main(void)
{
    RUN_CASE(stalls_only_after_timeout);
    RUN_CASE(an_unwatched_gap_is_no_stall);
    RUN_CASE(one_stuck_worker_stalls);
    RUN_CASE(a_worker_that_left_never_stalls);
    RUN_CASE(off_never_stalls);
    RUN_CASE(report_names_rows_and_holders);
    return check_failures ? 1 : 0;
}
