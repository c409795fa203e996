/* See rounds.h. */
#include "mpi/rounds.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "cpu/kernels.h"

#include <stdlib.h>

enum { B = ROUND_DEPTH };

static int32_t *alloc_ints(size_t count) {
    /* 64-byte alignment for the kernels' vector loads; never a zero-byte request. */
    size_t bytes = (count * sizeof(int32_t) + 63) / 64 * 64;
    return apsp_aligned_alloc(64, bytes ? bytes : 64);
}

apsp_status rounds_prepare(const layout *l, round_buffers *b, apsp_error *error) {
    *b = (round_buffers){0};
    b->pivot = alloc_ints((size_t)B * B);
    b->row_panel = alloc_ints((size_t)B * l->local_cols);
    b->col_panel = alloc_ints(l->local_rows * B);
    if (!b->pivot || !b->row_panel || !b->col_panel) {
        rounds_release(b);
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for the panels of %zu columns", l->n);
    }
    return APSP_OK;
}

void rounds_release(round_buffers *b) {
    free(b->pivot);
    free(b->row_panel);
    free(b->col_panel);
    *b = (round_buffers){0};
}

/* Counts a broadcast: the root sent the payload, every other rank received it. */
static void count(size_t ints, int root, MPI_Comm comm, round_stats *stats) {
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == root)
        stats->sent_bytes += ints * sizeof(int32_t);
    else
        stats->received_bytes += ints * sizeof(int32_t);
}

static void broadcast(int32_t *data, size_t ints, int root, MPI_Comm comm, round_stats *stats) {
    double t0 = seconds_now();
    MPI_Bcast(data, (int)ints, MPI_INT32_T, root, comm);
    stats->comm_seconds += seconds_now() - t0;
    count(ints, root, comm, stats);
}

/* The row panel down the process column and the column panel along the process row, both in
 * flight at once (they travel on different communicators, often different links). */
static void broadcast_panels(const grid *g, const layout *l, round_buffers *b, int kr, int kc,
                             round_stats *stats) {
    const size_t row_ints = (size_t)B * l->local_cols, col_ints = l->local_rows * B;
    MPI_Request requests[2];
    double t0 = seconds_now();
    MPI_Ibcast(b->row_panel, (int)row_ints, MPI_INT32_T, kr, g->col, &requests[0]);
    MPI_Ibcast(b->col_panel, (int)col_ints, MPI_INT32_T, kc, g->row, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    stats->comm_seconds += seconds_now() - t0;
    count(row_ints, kr, g->col, stats);
    count(col_ints, kc, g->row, stats);
}

void rounds_run(const grid *g, const layout *l, const local_ops *ops, local_engine *e,
                round_buffers *b, round_stats *stats) {
    for (size_t k = 0; k < l->blocks; k++) {
        const int kr = (int)(k % (size_t)g->rows), kc = (int)(k % (size_t)g->cols);
        const int in_row = g->pr == kr, in_col = g->pc == kc;
        const size_t bi = in_row ? k / (size_t)g->rows : NO_BLOCK;
        const size_t bj = in_col ? k / (size_t)g->cols : NO_BLOCK;
        double t0 = seconds_now();
        if (in_row && in_col)
            ops->close_pivot(e, bi, bj, b->pivot);
        stats->compute_seconds += seconds_now() - t0;
        if (in_row)
            broadcast(b->pivot, (size_t)B * B, kc, g->row, stats);
        if (in_col)
            broadcast(b->pivot, (size_t)B * B, kr, g->col, stats);
        t0 = seconds_now();
        if (in_row)
            ops->pivot_row(e, bi, bj, b->pivot, b->row_panel);
        if (in_col)
            ops->pivot_column(e, bj, bi, b->pivot, b->col_panel);
        stats->compute_seconds += seconds_now() - t0;
        broadcast_panels(g, l, b, kr, kc, stats);
        t0 = seconds_now();
        ops->relax(e, bi, bj, b->col_panel, b->row_panel);
        stats->compute_seconds += seconds_now() - t0;
    }
}
