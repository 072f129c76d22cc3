/* The storage model (see storage_model.h): the CLOCK cache, its misses and evictions, and
 * the device delays. */
#include "storage/storage_model.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "storage/clock.h"
#include "storage/mem.h"
#include "storage/wait.h"

bool sm_on;
bool sm_ts_on_storage;

/* Presets: (read, write) latency in microseconds; our choices (docs/models.md, Storage model). */
static const struct {
    const char *name;
    double read_us, write_us;
} presets[] = {
    {"dram", 0.1, 0.1}, {"cxl", 2, 2}, {"nvme", 80, 20}, {"sata", 200, 100}, {"hdd", 5000, 5000},
};
const char sm_preset_names[] = "dram, cxl, nvme, sata or hdd";

static struct sm_config cfg;
/* Delays in ns, from cfg. */
static uint64_t read_ns, write_ns;

/* The cache. slots[i] is the row slot i holds (NULL: empty, only until the cold cache has
 * filled); hand is the next slot CLOCK looks at. Both only under `lock`; the rows the
 * slots hold are exactly the resident ones (storage_model.h, invariant 1). */
static struct {
    pthread_mutex_t lock;
    struct row **slots;
    uint64_t n, hand;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool sm_preset(const char *name, double *read_us, double *write_us)
{
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
        if (strcmp(name, presets[i].name) == 0) {
            *read_us = presets[i].read_us;
            *write_us = presets[i].write_us;
            return true;
        }
    return false;
}

/* 10% of the rows handed out in the catalog's tables (placed tables' chunk tails
 * included), at least 1. */
static uint64_t default_cache_rows(void)
{
    uint64_t rows = 0;
    for (int i = 0; i < catalog_count(); i++)
        if (catalog_table(i))
            rows += table_nrows(catalog_table(i));
    return rows / 10 ? rows / 10 : 1;
}

bool sm_configure(const struct sm_config *c, char *err, unsigned errlen)
{
    pthread_mutex_lock(&cache.lock);
    for (uint64_t i = 0; i < cache.n; i++) /* the rows of an earlier configuration */
        if (cache.slots[i])
            atomic_store_explicit(&cache.slots[i]->sm_state, 0, memory_order_relaxed);
    mem_free(cache.slots);
    cache.slots = NULL;
    cache.n = cache.hand = 0;
    sm_on = sm_ts_on_storage = false;
    pthread_mutex_unlock(&cache.lock);
    if (c->read_us <= 0)
        return true;
    if (c->write_us <= 0) {
        snprintf(err, errlen, "storage model: the write latency must be above 0");
        return false;
    }
    cfg = *c;
    if (!cfg.cache_rows)
        cfg.cache_rows = default_cache_rows();
    read_ns = (uint64_t)(cfg.read_us * 1e3);
    write_ns = (uint64_t)(cfg.write_us * 1e3);
    cache.slots = mem_zalloc(cfg.cache_rows * sizeof(*cache.slots));
    cache.n = cfg.cache_rows;
    sm_ts_on_storage = cfg.ts_on_storage;
    sm_on = true;
    return true;
}

const struct sm_config *sm_settings(void) { return &cfg; }

void sm_thread_init(void)
{
    /* the sleeps are short (tens of microseconds): the default slack (50 us) would double
     * them */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void sm_stats_merge(struct sm_stats *dst, const struct sm_stats *src)
{
    dst->hits += src->hits;
    dst->reads += src->reads;
    dst->meta_reads += src->meta_reads;
    dst->writes += src->writes;
    dst->meta_writes += src->meta_writes;
    dst->stall_ticks += src->stall_ticks;
}

uint64_t sm_resident_rows(void)
{
    uint64_t k = 0;
    pthread_mutex_lock(&cache.lock);
    for (uint64_t i = 0; i < cache.n; i++)
        k += cache.slots[i] != NULL;
    pthread_mutex_unlock(&cache.lock);
    return k;
}

/* Waits ns nanoseconds of device time (sleeps from SM_SLEEP_MIN_NS on, else spins);
 * returns the ticks it took and adds them to st. */
static uint64_t stall(struct sm_stats *st, uint64_t ns)
{
    if (!ns)
        return 0;
    uint64_t t0 = clock_ticks();
    if (ns >= SM_SLEEP_MIN_NS) {
        wait_note(WAIT_STORAGE, NULL, -1); /* for the stall watchdog */
        uint64_t deadline = clock_now_ns() + ns;
        struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        wait_end();
    } else {
        uint64_t until = t0 + (uint64_t)((double)ns * 1e-9 * clock_ticks_per_s);
        while (clock_ticks() < until)
            cpu_relax();
    }
    uint64_t d = clock_ticks() - t0;
    st->stall_ticks += d;
    return d;
}

/* Under the mutex: a slot for a new row, by CLOCK. An empty slot if the hand is at one;
 * else the first row whose reference bit is clear (bits found set are cleared on the
 * way), or after two sweeps, as hits may keep setting them, the row at the hand. The
 * victim is made non-resident; *victim gets its state bits (dirty marks). */
static uint64_t pick_slot(uint32_t *victim)
{
    *victim = 0;
    for (uint64_t probes = 0;; probes++) {
        uint64_t i = cache.hand;
        cache.hand = i + 1 == cache.n ? 0 : i + 1;
        struct row *v = cache.slots[i];
        if (!v)
            return i;
        /* relaxed: see storage_model.h */
        uint32_t s = atomic_load_explicit(&v->sm_state, memory_order_relaxed);
        if ((s & SM_REF) && probes < 2 * cache.n) {
            SHW(SHW_ROW);
            atomic_fetch_and_explicit(&v->sm_state, ~SM_REF, memory_order_relaxed);
            continue;
        }
        /* one exchange takes the dirty marks and clears SM_RESIDENT (invariant 2) */
        SHW(SHW_ROW);
        *victim = atomic_exchange_explicit(&v->sm_state, 0, memory_order_relaxed);
        return i;
    }
}

/* Brings r into the cache with state `bits` (SM_RESIDENT and more), then pays: the read
 * (`read`: one, plus the metadata read with ts_on_storage) and the victim's writes. */
static uint64_t install(struct sm_stats *st, struct row *r, uint32_t bits, bool read)
{
    uint32_t victim;
    pthread_mutex_lock(&cache.lock);
    /* relaxed: SM_RESIDENT changes only under the mutex, which we hold */
    uint32_t s = atomic_load_explicit(&r->sm_state, memory_order_relaxed);
    if (s & SM_RESIDENT) { /* another thread brought it in since we looked */
        SHW(SHW_ROW);
        atomic_fetch_or_explicit(&r->sm_state, bits, memory_order_relaxed);
        pthread_mutex_unlock(&cache.lock);
        st->hits++;
        return 0;
    }
    SHW(SHW_GLOBAL); /* the hand and the slot */
    uint64_t i = pick_slot(&victim);
    cache.slots[i] = r;
    SHW(SHW_ROW);
    atomic_store_explicit(&r->sm_state, bits, memory_order_relaxed);
    pthread_mutex_unlock(&cache.lock);

    uint64_t ns = 0;
    if (read) {
        st->reads++;
        ns += read_ns;
        if (sm_ts_on_storage) {
            st->meta_reads++;
            ns += read_ns;
        }
    }
    if (victim & SM_DIRTY) {
        st->writes++;
        ns += write_ns;
    }
    if ((victim & SM_META_DIRTY) && sm_ts_on_storage) {
        st->meta_writes++;
        ns += write_ns;
    }
    return stall(st, ns);
}

uint64_t sm_miss_slow(struct sm_stats *st, struct row *r)
{
    return install(st, r, SM_RESIDENT | SM_REF, true);
}

uint64_t sm_insert(struct sm_stats *st, struct row *r)
{
    /* relaxed: see storage_model.h. A reused row (an aborted insert's) may still be
     * resident: then marking it is enough. */
    uint32_t s = atomic_load_explicit(&r->sm_state, memory_order_relaxed);
    while (s & SM_RESIDENT)
        if (atomic_compare_exchange_weak_explicit(&r->sm_state, &s, s | SM_REF | SM_DIRTY,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            SHW(SHW_ROW);
            return 0;
        }
    return install(st, r, SM_RESIDENT | SM_REF | SM_DIRTY, false);
}

uint64_t sm_mark_slow(struct sm_stats *st, struct row *r, uint32_t bit)
{
    /* relaxed: see storage_model.h; the mark only lands on a resident row (invariant 2) */
    uint32_t s = atomic_load_explicit(&r->sm_state, memory_order_relaxed);
    while (s & SM_RESIDENT) {
        if (s & bit)
            return 0;
        if (atomic_compare_exchange_weak_explicit(&r->sm_state, &s, s | bit,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            SHW(SHW_ROW);
            return 0;
        }
    }
    /* evicted since its access: written through now */
    if (bit == SM_DIRTY)
        st->writes++;
    else
        st->meta_writes++;
    return stall(st, write_ns);
}
