/* The anomaly matrix's scripts (benchmarks/anomaly.h): parsing a case's steps and its
 * anomalous outcome, classifying a run against that outcome, and writing a run's trace. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/anomaly.h"

const char *const an_outcome_names[AN_NOUTCOMES] = {"ALLOWED", "abort",  "block",
                                                    "block+abort", "serial", "HUNG"};

static const char *const op_names[AN_NOPS] = {"r", "rfu", "w", "l", "scan", "ins", "del",
                                              "get", "ro", "c", "cp", "a"};
static const char obj_names[AN_NOBJS] = {'x', 'y', 'A', 'B'};

static bool fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return false;
}

static int op_of(const char *w)
{
    for (int i = 0; i < AN_NOPS; i++)
        if (strcmp(w, op_names[i]) == 0)
            return i;
    return -1;
}

/* The object letter w names, if the op takes a row (x, y) or a range (A, B); else -1. */
static int obj_of(const char *w, bool range)
{
    for (int i = 0; i < AN_NOBJS; i++)
        if (w[0] == obj_names[i] && w[1] == 0 && (i >= AN_A) == range)
            return i;
    return -1;
}

static bool parse_int(const char *w, int64_t *v)
{
    char *end;
    *v = strtoll(w, &end, 10);
    return *w && !*end;
}

/* One step "T<n> <op> [<obj> [<value>]]" (a copy the parser may cut up). */
static bool parse_step(char *text, struct an_script *s, char *err, size_t n)
{
    char *w[5];
    int nw = 0;
    for (char *tok = strtok(text, " "); tok; tok = strtok(NULL, " "))
        if (nw < 5)
            w[nw++] = tok;
        else
            return fail(err, n, "too many words in step %d", s->nsteps + 1);
    if (s->nsteps == AN_MAX_STEPS)
        return fail(err, n, "more than %d steps", AN_MAX_STEPS);
    struct an_step *st = &s->steps[s->nsteps];
    if (nw < 2 || w[0][0] != 'T' || w[0][1] < '1' || w[0][1] > '0' + AN_MAX_TXNS || w[0][2])
        return fail(err, n, "step %d: expected T1..T%d and an op", s->nsteps + 1, AN_MAX_TXNS);
    st->txn = (uint8_t)(w[0][1] - '1');
    int op = op_of(w[1]);
    if (op < 0)
        return fail(err, n, "step %d: unknown op '%s'", s->nsteps + 1, w[1]);
    st->op = (uint8_t)op;
    /* words after the op: an object (a row, or a range), then a value */
    bool range = op == AN_SCAN || op == AN_INSERT || op == AN_DELETE || op == AN_GET;
    bool obj = op <= AN_GET, value = op == AN_WRITE || op == AN_INSERT || op == AN_GET;
    if (nw != 2 + obj + value)
        return fail(err, n, "step %d: '%s' takes %d words", s->nsteps + 1, w[1], obj + value);
    int o = obj ? obj_of(w[2], range) : 0;
    if (o < 0)
        return fail(err, n, "step %d: '%s' is no %s", s->nsteps + 1, w[2],
                    range ? "range (A, B)" : "row (x, y)");
    st->obj = (uint8_t)o;
    st->value = 0;
    if (value && !parse_int(w[3], &st->value))
        return fail(err, n, "step %d: '%s' is no integer", s->nsteps + 1, w[3]);
    if (op == AN_GET && (st->value < 1 || st->value > AN_RANGE_MAX))
        return fail(err, n, "step %d: a range has rows 1 to %d", s->nsteps + 1, AN_RANGE_MAX);
    s->nsteps++;
    return true;
}

/* Every transaction T1..Tn has steps and ends with exactly one c, cp or a, its last step;
 * ro comes only first. */
static bool check_txns(struct an_script *s, char *err, size_t n)
{
    bool ended[AN_MAX_TXNS] = {false}, begun[AN_MAX_TXNS] = {false};
    s->ntxns = 0;
    for (int i = 0; i < s->nsteps; i++) {
        const struct an_step *st = &s->steps[i];
        if (ended[st->txn])
            return fail(err, n, "step %d: T%d has ended", i + 1, st->txn + 1);
        if (st->op == AN_RO && begun[st->txn])
            return fail(err, n, "step %d: ro must be T%d's first step", i + 1, st->txn + 1);
        begun[st->txn] = true;
        if (st->txn >= s->ntxns)
            s->ntxns = st->txn + 1;
        if (st->op == AN_COMMIT || st->op == AN_COMMIT_PAUSED || st->op == AN_ABORT) {
            ended[st->txn] = true;
            s->commits[st->txn] = st->op != AN_ABORT;
        }
    }
    for (int t = 0; t < s->ntxns; t++)
        if (!ended[t])
            return fail(err, n, "T%d has no steps or does not end with c, cp or a", t + 1);
    return true;
}

/* One condition "s<i>=V" or "x=V". */
static bool parse_cond(const char *w, struct an_script *s, char *err, size_t n)
{
    if (s->nconds == AN_MAX_CONDS)
        return fail(err, n, "more than %d conditions", AN_MAX_CONDS);
    struct an_cond *c = &s->conds[s->nconds];
    const char *eq = strchr(w, '=');
    if (!eq || !parse_int(eq + 1, &c->value))
        return fail(err, n, "condition '%s': expected s<i>=V or x=V", w);
    if ((w[0] == 'x' || w[0] == 'y') && eq == w + 1) {
        c->kind = AN_COND_FINAL;
        c->idx = w[0] == 'x' ? AN_X : AN_Y;
        s->needs_final = true;
    } else {
        int64_t i;
        char num[8] = {0};
        size_t len = (size_t)(eq - w) - 1;
        if (w[0] != 's' || len == 0 || len >= sizeof(num))
            return fail(err, n, "condition '%s': expected s<i>=V or x=V", w);
        memcpy(num, w + 1, len);
        if (!parse_int(num, &i) || i < 1 || i > s->nsteps)
            return fail(err, n, "condition '%s': no such step", w);
        int op = s->steps[i - 1].op;
        if (op != AN_READ && op != AN_RFU && op != AN_SCAN && op != AN_GET)
            return fail(err, n, "condition '%s': step %d reads nothing", w, (int)i);
        c->kind = AN_COND_READ;
        c->idx = (uint8_t)(i - 1);
    }
    s->nconds++;
    return true;
}

bool an_parse(const struct an_case *c, struct an_script *s, char *err, size_t n)
{
    memset(s, 0, sizeof(*s));
    char buf[512];
    if (strlen(c->script) >= sizeof(buf) || strlen(c->anomaly) >= sizeof(buf))
        return fail(err, n, "too long");
    strcpy(buf, c->script);
    for (char *p = buf, *semi; p; p = semi) {
        semi = strchr(p, ';');
        if (semi)
            *semi++ = 0;
        if (!parse_step(p, s, err, n))
            return false;
    }
    if (!check_txns(s, err, n))
        return false;
    strcpy(buf, c->anomaly);
    char *words[AN_MAX_CONDS + 1];
    int nw = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        if (nw <= AN_MAX_CONDS)
            words[nw++] = tok;
    if (nw == 0)
        return fail(err, n, "no anomalous outcome");
    for (int i = 0; i < nw; i++)
        if (!parse_cond(words[i], s, err, n))
            return false;
    return true;
}

enum an_outcome an_classify(const struct an_script *s, const struct an_run *r)
{
    if (r->hung)
        return AN_HUNG;
    bool anomaly = true;
    for (int t = 0; t < s->ntxns; t++)
        anomaly &= !s->commits[t] || r->committed[t];
    for (int i = 0; i < s->nconds; i++) {
        const struct an_cond *c = &s->conds[i];
        if (c->kind == AN_COND_READ)
            anomaly &= r->r[c->idx].state == AN_OK && r->r[c->idx].value == c->value;
        else
            anomaly &= r->final[c->idx] == c->value;
    }
    if (anomaly)
        return AN_ALLOWED;
    bool blocked = false;
    for (int i = 0; i < s->nsteps; i++)
        blocked |= r->r[i].blocked;
    if (blocked)
        return r->cc_abort ? AN_BY_BLOCK_ABORT : AN_BY_BLOCK;
    return r->cc_abort ? AN_BY_ABORT : AN_BY_SERIAL;
}

void an_trace(FILE *f, const struct an_script *s, const struct an_run *r)
{
    for (int i = 0; i < s->nsteps; i++) {
        const struct an_step *st = &s->steps[i];
        const struct an_step_res *res = &r->r[i];
        fprintf(f, "%sT%d %s", i ? "; " : "", st->txn + 1, op_names[st->op]);
        if (st->op <= AN_GET)
            fprintf(f, " %c", obj_names[st->obj]);
        if (st->op == AN_WRITE || st->op == AN_INSERT || st->op == AN_GET)
            fprintf(f, " %lld", (long long)st->value);
        if (res->state == AN_OK && (st->op == AN_READ || st->op == AN_RFU || st->op == AN_SCAN ||
                                    st->op == AN_GET))
            fprintf(f, " =%lld", (long long)res->value);
        else if (res->state == AN_ABORTED)
            fprintf(f, " ABORT(%s)", abort_reason_names[res->reason]);
        else if (res->state == AN_SKIPPED)
            fputs(" skipped", f);
        else if (res->state == AN_PENDING)
            fputs(" never returned", f);
        if (res->paused)
            fputs(" [paused at publish]", f);
        if (res->blocked)
            fputs(" [blocked]", f);
    }
    if (s->needs_final)
        fprintf(f, "; final x=%lld y=%lld", (long long)r->final[0], (long long)r->final[1]);
    fprintf(f, " -> %s%s\n", an_outcome_names[an_classify(s, r)], r->hung ? " (hung)" : "");
}
