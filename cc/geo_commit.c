/* The geo layer's commit protocols (cc/geo.h): the handlers of every message of 2pc,
 * d2pc and carousel (the clients that send the first ones: cc/geo_client.c). The leaders' (and carousel's replicas') CC is
 * the linked algorithm, through the commit split (txn_prepare = the vote, txn_finish =
 * the end of the CC period), in no_wait contexts.
 *
 * Message paths (a client in datacenter a; leader of shard s in L_s; "->" one message):
 *
 *   execution  read-optimised: client -> a's replica -> client (intra-datacenter);
 *              else client -> L_s -> client for each shard read (reads at the leaders,
 *              under the CC: shared locks, or OCC copies validated at Prepare).
 *   2pc        client -> L_s: Prepare. L_s locks / validates (CC period starts), checks
 *              the read versions (stale: abort), -> followers: vote's log entry,
 *              followers -> L_s: ack; on a majority L_s -> coordinator: vote (a no
 *              vote at once, releasing). Coordinator (the participant leader in a if
 *              there is one, else the nearest) decides on all votes (or the first no)
 *              -> client, -> every L_s: decision. L_s installs, releases (CC period
 *              ends), -> followers: the committed writes.
 *   d2pc       client -> L_s: Prepare, as 2pc up to the vote; L_s -> followers: the
 *              vote's log entry, and -> its own datacenter's co-coordinator: the vote.
 *              Each follower -> its datacenter's co-coordinator: vote + replication
 *              reply + participant list. A co-coordinator with every participant's yes
 *              vote PreCommits (a no vote: pre-aborts) -> its datacenter's participant
 *              leaders, which end the CC period: write set into the keys' PreCommit
 *              lists, CC released. Every co-coordinator -> correspondent (a's
 *              co-coordinator): the vote + replication reply it got; the correspondent
 *              commits with every vote and a majority of replies per shard -> client,
 *              -> every L_s: decision (and to the other co-coordinators, off the commit
 *              path: counted, not emulated, as no failure needs it here). L_s makes
 *              the PreCommitted writes committed (or, where its co-coordinator had not
 *              PreCommitted yet, installs and releases then), -> followers: the writes.
 *              Write-read dependencies: a read at a leader of a PreCommitted version
 *              registers with its writer (in / out); the reader's leader holds its vote
 *              while in > 0; a predecessor's abort sets in = -1 (vote no: cascade).
 *   carousel   client -> every replica of s: Prepare. Each replica validates against its
 *              own copy and CC (a lagging or conflicting one votes no) -> client: fast
 *              vote. L_s also replicates its vote (-> followers -> L_s) and -> client:
 *              slow vote. A shard is decided by a super-majority (f + ceil(f/2) + 1 of
 *              2f + 1) of yes fast votes, else by the slow vote; the client decides on
 *              every shard -> every replica: decision (install, release).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/geo_internal.h"
#include "cc/txn.h"
#include "storage/table.h"

/* Optional (cc/cc.h): the algorithm's reads take locks (2PL): an attempt aborted for a
 * stale read-optimised read re-executes with its reads at the leaders (the seed's rule). */
extern const bool cc_alg_locking __attribute__((weak));

static int majority(void) { return geo_cfg.d.ndcs / 2 + 1; }
/* carousel's fast quorum of n = 2f + 1 replicas: f + ceil(f / 2) + 1 */
static int super_majority(void)
{
    int f = (geo_cfg.d.ndcs - 1) / 2;
    return f + (f + 1) / 2 + 1;
}

/* The CC context of part p at datacenter dc, begun on first use; NULL once p's CC ended
 * there (decided, or voted no). */
static struct txn *part_ctx(struct geo_att *att, struct geo_part *p, int dc)
{
    if (p->ended[dc])
        return NULL;
    if (!p->began[dc]) {
        p->sub[dc] = geo_ctx_get(att->cl);
        txn_begin(p->sub[dc], false);
        p->began[dc] = p->held[dc] = true;
    }
    return p->sub[dc];
}

/* OCC's validation marks (cc/geo_store.c): an algorithm whose reads take no lock
 * (Silo) validates them once, at Prepare; the commit layer then marks them at the replica
 * until the end of the CC period, so a writer that prepares meanwhile votes no (the
 * distributed OCC of TAPIR and the D2PC authors' code). Reads under locks need none. */
static bool reads_marked(void) { return !(&cc_alg_locking && cc_alg_locking); }

static void drop_marks(struct geo_att *att, struct geo_part *p, int dc)
{
    for (int j = 0, n = 0; j < p->nops && n < p->marks[dc]; j++) {
        const struct geo_op *o = &att->spec->op[p->op[j]];
        if (o->kind == GEO_READ) {
            geo_store_mark(dc, o->key, -1);
            n++;
        }
    }
    p->marks[dc] = 0;
}

/* Ends part p's CC at dc (commit: install and release; else roll back). */
void geo_part_release(struct geo_att *att, struct geo_part *p, int dc, bool commit,
                      uint64_t now, int ex)
{
    p->ended[dc] = true;
    if (!p->held[dc])
        return;
    drop_marks(att, p, dc);
    if (commit)
        txn_finish(p->sub[dc]);
    else
        txn_abort(p->sub[dc]);
    p->held[dc] = false;
    geo_ctx_put(att->cl, p->sub[dc]);
    p->sub[dc] = NULL;
    /* the CC period of the attempts that end it committing (a no vote ends it early: an
     * abort-heavy protocol would look short) */
    struct geo_exec_stats *es = commit ? geo_exec_rec(ex) : NULL;
    if (es && dc == p->leader && p->cc_start)
        latency_add(&es->cc_period[att->dc][dc], now - p->cc_start);
}

void geo_msg(struct geo_att *att, enum geo_ev_type type, int part, int from, int to, int yes,
             uint64_t now)
{
    struct geo_ev ev = {.att = att, .type = (uint8_t)type, .shard = (uint8_t)part,
                        .dc = (uint8_t)to, .from = (uint8_t)from, .yes = (uint8_t)yes};
    geo_send(ev, now, from, to, false);
}


static void send_internal(struct geo_att *att, enum geo_ev_type type, int part, int dc,
                          bool yes, uint64_t now)
{
    struct geo_ev ev = {.att = att, .type = (uint8_t)type, .shard = (uint8_t)part,
                        .dc = (uint8_t)dc, .from = (uint8_t)dc, .yes = yes};
    geo_send(ev, now, dc, dc, true);
}

static void wake_client(struct geo_att *att) { pthread_cond_broadcast(&att->cl->c); }

/* ---- write-read dependencies (d2pc) ---- */

bool geo_dep_register(struct geo_pc *e, struct geo_part *r, uint64_t *pred)
{
    struct geo_part *w = e->part;
    bool ok = true;
    pthread_mutex_lock(&w->dep_mu);
    if (w->closed) {
        ok = w->outcome; /* decided: committed (no dependency) or aborted (no read) */
    } else if (w->nout == GEO_MAX_OUT) {
        ok = false;
    } else {
        w->out[w->nout++] = (struct geo_dep){r, r->gen};
        /* relaxed: in is read by r's own handlers, under r's attempt mutex or by the
         * deferred-vote handshake's seq_cst operations below */
        atomic_fetch_add(&r->in, 1);
        *pred = w->att->id;
    }
    pthread_mutex_unlock(&w->dep_mu);
    return ok;
}

/* Writer part w was decided at its leader: its readers learn it. */
static void deps_decided(struct geo_part *w, bool commit, uint64_t now)
{
    pthread_mutex_lock(&w->dep_mu);
    w->closed = true;
    w->outcome = commit;
    int n = w->nout;
    struct geo_dep out[GEO_MAX_OUT];
    memcpy(out, w->out, (size_t)n * sizeof(out[0]));
    w->nout = 0;
    pthread_mutex_unlock(&w->dep_mu);
    for (int i = 0; i < n; i++) {
        struct geo_part *r = out[i].p;
        pthread_mutex_lock(&r->dep_mu);
        if (r->gen == out[i].gen) {
            int left;
            if (commit)
                left = atomic_fetch_sub(&r->in, 1) - 1;
            else {
                atomic_store(&r->in, -1);
                left = -1;
            }
            int one = 1;
            /* seq_cst: the handshake with the reader's prepare (one of the two sends) */
            if (left <= 0 && atomic_compare_exchange_strong(&r->deferred, &one, 0))
                send_internal(r->att, EV_DEP_READY, (int)(r - r->att->part), r->leader, true,
                              now);
        }
        pthread_mutex_unlock(&r->dep_mu);
    }
}

/* ---- the participants' work ---- */


/* Part p's Prepare at datacenter dc's replica: access every key under the CC, check the
 * versions read are that replica's newest, then the algorithm's vote. On no, p's CC
 * there is released and p->no_reason says why. */
static bool prepare_at(struct geo_att *att, struct geo_part *p, int dc, uint64_t now, int ex)
{
    if (geo_fail_any() && geo_shard_known_unavailable(p->shard, now)) {
        /* its replication cannot finish: the leader votes no at once */
        p->no_reason = AR_FAILURE;
        geo_part_release(att, p, dc, false, now, ex);
        return false;
    }
    struct txn *sub = part_ctx(att, p, dc);
    if (!sub) { /* its decision came first: the attempt has aborted */
        p->no_reason = AR_VALIDATION;
        return false;
    }
    const struct geo_spec *s = att->spec;
    struct table *tab = geo_table(dc);
    enum abort_reason why = AR_COUNT;
    for (int j = 0; j < p->nops && why == AR_COUNT; j++) {
        int i = p->op[j];
        const struct geo_op *o = &s->op[i];
        struct row *r = txn_lookup(sub, tab, o->key);
        const unsigned char *img;
        enum rc rc = o->kind == GEO_READ ? txn_read(sub, r, COLS_ALL, &img)
                                         : txn_read_for_update(sub, r, COLS_ALL, &img);
        if (rc != RC_OK) {
            why = sub->reason;
            break;
        }
        /* marked before the algorithm validates the read: a writer that locks the key
         * later sees the mark, one that locked it earlier fails the validation */
        if (o->kind == GEO_READ && reads_marked()) {
            geo_store_mark(dc, o->key, 1);
            p->marks[dc]++;
        }
        struct geo_version v;
        geo_store_read(dc, o->key, &v);
        /* a replica read that its leader has overwritten since; read at the leader
         * (no read optimisation), the same check is OCC's validation */
        if (geo_op_reads(o) && v.wid != att->rwid[i])
            why = att->nro ? AR_VALIDATION : AR_STALE_READ;
        if (geo_op_writes(o) && dc == p->leader)
            att->replaced[i] = v.wid;
    }
    if (why == AR_COUNT && txn_prepare(sub) != RC_OK)
        why = sub->reason;
    /* after the algorithm locked the writes: a prepared reader's mark is a conflict */
    for (int j = 0; j < p->nops && why == AR_COUNT && reads_marked(); j++) {
        const struct geo_op *o = &s->op[p->op[j]];
        if (geo_op_writes(o) && geo_store_marked(dc, o->key))
            why = AR_VALIDATION;
    }
    if (why == AR_COUNT)
        return true;
    p->no_reason = why;
    geo_part_release(att, p, dc, false, now, ex);
    return false;
}

static void assign_seqs(struct geo_part *p)
{
    for (int j = 0; j < p->npc; j++)
        p->pc[j].seq = geo_store_next_seq(p->leader, p->pc[j].key);
}

/* Installs p's writes at replica dc (listed: they are in the leader's PreCommit lists). */
static void install(struct geo_part *p, int dc, bool commit, bool listed)
{
    for (int j = 0; j < p->npc; j++)
        geo_store_finish(dc, &p->pc[j], commit, listed);
}

static void send_to_followers(struct geo_att *att, enum geo_ev_type type, int part,
                              bool yes, uint64_t now)
{
    const struct geo_part *p = &att->part[part];
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        if (dc != p->leader)
            geo_msg(att, type, part, p->leader, dc, yes, now);
}

void geo_client_learns(struct geo_att *att, bool commit, uint64_t now)
{
    if (att->client_knows) { /* a recovering co-coordinator may tell it again: the same */
        if (att->client_commit != commit)
            atomic_fetch_add_explicit(&geo_fail_st.conflicts, 1, memory_order_relaxed);
        return;
    }
    att->client_knows = true;
    att->client_commit = commit;
    att->decided_ns = now;
    wake_client(att);
}

/* The first decision of att anywhere: the write-read order check's commit time. */
static void note_decision(struct geo_att *att, uint64_t now)
{
    if (!att->decision_ns)
        att->decision_ns = now;
}

/* ---- 2pc ---- */

static void decide_2pc(struct geo_att *att, bool commit, enum abort_reason why, uint64_t now)
{
    if (att->decided)
        return;
    att->decided = true;
    att->commit = commit;
    att->reason = why;
    note_decision(att, now);
    geo_msg(att, EV_CLIENT, 0, att->coord, att->dc, commit, now);
    for (int q = 0; q < att->nparts; q++)
        geo_msg(att, EV_DECISION, q, att->coord, att->part[q].leader, commit, now);
}

/* ---- d2pc ---- */

/* The leaders' slow path (they also send their replicated votes): some co-coordinator is
 * known dead by the time of the vote, not only at the attempt's start (one begun between
 * a kill and its detection would otherwise wait for replies that never come, until its
 * timer's termination). */
static bool slow_path(uint64_t now) { return geo_cocoords_degraded(now); }

static void d2pc_send_vote(struct geo_att *att, int part, bool yes, uint64_t now, int ex)
{
    struct geo_part *p = &att->part[part];
    p->vote_sent = true;
    p->vote_yes = yes;
    if (!yes)
        geo_part_release(att, p, p->leader, false, now, ex);
    send_to_followers(att, EV_REPL, part, yes, now);
    if (!geo_cocoord_known_dead(p->leader, now))
        geo_msg(att, EV_CVOTE, part, p->leader, p->leader, yes, now);
    if (!geo_fail_any()) /* the followers' acks to the leader, read by recovery only */
        att->msgs += geo_cfg.d.ndcs - 1;
    if (majority() <= 1)
        geo_d2pc_replicated(att, part, now);
    else if (!yes && !p->slow_sent && slow_path(now)) {
        p->slow_sent = true;
        geo_msg(att, EV_SLOW, part, p->leader, att->corr, false, now);
    }
}

void geo_d2pc_replicated(struct geo_att *att, int part, uint64_t now)
{
    struct geo_part *p = &att->part[part];
    if (p->replicated)
        return;
    p->replicated = true;
    /* the slow path (a co-coordinator is known dead): the leader's replicated vote */
    if (p->vote_yes && !p->slow_sent && slow_path(now)) {
        p->slow_sent = true;
        geo_msg(att, EV_SLOW, part, p->leader, att->corr, true, now);
    }
    if (p->term_wait) {
        p->term_wait = false;
        geo_msg(att, EV_TERM_REPLY, part, p->leader, att->rec_dc, p->vote_yes ? 1 : 0, now);
    }
}

static void decide_d2pc(struct geo_att *att, bool commit, enum abort_reason why, uint64_t now)
{
    if (att->decided)
        return;
    att->decided = true;
    att->commit = commit;
    att->reason = why;
    note_decision(att, now);
    geo_msg(att, EV_CLIENT, 0, att->corr, att->dc, commit, now);
    for (int q = 0; q < att->nparts; q++)
        geo_msg(att, EV_DECISION, q, att->corr, att->part[q].leader, commit, now);
    /* the decision's copy to the other co-coordinators, off the commit path (recovery
     * reads it: a message in runs with a failure, else counted) */
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++) {
        if (dc == att->corr || geo_cocoord_known_dead(dc, now))
            continue;
        if (geo_fail_any())
            geo_msg(att, EV_CDEC, 0, att->corr, dc, commit, now);
        else
            att->msgs++;
    }
}

static void cocoord_vote(struct geo_att *att, const struct geo_ev *ev, uint64_t now)
{
    int d = ev->dc, part = ev->shard;
    if (!ev->served) {
        uint64_t done = geo_serve(d, att->group, ev->at);
        if (done > ev->at) {
            geo_requeue(ev, done);
            return;
        }
    }
    uint32_t all = (1u << att->nparts) - 1;
    if (!ev->yes) {
        if (!att->cpre[d]) {
            att->cpre[d] = true;
            for (int q = 0; q < att->nparts; q++)
                if (att->part[q].leader == d)
                    geo_msg(att, EV_PRE, q, d, d, false, now);
        }
    } else {
        att->cvotes[d] |= 1u << part;
        if (att->cvotes[d] == all && !att->cpre[d]) {
            att->cpre[d] = true;
            for (int q = 0; q < att->nparts; q++)
                if (att->part[q].leader == d)
                    geo_msg(att, EV_PRE, q, d, d, true, now);
        }
    }
    /* forward vote + replication reply to the correspondent (a's co-coordinator) */
    struct geo_ev f = *ev;
    f.type = EV_CORR;
    f.from = (uint8_t)d;
    f.dc = (uint8_t)att->corr;
    geo_send(f, now, d, att->corr, d == att->corr);
}

/* The correspondent: a vote with a replication reply through a co-coordinator (EV_CORR,
 * the fast path), or a leader's replicated vote (EV_SLOW, the slow path). A shard is
 * settled by a majority of replies or by its slow-path vote. */
static void correspondent(struct geo_att *att, const struct geo_ev *ev, bool slow, uint64_t now,
                          int ex)
{
    if (att->decided || att->recovering) /* its termination decides (cc/geo_recover.c) */
        return;
    if (!ev->yes) {
        decide_d2pc(att, false, att->part[ev->shard].no_reason, now);
        return;
    }
    att->corr_votes |= 1u << ev->shard;
    if (slow)
        att->corr_slow |= 1u << ev->shard;
    else
        att->corr_replies[ev->shard]++;
    if (att->corr_votes != (1u << att->nparts) - 1)
        return;
    for (int q = 0; q < att->nparts; q++)
        if (att->corr_replies[q] < majority() && !(att->corr_slow >> q & 1))
            return;
    struct geo_exec_stats *es = geo_exec_rec(ex);
    for (int q = 0; q < att->nparts && es; q++)
        if (att->corr_replies[q] >= majority())
            es->fast++;
        else
            es->slow++;
    decide_d2pc(att, true, AR_COUNT, now);
}

static void d2pc_precommit(struct geo_att *att, struct geo_part *p, bool yes, uint64_t now,
                           int ex)
{
    if (p->finished || !p->held[p->leader])
        return;
    if (!yes) {
        geo_part_release(att, p, p->leader, false, now, ex);
        return;
    }
    assign_seqs(p);
    for (int j = 0; j < p->npc; j++)
        geo_store_precommit(p->leader, &p->pc[j]);
    p->precommitted = true;
    geo_part_release(att, p, p->leader, true, now, ex);
    struct geo_exec_stats *es = geo_exec_rec(ex);
    if (es)
        es->cc_periods_cut++;
}

void geo_d2pc_decision(struct geo_att *att, int part, bool commit, uint64_t now, int ex)
{
    struct geo_part *p = &att->part[part];
    if (p->finished) { /* told again by a recovering co-coordinator */
        if (p->dec_commit != commit)
            atomic_fetch_add_explicit(&geo_fail_st.conflicts, 1, memory_order_relaxed);
        return;
    }
    p->finished = true;
    p->dec_commit = commit;
    if (p->precommitted) {
        install(p, p->leader, commit, true);
        deps_decided(p, commit, now);
    } else if (commit) {
        assign_seqs(p);
        install(p, p->leader, true, false);
        geo_part_release(att, p, p->leader, true, now, ex);
        deps_decided(p, true, now);
    } else {
        geo_part_release(att, p, p->leader, false, now, ex);
        deps_decided(p, false, now);
    }
    if (commit)
        send_to_followers(att, EV_APPLY, part, true, now);
    if (p->pref) {
        p->pref = false;
        atomic_fetch_sub_explicit(&att->refs, 1, memory_order_relaxed); /* the event's is held */
    }
}

/* ---- carousel ---- */

static void decide_carousel(struct geo_att *att, bool commit, enum abort_reason why,
                            uint64_t now)
{
    if (att->decided)
        return;
    att->decided = true;
    att->commit = commit;
    att->reason = why;
    note_decision(att, now);
    geo_client_learns(att, commit, now);
    for (int q = 0; q < att->nparts; q++)
        for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
            geo_msg(att, EV_DECISION, q, att->dc, dc, commit, now);
}

static void carousel_shard_decided(struct geo_att *att, struct geo_part *p, bool yes,
                                   bool fast, uint64_t now, int ex)
{
    if (p->decided)
        return;
    p->decided = true;
    struct geo_exec_stats *es = geo_exec_rec(ex);
    if (es && fast)
        es->fast++;
    else if (es)
        es->slow++;
    if (!yes) {
        decide_carousel(att, false, p->no_reason == AR_COUNT ? AR_VALIDATION : p->no_reason,
                        now);
        return;
    }
    for (int q = 0; q < att->nparts; q++)
        if (!att->part[q].decided)
            return;
    decide_carousel(att, true, AR_COUNT, now);
}

/* ---- execution reads ---- */

static void read_local(struct geo_att *att, uint64_t now)
{
    const struct geo_spec *s = att->spec;
    /* a shard whose replica here is down is read at its leader (the client notices at
     * once: an intra-datacenter timeout) */
    uint32_t away = 0;
    for (int q = 0; q < att->nparts && geo_fail_any(); q++)
        if (geo_replica_dead(att->part[q].shard, att->dc, now)) {
            away |= 1u << q;
            att->pending_reads++;
            geo_msg(att, EV_READ, q, att->dc, att->part[q].leader, true, now);
        }
    for (int i = 0; i < s->nops; i++)
        if (geo_op_reads(&s->op[i]) &&
            !(away >> att->part_of_shard[s->op[i].key % (uint64_t)geo_cfg.d.nshards] & 1)) {
            struct geo_version v;
            geo_store_read(att->dc, s->op[i].key, &v);
            att->val[i] = v.value;
            att->rwid[i] = v.wid;
        }
    geo_msg(att, EV_READ_REPLY, 0, att->dc, att->dc, true, now);
}

static void read_at_leader(struct geo_att *att, int part, uint64_t now, int ex)
{
    struct geo_part *p = &att->part[part];
    struct txn *sub = part_ctx(att, p, p->leader); /* nothing is decided before the reads */
    struct table *tab = geo_table(p->leader);
    bool ok = true;
    for (int j = 0; j < p->nops && ok; j++) {
        int i = p->op[j];
        const struct geo_op *o = &att->spec->op[i];
        if (!geo_op_reads(o))
            continue;
        const unsigned char *img;
        struct row *r = txn_lookup(sub, tab, o->key);
        enum rc rc = o->kind == GEO_READ ? txn_read(sub, r, COLS_ALL, &img)
                                         : txn_read_for_update(sub, r, COLS_ALL, &img);
        if (rc != RC_OK) {
            p->no_reason = sub->reason;
            ok = false;
            break;
        }
        struct geo_version v;
        uint64_t pred = 0;
        if (!geo_store_read_dep(p->leader, o->key, &v, p, &pred)) {
            p->no_reason = AR_CASCADE;
            ok = false;
            break;
        }
        if (pred && att->npreds < GEO_MAX_OPS)
            att->preds[att->npreds++] = pred;
        struct geo_exec_stats *es = pred ? geo_exec_rec(ex) : NULL;
        if (es)
            es->wr_deps++;
        att->val[i] = v.value;
        att->rwid[i] = v.wid;
    }
    if (!ok) {
        geo_part_release(att, p, p->leader, false, now, ex);
        att->read_failed = true;
        if (att->reason == AR_COUNT)
            att->reason = p->no_reason;
    }
    geo_msg(att, EV_READ_REPLY, part, p->leader, att->dc, ok, now);
}

/* ---- dispatch ---- */

static void handle_prepare(struct geo_att *att, const struct geo_ev *ev, uint64_t now, int ex)
{
    struct geo_part *p = &att->part[ev->shard];
    int dc = ev->dc;
    if (dc == p->leader)
        p->cc_start = now;
    if (geo_cfg.protocol == GEO_CAROUSEL) {
        bool yes = prepare_at(att, p, dc, now, ex);
        if (yes && dc == p->leader)
            assign_seqs(p);
        geo_msg(att, EV_FAST, ev->shard, dc, att->dc, yes, now);
        if (dc == p->leader) {
            if (yes && geo_cfg.d.ndcs > 1)
                send_to_followers(att, EV_REPL, ev->shard, true, now);
            else
                geo_msg(att, EV_SLOW, ev->shard, dc, att->dc, yes, now);
        }
        return;
    }
    if (p->term_no) /* a recovering co-coordinator had it vote no before it arrived */
        return;
    bool yes = prepare_at(att, p, dc, now, ex);
    if (geo_cfg.protocol == GEO_2PC) {
        if (!yes || geo_cfg.d.ndcs == 1) {
            p->vote_sent = true;
            geo_msg(att, EV_VOTE, ev->shard, p->leader, att->coord, yes, now);
        } else {
            send_to_followers(att, EV_REPL, ev->shard, true, now);
        }
        return;
    }
    /* d2pc: a yes vote waits for the write-read predecessors (in > 0) */
    if (yes && atomic_load(&p->in) != 0) {
        atomic_store(&p->deferred, 1);
        int one = 1;
        /* seq_cst: either this re-check sees the predecessors' last change of in, or
         * their CAS on deferred sees our store (then they send EV_DEP_READY) */
        if (atomic_load(&p->in) != 0 || !atomic_compare_exchange_strong(&p->deferred, &one, 0))
            return;
    }
    if (yes && atomic_load(&p->in) < 0) {
        p->no_reason = AR_CASCADE;
        yes = false;
    }
    d2pc_send_vote(att, ev->shard, yes, now, ex);
}

/* A lost message (cc/geo_fail.c). A crashed carousel replica loses its locks with it. */
static void lost(struct geo_att *att, const struct geo_ev *ev, uint64_t now, int ex)
{
    atomic_fetch_add_explicit(&geo_fail_st.lost, 1, memory_order_relaxed);
    if (geo_cfg.protocol == GEO_CAROUSEL && ev->type == EV_DECISION)
        geo_part_release(att, &att->part[ev->shard], ev->dc, false, now, ex);
}

static void handle(struct geo_att *att, const struct geo_ev *ev, int ex)
{
    uint64_t now = ev->at;
    struct geo_part *p = &att->part[ev->shard];
    if (geo_fail_any()) {
        geo_fail_tick(now);
        if (geo_ev_lost(att, ev)) {
            lost(att, ev, now, ex);
            return;
        }
    }
    switch ((enum geo_ev_type)ev->type) {
    case EV_LREAD:
        read_local(att, now);
        break;
    case EV_READ:
        read_at_leader(att, ev->shard, now, ex);
        break;
    case EV_READ_REPLY:
        if (--att->pending_reads == 0)
            wake_client(att);
        break;
    case EV_PREPARE:
        handle_prepare(att, ev, now, ex);
        break;
    case EV_REPL:
        if (geo_cfg.protocol != GEO_D2PC) {
            geo_msg(att, EV_REPL_ACK, ev->shard, ev->dc, p->leader, true, now);
            break;
        }
        /* the follower -> its co-coordinator; and, read by recovery only, -> its leader */
        if (!geo_cocoord_known_dead(ev->dc, now))
            geo_msg(att, EV_CVOTE, ev->shard, ev->dc, ev->dc, ev->yes, now);
        if (geo_fail_any())
            geo_msg(att, EV_REPL_ACK, ev->shard, ev->dc, p->leader, true, now);
        break;
    case EV_REPL_ACK:
        if (geo_cfg.protocol == GEO_D2PC) {
            if (++p->acks + 1 >= majority())
                geo_d2pc_replicated(att, ev->shard, now);
            break;
        }
        if (++p->acks + 1 >= majority() && !p->vote_sent) {
            p->vote_sent = true;
            if (geo_cfg.protocol == GEO_2PC)
                geo_msg(att, EV_VOTE, ev->shard, p->leader, att->coord, true, now);
            else
                geo_msg(att, EV_SLOW, ev->shard, p->leader, att->dc, true, now);
        }
        break;
    case EV_VOTE:
        if (!ev->yes)
            decide_2pc(att, false, p->no_reason, now);
        else if (++att->votes == att->nparts)
            decide_2pc(att, true, AR_COUNT, now);
        break;
    case EV_DECISION:
        if (geo_cfg.protocol == GEO_2PC) {
            if (ev->yes) {
                assign_seqs(p);
                install(p, p->leader, true, false);
                send_to_followers(att, EV_APPLY, ev->shard, true, now);
            }
            geo_part_release(att, p, p->leader, ev->yes, now, ex);
        } else if (geo_cfg.protocol == GEO_D2PC) {
            geo_d2pc_decision(att, ev->shard, ev->yes, now, ex);
        } else { /* carousel: at every replica */
            if (ev->yes)
                install(p, ev->dc, true, false);
            geo_part_release(att, p, ev->dc, ev->yes, now, ex);
        }
        break;
    case EV_APPLY:
        install(p, ev->dc, true, false);
        break;
    case EV_CLIENT:
        geo_client_learns(att, ev->yes, now);
        break;
    case EV_CVOTE:
        cocoord_vote(att, ev, now);
        break;
    case EV_PRE:
        d2pc_precommit(att, p, ev->yes, now, ex);
        break;
    case EV_CORR:
        correspondent(att, ev, false, now, ex);
        break;
    case EV_DEP_READY: {
        if (p->finished || p->term_no)
            break;
        bool yes = atomic_load(&p->in) == 0;
        if (!yes)
            p->no_reason = AR_CASCADE;
        d2pc_send_vote(att, ev->shard, yes, now, ex);
        break;
    }
    case EV_FAST:
        if (!p->decided) {
            if (ev->yes)
                p->fast_yes++;
            else
                p->fast_no++;
            if (ev->from == p->leader)
                p->vote_yes = ev->yes;
            /* the fast quorum includes the leader */
            if (p->fast_yes >= super_majority() && p->vote_yes)
                carousel_shard_decided(att, p, true, true, now, ex);
        }
        break;
    case EV_SLOW:
        if (geo_cfg.protocol == GEO_D2PC)
            correspondent(att, ev, true, now, ex);
        else
            carousel_shard_decided(att, p, ev->yes, false, now, ex);
        break;
    case EV_ABORT:
        geo_part_release(att, p, p->leader, false, now, ex);
        break;
    case EV_CDEC:
    case EV_ASK:
    case EV_ANSWER:
    case EV_TERM:
    case EV_TERM_REPLY:
        geo_recover_handle(att, ev, now, ex);
        break;
    case EV_TIMER: /* geo_handle's */
    case EV_NTYPES:
        break;
    }
}

void geo_handle(const struct geo_ev *ev, int executor)
{
    struct geo_att *att = ev->att;
    pthread_mutex_lock(&att->mu);
    if (ev->type == EV_TIMER) {
        /* no reference: the record may hold a later attempt by now (att_init writes the
         * id under mu) */
        if (att->id == ev->id) {
            geo_fail_tick(ev->at);
            geo_timer(att, ev->at, executor);
        }
        pthread_mutex_unlock(&att->mu);
        return;
    }
    handle(att, ev, executor);
    pthread_mutex_unlock(&att->mu);
    geo_att_unref(att);
}

void geo_decide(struct geo_att *att, bool commit, enum abort_reason why, uint64_t now)
{
    if (geo_cfg.protocol == GEO_2PC)
        decide_2pc(att, commit, why, now);
    else if (geo_cfg.protocol == GEO_D2PC)
        decide_d2pc(att, commit, why, now);
    else
        decide_carousel(att, commit, why, now);
}

void geo_timer_arm(struct geo_att *att, uint64_t now)
{
    struct geo_ev ev = {.att = att, .type = EV_TIMER, .id = att->id};
    geo_send_timer(ev, now + geo_decider_timeout_ns());
}
