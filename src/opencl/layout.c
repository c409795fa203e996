/* The layout of a solve on an OpenCL device: the padded size, the row bands and panels, and the
 * transfers between them and the host matrix (see device.h). */
#include "base/error.h"
#include "base/memory_room.h"
#include "base/util.h"
#include "base/fault.h"
#include "opencl/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cap on one buffer and where it comes from, for messages. */
typedef struct buffer_cap {
    uint64_t bytes;
    const char *source;
    int user; /* the user's cap, below the driver's */
} buffer_cap;

static buffer_cap buffer_cap_of(const cl_device *d) {
    buffer_cap cap = {d->limits.max_allocation, "the device's largest single allocation", 0};
    if (d->options->max_buffer_bytes && d->options->max_buffer_bytes < cap.bytes)
        cap = (buffer_cap){d->options->max_buffer_bytes, "--max-buffer-bytes", 1};
    return cap;
}

uint64_t layout_buffer_cap(const cl_device *d) {
    return buffer_cap_of(d).bytes;
}

/* The padded size for these parameters: bands are whole multiples of row_unit =
 * least_common_multiple(TILE, phase-3 block height) rows, so that the pivot rows lie in one band
 * and phase 3 tiles every band exactly; n is also a multiple of the phase-3 block width. */
static void geometry_of(const kernel_params *p, size_t vertices, solve_geometry *g) {
    size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
    g->vertices = vertices;
    g->tile = (size_t)p->tile;
    g->row_unit = least_common_multiple((size_t)p->tile, block_rows);
    g->col_unit = least_common_multiple(g->row_unit, (size_t)(p->group_cols * p->thread_cols));
    g->n = (vertices + g->col_unit - 1) / g->col_unit * g->col_unit;
}

/* Under a tight buffer cap, lower phase-3 blocks allow bands as low as one tile. */
static int lower_blocks(kernel_params *p) {
    if (p->group_rows > 1)
        p->group_rows /= 2;
    else if (p->thread_rows > 1)
        p->thread_rows /= 2;
    else
        return 0;
    while (p->thread_rows % p->vector)
        p->vector /= 2;
    return 1;
}

size_t layout_cell_bytes(const cl_device *d) {
    return apsp_dtype_size(d->dtype);
}

/* The element type: one the kernels have and the device can run; the parameters, chosen for
 * int32, with the type's row of the per-type table (params.c) and fitted to its cells' local
 * memory (the geometry does not change with the type). */
static apsp_status plan_dtype(cl_device *d, apsp_dtype dtype, apsp_error *error) {
    const size_t cell = apsp_dtype_size(dtype);
    if (cell == 0)
        return fail(error, APSP_ERR_USAGE, "the OpenCL backend has no kernels for dtype %d",
                    (int)dtype);
    if (dtype == APSP_FLOAT64 && !d->limits.fp64)
        return fail(error, APSP_ERR_USAGE,
                    "%s has no double precision (cl_khr_fp64) for float64 distances: use float32 "
                    "or another device",
                    d->name);
    d->dtype = dtype;
    d->params = d->chosen;
    params_for_dtype(d->options, &d->limits, dtype, &d->params);
    if (dtype == APSP_INT32)
        return APSP_OK;
    fit_cell_bytes(&d->params, &d->limits, cell);
    return check_params(&d->params, &d->limits, d->name, 0, cell, error);
}

apsp_status layout_plan(backend_device *device, size_t vertices, apsp_dtype dtype,
                        solve_geometry *g, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    kernel_params *p = &d->params;
    buffer_cap cap = buffer_cap_of(d);
    apsp_status planned = plan_dtype(d, dtype, error);
    if (planned != APSP_OK)
        return planned;
    const uint64_t cell = layout_cell_bytes(d);
    uint64_t unit_bytes; /* one band of the least height */
    for (;;) {
        geometry_of(p, vertices, g);
        g->dtype = dtype;
        unit_bytes = (uint64_t)g->row_unit * g->n * cell;
        if (unit_bytes <= cap.bytes || g->row_unit == g->tile || !lower_blocks(p))
            break;
    }
    /* The kernels index within a band and the panels in int. */
    if ((uint64_t)g->n * ((uint64_t)g->row_unit + g->tile + 1) > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu is too large for the OpenCL kernels",
                    vertices);
    if (unit_bytes > cap.bytes) {
        char need[32], have[32];
        return fail(error, cap.user ? APSP_ERR_USAGE : APSP_ERR_TOO_LARGE,
                    "V = %zu: the smallest band of the matrix (%zu rows of %zu) needs %s but "
                    "one buffer may hold at most %s (%s)",
                    vertices, g->row_unit, g->n, format_bytes(unit_bytes, need, sizeof need),
                    format_bytes(cap.bytes, have, sizeof have), cap.source);
    }
    return program_prepare(d, error);
}

uint64_t layout_memory(const cl_device *d, const char **source) {
    uint64_t cap = d->options->device_memory;
    int user = cap && cap < d->limits.global_memory;
    if (source)
        *source = user ? " (--device-memory)" : " of global memory";
    return user ? cap : d->limits.global_memory;
}

/* The rows' part of the matrix and the round's panels. */
static uint64_t in_core_bytes(const solve_geometry *g, size_t rows) {
    return ((uint64_t)rows * g->n + 4 * (uint64_t)g->n * g->tile) * apsp_dtype_size(g->dtype);
}

int layout_fits(backend_device *device, const solve_geometry *g, size_t rows) {
    cl_device *d = cl_device_of(device);
    return in_core_bytes(g, rows) <= layout_memory(d, NULL);
}

/* Refuses rows that do not fit the device's memory with their panels. One device streams
 * instead (stream.c); this is for a device that shares the solve with others. */
static apsp_status check_memory(const cl_device *d, size_t rows, apsp_error *error) {
    const solve_geometry *g = &d->layout.geometry;
    const char *source;
    uint64_t need = in_core_bytes(g, rows), memory = layout_memory(d, &source);
    if (need <= memory)
        return APSP_OK;
    char want[32], have[32];
    return fail(error, APSP_ERR_TOO_LARGE,
                "V = %zu: the %zu x %zu rows of the distance matrix and their panels need %s but "
                "%s has %s%s%s",
                g->vertices, rows, g->n, format_bytes(need, want, sizeof want), d->name,
                format_bytes(memory, have, sizeof have), source,
                d->shares ? "; streaming from host memory runs on one device only" : "");
}

/* The device's buffers and its driver's own bytes against what is free now (memory_room.h). */
static apsp_status check_free_memory(const cl_device *d, uint64_t need, const char *what,
                                     const char *own, apsp_error *error) {
    memory_room room;
    memory_room_now(&room);
    if (need <= room.available)
        return APSP_OK;
    char left[32], wanted[32], reason[384];
    return fail(error, APSP_ERR_TOO_LARGE,
                "%s keeps its buffers in host memory, and only %s of it is available (%s): %s%s "
                "need about %s",
                d->name, format_bytes(room.available, left, sizeof left),
                memory_room_reason(&room, reason, sizeof reason), what, own,
                format_bytes(need, wanted, sizeof wanted));
}

apsp_status layout_check_host_room(const cl_device *d, uint64_t buffers, uint64_t driver,
                                   const char *what, apsp_error *error) {
    if (!d->limits.host_memory)
        return APSP_OK;
    uint64_t limit = 0;
    const char *which = "";
    uint64_t room = mapping_room(&limit, &which);
    char cap[32], left[32], wanted[32], driver_text[32], own[64] = "";
    if (buffers)
        snprintf(own, sizeof own, " (with the driver's own %s)",
                 format_bytes(driver, driver_text, sizeof driver_text));
    if (room == UINT64_MAX || buffers + driver <= room)
        return check_free_memory(d, buffers + driver, what, own, error);
    return fail(error, APSP_ERR_NO_MEMORY,
                "%s keeps its buffers in host memory, and %s of %s leaves %s: %s%s need about %s",
                d->name, which, format_bytes(limit, cap, sizeof cap),
                format_bytes(room, left, sizeof left), what, own,
                format_bytes(buffers + driver, wanted, sizeof wanted));
}

/* The rows, their panels and the pinned row batches against the host's limits (a host-memory
 * device): those not made yet (made: 0 bytes), and the driver's own use. A host matrix that
 * exists is counted as mapped; one made after the buffers (the command's text output) is
 * checked again when the solve finds them made. */
static apsp_status check_host_memory(const cl_device *d, const solve_geometry *g, size_t rows,
                                     int made, apsp_error *error) {
    uint64_t need = made ? 0 : in_core_bytes(g, rows);
    if (!made) /* an edge list's rows may come down in pinned batches */
        need += graph_io_batch_bytes(g->vertices, apsp_dtype_size(g->dtype));
    char what[160];
    snprintf(what, sizeof what, "V = %zu: the %zu x %zu rows, their panels and transfers%s",
             g->vertices, rows, g->n, made ? " (made)" : "");
    return layout_check_host_room(d, need, DRIVER_SOLVE_BYTES, what, error);
}

/* As few bands over the device's rows as the cap allows, of even heights in whole units. */
static apsp_status plan_bands(cl_device *d, apsp_error *error) {
    cl_layout *l = &d->layout;
    const size_t unit = l->geometry.row_unit;
    uint64_t unit_bytes = (uint64_t)unit * l->geometry.n * layout_cell_bytes(d);
    size_t units = (l->row_end - l->row_begin) / unit;
    size_t units_per_band = (size_t)(buffer_cap_of(d).bytes / unit_bytes);
    if (units_per_band == 0) /* another device's geometry made n wider than planned */
        return fail(error, APSP_ERR_TOO_LARGE, "%s: one band of %zu rows of %zu exceeds the %s",
                    d->name, unit, l->geometry.n, buffer_cap_of(d).source);
    size_t bands = (units + units_per_band - 1) / units_per_band;
    units_per_band = (units + bands - 1) / bands;
    bands = (units + units_per_band - 1) / units_per_band;
    l->bands = apsp_calloc(bands, sizeof *l->bands);
    if (!l->bands)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory planning %zu buffers", bands);
    l->band_count = bands;
    for (size_t b = 0; b < bands; b++) {
        l->bands[b].row0 = l->row_begin + b * units_per_band * unit;
        size_t end = l->bands[b].row0 + units_per_band * unit;
        l->bands[b].rows = (end < l->row_end ? end : l->row_end) - l->bands[b].row0;
    }
    return APSP_OK;
}

static apsp_status create_buffer(const cl_device *d, size_t bytes, cl_mem *buffer, const char *what,
                                 apsp_error *error) {
    cl_int err;
    *buffer =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(%s)", what);
}

apsp_status layout_create_panels(cl_device *d, apsp_error *error) {
    cl_layout *l = &d->layout;
    const size_t row_bytes = l->geometry.n * layout_cell_bytes(d);
    apsp_status status = APSP_OK;
    for (int k = 0; k < 2 && status == APSP_OK; k++) {
        status =
            create_buffer(d, l->geometry.tile * row_bytes, &l->row_panel[k], "row panel", error);
        if (status == APSP_OK)
            status = create_buffer(d, l->geometry.tile * row_bytes, &l->col_panel[k],
                                   "column panel", error);
    }
    return status;
}

static apsp_status create_buffers(cl_device *d, apsp_error *error) {
    cl_layout *l = &d->layout;
    const size_t row_bytes = l->geometry.n * layout_cell_bytes(d);
    apsp_status status = APSP_OK;
    for (size_t b = 0; b < l->band_count && status == APSP_OK; b++) {
        char what[64];
        snprintf(what, sizeof what, "band %zu of %zu rows", b, l->bands[b].rows);
        status = create_buffer(d, l->bands[b].rows * row_bytes, &l->bands[b].buffer, what, error);
    }
    return status == APSP_OK ? layout_create_panels(d, error) : status;
}

/* A band's real rows (none when it is all padding) as the origins and region of a rect copy
 * between the band (pitch n) and the host matrix (pitch stride). */
typedef struct band_rect {
    size_t device_origin[3], host_origin[3], region[3];
} band_rect;

static int band_has_real_rows(const cl_layout *l, const cl_band *band, band_rect *rect) {
    const size_t real_n = l->geometry.vertices, cell = apsp_dtype_size(l->geometry.dtype);
    if (band->row0 >= real_n)
        return 0;
    size_t end = band->row0 + band->rows < real_n ? band->row0 + band->rows : real_n;
    *rect = (band_rect){.host_origin = {0, band->row0, 0},
                        .region = {real_n * cell, end - band->row0, 1}};
    return 1;
}

apsp_status layout_queue_pad(cl_device *d, const cl_band *band, size_t real_vertices,
                             apsp_error *error) {
    const cl_layout *l = &d->layout;
    cl_int n = (cl_int)l->geometry.n, real_n = (cl_int)real_vertices;
    cl_int row0 = (cl_int)band->row0;
    SET_ARG(d->kernels.pad, "pad", 0, band->buffer);
    SET_ARG(d->kernels.pad, "pad", 1, n);
    SET_ARG(d->kernels.pad, "pad", 2, row0);
    SET_ARG(d->kernels.pad, "pad", 3, real_n);
    size_t global[2] = {l->geometry.n, band->rows};
    cl_int err = FAULT_CL_STATUS(
        clEnqueueNDRangeKernel(d->queue, d->kernels.pad, 2, NULL, global, NULL, 0, NULL, NULL));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err,
                                       "clEnqueueNDRangeKernel(pad, rows from %zu)", band->row0);
}

static apsp_status upload(cl_device *d, const apsp_matrix *m, apsp_error *error) {
    const cl_layout *l = &d->layout;
    const size_t cell = layout_cell_bytes(d);
    for (size_t b = 0; b < l->band_count; b++) {
        const cl_band *band = &l->bands[b];
        band_rect r;
        if (band_has_real_rows(l, band, &r)) {
            cl_int err = FAULT_CL_STATUS(clEnqueueWriteBufferRect(
                d->queue, band->buffer, CL_FALSE, r.device_origin, r.host_origin, r.region,
                l->geometry.n * cell, 0, m->stride * cell, 0, m->cells, 0, NULL, NULL));
            if (err != CL_SUCCESS)
                return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBufferRect(band %zu)",
                               b);
        }
        if (l->geometry.n > l->geometry.vertices) {
            apsp_status status = layout_queue_pad(d, band, l->geometry.vertices, error);
            if (status != APSP_OK)
                return status;
        }
    }
    return APSP_OK;
}

/* Whether the layout a successful solve kept serves these rows of this geometry as it is: every
 * load rewrites each cell of the bands (the real rows and then the padding) and the first
 * panels, so nothing of the last solve shows through. */
static int layout_reusable(const cl_layout *l, const solve_geometry *g, size_t row_begin,
                           size_t row_end) {
    const solve_geometry *k = &l->geometry;
    return l->complete && k->vertices == g->vertices && k->n == g->n && k->tile == g->tile &&
           k->row_unit == g->row_unit && k->col_unit == g->col_unit && k->dtype == g->dtype &&
           l->row_begin == row_begin && l->row_end == row_end;
}

apsp_status layout_prepare(backend_device *device, const solve_geometry *g, size_t row_begin,
                           size_t row_end, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_layout *l = &d->layout;
    d->shares = row_begin > 0 || row_end < g->n;
    if (layout_reusable(l, g, row_begin, row_end))
        return check_host_memory(d, g, row_end - row_begin, 1, error);
    layout_release(d); /* another geometry's buffers, before this one's take the memory */
    l->geometry = *g;
    l->row_begin = row_begin;
    l->row_end = row_end;
    apsp_status status = check_memory(d, row_end - row_begin, error);
    if (status == APSP_OK)
        status = check_host_memory(d, g, row_end - row_begin, 0, error);
    if (status == APSP_OK)
        status = plan_bands(d, error);
    if (status == APSP_OK)
        status = create_buffers(d, error);
    l->complete = status == APSP_OK;
    return status;
}

apsp_status layout_load(backend_device *device, apsp_matrix *m, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    apsp_status status = negative_begin(d, error);
    if (status == APSP_OK)
        status = upload(d, m, error);
    if (status == APSP_OK)
        status = rounds_first_panels(d, 0, error);
    cl_int err = status == APSP_OK ? FAULT_CL_STATUS(clFinish(d->queue)) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(upload)");
    return status;
}

apsp_status layout_store(cl_device *d, apsp_matrix *m, apsp_error *error) {
    const cl_layout *l = &d->layout;
    const size_t cell = layout_cell_bytes(d);
    apsp_status status = negative_finish(d, error);
    if (status != APSP_OK)
        return status;
    band_rect r;
    for (size_t b = 0; b < l->band_count && band_has_real_rows(l, &l->bands[b], &r); b++) {
        cl_int err = FAULT_CL_STATUS(clEnqueueReadBufferRect(
            d->queue, l->bands[b].buffer, CL_FALSE, r.device_origin, r.host_origin, r.region,
            l->geometry.n * cell, 0, m->stride * cell, 0, m->cells, 0, NULL, NULL));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBufferRect(band %zu)", b);
    }
    cl_int err = FAULT_CL_STATUS(clFinish(d->queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(download)");
    return APSP_OK;
}

void layout_release(cl_device *d) {
    cl_layout *l = &d->layout;
    if (d->queue)
        clFinish(d->queue);
    for (size_t b = 0; b < l->band_count; b++)
        if (l->bands[b].buffer)
            clReleaseMemObject(l->bands[b].buffer);
    free(l->bands);
    for (int k = 0; k < 2; k++) {
        if (l->row_panel[k])
            clReleaseMemObject(l->row_panel[k]);
        if (l->col_panel[k])
            clReleaseMemObject(l->col_panel[k]);
    }
    memset(l, 0, sizeof *l);
}

const cl_band *layout_band_of(const cl_layout *l, size_t row) {
    for (size_t b = 0; b < l->band_count; b++)
        if (row >= l->bands[b].row0 && row < l->bands[b].row0 + l->bands[b].rows)
            return &l->bands[b];
    return NULL;
}
