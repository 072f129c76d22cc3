/* Compile-time configuration: every knob that is fixed when a binary is built, with its
 * default. The Makefile passes the variant's flags from config/variants.tsv with -D; a
 * value given there overrides the default here. Each knob is checked with #error so a bad
 * build fails loudly. All effective values are printed in every run's JSON result
 * (benchmarks/report.c). */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

/* Upper bound on worker threads (and the size of per-thread tables). */
#ifndef MAX_THREADS
#define MAX_THREADS 512
#endif
#if MAX_THREADS < 1 || MAX_THREADS > 4096
#error "MAX_THREADS must be in [1, 4096]"
#endif

/* Bytes of per-row metadata owned by the CC algorithm (its "slot"); set per variant. */
#ifndef CC_META_SIZE
#define CC_META_SIZE 64
#endif
#if CC_META_SIZE < 8 || CC_META_SIZE % 8 != 0 || CC_META_SIZE > 4096
#error "CC_META_SIZE must be a multiple of 8 in [8, 4096]"
#endif

/* 1: per-thread counters and time breakdown are collected; 0: timers compile to nothing
 * (commit/abort counts and latency are always kept: results need them). */
#ifndef STATS_ENABLED
#define STATS_ENABLED 1
#endif
#if STATS_ENABLED != 0 && STATS_ENABLED != 1
#error "STATS_ENABLED must be 0 or 1"
#endif

/* Bytes of each chunk of a thread's transaction log area (arena); it chains more chunks
 * if a transaction needs them and keeps them for later transactions. */
#ifndef ARENA_CHUNK_BYTES
#define ARENA_CHUNK_BYTES (256 * 1024)
#endif
#if ARENA_CHUNK_BYTES < 4096
#error "ARENA_CHUNK_BYTES must be at least 4096"
#endif

/* Maximum number of columns in a table (column sets are 64-bit masks). */
#define MAX_COLUMNS 64

/* Waiting (storage/wait.h). With no more threads than CPUs a waiter spins (pause) for
 * WAIT_SPIN_NS, then yields the CPU each round; it never sleeps. With more threads than
 * CPUs it spins WAIT_PARK_SPIN_NS, then parks on a futex until its waker wakes it (at
 * most WAIT_PARK_NS per park, a safety net), or, where nobody knows it waits (a latch),
 * sleeps WAIT_SLEEP_NS per round. A thread waiting for a word to change (wait_word: the
 * driver's start barrier) sleeps on the word itself, at most WAIT_WORD_PARK_NS per round. */
#ifndef WAIT_SPIN_NS
#define WAIT_SPIN_NS 100000
#endif
#ifndef WAIT_PARK_SPIN_NS
#define WAIT_PARK_SPIN_NS 10000
#endif
#ifndef WAIT_PARK_NS
#define WAIT_PARK_NS 1000000
#endif
#ifndef WAIT_SLEEP_NS
#define WAIT_SLEEP_NS 20000
#endif
#ifndef WAIT_WORD_PARK_NS
#define WAIT_WORD_PARK_NS 100000000
#endif
#if WAIT_SPIN_NS < 0 || WAIT_PARK_SPIN_NS < 0
#error "WAIT_SPIN_NS and WAIT_PARK_SPIN_NS must be >= 0"
#endif
#if WAIT_SLEEP_NS < 1 || WAIT_SLEEP_NS > 999999999 || WAIT_PARK_NS < 1 ||                      \
    WAIT_PARK_NS > 999999999 || WAIT_WORD_PARK_NS < 1 || WAIT_WORD_PARK_NS > 999999999
#error "WAIT_SLEEP_NS, WAIT_PARK_NS and WAIT_WORD_PARK_NS must be in [1, 999999999]"
#endif

/* A waits-for cycle search (cc/waits_for.h) reads at most this many edges; a longer one
 * stops and counts as a cycle (the waiter aborts: a false deadlock, never a missed one). */
#ifndef WF_SEARCH_MAX_EDGES
#define WF_SEARCH_MAX_EDGES 4096
#endif
#if WF_SEARCH_MAX_EDGES < 2 * MAX_THREADS
#error "WF_SEARCH_MAX_EDGES must be at least 2 * MAX_THREADS (one node's edges)"
#endif

/* Silo (cc/silo.c): its epoch thread advances the global epoch every SILO_EPOCH_MS
 * milliseconds (the paper's 40 ms). */
#ifndef SILO_EPOCH_MS
#define SILO_EPOCH_MS 40
#endif
#if SILO_EPOCH_MS < 1 || SILO_EPOCH_MS > 999
#error "SILO_EPOCH_MS must be in [1, 999]"
#endif

/* KiB of the sketch timestamp store (cc/ts_sketch.c) when --sketch-kib is not given; a
 * plain integer: --help shows it as written. */
#ifndef TS_SKETCH_KIB_DEFAULT
#define TS_SKETCH_KIB_DEFAULT 32
#endif
#if TS_SKETCH_KIB_DEFAULT < 1 || TS_SKETCH_KIB_DEFAULT > 1048576
#error "TS_SKETCH_KIB_DEFAULT must be in [1, 1048576] (as --sketch-kib)"
#endif

#define CACHE_LINE 64

#endif
