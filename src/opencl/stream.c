/* Streaming a matrix larger than the device's memory from host memory: the OpenCL side of
 * backend.h's backend_stream (src/drivers/stream.c drives it; device.h has the state).
 *
 * Closing a super-round's panels: R under the pivots of its own rows is blocked Floyd-Warshall
 * on a band of K rows whose every pivot lies in it, which is what rounds.c does on a layout of
 * that one band (phases 1 to 3 per round of T); the transposed C likewise, since the transposed
 * matrix has the same shortest paths.
 *
 * A block of rows: the host copies them from the matrix into the slot's pinned staging (making
 * the padding there), the upload queue writes them into the slot's buffer; the kernel queue
 * runs fw_stream (fw_phase3's min-plus product, K deep, the block in registers throughout) and
 * takes the next super-round's pivot columns (fw_col_panel into the next C) and rows (a copy
 * into the next R); the download queue reads the block back into the staging, which the host
 * copies into the matrix when the slot or its rows are needed again, or at the end. Events
 * order the three queues, so that one block goes up while another is relaxed and a third comes
 * down, and the host copies a fourth.
 *
 * The shape: the slots take at most an eighth of the memory apsp may use on the device, and K
 * (the two pairs of K x n panels) the rest, since the bus carries 8 n^2 bytes per super-round
 * whatever K is, against K n^2 relaxations. */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "opencl/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host copies of blocks at least this large use every core (up to 16): one thread copies
 * about 10 GB/s, below what the bus moves, and starting the threads costs well under the
 * 0.4 ms one thread takes for this much. */
enum { PARALLEL_COPY_BYTES = 4 << 20, SLOT_SHARE = 8, TIMELINE_LINES = 12 };

static size_t row_bytes(const backend_device *d) {
    return d->layout.geometry.n * sizeof(cl_int);
}

static size_t round_down(uint64_t value, size_t unit) {
    return (size_t)(value / unit) * unit;
}

/* ---- the shape ----------------------------------------------------------------------------- */

/* What a shape takes on the device: the in-core pairs of T-row panels, the two pairs of K-row
 * panels and the slots. */
static uint64_t device_bytes(const solve_geometry *g, size_t pivots, size_t block_rows) {
    uint64_t row = (uint64_t)g->n * 4;
    return row * (4 * (uint64_t)g->tile + 4 * (uint64_t)pivots + STREAM_SLOTS * block_rows);
}

/* What streaming may take: a cap the user gave, or 15/16 of the global memory, which the driver
 * does not give out whole (the in-core check allows all of it; K only has to be large). */
static uint64_t stream_memory(const backend_device *d) {
    uint64_t cap = d->options->device_memory;
    return cap && cap < d->limits.global_memory ? cap : d->limits.global_memory / 16 * 15;
}

/* K for blocks of `block_rows`: as many rows as the rest of the memory holds. */
static size_t pivots_for(const backend_device *d, const solve_geometry *g, size_t block_rows) {
    uint64_t memory = stream_memory(d), fixed = device_bytes(g, 0, block_rows);
    uint64_t row = (uint64_t)g->n * 4, most = layout_buffer_cap(d) / row;
    if (most > INT32_MAX / g->n) /* the kernels index a K x n panel in int */
        most = INT32_MAX / g->n;
    size_t k = memory > fixed ? round_down((memory - fixed) / (4 * row), g->row_unit) : 0;
    k = k < most ? k : round_down(most, g->row_unit);
    return k < g->n ? k : g->n;
}

static apsp_status too_small(const backend_device *d, const solve_geometry *g, apsp_error *error) {
    const char *source;
    char need[32], have[32];
    uint64_t memory = layout_memory(d, &source); /* of which streaming takes stream_memory */
    return fail(error, APSP_ERR_TOO_LARGE,
                "V = %zu: streaming the %zu x %zu distance matrix from host memory needs at least "
                "%s on the device (panels of %zu rows and %d blocks of %zu) but %s has %s%s",
                g->vertices, g->n, g->n,
                format_bytes(device_bytes(g, g->row_unit, g->row_unit), need, sizeof need),
                g->row_unit, STREAM_SLOTS, g->row_unit, d->name,
                format_bytes(memory, have, sizeof have), source);
}

static apsp_status choose_shape(const backend_device *d, const solve_geometry *g,
                                stream_shape *shape, apsp_error *error) {
    uint64_t row = (uint64_t)g->n * 4, memory = stream_memory(d);
    uint64_t most = layout_buffer_cap(d) / row;
    size_t h = round_down(memory / SLOT_SHARE / STREAM_SLOTS / row, g->row_unit);
    h = h < most ? h : round_down(most, g->row_unit);
    h = h < g->n ? h : g->n;
    if (h == 0 || pivots_for(d, g, h) == 0)
        h = g->row_unit; /* a tight cap: the least blocks leave K the most */
    size_t k = pivots_for(d, g, h);
    if (k == 0 || h > most)
        return too_small(d, g, error);
    *shape = (stream_shape){.pivots = k,
                            .block_rows = h,
                            .device_bytes = device_bytes(g, k, h),
                            .pinned_bytes = (uint64_t)STREAM_SLOTS * h * row};
    return APSP_OK;
}

/* The matrix and the pinned staging must fit the host together: refused before any work. */
static apsp_status check_host(const solve_geometry *g, const stream_shape *shape,
                              apsp_error *error) {
    uint64_t matrix = apsp_matrix_bytes(g->vertices), memory = physical_memory();
    if (!memory || matrix + shape->pinned_bytes <= memory)
        return APSP_OK;
    char need[32], pinned[32], have[32];
    return fail(error, APSP_ERR_TOO_LARGE,
                "V = %zu: the distance matrix (%s) and the pinned staging to stream it through the "
                "device (%s) need more than this machine's %s of memory",
                g->vertices, format_bytes(matrix, need, sizeof need),
                format_bytes(shape->pinned_bytes, pinned, sizeof pinned),
                format_bytes(memory, have, sizeof have));
}

/* ---- buffers and queues -------------------------------------------------------------------- */

static apsp_status create(const backend_device *d, cl_mem_flags flags, size_t bytes, cl_mem *out,
                          const char *what, apsp_error *error) {
    cl_int err;
    *out = FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, flags, bytes, NULL, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(%s)", what);
}

/* The two pairs of K x n panels. */
static apsp_status create_panels(backend_device *d, apsp_error *error) {
    cl_stream *s = &d->stream;
    apsp_status status = APSP_OK;
    for (int i = 0; i < 4 && status == APSP_OK; i++)
        status =
            create(d, CL_MEM_READ_WRITE, s->shape.pivots * row_bytes(d), &s->panel[i / 2][i % 2],
                   i % 2 ? "streamed pivot columns" : "streamed pivot rows", error);
    return status;
}

static apsp_status create_slots(backend_device *d, apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t bytes = s->shape.block_rows * row_bytes(d);
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < STREAM_SLOTS && status == APSP_OK; i++) {
        cl_stream_slot *slot = &s->slot[i];
        status = create(d, CL_MEM_READ_WRITE, bytes, &slot->block, "streamed block", error);
        if (status == APSP_OK)
            status = create(d, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, &slot->staging,
                            "pinned staging", error);
        if (status != APSP_OK)
            break;
        cl_int err;
        slot->host = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(s->up_queue, slot->staging, CL_TRUE,
                                                              CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                                              0, NULL, NULL, &err));
        if (err != CL_SUCCESS)
            status = cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned staging)");
    }
    return status;
}

static apsp_status create_queues(backend_device *d, apsp_error *error) {
    cl_int err;
    cl_command_queue_properties props = d->options->profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    d->stream.up_queue =
        FAULT_CL_OBJECT(&err, clCreateCommandQueue(d->context, d->device, props, &err));
    if (err == CL_SUCCESS)
        d->stream.down_queue =
            FAULT_CL_OBJECT(&err, clCreateCommandQueue(d->context, d->device, props, &err));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateCommandQueue(%s)", d->name);
}

/* The layout the closing rounds run on: the geometry, the T-row panels and one band, which
 * close_band points at a K-row panel. */
static apsp_status prepare_layout(backend_device *d, const solve_geometry *g, apsp_error *error) {
    cl_layout *l = &d->layout;
    l->geometry = *g;
    l->bands = apsp_calloc(1, sizeof *l->bands);
    if (!l->bands)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory planning a band");
    l->band_count = 1;
    return layout_create_panels(d, error);
}

static apsp_status stream_prepare(backend_device *d, const solve_geometry *g, stream_shape *shape,
                                  apsp_error *error) {
    cl_stream *s = &d->stream;
    /* Too large for the host is the first thing to say, in the reader's words. */
    apsp_status status = matrix_fits_memory(g->vertices, error);
    if (status == APSP_OK)
        status = choose_shape(d, g, &s->shape, error);
    if (status == APSP_OK)
        status = check_host(g, &s->shape, error);
    if (status == APSP_OK)
        status = prepare_layout(d, g, error);
    if (status == APSP_OK)
        status = create_queues(d, error);
    if (status == APSP_OK)
        status = create_panels(d, error);
    if (status == APSP_OK)
        status = create_slots(d, error);
    *shape = s->shape;
    return status;
}

/* ---- host copies --------------------------------------------------------------------------- */

/* Rows row0 .. of the matrix and the staging (pitch n); columns [col_begin, col_end) go out. */
typedef struct host_copy {
    apsp_matrix *matrix;
    int32_t *staging;
    size_t n, row0, col_begin, col_end;
} host_copy;

/* Rows of the matrix into the staging, padded to n columns and rows: INF, 0 on the diagonal. */
static int copy_out(void *context, size_t begin, size_t end) {
    const host_copy *c = context;
    const size_t real_n = c->matrix->n, j0 = c->col_begin, j1 = c->col_end;
    for (size_t r = begin; r < end; r++) {
        const size_t i = c->row0 + r;
        /* The real cells of the row in [j0, j1) end at real_end; padding follows. */
        size_t real_end = i < real_n ? (j1 < real_n ? j1 : real_n) : j0;
        real_end = real_end > j0 ? real_end : j0;
        int32_t *dst = c->staging + r * c->n;
        if (real_end > j0)
            memcpy(dst + j0, apsp_matrix_row(c->matrix, i) + j0, (real_end - j0) * sizeof *dst);
        for (size_t j = real_end; j < j1; j++)
            dst[j] = j == i ? 0 : APSP_INF;
    }
    return 0;
}

/* The real cells of staged rows back into the matrix. */
static int copy_home(void *context, size_t begin, size_t end) {
    const host_copy *c = context;
    const size_t real_n = c->matrix->n;
    for (size_t r = begin; r < end && c->row0 + r < real_n; r++)
        memcpy(apsp_matrix_row(c->matrix, c->row0 + r), c->staging + r * c->n,
               real_n * sizeof(int32_t));
    return 0;
}

static void host_rows(backend_device *d, apsp_matrix *m, cl_stream_slot *slot, size_t row0,
                      size_t rows, size_t col_begin, size_t col_end, slice_fn copy) {
    host_copy c = {m, slot->host, d->layout.geometry.n, row0, col_begin, col_end};
    unsigned threads = rows * (col_end - col_begin) * 4 >= PARALLEL_COPY_BYTES ? 0 : 1;
    parallel_slices(rows, threads, copy, &c);
}

/* ---- slots --------------------------------------------------------------------------------- */

/* Waits for the slot's last command and copies its rows home. */
static apsp_status retire(backend_device *d, apsp_matrix *m, cl_stream_slot *slot,
                          apsp_error *error) {
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
        host_rows(d, m, slot, slot->row_begin, slot->row_end - slot->row_begin, 0,
                  d->layout.geometry.n, copy_home);
    slot->row_begin = slot->row_end = 0;
    return APSP_OK;
}

/* A free slot for rows [begin, end): the next in turn, once it and any slot still bringing
 * those rows home are done (the host's copy of them must be the latest). */
static apsp_status take_slot(backend_device *d, apsp_matrix *m, size_t begin, size_t end,
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
static void record(backend_device *d, const cl_stream_record *r) {
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

static apsp_status launch(backend_device *d, cl_kernel kernel, const size_t *global,
                          const size_t *local, chain *c, const char *what, apsp_error *error) {
    cl_event wait = c->wait;
    cl_int err =
        FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, kernel, 2, NULL, global, local,
                                               wait ? 1 : 0, wait ? &wait : NULL, chain_next(c)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(%s)", what);
    chain_queued(c);
    return APSP_OK;
}

/* fw_stream over `rows` rows of `block` (from row0 of the matrix) against the current panels. */
static apsp_status relax_block(backend_device *d, cl_mem block, size_t row0, size_t rows, chain *c,
                               apsp_error *error) {
    const kernel_params *p = &d->params;
    cl_stream *s = &d->stream;
    cl_kernel k = d->kernels.stream;
    cl_int n = (cl_int)d->layout.geometry.n, first = (cl_int)row0, depth = (cl_int)s->count;
    SET_ARG(k, "stream", 0, block);
    SET_ARG(k, "stream", 1, s->panel[s->cur][STREAM_COLS]);
    SET_ARG(k, "stream", 2, s->panel[s->cur][STREAM_ROWS]);
    SET_ARG(k, "stream", 3, n);
    SET_ARG(k, "stream", 4, first);
    SET_ARG(k, "stream", 5, depth);
    const size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
    const size_t block_cols = (size_t)(p->group_cols * p->thread_cols);
    size_t local[2] = {(size_t)p->group_cols, (size_t)p->group_rows};
    size_t global[2] = {(size_t)n / block_cols * local[0], rows / block_rows * local[1]};
    return launch(d, k, global, local, c, "stream", error);
}

/* The next super-round's pivot columns of `rows` rows of `band` (from row0) into the next C,
 * transposed: fw_col_panel over all of them at once. */
static apsp_status gather_columns(backend_device *d, cl_mem band, size_t row0, size_t rows,
                                  chain *c, apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t edge = (size_t)copy_edge(&d->params);
    cl_kernel k = d->kernels.col_copy;
    cl_int n = (cl_int)d->layout.geometry.n, first = (cl_int)row0;
    cl_int r = (cl_int)(s->next_first / d->layout.geometry.tile);
    size_t local[2] = {edge, edge}, global[2] = {rows, s->next_count};
    SET_ARG(k, "col_panel", 0, band);
    SET_ARG(k, "col_panel", 1, s->panel[1 - s->cur][STREAM_COLS]);
    SET_ARG(k, "col_panel", 2, n);
    SET_ARG(k, "col_panel", 3, first);
    SET_ARG(k, "col_panel", 4, r);
    return launch(d, k, global, local, c, "col_panel, streamed", error);
}

/* The block's rows that are the next super-round's pivot rows into the next R. */
static apsp_status gather_rows(backend_device *d, cl_mem block, size_t row0, size_t rows, chain *c,
                               apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t next_end = s->next_first + s->next_count;
    const size_t begin = row0 > s->next_first ? row0 : s->next_first;
    const size_t end = row0 + rows < next_end ? row0 + rows : next_end;
    if (begin >= end)
        return APSP_OK;
    const size_t rb = row_bytes(d);
    cl_event wait = c->wait;
    cl_int err = FAULT_CL_STATUS(
        clEnqueueCopyBuffer(d->queue, block, s->panel[1 - s->cur][STREAM_ROWS], (begin - row0) * rb,
                            (begin - s->next_first) * rb, (end - begin) * rb, wait ? 1 : 0,
                            wait ? &wait : NULL, chain_next(c)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err,
                       "clEnqueueCopyBuffer(rows %zu-%zu into the next panel)", begin, end - 1);
    chain_queued(c);
    return APSP_OK;
}

/* The kernel queue's part of a block: relaxed by the current panels (none before the first
 * super-round), then its part of the next panels taken. */
static apsp_status block_kernels(backend_device *d, cl_mem block, size_t row0, size_t rows,
                                 chain *c, apsp_error *error) {
    apsp_status status = APSP_OK;
    if (d->stream.count > 0)
        status = relax_block(d, block, row0, rows, c, error);
    if (status == APSP_OK && d->stream.next_count > 0)
        status = gather_columns(d, block, row0, rows, c, error);
    if (status == APSP_OK && d->stream.next_count > 0)
        status = gather_rows(d, block, row0, rows, c, error);
    return status;
}

/* ---- a block ------------------------------------------------------------------------------- */

/* Columns [col_begin, col_end) of the block's rows, from the staging to the slot's buffer. */
static apsp_status upload(backend_device *d, cl_stream_slot *slot, size_t rows, size_t col_begin,
                          size_t col_end, cl_event *up, apsp_error *error) {
    const size_t pitch = row_bytes(d);
    size_t origin[3] = {col_begin * sizeof(cl_int), 0, 0};
    size_t region[3] = {(col_end - col_begin) * sizeof(cl_int), rows, 1};
    cl_int err = FAULT_CL_STATUS(clEnqueueWriteBufferRect(d->stream.up_queue, slot->block, CL_FALSE,
                                                          origin, origin, region, pitch, 0, pitch,
                                                          0, slot->host, 0, NULL, up));
    if (err == CL_SUCCESS)
        err = clFlush(d->stream.up_queue);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "uploading a streamed block");
    d->stream.bytes_up += rows * region[0];
    return APSP_OK;
}

/* The block back into its staging after the kernels; the slot is then busy until that is
 * done, and its rows go home when it is retired. */
static apsp_status download(backend_device *d, cl_stream_slot *slot, size_t row0, size_t rows,
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

static apsp_status flush_kernels(backend_device *d, apsp_error *error) {
    cl_int err = clFlush(d->queue);
    return err == CL_SUCCESS ? APSP_OK : cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(kernels)");
}

/* Rows [begin, end) through the device: staged, up, relaxed and gathered, down (none before the
 * first super-round, which changes nothing). */
static apsp_status stream_rows(backend_device *d, apsp_matrix *m, size_t begin, size_t end,
                               apsp_error *error) {
    cl_stream_slot *slot;
    const size_t rows = end - begin;
    apsp_status status = take_slot(d, m, begin, end, &slot, error);
    if (status != APSP_OK)
        return status;
    /* Before the first super-round a block outside its pivot rows only gives its pivot columns. */
    const cl_stream *s = &d->stream;
    const int columns_only =
        s->count == 0 && (end <= s->next_first || begin >= s->next_first + s->next_count);
    const size_t col_begin = columns_only ? s->next_first : 0;
    const size_t col_end = columns_only ? s->next_first + s->next_count : d->layout.geometry.n;
    host_rows(d, m, slot, begin, rows, col_begin, col_end, copy_out);
    cl_event up = NULL;
    chain c = {0};
    status = upload(d, slot, rows, col_begin, col_end, &up, error);
    c.wait = up;
    if (status == APSP_OK)
        status = block_kernels(d, slot->block, begin, rows, &c, error);
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
static apsp_status close_band(backend_device *d, cl_mem panel, size_t first, size_t count,
                              apsp_error *error) {
    cl_layout *l = &d->layout;
    const size_t tile = l->geometry.tile;
    l->bands[0] = (cl_band){.buffer = panel, .row0 = first, .rows = count};
    l->row_begin = first;
    l->row_end = first + count;
    apsp_status status = rounds_first_panels(d, first / tile, error);
    for (size_t r = first / tile; r < (first + count) / tile && status == APSP_OK; r++) {
        status = rounds_close_pivot(d, r, error);
        if (status == APSP_OK)
            status = rounds_relax(d, r, first, first + count, error);
    }
    return status;
}

/* The closed pivot rows home, through the slots, in pieces of at most a block. */
static apsp_status send_rows_home(backend_device *d, apsp_matrix *m, apsp_error *error) {
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
                               d->queue, s->panel[s->cur][STREAM_ROWS], slot->block,
                               (row - s->first) * rb, 0, (end - row) * rb, 0, NULL, chain_next(&c)))
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
 * downloads run beside the next closing, when the bus is free); the gathered pair becomes the
 * current one and closes; its pivot columns of the next super-round go into the next C (the
 * blocks bring the rest). */
static apsp_status stream_pivots(backend_device *d, apsp_matrix *m, size_t first, size_t count,
                                 size_t next_count, apsp_error *error) {
    cl_stream *s = &d->stream;
    apsp_status status = s->count > 0 ? send_rows_home(d, m, error) : APSP_OK;
    if (count > 0)
        s->cur = 1 - s->cur;
    s->first = first;
    s->count = count;
    s->next_first = first + count;
    s->next_count = next_count;
    if (count > 0 && status == APSP_OK)
        status = close_band(d, s->panel[s->cur][STREAM_ROWS], first, count, error);
    if (count > 0 && status == APSP_OK)
        status = close_band(d, s->panel[s->cur][STREAM_COLS], first, count, error);
    if (count > 0 && next_count > 0 && status == APSP_OK) {
        chain c = {0};
        status = gather_columns(d, s->panel[s->cur][STREAM_ROWS], first, count, &c, error);
        chain_release(&c);
    }
    return status;
}

/* ---- the end ------------------------------------------------------------------------------- */

/* A command's device times in seconds; 0 when it has none. */
static void span_of(cl_event event, double *start, double *end) {
    cl_ulong a = 0, b = 0;
    *start = *end = 0;
    if (event &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) ==
            CL_SUCCESS) {
        *start = 1e-9 * (double)a;
        *end = 1e-9 * (double)b;
    }
}

enum { ENGINES = 3 };
static const char *const engine_names[ENGINES] = {"up", "kernels", "down"};

typedef struct edge {
    double at;
    int engine, delta;
} edge;

static int by_time(const void *a, const void *b) {
    const edge *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at ? 1 : x->delta - y->delta;
}

/* Sweeps the engines' busy intervals: the time each was busy, two or more at once, all three. */
static void sweep(edge *edges, size_t count, double busy[ENGINES], double *two, double *three) {
    qsort(edges, count, sizeof *edges, by_time);
    int active[ENGINES] = {0}, engines = 0;
    for (size_t i = 0; i + 1 < count; i++) {
        int e = edges[i].engine;
        engines += (active[e] == 0 && edges[i].delta > 0) - (active[e] == 1 && edges[i].delta < 0);
        active[e] += edges[i].delta;
        double dt = edges[i + 1].at - edges[i].at;
        for (int k = 0; k < ENGINES; k++)
            busy[k] += active[k] > 0 ? dt : 0;
        *two += engines >= 2 ? dt : 0;
        *three += engines == 3 ? dt : 0;
    }
}

/* The profile: each engine's busy time and rate, the overlap, and the first blocks' timeline. */
static void log_overlap(const backend_device *d) {
    const cl_stream *s = &d->stream;
    edge *edges = apsp_calloc(6 * s->record_count + 1, sizeof *edges);
    if (!edges || s->record_count == 0) {
        free(edges);
        return;
    }
    size_t count = 0;
    double origin = 0, last = 0;
    for (size_t i = 0; i < s->record_count; i++) {
        const cl_stream_record *r = &s->records[i];
        double a[ENGINES][2];
        double ignored;
        span_of(r->up, &a[0][0], &a[0][1]);
        span_of(r->first, &a[1][0], &ignored); /* the kernels run from the first to the last */
        span_of(r->last, &ignored, &a[1][1]);
        span_of(r->down, &a[2][0], &a[2][1]);
        for (int e = 0; e < ENGINES; e++) {
            if (a[e][1] <= 0)
                continue;
            origin = origin == 0 || a[e][0] < origin ? a[e][0] : origin;
            last = a[e][1] > last ? a[e][1] : last;
            edges[count++] = (edge){a[e][0], e, 1};
            edges[count++] = (edge){a[e][1], e, -1};
        }
    }
    double busy[ENGINES] = {0}, two = 0, three = 0, wall = last - origin;
    sweep(edges, count, busy, &two, &three);
    free(edges);
    log_message(d->options, APSP_LOG_INFO,
                "stream profile, %zu blocks over %.4f s of device time: up busy %.4f s (%.2f "
                "GB/s), kernels %.4f s, down %.4f s (%.2f GB/s); two or more at once %.4f s "
                "(%.0f%%), all three %.4f s",
                s->record_count, wall, busy[0], busy[0] > 0 ? 1e-9 * s->bytes_up / busy[0] : 0,
                busy[1], busy[2], busy[2] > 0 ? 1e-9 * s->bytes_down / busy[2] : 0, two,
                wall > 0 ? 100 * two / wall : 0, three);
}

/* The first super-round's first blocks (after the gathering pass, which has no downloads),
 * each engine's interval in ms from the first of them. */
static void log_timeline(const backend_device *d) {
    const cl_stream *s = &d->stream;
    size_t from = 0;
    while (from + 1 < s->record_count && !s->records[from].down)
        from++;
    double origin = 0, ignored;
    const cl_stream_record *head = &s->records[from];
    span_of(head->up ? head->up : head->first, &origin, &ignored);
    for (size_t i = from; i < s->record_count && i < from + TIMELINE_LINES; i++) {
        const cl_stream_record *r = &s->records[i];
        char text[256];
        size_t used = (size_t)snprintf(
            text, sizeof text, "stream timeline, rows %zu-%zu:", r->row_begin, r->row_end - 1);
        cl_event starts[ENGINES] = {r->up, r->first, r->down};
        cl_event ends[ENGINES] = {r->up, r->last, r->down};
        for (int e = 0; e < ENGINES && used < sizeof text; e++) {
            double a, b;
            span_of(starts[e], &a, &ignored);
            span_of(ends[e], &ignored, &b);
            if (starts[e])
                used += (size_t)snprintf(text + used, sizeof text - used, " %s %.3f-%.3f ms",
                                         engine_names[e], 1e3 * (a - origin), 1e3 * (b - origin));
        }
        log_message(d->options, APSP_LOG_INFO, "%s", text);
    }
}

static apsp_status stream_finish(backend_device *d, apsp_matrix *m, stream_totals *totals,
                                 apsp_error *error) {
    cl_stream *s = &d->stream;
    apsp_status status = s->count > 0 ? send_rows_home(d, m, error) : APSP_OK;
    for (size_t i = 0; i < STREAM_SLOTS && status == APSP_OK; i++)
        status = retire(d, m, &s->slot[(s->turn + i) % STREAM_SLOTS], error);
    totals->bytes_up = s->bytes_up;
    totals->bytes_down = s->bytes_down;
    if (status == APSP_OK && d->options->profile && s->record_count > 0) {
        rounds_log_profile(d);
        log_overlap(d);
        log_timeline(d);
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

void stream_release(backend_device *d) {
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
    }
    for (int i = 0; i < 4; i++)
        if (s->panel[i / 2][i % 2])
            clReleaseMemObject(s->panel[i / 2][i % 2]);
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
