/* Intrusive doubly linked lists: the links are two pointer fields of the node struct,
 * named by the caller, and the list is kept by its owner as a head pointer (NOTAIL), a
 * head and a tail pointer, the head alone with the tail in the head's prev (TIH), or the
 * tail alone (NOHEAD), whichever gives its operations O(1) in the fewest bytes. Macros
 * over the field names, so one node type can be on several lists at once
 * (cc/lock_queue.h: a request is an owner or retired through onext/oprev and a waiter
 * through wnext/wprev). Arguments are evaluated more than once: pass plain lvalues. No
 * synchronisation: the caller holds the list's latch. */
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

/* Lists whose tail is kept in the head's `prev` ("tail in head", TIH): the back is
 * reached in O(1) with no tail pointer in the list's owner (a row's CC slot). The head's
 * prev is the tail (itself when alone), every other node's prev is its predecessor, the
 * tail's next is NULL. A walk backwards must stop at the head: its prev is the tail. */
/* Links n into the TIH list `head` before node pos (NULL: at the back). */
#define DLIST_TIH_INSERT_BEFORE(head, n, pos, next, prev)                                    \
    do {                                                                                     \
        (n)->next = (pos);                                                                   \
        if (!(head)) { /* pos is NULL too */                                                 \
            (n)->prev = (n);                                                                 \
            (head) = (n);                                                                    \
        } else if ((pos) == (head)) { /* n becomes the head: it takes the tail link */       \
            (n)->prev = (head)->prev;                                                        \
            (head)->prev = (n);                                                              \
            (head) = (n);                                                                    \
        } else if (pos) {                                                                    \
            (n)->prev = (pos)->prev;                                                         \
            (pos)->prev->next = (n);                                                         \
            (pos)->prev = (n);                                                               \
        } else { /* at the back: after the tail, which the head names */                     \
            (n)->prev = (head)->prev;                                                        \
            (head)->prev->next = (n);                                                        \
            (head)->prev = (n);                                                              \
        }                                                                                    \
    } while (0)

/* Unlinks n from the TIH list `head`; n's own links are left as they were. */
#define DLIST_TIH_UNLINK(head, n, next, prev)                                                \
    do {                                                                                     \
        if ((n) == (head)) {                                                                 \
            (head) = (n)->next;                                                              \
            if (head) /* n was not the tail: its prev is */                                  \
                (head)->prev = (n)->prev;                                                    \
        } else {                                                                             \
            (n)->prev->next = (n)->next;                                                     \
            if ((n)->next)                                                                   \
                (n)->next->prev = (n)->prev;                                                 \
            else /* n was the tail */                                                        \
                (head)->prev = (n)->prev;                                                    \
        }                                                                                    \
    } while (0)

/* Lists kept by their tail alone (NOHEAD: appended to at the back, unlinked anywhere,
 * walked from the tail): the head is the node whose prev is NULL. */
#define DLIST_NOHEAD_PUSH_BACK(tail, n, next, prev)                                          \
    do {                                                                                     \
        (n)->next = NULL;                                                                    \
        (n)->prev = (tail);                                                                  \
        if (tail)                                                                            \
            (tail)->next = (n);                                                              \
        (tail) = (n);                                                                        \
    } while (0)

/* Unlinks n from the NOHEAD list `tail`; n's own links are left as they were. */
#define DLIST_NOHEAD_UNLINK(tail, n, next, prev)                                             \
    do {                                                                                     \
        if ((n)->prev)                                                                       \
            (n)->prev->next = (n)->next;                                                     \
        if ((n)->next)                                                                       \
            (n)->next->prev = (n)->prev;                                                     \
        else                                                                                 \
            (tail) = (n)->prev;                                                              \
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
