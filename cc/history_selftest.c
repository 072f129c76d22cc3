/* The history checker's self-test (hist_self_test, cc/history.h): hand-made histories
 * that the checker must judge right before it judges a run's. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cc/history.h"

/* One hand-made history of the self-test: two transactions of up to 4 records each (a
 * zeroed record, kind HIST_TXN, ends one early). */
struct self_case {
    const char *what;  /* the anomaly, as the failure names it */
    bool cycle;        /* the check must find a cycle (else: must pass) */
    int ntx;
    struct hist_rec recs[2][4];
};
#define SR(k, v) {.key = (k), .wid = (v), .kind = HIST_READ}
#define SW(k, v, nv) {.key = (k), .wid = (v), .nwid = (nv), .kind = HIST_WRITE}

bool hist_self_test(FILE *out)
{
    /* T1 has id 1, T2 id 2; a write's nwid is its writer's id (its version of the item).
     * Items: key 0 is x, key 1 is y; 0 is the loaded version. */
    static const struct self_case cases[] = {
        {"a write cycle over blind writes (G0: WW edges only)", true, 2,
         {{SW(0, 0, 1), SW(1, 2, 1)}, {SW(0, 1, 2), SW(1, 0, 2)}}},
        {"a write-read cycle (G1c: WR edges only)", true, 2,
         {{SR(1, 2), SW(0, 0, 1)}, {SR(0, 1), SW(1, 0, 2)}}},
        {"write skew (G2-item: RW edges only)", true, 2,
         {{SR(0, 0), SR(1, 0), SW(0, 0, 1)}, {SR(0, 0), SR(1, 0), SW(1, 0, 2)}}},
        {"a serial history", false, 2, {{SW(0, 0, 1)}, {SR(0, 1), SW(0, 1, 2)}}},
    };
    static const char *const names[] = {"self-test"};
    bool ok = true;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct self_case *sc = &cases[k];
        struct hist_log logs[2], *lp[2];
        for (int i = 0; i < sc->ntx; i++) {
            hist_log_init(&logs[i]);
            lp[i] = &logs[i];
            hist_txn_begin(&logs[i], (uint64_t)i + 1);
            for (int j = 0; j < 4 && sc->recs[i][j].kind; j++) {
                const struct hist_rec *r = &sc->recs[i][j];
                hist_append(&logs[i], (enum hist_kind)r->kind, 0, r->key, 0, r->wid, r->nwid);
            }
        }
        struct hist_result res;
        hist_check(lp, sc->ntx, names, 1, HIST_LEVEL_SER, NULL, &res);
        if (res.ok == sc->cycle || (sc->cycle && !res.cycles)) {
            ok = false;
            if (out)
                fprintf(out, "history check self-test: FAIL: %s %s\n", sc->what,
                        sc->cycle ? "is not found" : "is reported as an anomaly");
        }
        for (int i = 0; i < sc->ntx; i++)
            hist_log_free(&logs[i]);
    }
    return ok;
}
