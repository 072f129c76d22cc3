/* Geo-distributed commit (seed 003, D2PC): datacenters, shards replicated in every
 * datacenter, co-coordinators, emulated on one machine, with the linked CC algorithm
 * locking or validating at the shard leaders. Off unless a deployment file is given
 * (--geo); then the geo workloads (benchmarks/geo_workloads.c) run each transaction through
 * geo_run. Prefix geo_.
 *
 * Deployment (struct geo_deploy, from config/geo/<name>.toml): ndcs datacenters, a
 * one-way delay matrix between them, an intra-datacenter one-way delay and a jitter;
 * nshards shards, shard s owns the keys k with k % nshards == s, and has a replica in
 * every datacenter (so ndcs replicas) with its leader in leader_dc[s]. One co-coordinator
 * per datacenter and group (--cocoord-groups: transaction id mod groups). Client c (the
 * worker thread c) lives in datacenter c % ndcs.
 *
 * Commit protocols (--commit) and the message path of each are written next to their
 * handlers (cc/geo_commit.c); the emulation itself (nodes, delays, service queues) is in
 * cc/geo_net.c, the replicated data (followers' copies, PreCommit lists, write-read
 * dependencies) in cc/geo_store.c.
 */
#ifndef CC_GEO_H
#define CC_GEO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cc/cc.h"

struct txn;

#define GEO_MAX_DCS 8
#define GEO_MAX_SHARDS 16
#define GEO_NAME_MAX 32
#define GEO_MAX_GROUPS 8
/* operations of one transaction (distinct keys) */
#define GEO_MAX_OPS 32

struct geo_deploy {
    char path[256];                       /* the file it came from */
    int ndcs;
    char dc_name[GEO_MAX_DCS][GEO_NAME_MAX];
    bool dc_ours[GEO_MAX_DCS];            /* its delays are ours, not the paper's */
    double one_way_ms[GEO_MAX_DCS][GEO_MAX_DCS]; /* i != j; symmetric; [i][i] unused */
    double intra_ms;                      /* one-way delay inside a datacenter */
    double jitter_ms;                     /* each message: + uniform [0, jitter_ms] */
    int nshards;
    int leader_dc[GEO_MAX_SHARDS];
};

enum geo_protocol { GEO_2PC, GEO_D2PC, GEO_CAROUSEL };

/* Failures injected into a run (cc/geo_fail.c); times in seconds from the start of the
 * warm-up (the origin of the result's series), durations <= 0: for the rest of the run.
 * A killed node handles nothing from its kill on, and its messages still in flight at
 * the kill are lost (its links are cut); every node learns of a failure one timeout
 * (geo_timeout_ns) after it. Leaders are never killed. */
struct geo_failures {
    uint32_t cocoord_mask;     /* --kill-cocoord DC[,DC...]@S: those co-coordinators */
    double cocoord_at_s;
    int follower_shard;        /* --kill-follower SHARD/DC@S[+D] (-1: none) */
    int follower_dc;
    double follower_at_s, follower_for_s;
    int majority_shard;        /* --lose-majority SHARD@S[+D]: every follower (-1: none) */
    double majority_at_s, majority_for_s;
    double decider_timeout_ms; /* --decider-timeout (deployment ms; 0: geo_timeout_ns) */
};

/* A run's settings: the deployment and the flags. */
struct geo_config {
    struct geo_deploy d;
    enum geo_protocol protocol;
    double time_scale;  /* every delay divided by this (>= 1) */
    int cocoord_groups; /* 1..GEO_MAX_GROUPS */
    double service_us;  /* co-coordinator service time per message (0: none) */
    bool read_opt;      /* reads at the client's datacenter's replica, validated at Prepare */
    uint64_t keys;      /* keys 0..keys-1, all tables together */
    struct geo_failures fail;
};

/* Reads a deployment file; false with a one-line reason in err (the file's name first). */
bool geo_deploy_load(const char *path, struct geo_deploy *d, char *err, unsigned errlen);

/* Parses the failure flags (each "" when not given) against the deployment c->d into
 * c->fail; false with a one-line reason in err (the flag's name first). */
bool geo_fail_parse(struct geo_config *c, const char *kill_cocoord, const char *kill_follower,
                    const char *lose_majority, char *err, unsigned errlen);

/* Whether f injects any failure. */
bool geo_fail_any_in(const struct geo_failures *f);

/* Whether --geo is on for this run, and its settings (valid when on). */
extern bool geo_on;
extern struct geo_config geo_cfg;

/* Once per run, before the load: checks the settings against the linked algorithm (it
 * must define the commit split, cc_prepare / cc_finish) and the thread count; false
 * with a one-line reason in err. */
bool geo_configure(const struct geo_config *c, int clients, char *err, unsigned errlen);
/* Creates the replicas of keys 0..keys-1 and each datacenter's CC table (empty); `init`
 * gives a key's initial value (NULL: 0). Then the loaders fill keys [lo, hi): the rows of
 * every geo_table (as any table's rows) and geo_fill_items. */
void geo_create(int64_t (*init)(uint64_t key));
struct table *geo_table(int dc);
void geo_fill_items(uint64_t lo, uint64_t hi);
/* Rows the load creates (the watchdog's sizing). */
uint64_t geo_rows_to_load(uint64_t keys);

/* One transaction: its operations on distinct keys, in execution order. */
enum geo_op_kind {
    GEO_READ,  /* read the value */
    GEO_WRITE, /* blind write of arg */
    GEO_ADD,   /* read, then write value + arg (the client computes it) */
};
struct geo_op {
    uint64_t key;
    int32_t arg;
    uint8_t kind; /* enum geo_op_kind */
};
struct geo_spec {
    uint64_t tag; /* the query's identity: equal for the retries of one query */
    int nops;
    struct geo_op op[GEO_MAX_OPS];
};

/* Runs one attempt of s (copied: the caller may reuse it at once) as the client of context t (its thread's; after txn_begin):
 * execution, then the commit protocol, sleeping across the emulated delays. RC_OK: the
 * client learnt that it committed (then txn_commit(t) only ends the attempt); RC_ABORT
 * with t's reason set (the driver calls txn_abort and retries after its back-off). With
 * --verify the reads and writes are recorded in t's history. vals[i] (when not NULL) is
 * the value op i read (reads and adds). */
enum rc geo_run(struct txn *t, const struct geo_spec *s, int64_t *vals);

/* After the run (workers joined): delivers every message still in flight (followers
 * catch up), then checks: atomicity (every committed transaction's writes are on every
 * participant shard, no aborted one's are), followers equal their leader, every commit
 * came after its write-read predecessors' commits, nothing left PreCommitted. Prints
 * failures to out; false if any. */
bool geo_check(FILE *out);
/* Sum of the leaders' values of every key (the bank invariant), after geo_check drained. */
int64_t geo_sum(void);
/* The result's "geo" object (one JSON value, no trailing comma). */
void geo_report_json(FILE *f);
/* Human summary lines (latency, CC period, validity). */
void geo_report_human(FILE *f);
/* The driver's phases: 0 when the warm-up starts (the failures' time origin), 1 when the
 * measured window starts, 2 when it ends (the geo counters count inside it only). */
void geo_window_set(int phase);
/* Whether the run kept its delivery deadlines (lateness p99 within 1% of the smallest
 * inter-datacenter delay); a run that did not must not be reported as a number. */
bool geo_valid(void);

#endif
