/* apsp-mpi -v: the grid, each step's time, and the communication volume counted in the rounds
 * beside the model's (docs/distributed.md). Collective: every rank's figures go to rank 0, which
 * prints. */
#ifndef APSP_MPI_REPORT_H
#define APSP_MPI_REPORT_H

#include "mpi/grid.h"
#include "mpi/io.h"
#include "mpi/rounds.h"

enum { ENGINE_TEXT = 384 };

typedef struct run_report {
    char engine[ENGINE_TEXT]; /* the local engine's description */
    input_times input;
    round_stats rounds;
    /* rounds: from the first round to the device's end of the last; store: the local matrix
     * back from the engine (a device's download) */
    double rounds_seconds, store_seconds, write_seconds, total_seconds;
    /* the output's pages faulted in beside the rounds, within them (io_output_prepare) */
    double overlapped_seconds;
    int mapped; /* the bands went through a shared mapping of the file (io_map.h), not pwrite */
} run_report;

/* Broadcast payload one rank receives in a solve by the model, the mean over the ranks: the row
 * panels of the rounds whose pivot row is another process row, and the column panels likewise,
 * n^2 (1/Pc (1 - 1/Pr) + 1/Pr (1 - 1/Pc)) cells, which is 2 n^2 / sqrt(P) (1 - 1/sqrt(P)) on a
 * square grid; plus the pivot blocks, B^2 per round to Pr + Pc - 2 of the P ranks. */
double model_received_bytes(const layout *l, const grid *g);

/* -v (verbose) as lines, --stats-json (json) as one JSON line, on rank 0's stderr. */
void report_print(const grid *g, const layout *l, const run_report *r, int verbose, int json);

#endif
