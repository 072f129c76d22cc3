/* The isolation anomaly matrix (--anomalies; docs/anomalies.md): the classic anomalies
 * (Adya's and Berenson et al.'s, as Hermitage names them) as scripted interleavings of two
 * or three transactions, each on a thread of its own, on the real transaction API.
 *
 *   anomaly_cases.c    the cases: script, anomalous outcome, the weakest level preventing it
 *   anomaly_script.c   the script and outcome parser, a run's classification and trace
 *   anomaly_harness.c  the rows, the transaction threads, running one script
 *   anomaly_main.c     the mode: every case several times, one line each, the claim check
 *
 * A script is a list of steps "T<n> <op> [<object> [<value>]]" separated by ';':
 *   r x       plain read of row x (or y): txn_read; the step's value is the value read
 *   rfu x     read for update: txn_read_for_update; its value is the value read
 *   w x V     write V to row x: txn_write (blind if the transaction has not read x)
 *   l x       the last-access hint on row x: txn_last_access (Bamboo retires, RCC seals)
 *   scan A    predicate read of range A (or B): its range row, then the rows it names;
 *             the step's value is the number of rows found
 *   ins A V   insert a row of value V into range A (its range row read for update and
 *             written: the project's phantom protection, benchmarks/tpcc.h)
 *   del A     delete the last row of range A (the same with txn_delete)
 *   get A N   point read of range A's N-th row (1-based; the row the (N-1)-th insert into
 *             A adds) by its key, without the range row: txn_lookup, then txn_read; the
 *             step's value is the value read, 0 when the key is absent
 *   ro        declare the transaction read-only (txn_declare_read_only; its first step)
 *   c, a      commit (txn_commit), roll back (txn_user_abort)
 *   cp        commit, stopped in txn_publish (txn_publish_hook: where its inserts and
 *             deletes are about to become visible, the algorithm still holding what it
 *             holds there) until every later step of the script has been issued and
 *             settled; the stop itself is no block
 * A transaction begins (txn_begin) at its first step and ends with exactly one c, cp or a,
 * its last step. An access or commit that returns RC_ABORT ends it (txn_abort at once, never a
 * retry): its later steps are skipped.
 *
 * An anomalous outcome is a list of conditions separated by spaces, all of which hold,
 * with every transaction that the script commits committed:
 *   s<i>=V    step i (1-based) read V
 *   x=V       the final committed value of row x (or y), read by a fresh transaction
 */
#ifndef BENCH_ANOMALY_H
#define BENCH_ANOMALY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/options.h"
#include "cc/cc.h"

#define AN_MAX_STEPS 16
#define AN_MAX_TXNS 3
#define AN_MAX_CONDS 4
#define AN_RANGE_MAX 6 /* rows a range can hold */

/* The ops that name an object come first (up to AN_GET). */
enum an_op { AN_READ, AN_RFU, AN_WRITE, AN_LAST, AN_SCAN, AN_INSERT, AN_DELETE, AN_GET, AN_RO,
             AN_COMMIT, AN_COMMIT_PAUSED, AN_ABORT, AN_NOPS };
/* The objects a step names: rows x and y, ranges A and B. */
enum an_obj { AN_X, AN_Y, AN_A, AN_B, AN_NOBJS };

struct an_step {
    uint8_t txn; /* 0-based */
    uint8_t op;  /* enum an_op */
    uint8_t obj; /* enum an_obj */
    int64_t value;
};

enum an_cond_kind { AN_COND_READ, AN_COND_FINAL };
struct an_cond {
    uint8_t kind; /* enum an_cond_kind */
    uint8_t idx;  /* the step (0-based) or the row (AN_X, AN_Y) */
    int64_t value;
};

struct an_script {
    struct an_step steps[AN_MAX_STEPS];
    int nsteps, ntxns;
    bool commits[AN_MAX_TXNS]; /* the script ends the transaction with c or cp (else a) */
    struct an_cond conds[AN_MAX_CONDS];
    int nconds;
    bool needs_final; /* a condition reads the final values */
};

struct an_case {
    const char *name;
    enum cc_level level; /* the weakest claimed level that must prevent it */
    bool none_allows;    /* NONE (no concurrency control) must show it: the sanity row */
    const char *script;
    const char *anomaly; /* the anomalous outcome (conditions, see the top) */
};
extern const struct an_case an_cases[];
extern const int an_ncases;

/* Parses a case's script and outcome; false with a message in err on a malformed one. */
bool an_parse(const struct an_case *c, struct an_script *s, char *err, size_t n);

/* One step's result. */
enum an_state { AN_PENDING, AN_OK, AN_ABORTED, AN_SKIPPED };
struct an_step_res {
    uint8_t state;  /* enum an_state */
    bool blocked;   /* it had not returned a bound after it was issued */
    bool paused;    /* a cp step that reached its stop in txn_publish */
    int64_t value;  /* what a read or scan returned */
    uint8_t reason; /* enum abort_reason, when AN_ABORTED */
};

/* One run of a script. */
struct an_run {
    struct an_step_res r[AN_MAX_STEPS];
    bool committed[AN_MAX_TXNS];
    bool cc_abort; /* the algorithm aborted a transaction (an access or commit failed) */
    bool hung;     /* a step returned only after the end-of-run wait or never */
    bool unstopped; /* a cp commit committed without stopping in txn_publish */
    int64_t final[2]; /* rows x and y after the run, when the script needs them */
};

/* How a run ended, as a cell of the matrix. */
enum an_outcome { AN_ALLOWED, AN_BY_ABORT, AN_BY_BLOCK, AN_BY_BLOCK_ABORT, AN_BY_SERIAL,
                  AN_HUNG, AN_NOUTCOMES };
extern const char *const an_outcome_names[AN_NOUTCOMES];
enum an_outcome an_classify(const struct an_script *s, const struct an_run *r);
/* Writes the run's steps and results, one line. */
void an_trace(FILE *f, const struct an_script *s, const struct an_run *r);

/* The harness: its table and threads (once per process), one run of a script (fresh rows
 * each time; false when a transaction could not be ended at all: the harness is no longer
 * usable), the end. */
void an_harness_start(double block_ms);
bool an_harness_run(const struct an_script *s, struct an_run *r);
void an_harness_stop(void);

/* --anomalies: false (with a message) when a flag that the matrix would ignore is given
 * (the geo layer, --verify, the models, client failure); else anomaly_main runs the cases,
 * prints one line per case, and returns the exit status. */
bool anomaly_flags_ok(const struct options *o);
int anomaly_main(const struct options *o);

#endif
