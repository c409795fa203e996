/* See beside.h. */
#include "base/beside.h"
#include "base/fault.h"
#include "base/util.h"

static void *run_beside(void *context) {
    beside *b = context;
    b->work->run(b->work->context);
    b->ended = seconds_now();
    return NULL;
}

void beside_start(beside *b, const apsp_idle_work *work) {
    *b = (beside){.work = work};
    if (!work || !work->run)
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
