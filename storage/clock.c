/* Calibrates the time-stamp counter against CLOCK_MONOTONIC (see clock.h). */
#include "storage/clock.h"

double clock_ticks_per_s = 1e9;
uint64_t clock_ticks_base;
uint64_t clock_skew_ticks;

__attribute__((constructor)) static void clock_base_init(void) { clock_ticks_base = clock_ticks(); }

void clock_calibrate(void)
{
    double t0 = clock_now_s();
    uint64_t c0 = clock_ticks();
    double t1;
    do
        t1 = clock_now_s();
    while (t1 - t0 < 0.05);
    uint64_t c1 = clock_ticks();
    clock_ticks_per_s = (double)(c1 - c0) / (t1 - t0);
}
