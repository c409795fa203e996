/* A pool of threads that lives as long as the pthread backend's device: each run hands one task
 * to every thread and returns when all of them are done, so a solve's rounds start no threads. */
#ifndef APSP_CPU_POOL_H
#define APSP_CPU_POOL_H

/* Runs on every thread of the pool; id runs from 0 (the caller of pool_run) to threads - 1. */
typedef void (*pool_task)(void *context, unsigned id, unsigned threads);

typedef struct pool pool;

/* Starts up to threads - 1 helper threads (the caller is the last one). If the system refuses
 * some, the pool has fewer: pool_threads says how many. NULL only when out of memory. */
pool *pool_create(unsigned threads);
unsigned pool_threads(const pool *p);
void pool_run(pool *p, pool_task task, void *context);
void pool_destroy(pool *p); /* accepts NULL */

#endif
