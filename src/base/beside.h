/* The caller's host work (apsp_idle_work) on a thread of its own while the rounds run:
 * beside_start before the first round (work NULL or without run: nothing), beside_finish after
 * the last, which asks it to stop, joins it and returns its seconds up to rounds_end: those the
 * rounds hid (apsp_report.overlapped_seconds). The drivers (drivers/) and apsp-mpi's output
 * (mpi/io_map.c) run their preparation so. */
#ifndef APSP_BASE_BESIDE_H
#define APSP_BASE_BESIDE_H

#include "apsp.h"

#include <pthread.h>

typedef struct beside {
    const apsp_idle_work *work;
    unsigned threads; /* run_threads' count */
    pthread_t thread;
    int started;
    double begun, ended;
} beside;
void beside_start(beside *b, const apsp_idle_work *work);
/* beside_start with `threads` for the work's run_threads (apsp_idle_work): 0, or a few where the
 * solve's host threads work beside it. */
void beside_start_threads(beside *b, const apsp_idle_work *work, unsigned threads);
double beside_finish(beside *b, double rounds_end);

#endif
