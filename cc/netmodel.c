/* The network model (see netmodel.h): legs, rounds and the phases of an attempt. */
#include "cc/netmodel.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "storage/clock.h"
#include "storage/table.h"
#include "storage/wait.h"

/* Optional in an algorithm (net_configure refuses the model without it): weak here only,
 * so the algorithms' definitions stay strong. */
#pragma weak cc_net_rounds

bool net_on;
uint64_t net_delay_ticks;
static struct net_config cfg;

/* Where an attempt is in its rounds. */
enum { NET_IDLE, NET_SHOT, NET_EXECUTED, NET_PREPARE, NET_DECIDED };

bool net_configure(const struct net_config *c, char *err, unsigned errlen)
{
    cfg = *c;
    net_on = c->rtt_us > 0 || c->jitter_us > 0 || c->msg_cpu_us > 0;
    /* clock_calibrate ran before: ticks of rtt/2 plus the mean jitter */
    net_delay_ticks = net_on ? (uint64_t)((c->rtt_us / 2 + c->jitter_us / 2) * 1e-6 *
                                          clock_ticks_per_s)
                             : 0;
    if (net_on && !&cc_net_rounds) {
        snprintf(err, errlen, "this algorithm declares no network rounds (cc_net_rounds)");
        net_on = false;
        net_delay_ticks = 0;
        return false;
    }
    return true;
}

void net_thread_init(struct net_txn *n, int thread, struct net_stats *st)
{
    rng_seed(&n->rng, 0x4E37ull, (uint64_t)thread);
    n->st = st;
    n->phase = NET_IDLE;
}

void net_stats_merge(struct net_stats *dst, const struct net_stats *src)
{
    dst->rounds += src->rounds;
    dst->messages += src->messages;
    dst->legs += src->legs;
    latency_merge(&dst->lateness, &src->lateness);
}

/* Sleeps one leg: rtt/2 plus the largest of k jitter draws (the slowest of k messages). */
static void leg(struct net_txn *n, int k)
{
    double extra = 0;
    for (int i = 0; i < k && cfg.jitter_us > 0; i++) {
        double j = rng_double(&n->rng) * cfg.jitter_us;
        extra = j > extra ? j : extra;
    }
    uint64_t ns = (uint64_t)((cfg.rtt_us / 2 + extra) * 1e3);
    n->st->legs++;
    if (!ns)
        return;
    wait_note(WAIT_NETWORK, NULL, -1); /* for the stall watchdog */
    uint64_t deadline = clock_now_ns() + ns;
    struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    wait_end();
    uint64_t late = clock_now_ns() - deadline;
    latency_add(&n->st->lateness, (uint64_t)((double)late * 1e-9 * clock_ticks_per_s));
}

/* msgs messages delivered to servers: their CPU, burnt here; and counted. */
static void deliver(struct net_txn *n, int msgs)
{
    n->st->messages += (uint64_t)msgs;
    if (cfg.msg_cpu_us <= 0 || msgs <= 0)
        return;
    uint64_t until = clock_ticks() + (uint64_t)(msgs * cfg.msg_cpu_us * 1e-6 * clock_ticks_per_s);
    while (clock_ticks() < until)
        cpu_relax();
}

void net_begin_slow(struct net_txn *n)
{
    n->shot_servers = n->all_servers = 0;
    n->decided_at = 0;
    n->phase = NET_IDLE;
}

static void close_shot(struct net_txn *n);

static int server_of(const struct table *tab, uint64_t key)
{
    uint64_t h = key ^ (uint64_t)tab->id << 56; /* hashed: splitmix64's finaliser */
    return cfg.server_of ? cfg.server_of(tab, key, cfg.servers)
                         : (int)(splitmix64(&h) % (uint64_t)cfg.servers);
}

void net_access_slow(struct net_txn *n, const struct table *tab, uint64_t key)
{
    int s = server_of(tab, key);
    if (s < 0) /* replicated on every server: read locally, no message */
        return;
    if (n->phase == NET_IDLE || n->phase == NET_EXECUTED) {
        leg(n, 1); /* a new shot: its requests leave together */
        n->phase = NET_SHOT;
    }
    n->shot_servers |= 1ull << s;
}

void net_insert_slow(struct net_txn *n, const struct table *tab, uint64_t key)
{
    int s = server_of(tab, key);
    if (s >= 0)
        n->all_servers |= 1ull << s;
}

void net_shot_end_slow(struct net_txn *n)
{
    if (n->phase == NET_SHOT)
        close_shot(n);
}

/* The reply leg of the open shot (its requests were delivered to k servers). */
static void close_shot(struct net_txn *n)
{
    int k = __builtin_popcountll(n->shot_servers);
    deliver(n, k);
    leg(n, k);
    n->st->messages += (uint64_t)k; /* the replies */
    n->st->rounds++;
    n->all_servers |= n->shot_servers;
    n->shot_servers = 0;
    n->phase = NET_EXECUTED;
}

static int participants(const struct net_txn *n) { return __builtin_popcountll(n->all_servers); }

/* The decision, then the commit (or abort) leg to every participant. */
static void decide(struct net_txn *n)
{
    int k = participants(n);
    n->decided_at = clock_ticks();
    n->decided_ns = clock_now_ns();
    leg(n, k);
    deliver(n, k);
    n->st->rounds++;
    n->phase = NET_DECIDED;
}

void net_before_commit_slow(struct net_txn *n)
{
    if (n->phase == NET_SHOT)
        close_shot(n);
    if (n->phase == NET_IDLE) {
        if (!n->all_servers) /* nothing was accessed at any server */
            return;
        n->phase = NET_EXECUTED; /* inserts only: straight to prepare / commit */
    }
    if (cc_net_rounds.prepare) {
        int k = participants(n);
        leg(n, k);
        deliver(n, k);
        n->st->rounds++;
        n->phase = NET_PREPARE;
    }
    if (!cc_net_rounds.decides_in_commit)
        net_decision_slow(n);
    /* else cc_commit reaches its commit point (locks taken and validated, the wound or
     * cascade check passed, the pre-commit wait over), then calls txn_net_decision */
}

void net_decision_slow(struct net_txn *n)
{
    if (n->phase == NET_PREPARE) {
        int k = participants(n);
        n->st->messages += (uint64_t)k;
        leg(n, k); /* the prepare replies */
    }
    if (n->phase == NET_PREPARE || n->phase == NET_EXECUTED)
        decide(n);
}

void net_before_abort_slow(struct net_txn *n)
{
    if (n->phase == NET_SHOT) /* the reply that carried the conflict */
        close_shot(n);
    if (n->phase == NET_PREPARE) { /* the prepare reply that carried the failure */
        n->st->messages += (uint64_t)participants(n);
        leg(n, participants(n));
    }
    if (n->phase == NET_EXECUTED || n->phase == NET_PREPARE)
        decide(n); /* an abort decision, and its leg before the servers release */
    n->phase = NET_IDLE;
}

void net_round_slow(struct net_txn *n)
{
    int k = participants(n);
    leg(n, k);
    deliver(n, k);
    leg(n, k);
    n->st->messages += (uint64_t)k; /* the replies */
    n->st->rounds++;
}

void net_new_shot_slow(struct net_txn *n, const struct table *tab, uint64_t key)
{
    net_shot_end_slow(n);
    net_access_slow(n, tab, key);
}

void net_decision_local_slow(struct net_txn *n)
{
    n->decided_at = clock_ticks();
    n->decided_ns = clock_now_ns();
    n->phase = NET_DECIDED;
}
