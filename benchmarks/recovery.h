/* Client failure and recovery (--fail-commit-at S, --recovery-timeout-ms T), for
 * algorithms that can finish an abandoned attempt from another thread (cc.h,
 * cc_alg_recoverable: NCC). At second S of the run (from the start of warm-up) every
 * client fails once: the attempt it is about to decide (its last shot done, no commit or
 * abort sent) is handed to the backup coordinator, and the client goes on with a fresh
 * transaction context (txn_fork) and its next query. The backup coordinator, one thread
 * here (the paper's is the server of the transaction's first key, told the cohorts by
 * the last shot), waits T after the hand-off, then finishes the attempt exactly as its
 * client would have: the safeguard and smart retry, then commit or abort messages
 * (txn_commit, else txn_abort). Those outcomes are counted apart from the clients'; an
 * attempt it commits goes to the workload's committed hook, with a copy of its query
 * taken at the hand-off, in the backup thread.
 *
 * Threading: recovery_submit is called by workers; everything else by the driver's
 * thread. An abandoned struct txn belongs to the backup thread from the hand-off on. */
#ifndef BENCH_RECOVERY_H
#define BENCH_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/latency.h"
#include "cc/history.h"

struct txn;
struct workload;

struct recovery_result {
    uint64_t dropped;             /* attempts handed over */
    uint64_t committed, aborted;  /* their outcomes */
    uint64_t at_stop;             /* of those, finished early because the run ended */
    struct latency delay;         /* ticks from the hand-off to the decision */
    int nhist;                    /* the abandoned contexts' history logs (--verify) */
    struct hist_log **hist;
};

/* Starts the backup thread (timeout in milliseconds) for workload w's attempts. */
void recovery_start(double timeout_ms, bool verify, const struct workload *w);
/* Hands over t, the attempt of query q (qsize bytes, copied), whose client failed before
 * deciding it. */
void recovery_submit(struct txn *t, const void *q, size_t qsize);
/* Finishes every attempt still pending at once (the run is over), stops the thread and
 * fills res; the contexts are freed, their history logs go to res. */
void recovery_stop(struct recovery_result *res);

#endif
