/* Unit tests of storage/dlist.h's lists without a tail pointer or without a head pointer,
 * which the lock queues use for their waiters (TIH: the tail in the head's prev) and for
 * Bamboo's retired requests (NOHEAD: the tail alone): random links and unlinks against an
 * array model, each list walked both ways after every step. */
#include <stdint.h>

#include "storage/dlist.h"
#include "storage/rand.h"
#include "tests/unit/check.h"

#define N 12
#define STEPS 20000

struct node {
    struct node *next, *prev;
    int id;
};

/* The nodes from `first` by next links and from `last` by prev links (stopping after
 * `first`) against the model: n ids in order. */
static void same(struct node *first, struct node *last, const int *model, int n)
{
    int i = 0;
    for (struct node *x = first; x; x = x->next, i++)
        CHECK(i < n && x->id == model[i]);
    CHECK_EQ_U(i, n);
    CHECK(n ? last && last->id == model[n - 1] && !last->next : !last);
    i = n - 1;
    for (struct node *x = last; x; x = x == first ? NULL : x->prev, i--)
        CHECK(i >= 0 && x->id == model[i]);
    CHECK_EQ_U(i + 1, 0);
}

/* A node of the N that is not in the model, drawn at random. */
static int outside(struct rng *r, const int *model, int n)
{
    for (int k = (int)rng_below(r, N);; k = (k + 1) % N) {
        int in = 0;
        for (int j = 0; j < n; j++)
            in |= model[j] == k;
        if (!in)
            return k;
    }
}

static void model_insert(int *model, int *n, int at, int id)
{
    for (int j = *n; j > at; j--)
        model[j] = model[j - 1];
    model[at] = id;
    (*n)++;
}

static void model_remove(int *model, int *n, int at)
{
    for (int j = at; j < *n - 1; j++)
        model[j] = model[j + 1];
    (*n)--;
}

/* TIH: inserts anywhere (before the head, inside, at the back), unlinks anywhere. */
static void tih_random(void)
{
    struct node nodes[N];
    int model[N], n = 0;
    struct node *head = NULL;
    struct rng r;
    rng_seed(&r, 7, 0);
    for (int i = 0; i < N; i++)
        nodes[i].id = i;
    for (int step = 0; step < STEPS && !check_case_failed; step++) {
        if (n < N && rng_below(&r, 2)) {
            int id = outside(&r, model, n), at = (int)rng_below(&r, (uint64_t)n + 1);
            struct node *pos = at < n ? &nodes[model[at]] : NULL;
            DLIST_TIH_INSERT_BEFORE(head, &nodes[id], pos, next, prev);
            model_insert(model, &n, at, id);
        } else if (n > 0) {
            int at = (int)rng_below(&r, (uint64_t)n);
            DLIST_TIH_UNLINK(head, &nodes[model[at]], next, prev);
            model_remove(model, &n, at);
        }
        /* the head's prev is the tail */
        same(head, head ? head->prev : NULL, model, n);
        if (check_case_failed)
            printf("  at step %d\n", step);
    }
}

/* NOHEAD: appends, unlinks anywhere; the head is the node without a prev. */
static void nohead_random(void)
{
    struct node nodes[N];
    int model[N], n = 0;
    struct node *tail = NULL;
    struct rng r;
    rng_seed(&r, 8, 0);
    for (int i = 0; i < N; i++)
        nodes[i].id = i;
    for (int step = 0; step < STEPS && !check_case_failed; step++) {
        if (n < N && rng_below(&r, 2)) {
            int id = outside(&r, model, n);
            DLIST_NOHEAD_PUSH_BACK(tail, &nodes[id], next, prev);
            model_insert(model, &n, n, id);
        } else if (n > 0) {
            int at = (int)rng_below(&r, (uint64_t)n);
            DLIST_NOHEAD_UNLINK(tail, &nodes[model[at]], next, prev);
            model_remove(model, &n, at);
        }
        struct node *head = tail;
        while (head && head->prev)
            head = head->prev;
        same(head, tail, model, n);
        if (check_case_failed)
            printf("  at step %d\n", step);
    }
}

int main(void)
{
    RUN_CASE(tih_random);
    RUN_CASE(nohead_random);
    CHECK_EXIT();
}
