/* Offline checker for --verify histories (contract in cc/history.h).
 *
 * Pipeline, each step linear (or radix-sort) time over flat arrays:
 *  1. scan_logs, index_txns: give every committed transaction a dense index (its position
 *     across the logs) and build a flat open-addressing hash from id to index, holding
 *     the version ids (nwid) of its writes too, each marked whether it is the
 *     transaction's last write of its item; find the ranges of keys, tables and columns,
 *     which fix the item code below.
 *  2. flatten: turn each READ/WRITE record into a compact access entry (item code,
 *     version, transaction), mapping wids to versions: 0 is the loader's version, i + 1
 *     the version of transaction i. A wid that never committed, or that its writer
 *     overwrote itself (intermediate), is reported here; a small per-transaction set of
 *     the items it touched catches stale reads of its own writes, drops its re-writes and
 *     checks that its first write of an item replaced the version it read of it.
 *  3. sort_ents: LSD radix sort of the entries by item code. The code of (table, key,
 *     col) is (key - kmin) << tbits | (table * ncols + col), tbits the width of the largest
 *     table * ncols + col: a bijection onto as few bits as the ranges allow (so few
 *     passes) that puts the columns of a key next to each other.
 *  4. scan_items: per item, the writes give the version order (each write links the
 *     version it replaced to its own); two writers of one version are a lost update, and a
 *     version whose writer never wrote that item was never committed there (dirty). The
 *     scan lists the WW, WR and RW edges, each with the entry that made it (which gives
 *     its kind and item for the report), and build_csr turns the list into CSR form.
 *     Columns of a row written together give the same edges, so a small cache of recent
 *     edges drops most duplicates.
 *  5. find_cycle_node: colored DFS with an explicit stack; a back edge proves a cycle
 *     through a node, and a BFS from that node gives the shortest cycle through it.
 *  6. check_strict (serializable histories whose transactions all carry times): the
 *     same search with real-time edges added, T1 -> T2 when T1's commit time is below
 *     T2's begin time. Those are quadratic in number, so they go through a chain of
 *     ntx helper nodes: with the transactions ranked by commit time, P_i stands for "the
 *     first i + 1 of them have committed": T_(i) -> P_i, P_(i-1) -> P_i, and P_i -> T2
 *     for the largest i whose commit time is below T2's begin. A path T1 -> ... -> T2
 *     through helpers exists exactly when T1 committed before T2 began.
 */
#include "cc/history.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "storage/hash_mix.h"

#define SHOW_MAX 5    /* instances printed per violation kind */
#define CYCLE_SHOW 32 /* cycle edges printed */
#define NO_TXN UINT32_MAX
#define ENT_WRITE 0x80000000u /* flag in ent.who; dense indexes stay below it */
#define VER_NONE UINT32_MAX   /* ent.ver of a write whose replaced version links nowhere */
#define PREFETCH_AHEAD 16     /* records ahead whose hash slot is prefetched */
#define DIGIT_BITS_MAX 11     /* radix sort digit width */
#define EDGE_CACHE 256        /* recent edges remembered to drop duplicates (power of 2) */
#define ID_VERSION 0x80000000u  /* id_slot.idx flag: a version id (else a transaction's) */
#define ID_NONFINAL 0x40000000u /* id_slot.idx flag: its writer wrote the item again */
#define ID_TXN_MASK 0x3fffffffu
#define ENT_RT UINT32_MAX       /* arc.ent of a real-time edge */

/* One read or write of an item. 20 bytes, 4-byte aligned, to keep 50 M of them cheap. */
struct ent {
    uint32_t code[3]; /* item code (see the file comment), least significant word first */
    uint32_t ver;     /* version read or replaced: 0 = loader, i + 1 = txn i, or VER_NONE */
    uint32_t who;     /* dense index of the reader or writer, | ENT_WRITE for a write */
};

/* Scan state of one version v (index v = 0 .. ntx). The stamps hold the 1-based number of
 * the item being scanned, so they need no clearing between items:
 * wrote == item: transaction v - 1 wrote the item;
 * succ_at == item: transaction succ replaced version v of the item. */
struct vstate {
    uint32_t wrote, succ_at, succ;
};

/* A slot of the id hash; id 0 marks an empty slot (ids are non-zero). idx: the dense
 * index of the transaction (that wrote the version), with the ID_* flags. */
struct id_slot {
    uint64_t id;
    uint32_t idx;
};

/* The head of a dependency edge and the index of the entry that made it: a write makes
 * WW edges, a read WR edges (from its version's writer) and RW edges (from the reader). */
struct arc {
    uint32_t to, ent;
};

struct edge_rec {
    uint32_t from;
    struct arc arc;
};

struct checker {
    struct hist_log *const *logs;
    int nlogs;
    const char *const *names;
    int ntables;
    FILE *out;
    struct hist_result *res;
    size_t ntx;
    size_t nver;          /* version ids in the logs (writes whose nwid is not the txn id) */
    size_t nnodes;        /* graph nodes: ntx, or 2 * ntx with the real-time helpers */
    uint64_t *ids;        /* ids[i]: id of transaction i */
    uint64_t *times;      /* times[2i], times[2i + 1]: begin and commit time of txn i */
    bool timed;           /* every transaction has both times */
    struct id_slot *hash; /* id -> dense index, open addressing */
    size_t hmask;
    int hshift;
    uint64_t kmin;      /* item code parameters */
    unsigned ncols;     /* largest column + 1 */
    unsigned tbits;     /* width of the largest table * ncols + col, 0 .. 32 */
    unsigned code_bits; /* tbits + width of the key range */
    struct ent *ents;
    size_t nents;
    struct vstate *vs;
    struct edge_rec *edges; /* edges in scan order, NULL when only counted */
    uint64_t recent[EDGE_CACHE]; /* from << 32 | to of recent edges; 0 (a self edge): none */
    size_t *off;            /* CSR offsets, ntx + 1 */
    struct arc *adj;
    size_t malformed;
};

/* A per-transaction set of the items it writes. */
struct wset_slot {
    uint32_t code[3];
    uint8_t used, wrote, read;
    uint64_t own;  /* wrote: its latest version of the item (index_txns: its hash slot) */
    uint64_t rwid; /* read: the version it last read of the item before writing it */
};
struct wset {
    struct wset_slot *slots;
    size_t mask, cap;
};

static void die(const char *msg)
{
    fprintf(stderr, "hist_check: %s\n", msg);
    exit(1);
}

/* size is a non-zero sizeof */
static void *xrealloc(void *p, size_t n, size_t size)
{
    if (n > SIZE_MAX / size || !(p = realloc(p, n ? n * size : 1)))
        die("out of memory");
    return p;
}

static void *xmalloc(size_t n, size_t size) { return xrealloc(NULL, n, size); }

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

/* Bits needed to write x. */
static unsigned bit_width(uint64_t x)
{
    unsigned b = 0;
    while (b < 64 && x >> b)
        b++;
    return b;
}

static size_t pow2_at_least(size_t n) { return n <= 16 ? 16 : (size_t)1 << bit_width(n - 1); }

/* ---- item codes ---- */

/* Shifts that give 0 for a shift of 64 or more, so the code needs no special cases. */
static uint64_t shl(uint64_t x, unsigned s) { return s < 64 ? x << s : 0; }
static uint64_t shr(uint64_t x, unsigned s) { return s < 64 ? x >> s : 0; }

static uint64_t code_lo(const uint32_t code[3]) { return (uint64_t)code[1] << 32 | code[0]; }

static void item_encode(const struct checker *c, const struct hist_rec *r, uint32_t code[3])
{
    uint64_t tcx = (uint64_t)r->table * c->ncols + r->col;
    uint64_t k = r->key - c->kmin, lo = tcx | shl(k, c->tbits);
    code[0] = (uint32_t)lo;
    code[1] = (uint32_t)(lo >> 32);
    code[2] = (uint32_t)shr(k, 64 - c->tbits);
}

static bool code_eq(const uint32_t a[3], const uint32_t b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* ---- reporting ---- */

static bool show(const struct checker *c, size_t count) { return c->out && count <= SHOW_MAX; }

static void put_txn_id(const struct checker *c, uint64_t id)
{
    fprintf(c->out, "txn %" PRIu64 " (thread %" PRIu64 ", #%" PRIu64 ")", id, id >> 40,
            id & ((UINT64_C(1) << 40) - 1));
}

/* Prints the item of an entry as table[key].col, decoding its item code. */
static void put_item(const struct checker *c, const struct ent *e)
{
    uint64_t lo = code_lo(e->code), tcx = lo & (shl(1, c->tbits) - 1);
    uint64_t k = shr(lo, c->tbits) | shl(e->code[2], 64 - c->tbits);
    unsigned table = (unsigned)(tcx / c->ncols);
    if (c->names && (int)table < c->ntables)
        fprintf(c->out, "%s", c->names[table]);
    else
        fprintf(c->out, "table%u", table);
    fprintf(c->out, "[key %" PRIu64 "].col%u", c->kmin + k, (unsigned)(tcx % c->ncols));
}

/* Prints "the loader" for wid 0, else the transaction. */
static void put_wid(const struct checker *c, uint64_t wid)
{
    if (wid == 0)
        fprintf(c->out, "the loader");
    else
        put_txn_id(c, wid);
}

/* Prints "<what>: <txn> read|replaced <item> version of <wid>, <why>[ <other txn>]". */
static void report(const struct checker *c, const char *what, const struct ent *e,
                   uint64_t wid, const char *why, uint32_t other)
{
    bool write = e->who & ENT_WRITE;
    fprintf(c->out, "%s: ", what);
    put_txn_id(c, c->ids[e->who & ~ENT_WRITE]);
    fprintf(c->out, " %s ", write ? "replaced" : "read");
    put_item(c, e);
    fprintf(c->out, " version of ");
    put_wid(c, wid);
    fprintf(c->out, ", %s", why);
    if (other != NO_TXN) {
        fprintf(c->out, " ");
        put_txn_id(c, c->ids[other]);
    }
    fprintf(c->out, "\n");
}

/* ---- 1. transaction index ---- */

static size_t hash_slot(const struct checker *c, uint64_t id)
{
    return (size_t)(hash_fib(id) >> c->hshift) & c->hmask;
}

static uint32_t txn_lookup(const struct checker *c, uint64_t id)
{
    for (size_t i = hash_slot(c, id);; i = (i + 1) & c->hmask) {
        if (c->hash[i].id == id)
            return c->hash[i].idx;
        if (c->hash[i].id == 0)
            return NO_TXN;
    }
}

/* Lookups of wids hit random slots of a table much larger than the caches: fetching the
 * slot of the record PREFETCH_AHEAD places ahead overlaps those misses. */
static void prefetch_id(const struct checker *c, uint64_t id)
{
    __builtin_prefetch(&c->hash[hash_slot(c, id)]);
}

/* Collects the transaction ids and times and the item code parameters; reports
 * malformed logs. */
static void scan_logs(struct checker *c)
{
    struct hist_result *res = c->res;
    size_t cap = 1024;
    uint64_t kmax = 0, self = 0;
    unsigned tmax = 0, cmax = 0;
    c->ids = xmalloc(cap, sizeof *c->ids);
    c->times = xmalloc(2 * cap, sizeof *c->times);
    c->timed = true;
    c->kmin = UINT64_MAX;
    for (int li = 0; li < c->nlogs; li++) {
        const struct hist_log *l = c->logs[li];
        for (size_t i = 0; i < l->n; i++) {
            const struct hist_rec *r = &l->recs[i];
            if (r->kind == HIST_TXN) {
                if (c->ntx == cap) {
                    c->ids = xrealloc(c->ids, cap *= 2, sizeof *c->ids);
                    c->times = xrealloc(c->times, 2 * cap, sizeof *c->times);
                }
                c->times[2 * c->ntx] = r->key;
                c->times[2 * c->ntx + 1] = r->nwid;
                c->timed &= r->key && r->nwid;
                c->ids[c->ntx++] = self = r->wid;
                continue;
            }
            if (i == 0 || (r->kind != HIST_READ && r->kind != HIST_WRITE)) {
                if (show(c, ++c->malformed))
                    fprintf(c->out, "malformed history: log %d record %zu is outside a "
                                    "transaction or of an unknown kind\n", li, i);
                continue;
            }
            res->reads += r->kind == HIST_READ;
            res->writes += r->kind == HIST_WRITE;
            c->nver += r->kind == HIST_WRITE && r->nwid != self;
            c->kmin = r->key < c->kmin ? r->key : c->kmin;
            kmax = r->key > kmax ? r->key : kmax;
            tmax = r->table > tmax ? r->table : tmax;
            cmax = r->col > cmax ? r->col : cmax;
        }
    }
    res->txns = c->ntx;
    if (c->ntx >= ID_TXN_MASK || res->reads + res->writes >= UINT32_MAX)
        die("history too large (over 2^30 transactions or 2^32 accesses)");
    c->kmin = c->kmin > kmax ? 0 : c->kmin; /* no accesses */
    c->ncols = cmax + 1;
    c->tbits = bit_width((uint64_t)tmax * c->ncols + cmax);
    c->code_bits = c->tbits + bit_width(kmax - c->kmin);
}

static void wset_reset(struct wset *ws, size_t nitems)
{
    size_t cap = pow2_at_least(2 * nitems);
    if (cap > ws->cap) {
        free(ws->slots);
        ws->slots = xmalloc(cap, sizeof *ws->slots);
        ws->cap = cap;
    }
    ws->mask = cap - 1;
    memset(ws->slots, 0, cap * sizeof *ws->slots);
}

/* Finds the slot of an item: its own, or the empty one where it would go. */
static struct wset_slot *wset_find(struct wset *ws, const uint32_t code[3])
{
    uint64_t h = hash_fib(code_lo(code) + code[2] * UINT64_C(0xFF51AFD7ED558CCD));
    for (size_t i = (size_t)(h >> 32) & ws->mask;; i = (i + 1) & ws->mask) {
        struct wset_slot *s = &ws->slots[i];
        if (!s->used || code_eq(s->code, code))
            return s;
    }
}

/* Puts id into the hash with value idx unless it is there; returns its slot, or NULL
 * (reported as malformed) when it was there already. */
static struct id_slot *hash_put(struct checker *c, uint64_t id, uint32_t idx)
{
    size_t s = hash_slot(c, id);
    while (id && c->hash[s].id && c->hash[s].id != id)
        s = (s + 1) & c->hmask;
    if (id == 0 || c->hash[s].id == id) {
        if (show(c, ++c->malformed))
            fprintf(c->out, "malformed history: %s id %" PRIu64 " is %s\n",
                    idx & ID_VERSION ? "version" : "transaction", id,
                    id ? "not unique" : "invalid");
        return NULL;
    }
    c->hash[s] = (struct id_slot){.id = id, .idx = idx};
    return &c->hash[s];
}

/* The end of the records of the transaction whose HIST_TXN record is l->recs[i]
 * (scan_logs checked that every log starts with one): the next HIST_TXN, or l->n. */
static size_t txn_end(const struct hist_log *l, size_t i)
{
    for (i++; i < l->n && l->recs[i].kind != HIST_TXN; i++)
        ;
    return i;
}

/* Builds the id hash: transaction ids, then the version ids of their writes, each
 * marked ID_NONFINAL when the same transaction wrote the item again later; reports ids
 * that are 0 or not unique. */
static void index_txns(struct checker *c)
{
    size_t cap = pow2_at_least(2 * (c->ntx + c->nver));
    struct wset ws = {0};
    c->hmask = cap - 1;
    c->hshift = 64 - (int)bit_width(c->hmask);
    c->hash = xcalloc(cap, sizeof *c->hash);
    for (uint32_t t = 0; t < c->ntx; t++) {
        if (t + PREFETCH_AHEAD < c->ntx)
            prefetch_id(c, c->ids[t + PREFETCH_AHEAD]);
        hash_put(c, c->ids[t], t);
    }
    if (!c->nver)
        return;
    uint32_t t = 0;
    for (int li = 0; li < c->nlogs; li++) {
        const struct hist_log *l = c->logs[li];
        for (size_t i = 0, end; i < l->n; i = end, t++) {
            end = txn_end(l, i);
            size_t nw = 0;
            for (size_t j = i + 1; j < end; j++)
                nw += l->recs[j].kind == HIST_WRITE && l->recs[j].nwid != c->ids[t];
            if (nw)
                wset_reset(&ws, nw);
            for (size_t j = i + 1; j < end && nw; j++) {
                const struct hist_rec *r = &l->recs[j];
                if (j + PREFETCH_AHEAD < l->n)
                    prefetch_id(c, l->recs[j + PREFETCH_AHEAD].nwid);
                if (r->kind != HIST_WRITE || r->nwid == c->ids[t])
                    continue;
                uint32_t code[3];
                item_encode(c, r, code);
                struct wset_slot *s = wset_find(&ws, code);
                if (s->used)
                    c->hash[s->own].idx |= ID_NONFINAL;
                struct id_slot *h = hash_put(c, r->nwid, t | ID_VERSION);
                s->used = h != NULL;
                memcpy(s->code, code, sizeof s->code);
                s->own = h ? (uint64_t)(h - c->hash) : 0;
            }
        }
    }
    free(ws.slots);
}

/* ---- 2. flatten into access entries ---- */

/* Adds the entry for record r of transaction t, or reports why there is none. A first
 * write always gets an entry, which tells the scan that t wrote the item; its version is
 * VER_NONE when the one it replaced links to nothing (t's own, or one never committed).
 * ws (NULL when t writes nothing) holds the items t writes: whether t wrote each so far
 * (and its latest version of it) and the version it last read of it before. */
static void flatten_rec(struct checker *c, struct wset *ws, uint32_t t, const struct hist_rec *r)
{
    uint64_t self = c->ids[t];
    bool write = r->kind == HIST_WRITE;
    struct ent e = {.ver = 0, .who = t | (write ? ENT_WRITE : 0)};
    item_encode(c, r, e.code);
    struct wset_slot *s = ws ? wset_find(ws, e.code) : NULL;
    uint32_t w = r->wid ? txn_lookup(c, r->wid) : NO_TXN;
    bool own = r->wid == self || (w != NO_TXN && (w & ID_TXN_MASK) == t);
    if (!s || !s->used) { /* an item t never writes: only reads, nothing of t's to check */
        if (own)
            return; /* its own version of an item it never wrote: nothing to link */
    } else if (write) {
        uint64_t replaced_own = s->own;
        bool rewrite = s->wrote;
        s->wrote = 1;
        s->own = r->nwid;
        if (rewrite) { /* after its first write the item holds t's latest version */
            if (r->wid != replaced_own && show(c, ++c->res->stale_own))
                report(c, "stale own write", &e, r->wid, "after writing it", NO_TXN);
            return;
        }
        if (s->read && r->wid != s->rwid && show(c, ++c->res->lost_rmw)) {
            report(c, "lost update", &e, r->wid, "not the version it read of it before,",
                   NO_TXN);
            fprintf(c->out, "  which was the version of ");
            put_wid(c, s->rwid);
            fprintf(c->out, "\n");
        }
    } else if (s->wrote) {
        if (r->wid == s->own)
            return; /* a read of its own latest write */
        if (show(c, ++c->res->stale_own))
            report(c, "stale own read", &e, r->wid, "after writing it", NO_TXN);
        if (own)
            return; /* an older own version: no edge to make; else keep the edges */
    } else if (own) {
        return; /* its own version of an item it did not write yet: nothing to link */
    } else {
        s->read = 1;
        s->rwid = r->wid;
    }
    if (own) {
        e.ver = VER_NONE;
    } else if (r->wid != 0) {
        e.ver = w == NO_TXN ? VER_NONE : (w & ID_TXN_MASK) + 1;
        if (w == NO_TXN && show(c, ++c->res->dirty_reads))
            report(c, write ? "dirty write" : "dirty read", &e, r->wid, "which never committed",
                   NO_TXN);
        if (w == NO_TXN && !write)
            return;
        if (w != NO_TXN && (w & ID_NONFINAL) && show(c, ++c->res->intermediate))
            report(c, write ? "intermediate write" : "intermediate read", &e, r->wid,
                   "which its writer overwrote later: writer", w & ID_TXN_MASK);
    }
    c->ents[c->nents++] = e;
}

static void flatten(struct checker *c)
{
    struct wset ws = {0};
    uint32_t t = 0;
    c->ents = xmalloc(c->res->reads + c->res->writes, sizeof *c->ents);
    for (int li = 0; li < c->nlogs; li++) {
        const struct hist_log *l = c->logs[li];
        for (size_t i = 0, end; i < l->n; i = end, t++) {
            end = txn_end(l, i);
            size_t nw = 0;
            for (size_t j = i + 1; j < end; j++)
                nw += l->recs[j].kind == HIST_WRITE;
            if (nw) { /* the set holds the items t writes, so it stays small */
                wset_reset(&ws, nw);
                for (size_t j = i + 1; j < end; j++) {
                    if (l->recs[j].kind != HIST_WRITE)
                        continue;
                    uint32_t code[3];
                    item_encode(c, &l->recs[j], code);
                    struct wset_slot *s = wset_find(&ws, code);
                    memcpy(s->code, code, sizeof s->code);
                    s->used = 1;
                }
            }
            for (size_t j = i + 1; j < end; j++) {
                if (j + PREFETCH_AHEAD < l->n)
                    prefetch_id(c, l->recs[j + PREFETCH_AHEAD].wid);
                flatten_rec(c, nw ? &ws : NULL, t, &l->recs[j]);
            }
        }
    }
    free(ws.slots);
}

/* ---- 3. radix sort by item code ---- */

/* Bits [shift, shift + width) of an item code; shift < 96, mask = 2^width - 1. */
static unsigned code_digit(const uint32_t code[3], unsigned shift, unsigned mask)
{
    uint64_t w = shift < 64 ? shr(code_lo(code), shift) | shl(code[2], 64 - shift)
                            : code[2] >> (shift - 64);
    return (unsigned)w & mask;
}

/* LSD radix sort over code_bits in passes of equal digits of at most DIGIT_BITS_MAX. */
static void sort_ents(struct checker *c)
{
    size_t n = c->nents;
    unsigned passes = (c->code_bits + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX;
    if (n < 2 || passes == 0)
        return;
    unsigned width = (c->code_bits + passes - 1) / passes, mask = (1u << width) - 1;
    size_t *cnt = xcalloc((size_t)passes << width, sizeof *cnt); /* one histogram a pass */
    for (size_t i = 0; i < n; i++)
        for (unsigned p = 0; p < passes; p++)
            cnt[(size_t)p << width | code_digit(c->ents[i].code, p * width, mask)]++;
    struct ent *a = c->ents, *b = xmalloc(n, sizeof *b);
    for (unsigned p = 0; p < passes; p++) {
        size_t *h = &cnt[(size_t)p << width], sum = 0;
        if (h[code_digit(a[0].code, p * width, mask)] == n)
            continue; /* constant digit: the pass would not move anything */
        for (unsigned k = 0; k <= mask; k++) {
            size_t x = h[k];
            h[k] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++)
            b[h[code_digit(a[i].code, p * width, mask)]++] = a[i];
        struct ent *tmp = a;
        a = b;
        b = tmp;
    }
    c->ents = a;
    free(b);
    free(cnt);
}

/* ---- 4. per-item scan: violations and edges ---- */

static void edge(struct checker *c, uint32_t from, uint32_t to, const struct ent *e)
{
    uint64_t key = (uint64_t)from << 32 | to;
    uint64_t *slot = &c->recent[hash_fib(key) >> 32 & (EDGE_CACHE - 1)];
    if (from == to || *slot == key)
        return;
    *slot = key;
    if (c->edges)
        c->edges[c->res->edges] = (struct edge_rec){from, {to, (uint32_t)(e - c->ents)}};
    c->res->edges++;
}

/* Scans the entries run[0 .. n) of one item, numbered `item` (> 0). */
static void scan_item(struct checker *c, const struct ent *run, size_t n, uint32_t item)
{
    bool lost = false;
    for (size_t i = 0; i < n; i++) { /* writes: version order */
        const struct ent *e = &run[i];
        uint32_t t = e->who & ~ENT_WRITE, v = e->ver;
        if (!(e->who & ENT_WRITE))
            continue;
        c->vs[t + 1].wrote = item;
        if (v == VER_NONE)
            continue;
        if (v)
            edge(c, v - 1, t, e);
        if (c->vs[v].succ_at != item) {
            c->vs[v].succ_at = item;
            c->vs[v].succ = t;
        } else if (!lost) { /* counted once per item */
            lost = true;
            if (show(c, ++c->res->lost_updates))
                report(c, "lost update", e, v ? c->ids[v - 1] : 0, "as did", c->vs[v].succ);
        }
    }
    for (size_t i = 0; i < n; i++) { /* every version used must exist; reads */
        const struct ent *e = &run[i];
        uint32_t t = e->who & ~ENT_WRITE, v = e->ver;
        if (v == VER_NONE)
            continue;
        if (v && c->vs[v].wrote != item) {
            if (show(c, ++c->res->dirty_reads))
                report(c, e->who & ENT_WRITE ? "dirty write" : "dirty read", e, c->ids[v - 1],
                       "which never wrote that item", NO_TXN);
            continue;
        }
        if (e->who & ENT_WRITE)
            continue;
        if (v)
            edge(c, v - 1, t, e);
        if (c->vs[v].succ_at == item)
            edge(c, t, c->vs[v].succ, e);
    }
}

static void scan_items(struct checker *c)
{
    uint32_t item = 0; /* <= nents < UINT32_MAX (scan_logs checked) */
    size_t hi;
    c->vs = xcalloc(c->ntx + 1, sizeof *c->vs);
    for (size_t lo = 0; lo < c->nents; lo = hi) {
        for (hi = lo + 1; hi < c->nents && code_eq(c->ents[lo].code, c->ents[hi].code); hi++)
            ;
        scan_item(c, &c->ents[lo], hi - lo, ++item);
    }
}

/* Turns the first ne edges of the list into CSR form over c->nnodes nodes: the
 * successors of u are adj[off[u] .. off[u + 1]). The list is kept (check_strict extends
 * it). */
static void build_csr(struct checker *c, size_t ne)
{
    size_t sum = 0;
    free(c->off);
    free(c->adj);
    c->off = xcalloc(c->nnodes + 1, sizeof *c->off);
    for (size_t i = 0; i < ne; i++)
        c->off[c->edges[i].from]++;
    for (size_t u = 0; u < c->nnodes; u++) {
        sum += c->off[u];
        c->off[u] = sum; /* end of u's range; the fill decrements it to its start */
    }
    c->off[c->nnodes] = sum;
    c->adj = xmalloc(ne, sizeof *c->adj);
    for (size_t i = 0; i < ne; i++)
        c->adj[--c->off[c->edges[i].from]] = c->edges[i].arc;
}

/* ---- 5. cycles ---- */

/* Returns a node on a cycle, or NO_TXN. Every cycle holds a transaction (the helpers
 * alone form a chain), so roots among the transactions suffice. */
static uint32_t find_cycle_node(const struct checker *c)
{
    enum { WHITE, GREY, BLACK };
    struct frame {
        uint32_t node;
        size_t pos;
    } *stack = xmalloc(c->nnodes, sizeof *stack);
    uint8_t *color = xcalloc(c->nnodes, 1);
    uint32_t found = NO_TXN;
    for (uint32_t root = 0; root < c->ntx && found == NO_TXN; root++) {
        if (color[root] != WHITE)
            continue;
        size_t sp = 0;
        stack[sp++] = (struct frame){root, c->off[root]};
        color[root] = GREY;
        while (sp && found == NO_TXN) {
            struct frame *f = &stack[sp - 1];
            if (f->pos == c->off[f->node + 1]) {
                color[f->node] = BLACK;
                sp--;
                continue;
            }
            uint32_t to = c->adj[f->pos++].to;
            if (color[to] == GREY) { /* back edge: `to` is on the stack, so on a cycle */
                found = to;
            } else if (color[to] == WHITE) {
                color[to] = GREY;
                stack[sp++] = (struct frame){to, c->off[to]};
            }
        }
    }
    free(color);
    free(stack);
    return found;
}

/* Prints a shortest cycle through g (found by a BFS from g back to g). A run of
 * real-time helpers is printed as one RT edge. */
static void print_cycle(const struct checker *c, uint32_t g)
{
    uint32_t *parent = xmalloc(c->nnodes, sizeof *parent);
    uint32_t *queue = xmalloc(c->nnodes, sizeof *queue);
    size_t head = 0, tail = 0, len = 1, ntxn = 0;
    uint32_t last = NO_TXN; /* the node whose edge closes the cycle into g */
    memset(parent, 0xff, c->nnodes * sizeof *parent);
    queue[tail++] = g;
    parent[g] = g;
    while (head < tail && last == NO_TXN) {
        uint32_t u = queue[head++];
        for (size_t p = c->off[u]; p < c->off[u + 1] && last == NO_TXN; p++) {
            uint32_t to = c->adj[p].to;
            if (to == g) {
                last = u;
            } else if (parent[to] == NO_TXN) {
                parent[to] = u;
                queue[tail++] = to;
            }
        }
    }
    for (uint32_t u = last; u != g; u = parent[u])
        len++;
    for (uint32_t u = last, i = (uint32_t)len; i-- > 0; u = parent[u])
        queue[i] = u; /* the cycle, g first */
    size_t first = 0; /* a transaction on the cycle */
    while (queue[first] >= c->ntx)
        first++;
    for (size_t i = 0; i < len; i++)
        ntxn += queue[i] < c->ntx;
    fprintf(c->out, "cycle of %zu transactions:\n", ntxn);
    for (size_t i = 0, shown = 0; i < len && shown < CYCLE_SHOW; i++) {
        uint32_t a = queue[(first + i) % len], b = queue[(first + i + 1) % len];
        if (a >= c->ntx)
            continue;
        shown++;
        fprintf(c->out, "  ");
        put_txn_id(c, c->ids[a]);
        if (b >= c->ntx) { /* through helpers to the next transaction */
            for (size_t j = i + 1; (b = queue[(first + j) % len]) >= c->ntx; j++)
                ;
            fprintf(c->out, " -RT-> ");
            put_txn_id(c, c->ids[b]);
            fprintf(c->out, " (committed before it began)\n");
            continue;
        }
        size_t p = c->off[a];
        while (c->adj[p].to != b) /* the edge a -> b exists */
            p++;
        const struct ent *e = &c->ents[c->adj[p].ent];
        fprintf(c->out, " -%s-> ", e->who & ENT_WRITE ? "WW" : e->ver == a + 1 ? "WR" : "RW");
        put_txn_id(c, c->ids[b]);
        fprintf(c->out, " on ");
        put_item(c, e);
        fprintf(c->out, "\n");
    }
    if (ntxn > CYCLE_SHOW)
        fprintf(c->out, "  ... %zu more edges\n", ntxn - CYCLE_SHOW);
    free(queue);
    free(parent);
}

/* ---- 6. real-time order ---- */

static const uint64_t *sort_times; /* qsort's context: the checker's times */

static int by_commit(const void *x, const void *y)
{
    uint64_t a = sort_times[2 * *(const uint32_t *)x + 1];
    uint64_t b = sort_times[2 * *(const uint32_t *)y + 1];
    return (a > b) - (a < b);
}

/* Adds the real-time edges through helper nodes (see the file comment) to the conflict
 * edges and searches for a cycle again; sets res->strict. Prints the first cycle as a
 * real-time violation (not a failure). */
static void check_strict(struct checker *c)
{
    size_t n = c->ntx, ne = c->res->edges;
    uint32_t *rank = xmalloc(n, sizeof *rank); /* transactions by commit time */
    for (uint32_t i = 0; i < n; i++)
        rank[i] = i;
    sort_times = c->times;
    qsort(rank, n, sizeof *rank, by_commit);
    c->edges = xrealloc(c->edges, ne + 3 * n, sizeof *c->edges);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)n + i;
        c->edges[ne++] = (struct edge_rec){rank[i], {p, ENT_RT}};
        if (i)
            c->edges[ne++] = (struct edge_rec){p - 1, {p, ENT_RT}};
    }
    for (uint32_t t = 0; t < n; t++) { /* largest rank committed before t began */
        size_t lo = 0, hi = n;          /* answer + 1 lies in [lo, hi] */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->times[2 * rank[mid] + 1] < c->times[2 * t])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo)
            c->edges[ne++] = (struct edge_rec){(uint32_t)(n + lo - 1), {t, ENT_RT}};
    }
    free(rank);
    c->nnodes = 2 * n;
    build_csr(c, ne);
    uint32_t g = find_cycle_node(c);
    c->res->strict = g == NO_TXN;
    if (g != NO_TXN && c->out) {
        fprintf(c->out, "not strictly serializable (real-time order), ");
        print_cycle(c, g);
    }
}

static void checker_free(struct checker *c)
{
    free(c->ids);
    free(c->times);
    free(c->hash);
    free(c->ents);
    free(c->vs);
    free(c->edges);
    free(c->off);
    free(c->adj);
}

bool hist_check(struct hist_log *const *logs, int nlogs, const char *const *table_names,
                int ntables, enum hist_level level, FILE *out, struct hist_result *res)
{
    struct checker c = {.logs = logs, .nlogs = nlogs, .names = table_names,
                        .ntables = ntables, .out = out, .res = res};
    memset(res, 0, sizeof *res);
    res->strict = -1;
    scan_logs(&c);
    index_txns(&c);
    if (!c.malformed) {
        flatten(&c);
        sort_ents(&c);
        if (level != HIST_LEVEL_RC) /* a read gives at most 2 edges, a write 1 */
            c.edges = xmalloc(2 * c.nents, sizeof *c.edges);
        scan_items(&c); /* reports lost updates and dirty versions */
        if (level != HIST_LEVEL_RC) {
            c.nnodes = c.ntx;
            build_csr(&c, res->edges);
            uint32_t g = find_cycle_node(&c);
            res->cycles = g != NO_TXN;
            if (res->cycles && out)
                print_cycle(&c, g);
            if (!res->cycles && c.timed)
                check_strict(&c);
        }
    }
    res->ok = !c.malformed && !res->dirty_reads && !res->lost_updates && !res->stale_own &&
              !res->intermediate && !res->lost_rmw && !res->cycles &&
              (level != HIST_LEVEL_STRICT || res->strict == 1);
    if (out)
        fprintf(out,
                "history check (%s): %zu txns, %zu reads, %zu writes, %zu edges; "
                "%zu dirty, %zu intermediate, %zu lost updates, %zu lost after read, "
                "%zu stale own, %zu malformed, %s%s: %s\n",
                level == HIST_LEVEL_STRICT ? "STRICT" : level == HIST_LEVEL_SER ? "SER" : "RC", res->txns, res->reads, res->writes,
                res->edges, res->dirty_reads, res->intermediate, res->lost_updates,
                res->lost_rmw, res->stale_own, c.malformed,
                level != HIST_LEVEL_RC ? (res->cycles ? "cycle" : "acyclic")
                                        : "cycles not checked",
                res->strict < 0 ? "" : res->strict ? ", strict" : ", not strict",
                res->ok ? "OK" : "FAIL");
    checker_free(&c);
    return res->ok;
}
