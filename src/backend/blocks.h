/* The block-level part of the backend interface (backend.h: apsp_backend_impl.blocks), which
 * apsp-mpi's rounds (src/mpi/rounds.c) drive: what one rank does to its own blocks in a round.
 * The pthread backend's engine (cpu/blocks.c) runs its block kernels on a pool of threads; the
 * OpenCL backend's (opencl/blocks.c) keeps the rank's blocks resident on one device. Both take
 * and give the same panels, so ranks of different engines share a solve.
 *
 * The engine holds the rank's local matrix: block_rows x block_cols blocks of BLOCK_SIDE x
 * BLOCK_SIDE (B below), in global order, row-major, row pitch local_cols = block_cols B.
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
 * of the last close_pivot likewise in the phase 2 after it. The cells are int32 (APSP_INF
 * unreachable), the hw3 type.
 *
 * Errors follow backend.h's one rule: open, load, store and panel_memory return a status and
 * fill *error. The round steps (close_pivot, pivot_row, pivot_column, outputs_ready, relax)
 * return void, since every rank must run every round's collectives whatever failed: an engine
 * whose step fails keeps that first status and error (sticky), does nothing in the steps after
 * it, and store() returns them, which apsp-mpi's ranks then agree on (mpi/main.c). An engine
 * whose steps cannot fail (cpu/blocks.c) has nothing to keep. */
#ifndef APSP_BLOCKS_H
#define APSP_BLOCKS_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* The blocks' side B: the pthread backend's round depth, which the OpenCL engine's device must
 * run too (cpu/blocks.c checks the one, opencl/blocks.c the other). */
enum { BLOCK_SIDE = 128 };

#define NO_BLOCK ((size_t)-1)

typedef struct block_engine block_engine;

/* The rank's local matrix: its blocks per side (local_rows = block_rows B, and so on). */
typedef struct block_shape {
    size_t block_rows, block_cols;
} block_shape;

/* Which blocks a phase 3 relaxes: never those of local row skip_row or column skip_col (this
 * round's pivot row and column, done in phase 2). The look-ahead (mpi/rounds.c) splits the rest
 * in two: RELAX_FIRST takes only the blocks in local row first_row or column first_col (the next
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

typedef struct backend_blocks {
    const char *name;
    /* device: the listed device to run on (devices/backends.h), NULL for the pthread backend,
     * whose device is the host; threads: the pthread engine's pool. An engine may keep a copy
     * of the options, whose log context must then outlive it. */
    apsp_status (*open)(const apsp_device_info *device, const apsp_options *options,
                        unsigned threads, block_engine **out, apsp_error *error);
    void (*close)(block_engine *e); /* accepts NULL */
    /* Takes the rank's local matrix, filled by the caller; the engine may keep it or copy it.
     * store() gives the final distances back into it. */
    apsp_status (*load)(block_engine *e, const block_shape *shape, int32_t *local,
                        apsp_error *error);
    apsp_status (*store)(block_engine *e, int32_t *local, apsp_error *error);
    /* Host memory of `ints` int32 for the pivot and the panels (64-byte aligned), until
     * panel_memory_free. Both called between load and close. */
    apsp_status (*panel_memory)(block_engine *e, size_t ints, int32_t **out, apsp_error *error);
    void (*panel_memory_free)(block_engine *e, int32_t *memory); /* accepts NULL */
    /* Phase 1: closes local block (bi, bj); copies it out when `share`. */
    void (*close_pivot)(block_engine *e, size_t bi, size_t bj, int32_t *pivot_out, int share);
    /* Phase 2 on local block row bi (the pivot row), then that row panel out when `share`.
     * `pivot` is read unless this engine closed it itself. */
    void (*pivot_row)(block_engine *e, size_t bi, size_t skip, const int32_t *pivot,
                      int32_t *row_panel_out, int share);
    /* Phase 2 on local block column bj (the pivot column), then that column panel out. */
    void (*pivot_column)(block_engine *e, size_t bj, size_t skip, const int32_t *pivot,
                         int32_t *col_panel_out, int share);
    /* Returns once the outputs of the steps before that were to be shared are in host memory. */
    void (*outputs_ready)(block_engine *e);
    /* Phase 3 on the blocks `set` picks (above). */
    void (*relax)(block_engine *e, const relax_set *set, const int32_t *col_panel,
                  const int32_t *row_panel);
    /* With options->profile: where the rounds' time went, through options->log (the round
     * count and their seconds, for the per-round figures). NULL: the engine keeps none. */
    void (*log_profile)(block_engine *e, size_t rounds, double seconds);
    /* For -v: what ran, e.g. "2 POSIX threads, avx2". */
    void (*describe)(const block_engine *e, char *text, size_t size);
} backend_blocks;

#endif
