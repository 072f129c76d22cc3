/* The geo layer's failures (cc/geo.h struct geo_failures): the flags' parser, which
 * nodes are down at a given time, the rule that loses a message, a returning replica's
 * catch-up, and the failure counters of the result.
 *
 * Nodes. A replica is (shard, datacenter); a co-coordinator is a datacenter's (all its
 * groups fail together); clients and leaders never fail. A node killed at K is down from
 * K on (a replica with a duration D: in [K, K + D)). A message is lost when its
 * destination is down at its delivery deadline, or when its sender was killed while it
 * was in flight (sent before K, due at or after K: the crash cuts the node's links, so a
 * decision broadcast shortly before a crash reaches only the nodes near it: the seed's
 * recovery case 1).
 *
 * Detection. Every node learns of a failure one timeout after it (geo_timeout_ns: twice
 * the deployment's largest round trip, scaled), the heartbeat timeout of a failure
 * detector; a returning replica announces itself at once. Until then a node sends to the
 * failed one as before (and the messages are lost).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/geo_internal.h"

/* the warm-up's start (ns; 0: not yet, so nothing has failed) */
static _Atomic uint64_t origin_ns;
/* the follower's, the majority's return: catch-up passes done (0, 1 or 2; see
 * geo_fail_tick) */
static _Atomic int caught_up[2];
struct geo_fail_stats geo_fail_st;

/* geo_timeout_ns's value, set with the origin (before any failure can be known) */
static uint64_t timeout_ns;

static uint64_t timeout_of_deployment(void)
{
    double hi = geo_delay_ms(0, 0);
    for (int i = 0; i < geo_cfg.d.ndcs; i++)
        for (int j = 0; j < geo_cfg.d.ndcs; j++)
            if (i != j && geo_delay_ms(i, j) > hi)
                hi = geo_delay_ms(i, j);
    return (uint64_t)(4 * hi * 1e6); /* two round trips */
}

void geo_fail_origin(uint64_t now_ns)
{
    timeout_ns = timeout_of_deployment();
    /* release: pairs with the acquire loads of kill_ns, which every reader of timeout_ns
     * (a timer, a known-failure test) makes first */
    atomic_store_explicit(&origin_ns, now_ns, memory_order_release);
}

static const struct geo_failures *F(void) { return &geo_cfg.fail; }

bool geo_fail_any_in(const struct geo_failures *f)
{
    return f->cocoord_mask || f->follower_shard >= 0 || f->majority_shard >= 0;
}

bool geo_fail_any(void) { return geo_fail_any_in(F()); }

uint64_t geo_decider_timeout_ns(void)
{
    double ms = F()->decider_timeout_ms;
    return ms > 0 ? (uint64_t)(ms / geo_cfg.time_scale * 1e6) : geo_timeout_ns();
}

bool geo_fail_kills_cocoords(void) { return F()->cocoord_mask != 0; }

uint64_t geo_timeout_ns(void)
{
    return atomic_load_explicit(&origin_ns, memory_order_acquire) ? timeout_ns
                                                                  : timeout_of_deployment();
}

/* The instant s seconds after the origin (UINT64_MAX before the run starts). */
static uint64_t kill_ns(double s)
{
    uint64_t o = atomic_load_explicit(&origin_ns, memory_order_acquire);
    return o ? o + (uint64_t)(s * 1e9) : UINT64_MAX;
}

static bool down_in(double at_s, double for_s, uint64_t now)
{
    uint64_t k = kill_ns(at_s);
    return now >= k && (for_s <= 0 || now < k + (uint64_t)(for_s * 1e9));
}

bool geo_cocoord_dead(int dc, uint64_t now)
{
    return (F()->cocoord_mask >> dc & 1) && now >= kill_ns(F()->cocoord_at_s);
}

bool geo_cocoord_known_dead(int dc, uint64_t now)
{
    uint64_t k = kill_ns(F()->cocoord_at_s);
    return (F()->cocoord_mask >> dc & 1) && k != UINT64_MAX && now >= k + geo_timeout_ns();
}

bool geo_cocoords_degraded(uint64_t now)
{
    for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
        if (geo_cocoord_known_dead(dc, now))
            return true;
    return false;
}

bool geo_replica_dead(int shard, int dc, uint64_t now)
{
    const struct geo_failures *f = F();
    if (shard == f->follower_shard && dc == f->follower_dc &&
        down_in(f->follower_at_s, f->follower_for_s, now))
        return true;
    return shard == f->majority_shard && dc != geo_cfg.d.leader_dc[shard] &&
           down_in(f->majority_at_s, f->majority_for_s, now);
}

bool geo_shard_known_unavailable(int shard, uint64_t now)
{
    const struct geo_failures *f = F();
    if (shard != f->majority_shard)
        return false;
    uint64_t k = kill_ns(f->majority_at_s);
    return k != UINT64_MAX && now >= k + geo_timeout_ns() &&
           down_in(f->majority_at_s, f->majority_for_s, now);
}

/* When the replica (shard, dc) was killed, if it ever is (UINT64_MAX: never). */
static uint64_t replica_kill(int shard, int dc)
{
    const struct geo_failures *f = F();
    if (shard == f->follower_shard && dc == f->follower_dc)
        return kill_ns(f->follower_at_s);
    if (shard == f->majority_shard && dc != geo_cfg.d.leader_dc[shard])
        return kill_ns(f->majority_at_s);
    return UINT64_MAX;
}

enum node { N_NONE, N_REPLICA, N_COCOORD };

static enum node dst_node(int type)
{
    switch (type) {
    case EV_PREPARE: case EV_REPL: case EV_APPLY: case EV_DECISION: case EV_TERM:
        return N_REPLICA;
    case EV_CVOTE: case EV_CORR: case EV_CDEC: case EV_ASK: case EV_ANSWER:
    case EV_TERM_REPLY:
        return N_COCOORD;
    case EV_SLOW: /* d2pc's slow path: leader -> correspondent; carousel's: -> client */
        return geo_cfg.protocol == GEO_D2PC ? N_COCOORD : N_NONE;
    default:
        return N_NONE;
    }
}

static enum node src_node(int type)
{
    switch (type) {
    case EV_REPL_ACK: case EV_FAST: case EV_CVOTE: case EV_TERM_REPLY: case EV_SLOW:
        return N_REPLICA;
    case EV_PRE: case EV_CORR: case EV_CDEC: case EV_ASK: case EV_ANSWER: case EV_TERM:
        return N_COCOORD;
    case EV_DECISION: case EV_CLIENT: /* d2pc: from the correspondent (or its backup) */
        return geo_cfg.protocol == GEO_D2PC ? N_COCOORD : N_NONE;
    default:
        return N_NONE;
    }
}

bool geo_ev_lost(const struct geo_att *att, const struct geo_ev *ev)
{
    int shard = att->part[ev->shard].shard;
    switch (dst_node(ev->type)) {
    case N_REPLICA:
        if (geo_replica_dead(shard, ev->dc, ev->at))
            return true;
        break;
    case N_COCOORD:
        if (geo_cocoord_dead(ev->dc, ev->at))
            return true;
        break;
    case N_NONE:
        break;
    }
    uint64_t k = UINT64_MAX;
    switch (src_node(ev->type)) {
    case N_REPLICA:
        k = replica_kill(shard, ev->from);
        break;
    case N_COCOORD:
        if (F()->cocoord_mask >> ev->from & 1)
            k = kill_ns(F()->cocoord_at_s);
        break;
    case N_NONE:
        break;
    }
    return ev->sent < k && k <= ev->at;
}

/* The returning replica's catch-up pass that is due at `now` and that this caller is the
 * one to run (1: at its return; 2: one failure timeout later), or 0. The second pass
 * copies what the leader installed after the first for decisions made while the replica
 * was down: their messages to it were lost, while the leader's own install can come up
 * to a one-way delay after the return (or be handled after an event of a later time from
 * another link). Copying a version early is harmless: a replica takes a version only
 * above its own (geo_store_finish), so its own message, if it arrives, changes nothing. */
static int catch_up_due(int i, double at_s, double for_s, uint64_t now)
{
    int done = atomic_load_explicit(&caught_up[i], memory_order_relaxed);
    if (done >= 2)
        return 0;
    uint64_t k = kill_ns(at_s);
    if (k == UINT64_MAX) /* the run has not started: nothing failed yet */
        return 0;
    uint64_t back = k + (uint64_t)(for_s * 1e9);
    if (now < back + (done ? geo_timeout_ns() : 0))
        return 0;
    return atomic_compare_exchange_strong(&caught_up[i], &done, done + 1) ? done + 1 : 0;
}

void geo_fail_tick(uint64_t now)
{
    const struct geo_failures *f = F();
    int pass;
    if (f->follower_shard >= 0 && f->follower_for_s > 0 &&
        (pass = catch_up_due(0, f->follower_at_s, f->follower_for_s, now))) {
        geo_store_catch_up(f->follower_shard, f->follower_dc);
        if (pass == 1) /* relaxed: a counter; one per return, not per pass */
            atomic_fetch_add_explicit(&geo_fail_st.catch_ups, 1, memory_order_relaxed);
    }
    if (f->majority_shard >= 0 && f->majority_for_s > 0 &&
        (pass = catch_up_due(1, f->majority_at_s, f->majority_for_s, now))) {
        for (int dc = 0; dc < geo_cfg.d.ndcs; dc++)
            if (dc != geo_cfg.d.leader_dc[f->majority_shard]) {
                geo_store_catch_up(f->majority_shard, dc);
                if (pass == 1)
                    atomic_fetch_add_explicit(&geo_fail_st.catch_ups, 1, memory_order_relaxed);
            }
    }
}

/* ---- the flags ---- */

static int dc_by_name(const struct geo_deploy *d, const char *name, size_t n)
{
    for (int i = 0; i < d->ndcs; i++)
        if (strlen(d->dc_name[i]) == n && strncmp(d->dc_name[i], name, n) == 0)
            return i;
    return -1;
}

static void dc_list(const struct geo_deploy *d, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < d->ndcs; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", d->dc_name[i]);
}

/* "@S" or "@S+D" at s (D: -1 when absent); false on anything else. */
static bool parse_when(const char *s, double *at, double *dur)
{
    char *end;
    if (*s != '@')
        return false;
    *at = strtod(s + 1, &end);
    if (end == s + 1 || !isfinite(*at) || *at < 0)
        return false;
    *dur = -1;
    if (*end == '+') {
        const char *d = end + 1;
        *dur = strtod(d, &end);
        if (end == d || !isfinite(*dur) || *dur <= 0)
            return false;
    }
    return *end == 0;
}

static bool parse_shard(const struct geo_deploy *d, const char *s, const char **rest, int *shard)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v >= d->nshards)
        return false;
    *shard = (int)v;
    *rest = end;
    return true;
}

bool geo_fail_parse(struct geo_config *c, const char *kill_cocoord, const char *kill_follower,
                    const char *lose_majority, char *err, unsigned errlen)
{
    struct geo_failures *f = &c->fail;
    const struct geo_deploy *d = &c->d;
    memset(f, 0, sizeof(*f));
    f->follower_shard = f->majority_shard = -1;
    char names[GEO_MAX_DCS * (GEO_NAME_MAX + 2)];
    dc_list(d, names, sizeof(names));
    if (*kill_cocoord) {
        const char *at = strchr(kill_cocoord, '@');
        double dur;
        if (c->protocol != GEO_D2PC) {
            snprintf(err, errlen, "--kill-cocoord: only d2pc has co-coordinators (--commit d2pc)");
            return false;
        }
        if (!at || !parse_when(at, &f->cocoord_at_s, &dur)) {
            snprintf(err, errlen, "--kill-cocoord: '%s' is not DC[,DC...]@SECONDS", kill_cocoord);
            return false;
        }
        if (dur > 0) {
            snprintf(err, errlen, "--kill-cocoord: a killed co-coordinator stays down (no +D)");
            return false;
        }
        for (const char *p = kill_cocoord; p < at;) {
            const char *e = memchr(p, ',', (size_t)(at - p));
            size_t n = (size_t)((e ? e : at) - p);
            int dc = dc_by_name(d, p, n);
            if (dc < 0) {
                snprintf(err, errlen, "--kill-cocoord: no datacenter '%.*s' in %s (it has %s)",
                         (int)n, p, d->path, names);
                return false;
            }
            f->cocoord_mask |= 1u << dc;
            p = e ? e + 1 : at;
        }
        if (f->cocoord_mask == (1u << d->ndcs) - 1) {
            snprintf(err, errlen, "--kill-cocoord: every co-coordinator would be down; "
                                  "recovery needs one alive");
            return false;
        }
    }
    if (*kill_follower) {
        const char *rest, *at = strchr(kill_follower, '@');
        if (!parse_shard(d, kill_follower, &rest, &f->follower_shard) || *rest != '/' || !at ||
            !parse_when(at, &f->follower_at_s, &f->follower_for_s)) {
            snprintf(err, errlen, "--kill-follower: '%s' is not SHARD/DC@SECONDS[+SECONDS] "
                                  "(shards 0..%d)", kill_follower, d->nshards - 1);
            return false;
        }
        f->follower_dc = dc_by_name(d, rest + 1, (size_t)(at - rest - 1));
        if (f->follower_dc < 0) {
            snprintf(err, errlen, "--kill-follower: no datacenter '%.*s' in %s (it has %s)",
                     (int)(at - rest - 1), rest + 1, d->path, names);
            return false;
        }
        if (f->follower_dc == d->leader_dc[f->follower_shard]) {
            snprintf(err, errlen, "--kill-follower: %s holds shard %d's leader, not a follower "
                                  "(leaders are not killed)",
                     d->dc_name[f->follower_dc], f->follower_shard);
            return false;
        }
    }
    if (*lose_majority) {
        const char *rest;
        if (!parse_shard(d, lose_majority, &rest, &f->majority_shard) ||
            !parse_when(rest, &f->majority_at_s, &f->majority_for_s)) {
            snprintf(err, errlen, "--lose-majority: '%s' is not SHARD@SECONDS[+SECONDS] "
                                  "(shards 0..%d)", lose_majority, d->nshards - 1);
            return false;
        }
        if (d->ndcs < 2) {
            snprintf(err, errlen, "--lose-majority: one datacenter: shard %d has no followers",
                     f->majority_shard);
            return false;
        }
    }
    if (f->cocoord_mask && f->majority_shard >= 0) {
        /* a dead correspondent's termination reads replicated votes back */
        snprintf(err, errlen, "--kill-cocoord with --lose-majority: recovery handles one of "
                              "them at a time");
        return false;
    }
    return true;
}

/* ---- the result ---- */

static uint64_t ld(_Atomic uint64_t *v) { return atomic_load_explicit(v, memory_order_relaxed); }

void geo_fail_json(FILE *f)
{
    const struct geo_failures *x = F();
    const struct geo_deploy *d = &geo_cfg.d;
    fputs("{\"injected\":[", f);
    bool first = true;
    if (x->cocoord_mask) {
        fputs("{\"kind\":\"cocoord\",\"datacenters\":[", f);
        for (int i = 0, n = 0; i < d->ndcs; i++)
            if (x->cocoord_mask >> i & 1)
                fprintf(f, "%s\"%s\"", n++ ? "," : "", d->dc_name[i]);
        fprintf(f, "],\"at_s\":%g}", x->cocoord_at_s);
        first = false;
    }
    if (x->follower_shard >= 0) {
        fprintf(f, "%s{\"kind\":\"follower\",\"shard\":%d,\"datacenter\":\"%s\",\"at_s\":%g,"
                   "\"for_s\":%g}",
                first ? "" : ",", x->follower_shard, d->dc_name[x->follower_dc],
                x->follower_at_s, x->follower_for_s > 0 ? x->follower_for_s : 0);
        first = false;
    }
    if (x->majority_shard >= 0)
        fprintf(f, "%s{\"kind\":\"majority\",\"shard\":%d,\"at_s\":%g,\"for_s\":%g}",
                first ? "" : ",", x->majority_shard, x->majority_at_s,
                x->majority_for_s > 0 ? x->majority_for_s : 0);
    struct geo_fail_stats *s = &geo_fail_st;
    fprintf(f, "],\"timeout_ms\":%.3f,\"decider_timeout_ms\":%.3f,\"lost_messages\":%llu,"
               "\"timer_fires\":%llu,"
               "\"timeout_aborts\":%llu,\"timeout_terminations\":%llu,"
               "\"recovered_from_copy\":%llu,"
               "\"recovered_by_termination\":%llu,\"catch_ups\":%llu,"
               "\"conflicting_decisions\":%llu,\"stuck\":%llu}",
            (double)geo_timeout_ns() / 1e6, (double)geo_decider_timeout_ns() / 1e6,
            (unsigned long long)ld(&s->lost),
            (unsigned long long)ld(&s->timer_fires), (unsigned long long)ld(&s->timeout_aborts),
            (unsigned long long)ld(&s->timeout_terminations),
            (unsigned long long)ld(&s->case1), (unsigned long long)ld(&s->case2),
            (unsigned long long)ld(&s->catch_ups), (unsigned long long)ld(&s->conflicts),
            (unsigned long long)ld(&s->stuck));
}
