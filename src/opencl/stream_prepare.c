/* Preparing a streamed solve (stream.c): its shape, the host check, the buffers and queues.
 *
 * The shape: the slots take at most an eighth of the memory apsp may use on the device, and K
 * (the two K x n panels of pivot rows, and each slot's K pivot columns) the rest, since the bus
 * carries 2c n^2 bytes (c a cell's) per super-round whatever K is, against K n^2 relaxations. */
#include "base/error.h"
#include "base/matrix.h"
#include "base/memory_room.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/stream_parts.h"

#include <stdio.h>

enum { SLOT_SHARE = 8 };

static size_t row_bytes(const cl_device *d) {
    return d->layout.geometry.n * layout_cell_bytes(d);
}

/* Bytes of one padded row of the geometry's type. */
static uint64_t geometry_row(const solve_geometry *g) {
    return (uint64_t)g->n * apsp_dtype_size(g->dtype);
}

static size_t round_down(uint64_t value, size_t unit) {
    return (size_t)(value / unit) * unit;
}

/* Bytes per pivot of K: a row in each of the two panels, and a column of each slot's block. */
static uint64_t pivot_bytes(const solve_geometry *g, size_t block_rows) {
    return 2 * geometry_row(g) + STREAM_SLOTS * (uint64_t)block_rows * apsp_dtype_size(g->dtype);
}

/* What a shape takes on the device: the in-core pairs of T-row panels, the K pivots and the
 * slots' blocks. */
static uint64_t device_bytes(const solve_geometry *g, size_t pivots, size_t block_rows) {
    uint64_t row = geometry_row(g);
    return row * (4 * (uint64_t)g->tile + STREAM_SLOTS * (uint64_t)block_rows) +
           pivots * pivot_bytes(g, block_rows);
}

/* What streaming may take: the cap the user gave (layout_memory, the one rule), or else 15/16 of
 * the global memory, which the driver does not give out whole (the in-core check allows all of
 * it; K only has to be large). */
static uint64_t stream_memory(const cl_device *d) {
    uint64_t memory = layout_memory(d, NULL);
    return memory < d->limits.global_memory ? memory : memory / 16 * 15;
}

/* K for blocks of `block_rows`: as many rows as the rest of the memory holds. */
static size_t pivots_for(const cl_device *d, const solve_geometry *g, size_t block_rows) {
    uint64_t memory = stream_memory(d), fixed = device_bytes(g, 0, block_rows);
    uint64_t row = geometry_row(g), most = layout_buffer_cap(d) / row;
    if (most > INT32_MAX / g->n) /* the kernels index a K x n panel in int */
        most = INT32_MAX / g->n;
    size_t k =
        memory > fixed ? round_down((memory - fixed) / pivot_bytes(g, block_rows), g->row_unit) : 0;
    k = k < most ? k : round_down(most, g->row_unit);
    return k < g->n ? k : g->n;
}

static apsp_status too_small(const cl_device *d, const solve_geometry *g, apsp_error *error) {
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

static apsp_status stream_choose_shape(const cl_device *d, const solve_geometry *g,
                                       stream_shape *shape, apsp_error *error) {
    uint64_t row = geometry_row(g), memory = stream_memory(d);
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

/* The matrix and the pinned staging must fit the host together: refused before any work. And
 * the staging must fit what is free before it is made (the matrix, when it exists, is held
 * already; before, apsp_solver_check counts the two together). */
static apsp_status stream_check_host(const solve_geometry *g, const stream_shape *shape,
                                     apsp_error *error) {
    char need[32], pinned[32], have[320];
    uint64_t matrix = apsp_matrix_bytes_typed(g->vertices, g->dtype);
    memory_room room; /* read once for both checks */
    memory_room_now(&room);
    uint64_t memory = physical_memory_said_in(&room, have, sizeof have);
    if (!memory || matrix + shape->pinned_bytes <= memory) {
        if (shape->pinned_bytes < MEMORY_ROOM_LEAST) /* as memory_room_check */
            return APSP_OK;
        char what[128];
        snprintf(what, sizeof what, "V = %zu: the pinned staging to stream the matrix",
                 g->vertices);
        return memory_room_check_in(&room, shape->pinned_bytes, what, error);
    }
    return fail(error, APSP_ERR_TOO_LARGE,
                "V = %zu: the distance matrix (%s) and the pinned staging to stream it through the "
                "device (%s) need more together, but %s",
                g->vertices, format_bytes(matrix, need, sizeof need),
                format_bytes(shape->pinned_bytes, pinned, sizeof pinned), have);
}

/* ---- buffers and queues -------------------------------------------------------------------- */

static apsp_status create(const cl_device *d, cl_mem_flags flags, size_t bytes, cl_mem *out,
                          const char *what, apsp_error *error) {
    cl_int err;
    *out = FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, flags, bytes, NULL, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(%s)", what);
}

/* The two K x n panels of pivot rows. */
static apsp_status create_panels(cl_device *d, apsp_error *error) {
    cl_stream *s = &d->stream;
    apsp_status status = APSP_OK;
    for (int i = 0; i < 2 && status == APSP_OK; i++)
        status = create(d, CL_MEM_READ_WRITE, s->shape.pivots * row_bytes(d), &s->rows[i],
                        "streamed pivot rows", error);
    return status;
}

static apsp_status create_slots(cl_device *d, apsp_error *error) {
    cl_stream *s = &d->stream;
    const size_t bytes = s->shape.block_rows * row_bytes(d);
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < STREAM_SLOTS && status == APSP_OK; i++) {
        cl_stream_slot *slot = &s->slot[i];
        status = create(d, CL_MEM_READ_WRITE, bytes, &slot->block, "streamed block", error);
        if (status == APSP_OK)
            status = create(d, CL_MEM_READ_WRITE,
                            s->shape.pivots * s->shape.block_rows * layout_cell_bytes(d),
                            &slot->columns, "a streamed block's pivot columns", error);
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

static apsp_status create_queues(cl_device *d, apsp_error *error) {
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
static apsp_status prepare_layout(cl_device *d, const solve_geometry *g, apsp_error *error) {
    cl_layout *l = &d->layout;
    l->geometry = *g;
    l->bands = apsp_calloc(1, sizeof *l->bands);
    if (!l->bands)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory planning a band");
    l->band_count = 1;
    return layout_create_panels(d, error);
}

apsp_status stream_prepare(backend_device *device, const solve_geometry *g, stream_shape *shape,
                           apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_stream *s = &d->stream;
    layout_release(d); /* an in-core solve's kept buffers: streaming takes the memory */
    /* Too large for the host is the first thing to say, in the reader's words. */
    apsp_status status = matrix_fits_memory_typed(g->vertices, g->dtype, error);
    if (status == APSP_OK)
        status = stream_choose_shape(d, g, &s->shape, error);
    if (status == APSP_OK)
        status = stream_check_host(g, &s->shape, error);
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
