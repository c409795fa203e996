/* See beside.h. */
#include "base/beside.h"
#include "base/fault.h"
#include "base/util.h"

static void *run_beside(void *context) {
    beside *b = context;
    if (b->work->run_threads)
        b->work->run_threads(b->work->context, b->threads);
    else
        b->work->run(b->work->context);
    b->ended = seconds_now();
    return NULL;
}

void beside_start(beside *b, const apsp_idle_work *work) {
    beside_start_threads(b, work, 0);
}

void beside_start_threads(beside *b, const apsp_idle_work *work, unsigned threads) {
    *b = (beside){.work = work, .threads = threads};
    if (!work || (!work->run && !work->run_threads))
        return;
    b->begun = seconds_now();
    /* A thread that cannot start leaves the work undone: it only saves the rows' first touch. */
    b->started = !fault_hit(FAULT_ALLOC) && pthread_create(&b->thread, NULL, run_beside, b) == 0;
}

double beside_finish(beside *b, double rounds_end) {
    if (!b->started)
        return 0.0;
    if (b->work->stop)
        b->work->stop(b->work->context);
    pthread_join(b->thread, NULL);
    b->started = 0;
    double end = b->ended < rounds_end ? b->ended : rounds_end;
    return end > b->begun ? end - b->begun : 0.0;
}
