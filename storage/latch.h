/* The spin latch, written once for every algorithm that latches: NCC's and RCC's row
 * latches, the FPSketch bucket lock, the lock queue's latch bit (2PL, Bamboo) and the
 * timestamp entry's latch bit (STO, MVTO). Two shapes of one latch:
 *   - a word latch: a whole _Atomic uint32_t, 0 free, 1 held (latch_acquire/release);
 *   - a bit latch: one bit of an _Atomic uint64_t whose other bits belong to the caller
 *     (the lock queue's word, a timestamp entry's w[0]); latch_bit_acquire returns the
 *     word as it was (the bit clear), latch_bit_release stores the caller's new word
 *     (the bit clear), so the latch and the fields it shares a word with change in
 *     one store.
 *
 * Memory ordering: acquire is a CAS with memory_order_acquire, release a store with
 * memory_order_release, so everything written in one critical section happens before
 * everything in the next: the data a latch guards is read and written relaxed (or
 * plainly) inside.
 *
 * Waiting: test-and-test-and-set. The uncontended path is one CAS, inline; the
 * contended one (latch.c) spins on a relaxed load through wait_round(WAITER_LATCH),
 * which backs off exponentially (storage/wait.h), and tries the CAS again only when the
 * latch looks free, so waiters share the line instead of hammering it. A latch is held
 * for a few hundred instructions at most and never across a wait (each algorithm's
 * "Lock order" line says so), so spinning is right; it does not take part in the stall
 * watchdog or the stop flag.
 *
 * Counting shared writes (storage/shared_writes.h) is the caller's: the same latch is
 * a row word in one algorithm and an index bucket in another. */
#ifndef STORAGE_LATCH_H
#define STORAGE_LATCH_H

#include <stdatomic.h>
#include <stdint.h>

/* The contended paths (latch.c). */
void latch_wait(_Atomic uint32_t *l);
uint64_t latch_bit_wait(_Atomic uint64_t *w, uint64_t bit);

static inline void latch_init(_Atomic uint32_t *l) { atomic_init(l, 0); }

static inline void latch_acquire(_Atomic uint32_t *l)
{
    uint32_t z = 0;
    /* acquire: pairs with latch_release's release store */
    if (!atomic_compare_exchange_weak_explicit(l, &z, 1, memory_order_acquire,
                                               memory_order_relaxed))
        latch_wait(l);
}

static inline void latch_release(_Atomic uint32_t *l)
{
    /* release: pairs with the acquire CAS of the next holder */
    atomic_store_explicit(l, 0, memory_order_release);
}

/* Takes `bit` of *w; returns *w as it was when taken (bit clear). */
static inline uint64_t latch_bit_acquire(_Atomic uint64_t *w, uint64_t bit)
{
    /* relaxed: a first guess for the CAS */
    uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
    /* acquire: pairs with latch_bit_release's release store */
    if (!(v & bit) && atomic_compare_exchange_weak_explicit(w, &v, v | bit, memory_order_acquire,
                                                            memory_order_relaxed))
        return v;
    return latch_bit_wait(w, bit);
}

/* Ends the critical section by storing v, whose latch bit the caller has cleared, as the
 * new *w (the bit is not masked here: the lock queue's words are built clear, so a mask
 * would cost an instruction per release on the 2PL path). */
static inline void latch_bit_release(_Atomic uint64_t *w, uint64_t v)
{
    /* release: pairs with the acquire CAS of the next holder */
    atomic_store_explicit(w, v, memory_order_release);
}

#endif
