/* The pthread backend's block engine (backend/blocks.h: apsp-mpi's ranks): its block kernels
 * (cpu/kernels.c: close_block, and the min-plus product relax_block for phases 2 and 3) on its
 * pool of threads (cpu/pool.c), in place in the rank's local matrix. */
#include "cpu/blocks.h"
#include "base/error.h"
#include "base/fault.h"
#include "cpu/kernels.h"
#include "cpu/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = BLOCK_SIDE };
_Static_assert((int)BLOCK_SIDE == (int)ROUND_DEPTH,
               "the block kernels are made for blocks of the round depth");

struct block_engine {
    pool *pool;
    relax_block_fn relax_block;
    const char *isa;
    int32_t *m; /* the local matrix, pitch cols */
    size_t rows, cols, block_rows, block_cols;
    /* The step the pool works on. */
    size_t line, skip;
    const relax_set *set;
    const int32_t *pivot, *col_panel, *row_panel;
};

static int32_t *block_at(const block_engine *e, size_t bi, size_t bj) {
    return e->m + bi * B * e->cols + bj * B;
}

static void copy_block(int32_t *restrict to, size_t to_pitch, const int32_t *from,
                       size_t from_pitch) {
    for (size_t i = 0; i < B; i++)
        memcpy(to + i * to_pitch, from + i * from_pitch, sizeof(int32_t) * B);
}

/* Phase 2 as the product with the closed pivot P (src/cpu/backend.c explains why it equals the
 * k-ordered update): a pivot-row block C = min(C, P (+) C), a pivot-column block
 * C = min(C, C (+) P), the old C read from a copy. */
static void pivot_row_item(void *context, size_t bj, unsigned id) {
    const block_engine *e = context;
    _Alignas(64) int32_t old[B * B];
    (void)id;
    if (bj == e->skip)
        return;
    int32_t *c = block_at(e, e->line, bj);
    copy_block(old, B, c, e->cols);
    e->relax_block(c, e->pivot, old, &(block_pitches){e->cols, B, B});
}

static void pivot_column_item(void *context, size_t bi, unsigned id) {
    const block_engine *e = context;
    _Alignas(64) int32_t old[B * B];
    (void)id;
    if (bi == e->skip)
        return;
    int32_t *c = block_at(e, bi, e->line);
    copy_block(old, B, c, e->cols);
    e->relax_block(c, old, e->pivot, &(block_pitches){e->cols, B, B});
}

/* Whether phase 3 of this set takes local block (bi, bj). */
static int picked(const relax_set *set, size_t bi, size_t bj) {
    if (bi == set->skip_row || bj == set->skip_col)
        return 0;
    int first = bi == set->first_row || bj == set->first_col;
    return set->part == RELAX_ALL || (set->part == RELAX_FIRST) == first;
}

static void relax_item(void *context, size_t t, unsigned id) {
    const block_engine *e = context;
    const relax_set *set = e->set;
    const size_t bi = t / e->block_cols, bj = t % e->block_cols;
    if (!picked(set, bi, bj))
        return;
    e->relax_block(block_at(e, bi, bj), e->col_panel + bi * B * B, e->row_panel + bj * B,
                   &(block_pitches){e->cols, B, e->cols});
    if (id == 0 && set->progress) /* thread 0 is the caller: MPI's thread */
        set->progress(set->progress_context);
}

static void blocks_close(block_engine *e) {
    if (!e)
        return;
    pool_destroy(e->pool);
    free(e);
}

static apsp_status blocks_open(const apsp_device_info *device, const apsp_options *options,
                               unsigned threads, block_engine **out, apsp_error *error) {
    (void)device; /* the host's; the caller shared the node's cores among its ranks already */
    *out = NULL;
    if (options->tile && options->tile != B)
        return fail(error, APSP_ERR_USAGE,
                    "--tile=%d: the ranks run the pthread backend, whose round depth is %d",
                    options->tile, B);
    const char *isa;
    relax_block_fn relax_block = choose_relax_block(options->cpu_isa, 0, &isa);
    if (!relax_block)
        return fail(error, APSP_ERR_USAGE, "cpu_isa '%s': expected avx512, avx2 or portable",
                    options->cpu_isa);
    block_engine *e = apsp_calloc(1, sizeof *e);
    if (e)
        e->pool = pool_create(threads);
    if (!e || !e->pool) {
        blocks_close(e);
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory preparing %u worker thread(s)",
                    threads);
    }
    e->relax_block = relax_block;
    e->isa = isa;
    *out = e;
    return APSP_OK;
}

static apsp_status blocks_load(block_engine *e, const block_shape *shape, int32_t *local,
                               apsp_error *error) {
    (void)error;
    e->m = local;
    e->block_rows = shape->block_rows;
    e->block_cols = shape->block_cols;
    e->rows = e->block_rows * B;
    e->cols = e->block_cols * B;
    return APSP_OK;
}

static apsp_status blocks_store(block_engine *e, int32_t *local, apsp_error *error) {
    (void)e, (void)local, (void)error;
    return APSP_OK; /* the work was done in place */
}

/* Plain memory: the panels stay on the host, where the kernels read them. */
static apsp_status blocks_panel_memory(block_engine *e, size_t ints, int32_t **out,
                                       apsp_error *error) {
    (void)e;
    /* 64-byte alignment for the kernels' vector loads; never a zero-byte request. */
    size_t bytes = (ints * sizeof(int32_t) + 63) / 64 * 64;
    *out = apsp_aligned_alloc(64, bytes ? bytes : 64);
    return *out ? APSP_OK
                : fail(error, APSP_ERR_NO_MEMORY, "out of memory for a panel of %zu ints", ints);
}

static void blocks_panel_memory_free(block_engine *e, int32_t *memory) {
    (void)e;
    free(memory);
}

/* The outputs are written whether shared or not: relax reads the panels from them. */
static void blocks_close_pivot(block_engine *e, size_t bi, size_t bj, int32_t *pivot_out,
                               int share) {
    (void)share;
    int32_t *p = block_at(e, bi, bj);
    close_block(p, e->cols);
    copy_block(pivot_out, B, p, e->cols);
}

static void blocks_pivot_row(block_engine *e, size_t bi, size_t skip, const int32_t *pivot,
                             int32_t *row_panel_out, int share) {
    (void)share;
    e->line = bi;
    e->skip = skip;
    e->pivot = pivot;
    pool_run_items(e->pool, pivot_row_item, e, e->block_cols);
    memcpy(row_panel_out, block_at(e, bi, 0), sizeof(int32_t) * B * e->cols);
}

static void blocks_pivot_column(block_engine *e, size_t bj, size_t skip, const int32_t *pivot,
                                int32_t *col_panel_out, int share) {
    (void)share;
    e->line = bj;
    e->skip = skip;
    e->pivot = pivot;
    pool_run_items(e->pool, pivot_column_item, e, e->block_rows);
    for (size_t bi = 0; bi < e->block_rows; bi++)
        copy_block(col_panel_out + bi * B * B, B, block_at(e, bi, bj), e->cols);
}

static void blocks_outputs_ready(block_engine *e) {
    (void)e; /* the steps wrote their outputs before returning */
}

static void blocks_relax(block_engine *e, const relax_set *set, const int32_t *col_panel,
                         const int32_t *row_panel) {
    e->set = set;
    e->col_panel = col_panel;
    e->row_panel = row_panel;
    pool_run_items(e->pool, relax_item, e, e->block_rows * e->block_cols);
}

static void blocks_describe(const block_engine *e, char *text, size_t size) {
    unsigned threads = pool_threads(e->pool);
    snprintf(text, size, "%u POSIX thread%s, %s", threads, threads == 1 ? "" : "s", e->isa);
}

const backend_blocks cpu_blocks = {
    .name = "cpu",
    .open = blocks_open,
    .close = blocks_close,
    .load = blocks_load,
    .store = blocks_store,
    .panel_memory = blocks_panel_memory,
    .panel_memory_free = blocks_panel_memory_free,
    .close_pivot = blocks_close_pivot,
    .pivot_row = blocks_pivot_row,
    .pivot_column = blocks_pivot_column,
    .outputs_ready = blocks_outputs_ready,
    .relax = blocks_relax,
    .log_profile = NULL,
    .describe = blocks_describe,
};
