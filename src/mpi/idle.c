/* See idle.h. */
#include "mpi/idle.h"
#include "base/util.h"

#include <time.h>

/* A broadcast in flight or a peer a little behind ends well within the first polling, where a nap
 * would only add latency. Past it, 1 ms naps cost a wait that long already next to nothing, and
 * after each one a short burst of polling lets a message that arrives in many pieces (TCP's
 * fragments, each taken by one progress call) move several per millisecond: about 5% of a core. */
static const double FIRST_POLL_SECONDS = 0.1, BURST_SECONDS = 50e-6;
static const struct timespec NAP = {0, 1000 * 1000};

static int all_done(int count, MPI_Request requests[]) {
    int done;
    MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    return done;
}

void idle_wait(int count, MPI_Request requests[]) {
    double poll_until = seconds_now() + FIRST_POLL_SECONDS;
    while (!all_done(count, requests))
        if (seconds_now() > poll_until) {
            nanosleep(&NAP, NULL);
            poll_until = seconds_now() + BURST_SECONDS;
        }
}
