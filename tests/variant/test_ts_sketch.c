/* variants: sto-sketch tictoc-sketch mvto-sketch sto-sketch-one-row
 * The sketch timestamp store (cc/ts_sketch.c, FPSketch), driven through its own API with
 * the linked algorithm's fold/unfold. A tiny sketch (1 KiB: 16 cells per row) makes keys
 * collide in every row. Cases:
 *  - never_underestimates: keys folded with known stamps, in random order and many
 *    times (evicted by other keys, or by ts_fold_released); every re-activation's
 *    stamps are >= the key's last folded ones (S1);
 *  - active_keys_exact: a held key keeps exactly the stamps it was given while other
 *    keys fold larger stamps into its cells, and a second holder gets the same entry;
 *  - concurrent: threads acquire shared keys, raise their stamps under a per-key test
 *    lock and release; each activation must be >= the key's true maximum, and a key held
 *    by another thread must show exactly the stamps its holders wrote (S1, S2 under
 *    concurrency);
 *  - counters: an activation whose bounds exceed the exact stamps counts as inflated;
 *  - many_held: more keys held at once than the table has slots in its first blocks
 *    (256 buckets of 4), so some bucket takes overflow blocks: each key has an entry of
 *    its own, which a second acquire finds, and they all release;
 *  - dead_release: a key released dead leaves the table (its next acquire activates it
 *    anew), where a live key released keeps its entry.
 * Stamps are chosen so both algorithms' entries store them exactly (wts <= rts, rts - wts
 * small: TicToc's delta encoding). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cc/ts_store.h"
#include "cc/txn.h"
#include "tests/unit/check.h"
#include "tests/variant/rows.h"

/* more keys than the table's slots (256 buckets of 4 for up to 4 threads), so that keys
 * evict each other (free_way's second chance, folds at eviction) */
#define NKEYS 2048
#define NT 4
/* many_held's keys: more than the slots of the first blocks, so some bucket overflows
 * whatever the hash */
#define HELD_KEYS 1100

extern size_t ts_sketch_bytes;
static struct txn *T[NT];

static void stamps(struct ts_entry *e, uint64_t *w, uint64_t *r) { cc_ts_fold(e, w, r); }

/* Sets the entry's stamps to at least (w, r) (monotone, as the algorithms keep them). */
static void raise_to(struct ts_entry *e, uint64_t w, uint64_t r)
{
    uint64_t cw, cr;
    cc_ts_fold(e, &cw, &cr);
    cw = w > cw ? w : cw;
    cr = r > cr ? r : cr;
    cc_ts_unfold(e, cw, cr > cw ? cr : cw);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t truth_w[NKEYS], truth_r[NKEYS];

/* Linked against a mutant (VTEST_MUTANT): the mutant whose rts folds into one sketch
 * row only (tests/mutants.tsv); the case must then see an under-estimate. */
#ifdef VTEST_MUTANT
#define MUTANT 1
#else
#define MUTANT 0
#endif

static void never_underestimates(void)
{
    uint64_t seed = 42, clock = 1000;
    bool under = false;
    for (int round = 0; round < 20000 && !under; round++) {
        uint64_t k = rnd(&seed) % NKEYS;
        struct ts_entry *e = ts_acquire(T[0], R(k));
        uint64_t w, r;
        stamps(e, &w, &r);
        under = w < truth_w[k] || r < truth_r[k];
        clock += rnd(&seed) % 50;
        uint64_t nw = clock, nr = clock + rnd(&seed) % 100;
        raise_to(e, nw, nr);
        stamps(e, &truth_w[k], &truth_r[k]);
        ts_release(T[0], R(k), e);
        if (round % 64 == 0) /* besides the evictions of released keys by others */
            ts_fold_released();
    }
    CHECK(under == MUTANT); /* the mutant must be seen to under-estimate */
}

static void active_keys_exact(void)
{
    struct ts_entry *e = ts_acquire(T[0], R(7));
    uint64_t w0, r0;
    stamps(e, &w0, &r0);
    raise_to(e, w0 + 3, r0 + 5);
    stamps(e, &w0, &r0);
    /* every other key folds far larger stamps: each of key 7's cells sees some */
    for (uint64_t k = 0; k < NKEYS; k++) {
        if (k == 7)
            continue;
        struct ts_entry *o = ts_acquire(T[1], R(k));
        raise_to(o, 1u << 30, (1u << 30) + 10);
        ts_release(T[1], R(k), o);
    }
    ts_fold_released(); /* folds the others, not the held key */
    struct ts_entry *e2 = ts_acquire(T[1], R(7));
    CHECK(e2 == e);
    uint64_t w, r;
    stamps(e, &w, &r);
    CHECK_EQ_U(w, w0);
    CHECK_EQ_U(r, r0);
    ts_release(T[1], R(7), e2);
    stamps(e, &w, &r);
    CHECK_EQ_U(w, w0);
    CHECK_EQ_U(r, r0);
    ts_release(T[0], R(7), e);
    ts_fold_released();
    /* folded now: its bound is above what it had (the others' stamps) */
    e = ts_acquire(T[0], R(7));
    stamps(e, &w, &r);
    CHECK(w >= w0 && r >= r0);
    ts_release(T[0], R(7), e);
}

static pthread_mutex_t key_lock[NKEYS];
static atomic_int conc_failed;

static void *storm(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t seed = 1234567u + (uint64_t)id * 7919u;
    for (int i = 0; i < 20000; i++) {
        uint64_t k = rnd(&seed) % 64; /* few keys: they are often active in two threads */
        struct ts_entry *e = ts_acquire(T[id], R(k));
        pthread_mutex_lock(&key_lock[k]);
        uint64_t w, r;
        stamps(e, &w, &r);
        if (w < truth_w[k] || r < truth_r[k])
            atomic_store(&conc_failed, 1); /* an under-estimate */
        uint64_t nw = w + 1 + rnd(&seed) % 4, nr = nw + rnd(&seed) % 8;
        raise_to(e, nw, nr);
        stamps(e, &truth_w[k], &truth_r[k]);
        pthread_mutex_unlock(&key_lock[k]);
        /* while held, nobody else changes it but under the lock: still exact now */
        pthread_mutex_lock(&key_lock[k]);
        stamps(e, &w, &r);
        if (w < truth_w[k] || r < truth_r[k])
            atomic_store(&conc_failed, 2);
        pthread_mutex_unlock(&key_lock[k]);
        ts_release(T[id], R(k), e);
        if (id == 0 && i % 256 == 0) /* folds while the others hold keys */
            ts_fold_released();
    }
    return NULL;
}

static void concurrent(void)
{
    for (int k = 0; k < NKEYS; k++) {
        pthread_mutex_init(&key_lock[k], NULL);
        truth_w[k] = truth_r[k] = 0;
    }
    pthread_t th[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, storm, (void *)(intptr_t)i);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_U(atomic_load(&conc_failed), 0);
    /* all released: every key's bound still covers its true stamps */
    for (uint64_t k = 0; k < 64; k++) {
        struct ts_entry *e = ts_acquire(T[0], R(k));
        uint64_t w, r;
        stamps(e, &w, &r);
        CHECK(w >= truth_w[k] && r >= truth_r[k]);
        ts_release(T[0], R(k), e);
    }
}

static void counters(void)
{
    uint64_t before = T[0]->st.alg[TS_CTR_ACTIVATIONS], infl = T[0]->st.alg[TS_CTR_INFLATED];
    /* a key never folded has exact stamps (0, 0) but the cells hold others' stamps */
    struct row *fresh = R(NKEYS);
    struct ts_entry *e = ts_acquire(T[0], fresh);
    uint64_t w, r;
    stamps(e, &w, &r);
    CHECK(w > 0);
    CHECK_EQ_U(T[0]->st.alg[TS_CTR_ACTIVATIONS], before + 1);
    CHECK_EQ_U(T[0]->st.alg[TS_CTR_INFLATED], infl + 1);
    uint64_t xw = w, xr = r;
    CHECK(ts_exact(e, &xw, &xr));
    CHECK_EQ_U(xw, 0);
    CHECK_EQ_U(xr, 0);
    ts_release(T[0], fresh, e);
}

/* The result's ts_store object, as ts_store_json writes it. */
static char *store_json(void)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    ts_store_json(f);
    fclose(f);
    return buf;
}

static void many_held(void)
{
    static struct ts_entry *e[HELD_KEYS];
    CHECK(strstr(store_json(), "\"active_buckets\":256,\"slots_per_bucket\":4,") != NULL);
    CHECK(strstr(store_json(), "\"overflow_slots\":0,") != NULL);
    for (uint64_t k = 0; k < HELD_KEYS; k++)
        e[k] = ts_acquire(T[0], R(k));
    CHECK(strstr(store_json(), "\"overflow_slots\":0,") == NULL);
    const uint64_t base = (uint64_t)1 << 40; /* above every stamp the cases before set */
    for (uint64_t k = 0; k < HELD_KEYS; k++) {
        raise_to(e[k], base + k, base + k);
        CHECK(ts_acquire(T[1], R(k)) == e[k]);
    }
    for (uint64_t k = 0; k < HELD_KEYS; k++) {
        uint64_t w, r;
        stamps(e[k], &w, &r);
        CHECK_EQ_U(w, base + k); /* no two keys share an entry */
        ts_release(T[1], R(k), e[k]);
        ts_release(T[0], R(k), e[k]);
    }
    ts_fold_released();
}

static void dead_release(void)
{
    uint64_t acts = T[0]->st.alg[TS_CTR_ACTIVATIONS];
    struct ts_entry *e = ts_acquire(T[0], R(3));
    ts_release(T[0], R(3), e);
    CHECK(ts_acquire(T[0], R(3)) == e); /* released live: still in its slot */
    CHECK_EQ_U(T[0]->st.alg[TS_CTR_ACTIVATIONS], acts + 1);
    ts_release_dead(T[0], R(3), e);
    e = ts_acquire(T[0], R(3)); /* dropped: activated anew */
    CHECK_EQ_U(T[0]->st.alg[TS_CTR_ACTIVATIONS], acts + 2);
    ts_release(T[0], R(3), e);
}

int main(void)
{
    clock_calibrate();
    ts_sketch_bytes = 1024;
    cc_init(NT);
    tab = make_table(HELD_KEYS > NKEYS + 1 ? HELD_KEYS : NKEYS + 1, false);
    for (int i = 0; i < NT; i++) {
        T[i] = txn_create(i, false);
        cc_thread_init(T[i]);
    }
    RUN_CASE(never_underestimates);
    if (!MUTANT) {
        RUN_CASE(active_keys_exact);
        RUN_CASE(concurrent);
        RUN_CASE(counters);
        RUN_CASE(many_held);
        RUN_CASE(dead_release);
    }
    for (int i = 0; i < NT; i++) {
        cc_thread_fini(T[i]);
        txn_destroy(T[i]);
    }
    cc_fini();
    return check_failures ? 1 : 0;
}
