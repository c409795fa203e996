/* The pthread backend's pool (src/cpu/pool.c): pool_run_items hands every item out exactly once,
 * on thread ids in range, run after run (a helper that polls must never run a generation twice
 * or miss one), with as many threads as cores (the helpers poll) and with more (they sleep at
 * once); and the items go to whichever thread asks, so that a thread slowed down on purpose does
 * fewer of them than an even split would give it. */
#include "cpu/pool.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MAX_ITEMS = 1000, MAX_THREADS = 16 };

typedef struct tally {
    atomic_int hits[MAX_ITEMS];
    atomic_int by_thread[MAX_THREADS];
    atomic_int bad_id;
    unsigned threads;
    int slow_thread; /* sleeps per item; -1: none */
} tally;

static void count_item(void *context, size_t item, unsigned id) {
    tally *t = context;
    if (item >= MAX_ITEMS || id >= t->threads) {
        atomic_fetch_add(&t->bad_id, 1);
        return;
    }
    atomic_fetch_add(&t->hits[item], 1);
    atomic_fetch_add(&t->by_thread[id], 1);
    if ((int)id == t->slow_thread)
        nanosleep(&(struct timespec){0, 5000000}, NULL); /* 5 ms */
}

static int failures;

static void check(int ok, const char *what, unsigned threads, size_t count, int run) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s (threads %u, %zu items, run %d)\n", what, threads, count, run);
        failures++;
    }
}

/* Many runs of one pool, each item exactly once. */
static void every_item_once(unsigned threads) {
    static const size_t counts[] = {0, 1, 2, 7, 64, 1000};
    pool *p = pool_create(threads);
    check(p && pool_threads(p) == threads, "pool_create", threads, 0, 0);
    if (!p)
        return;
    tally *t = calloc(1, sizeof *t);
    for (int run = 0; run < 300 && t; run++) {
        size_t count = counts[run % (sizeof counts / sizeof counts[0])];
        for (size_t i = 0; i < MAX_ITEMS; i++)
            atomic_store(&t->hits[i], 0);
        t->threads = threads;
        t->slow_thread = -1;
        pool_run_items(p, count_item, t, count);
        int once = 1;
        for (size_t i = 0; i < MAX_ITEMS; i++)
            once &= atomic_load(&t->hits[i]) == (i < count ? 1 : 0);
        check(once, "every item exactly once", threads, count, run);
        check(atomic_load(&t->bad_id) == 0, "ids in range", threads, count, run);
    }
    free(t);
    pool_destroy(p);
}

/* Thread 1 sleeps 5 ms per item: the others take its share. */
static void slow_thread_takes_fewer(unsigned threads) {
    pool *p = pool_create(threads);
    tally *t = calloc(1, sizeof *t);
    if (!p || !t || pool_threads(p) != threads) {
        check(0, "pool_create", threads, 0, 0);
        free(t);
        pool_destroy(p);
        return;
    }
    const size_t count = 600;
    t->threads = threads;
    t->slow_thread = 1;
    pool_run_items(p, count_item, t, count);
    int slow = atomic_load(&t->by_thread[1]), even = (int)(count / threads);
    if (slow * 2 > even) {
        fprintf(stderr, "FAIL: the slow thread took %d of %zu items (an even share: %d)\n", slow,
                count, even);
        failures++;
    }
    free(t);
    pool_destroy(p);
}

int main(void) {
    static const unsigned threads[] = {1, 2, 3, 8, 16};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
        every_item_once(threads[i]);
    slow_thread_takes_fewer(2);
    slow_thread_takes_fewer(4);
    if (failures)
        return 1;
    printf("pool: every item once over 300 runs at 1-16 threads; a slow thread took less\n");
    return 0;
}
