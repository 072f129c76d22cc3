/* The network model (--net-rtt-us, --net-jitter-us, --net-msg-cpu-us, --servers), off by
 * default: a transaction pays the message rounds a distributed deployment of its
 * algorithm would need, while it keeps holding what it holds.
 *
 * Deployment modelled: each worker thread is a client and its transaction's coordinator;
 * rows live on --servers logical servers (by a hash of table and key, or where the
 * workload says, e.g. TPC-C by warehouse). A message takes rtt/2 plus a uniform random
 * extra delay in [0, jitter] one way. A round sends one message to each participant
 * server and waits for the slowest reply. Each message delivered to a server burns
 * --net-msg-cpu-us of CPU (servers are CPU-bound on messages), in the client's thread.
 *
 * Rounds per transaction (each algorithm declares its row in one place, cc_net_rounds):
 *   execution   one round per shot (txn_shot_end separates them): the request leg
 *               before the shot's first access (its messages leave together: one delay
 *               draw), the accesses at the servers, the reply leg after it (the slowest
 *               participant); a request is counted per row accessed (an index look-up
 *               that finds nothing sends none). Inserts open no round: the new rows
 *               travel with the prepare or commit message to their servers.
 *   prepare     (algorithms with `prepare`) one round to every participant. Its reply
 *               leg and the decision come at the algorithm's commit point, inside
 *               cc_commit (txn_net_decision): silo and tictoc after locking and
 *               validating their write set, 2PL after its wound check, Bamboo after its
 *               commit dependencies, RCC after its pre-commit wait.
 *   commit      one leg after the decision: the client knows the outcome at the decision
 *               (its latency ends there), the servers release or install only when the
 *               commit message arrives, so locks stay held over that leg too.
 *   abort       likewise: the reply leg of an open shot or of a prepare, then the abort
 *               leg, then the release.
 * Client-visible rounds / RTTs: no prepare 2 / 1 (d2PL no-wait, NCC read-write), prepare
 * 3 / 2 (dOCC, d2PL wound-wait); NCC's read-only protocol 1 / 1 (net_decision_local_slow:
 * no commit leg); NCC's smart retry +1 / +1 (net_round_slow); each extra shot +1 / +1.
 *
 * Waiting is sleeping: each leg sleeps until an absolute deadline (CLOCK_MONOTONIC), and
 * how late the thread woke is recorded (lateness). Per-thread state only. */
#ifndef CC_NETMODEL_H
#define CC_NETMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/latency.h"
#include "storage/rand.h"

struct txn;
struct table;
struct row;

/* What an algorithm declares (each defines `cc_net_rounds`; the model refuses to run an
 * algorithm that does not). */
struct cc_net_rounds {
    bool prepare;           /* a prepare round before the decision */
    bool decides_in_commit; /* cc_commit calls txn_net_decision at its commit point (after
                             * which it cannot abort); else the decision comes before
                             * cc_commit, which must then not fail */
};
extern const struct cc_net_rounds cc_net_rounds;

/* The model's settings for a run (microseconds; all 0: off). */
struct net_config {
    double rtt_us, jitter_us, msg_cpu_us;
    int servers;
    /* the server of a row of `tab` with key `key` (NULL: a hash of table and key) */
    int (*server_of)(const struct table *tab, uint64_t key, int servers);
};

/* Per-thread counters, summed by the driver. */
struct net_stats {
    uint64_t rounds, messages, legs;
    struct latency lateness; /* ticks past each leg's deadline */
};

/* Once per run, before the workers start; false with a one-line reason in err if the
 * algorithm declares no rounds. */
bool net_configure(const struct net_config *c, char *err, unsigned errlen);
/* Whether the model is on for this run. */
extern bool net_on;

/* Per-attempt state lives in struct txn (cc/txn.h: struct net_txn). */
struct net_txn {
    uint64_t shot_servers; /* participants of the open shot (bit per server) */
    uint64_t all_servers;  /* participants of the attempt */
    uint64_t decided_at;   /* ticks of the decision (0: none yet) */
    uint64_t decided_ns;   /* the same, clock_now_ns() */
    struct rng rng;        /* the thread's jitter generator */
    uint8_t phase;         /* enum in netmodel.c */
    struct net_stats *st;  /* the thread's counters (net_thread_init) */
};

void net_thread_init(struct net_txn *n, int thread, struct net_stats *st);
/* Adds src's counters to dst (the driver sums its threads'). */
void net_stats_merge(struct net_stats *dst, const struct net_stats *src);
/* Hooks of the generic transaction (cc/txn.c); no-ops when the model is off. */
void net_begin_slow(struct net_txn *n);
void net_access_slow(struct net_txn *n, const struct table *tab, uint64_t key);
void net_insert_slow(struct net_txn *n, const struct table *tab, uint64_t key);
void net_shot_end_slow(struct net_txn *n);
void net_before_commit_slow(struct net_txn *n);
void net_decision_slow(struct net_txn *n);
/* The decision without a commit or abort leg (nothing for the servers to learn). */
void net_decision_local_slow(struct net_txn *n);
/* One round to every participant (request leg, delivery, reply leg). */
void net_round_slow(struct net_txn *n);
/* A new shot that starts with a request to the server of (tab, key). */
void net_new_shot_slow(struct net_txn *n, const struct table *tab, uint64_t key);
/* The expected one-way delay of a message, in clock ticks (0 with the model off); set by
 * net_configure. */
extern uint64_t net_delay_ticks;
void net_before_abort_slow(struct net_txn *n);

static inline void net_begin(struct net_txn *n)
{
    if (net_on)
        net_begin_slow(n);
}
static inline void net_access(struct net_txn *n, const struct table *tab, uint64_t key)
{
    if (net_on)
        net_access_slow(n, tab, key);
}
static inline void net_insert(struct net_txn *n, const struct table *tab, uint64_t key)
{
    if (net_on)
        net_insert_slow(n, tab, key);
}

#endif
