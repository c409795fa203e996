/* A pool of threads that lives as long as the pthread backend's device: each run hands a step's
 * items to its threads and returns when all are done, so a solve's rounds start no threads. */
#ifndef APSP_CPU_POOL_H
#define APSP_CPU_POOL_H

#include <stddef.h>

typedef struct pool pool;

/* Starts up to threads - 1 helper threads (the caller is the last one). If the system refuses
 * some, the pool has fewer: pool_threads says how many. NULL only when out of memory. */
pool *pool_create(unsigned threads);
unsigned pool_threads(const pool *p);

/* One item of a run's work, on thread id (0 is the caller of pool_run_items). */
typedef void (*pool_item_task)(void *context, size_t item, unsigned id);

/* Runs task on every item in [0, count), each item handed to whichever thread asks next, and
 * returns when all are done. Not an even split: on a machine whose cores run at different speeds
 * (a neighbour's load, a virtual CPU that shares a core, a clock that drops) a fixed share makes
 * every thread wait for the slowest at the end of each step; taken in turn, the faster threads do
 * more of the items. The items must be independent of one another. */
void pool_run_items(pool *p, pool_item_task task, void *context, size_t count);
void pool_destroy(pool *p); /* accepts NULL */

#endif
