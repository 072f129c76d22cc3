/* Intrusive doubly linked lists: the links are two pointer fields of the node struct,
 * named by the caller, and the list is a head pointer (and, for lists that append or
 * unlink at the back, a tail pointer) kept by its owner. Macros over the field names, so
 * one node type can be on several lists at once (cc/lock_queue.h: a request is an owner
 * through onext/oprev and a waiter through wnext/wprev). Arguments are evaluated more
 * than once: pass plain lvalues. No synchronisation: the caller holds the list's latch. */
#ifndef STORAGE_DLIST_H
#define STORAGE_DLIST_H

#include <stddef.h>

/* Links n at the front of the list `head`, a list without a tail pointer. */
#define DLIST_NOTAIL_PUSH(head, n, next, prev)                                               \
    do {                                                                                     \
        (n)->prev = NULL;                                                                    \
        (n)->next = (head);                                                                  \
        if (head)                                                                            \
            (head)->prev = (n);                                                              \
        (head) = (n);                                                                        \
    } while (0)

/* Links n at the back of the list (head, tail). */
#define DLIST_PUSH_BACK(head, tail, n, next, prev)                                           \
    do {                                                                                     \
        (n)->next = NULL;                                                                    \
        (n)->prev = (tail);                                                                  \
        if (tail)                                                                            \
            (tail)->next = (n);                                                              \
        else                                                                                 \
            (head) = (n);                                                                    \
        (tail) = (n);                                                                        \
    } while (0)

/* Links n into the list (head, tail) before node pos (NULL: at the back). */
#define DLIST_INSERT_BEFORE(head, tail, n, pos, next, prev)                                  \
    do {                                                                                     \
        (n)->next = (pos);                                                                   \
        if (pos) {                                                                           \
            (n)->prev = (pos)->prev;                                                         \
            (pos)->prev = (n);                                                               \
        } else {                                                                             \
            (n)->prev = (tail);                                                              \
            (tail) = (n);                                                                    \
        }                                                                                    \
        if ((n)->prev)                                                                       \
            (n)->prev->next = (n);                                                           \
        else                                                                                 \
            (head) = (n);                                                                    \
    } while (0)

/* Unlinks n from the list (head, tail); n's own links are left as they were. */
#define DLIST_UNLINK(head, tail, n, next, prev)                                              \
    DLIST_UNLINK_(head, n, next, prev, (tail) = (n)->prev)

/* Unlinks n from the list `head`, a list without a tail pointer; n's own links are left
 * as they were. */
#define DLIST_NOTAIL_UNLINK(head, n, next, prev) DLIST_UNLINK_(head, n, next, prev, (void)0)

/* The two unlinks: `at_tail` runs when n was the last node. */
#define DLIST_UNLINK_(head, n, next, prev, at_tail)                                          \
    do {                                                                                     \
        if ((n)->prev)                                                                       \
            (n)->prev->next = (n)->next;                                                     \
        else                                                                                 \
            (head) = (n)->next;                                                              \
        if ((n)->next)                                                                       \
            (n)->next->prev = (n)->prev;                                                     \
        else                                                                                 \
            at_tail;                                                                         \
    } while (0)

#endif
