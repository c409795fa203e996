#include "cpu/pool.h"
#include "base/fault.h"

#include <pthread.h>
#include <stdlib.h>

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* a new generation of work, or the end */
    pthread_cond_t work_done;  /* the last helper finished its part */
    pool_task task;
    void *context;
    unsigned long generation; /* counts runs; a helper runs each generation once */
    unsigned busy;            /* helpers still working on this generation */
    int stopping;
    unsigned threads; /* helpers + the caller */
    pthread_t *helpers;
};

typedef struct helper_start {
    pool *pool;
    unsigned id;
} helper_start;

static void *run_helper(void *arg) {
    helper_start start = *(helper_start *)arg;
    free(arg);
    pool *p = start.pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && p->generation == seen)
            pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->stopping)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        p->task(p->context, start.id, p->threads);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->work_done);
    }
    pthread_mutex_unlock(&p->lock);
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
    /* Helpers wait for the first generation, so the count can settle after they start. */
    p->threads = 1;
    while (p->threads < threads && start_helper(p, p->threads) == 0)
        p->threads++;
    return p;
}

unsigned pool_threads(const pool *p) {
    return p->threads;
}

void pool_run(pool *p, pool_task task, void *context) {
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->context = context;
    p->busy = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    task(context, 0, p->threads);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->work_done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void pool_destroy(pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
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
