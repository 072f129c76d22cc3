/* How long a cache line takes to go from one core to another and back: two threads pinned
 * to two threads' PUs of the pin plan hand one line back and forth. On a virtual machine
 * this moves while a run goes on (the hypervisor places the virtual CPUs: on this
 * project's 2-core VMs it has read 55-180 ns and 400-630 ns at different times), and
 * every algorithm whose threads write shared lines moves with it, so the driver measures
 * it at a run's edges and the result reports it (benchmarks/report.c). */
#ifndef STORAGE_LINE_TRIP_H
#define STORAGE_LINE_TRIP_H

/* The median round trip in nanoseconds, over LINE_TRIP_BATCHES batches, of a line
 * between threads a's and b's PUs (storage/topology.h's plan); -1 when either is not
 * pinned or both share a PU. Takes a few milliseconds (more where the line is slow);
 * no other thread should be running on those PUs meanwhile. */
double line_trip_ns(int a, int b);

#endif
