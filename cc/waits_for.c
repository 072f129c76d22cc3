/* Waits-for graph (see cc/waits_for.h for the model and why eager detection is complete).
 *
 * Node layout (one cache-line aligned struct per thread):
 *   seq   seqlock counter, written only by the node's thread: odd while id/n/out change.
 *   id    the attempt whose edges these are (0: none).
 *   n     number of edges in out[0..n).
 *   out   edge targets (attempt ids), cap entries.
 * The fields other than seq are atomics ordered by seq without fences (ThreadSanitizer
 * does not model fences): writer: seq = odd (relaxed), fields (release stores: each
 * orders the odd seq before it), seq = even (seq_cst); reader: seq (seq_cst), fields
 * (acquire loads: each orders the re-check after it), seq again (relaxed): equal and even
 * means the copy is consistent (a field value from a later write would carry the odd
 * seq with it, which the re-check then sees).
 * Search scratch (stack, visited bitmap, copy buffer) is per thread, in the node, touched
 * only by its thread. The edge array and the scratch are allocated by the node's thread
 * (wf_thread_init, before it publishes anything: readers reach `out` only through an id
 * it published, so the pointer store happens before their loads).
 */
#include "cc/waits_for.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "storage/mem.h"
#include "storage/shared_writes.h"

struct wf_node {
    alignas(CACHE_LINE) _Atomic uint64_t seq;
    _Atomic uint64_t id;
    _Atomic uint32_t n;
    _Atomic uint64_t *out;
    /* owner-only search scratch */
    uint64_t *stack;   /* (edge id) per thread still to visit: at most nthreads */
    uint64_t *visited; /* bitmap of threads */
    uint64_t *copy;    /* a node's edges, copied */
};

static struct wf_node *nodes;
static int nthreads_, cap_;

static inline int thread_of(uint64_t id) { return (int)(id >> 40) - 1; }

void wf_init(int nthreads)
{
    nthreads_ = nthreads;
    cap_ = 2 * nthreads;
    nodes = mem_alloc_aligned(CACHE_LINE, (size_t)nthreads * sizeof(*nodes));
    for (int i = 0; i < nthreads; i++) {
        struct wf_node *d = &nodes[i];
        atomic_init(&d->seq, 0);
        atomic_init(&d->id, 0);
        atomic_init(&d->n, 0);
        d->out = NULL;
        d->stack = d->visited = d->copy = NULL;
    }
}

void wf_thread_init(int self)
{
    struct wf_node *d = &nodes[self];
    d->out = mem_alloc((size_t)cap_ * sizeof(*d->out));
    for (int k = 0; k < cap_; k++)
        atomic_init(&d->out[k], 0);
    d->stack = mem_alloc((size_t)nthreads_ * sizeof(*d->stack));
    d->visited = mem_alloc((size_t)(nthreads_ + 63) / 64 * sizeof(*d->visited));
    d->copy = mem_alloc((size_t)cap_ * sizeof(*d->copy));
}

void wf_fini(void)
{
    for (int i = 0; i < nthreads_; i++) {
        mem_free((void *)nodes[i].out);
        mem_free(nodes[i].stack);
        mem_free(nodes[i].visited);
        mem_free(nodes[i].copy);
    }
    mem_free(nodes);
    nodes = NULL;
}

int wf_capacity(void) { return cap_; }

/* Writer side of the seqlock (only the node's thread calls these). */
static inline uint64_t write_begin(struct wf_node *d)
{
    uint64_t s = atomic_load_explicit(&d->seq, memory_order_relaxed); /* own field */
    SHW(SHW_OWN);
    atomic_store_explicit(&d->seq, s + 1, memory_order_relaxed); /* before the fields */
    return s;
}

static inline void write_end(struct wf_node *d, uint64_t s)
{
    /* seq_cst: publishes the fields (release) and orders this publication before the
     * search that follows (pairs with the seq_cst loads of other searchers) */
    atomic_store(&d->seq, s + 2);
}

void wf_set(int self, uint64_t me, const uint64_t *ids, int n)
{
    struct wf_node *d = &nodes[self];
    uint64_t s = write_begin(d);
    /* release (these three): pair with read_node's acquire loads (seqlock, above) */
    SHW(SHW_OWN);
    atomic_store_explicit(&d->id, me, memory_order_release);
    for (int k = 0; k < n; k++)
        atomic_store_explicit(&d->out[k], ids[k], memory_order_release);
    atomic_store_explicit(&d->n, (uint32_t)n, memory_order_release);
    write_end(d, s);
}

void wf_add(int self, uint64_t me, uint64_t id)
{
    struct wf_node *d = &nodes[self];
    /* own fields: relaxed reads are exact */
    uint32_t n = atomic_load_explicit(&d->n, memory_order_relaxed);
    if (atomic_load_explicit(&d->id, memory_order_relaxed) != me)
        n = 0;
    uint32_t k = 0;
    while (k < n && thread_of(atomic_load_explicit(&d->out[k], memory_order_relaxed)) !=
                        thread_of(id))
        k++;
    if (k == (uint32_t)cap_) {
        fprintf(stderr, "waits_for: more than %d edges from thread %d\n", cap_, self);
        abort();
    }
    uint64_t s = write_begin(d);
    /* release (these three): pair with read_node's acquire loads (seqlock, above) */
    SHW(SHW_OWN);
    atomic_store_explicit(&d->id, me, memory_order_release);
    atomic_store_explicit(&d->out[k], id, memory_order_release);
    if (k == n)
        atomic_store_explicit(&d->n, n + 1, memory_order_release);
    write_end(d, s);
}

void wf_clear(int self)
{
    struct wf_node *d = &nodes[self];
    uint64_t s = write_begin(d);
    SHW(SHW_OWN);
    atomic_store_explicit(&d->n, 0, memory_order_release); /* pairs with read_node */
    write_end(d, s);
}

/* Copies thread j's edges if its node is consistent and published for attempt `want`;
 * returns their number, or 0. */
static int read_node(const struct wf_node *d, uint64_t want, uint64_t *copy)
{
    /* seq_cst: pairs with write_end's seq_cst store (the Dekker order of the header) */
    uint64_t s = atomic_load(&d->seq);
    if (s & 1)
        return 0; /* changing: it will search itself once it has published */
    /* acquire (these three): pair with the writer's release stores, and keep the
     * re-check of seq after them */
    if (atomic_load_explicit(&d->id, memory_order_acquire) != want)
        return 0;
    uint32_t n = atomic_load_explicit(&d->n, memory_order_acquire);
    if (n > (uint32_t)cap_)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        copy[k] = atomic_load_explicit(&d->out[k], memory_order_acquire);
    if (atomic_load_explicit(&d->seq, memory_order_relaxed) != s)
        return 0; /* changed under us: the writer searches after it publishes */
    return (int)n;
}

bool wf_cycle(int self, uint64_t me, struct txn_stats *st)
{
    struct wf_node *d = &nodes[self];
    uint64_t edges = 0;
    bool found = false;
    memset(d->visited, 0, (size_t)(nthreads_ + 63) / 64 * sizeof(*d->visited));
    d->visited[self / 64] |= (uint64_t)1 << (self % 64);
    int top = 0;
    d->stack[top++] = me;
    while (top > 0 && !found) {
        uint64_t e = d->stack[--top];
        int n = read_node(&nodes[thread_of(e)], e, d->copy);
        edges += (uint64_t)n;
        if (edges > WF_SEARCH_MAX_EDGES) { /* too long: counts as a cycle (config.h) */
            st->deadlock_truncated++;
            found = true;
            break;
        }
        for (int k = 0; k < n; k++) {
            uint64_t f = d->copy[k];
            int j = thread_of(f);
#ifndef MUTANT_WF_NO_CYCLE /* mutant: the search never closes a cycle (deadlocks stay) */
            if (f == me) {
                found = true;
                break;
            }
#endif
            if (j < 0 || j >= nthreads_ || (d->visited[j / 64] >> (j % 64) & 1))
                continue;
            /* seq_cst: as in read_node; only threads now in attempt f are followed, so
             * an edge left to an ended attempt does not use up the thread's visit */
            if (atomic_load(&nodes[j].id) != f)
                continue;
            d->visited[j / 64] |= (uint64_t)1 << (j % 64);
            d->stack[top++] = f;
        }
    }
    st->deadlock_searches++;
    st->deadlock_edges += edges;
    return found;
}
