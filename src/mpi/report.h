/* apsp-mpi -v: the grid, each step's time, and the communication volume counted in the rounds
 * beside the model's (docs/distributed.md). Collective: every rank's figures go to rank 0, which
 * prints. */
#ifndef APSP_MPI_REPORT_H
#define APSP_MPI_REPORT_H

#include "mpi/grid.h"
#include "mpi/io.h"
#include "mpi/rounds.h"

typedef struct run_report {
    char engine[128]; /* the local engine's description */
    input_times input;
    round_stats rounds;
    double rounds_seconds, write_seconds, total_seconds;
} run_report;

/* Broadcast payload one rank receives in a solve by the model, the mean over the ranks: the row
 * panels of the rounds whose pivot row is another process row, and the column panels likewise,
 * n^2 (1/Pc (1 - 1/Pr) + 1/Pr (1 - 1/Pc)) cells, which is 2 n^2 / sqrt(P) (1 - 1/sqrt(P)) on a
 * square grid; plus the pivot blocks, B^2 per round to Pr + Pc - 2 of the P ranks. */
double model_received_bytes(const layout *l, const grid *g);

void report_print(const grid *g, const layout *l, const run_report *r);

#endif
