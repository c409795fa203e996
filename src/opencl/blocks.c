/* The OpenCL backend's block engine (backend/blocks.h), for apsp-mpi's ranks: the rank's local
 * matrix lives on one device for the whole solve, and every step is cl/mpi.cl's block product or
 * transpose, or fw.cl's phase 1, on the device the library opens and builds for (src/opencl/:
 * opencl_open_extended builds fw.cl and cl/mpi.cl as one program with the device's parameters at
 * round depth B).
 *
 * On the device (cl/mpi.cl's layout, pitch w = max(local rows, local columns)):
 *   m            the local matrix, rows x w (columns past local_cols unused)
 *   pivot        B x B, the pivot block closed by fw_phase1 (its transpose goes to pivot_t)
 *   a[2], b[2]   phase 3's panels, B x w each, by the parity of the upload: a the column panel
 *                transposed (k-major), b the row panel
 *   col_in       rows x B, the column panel as MPI delivers it, before its transpose
 *   left, right  phase 2's operands, B x w: the pivot transposed (into `left` at the pivot row's
 *                rows) or the old pivot column transposed; the old pivot row, or the pivot at the
 *                pivot column's columns (into `right`)
 *
 * What the rank made itself stays on the device: the pivot it closed feeds its phase 2 there,
 * and the panels of its pivot row and column are copied into the next pair a, b on the device;
 * only what another rank takes goes to the host (on the copy queue, blocks_moves.c), and
 * only the others' panels come up, on the copy queue while the kernels of this round run.
 *
 * Phase 2 also relaxes the pivot's own block, and phase 3 every block, the pivot row and column
 * included: for int32 distances that changes nothing (the closed P has a zero diagonal, so
 * P (x) C >= C after phase 2 and P (x) P = P), and every value stays the length of a path, so the
 * bytes are apsp's. A device call that fails leaves the engine failed, by blocks.h's rule for
 * errors: later steps do nothing, so that every rank still runs every round's collectives, and
 * store() reports the failure, which main.c's agreement turns into one error line for the whole
 * run. */
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "opencl/blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = BLOCK_SIDE };

/* ---- opening ----------------------------------------------------------------------------------
 */

static void ocl_close(block_engine *e) {
    if (!e)
        return;
    cl_mem buffers[] = {e->m,    e->pivot, e->pivot_t, e->a[0], e->a[1],
                        e->b[0], e->b[1],  e->col_in,  e->left, e->right};
    if (e->d) {
        pinned_release(e);
        apsp_backend_opencl.drain(&e->d->base);
    }
    outputs_release(e);
    profile_release(e);
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    if (e->product)
        clReleaseKernel(e->product);
    if (e->transpose)
        clReleaseKernel(e->transpose);
    if (e->d)
        apsp_backend_opencl.close(&e->d->base);
    free(e);
}

static apsp_status create_kernel(block_engine *e, cl_kernel *kernel, const char *name,
                                 apsp_error *error) {
    cl_int err;
    *kernel = FAULT_CL_OBJECT(&err, clCreateKernel(e->d->kernels.program, name, &err));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(%s)", name);
}

/* The product's blocks must tile B x B blocks, which the tuned shapes at depth 128 do. */
static apsp_status check_shape(const cl_device *d, apsp_error *error) {
    const kernel_params *p = &d->params;
    int rows = p->group_rows * p->thread_rows, cols = p->group_cols * p->thread_cols;
    if (p->tile != B)
        return fail(error, APSP_ERR_DEVICE,
                    "%s runs a round depth of %d, not %d: apsp-mpi's blocks need %d (try "
                    "--backend=cpu)",
                    d->name, p->tile, B, B);
    if (B % rows || B % cols)
        return fail(error, APSP_ERR_DEVICE,
                    "%s: phase-3 blocks of %d x %d do not tile apsp-mpi's %d x %d blocks", d->name,
                    rows, cols, B, B);
    return APSP_OK;
}

static apsp_status ocl_open(const apsp_device_info *device, const apsp_options *options,
                            unsigned threads, block_engine **out, apsp_error *error) {
    (void)threads;
    *out = NULL;
    if (options->tile && options->tile != B)
        return fail(error, APSP_ERR_USAGE, "--tile=%d: apsp-mpi's blocks are %d x %d",
                    options->tile, B, B);
    block_engine *e = apsp_calloc(1, sizeof *e);
    if (!e)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening an OpenCL device");
    e->options = *options;
    e->options.tile = B;
    apsp_status status = opencl_open_extended(device, &e->options, "mpi.cl", &e->d, error);
    if (status == APSP_OK)
        snprintf(e->where, sizeof e->where, "OpenCL %s (device %d)", device->name, device->index);
    if (status == APSP_OK)
        status = check_shape(e->d, error);
    if (status == APSP_OK)
        status = create_kernel(e, &e->product, "mpi_product", error);
    if (status == APSP_OK)
        status = create_kernel(e, &e->transpose, "fw_transpose", error);
    if (status != APSP_OK) {
        ocl_close(e);
        return status;
    }
    *out = e;
    return APSP_OK;
}

/* ---- device calls -----------------------------------------------------------------------------
 */

static cl_mem create_buffer(block_engine *e, size_t ints) {
    cl_int err;
    cl_mem buffer = FAULT_CL_OBJECT(
        &err, clCreateBuffer(e->d->context, CL_MEM_READ_WRITE, ints * sizeof(int32_t), NULL, &err));
    return engine_failed(e, err, "clCreateBuffer") ? NULL : buffer;
}

/* C = min(C, A (x) B) over rows [row0, row0 + rows) and columns [col0, col0 + cols) of m. */
static void product(block_engine *e, int kind, cl_mem a, cl_mem b, size_t row0, size_t rows,
                    size_t col0, size_t cols) {
    const kernel_params *p = &e->d->params;
    size_t block_rows = (size_t)p->group_rows * p->thread_rows;
    size_t block_cols = (size_t)p->group_cols * p->thread_cols;
    size_t local[2] = {(size_t)p->group_cols, (size_t)p->group_rows};
    size_t global[2] = {cols / block_cols * local[0], rows / block_rows * local[1]};
    cl_int n = (cl_int)e->w, r0 = (cl_int)row0, c0 = (cl_int)col0;
    if (e->status != APSP_OK || rows == 0 || cols == 0)
        return;
    cl_int err = clSetKernelArg(e->product, 0, sizeof e->m, &e->m);
    err |= clSetKernelArg(e->product, 1, sizeof a, &a);
    err |= clSetKernelArg(e->product, 2, sizeof b, &b);
    err |= clSetKernelArg(e->product, 3, sizeof n, &n);
    err |= clSetKernelArg(e->product, 4, sizeof r0, &r0);
    err |= clSetKernelArg(e->product, 5, sizeof c0, &c0);
    if (!engine_failed(e, err, "clSetKernelArg(mpi_product)"))
        engine_failed(
            e,
            FAULT_CL_STATUS(clEnqueueNDRangeKernel(e->d->queue, e->product, 2, NULL, global, local,
                                                   0, NULL, profile_slot(e, kind))),
            "mpi_product");
}

/* ---- the backend_blocks table
 * ----------------------------------------------------------------------
 */

/* The whole local matrix between the host and the device, blocking. */
static void whole_matrix(block_engine *e, int up, int32_t *local) {
    move_rect(e, e->d->queue, &(rect_move){up, e->m, 0, 0, e->w, local, e->cols, e->rows, e->cols},
              CL_TRUE, NULL, NULL, PROF_NONE);
}

static apsp_status ocl_load(block_engine *e, const block_shape *shape, int32_t *local,
                            apsp_error *error) {
    e->block_rows = shape->block_rows;
    e->block_cols = shape->block_cols;
    e->rows = e->block_rows * B;
    e->cols = e->block_cols * B;
    e->w = e->rows > e->cols ? e->rows : e->cols;
    if (e->w == 0)
        e->w = B; /* a rank without blocks still takes part in the rounds */
    uint64_t bytes = (uint64_t)(e->rows ? e->rows : 1) * e->w * sizeof(int32_t);
    if (bytes > e->d->limits.max_allocation)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "the rank's %zu x %zu local matrix (%.1f GB at pitch %zu) is more than one "
                    "buffer of %s may hold (%.1f GB): use more ranks",
                    e->rows, e->cols, bytes / 1e9, e->w, e->d->name,
                    e->d->limits.max_allocation / 1e9);
    e->m = create_buffer(e, (e->rows ? e->rows : 1) * e->w);
    e->pivot = create_buffer(e, (size_t)B * B);
    e->pivot_t = create_buffer(e, (size_t)B * B);
    for (int i = 0; i < 2; i++) {
        e->a[i] = create_buffer(e, (size_t)B * e->w);
        e->b[i] = create_buffer(e, (size_t)B * e->w);
    }
    e->col_in = create_buffer(e, (e->rows ? e->rows : 1) * B);
    e->left = create_buffer(e, (size_t)B * e->w);
    e->right = create_buffer(e, (size_t)B * e->w);
    whole_matrix(e, 1, local);
    if (e->status != APSP_OK)
        *error = e->error;
    return e->status;
}

static apsp_status ocl_store(block_engine *e, int32_t *local, apsp_error *error) {
    whole_matrix(e, 0, local);
    if (e->status != APSP_OK)
        *error = e->error;
    return e->status;
}

/* A rectangle of ints from one device buffer to another (pitches in ints), on the kernel queue. */
static void copy_rect(block_engine *e, cl_mem from, size_t from_row, size_t from_col,
                      size_t from_pitch, cl_mem to, size_t to_row, size_t to_col, size_t to_pitch,
                      size_t rows, size_t cols) {
    const size_t s = sizeof(int32_t);
    size_t src[3] = {from_col * s, from_row, 0}, dst[3] = {to_col * s, to_row, 0};
    size_t region[3] = {cols * s, rows, 1};
    if (e->status != APSP_OK || rows == 0 || cols == 0)
        return;
    engine_failed(e,
                  FAULT_CL_STATUS(clEnqueueCopyBufferRect(e->d->queue, from, to, src, dst, region,
                                                          from_pitch * s, 0, to_pitch * s, 0, 0,
                                                          NULL, profile_slot(e, PROF_COPY))),
                  "clEnqueueCopyBufferRect");
}

static void ocl_close_pivot(block_engine *e, size_t bi, size_t bj, int32_t *pivot_out, int share) {
    cl_int n = B, r = 0;
    cl_kernel phase1 = e->d->kernels.phase1;
    size_t items = (size_t)e->d->params.pivot_items, local[2] = {items, items};
    copy_rect(e, e->m, bi * B, bj * B, e->w, e->pivot, 0, 0, B, B, B);
    if (e->status != APSP_OK)
        return;
    cl_int err = clSetKernelArg(phase1, 0, sizeof e->pivot, &e->pivot);
    err |= clSetKernelArg(phase1, 1, sizeof e->pivot_t, &e->pivot_t);
    err |= clSetKernelArg(phase1, 2, sizeof n, &n);
    err |= clSetKernelArg(phase1, 3, sizeof r, &r);
    err |= clSetKernelArg(phase1, 4, sizeof e->d->cycle, &e->d->cycle);
    if (engine_failed(e, err, "clSetKernelArg(fw_phase1)") ||
        engine_failed(
            e,
            FAULT_CL_STATUS(clEnqueueNDRangeKernel(e->d->queue, phase1, 2, NULL, local, local, 0,
                                                   NULL, profile_slot(e, PROF_PHASE1))),
            "fw_phase1"))
        return;
    copy_rect(e, e->pivot, 0, 0, B, e->m, bi * B, bj * B, e->w, B, B);
    e->own_pivot = 1;
    if (share)
        read_out(e, &(rect_move){0, e->pivot, 0, 0, B, pivot_out, B, B, B});
}

/* Block row bi: C = min(C, P (x) C_old) over every local column; the row panel into b[next]. */
static void ocl_pivot_row(block_engine *e, size_t bi, size_t skip, const int32_t *pivot,
                          int32_t *row_panel_out, int share) {
    (void)skip;
    const size_t s = sizeof(int32_t);
    const int next = e->turn ^ 1;
    if (!e->own_pivot)
        move_rect(e, e->d->queue, &(rect_move){1, e->pivot, 0, 0, B, (void *)pivot, B, B, B},
                  CL_FALSE, NULL, NULL, PROF_UP);
    transpose_on(e, e->d->queue, e->pivot, 0, B, e->left, bi * B, B,
                 PROF_COPY); /* P(i, k) at left[k][bi B + i] */
    if (e->status == APSP_OK)
        engine_failed(
            e,
            FAULT_CL_STATUS(clEnqueueCopyBuffer(e->d->queue, e->m, e->right, bi * B * e->w * s, 0,
                                                B * e->w * s, 0, NULL, profile_slot(e, PROF_COPY))),
            "clEnqueueCopyBuffer");
    product(e, PROF_PHASE2, e->left, e->right, bi * B, B, 0, e->cols);
    if (e->status == APSP_OK)
        engine_failed(
            e,
            FAULT_CL_STATUS(clEnqueueCopyBuffer(e->d->queue, e->m, e->b[next], bi * B * e->w * s, 0,
                                                B * e->w * s, 0, NULL, profile_slot(e, PROF_COPY))),
            "clEnqueueCopyBuffer");
    e->own_row = 1;
    if (share)
        read_out(e, &(rect_move){0, e->b[next], 0, 0, e->w, row_panel_out, e->cols, B, e->cols});
}

/* Block column bj: C = min(C, C_old (x) P) over every local row; the column panel, transposed,
 * into a[next]. */
static void ocl_pivot_column(block_engine *e, size_t bj, size_t skip, const int32_t *pivot,
                             int32_t *col_panel_out, int share) {
    (void)skip;
    const int next = e->turn ^ 1;
    transpose_on(e, e->d->queue, e->m, bj * B, e->w, e->left, 0, e->rows,
                 PROF_COPY); /* C_old(i, k) at left[k][i] */
    if (e->own_pivot)
        copy_rect(e, e->pivot, 0, 0, B, e->right, 0, bj * B, e->w, B, B);
    else
        move_rect(e, e->d->queue,
                  &(rect_move){1, e->right, 0, bj * B, e->w, (void *)pivot, B, B, B}, CL_FALSE,
                  NULL, NULL, PROF_UP);
    product(e, PROF_PHASE2, e->left, e->right, 0, e->rows, bj * B, B);
    transpose_on(e, e->d->queue, e->m, bj * B, e->w, e->a[next], 0, e->rows, PROF_COPY);
    e->own_col = 1;
    if (share)
        read_out(e, &(rect_move){0, e->m, 0, bj * B, e->w, col_panel_out, B, e->rows, B});
}

static void ocl_outputs_ready(block_engine *e) {
    engine_outputs_ready(e);
}

/* The round's first relax: its panels are those of the last chain, in pair turn ^ 1. */
static void begin_round(block_engine *e, const int32_t *col_panel, const int32_t *row_panel) {
    if (!e->taken_in)
        take_in(e, col_panel, row_panel);
    e->turn ^= 1;
    e->own_pivot = e->own_row = e->own_col = e->taken_in = 0;
}

/* Waits for the kernel queue, calling progress meanwhile, so that MPI moves the next round's
 * panels while the device relaxes; once they are here, they go up on the copy queue at once. */
static void finish_round(block_engine *e, const relax_set *set) {
    cl_event done = NULL;
    double t0 = seconds_now();
    if (e->status != APSP_OK ||
        engine_failed(e, FAULT_CL_STATUS(clEnqueueMarkerWithWaitList(e->d->queue, 0, NULL, &done)),
                      "clEnqueueMarkerWithWaitList"))
        return;
    clFlush(e->d->queue);
    cl_int state = CL_QUEUED;
    while (state > CL_COMPLETE) {
        if (set->progress && set->progress(set->progress_context) && !e->taken_in &&
            set->next_row_panel)
            take_in(e, set->next_col_panel, set->next_row_panel);
        if (clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL) !=
            CL_SUCCESS)
            break;
    }
    engine_failed(e, state < 0 ? state : CL_SUCCESS, "phase 3");
    clReleaseEvent(done);
    e->profile.wait_relax += seconds_now() - t0;
    if (e->options.profile)
        profile_collect(e, 0);
}

static void ocl_relax(block_engine *e, const relax_set *set, const int32_t *col_panel,
                      const int32_t *row_panel) {
    if (set->part != RELAX_REST)
        begin_round(e, col_panel, row_panel);
    cl_mem a = e->a[e->turn], b = e->b[e->turn];
    const size_t fr = set->first_row, fc = set->first_col;
    if (set->part == RELAX_ALL) {
        product(e, PROF_PHASE3, a, b, 0, e->rows, 0, e->cols);
    } else if (set->part == RELAX_FIRST) {
        if (fr != NO_BLOCK)
            product(e, PROF_PHASE3, a, b, fr * B, B, 0, e->cols);
        if (fc != NO_BLOCK)
            product(e, PROF_PHASE3, a, b, 0, e->rows, fc * B, B);
    } else {
        /* The four rectangles around block row fr and block column fc. */
        size_t r1 = fr == NO_BLOCK ? e->block_rows : fr, c1 = fc == NO_BLOCK ? e->block_cols : fc;
        size_t r2 = fr == NO_BLOCK ? e->block_rows : fr + 1;
        size_t c2 = fc == NO_BLOCK ? e->block_cols : fc + 1;
        size_t row_begin[2] = {0, r2}, row_end[2] = {r1, e->block_rows};
        size_t col_begin[2] = {0, c2}, col_end[2] = {c1, e->block_cols};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                product(e, PROF_PHASE3, a, b, row_begin[i] * B, (row_end[i] - row_begin[i]) * B,
                        col_begin[j] * B, (col_end[j] - col_begin[j]) * B);
    }
    /* The round's last part (ALL, or REST) ends in a wait: the host buffers the device read
     * this round are then free for MPI's next writes. */
    if (set->part != RELAX_FIRST)
        finish_round(e, set);
    else if (e->status == APSP_OK)
        engine_failed(e, FAULT_CL_STATUS(clFlush(e->d->queue)), "clFlush");
}

static void ocl_describe(const block_engine *e, char *text, size_t size) {
    snprintf(text, size, "%s, tile %d", e->where, e->d->params.tile);
}

const backend_blocks opencl_blocks = {
    .name = "opencl",
    .open = ocl_open,
    .close = ocl_close,
    .load = ocl_load,
    .store = ocl_store,
    .panel_memory = engine_panel_memory,
    .panel_memory_free = engine_panel_memory_free,
    .close_pivot = ocl_close_pivot,
    .pivot_row = ocl_pivot_row,
    .pivot_column = ocl_pivot_column,
    .outputs_ready = ocl_outputs_ready,
    .relax = ocl_relax,
    .log_profile = engine_log_profile,
    .describe = ocl_describe,
};
