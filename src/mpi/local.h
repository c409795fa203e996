/* A rank's local compute: what one rank does to its own blocks in a round, behind a small table
 * so that another engine (a GPU through a solver instance of its own) can take the pthread
 * backend's place without the round loop (rounds.c) changing.
 *
 * The engine holds the rank's local matrix (grid.h: its blocks in global order, B x B each).
 * Panels cross the interface in host memory the engine provides (panel_memory: pinned where it
 * has a device), in the layouts MPI broadcasts them in:
 *   pivot       B x B, pitch B
 *   row panel   the local blocks of the pivot block row: B x local_cols, pitch local_cols
 *   col panel   the local blocks of the pivot block column: local_rows x B, pitch B
 * `skip` is the local index of the pivot's own block in that row or column, or NO_BLOCK.
 *
 * A step's output goes to the host only where `share` says another rank takes it (MPI sends it),
 * and is there once outputs_ready() returns; an engine may start the copy and return at once.
 * An engine may also keep what it made itself: a round's first relax uses the panels of the last
 * pivot_row / pivot_column calls from the engine's own copies where it made them, and the pivot
 * of the last close_pivot likewise in the phase 2 after it. */
#ifndef APSP_MPI_LOCAL_H
#define APSP_MPI_LOCAL_H

#include "apsp.h"
#include "mpi/grid.h"

#include <stdint.h>

#define NO_BLOCK ((size_t)-1)

typedef struct local_engine local_engine;

/* Which blocks a phase 3 relaxes: never those of local row skip_row or column skip_col (this
 * round's pivot row and column, done in phase 2). The look-ahead (rounds.c) splits the rest in
 * two: RELAX_FIRST takes only the blocks in local row first_row or column first_col (the next
 * round's pivot row and column, needed first), RELAX_REST the others. While a RELAX_REST runs,
 * the calling thread calls progress(context) between blocks, so that MPI moves the next round's
 * panels meanwhile. */
typedef enum relax_part { RELAX_ALL, RELAX_FIRST, RELAX_REST } relax_part;
typedef struct relax_set {
    relax_part part;
    size_t skip_row, skip_col;
    size_t first_row, first_col;
    /* Returns nonzero once the next round's panels have arrived (next_col_panel and
     * next_row_panel, which an engine may then start taking in); NULL: none. */
    int (*progress)(void *context);
    void *progress_context;
    const int32_t *next_col_panel, *next_row_panel;
} relax_set;

typedef struct local_ops {
    const char *name;
    /* threads: the pthread engine's pool; node_rank: the rank's index among its node's ranks,
     * which picks a device where the engine has several to choose from. */
    apsp_status (*open)(const apsp_options *options, unsigned threads, int node_rank,
                        local_engine **out, apsp_error *error);
    void (*close)(local_engine *e); /* accepts NULL */
    /* Takes the rank's local matrix (layout l), filled by the caller; the engine may keep it or
     * copy it. store() gives the final distances back into it. */
    apsp_status (*load)(local_engine *e, const layout *l, int32_t *local, apsp_error *error);
    apsp_status (*store)(local_engine *e, int32_t *local, apsp_error *error);
    /* Host memory of `ints` int32 for the pivot and the panels (64-byte aligned), until
     * panel_memory_free. Both called between load and close. */
    apsp_status (*panel_memory)(local_engine *e, size_t ints, int32_t **out, apsp_error *error);
    void (*panel_memory_free)(local_engine *e, int32_t *memory); /* accepts NULL */
    /* Phase 1: closes local block (bi, bj); copies it out when `share`. */
    void (*close_pivot)(local_engine *e, size_t bi, size_t bj, int32_t *pivot_out, int share);
    /* Phase 2 on local block row bi (the pivot row), then that row panel out when `share`.
     * `pivot` is read unless this engine closed it itself. */
    void (*pivot_row)(local_engine *e, size_t bi, size_t skip, const int32_t *pivot,
                      int32_t *row_panel_out, int share);
    /* Phase 2 on local block column bj (the pivot column), then that column panel out. */
    void (*pivot_column)(local_engine *e, size_t bj, size_t skip, const int32_t *pivot,
                         int32_t *col_panel_out, int share);
    /* Returns once the outputs of the steps before that were to be shared are in host memory. */
    void (*outputs_ready)(local_engine *e);
    /* Phase 3 on the blocks `set` picks (below). */
    void (*relax)(local_engine *e, const relax_set *set, const int32_t *col_panel,
                  const int32_t *row_panel);
    /* With options->profile: where the rounds' time went, through options->log (the round
     * count and their seconds, for the per-round figures). NULL: the engine keeps none. */
    void (*log_profile)(local_engine *e, size_t rounds, double seconds);
    /* For -v: what ran, e.g. "2 POSIX threads, avx2". */
    void (*describe)(const local_engine *e, char *text, size_t size);
} local_ops;

/* The pthread backend's block kernels on a pool of threads (local_cpu.c). */
extern const local_ops local_cpu;
#ifdef APSP_HAVE_OPENCL
/* One OpenCL device per rank, the local matrix resident on it (local_opencl.c). */
extern const local_ops local_opencl;
#endif

#endif
