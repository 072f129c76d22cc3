/* The contended paths of the spin latch (see latch.h). */
#include "storage/latch.h"

#include "storage/wait.h"

void latch_wait(_Atomic uint32_t *l)
{
    struct waiter wt = WAITER_LATCH;
    for (;;) {
        uint32_t z = 0;
        /* relaxed: only a hint before the next try; acquire: as latch_acquire */
        if (atomic_load_explicit(l, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(l, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        wait_round(&wt);
    }
}

uint64_t latch_bit_wait(_Atomic uint64_t *w, uint64_t bit)
{
    struct waiter wt = WAITER_LATCH;
    /* relaxed: only a hint before the next try */
    uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        if (v & bit) {
            wait_round(&wt);
            v = atomic_load_explicit(w, memory_order_relaxed);
        } else if (atomic_compare_exchange_weak_explicit(w, &v, v | bit, memory_order_acquire,
                                                         memory_order_relaxed)) {
            /* acquire: as latch_bit_acquire */
            return v;
        }
    }
}
