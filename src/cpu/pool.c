#include "cpu/pool.h"
#include "base/fault.h"
#include "base/util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* How many times a thread polls for new work, or the caller for the helpers' end, before it
 * sleeps on the condition variable: tens of microseconds. A solve runs three or four steps per
 * round, each ending in a wait for every thread; waking 15 sleeping helpers through the mutex
 * costs tens of microseconds per step, while the next step usually comes within a few. With more
 * threads than cores a poll only takes the core from a thread with work: none then. */
enum { SPINS = 2000 };

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* a new generation of work, or the end */
    pthread_cond_t work_done;  /* the last helper finished its part */
    atomic_ulong generation;   /* counts runs; a helper runs each generation once */
    atomic_uint busy;          /* helpers still working on this generation */
    atomic_int stopping;
    unsigned threads; /* helpers + the caller */
    int spins;        /* SPINS, or 0 with more threads than cores */
    pthread_t *helpers;
    /* The run: its task and the next item to hand out. */
    pool_item_task task;
    void *context;
    size_t items;
    atomic_size_t next_item;
};

typedef struct helper_start {
    pool *pool;
    unsigned id;
} helper_start;

static inline void cpu_relax_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Items in turn until none are left. */
static void take_items(pool *p, unsigned id) {
    for (;;) {
        size_t item = atomic_fetch_add_explicit(&p->next_item, 1, memory_order_relaxed);
        if (item >= p->items)
            return;
        p->task(p->context, item, id);
    }
}

/* Whether a generation after `seen` (or the end) came within SPINS polls. */
static int work_came_soon(pool *p, unsigned long seen) {
    for (int i = 0; i < p->spins; i++) {
        if (atomic_load_explicit(&p->generation, memory_order_acquire) != seen ||
            atomic_load_explicit(&p->stopping, memory_order_acquire))
            return 1;
        cpu_relax_hint();
    }
    return 0;
}

static void *run_helper(void *arg) {
    helper_start start = *(helper_start *)arg;
    free(arg);
    pool *p = start.pool;
    unsigned long seen = 0;
    for (;;) {
        if (!work_came_soon(p, seen)) {
            pthread_mutex_lock(&p->lock);
            while (!atomic_load(&p->stopping) && atomic_load(&p->generation) == seen)
                pthread_cond_wait(&p->work_ready, &p->lock);
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load(&p->stopping))
            break;
        seen = atomic_load(&p->generation);
        take_items(p, start.id);
        if (atomic_fetch_sub(&p->busy, 1) == 1) {
            /* Under the lock, so that a caller between its check and its wait hears it. */
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->work_done);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

static int start_helper(pool *p, unsigned id) {
    helper_start *start = apsp_malloc(sizeof *start);
    if (!start)
        return -1;
    *start = (helper_start){p, id};
    if (fault_hit(FAULT_ALLOC) || pthread_create(&p->helpers[id - 1], NULL, run_helper, start)) {
        free(start);
        return -1;
    }
    return 0;
}

pool *pool_create(unsigned threads) {
    pool *p = apsp_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->helpers = threads > 1 ? apsp_calloc(threads - 1, sizeof *p->helpers) : NULL;
    if (threads > 1 && !p->helpers) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    pthread_cond_init(&p->work_done, NULL);
    p->spins = threads <= online_cores() ? SPINS : 0;
    /* Helpers wait for the first generation, so the count can settle after they start. */
    p->threads = 1;
    while (p->threads < threads && start_helper(p, p->threads) == 0)
        p->threads++;
    return p;
}

unsigned pool_threads(const pool *p) {
    return p->threads;
}

void pool_run_items(pool *p, pool_item_task task, void *context, size_t count) {
    p->task = task;
    p->context = context;
    p->items = count;
    atomic_store_explicit(&p->next_item, 0, memory_order_relaxed);
    atomic_store_explicit(&p->busy, p->threads - 1, memory_order_relaxed);
    /* The release publishes the run's fields to helpers that poll; the lock to those asleep. */
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    take_items(p, 0);
    for (int i = 0; i < p->spins && atomic_load(&p->busy) > 0; i++)
        cpu_relax_hint();
    if (atomic_load(&p->busy) > 0) {
        pthread_mutex_lock(&p->lock);
        while (atomic_load(&p->busy) > 0)
            pthread_cond_wait(&p->work_done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
}

void pool_destroy(pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stopping, 1);
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    for (unsigned t = 1; t < p->threads; t++)
        pthread_join(p->helpers[t - 1], NULL);
    pthread_cond_destroy(&p->work_done);
    pthread_cond_destroy(&p->work_ready);
    pthread_mutex_destroy(&p->lock);
    free(p->helpers);
    free(p);
}
