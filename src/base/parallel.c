#include "base/parallel.h"
#include "base/fault.h"
#include "base/util.h"

#include <pthread.h>

enum { MAX_SLICES = 16 };

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
    for (unsigned t = 0; t < threads; t++) {
        slices[t] = (slice){work, context, count * t / threads, count * (t + 1) / threads, 0};
        started[t] = t > 0 && !fault_hit(FAULT_ALLOC) &&
                     pthread_create(&ids[t], NULL, run_slice, &slices[t]) == 0;
    }
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
