/* Per-thread history logs for --verify (see cc/history.h): allocation and growth. The
 * checker that reads the logs is cc/history_check.c. */
#include "cc/history.h"

#include <stdlib.h>

#define HIST_LOG_INIT_CAP 4096

void hist_log_init(struct hist_log *l)
{
    l->recs = NULL;
    l->n = 0;
    l->cap = 0;
    l->txn_start = 0;
}

void hist_log_free(struct hist_log *l)
{
    free(l->recs);
    hist_log_init(l);
}

/* Doubles the capacity (called by hist_append when the log is full). */
void hist_log_grow(struct hist_log *l)
{
    size_t cap = l->cap ? l->cap * 2 : HIST_LOG_INIT_CAP;
    struct hist_rec *recs = NULL;
    if (cap > l->cap && cap <= SIZE_MAX / sizeof *recs)
        recs = realloc(l->recs, cap * sizeof *recs);
    if (!recs) {
        fprintf(stderr, "hist_log_grow: out of memory (%zu records)\n", cap);
        exit(1);
    }
    l->recs = recs;
    l->cap = cap;
}
