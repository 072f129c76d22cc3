/* Counting shared writes, in a debug build only (-DCOUNT_SHARED_WRITES=1: `make
 * shared-writes`): each store or read-modify-write of memory that other threads also use
 * is counted, per thread, by what it writes. The driver adds them up over the measured
 * window and the result gives them per committed transaction, which is how the table of
 * shared writes in docs/algorithms.md is made and kept true (tests/shared_writes.py). In
 * every other build SHW() compiles to nothing. */
#ifndef STORAGE_SHARED_WRITES_H
#define STORAGE_SHARED_WRITES_H

#include <stdint.h>

#define SHW_KINDS(X)                                                                         \
    X(SHW_ROW, "row")       /* a row's CC word, latch, lock lists or data (per access) */    \
    X(SHW_INDEX, "index")   /* a hash-index bucket (per insert or delete) */                 \
    X(SHW_TABLE, "table")   /* a word of a whole table or index: row numbers, sizes, growth */\
    X(SHW_GLOBAL, "global") /* a word every thread of the process writes */                  \
    X(SHW_PEER, "peer")     /* another thread's record: a grant, wound, kill, wake-up */     \
    X(SHW_OWN, "own")       /* this thread's record that others read (state, edges) */

#define SHW_ENUM_(e, s) e,
enum shw_kind { SHW_KINDS(SHW_ENUM_) SHW_NKINDS };
#undef SHW_ENUM_

extern const char *const shw_names[SHW_NKINDS];

#if defined(COUNT_SHARED_WRITES) && COUNT_SHARED_WRITES
extern _Thread_local uint64_t shw_count[SHW_NKINDS];
#define SHW(k) ((void)shw_count[k]++)
#define SHW_ENABLED 1
#else
#define SHW(k) ((void)0)
#define SHW_ENABLED 0
#endif

/* This thread's counts since the last call (zeroes them). */
void shw_take(uint64_t out[SHW_NKINDS]);

#endif
