/* See rounds.h. */
#include "mpi/rounds.h"
#include "mpi/idle.h"
#include "base/util.h"
#include "backend/blocks.h"

enum { B = BLOCK_SIDE };

apsp_status round_buffers_prepare(const layout *l, const backend_blocks *ops, block_engine *e,
                                  round_buffers *b, apsp_error *error) {
    *b = (round_buffers){0};
    apsp_status status = ops->panel_memory(e, (size_t)B * B, &b->pivot, error);
    for (int i = 0; i < 2 && status == APSP_OK; i++) {
        status = ops->panel_memory(e, (size_t)B * l->local_cols, &b->row_panel[i], error);
        if (status == APSP_OK)
            status = ops->panel_memory(e, l->local_rows * B, &b->col_panel[i], error);
    }
    if (status != APSP_OK)
        round_buffers_release(ops, e, b);
    return status;
}

void round_buffers_release(const backend_blocks *ops, block_engine *e, round_buffers *b) {
    if (e) {
        ops->panel_memory_free(e, b->pivot);
        for (int i = 0; i < 2; i++) {
            ops->panel_memory_free(e, b->row_panel[i]);
            ops->panel_memory_free(e, b->col_panel[i]);
        }
    }
    *b = (round_buffers){0};
}

/* Round k's place in the grid: the pivot's process row and column, and the local indices of
 * block row and column k on this rank (NO_BLOCK where it holds none of them). */
typedef struct round_place {
    int kr, kc;
    size_t bi, bj;
} round_place;

static round_place place_of(const grid *g, size_t k) {
    round_place p = {(int)(k % (size_t)g->rows), (int)(k % (size_t)g->cols), NO_BLOCK, NO_BLOCK};
    if (g->pr == p.kr)
        p.bi = k / (size_t)g->rows;
    if (g->pc == p.kc)
        p.bj = k / (size_t)g->cols;
    return p;
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
    MPI_Request request;
    MPI_Ibcast(data, (int)ints, MPI_INT32_T, root, comm, &request);
    idle_wait(1, &request);
    stats->comm_seconds += seconds_now() - t0;
    count(ints, root, comm, stats);
}

/* A round's panel broadcasts: the round whose panels they are, and their requests once started
 * (after the engine's outputs are in host memory). */
typedef struct panels_in_flight {
    const grid *g;
    const layout *l;
    const backend_blocks *ops;
    block_engine *e;
    round_buffers *b;
    size_t k;
    round_stats *stats;
    int started;
    MPI_Request requests[2];
} panels_in_flight;

/* Step 4 of round f->k: the two panel broadcasts (the row panel down the process column, the
 * column panel along the process row, both in flight at once). */
static void panels_start(panels_in_flight *f) {
    const grid *g = f->g;
    const round_place p = place_of(g, f->k);
    const size_t row_ints = (size_t)B * f->l->local_cols, col_ints = f->l->local_rows * B;
    double t0 = seconds_now();
    f->ops->outputs_ready(f->e);
    f->stats->compute_seconds += seconds_now() - t0;
    MPI_Ibcast(f->b->row_panel[f->k % 2], (int)row_ints, MPI_INT32_T, p.kr, g->col,
               &f->requests[0]);
    MPI_Ibcast(f->b->col_panel[f->k % 2], (int)col_ints, MPI_INT32_T, p.kc, g->row,
               &f->requests[1]);
    count(row_ints, p.kr, g->col, f->stats);
    count(col_ints, p.kc, g->row, f->stats);
    f->started = 1;
}

/* Between the blocks of a relaxation: the broadcasts started once the engine's outputs are
 * ready (a device engine's reads then run beside the relaxation it has queued), then moved. */
static int panels_progress(void *context) {
    panels_in_flight *f = context;
    int done;
    if (!f->started)
        panels_start(f);
    MPI_Testall(2, f->requests, &done, MPI_STATUSES_IGNORE);
    return done;
}

static void panels_wait(panels_in_flight *f, round_stats *stats) {
    if (!f->started)
        panels_start(f);
    double t0 = seconds_now();
    idle_wait(2, f->requests);
    stats->comm_seconds += seconds_now() - t0;
}

/* Steps 1-3 of round k into buffer set k % 2: the pivot and phase 2; f is set up for step 4,
 * which panels_progress or panels_wait starts. An output goes to the host only where another
 * rank takes it: on a 1x1 grid, nothing does, and a device engine keeps everything on the
 * device. */
static void pivot_chain(const grid *g, const layout *l, const backend_blocks *ops, block_engine *e,
                        round_buffers *b, size_t k, panels_in_flight *f, round_stats *stats) {
    const round_place p = place_of(g, k);
    const int share_rows = g->rows > 1, share_cols = g->cols > 1; /* down, along */
    *f = (panels_in_flight){g, l, ops, e, b, k, stats, 0, {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    double t0 = seconds_now();
    if (p.bi != NO_BLOCK && p.bj != NO_BLOCK) {
        ops->close_pivot(e, p.bi, p.bj, b->pivot, share_rows || share_cols);
        ops->outputs_ready(e);
    }
    stats->compute_seconds += seconds_now() - t0;
    if (p.bi != NO_BLOCK)
        broadcast(b->pivot, (size_t)B * B, p.kc, g->row, stats);
    if (p.bj != NO_BLOCK)
        broadcast(b->pivot, (size_t)B * B, p.kr, g->col, stats);
    t0 = seconds_now();
    if (p.bi != NO_BLOCK)
        ops->pivot_row(e, p.bi, p.bj, b->pivot, b->row_panel[k % 2], share_rows);
    if (p.bj != NO_BLOCK)
        ops->pivot_column(e, p.bj, p.bi, b->pivot, b->col_panel[k % 2], share_cols);
    stats->compute_seconds += seconds_now() - t0;
}

static void relax(const backend_blocks *ops, block_engine *e, const round_buffers *b, size_t k,
                  const relax_set *set, round_stats *stats) {
    double t0 = seconds_now();
    ops->relax(e, set, b->col_panel[k % 2], b->row_panel[k % 2]);
    stats->compute_seconds += seconds_now() - t0;
}

void rounds_run(const grid *g, const layout *l, const backend_blocks *ops, block_engine *e,
                round_buffers *b, int look_ahead, round_stats *stats) {
    panels_in_flight f;
    if (l->blocks > 0) {
        pivot_chain(g, l, ops, e, b, 0, &f, stats);
        panels_wait(&f, stats);
    }
    for (size_t k = 0; k < l->blocks; k++) {
        const round_place p = place_of(g, k);
        relax_set set = {RELAX_ALL, p.bi, p.bj, NO_BLOCK, NO_BLOCK, NULL, NULL, NULL, NULL};
        if (k + 1 == l->blocks || !look_ahead) {
            relax(ops, e, b, k, &set, stats);
            if (k + 1 < l->blocks) {
                pivot_chain(g, l, ops, e, b, k + 1, &f, stats);
                panels_wait(&f, stats);
            }
            continue;
        }
        /* Round k + 1's pivot row and column first, then its chain, then the rest of round k
         * while its panels travel. */
        const round_place next = place_of(g, k + 1);
        set.part = RELAX_FIRST;
        set.first_row = next.bi;
        set.first_col = next.bj;
        relax(ops, e, b, k, &set, stats);
        pivot_chain(g, l, ops, e, b, k + 1, &f, stats);
        set.part = RELAX_REST;
        set.progress = panels_progress;
        set.progress_context = &f;
        set.next_col_panel = b->col_panel[(k + 1) % 2];
        set.next_row_panel = b->row_panel[(k + 1) % 2];
        relax(ops, e, b, k, &set, stats);
        panels_wait(&f, stats);
    }
}
