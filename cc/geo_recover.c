/* The geo layer's recovery from failures (cc/geo_fail.c says which nodes are down): the
 * deciders' timers and D2PC's recovery of a transaction whose correspondent died.
 *
 * Timers (armed at Prepare in runs with a failure, one timeout apart). A live decider (2pc's
 * coordinator, carousel's client, d2pc's correspondent in a run without a co-coordinator
 * kill) that has not decided when its timer fires aborts: it alone decides and never
 * dies, so the abort is safe, and it is what ends a transaction whose shard lost its
 * majority (the seed's arrow 7: PreCommitted, then aborted; its write-read dependants
 * cascade). In a run that kills co-coordinators, a plain abort by the correspondent is not
 * safe: if it dies before the abort reaches the leaders, nothing remembers it, and a
 * backup's termination would commit what the client was told aborted. So the live
 * correspondent's timeout runs the termination protocol itself (case 2 below, with
 * rec_dc = the correspondent): the decision is then rebuilt from the leaders' answers,
 * which no later termination can read otherwise. A d2pc correspondent that died (in the
 * middle of its own termination or not) is replaced, once every node knows it is dead, by
 * the nearest live co-coordinator (the backup), which never aborts on its own:
 *   case 1  it asks every other live co-coordinator for the decision's copy (the
 *           correspondent sends one to each as it decides); any copy is the decision;
 *   case 2  no copy: the termination protocol; every participant leader answers with its
 *           decision if it has one, else its vote once replicated; a leader that has not
 *           voted votes no there and then (it refuses the Prepare when it comes). All
 *           replicated yes votes: commit (what the correspondent would have decided);
 *           any no vote: abort; a leader's decision: that decision.
 *   The backup then tells the client, every leader and the co-coordinators.
 * Invariant: a leader's answer never changes once given (a decision stays, a vote no stays,
 * a replicated vote yes becomes only the decision built from it), so every termination of
 * an attempt, the correspondent's and a backup's after it, reaches the same decision, and
 * a copy is one of them or the correspondent's normal decision.
 * Why this is safe: a crashed node's messages arrive before the crash or never
 * (cc/geo_fail.c), and recovery starts a timeout after it, so the copies and the leaders'
 * decisions it reads no longer change; the correspondent commits only on every shard's
 * replicated yes vote, which termination reads back. Every co-coordinator kill happens at
 * one instant, so a backup (live after it) never dies. Recovery needs the votes'
 * replication to finish (--kill-cocoord with --lose-majority is refused): a vote whose
 * replication never finished would leave its termination reply waiting, and the attempt
 * would be reported stuck after GEO_MAX_TIMER_FIRES timeouts.
 */
#include <stdatomic.h>

#include "cc/geo_internal.h"

#define GEO_MAX_TIMER_FIRES 64

static void count(_Atomic uint64_t *c) { atomic_fetch_add_explicit(c, 1, memory_order_relaxed); }

/* Nothing is left to do for att: its client knows, and (d2pc) every leader finished. */
static bool settled(const struct geo_att *att)
{
    if (!att->client_knows)
        return false;
    for (int q = 0; q < att->nparts && geo_cfg.protocol == GEO_D2PC; q++)
        if (!att->part[q].finished)
            return false;
    return true;
}

static void rec_decide(struct geo_att *att, bool commit, bool from_copy, uint64_t now)
{
    if (att->rec_done)
        return;
    att->rec_done = true;
    int b = att->rec_dc;
    if (b == att->corr) {
        count(&geo_fail_st.timeout_terminations);
        if (!commit)
            count(&geo_fail_st.timeout_aborts);
    } else {
        count(from_copy ? &geo_fail_st.case1 : &geo_fail_st.case2);
    }
    if (!commit && att->reason == AR_COUNT)
        att->reason = AR_FAILURE;
    if (!att->decision_ns)
        att->decision_ns = now;
    att->cdec[b] = commit ? 1 : 2;
    geo_msg(att, EV_CLIENT, 0, b, att->dc, commit, now);
    for (int q = 0; q < att->nparts; q++)
        geo_msg(att, EV_DECISION, q, b, att->part[q].leader, commit, now);
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        if (dc != b && dc != att->corr && !geo_cocoord_known_dead(dc, now))
            geo_msg(att, EV_CDEC, 0, b, dc, commit, now);
}

/* rec_dc asks every participant leader (case 2). */
static void terminate(struct geo_att *att, uint64_t now)
{
    att->rec_term = true;
    att->rec_wait = att->nparts;
    for (int q = 0; q < att->nparts; q++)
        geo_msg(att, EV_TERM, q, att->rec_dc, att->part[q].leader, 0, now);
}

/* Co-coordinator dc starts recovering att; whatever an earlier (dead) one did is void. */
static void recover_at(struct geo_att *att, int dc)
{
    att->recovering = true;
    att->rec_done = att->rec_term = false;
    att->rec_dc = dc;
    att->rec_wait = 0;
}

static void backup_start(struct geo_att *att, uint64_t now)
{
    int b = -1;
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        if (dc != att->corr && !geo_cocoord_dead(dc, now) &&
            (b < 0 || geo_delay_ms(att->dc, dc) < geo_delay_ms(att->dc, b)))
            b = dc;
    if (b < 0) /* geo_fail_parse keeps one co-coordinator alive */
        return;
    recover_at(att, b);
    if (att->cdec[b]) {
        rec_decide(att, att->cdec[b] == 1, true, now);
        return;
    }
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        if (dc != b && dc != att->corr && !geo_cocoord_known_dead(dc, now)) {
            geo_msg(att, EV_ASK, 0, b, dc, 0, now);
            att->rec_wait++;
        }
    if (att->rec_wait == 0)
        terminate(att, now);
}

void geo_timer(struct geo_att *att, uint64_t now, int ex)
{
    (void)ex;
    if (settled(att))
        return;
    count(&geo_fail_st.timer_fires);
    if (geo_cfg.protocol != GEO_D2PC) {
        if (!att->decided) {
            count(&geo_fail_st.timeout_aborts);
            geo_decide(att, false, AR_FAILURE, now);
        }
    } else if (!geo_cocoord_dead(att->corr, now)) {
        if (att->decided || att->recovering) {
            /* decided, or its termination is under way: its messages arrive */
        } else if (geo_fail_kills_cocoords()) {
            recover_at(att, att->corr);
            terminate(att, now);
        } else {
            count(&geo_fail_st.timeout_aborts);
            geo_decide(att, false, AR_FAILURE, now);
        }
    } else if (geo_cocoord_known_dead(att->corr, now) &&
               (!att->recovering || att->rec_dc == att->corr)) {
        backup_start(att, now);
    }
    if (++att->timer_fires >= GEO_MAX_TIMER_FIRES) {
        count(&geo_fail_st.stuck);
        return;
    }
    geo_timer_arm(att, now);
}

/* EV_TERM at part's leader, from the recovering co-coordinator `from`. */
static void term_at_leader(struct geo_att *att, int part, int from, uint64_t now, int ex)
{
    struct geo_part *p = &att->part[part];
    int r;
    if (p->finished) {
        r = p->dec_commit ? 3 : 2;
    } else if (p->vote_sent && !p->vote_yes) {
        r = 0;
    } else if (p->vote_sent && p->replicated) {
        r = 1;
    } else if (p->vote_sent) {
        p->term_wait = true; /* geo_d2pc_replicated replies */
        return;
    } else {
        /* not voted (its Prepare still on its way, or its vote deferred): no one has its
         * vote, so no one can have committed; it votes no now */
        p->term_no = true;
        p->no_reason = AR_FAILURE;
        geo_part_release(att, p, p->leader, false, now, ex);
        r = 0;
    }
    geo_msg(att, EV_TERM_REPLY, part, p->leader, from, r, now);
}

void geo_recover_handle(struct geo_att *att, const struct geo_ev *ev, uint64_t now, int ex)
{
    switch ((enum geo_ev_type)ev->type) {
    case EV_CDEC:
        att->cdec[ev->dc] = ev->yes ? 1 : 2;
        break;
    case EV_ASK:
        geo_msg(att, EV_ANSWER, 0, ev->dc, ev->from, att->cdec[ev->dc], now);
        break;
    case EV_ANSWER: /* the address check: replies to a dead recoverer are void */
        if (att->rec_done || att->rec_term || ev->dc != att->rec_dc)
            break;
        if (ev->yes)
            rec_decide(att, ev->yes == 1, true, now);
        else if (--att->rec_wait == 0)
            terminate(att, now);
        break;
    case EV_TERM:
        term_at_leader(att, ev->shard, ev->from, now, ex);
        break;
    case EV_TERM_REPLY:
        if (att->rec_done || !att->rec_term || ev->dc != att->rec_dc)
            break;
        if (ev->yes >= 2)
            rec_decide(att, ev->yes == 3, false, now);
        else if (ev->yes == 0)
            rec_decide(att, false, false, now);
        else if (--att->rec_wait == 0)
            rec_decide(att, true, false, now);
        break;
    default:
        break;
    }
}
