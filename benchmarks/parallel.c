/* parallel_for: runs a loader function on n threads and waits for them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/workload.h"
#include "storage/mem.h"

struct pf_arg {
    int i;
    void (*fn)(int, void *);
    void *arg;
};

static void *pf_main(void *p)
{
    struct pf_arg *a = p;
    mem_thread_init();
    a->fn(a->i, a->arg);
    return NULL;
}

void parallel_for(int nthreads, void (*fn)(int i, void *arg), void *arg)
{
    pthread_t *th = mem_alloc((size_t)nthreads * sizeof(*th));
    struct pf_arg *a = mem_alloc((size_t)nthreads * sizeof(*a));
    for (int i = 0; i < nthreads; i++) {
        a[i] = (struct pf_arg){i, fn, arg};
        if (pthread_create(&th[i], NULL, pf_main, &a[i]) != 0) {
            fprintf(stderr, "cannot create loader thread %d\n", i);
            exit(1);
        }
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    mem_free(a);
    mem_free(th);
}
