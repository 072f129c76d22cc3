/* The geo layer's internals, shared by its files (cc/geo_net.c: the emulated network;
 * cc/geo_store.c: the replicated data; cc/geo_client.c: the clients; cc/geo_commit.c:
 * the protocols; cc/geo_fail.c, cc/geo_recover.c: failures; cc/geo_report.c: the counters). Nothing outside cc/geo_*.c includes it; the rest of the testbed sees
 * cc/geo.h only.
 *
 * Threads. Clients are the driver's worker threads: each runs its transaction's
 * execution and sleeps (a condition variable) until the reply it waits for. Every other
 * step is a message: an event with an absolute delivery deadline (CLOCK_MONOTONIC ns) in
 * one global queue, run at that deadline by the executor thread (GEO_EXECUTORS: one, so
 * handlers start in deadline order and a link keeps its messages in the order they were
 * sent, as TCP would; with two, a Prepare could overtake the decision sent before it). A handler runs under its attempt's mutex (so the handlers of one
 * transaction never overlap), never waits for another transaction (the CC at the leaders
 * runs in no_wait contexts), and sends messages by pushing events.
 *
 * Lifetime. An attempt record (struct geo_att) belongs to its client; it stays in use
 * while any of its events is queued (att->refs: one per queued event, plus one the client
 * holds during geo_run) and while any of its writes sits in a PreCommit list (those are
 * removed by its own decision handlers, so they are covered by the events). A client
 * reuses a record only when refs is 0; it has GEO_ATT_RING records and waits for one to
 * free up, which happens within the tail of messages its last attempts still had in
 * flight.
 */
#ifndef CC_GEO_INTERNAL_H
#define CC_GEO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cc/geo.h"
#include "cc/cc.h"
#include "storage/latency.h"

struct txn;
struct table;
struct geo_att;

#define GEO_EXECUTORS 1
#define GEO_ATT_RING 4
/* write-read dependants one PreCommitted write set can have at one shard */
#define GEO_MAX_OUT 32

/* ---- the emulated network (cc/geo_net.c) ---- */

enum geo_ev_type {
    EV_LREAD,     /* client -> its datacenter's replica: read-optimised reads */
    EV_READ,      /* client -> leader: reads at the leader (no read optimisation) */
    EV_READ_REPLY,/* replica or leader -> client */
    EV_PREPARE,   /* client -> leader (2pc, d2pc), client -> every replica (carousel) */
    EV_REPL,      /* leader -> follower: the vote's log entry */
    EV_REPL_ACK,  /* follower -> leader (2pc, carousel's slow path) */
    EV_VOTE,      /* leader -> coordinator (2pc) */
    EV_DECISION,  /* coordinator / correspondent / client -> leader or replica */
    EV_APPLY,     /* leader -> follower: a committed write set */
    EV_CLIENT,    /* -> client: the decision */
    EV_CVOTE,     /* follower or leader -> its datacenter's co-coordinator (d2pc) */
    EV_PRE,       /* co-coordinator -> its datacenter's leaders: PreCommit or pre-abort */
    EV_CORR,      /* co-coordinator -> correspondent: vote + replication reply (d2pc) */
    EV_DEP_READY, /* a write-read predecessor committed or aborted (internal, no delay) */
    EV_FAST,      /* replica -> client: carousel's fast-path vote */
    EV_SLOW,      /* leader -> client: carousel's slow-path (replicated) vote */
    EV_ABORT,     /* client -> leader: release an execution's read locks */
    /* failures (runs with one injected: cc/geo_fail.c, cc/geo_recover.c) */
    EV_CDEC,      /* correspondent -> the other co-coordinators: the decision's copy */
    EV_TIMER,     /* the decider's timeout (internal; holds no reference, see ev.id) */
    EV_ASK,       /* recovering co-coordinator -> the others: do you know the decision? */
    EV_ANSWER,    /* -> the recovering one: yes = 0 unknown, 1 commit, 2 abort */
    EV_TERM,      /* recovering co-coordinator -> leader: the termination protocol */
    EV_TERM_REPLY,/* leader -> it: yes = 0 no vote, 1 replicated yes, 2/3 decided abort/commit */
    EV_NTYPES
};

struct geo_ev {
    uint64_t at;          /* delivery deadline (ns) */
    uint64_t sent;        /* the sender's time (ns): a crash loses what is in flight */
    uint64_t id;          /* EV_TIMER: the attempt it was armed for (records are reused) */
    struct geo_att *att;
    uint8_t type;         /* enum geo_ev_type */
    uint8_t shard;        /* participant index in att (not the shard number) */
    uint8_t dc;           /* the node's datacenter (replica, co-coordinator) */
    uint8_t from;         /* the sender's datacenter (co-coordinator forwards) */
    uint8_t yes;          /* a vote or a decision */
    uint8_t served;       /* already queued behind its node's service time */
};

/* Delay of one message from datacenter a to b (ns, scaled, jitter drawn from seed). */
uint64_t geo_delay_ns(int a, int b, uint64_t *seed);
/* The same without jitter (expected values in reports and tests). */
double geo_delay_ms(int a, int b);
/* Sends a message: ev->at is set to now_ns + the delay from `from` to `to` (0: internal,
 * delivered at now_ns); takes a reference on ev->att. now_ns is the handler's own
 * deadline (send times are logical, so delays never accumulate lateness). */
void geo_send(struct geo_ev ev, uint64_t now_ns, int from, int to, bool internal);
void geo_net_start(void);
/* Queues a timer (EV_TIMER, ev.id = its attempt's id) for `at`, without a reference: the
 * record may be reused before it fires, and its handler then finds another id. */
void geo_send_timer(struct geo_ev ev, uint64_t at);
/* Queues ev again for `at` (a node's service time), with a reference of its own. */
void geo_requeue(const struct geo_ev *ev, uint64_t at);
/* Waits until no event is queued or running, then stops the executors. */
void geo_net_drain_stop(void);
/* Runs one event (cc/geo_commit.c), under nothing: it takes att's mutex itself. */
void geo_handle(const struct geo_ev *ev, int executor);
uint64_t geo_now_ns(void);
/* Co-coordinator nodes with a service time: the time the node finishes serving a message
 * that arrives at `at` (at itself with no service time). */
uint64_t geo_serve(int dc, int group, uint64_t at);

/* ---- the replicated data (cc/geo_store.c) ---- */

/* A committed write set's entry per key (value, version), PreCommitted first in D2PC. */
struct geo_pc {
    struct geo_pc *next;     /* the key's PreCommit list, newest (highest seq) first */
    uint64_t key;
    int64_t value;
    uint64_t wid;            /* the writer's attempt id (its version id) */
    uint64_t seq;            /* the key's version number, assigned at the leader */
    struct geo_part *part;   /* the writer's participant record */
};

/* The newest version of key at datacenter dc's replica (the leader's: PreCommitted
 * included), and the PreCommit entry it came from (NULL: committed). */
struct geo_version {
    int64_t value;
    uint64_t wid, seq;
    struct geo_pc *pc;
};
void geo_store_read(int dc, uint64_t key, struct geo_version *v);
/* The same at the leader for a reader's part r (d2pc): a PreCommitted version registers
 * the dependency (geo_dep_register) under the key's latch; false: it cannot be read. */
bool geo_store_read_dep(int dc, uint64_t key, struct geo_version *v, struct geo_part *r,
                        uint64_t *pred);
/* Read marks of prepared readers (OCC's validation marks) at dc's replica of key: add
 * (+1) or drop (-1) one; whether any is held. */
void geo_store_mark(int dc, uint64_t key, int delta);
bool geo_store_marked(int dc, uint64_t key);
/* The leader's next version number of key (under the writer's exclusive CC access). */
uint64_t geo_store_next_seq(int dc, uint64_t key);
/* Adds e to its key's PreCommit list at the leader (dc). */
void geo_store_precommit(int dc, struct geo_pc *e);
/* Removes e from its key's list (if there) and, on commit, installs it where its seq is
 * newer than the replica's (leaders and followers alike). */
void geo_store_finish(int dc, struct geo_pc *e, bool commit, bool listed);
/* A returning replica (shard, dc) copies its leader's committed versions of the shard. */
void geo_store_catch_up(int shard, int dc);
/* For geo_check: record a committed attempt's writes (wid, key) and an attempt id's
 * commit time, and its write-read predecessors. */
void geo_store_note_commit(int client, uint64_t wid, const uint64_t *keys, int n, uint64_t commit_ns,
                           const uint64_t *preds, int npreds);

/* ---- the participant and attempt records (cc/geo_commit.c) ---- */

struct geo_dep {
    struct geo_part *p;
    uint64_t gen;
};

/* One participant shard of an attempt. */
struct geo_part {
    int shard, leader;
    int nops;
    uint8_t op[GEO_MAX_OPS];           /* indexes into the spec */
    struct txn *sub[GEO_MAX_DCS];      /* CC contexts: [leader] (2pc, d2pc), every replica
                                        * (carousel) */
    bool began[GEO_MAX_DCS], held[GEO_MAX_DCS]; /* a context began / holds its CC state */
    bool ended[GEO_MAX_DCS];           /* decided there: a Prepare that arrives after its
                                        * decision (jitter reorders) takes nothing */
    uint8_t marks[GEO_MAX_DCS];        /* read marks held there: on its first `marks`
                                        * GEO_READ operations */
    uint64_t cc_start;                 /* the leader's Prepare (ns): its CC period */
    bool prepared, vote_sent, vote_yes, precommitted, finished;
    bool dec_commit;                   /* d2pc: the decision the leader finished with */
    bool replicated;                   /* the vote's log entry is on a majority (d2pc: the
                                        * leader counts acks in runs with a failure) */
    bool slow_sent;                    /* d2pc: the slow path's vote went out */
    bool term_wait, term_no;           /* d2pc termination: reply once replicated; the
                                        * leader voted no for it before voting itself */
    bool pref;                         /* d2pc: holds a reference on the record until its
                                        * leader finishes (a lost decision keeps it) */
    int acks;                          /* replication acks at the leader */
    int fast_yes, fast_no;             /* carousel: fast-path votes at the client */
    bool decided;                      /* carousel: this shard's vote is known */
    enum abort_reason no_reason;
    struct geo_pc pc[GEO_MAX_OPS];     /* its writes (d2pc: PreCommit entries) */
    int npc;
    /* write-read dependencies (d2pc): in = PreCommitted writers it read (-1: one
     * aborted); out = its readers, guarded by dep_mu with `closed` and gen */
    pthread_mutex_t dep_mu;
    _Atomic int in;
    _Atomic int deferred;              /* its vote waits for in == 0 */
    uint64_t gen;                      /* bumped at each reuse (under dep_mu) */
    bool closed, outcome;              /* decided (under dep_mu), and how */
    struct geo_att *att;
    int nout;
    struct geo_dep out[GEO_MAX_OUT];
};

struct geo_client;

struct geo_att {
    pthread_mutex_t mu;
    _Atomic int refs;
    struct geo_client *cl;
    uint64_t id;                       /* the client's attempt id: its version id */
    int dc, group, coord;              /* client's datacenter, co-coordinator group,
                                        * 2pc coordinator's datacenter */
    int corr;                          /* d2pc correspondent: the client's datacenter's
                                        * co-coordinator, else (known dead) the nearest */
    bool nro;                          /* reads at the leaders (no read optimisation) */
    const struct geo_spec *spec;       /* = &s */
    struct geo_spec s;                 /* the attempt's copy of its operations */
    int64_t val[GEO_MAX_OPS];          /* read values, then the values written */
    uint64_t rwid[GEO_MAX_OPS];        /* versions read */
    uint64_t replaced[GEO_MAX_OPS];    /* versions the writes replace (at Prepare) */
    uint64_t preds[GEO_MAX_OPS];       /* write-read predecessors (attempt ids) */
    int npreds;
    int nparts;
    struct geo_part part[GEO_MAX_SHARDS];
    int8_t part_of_shard[GEO_MAX_SHARDS];
    uint64_t seed;                     /* jitter */
    uint64_t start_ns, commit_start_ns;
    /* protocol state, under mu */
    int pending_reads;
    bool read_failed, decided, commit, client_knows;
    bool client_commit;                /* what the client learnt */
    enum abort_reason reason;
    int votes;                         /* 2pc coordinator: yes votes */
    uint32_t cvotes[GEO_MAX_DCS];      /* d2pc: shards whose vote reached co-coordinator dc */
    bool cpre[GEO_MAX_DCS];            /* d2pc: co-coordinator dc decided (pre) */
    uint32_t corr_votes;               /* d2pc correspondent: shards with a yes vote */
    int corr_replies[GEO_MAX_SHARDS];  /* d2pc correspondent: replication replies */
    uint32_t corr_slow;                /* d2pc correspondent: shards with a slow-path yes */
    /* failures (cc/geo_recover.c) */
    uint8_t cdec[GEO_MAX_DCS];         /* the decision's copy at co-coordinator dc: 0 none,
                                        * 1 commit, 2 abort */
    int timer_fires;
    bool recovering, rec_done;         /* a co-coordinator recovers att (the correspondent
                                        * on its timeout, or a backup once it died), and has
                                        * decided; both are rec_dc's and void once it dies */
    int rec_dc, rec_wait;              /* who, and the replies it still waits for */
    bool rec_term;                     /* it runs the termination protocol (case 2) */
    uint64_t decision_ns;              /* the first decision anywhere (the checks') */
    uint64_t decided_ns;
    int msgs;                          /* messages sent for this attempt */
};

/* A client: its attempt records and a pool of CC contexts for its participants. */
struct geo_client {
    bool ready;
    int thread, dc;
    pthread_cond_t c;       /* the client waits on it under an attempt's mu */
    pthread_mutex_t ring_mu; /* with ring_cv: waiting for a free attempt record */
    pthread_cond_t ring_cv;
    pthread_mutex_t pool_mu;
    struct txn *pool[GEO_MAX_SHARDS * GEO_MAX_DCS * GEO_ATT_RING];
    int npool;
    uint64_t last_tag;                /* the query of the last attempt, and whether it */
    bool last_stale;                  /* aborted for a stale read */
    struct geo_att att[GEO_ATT_RING];
};

/* Write-read dependencies (d2pc), at the leader under the key's latch: the reader's part
 * r read e, which is still PreCommitted. false: e's writer has aborted (the read fails). */
bool geo_dep_register(struct geo_pc *e, struct geo_part *r, uint64_t *pred);

/* ---- failures (cc/geo_fail.c) and recovery (cc/geo_recover.c) ---- */

/* The warm-up's start: failure times count from it. */
void geo_fail_origin(uint64_t now_ns);
/* A failure is configured: decider timers are armed, followers' acks to their leaders and
 * the decision's copies to the co-coordinators are sent as messages (else counted). */
bool geo_fail_any(void);
/* Some co-coordinator is killed in this run (--kill-cocoord). */
bool geo_fail_kills_cocoords(void);
/* The failure detector's timeout (ns, scaled), and the deciders' timer (the same unless
 * --decider-timeout sets it). */
uint64_t geo_timeout_ns(void);
uint64_t geo_decider_timeout_ns(void);
bool geo_cocoord_dead(int dc, uint64_t now);
bool geo_cocoord_known_dead(int dc, uint64_t now);
/* Some co-coordinator is known dead (d2pc takes the slow path too). */
bool geo_cocoords_degraded(uint64_t now);
bool geo_replica_dead(int shard, int dc, uint64_t now);
/* The shard has lost its majority, and its leader knows it (votes no). */
bool geo_shard_known_unavailable(int shard, uint64_t now);
/* Whether ev is lost (its destination is down, or it was in flight from a killed node). */
bool geo_ev_lost(const struct geo_att *att, const struct geo_ev *ev);
/* Before each handler (and the checks): a replica whose down time ended catches up. */
void geo_fail_tick(uint64_t now);
/* The result's "failures" object. */
void geo_fail_json(FILE *f);
/* Counters over the whole run (relaxed atomics; read after the drain). */
struct geo_fail_stats {
    _Atomic uint64_t lost, timer_fires, timeout_aborts, timeout_terminations, case1, case2,
        catch_ups, conflicts, stuck;
};
extern struct geo_fail_stats geo_fail_st;

/* Shared by cc/geo_client.c, cc/geo_commit.c and cc/geo_recover.c. */
static inline bool geo_op_reads(const struct geo_op *o) { return o->kind != GEO_WRITE; }
static inline bool geo_op_writes(const struct geo_op *o) { return o->kind != GEO_READ; }
/* A client's CC contexts (no_wait, begun by the caller) and the end of an event's or the
 * client's reference on a record (cc/geo_client.c). */
struct txn *geo_ctx_get(struct geo_client *cl);
void geo_ctx_put(struct geo_client *cl, struct txn *t);
void geo_att_unref(struct geo_att *att);
void geo_msg(struct geo_att *att, enum geo_ev_type type, int part, int from, int to, int yes,
             uint64_t now);
void geo_client_learns(struct geo_att *att, bool commit, uint64_t now);
/* The protocol's decider decides (2pc's coordinator, d2pc's correspondent, carousel's
 * client); a second call does nothing. */
void geo_decide(struct geo_att *att, bool commit, enum abort_reason why, uint64_t now);
void geo_d2pc_decision(struct geo_att *att, int part, bool commit, uint64_t now, int ex);
void geo_part_release(struct geo_att *att, struct geo_part *p, int dc, bool commit,
                      uint64_t now, int ex);
/* The timer's handler (under att->mu) and the recovery messages' (EV_ASK, EV_ANSWER,
 * EV_TERM, EV_TERM_REPLY, EV_CDEC). */
void geo_timer(struct geo_att *att, uint64_t now, int ex);
void geo_recover_handle(struct geo_att *att, const struct geo_ev *ev, uint64_t now, int ex);
/* A d2pc leader's vote is replicated: the slow path's vote, a waiting termination reply. */
void geo_d2pc_replicated(struct geo_att *att, int part, uint64_t now);
/* Arms att's timer one timeout from now (runs with a failure). */
void geo_timer_arm(struct geo_att *att, uint64_t now);

/* ---- counters (cc/geo_report.c) ---- */

/* Each executor's and each client's, written only by it. Recorded in the measured window
 * only: a recorder takes its counters through geo_exec_rec / geo_client_rec, which
 * clear them the first time it records in the window and return NULL outside it. */
struct geo_exec_stats {
    int seen;                                 /* the window phase last seen */
    struct latency lateness;                  /* ns past each deadline */
    struct latency cc_period[GEO_MAX_DCS][GEO_MAX_DCS]; /* ns, [origin][leader] datacenter */
    uint64_t fast, slow;                      /* carousel shard decisions */
    uint64_t cc_periods_cut;                  /* d2pc: leaders that ended at PreCommit */
    uint64_t wr_deps;                         /* d2pc: reads of PreCommitted versions */
};
struct geo_client_stats {
    int seen;
    struct latency latency;                   /* ns, committed attempts */
    uint64_t msgs, commits, aborts, aborts_by[AR_COUNT];
};
struct geo_exec_stats *geo_exec_rec(int ex);
struct geo_client_stats *geo_client_rec(int client);
int geo_clients(void);
struct geo_client_stats *geo_client_st(int client);
extern struct geo_exec_stats geo_exec_st[GEO_EXECUTORS];

#endif
