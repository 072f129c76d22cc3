/* --anomalies (benchmarks/anomaly.h): runs every case (or --anomaly-case's) --anomaly-runs
 * times on the linked variant and prints one line per case on stdout:
 *   <variant> TAB <claimed level> TAB <case> TAB <cell>
 * where the cell is the outcome every run had (ALLOWED, abort, block, block+abort,
 * serial, HUNG), or "flaky: <outcome> <runs>, ..." when runs differ. Then checks the
 * variant's claim (txn_level_claimed): every case whose level is at or below the claimed
 * one must be prevented in every run; NONE must show every case marked none_allows in
 * every run (the harness can see anomalies at all); no run may hang; a cp commit that
 * commits must have stopped in txn_publish (else the case tested nothing). Exit status 0 when
 * the claim holds, 1 when not (each failing case named on stderr). */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/anomaly.h"
#include "benchmarks/build_info.h"

/* The cell of a case from its runs' outcome counts. */
static void cell(char *buf, size_t n, const int count[AN_NOUTCOMES], int runs)
{
    for (int k = 0; k < AN_NOUTCOMES; k++)
        if (count[k] == runs) {
            snprintf(buf, n, "%s", an_outcome_names[k]);
            return;
        }
    size_t len = (size_t)snprintf(buf, n, "flaky:");
    for (int k = 0; k < AN_NOUTCOMES && len < n; k++)
        if (count[k])
            len += (size_t)snprintf(buf + len, n - len, "%s %s %d", len > 6 ? "," : "",
                                    an_outcome_names[k], count[k]);
}

/* The claim's verdict on one case; NULL when it holds, else why not. */
static const char *verdict(const struct an_case *c, enum cc_level claimed,
                           const int count[AN_NOUTCOMES], int runs, bool unstopped)
{
    if (unstopped)
        return "a cp commit committed without stopping in txn_publish: the case tests nothing";
    if (count[AN_HUNG])
        return "a run hung (a transaction stayed blocked after the script ended)";
    if (claimed == CC_LEVEL_NONE)
        return c->none_allows && count[AN_ALLOWED] != runs
                   ? "no concurrency control, yet the anomaly did not show in every run"
                   : NULL;
    if (c->level <= claimed && count[AN_ALLOWED])
        return "allowed, though the claimed level prevents it";
    return NULL;
}

bool anomaly_flags_ok(const struct options *o)
{
    const char *bad = *o->geo                                         ? "--geo"
                      : o->verify                                     ? "--verify"
                      : o->net_rtt_us > 0 || o->net_msg_cpu_us > 0    ? "the network model"
                      : *o->storage || o->storage_latency_us > 0      ? "the storage model"
                      : o->fail_commit_at_s > 0                       ? "--fail-commit-at"
                                                                      : NULL;
    if (bad)
        fprintf(stderr, "rundb: --anomalies: %s does not apply to the anomaly matrix\n", bad);
    return !bad;
}

int anomaly_main(const struct options *o)
{
    const struct an_case *only = NULL;
    if (*o->anomaly_case) {
        for (int i = 0; i < an_ncases; i++)
            if (strcmp(an_cases[i].name, o->anomaly_case) == 0)
                only = &an_cases[i];
        if (!only) {
            fprintf(stderr, "rundb: --anomaly-case: unknown case '%s'; known:", o->anomaly_case);
            for (int i = 0; i < an_ncases; i++)
                fprintf(stderr, " %s", an_cases[i].name);
            fputc('\n', stderr);
            return 2;
        }
    }
    enum cc_level claimed = txn_level_claimed();
    an_harness_start(o->anomaly_block_ms);
    bool ok = true, usable = true;
    for (int i = 0; i < an_ncases && usable; i++) {
        const struct an_case *c = &an_cases[i];
        if (only && c != only)
            continue;
        struct an_script s;
        char err[160];
        if (!an_parse(c, &s, err, sizeof(err))) {
            fprintf(stderr, "anomalies: case %s: %s\n", c->name, err);
            exit(1);
        }
        int count[AN_NOUTCOMES] = {0};
        bool unstopped = false;
        for (int run = 0; run < o->anomaly_runs && usable; run++) {
            struct an_run r;
            usable = an_harness_run(&s, &r);
            count[an_classify(&s, &r)]++;
            unstopped |= r.unstopped;
            if (o->anomaly_trace || !usable) {
                fprintf(stderr, "%s run %d: ", c->name, run + 1);
                an_trace(stderr, &s, &r);
            }
        }
        char buf[96];
        cell(buf, sizeof(buf), count, o->anomaly_runs);
        printf("%s\t%s\t%s\t%s\n", build_variant, txn_level_name(claimed), c->name,
               usable ? buf : "HUNG");
        fflush(stdout);
        const char *why = usable ? verdict(c, claimed, count, o->anomaly_runs, unstopped)
                                 : "a transaction never returned, even after wait_stop";
        if (why) {
            fprintf(stderr, "anomalies: %s (%s): %s: %s\n", build_variant,
                    txn_level_name(claimed), c->name, why);
            ok = false;
        }
    }
    if (!usable) /* a thread is stuck in the algorithm: no clean shutdown is possible */
        return 1;
    an_harness_stop();
    return ok ? 0 : 1;
}
