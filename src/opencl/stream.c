/* Streaming a matrix larger than the device's memory from host memory: the OpenCL side of
 * backend.h's backend_stream (src/drivers/stream.c drives it; device.h has the state).
 *
 * Closing a super-round's panel: R, its K pivot rows, under the pivots of its own rows is
 * blocked Floyd-Warshall on a band of K rows whose every pivot lies in it, which is what
 * rounds.c does on a layout of that one band (phases 1 to 3 per round of T). No panel of pivot
 * columns is kept: each block brings its own (below).
 *
 * A block of rows: the host copies them from the matrix into the slot's pinned staging (making
 * the padding there), the upload queue writes them into the slot's buffer; the kernel queue
 * copies the block's pivot columns aside (fw_transpose: fw_stream's A, which needs no closing,
 * as cl/fw.cl's header says of the pivot column), runs fw_stream (fw_phase3's min-plus product,
 * K deep, the block in registers throughout) and takes the next super-round's pivot rows (a copy
 * into the next R); the download queue reads the block back into the staging, which the host
 * copies into the matrix when the slot or its rows are needed again, or at the end. Events
 * order the three queues, so that one block goes up while another is relaxed and a third comes
 * down, and the host copies a fourth.
 *
 * The shape: stream_prepare.c. With no panel of pivot columns to keep (or to double), K is twice
 * what two pairs of panels left it, and the bus carries the same 2c n^2 bytes per super-round
 * for twice the relaxations. */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/stream_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host copies of blocks at least this large use the options' threads (0: every core; up to
 * 16): one thread copies
 * about 10 GB/s, below what the bus moves, and starting the threads costs well under the
 * 0.4 ms one thread takes for this much. */
enum { PARALLEL_COPY_BYTES = 4 << 20 };

static size_t row_bytes(const cl_device *d) {
    return d->layout.geometry.n * layout_cell_bytes(d);
}

/* ---- host copies --------------------------------------------------------------------------- */

/* Rows row0 .. of the matrix and the staging (pitch n cells of `cell` bytes, the matrix's
 * type). */
typedef struct host_copy {
    apsp_matrix *matrix;
    char *staging;
    size_t n, cell, row0;
} host_copy;

/* Rows of the matrix into the staging, padded to n columns and rows: INF, 0 on the diagonal. */
static int copy_out(void *context, size_t begin, size_t end) {
    const host_copy *c = context;
    const size_t real_n = c->matrix->n, cell = c->cell;
    for (size_t r = begin; r < end; r++) {
        const size_t i = c->row0 + r;
        /* The real cells of the row end at real_end; padding follows. */
        const size_t real_end = i < real_n ? real_n : 0;
        char *dst = c->staging + r * c->n * cell;
        if (real_end > 0)
            memcpy(dst, apsp_matrix_row_cells(c->matrix, i), real_end * cell);
        /* the padding: base's fill, with the diagonal when it falls there (a padding row's) */
        matrix_fill_row(c->matrix->dtype, dst + real_end * cell, c->n - real_end,
                        i >= real_end ? i - real_end : SIZE_MAX);
    }
    return 0;
}

/* The real cells of staged rows back into the matrix. */
static int copy_home(void *context, size_t begin, size_t end) {
    const host_copy *c = context;
    const size_t real_n = c->matrix->n;
    for (size_t r = begin; r < end && c->row0 + r < real_n; r++)
        memcpy(apsp_matrix_row_cells(c->matrix, c->row0 + r), c->staging + r * c->n * c->cell,
               real_n * c->cell);
    return 0;
}

static void host_rows(cl_device *d, apsp_matrix *m, cl_stream_slot *slot, size_t row0, size_t rows,
                      slice_fn copy) {
    const size_t cell = layout_cell_bytes(d);
    host_copy c = {m, slot->host, d->layout.geometry.n, cell, row0};
    unsigned threads =
        rows * c.n * cell >= PARALLEL_COPY_BYTES ? threads_of(d->options->threads) : 1;
    parallel_slices(rows, threads, copy, &c);
}

/* ---- slots --------------------------------------------------------------------------------- */

/* Waits for the slot's last command and copies its rows home. */
static apsp_status retire(cl_device *d, apsp_matrix *m, cl_stream_slot *slot, apsp_error *error) {
    if (!slot->busy)
        return APSP_OK;
    cl_int err = FAULT_CL_STATUS(clWaitForEvents(1, &slot->busy));
    clReleaseEvent(slot->busy);
    slot->busy = NULL;
    if (err != CL_SUCCESS && slot->row_end > slot->row_begin)
        return cl_fail(error, APSP_ERR_DEVICE, err, "waiting for the streamed rows %zu-%zu",
                       slot->row_begin, slot->row_end - 1);
    if (err != CL_SUCCESS) /* a block of the gathering pass */
        return cl_fail(error, APSP_ERR_DEVICE, err, "waiting for a streamed block");
    if (slot->row_end > slot->row_begin)
        host_rows(d, m, slot, slot->row_begin, slot->row_end - slot->row_begin, copy_home);
    slot->row_begin = slot->row_end = 0;
    return APSP_OK;
}

/* A free slot for rows [begin, end): the next in turn, once it and any slot still bringing
 * those rows home are done (the host's copy of them must be the latest). */
static apsp_status take_slot(cl_device *d, apsp_matrix *m, size_t begin, size_t end,
                             cl_stream_slot **out, apsp_error *error) {
    cl_stream *s = &d->stream;
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < STREAM_SLOTS && status == APSP_OK; i++)
        if (s->slot[i].row_begin < end && begin < s->slot[i].row_end)
            status = retire(d, m, &s->slot[i], error);
    *out = &s->slot[s->turn];
    s->turn = (s->turn + 1) % STREAM_SLOTS;
    return status == APSP_OK ? retire(d, m, *out, error) : status;
}

/* options->profile: keeps the block's events (retained) for the overlap at the end. */
static void record(cl_device *d, const cl_stream_record *r) {
    cl_stream *s = &d->stream;
    if (!d->options->profile)
        return;
    if (s->record_count == s->record_capacity) {
        size_t capacity = s->record_capacity ? 2 * s->record_capacity : 64;
        cl_stream_record *grown = apsp_realloc(s->records, capacity * sizeof *grown);
        if (!grown)
            return; /* only the profile loses this block */
        s->records = grown;
        s->record_capacity = capacity;
    }
    cl_event events[] = {r->up, r->first, r->last, r->down};
    for (size_t i = 0; i < 4; i++)
        if (events[i])
            clRetainEvent(events[i]);
    s->records[s->record_count++] = *r;
}

/* ---- the kernels --------------------------------------------------------------------------- */

/* A block's commands on the kernel queue: the first waits for the upload; the events of the
 * first (for the profile) and the latest (what the download waits for) are kept. */
typedef struct chain {
    cl_event wait; /* the upload, or NULL */
    cl_event first, last;
} chain;

/* Where the next command puts its event; the latest one before it is let go. */
static cl_event *chain_next(chain *c) {
    if (c->last)
        clReleaseEvent(c->last);
    c->last = NULL;
    return &c->last;
}

/* After a command was queued: the first keeps a reference of its own. */
static void chain_queued(chain *c) {
    if (!c->first && c->last && clRetainEvent(c->last) == CL_SUCCESS)
        c->first = c->last;
    c->wait = NULL; /* the queue is in order */
}

static void chain_release(chain *c) {
    if (c->first)
        clReleaseEvent(c->first);
    if (c->last)
        clReleaseEvent(c->last);
    c->first = c->last = NULL;
}

static apsp_status launch(cl_device *d, cl_kernel kernel, const size_t *global, const size_t *local,
                          chain *c, const char *what, apsp_error *error) {
    cl_event wait = c->wait;
    cl_int err =
        FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, kernel, 2, NULL, global, local,
                                               wait ? 1 : 0, wait ? &wait : NULL, chain_next(c)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(%s)", what);
    chain_queued(c);
    return APSP_OK;
}

/* The current super-round's pivot columns of the slot's `rows` rows, as they are before the
 * block is relaxed, into the slot's columns buffer, k-major (pitch: the shape's block rows). */
static apsp_status take_columns(cl_device *d, cl_stream_slot *slot, size_t rows, chain *c,
                                apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t edge = (size_t)copy_edge(&d->params);
    cl_kernel k = d->kernels.transpose;
    cl_ulong src_offset = s->first, dst_offset = 0;
    cl_int src_pitch = (cl_int)d->layout.geometry.n, dst_pitch = (cl_int)s->shape.block_rows;
    size_t local[2] = {edge, edge}, global[2] = {rows, s->count};
    SET_ARG(k, "transpose", 0, slot->block);
    SET_ARG(k, "transpose", 1, src_offset);
    SET_ARG(k, "transpose", 2, src_pitch);
    SET_ARG(k, "transpose", 3, slot->columns);
    SET_ARG(k, "transpose", 4, dst_offset);
    SET_ARG(k, "transpose", 5, dst_pitch);
    return launch(d, k, global, local, c, "transpose, streamed", error);
}

/* fw_stream over the slot's `rows` rows against its pivot columns and the current pivot rows. */
static apsp_status relax_block(cl_device *d, cl_stream_slot *slot, size_t rows, chain *c,
                               apsp_error *error) {
    const kernel_params *p = &d->params;
    cl_stream *s = &d->stream;
    cl_kernel k = d->kernels.stream;
    cl_int n = (cl_int)d->layout.geometry.n, pitch = (cl_int)s->shape.block_rows;
    cl_int depth = (cl_int)s->count;
    SET_ARG(k, "stream", 0, slot->block);
    SET_ARG(k, "stream", 1, slot->columns);
    SET_ARG(k, "stream", 2, s->rows[s->cur]);
    SET_ARG(k, "stream", 3, n);
    SET_ARG(k, "stream", 4, pitch);
    SET_ARG(k, "stream", 5, depth);
    const size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
    const size_t block_cols = (size_t)(p->group_cols * p->thread_cols);
    size_t local[2] = {(size_t)p->group_cols, (size_t)p->group_rows};
    size_t global[2] = {(size_t)n / block_cols * local[0], rows / block_rows * local[1]};
    return launch(d, k, global, local, c, "stream", error);
}

/* The block's rows that are the next super-round's pivot rows into the next R. */
static apsp_status gather_rows(cl_device *d, cl_mem block, size_t row0, size_t rows, chain *c,
                               apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t next_end = s->next_first + s->next_count;
    const size_t begin = row0 > s->next_first ? row0 : s->next_first;
    const size_t end = row0 + rows < next_end ? row0 + rows : next_end;
    if (begin >= end)
        return APSP_OK;
    const size_t rb = row_bytes(d);
    cl_event wait = c->wait;
    cl_int err = FAULT_CL_STATUS(clEnqueueCopyBuffer(
        d->queue, block, s->rows[1 - s->cur], (begin - row0) * rb, (begin - s->next_first) * rb,
        (end - begin) * rb, wait ? 1 : 0, wait ? &wait : NULL, chain_next(c)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err,
                       "clEnqueueCopyBuffer(rows %zu-%zu into the next panel)", begin, end - 1);
    chain_queued(c);
    return APSP_OK;
}

/* The kernel queue's part of a block: relaxed by the current pivots (none before the first
 * super-round), then its part of the next pivot rows taken. */
static apsp_status block_kernels(cl_device *d, cl_stream_slot *slot, size_t row0, size_t rows,
                                 chain *c, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (d->stream.count > 0)
        status = take_columns(d, slot, rows, c, error);
    if (status == APSP_OK && d->stream.count > 0)
        status = relax_block(d, slot, rows, c, error);
    if (status == APSP_OK && d->stream.next_count > 0)
        status = gather_rows(d, slot->block, row0, rows, c, error);
    return status;
}

/* ---- a block ------------------------------------------------------------------------------- */

/* The block's rows, from the staging to the slot's buffer. */
static apsp_status upload(cl_device *d, cl_stream_slot *slot, size_t rows, cl_event *up,
                          apsp_error *error) {
    const size_t bytes = rows * row_bytes(d);
    cl_int err = FAULT_CL_STATUS(clEnqueueWriteBuffer(d->stream.up_queue, slot->block, CL_FALSE, 0,
                                                      bytes, slot->host, 0, NULL, up));
    if (err == CL_SUCCESS)
        err = clFlush(d->stream.up_queue);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "uploading a streamed block");
    d->stream.bytes_up += bytes;
    return APSP_OK;
}

/* The block back into its staging after the kernels; the slot is then busy until that is
 * done, and its rows go home when it is retired. */
static apsp_status download(cl_device *d, cl_stream_slot *slot, size_t row0, size_t rows,
                            cl_event after, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->stream.down_queue, slot->block, CL_FALSE, 0,
                                                     rows * row_bytes(d), slot->host, 1, &after,
                                                     &slot->busy));
    if (err == CL_SUCCESS)
        err = clFlush(d->stream.down_queue);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "downloading a streamed block");
    d->stream.bytes_down += rows * row_bytes(d);
    slot->row_begin = row0;
    slot->row_end = row0 + rows;
    return APSP_OK;
}

static apsp_status flush_kernels(cl_device *d, apsp_error *error) {
    cl_int err = clFlush(d->queue);
    return err == CL_SUCCESS ? APSP_OK : cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(kernels)");
}

/* Rows [begin, end) through the device: staged, up, relaxed and gathered, down (none before the
 * first super-round, which changes nothing). */
static apsp_status stream_rows(backend_device *device, apsp_matrix *m, size_t begin, size_t end,
                               apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_stream_slot *slot;
    const size_t rows = end - begin;
    apsp_status status = take_slot(d, m, begin, end, &slot, error);
    if (status != APSP_OK)
        return status;
    host_rows(d, m, slot, begin, rows, copy_out);
    cl_event up = NULL;
    chain c = {0};
    status = upload(d, slot, rows, &up, error);
    c.wait = up;
    if (status == APSP_OK)
        status = block_kernels(d, slot, begin, rows, &c, error);
    if (status == APSP_OK)
        status = flush_kernels(d, error);
    if (status == APSP_OK && d->stream.count > 0)
        status = download(d, slot, begin, rows, c.last, error);
    else if (status == APSP_OK) { /* the staging and the block are free after the gathers */
        cl_event after = c.last ? c.last : up;
        if (clRetainEvent(after) == CL_SUCCESS)
            slot->busy = after;
    }
    if (status == APSP_OK)
        record(d, &(cl_stream_record){up, c.first, c.last, d->stream.count ? slot->busy : NULL,
                                      begin, end});
    if (up)
        clReleaseEvent(up);
    chain_release(&c);
    return status;
}

/* ---- a super-round's pivots ---------------------------------------------------------------- */

/* Blocked Floyd-Warshall on one K-row panel under the pivots of its own rows: the in-core
 * rounds on a layout of that one band. */
static apsp_status close_band(cl_device *d, cl_mem panel, size_t first, size_t count,
                              apsp_error *error) {
    cl_layout *l = &d->layout;
    const size_t tile = l->geometry.tile;
    l->bands[0] = (cl_band){.buffer = panel, .row0 = first, .rows = count};
    l->row_begin = first;
    l->row_end = first + count;
    apsp_status status = rounds_first_panels(d, first / tile, error);
    for (size_t r = first / tile; r < (first + count) / tile && status == APSP_OK; r++) {
        status = rounds_close_pivot(&d->base, r, error);
        if (status == APSP_OK)
            status = rounds_relax(&d->base, r, first, first + count, error);
    }
    return status;
}

/* The closed pivot rows home, through the slots, in pieces of at most a block. */
static apsp_status send_rows_home(cl_device *d, apsp_matrix *m, apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t rb = row_bytes(d);
    apsp_status status = APSP_OK;
    for (size_t row = s->first; row < s->first + s->count && status == APSP_OK;) {
        size_t end = row + s->shape.block_rows < s->first + s->count ? row + s->shape.block_rows
                                                                     : s->first + s->count;
        cl_stream_slot *slot;
        chain c = {0};
        status = take_slot(d, m, row, end, &slot, error);
        cl_int err = status == APSP_OK
                         ? FAULT_CL_STATUS(clEnqueueCopyBuffer(
                               d->queue, s->rows[s->cur], slot->block, (row - s->first) * rb, 0,
                               (end - row) * rb, 0, NULL, chain_next(&c)))
                         : CL_SUCCESS;
        if (err != CL_SUCCESS)
            status = cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueCopyBuffer(pivot rows home)");
        if (status == APSP_OK)
            status = flush_kernels(d, error);
        if (status == APSP_OK)
            status = download(d, slot, row, end - row, c.last, error);
        if (status == APSP_OK)
            record(d, &(cl_stream_record){NULL, c.last, c.last, slot->busy, row, end});
        chain_release(&c);
        row = end;
    }
    return status;
}

/* The last super-round's pivot rows, closed, go home (queued behind its blocks, so that their
 * downloads run beside the next closing, when the bus is free); the gathered rows become the
 * current ones and close. */
static apsp_status stream_pivots(backend_device *device, apsp_matrix *m, size_t first, size_t count,
                                 size_t next_count, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_stream *s = &d->stream;
    apsp_status status = s->count > 0 ? send_rows_home(d, m, error) : APSP_OK;
    if (count > 0)
        s->cur = 1 - s->cur;
    s->first = first;
    s->count = count;
    s->next_first = first + count;
    s->next_count = next_count;
    if (count > 0 && status == APSP_OK)
        status = close_band(d, s->rows[s->cur], first, count, error);
    return status;
}

/* ---- the end ------------------------------------------------------------------------------- */

static apsp_status stream_finish(backend_device *device, apsp_matrix *m, stream_totals *totals,
                                 apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_stream *s = &d->stream;
    apsp_status status = s->count > 0 ? send_rows_home(d, m, error) : APSP_OK;
    for (size_t i = 0; i < STREAM_SLOTS && status == APSP_OK; i++)
        status = retire(d, m, &s->slot[(s->turn + i) % STREAM_SLOTS], error);
    totals->bytes_up = s->bytes_up;
    totals->bytes_down = s->bytes_down;
    if (status == APSP_OK && d->options->profile && s->record_count > 0) {
        rounds_log_profile(d);
        stream_log_overlap(d);
        stream_log_timeline(d);
    }
    return status;
}

/* ---- release ------------------------------------------------------------------------------- */

static void release_records(cl_stream *s) {
    for (size_t i = 0; i < s->record_count; i++) {
        cl_event events[] = {s->records[i].up, s->records[i].first, s->records[i].last,
                             s->records[i].down};
        for (size_t k = 0; k < 4; k++)
            if (events[k])
                clReleaseEvent(events[k]);
    }
    free(s->records);
}

void stream_release(cl_device *d) {
    cl_stream *s = &d->stream;
    if (d->queue)
        clFinish(d->queue);
    for (size_t i = 0; i < STREAM_SLOTS; i++) {
        cl_stream_slot *slot = &s->slot[i];
        if (slot->busy) {
            clWaitForEvents(1, &slot->busy);
            clReleaseEvent(slot->busy);
        }
        if (slot->host)
            clEnqueueUnmapMemObject(s->up_queue, slot->staging, slot->host, 0, NULL, NULL);
    }
    cl_command_queue queues[] = {s->up_queue, s->down_queue};
    for (size_t q = 0; q < 2; q++)
        if (queues[q])
            clFinish(queues[q]);
    for (size_t i = 0; i < STREAM_SLOTS; i++) {
        if (s->slot[i].staging)
            clReleaseMemObject(s->slot[i].staging);
        if (s->slot[i].block)
            clReleaseMemObject(s->slot[i].block);
        if (s->slot[i].columns)
            clReleaseMemObject(s->slot[i].columns);
    }
    for (int i = 0; i < 2; i++)
        if (s->rows[i])
            clReleaseMemObject(s->rows[i]);
    for (size_t q = 0; q < 2; q++)
        if (queues[q])
            clReleaseCommandQueue(queues[q]);
    release_records(s);
    if (s->shape.pivots && d->layout.bands) /* the band is one of the panels */
        d->layout.bands[0].buffer = NULL;
    memset(s, 0, sizeof *s);
}

const backend_stream opencl_stream = {
    .fits = layout_fits,
    .prepare = stream_prepare,
    .pivots = stream_pivots,
    .rows = stream_rows,
    .finish = stream_finish,
};
