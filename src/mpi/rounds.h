/* The rounds of blocked Floyd-Warshall over the process grid (grid.h), one B-deep round per
 * block index k:
 *   1. the owner of the pivot block (k, k), rank (k mod Pr, k mod Pc), closes it;
 *   2. it is broadcast along the pivot's process row and down its process column;
 *   3. the pivot row's ranks update their blocks of block row k, the pivot column's ranks theirs
 *      of block column k;
 *   4. each pivot-row rank broadcasts its row panel down its process column, each pivot-column
 *      rank its column panel along its process row;
 *   5. every rank relaxes its other blocks with the two panels (the min-plus product).
 * With look-ahead (the default), step 5 of round k first relaxes the blocks of round k + 1's
 * pivot row and column, then runs steps 1-3 of round k + 1, and relaxes the rest of round k's
 * blocks while its panel broadcasts (MPI_Ibcast, started at the first progress call of that
 * relaxation, once the engine has the panels in host memory: a device engine has queued the
 * relaxation by then) travel: the next round's pivot chain and its communication hide under this
 * round's phase 3. Each block still sees the
 * rounds in order k = 0, 1, ..., so the output bytes are apsp's. */
#ifndef APSP_MPI_ROUNDS_H
#define APSP_MPI_ROUNDS_H

#include "apsp.h"
#include "mpi/grid.h"
#include "backend/blocks.h"

#include <stdint.h>

/* Two sets, by round parity: round k + 1's arrive while round k's are in use. */
typedef struct round_buffers {
    int32_t *pivot;        /* B x B */
    int32_t *row_panel[2]; /* B x local_cols */
    int32_t *col_panel[2]; /* local_rows x B */
} round_buffers;

/* What this rank's rounds cost. */
typedef struct round_stats {
    uint64_t received_bytes; /* broadcast payload that arrived here from another rank */
    uint64_t sent_bytes;     /* broadcast payload this rank was the root of */
    double compute_seconds;  /* in the local engine */
    double comm_seconds;     /* in MPI_Bcast or waiting for an MPI_Ibcast */
} round_stats;

/* The buffers for layout l (layout_check passed), in the engine's panel memory. */
apsp_status round_buffers_prepare(const layout *l, const backend_blocks *ops, block_engine *e,
                                  round_buffers *b, apsp_error *error);
void round_buffers_release(const backend_blocks *ops, block_engine *e, round_buffers *b);

/* Collective over the grid: all the rounds. Nothing in them can fail but MPI itself, whose
 * errors end the job (MPI_ERRORS_ARE_FATAL on the communicators). */
void rounds_run(const grid *g, const layout *l, const backend_blocks *ops, block_engine *e,
                round_buffers *b, int look_ahead, round_stats *stats);

#endif
