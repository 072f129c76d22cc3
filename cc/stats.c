/* Summing of per-thread transaction statistics (see stats.h). */
#include "cc/stats.h"

#define AR_NAME_(e, s) s,
const char *const abort_reason_names[AR_COUNT] = {ABORT_REASONS(AR_NAME_)};
#undef AR_NAME_

void txn_stats_add(struct txn_stats *sum, const struct txn_stats *s)
{
#define ST_ADD_(n) sum->n += s->n;
#define ST_ADD_T_(n) sum->t_##n += s->t_##n;
    STATS_COUNTERS(ST_ADD_)
    STATS_TIMES(ST_ADD_T_)
    STATS_SUBTIMES(ST_ADD_T_)
#undef ST_ADD_
#undef ST_ADD_T_
    for (int i = 0; i < AR_COUNT; i++)
        sum->aborts_by[i] += s->aborts_by[i];
    for (int i = 0; i < CC_ALG_COUNTERS; i++)
        sum->alg[i] += s->alg[i];
}
