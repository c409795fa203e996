/* The native backend: blocked Floyd-Warshall on POSIX threads, in place in the host matrix, on
 * cells of any apsp_dtype (the kernels of kernels.h by the solve's type and form).
 *
 * The matrix is cut into B x B blocks (B = ROUND_DEPTH). Round r relaxes every pair through the
 * intermediate vertices of block r with the data flow of cl/fw.cl, so that floating-point
 * results are the OpenCL backend's bit for bit at the same round depth:
 *   close_pivot: the pivot block (r, r) by plain Floyd-Warshall inside it, P (one thread), then
 *                the pivot rows R = P (+) D(r, *) (the pivot row blocks against it);
 *   relax:       the pivot columns of the device's rows copied as they are, A = D(*, r) (P on
 *                the pivot rows), then every block of its rows, the pivot column included,
 *                C(i, j) = min(C(i, j), A(i) (+) R(j)): the min-plus product that is nearly
 *                all of the work. The pivot column is not updated first: for integers that
 *                would change nothing (A (+) P (+) R = A (+) R), but a rounded sum would differ.
 *                Last, for the floating-point types only, the pivot rows themselves,
 *                R = min(R, P (+) R), which integers leave unchanged (block_kernels.exact).
 * The device's pool of threads does each step, the blocks handed out in turn (pool_run_items). The
 * pivot rows R come from the matrix, or from a panel another device handed in (put_row_panel). */
#include "backend/backend.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/memory_room.h"
#include "base/util.h"
#include "cpu/blocks.h"
#include "cpu/kernels.h"
#include "cpu/pool.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pthread backend's device: backend.h's backend_device first (its impl set by cpu_open),
 * reached through cpu_of; only this file makes and reads one. */
typedef struct cpu_device {
    backend_device base;
    const apsp_options *options;
    pool *pool;
    block_kernels kernels; /* this solve's, by its type and form */
    const char *isa;
    /* The solve. */
    apsp_matrix *m;
    size_t blocks;                 /* per side */
    size_t block_begin, block_end; /* the device's block rows */
    size_t round;                  /* the round the pool's tasks work on */
    size_t task_begin, task_end;   /* the block rows the pool's relax tasks work on */
    void *panel;                   /* the pivot rows handed in, ROUND_DEPTH x n */
    void *outgoing[2];             /* the pivot rows handed out, by round % 2 */
    const char *pivot_rows;        /* this round's: in the matrix, or the panel */
    size_t pivot_pitch;            /* in cells */
    char *columns;         /* the pivot columns of the device's rows, a B x B block per block row */
    unsigned used_threads; /* the most threads a step of this solve could use */
} cpu_device;

/* The checked downcast: a device this backend's open made (NULL stays NULL, for close). */
static cpu_device *cpu_of(backend_device *device) {
    assert(!device || device->impl == &apsp_backend_cpu);
    return (cpu_device *)device;
}

/* Bytes of one block's row. */
static size_t block_row_bytes(const cpu_device *d) {
    return ROUND_DEPTH * d->kernels.cell;
}

static char *block_at(const cpu_device *d, size_t bi, size_t bj) {
    return (char *)apsp_matrix_row_cells(d->m, bi * ROUND_DEPTH) + bj * block_row_bytes(d);
}

/* Block (r, bj) of the pivot rows (row pitch pivot_pitch). */
static const char *pivot_block(const cpu_device *d, size_t bj) {
    return d->pivot_rows + bj * block_row_bytes(d);
}

/* The copy of block (bi, r) of the pivot columns (row pitch ROUND_DEPTH). */
static char *column_block(const cpu_device *d, size_t bi) {
    return d->columns + (bi - d->block_begin) * ROUND_DEPTH * block_row_bytes(d);
}

static int holds_block_row(const cpu_device *d, size_t bi) {
    return bi >= d->block_begin && bi < d->block_end;
}

/* The k-th of the other blocks, skipping the pivot's index r. */
static size_t other(size_t k, size_t r) {
    return k < r ? k : k + 1;
}

/* ---- the steps, as pool tasks ------------------------------------------------------------- */

/* A block of row pitch `stride` cells into a contiguous one (pitch ROUND_DEPTH). */
static void copy_block(const cpu_device *d, void *restrict to, const char *from, size_t stride) {
    const size_t row = block_row_bytes(d);
    for (size_t i = 0; i < ROUND_DEPTH; i++)
        memcpy((char *)to + i * row, from + i * stride * d->kernels.cell, row);
}

/* Room for one block of the widest type, for a step's copy of the block it overwrites. */
typedef struct block_copy {
    _Alignas(64) unsigned char cells[ROUND_DEPTH * ROUND_DEPTH * sizeof(double)];
} block_copy;

/* With the pivot block P closed, the k-ordered update of a pivot-row block equals the product
 * C = min(C, P (+) C) (a path from pivot row i leaves the pivot block for good at its last pivot
 * vertex k, and P(i, k) is the shortest way to reach it; for floating point it is the
 * definition, cl/fw.cl's phase 2). So phase 2 runs on the fast block product too, reading the
 * old C from a copy since the product must not overwrite an operand it still reads. */
static void pivot_row_item(void *context, size_t t, unsigned id) {
    const cpu_device *d = context;
    block_copy old;
    const size_t r = d->round, stride = d->m->stride;
    (void)id;
    char *c = block_at(d, r, other(t, r));
    copy_block(d, old.cells, c, stride);
    d->kernels.relax(c, block_at(d, r, r), old.cells,
                     &(block_pitches){stride, stride, ROUND_DEPTH});
}

/* A = the pivot columns of the task's rows as phase 2 left them (P on the pivot rows). */
static void columns_item(void *context, size_t t, unsigned id) {
    const cpu_device *d = context;
    const size_t bi = d->task_begin + t;
    (void)id;
    copy_block(d, column_block(d, bi), block_at(d, bi, d->round), d->m->stride);
}

/* Phase 3's item: this many neighbouring blocks of one block row, which share their A block,
 * so that a thread reads it once from its own cache rather than once per block (3-5 % over single
 * blocks on 16 Xeon threads; groups of 2 x 4 or 4 x 4 blocks gained nothing more:
 * docs/performance.md, "Sixteen cores"). */
enum { PHASE3_RUN = 4 };

static size_t phase3_runs_per_row(const cpu_device *d) {
    return (d->blocks + PHASE3_RUN - 1) / PHASE3_RUN;
}

/* A run of blocks of the task's rows but the pivot rows: C = min(C, A (+) R). */
static void phase3_item(void *context, size_t t, unsigned id) {
    const cpu_device *d = context;
    const size_t runs = phase3_runs_per_row(d), bi = d->task_begin + t / runs;
    const size_t begin = t % runs * PHASE3_RUN;
    const size_t end = begin + PHASE3_RUN < d->blocks ? begin + PHASE3_RUN : d->blocks;
    (void)id;
    if (bi == d->round)
        return;
    for (size_t bj = begin; bj < end; bj++)
        d->kernels.relax(block_at(d, bi, bj), column_block(d, bi), pivot_block(d, bj),
                         &(block_pitches){d->m->stride, ROUND_DEPTH, d->pivot_pitch});
}

/* The pivot rows last (only where sums are rounded): R = min(R, P (+) R), P from the copy of
 * the pivot column and R from a copy of the block, which the product overwrites. */
static void pivot_rows_item(void *context, size_t bj, unsigned id) {
    const cpu_device *d = context;
    block_copy old;
    const size_t stride = d->m->stride;
    (void)id;
    char *c = block_at(d, d->round, bj);
    copy_block(d, old.cells, c, stride);
    d->kernels.relax(c, column_block(d, d->round), old.cells,
                     &(block_pitches){stride, ROUND_DEPTH, ROUND_DEPTH});
}

/* ---- the interface ------------------------------------------------------------------------- */

static void cpu_close(backend_device *device) {
    cpu_device *d = cpu_of(device);
    if (!d)
        return;
    pool_destroy(d->pool);
    free(d->panel);
    free(d->outgoing[0]);
    free(d->outgoing[1]);
    free(d->columns);
    free(d);
}

/* What the options ask of this backend: no OpenCL settings
 * (a --tile or --kernel-params silently ignored would be a surprise). */
static apsp_status check_options(const apsp_options *o, apsp_error *error) {
    if (o->tile && o->tile != ROUND_DEPTH)
        return fail(error, APSP_ERR_USAGE,
                    "--tile=%d: the pthread backend runs this solve, and its round depth is %d",
                    o->tile, ROUND_DEPTH);
    if (o->kernel_params)
        return fail(error, APSP_ERR_USAGE,
                    "--kernel-params=%s: the pthread backend runs this solve, and it has no "
                    "OpenCL kernels",
                    o->kernel_params);
    return APSP_OK;
}

/* The pthread backend runs alone: its threads already use every core. */
static apsp_status cpu_open(const apsp_device_info *const *infos, size_t count,
                            const apsp_options *options, backend_device **out, apsp_error *error) {
    *out = NULL;
    if (count != 1)
        return fail(error, APSP_ERR_USAGE,
                    "%s shares a solve with no other device: it uses every core already",
                    infos[0]->name);
    if (options->threads < 0)
        return fail(error, APSP_ERR_USAGE, "--threads=%d: must be at least 1", options->threads);
    apsp_status status = check_options(options, error);
    if (status != APSP_OK)
        return status;
    const char *isa;
    block_kernels kernels;
    if (!choose_kernels(APSP_INT32, 0, options->cpu_isa, &kernels, &isa))
        return fail(error, APSP_ERR_USAGE, "cpu_isa '%s': expected avx512, avx2 or portable",
                    options->cpu_isa);
    unsigned threads = options->threads > 0 ? (unsigned)options->threads : online_cores();
    cpu_device *d = apsp_calloc(1, sizeof *d);
    if (d) {
        d->base.impl = &apsp_backend_cpu;
        d->pool = pool_create(threads);
    }
    if (!d || !d->pool) {
        cpu_close(d ? &d->base : NULL);
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory preparing %u worker thread(s)",
                    threads);
    }
    d->options = options;
    d->kernels = kernels;
    d->isa = isa;
    *out = &d->base;
    return APSP_OK;
}

static apsp_status cpu_plan(backend_device *device, size_t vertices, apsp_dtype dtype,
                            solve_geometry *g, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    (void)d;
    (void)error;
    g->vertices = vertices;
    g->dtype = dtype;
    g->tile = g->row_unit = g->col_unit = ROUND_DEPTH;
    g->n = (vertices + ROUND_DEPTH - 1) / ROUND_DEPTH * ROUND_DEPTH;
    return APSP_OK;
}

static apsp_status cpu_prepare(backend_device *device, const solve_geometry *g, size_t row_begin,
                               size_t row_end, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    if (row_begin % ROUND_DEPTH || row_end % ROUND_DEPTH)
        return fail(error, APSP_ERR_INTERNAL, "rows %zu-%zu do not fit blocks of %d", row_begin,
                    row_end, ROUND_DEPTH);
    d->blocks = g->n / ROUND_DEPTH;
    d->block_begin = row_begin / ROUND_DEPTH;
    d->block_end = row_end / ROUND_DEPTH;
    /* More threads than phase-3 blocks would idle; keep at least one. */
    size_t useful = (d->block_end - d->block_begin) * (d->blocks - 1);
    d->used_threads = pool_threads(d->pool);
    if (d->used_threads > useful)
        d->used_threads = useful > 0 ? (unsigned)useful : 1;
    return APSP_OK;
}

/* The work is done in place in the caller's matrix; only the pivot columns are copied. */
static apsp_status cpu_load(backend_device *device, apsp_matrix *m, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    if (m->padded != d->blocks * ROUND_DEPTH)
        return fail(error, APSP_ERR_INTERNAL, "matrix padding %zu is not %zu blocks of %d",
                    m->padded, d->blocks, ROUND_DEPTH);
    if (apsp_dtype_size(m->dtype) != d->kernels.cell)
        return fail(error, APSP_ERR_INTERNAL, "a %s matrix for %zu-byte kernels",
                    apsp_dtype_name(m->dtype), d->kernels.cell);
    size_t bytes = (d->block_end - d->block_begin) * ROUND_DEPTH * block_row_bytes(d);
    free(d->columns);
    if (!(d->columns = apsp_malloc(bytes ? bytes : 1)))
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for the pivot columns (%zu bytes)",
                    bytes);
    d->m = m;
    return APSP_OK;
}

static apsp_status cpu_set_form(backend_device *device, const kernel_form *form,
                                apsp_error *error) {
    cpu_device *d = cpu_of(device);
    const char *isa;
    if (!choose_kernels(form->dtype, form->negative, d->options->cpu_isa, &d->kernels, &isa))
        return fail(error, APSP_ERR_USAGE, "the pthread backend has no %s kernels",
                    apsp_dtype_name(form->dtype));
    d->isa = isa;
    return APSP_OK;
}

static apsp_status cpu_close_pivot(backend_device *device, size_t round, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    if (!holds_block_row(d, round))
        return fail(error, APSP_ERR_INTERNAL, "round %zu: the pivot rows are not here", round);
    d->round = round;
    d->pivot_rows = apsp_matrix_row_cells(d->m, round * ROUND_DEPTH);
    d->pivot_pitch = d->m->stride;
    d->kernels.close(block_at(d, round, round), d->m->stride);
    pool_run_items(d->pool, pivot_row_item, d, d->blocks - 1);
    return APSP_OK;
}

/* A panel buffer of ROUND_DEPTH rows of n, made on first use. */
static apsp_status panel_buffer(const cpu_device *d, void **panel, apsp_error *error) {
    const size_t n = d->m->padded;
    if (!*panel && !(*panel = apsp_malloc(ROUND_DEPTH * n * d->kernels.cell)))
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a panel of %zu columns", n);
    return APSP_OK;
}

static apsp_status cpu_get_row_panel(backend_device *device, size_t round, panel_handoff *handoff,
                                     apsp_error *error) {
    cpu_device *d = cpu_of(device);
    const size_t row = d->m->padded * d->kernels.cell;
    void **panel = &d->outgoing[round % 2];
    apsp_status status = panel_buffer(d, panel, error);
    for (size_t k = 0; status == APSP_OK && k < ROUND_DEPTH; k++)
        memcpy((char *)*panel + k * row, apsp_matrix_row_cells(d->m, round * ROUND_DEPTH + k), row);
    *handoff = (panel_handoff){.host = *panel, .ready = NULL, .sender = device};
    return status;
}

static apsp_status cpu_put_row_panel(backend_device *device, size_t round,
                                     const panel_handoff *handoff, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    const size_t n = d->m->padded;
    apsp_status status = panel_buffer(d, &d->panel, error);
    if (status != APSP_OK)
        return status;
    memcpy(d->panel, handoff->host, ROUND_DEPTH * n * d->kernels.cell);
    d->round = round;
    d->pivot_rows = d->panel;
    d->pivot_pitch = n;
    return APSP_OK;
}

static apsp_status cpu_relax(backend_device *device, size_t round, size_t row_begin, size_t row_end,
                             apsp_error *error) {
    cpu_device *d = cpu_of(device);
    if (d->round != round || !d->pivot_rows)
        return fail(error, APSP_ERR_INTERNAL, "round %zu: no pivot rows", round);
    size_t begin = row_begin / ROUND_DEPTH, end = row_end / ROUND_DEPTH;
    d->task_begin = begin > d->block_begin ? begin : d->block_begin;
    d->task_end = end < d->block_end ? end : d->block_end;
    if (d->task_begin < d->task_end) {
        const size_t rows = d->task_end - d->task_begin;
        pool_run_items(d->pool, columns_item, d, rows);
        pool_run_items(d->pool, phase3_item, d, rows * phase3_runs_per_row(d));
        /* Only the owner's pivot rows, in its matrix, are ever rewritten here. */
        if (!d->kernels.exact && round >= d->task_begin && round < d->task_end)
            pool_run_items(d->pool, pivot_rows_item, d, d->blocks);
    }
    return APSP_OK;
}

/* Relaxations per second of one thread: the measured rate of a Zen 4 core; the estimates below
 * need only the order of magnitude. */
#define RELAX_PER_THREAD 30e9

static double cpu_speed(backend_device *device) {
    cpu_device *d = cpu_of(device);
    return RELAX_PER_THREAD * pool_threads(d->pool);
}

/* A batch's graphs over the pool (backend.h: run_items). */
static void cpu_run_items(backend_device *device, pool_item_task task, void *context,
                          size_t count) {
    pool_run_items(cpu_of(device)->pool, task, context, count);
}

static unsigned cpu_host_threads(backend_device *device) {
    return pool_threads(cpu_of(device)->pool);
}

/* By the estimate the rows are shared by, for auto mode's choice before any device is open. */
static double cpu_estimated_seconds(const apsp_options *options, size_t vertices) {
    unsigned threads = options->threads > 0 ? (unsigned)options->threads : online_cores();
    double n = (double)vertices;
    return n * n * n / (RELAX_PER_THREAD * threads);
}

/* Every step returns when it is done. */
static apsp_status cpu_wait_round(backend_device *device, size_t round, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    (void)d, (void)round, (void)error;
    return APSP_OK;
}

static apsp_status cpu_store(backend_device *device, apsp_matrix *m, apsp_error *error) {
    cpu_device *d = cpu_of(device);
    (void)d, (void)m, (void)error;
    return APSP_OK; /* the work was done in place */
}

/* Every step returned when it was done. */
static void cpu_drain(backend_device *device) {
    cpu_device *d = cpu_of(device);
    (void)d;
}

/* The pivot columns and panels are small beside the matrix: nothing is kept. */
static void cpu_unload(backend_device *device, int keep) {
    cpu_device *d = cpu_of(device);
    (void)keep;
    free(d->panel);
    free(d->outgoing[0]);
    free(d->outgoing[1]);
    free(d->columns);
    d->panel = d->outgoing[0] = d->outgoing[1] = d->columns = NULL;
    d->m = NULL;
    d->pivot_rows = NULL;
}

static void cpu_summarize(backend_device *device, device_summary *s) {
    cpu_device *d = cpu_of(device);
    snprintf(s->device, sizeof s->device, "%u POSIX thread%s, %s", d->used_threads,
             d->used_threads == 1 ? "" : "s", d->isa);
    s->tile = ROUND_DEPTH;
    s->threads = (int)d->used_threads;
    s->program_builds = 0;
    s->on_host = 1;
}

static apsp_status cpu_list(device_list *list, apsp_error *error) {
    apsp_device_info *d = device_list_add(list);
    if (!d)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing devices");
    d->backend = APSP_BACKEND_CPU;
    snprintf(d->platform, sizeof d->platform, "apsp native");
    snprintf(d->name, sizeof d->name, "CPU threads (pthread backend)");
    snprintf(d->type, sizeof d->type, "host");
    d->compute_units = online_cores();
    d->global_memory = physical_memory();
    d->max_allocation = d->global_memory;
    snprintf(d->driver, sizeof d->driver, "apsp %s", apsp_version());
    return APSP_OK;
}

const apsp_backend_impl apsp_backend_cpu = {
    .kind = APSP_BACKEND_CPU,
    .list = cpu_list,
    .open = cpu_open,
    .close = cpu_close,
    .plan = cpu_plan,
    .prepare = cpu_prepare,
    .load = cpu_load,
    .set_form = cpu_set_form,
    .close_pivot = cpu_close_pivot,
    .speed = cpu_speed,
    .get_row_panel = cpu_get_row_panel,
    .put_row_panel = cpu_put_row_panel,
    .relax = cpu_relax,
    .wait_round = cpu_wait_round,
    .store = cpu_store,
    .drain = cpu_drain,
    .unload = cpu_unload,
    .summarize = cpu_summarize,
    .blocks = &cpu_blocks,
    .estimated_seconds = cpu_estimated_seconds,
    .solve_small = cpu_solve_small,
    .run_items = cpu_run_items,
    .host_threads = cpu_host_threads,
    .small_vertices = ROUND_DEPTH,
};
