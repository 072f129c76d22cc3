/* The geo layer's clients (cc/geo.h geo_run): the driver's worker threads, each with its
 * ring of attempt records and its pool of CC contexts; an attempt's setup (participants,
 * coordinator, correspondent), its execution and the wait for its decision. The
 * protocols' handlers are in cc/geo_commit.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/geo_internal.h"
#include "cc/txn.h"

/* Optional (cc/cc.h): the algorithm's reads take locks (2PL): an attempt aborted for a
 * stale read-optimised read re-executes with its reads at the leaders (the seed's rule). */
extern const bool cc_alg_locking __attribute__((weak));

static struct geo_client *clients;
static struct geo_client_stats *cstats;
static int nclients;

struct geo_client_stats *geo_client_st(int client) { return &cstats[client]; }
int geo_clients(void) { return nclients; }

bool geo_configure(const struct geo_config *c, int clients_n, char *err, unsigned errlen)
{
    if (!txn_has_commit_split()) {
        snprintf(err, errlen,
                 "--geo: %s has no commit split (cc_prepare, cc_finish) the geo layer can "
                 "drive without waiting; use no-wait or silo",
                 cc_alg_name);
        return false;
    }
    if (c->d.nshards > 32) {
        snprintf(err, errlen, "--geo: at most 32 shards");
        return false;
    }
    geo_cfg = *c;
    geo_on = true;
    nclients = clients_n;
    clients = calloc((size_t)clients_n, sizeof(*clients));
    cstats = calloc((size_t)clients_n, sizeof(*cstats));
    if (!clients || !cstats) {
        snprintf(err, errlen, "--geo: out of memory for %d clients", clients_n);
        return false;
    }
    return true;
}

/* ---- clients, attempt records, CC contexts ---- */

static struct geo_client *client_of(int thread)
{
    struct geo_client *cl = &clients[thread];
    if (cl->ready)
        return cl;
    cl->thread = thread;
    cl->dc = thread % geo_cfg.d.ndcs;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cl->c, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&cl->ring_mu, NULL);
    pthread_cond_init(&cl->ring_cv, NULL);
    pthread_mutex_init(&cl->pool_mu, NULL);
    for (int i = 0; i < GEO_ATT_RING; i++) {
        struct geo_att *a = &cl->att[i];
        pthread_mutex_init(&a->mu, NULL);
        a->cl = cl;
        for (int p = 0; p < GEO_MAX_SHARDS; p++) {
            pthread_mutex_init(&a->part[p].dep_mu, NULL);
            a->part[p].att = a;
        }
    }
    cl->ready = true;
    return cl;
}

struct txn *geo_ctx_get(struct geo_client *cl)
{
    pthread_mutex_lock(&cl->pool_mu);
    struct txn *t = cl->npool ? cl->pool[--cl->npool] : NULL;
    pthread_mutex_unlock(&cl->pool_mu);
    if (!t) {
        t = txn_create(cl->thread, false);
        t->no_wait = true;
        cc_thread_init(t);
    }
    return t;
}

void geo_ctx_put(struct geo_client *cl, struct txn *t)
{
    pthread_mutex_lock(&cl->pool_mu);
    if (cl->npool < (int)(sizeof(cl->pool) / sizeof(cl->pool[0]))) {
        cl->pool[cl->npool++] = t;
        t = NULL;
    }
    pthread_mutex_unlock(&cl->pool_mu);
    if (t) {
        cc_thread_fini(t);
        txn_destroy(t);
    }
}

void geo_att_unref(struct geo_att *att)
{
    /* release: this handler's writes to the record happen before its reuse (the client's
     * acquire load of refs) */
    if (atomic_fetch_sub_explicit(&att->refs, 1, memory_order_release) == 1) {
        struct geo_client *cl = att->cl;
        pthread_mutex_lock(&cl->ring_mu);
        pthread_cond_broadcast(&cl->ring_cv);
        pthread_mutex_unlock(&cl->ring_mu);
    }
}

static struct geo_att *att_get(struct geo_client *cl)
{
    pthread_mutex_lock(&cl->ring_mu);
    for (;;) {
        for (int i = 0; i < GEO_ATT_RING; i++)
            if (atomic_load_explicit(&cl->att[i].refs, memory_order_acquire) == 0) {
                pthread_mutex_unlock(&cl->ring_mu);
                atomic_store_explicit(&cl->att[i].refs, 1, memory_order_relaxed);
                return &cl->att[i];
            }
        pthread_cond_wait(&cl->ring_cv, &cl->ring_mu);
    }
}

/* Fills p's write entries (values from the client, this attempt's version id). */
static void part_fill_writes(struct geo_att *att, struct geo_part *p)
{
    p->npc = 0;
    for (int j = 0; j < p->nops; j++) {
        int i = p->op[j];
        const struct geo_op *o = &att->spec->op[i];
        if (!geo_op_writes(o))
            continue;
        struct geo_pc *e = &p->pc[p->npc++];
        *e = (struct geo_pc){.key = o->key, .value = att->val[i], .wid = att->id, .part = p};
    }
}

/* ---- the client ---- */

static void att_init(struct geo_att *att, struct txn *t, const struct geo_spec *s)
{
    struct geo_client *cl = att->cl;
    att->id = t->id;
    att->dc = cl->dc;
    att->group = (int)(t->id % (uint64_t)geo_cfg.cocoord_groups);
    att->s.tag = s->tag;
    att->s.nops = s->nops;
    memcpy(att->s.op, s->op, (size_t)s->nops * sizeof(s->op[0]));
    att->spec = &att->s;
    att->seed = t->id * 0x9e3779b97f4a7c15ull;
    att->corr = att->dc;
    if (geo_fail_any() && geo_cfg.protocol == GEO_D2PC) {
        uint64_t now = geo_now_ns();
        /* the correspondent: the client's datacenter's co-coordinator, else the nearest
         * one not known dead */
        if (geo_cocoord_known_dead(att->dc, now)) {
            att->corr = -1;
            for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
                if (!geo_cocoord_known_dead(dc, now) &&
                    (att->corr < 0 || geo_delay_ms(att->dc, dc) < geo_delay_ms(att->dc, att->corr)))
                    att->corr = dc;
        }
    }
    att->nro = !geo_cfg.read_opt ||
               (&cc_alg_locking && cc_alg_locking && cl->last_stale && cl->last_tag == s->tag);
    att->npreds = 0;
    att->nparts = 0;
    memset(att->part_of_shard, -1, sizeof(att->part_of_shard));
    att->pending_reads = 0;
    att->read_failed = att->decided = att->commit = att->client_knows = false;
    att->reason = AR_COUNT;
    att->votes = 0;
    memset(att->cvotes, 0, sizeof(att->cvotes));
    memset(att->cpre, 0, sizeof(att->cpre));
    att->corr_votes = att->corr_slow = 0;
    memset(att->corr_replies, 0, sizeof(att->corr_replies));
    memset(att->cdec, 0, sizeof(att->cdec));
    att->timer_fires = 0;
    att->recovering = att->rec_done = att->rec_term = false;
    att->rec_dc = att->rec_wait = 0;
    att->decision_ns = 0;
    att->client_commit = false;
    att->msgs = 0;
    for (int i = 0; i < s->nops; i++) {
        int shard = (int)(s->op[i].key % (uint64_t)geo_cfg.d.nshards);
        if (att->part_of_shard[shard] < 0) {
            int q = att->nparts++;
            att->part_of_shard[shard] = (int8_t)q;
            struct geo_part *p = &att->part[q];
            pthread_mutex_lock(&p->dep_mu);
            p->gen++;
            p->closed = p->outcome = false;
            p->nout = 0;
            pthread_mutex_unlock(&p->dep_mu);
            p->shard = shard;
            p->leader = geo_cfg.d.leader_dc[shard];
            p->nops = p->npc = 0;
            memset(p->began, 0, sizeof(p->began));
            memset(p->held, 0, sizeof(p->held));
            memset(p->ended, 0, sizeof(p->ended));
            memset(p->marks, 0, sizeof(p->marks));
            p->cc_start = 0;
            p->prepared = p->vote_sent = p->vote_yes = p->precommitted = p->finished = false;
            p->dec_commit = p->replicated = p->slow_sent = p->term_wait = p->term_no = false;
            p->pref = false;
            p->decided = false;
            p->acks = p->fast_yes = p->fast_no = 0;
            p->no_reason = AR_COUNT;
            atomic_store(&p->in, 0);
            atomic_store(&p->deferred, 0);
        }
        struct geo_part *p = &att->part[att->part_of_shard[shard]];
        p->op[p->nops++] = (uint8_t)i;
    }
    /* 2pc's coordinator: the participant leader in the client's datacenter, else the
     * nearest one */
    att->coord = att->part[0].leader;
    for (int q = 0; q < att->nparts; q++) {
        int l = att->part[q].leader;
        if (l == att->dc || (att->coord != att->dc &&
                             geo_delay_ms(att->dc, l) < geo_delay_ms(att->dc, att->coord)))
            att->coord = l;
    }
}

static void record_history(struct txn *t, struct geo_att *att)
{
    const struct geo_spec *s = att->spec;
    uint16_t tab = geo_table(0)->id;
    for (int i = 0; i < s->nops; i++) {
        const struct geo_op *o = &s->op[i];
        if (geo_op_reads(o))
            hist_append(t->hist, HIST_READ, tab, o->key, 0, att->rwid[i], 0);
        if (geo_op_writes(o))
            hist_append(t->hist, HIST_WRITE, tab, o->key, 0, att->replaced[i], att->id);
    }
}

enum rc geo_run(struct txn *t, const struct geo_spec *s, int64_t *vals)
{
    struct geo_client *cl = client_of(t->thread_id);
    struct geo_att *att = att_get(cl);
    /* before att_init: a timer of the record's last attempt reads the id under mu */
    pthread_mutex_lock(&att->mu);
    att_init(att, t, s);
    att->start_ns = geo_now_ns();
    bool has_reads = false;
    for (int i = 0; i < s->nops; i++)
        has_reads |= geo_op_reads(&s->op[i]);

    /* execution: the reads */
    if (has_reads) {
        if (!att->nro) {
            att->pending_reads = 1;
            geo_msg(att, EV_LREAD, 0, att->dc, att->dc, true, att->start_ns);
        } else {
            for (int q = 0; q < att->nparts; q++) {
                const struct geo_part *p = &att->part[q];
                bool reads = false;
                for (int j = 0; j < p->nops; j++)
                    reads |= geo_op_reads(&s->op[p->op[j]]);
                if (reads) {
                    att->pending_reads++;
                    geo_msg(att, EV_READ, q, att->dc, p->leader, true, att->start_ns);
                }
            }
        }
        while (att->pending_reads > 0)
            pthread_cond_wait(&cl->c, &att->mu);
    }
    if (!att->read_failed) {
        /* the values written, then the commit protocol */
        for (int i = 0; i < s->nops; i++) {
            const struct geo_op *o = &s->op[i];
            if (vals && geo_op_reads(o))
                vals[i] = att->val[i];
            if (o->kind == GEO_ADD)
                att->val[i] += o->arg;
            else if (o->kind == GEO_WRITE)
                att->val[i] = o->arg;
        }
        for (int q = 0; q < att->nparts; q++)
            part_fill_writes(att, &att->part[q]);
        uint64_t now = geo_now_ns();
        att->commit_start_ns = now;
        for (int q = 0; q < att->nparts; q++) {
            if (geo_cfg.protocol == GEO_CAROUSEL)
                for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
                    geo_msg(att, EV_PREPARE, q, att->dc, dc, true, now);
            else
                geo_msg(att, EV_PREPARE, q, att->dc, att->part[q].leader, true, now);
            if (geo_cfg.protocol == GEO_D2PC) {
                /* until its leader finishes: a decision lost with a crashed correspondent
                 * leaves the part (its PreCommit entries) waiting for recovery */
                att->part[q].pref = true;
                atomic_fetch_add_explicit(&att->refs, 1, memory_order_relaxed);
            }
        }
        if (geo_fail_any())
            geo_timer_arm(att, now);
        while (!att->client_knows)
            pthread_cond_wait(&cl->c, &att->mu);
    } else {
        /* release the reads that did get their locks */
        uint64_t now = geo_now_ns();
        for (int q = 0; q < att->nparts; q++)
            if (att->part[q].held[att->part[q].leader])
                geo_msg(att, EV_ABORT, q, att->dc, att->part[q].leader, false, now);
        att->commit = false;
        att->decided_ns = now;
    }
    bool commit = att->read_failed ? false : att->client_commit;
    enum abort_reason why = att->reason == AR_COUNT ? AR_VALIDATION : att->reason;
    struct geo_client_stats *st = geo_client_rec(t->thread_id);
    if (st)
        st->msgs += (uint64_t)att->msgs;
    if (commit) {
        if (t->hist)
            record_history(t, att);
        uint64_t keys[GEO_MAX_OPS];
        int nk = 0;
        for (int i = 0; i < s->nops; i++)
            if (geo_op_writes(&s->op[i]))
                keys[nk++] = s->op[i].key;
        geo_store_note_commit(t->thread_id, att->id, keys, nk, att->decision_ns, att->preds,
                              att->npreds);
        if (st) {
            latency_add(&st->latency, att->decided_ns - att->start_ns);
            st->commits++;
        }
    } else if (st) {
        st->aborts++;
        st->aborts_by[why]++;
    }
    pthread_mutex_unlock(&att->mu);
    cl->last_tag = s->tag;
    cl->last_stale = !commit && why == AR_STALE_READ;
    geo_att_unref(att);
    if (commit)
        return RC_OK;
    t->aborted = true;
    return txn_fail(t, why);
}
