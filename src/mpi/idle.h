/* Waiting on MPI requests without burning a core. Open MPI's MPI_Wait and blocking collectives
 * poll the network at full speed for as long as they wait, so a rank whose peer is stopped
 * (SIGSTOP, a debugger) or slow to read a large input kept one core at 100% indefinitely. Here a
 * wait polls as MPI_Wait would for its first moments, where the rounds' own waits end, then naps
 * between short bursts of polling (idle.c): the same progress, whatever the MPI settings, at
 * about 5% of a core (Open MPI's mpi_yield_when_idle only yields: the stopped peer's partner still
 * took as much of its core as without it). */
#ifndef APSP_MPI_IDLE_H
#define APSP_MPI_IDLE_H

#include <mpi.h>

/* MPI_Waitall(count, requests, MPI_STATUSES_IGNORE), napping once the wait grows long. */
void idle_wait(int count, MPI_Request requests[]);

#endif
