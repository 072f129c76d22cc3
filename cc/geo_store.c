/* The geo layer's replicated data (cc/geo_internal.h): every datacenter holds a replica
 * of every shard, a value, version id and version number per key; the leader's copy
 * also holds the key's PreCommit list (D2PC's early-visible writes). Beside it, per
 * datacenter, a table of the row store whose rows carry only the linked algorithm's CC
 * metadata (the leaders lock and validate on them; carousel's replicas too), and the
 * after-run checks.
 *
 * Item invariants (guarded by the item's latch):
 *  - (value, wid, seq) is the newest committed version this replica has installed; a
 *    replica installs a version only if its seq is higher (messages may arrive out of
 *    order, and a version committed below a newer one is not installed over it), so
 *    every replica converges on the leader's newest committed version.
 *  - At the leader, pc lists the PreCommitted, not yet decided versions, highest seq
 *    first; the newest version of the key is the higher of pc's head and the committed
 *    one. next_seq is the last version number handed out (under the writer's exclusive CC
 *    access to the key, so numbers follow the order in which writers held it).
 *  - readers: how many prepared transactions hold a read mark on the key at this replica
 *    (OCC's validation marks, held from Prepare to the end of the CC period: an
 *    optimistic algorithm validates its reads once, at Prepare, and a distributed commit
 *    then waits; a writer that prepares meanwhile must see them and vote no).
 *  - sum / count: the wrapping sum and number of version ids the leader installed (the
 *    atomicity check compares them with the committed transactions' writes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/geo_internal.h"
#include "cc/txn.h"
#include "storage/latch.h"
#include "storage/mem.h"
#include "storage/table.h"

struct item {
    _Atomic uint32_t latch;
    int64_t value;
    uint64_t wid, seq, next_seq;
    struct geo_pc *pc;
    uint64_t sum, count;
    uint32_t readers; /* prepared readers' marks (algorithms whose reads take no lock) */
};

static struct item *items[GEO_MAX_DCS];
static struct table *tables[GEO_MAX_DCS];
static int64_t (*init_value)(uint64_t key);

/* One committed attempt's writes, for the checks (appended by its client only). */
struct commit_rec {
    uint64_t wid, commit_ns;
    int nkeys, npreds;
    uint64_t keys[GEO_MAX_OPS];
    uint64_t preds[GEO_MAX_OPS];
};
struct commit_log {
    struct commit_rec *r;
    size_t n, cap;
};
static struct commit_log logs[MAX_THREADS];

static inline int leader_of(uint64_t key)
{
    return geo_cfg.d.leader_dc[key % (uint64_t)geo_cfg.d.nshards];
}

struct table *geo_table(int dc) { return tables[dc]; }

uint64_t geo_rows_to_load(uint64_t keys) { return keys * (uint64_t)geo_cfg.d.ndcs; }

void geo_create(int64_t (*init)(uint64_t key))
{
    geo_net_start();
    init_value = init;
    struct schema s;
    /* the rows hold no data of the workload: one column the algorithms may copy */
    schema_init(&s, false);
    schema_add(&s, "cc", COL_UINT64, 8);
    schema_seal(&s);
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++) {
        char name[GEO_NAME_MAX + 8];
        snprintf(name, sizeof(name), "geo_%s", geo_cfg.d.dc_name[dc]);
        tables[dc] = table_create(strdup(name), &s, geo_cfg.keys, true);
        items[dc] = mem_zalloc(geo_cfg.keys * sizeof(struct item));
    }
}

void geo_fill_items(uint64_t lo, uint64_t hi)
{
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        for (uint64_t k = lo; k < hi; k++) {
            struct item *it = &items[dc][k];
            latch_init(&it->latch);
            it->value = init_value ? init_value(k) : 0;
        }
}

/* The newest version of it (under its latch): the committed one, or the PreCommitted
 * list's head where that is newer. */
static void newest(const struct item *it, struct geo_version *v)
{
    bool pc = it->pc && it->pc->seq > it->seq;
    v->value = pc ? it->pc->value : it->value;
    v->wid = pc ? it->pc->wid : it->wid;
    v->seq = pc ? it->pc->seq : it->seq;
    v->pc = pc ? it->pc : NULL;
}

void geo_store_read(int dc, uint64_t key, struct geo_version *v)
{
    struct item *it = &items[dc][key];
    latch_acquire(&it->latch);
    newest(it, v);
    latch_release(&it->latch);
}

bool geo_store_read_dep(int dc, uint64_t key, struct geo_version *v, struct geo_part *r,
                        uint64_t *pred)
{
    struct item *it = &items[dc][key];
    bool ok = true;
    *pred = 0;
    latch_acquire(&it->latch);
    newest(it, v);
    /* listed, so its writer's record is alive (its decision handler unlists it) */
    if (v->pc)
        ok = geo_dep_register(v->pc, r, pred);
    latch_release(&it->latch);
    return ok;
}

void geo_store_mark(int dc, uint64_t key, int delta)
{
    struct item *it = &items[dc][key];
    latch_acquire(&it->latch);
    it->readers = (uint32_t)((int)it->readers + delta);
    latch_release(&it->latch);
}

bool geo_store_marked(int dc, uint64_t key)
{
    struct item *it = &items[dc][key];
    latch_acquire(&it->latch);
    bool m = it->readers != 0;
    latch_release(&it->latch);
    return m;
}

uint64_t geo_store_next_seq(int dc, uint64_t key)
{
    struct item *it = &items[dc][key];
    latch_acquire(&it->latch);
    uint64_t s = ++it->next_seq;
    latch_release(&it->latch);
    return s;
}

void geo_store_precommit(int dc, struct geo_pc *e)
{
    struct item *it = &items[dc][e->key];
    latch_acquire(&it->latch);
    struct geo_pc **p = &it->pc;
    while (*p && (*p)->seq > e->seq)
        p = &(*p)->next;
    e->next = *p;
    *p = e;
    latch_release(&it->latch);
}

void geo_store_finish(int dc, struct geo_pc *e, bool commit, bool listed)
{
    struct item *it = &items[dc][e->key];
    latch_acquire(&it->latch);
    if (listed) {
        struct geo_pc **p = &it->pc;
        while (*p && *p != e)
            p = &(*p)->next;
        if (*p)
            *p = e->next;
        e->next = NULL;
    }
    if (commit && e->seq > it->seq) {
        it->value = e->value;
        it->wid = e->wid;
        it->seq = e->seq;
    }
    if (commit && dc == leader_of(e->key)) {
        it->sum += e->wid;
        it->count++;
    }
    latch_release(&it->latch);
}

void geo_store_catch_up(int shard, int dc)
{
    int l = geo_cfg.d.leader_dc[shard];
    for (uint64_t k = (uint64_t)shard; k < geo_cfg.keys; k += (uint64_t)geo_cfg.d.nshards) {
        struct item *lead = &items[l][k], *f = &items[dc][k];
        latch_acquire(&lead->latch);
        int64_t value = lead->value;
        uint64_t wid = lead->wid, seq = lead->seq;
        latch_release(&lead->latch);
        latch_acquire(&f->latch);
        if (seq > f->seq) {
            f->value = value;
            f->wid = wid;
            f->seq = seq;
        }
        latch_release(&f->latch);
    }
}

void geo_store_note_commit(int client, uint64_t wid, const uint64_t *keys, int n,
                           uint64_t commit_ns, const uint64_t *preds, int npreds)
{
    struct commit_log *l = &logs[client];
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->r = realloc(l->r, l->cap * sizeof(*l->r));
        if (!l->r) {
            fprintf(stderr, "geo: out of memory for the commit log\n");
            exit(1);
        }
    }
    struct commit_rec *r = &l->r[l->n++];
    r->wid = wid;
    r->commit_ns = commit_ns;
    r->nkeys = n;
    r->npreds = npreds;
    memcpy(r->keys, keys, (size_t)n * sizeof(*keys));
    memcpy(r->preds, preds, (size_t)npreds * sizeof(*preds));
}

static int cmp_rec_wid(const void *a, const void *b)
{
    uint64_t x = (*(const struct commit_rec *const *)a)->wid;
    uint64_t y = (*(const struct commit_rec *const *)b)->wid;
    return x < y ? -1 : x > y;
}

static const struct commit_rec *find_rec(struct commit_rec **v, size_t n, uint64_t wid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid]->wid < wid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo]->wid == wid ? v[lo] : NULL;
}

/* Every committed write is installed at its leader, and nothing else: per key, the sum
 * and count of installed version ids equal those of the committed writers. */
static size_t check_atomicity(FILE *out)
{
    uint64_t nk = geo_cfg.keys;
    uint64_t *sum = mem_zalloc(nk * sizeof(*sum)), *cnt = mem_zalloc(nk * sizeof(*cnt));
    for (int c = 0; c < MAX_THREADS; c++)
        for (size_t i = 0; i < logs[c].n; i++) {
            const struct commit_rec *r = &logs[c].r[i];
            for (int k = 0; k < r->nkeys; k++) {
                sum[r->keys[k]] += r->wid;
                cnt[r->keys[k]]++;
            }
        }
    size_t bad = 0;
    for (uint64_t k = 0; k < nk; k++) {
        const struct item *it = &items[leader_of(k)][k];
        if (it->sum != sum[k] || it->count != cnt[k]) {
            if (bad++ < 3 && out)
                fprintf(out, "geo check: key %llu: the leader installed %llu versions, the "
                             "committed transactions wrote %llu (or other ones)\n",
                        (unsigned long long)k, (unsigned long long)it->count,
                        (unsigned long long)cnt[k]);
        }
    }
    free(sum);
    free(cnt);
    return bad;
}

/* After the drain: every follower holds its leader's version (one still down is not
 * compared, and said so); no PreCommit list is left. */
static size_t check_replicas(FILE *out, size_t *left)
{
    size_t bad = 0;
    *left = 0;
    uint64_t now = geo_now_ns();
    for (int s = 0; s < geo_cfg.d.nshards; s++)
        for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
            if (geo_replica_dead(s, dc, now) && out)
                fprintf(out, "geo check: the replica of shard %d in %s is still down: not "
                             "compared\n", s, geo_cfg.d.dc_name[dc]);
    for (uint64_t k = 0; k < geo_cfg.keys; k++) {
        int l = leader_of(k);
        const struct item *lead = &items[l][k];
        if (lead->pc)
            ++*left;
        for (int dc = 0; dc < geo_cfg.d.ndcs; dc++) {
            const struct item *f = &items[dc][k];
            if (dc != l && !geo_replica_dead((int)(k % (uint64_t)geo_cfg.d.nshards), dc, now) &&
                (f->seq != lead->seq || f->wid != lead->wid ||
                            f->value != lead->value)) {
                if (bad++ < 3 && out)
                    fprintf(out, "geo check: key %llu: the replica in %s has version %llu, "
                                 "its leader in %s %llu\n",
                            (unsigned long long)k, geo_cfg.d.dc_name[dc],
                            (unsigned long long)f->seq, geo_cfg.d.dc_name[l],
                            (unsigned long long)lead->seq);
            }
        }
    }
    return bad;
}

/* Every committed transaction's write-read predecessors committed, no later than it. */
static size_t check_wr_order(FILE *out)
{
    size_t n = 0;
    for (int c = 0; c < MAX_THREADS; c++)
        n += logs[c].n;
    struct commit_rec **v = mem_alloc((n ? n : 1) * sizeof(*v));
    size_t j = 0;
    for (int c = 0; c < MAX_THREADS; c++)
        for (size_t i = 0; i < logs[c].n; i++)
            v[j++] = &logs[c].r[i];
    qsort(v, n, sizeof(*v), cmp_rec_wid);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < v[i]->npreds; p++) {
            const struct commit_rec *pr = find_rec(v, n, v[i]->preds[p]);
            if (!pr || pr->commit_ns > v[i]->commit_ns) {
                if (bad++ < 3 && out)
                    fprintf(out, "geo check: transaction %llx committed %s its write-read "
                                 "predecessor %llx\n",
                            (unsigned long long)v[i]->wid, pr ? "before" : "without",
                            (unsigned long long)v[i]->preds[p]);
            }
        }
    free(v);
    return bad;
}

bool geo_check(FILE *out)
{
    geo_net_drain_stop();
    if (geo_fail_any())
        geo_fail_tick(geo_now_ns()); /* a replica whose down time ended in the drain */
    size_t left = 0;
    size_t a = check_atomicity(out), r = check_replicas(out, &left), w = check_wr_order(out);
    uint64_t conflicts = atomic_load_explicit(&geo_fail_st.conflicts, memory_order_relaxed);
    uint64_t stuck = atomic_load_explicit(&geo_fail_st.stuck, memory_order_relaxed);
    if (left && out)
        fprintf(out, "geo check: %zu keys still have PreCommitted versions after the drain\n",
                left);
    if (conflicts && out)
        fprintf(out, "geo check: %llu leaders or clients were told two different decisions\n",
                (unsigned long long)conflicts);
    if (stuck && out)
        fprintf(out, "geo check: %llu attempts stayed undecided through their timeouts\n",
                (unsigned long long)stuck);
    bool ok = !a && !r && !w && !left && !conflicts && !stuck;
    if (!ok && out)
        fprintf(out, "geo check: FAILED (atomicity %zu keys, replicas %zu keys, write-read "
                     "order %zu, PreCommitted left %zu, conflicting decisions %llu, stuck "
                     "%llu)\n",
                a, r, w, left, (unsigned long long)conflicts, (unsigned long long)stuck);
    return ok;
}

int64_t geo_sum(void)
{
    int64_t s = 0;
    for (uint64_t k = 0; k < geo_cfg.keys; k++)
        s += items[leader_of(k)][k].value;
    return s;
}
