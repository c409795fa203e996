#include "base/parallel.h"
#include "base/fault.h"
#include "base/util.h"

#include <pthread.h>

enum { MAX_SLICES = 16 };

/* A slice thread's stack. glibc keeps 40 MiB of freed stacks for the next threads, five of the
 * default 8 MiB ones: the 15 threads of each 64 MiB batch of a large write then mapped ten fresh
 * stacks and unmapped ten (under the memory-map lock that the output's page faults hold; 1526
 * pthread_create calls took 0.8-1.0 s in a 6.4 GB write on a 32-core host). Sixteen of 1 MiB
 * stay in that cache. The slices' functions keep their buffers on the heap. */
enum { SLICE_STACK_BYTES = 1 << 20 };

typedef struct slice {
    slice_fn work;
    void *context;
    size_t begin, end;
    int result;
} slice;

static void *run_slice(void *arg) {
    slice *s = arg;
    s->result = s->work(s->context, s->begin, s->end);
    return NULL;
}

int parallel_slices(size_t count, unsigned threads, slice_fn work, void *context) {
    if (threads == 0)
        threads = online_cores();
    if (threads > MAX_SLICES)
        threads = MAX_SLICES;
    if (threads > count)
        threads = count > 0 ? (unsigned)count : 1;
    slice slices[MAX_SLICES];
    pthread_t ids[MAX_SLICES];
    int started[MAX_SLICES] = {0};
    pthread_attr_t small_stack;
    int attr_ok = pthread_attr_init(&small_stack) == 0;
    if (attr_ok)
        (void)pthread_attr_setstacksize(&small_stack, SLICE_STACK_BYTES); /* (else the default) */
    for (unsigned t = 0; t < threads; t++) {
        slices[t] = (slice){work, context, count * t / threads, count * (t + 1) / threads, 0};
        started[t] =
            t > 0 && !fault_hit(FAULT_ALLOC) &&
            pthread_create(&ids[t], attr_ok ? &small_stack : NULL, run_slice, &slices[t]) == 0;
    }
    if (attr_ok)
        pthread_attr_destroy(&small_stack);
    for (unsigned t = 0; t < threads; t++)
        if (!started[t])
            run_slice(&slices[t]);
    int result = 0;
    for (unsigned t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        if (!result)
            result = slices[t].result;
    }
    return result;
}
