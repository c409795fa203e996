/* A solve from an edge list to rows handed on as they come (apsp_solver_solve_graph, and
 * apsp_solver_solve_graph_typed's other types), so that the host never holds the V x V matrix:
 *   in:  the edges go up (12 bytes each for int32 and float32, 16 for int64 and float64: 9.6 MB
 *        for V = 40000, E = 20 V, against 6.4 GB of int32 matrix) and each band is made on the
 *        device: fw_pad sets it to INF with a 0 diagonal, fw_scatter lowers the cells of the edges
 *        leaving its rows to the least of their weights (cl/graph_fill.cl, for every type);
 *   out: the real rows come down in batches into two pinned (page-locked) buffers in turn; while
 *        one batch is handed to the caller (who writes it to the output file), the next one is
 *        on its way, so the download and the write overlap and transfers run at pinned speed. */
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/log.h"
#include "opencl/device.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of one pinned batch: large enough that a batch's transfer and write cost far more than
 * the call around them, small enough that two are nothing beside the matrix. */
enum { BATCH_BYTES = 64 << 20, SCATTER_GROUP = 256 };

typedef struct edge_buffers {
    cl_mem source, target, weight;
} edge_buffers;

static void release_edges(edge_buffers *e) {
    cl_mem all[] = {e->source, e->target, e->weight};
    for (size_t i = 0; i < 3; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
}

static apsp_status copy_up(cl_device *d, const void *host, size_t bytes, cl_mem *buffer,
                           apsp_error *error) {
    cl_int err;
    *buffer =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                             bytes, (void *)host, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(edges)");
}

int layout_takes_graph(const cl_device *d, apsp_dtype dtype) {
    if (dtype == APSP_INT32 || dtype == APSP_FLOAT32) /* (32-bit atomics: OpenCL 1.1's own) */
        return 1;
    return cl_has_extension(d->device, "cl_khr_int64_base_atomics") &&
           (dtype == APSP_INT64 || d->limits.fp64);
}

/* The weights in the solve's type, converted as the host's fill converts them, float -0 as +0
 * (cl/graph_fill.cl says why). */
static void *edge_weights(const apsp_graph *g, apsp_dtype dtype, size_t cell) {
    unsigned char *weight = apsp_malloc(g->edges * cell);
    for (size_t e = 0; weight && e < g->edges; e++) {
        void *w = weight + e * cell;
        graph_weight_as(g, e, dtype, w);
        if (dtype == APSP_FLOAT32 && *(float *)w == 0)
            *(float *)w = 0;
        else if (dtype == APSP_FLOAT64 && *(double *)w == 0)
            *(double *)w = 0;
    }
    return weight;
}

/* The edge list on the device, the weights in the solve's type (the type's rule keeps them in
 * range: graph_check_typed). */
static apsp_status upload_edges(cl_device *d, const apsp_graph *g, edge_buffers *e,
                                apsp_error *error) {
    const size_t cell = layout_cell_bytes(d);
    void *weight = edge_weights(g, d->dtype, cell);
    if (!weight)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for %zu edge weights", g->edges);
    size_t bytes = g->edges * sizeof(int32_t);
    apsp_status status = copy_up(d, g->source, bytes, &e->source, error);
    if (status == APSP_OK)
        status = copy_up(d, g->target, bytes, &e->target, error);
    if (status == APSP_OK)
        status = copy_up(d, weight, g->edges * cell, &e->weight, error);
    free(weight);
    return status;
}

static apsp_status queue_scatter(cl_device *d, const cl_band *band, const edge_buffers *e,
                                 size_t edges, apsp_error *error) {
    cl_int n = (cl_int)d->layout.geometry.n, row0 = (cl_int)band->row0;
    cl_int rows = (cl_int)band->rows, count = (cl_int)edges;
    cl_kernel k = d->kernels.scatter;
    SET_ARG(k, "scatter", 0, band->buffer);
    SET_ARG(k, "scatter", 1, n);
    SET_ARG(k, "scatter", 2, row0);
    SET_ARG(k, "scatter", 3, rows);
    SET_ARG(k, "scatter", 4, e->source);
    SET_ARG(k, "scatter", 5, e->target);
    SET_ARG(k, "scatter", 6, e->weight);
    SET_ARG(k, "scatter", 7, count);
    size_t global = (edges + SCATTER_GROUP - 1) / SCATTER_GROUP * SCATTER_GROUP;
    cl_int err =
        FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err,
                         "clEnqueueNDRangeKernel(scatter, rows from %zu)", band->row0);
}

apsp_status layout_load_graph(backend_device *device, const apsp_graph *g, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const cl_layout *l = &d->layout;
    if (g->edges > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "%zu edges: at most %d on an OpenCL device",
                    g->edges, INT32_MAX);
    if (!d->kernels.scatter) /* (the solver asked layout_takes_graph first) */
        return fail(error, APSP_ERR_INTERNAL, "%s makes no %s matrix from edges", d->name,
                    apsp_dtype_name(d->dtype));
    edge_buffers e = {0};
    apsp_status status = negative_begin(d, error);
    if (status == APSP_OK && g->edges)
        status = upload_edges(d, g, &e, error);
    for (size_t b = 0; b < l->band_count && status == APSP_OK; b++) {
        status = layout_queue_pad(d, &l->bands[b], 0, error);
        if (status == APSP_OK && g->edges)
            status = queue_scatter(d, &l->bands[b], &e, g->edges, error);
    }
    if (status == APSP_OK)
        status = rounds_first_panels(d, 0, error);
    cl_int err = status == APSP_OK ? FAULT_CL_STATUS(clFinish(d->queue)) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(making the matrix)");
    if (status != APSP_OK)
        clFinish(d->queue); /* the kernels may still read the edges */
    release_edges(&e);
    if (status == APSP_OK) /* (a sign, for the tests, that no host matrix went up) */
        log_message(d->options, APSP_LOG_DEBUG,
                    "%s: rows %zu-%zu of the %s matrix made on the device from %zu edges", d->name,
                    l->row_begin, (l->row_end < g->vertices ? l->row_end : g->vertices) - 1,
                    apsp_dtype_name(d->dtype), g->edges);
    return status;
}

/* Rows per batch: as many as BATCH_BYTES hold, at least one. */
static size_t rows_per_batch(size_t row_bytes) {
    return row_bytes < BATCH_BYTES ? BATCH_BYTES / row_bytes : 1;
}

uint64_t graph_io_batch_bytes(size_t n, size_t cell) {
    size_t row_bytes = n * cell;
    return 2 * (uint64_t)rows_per_batch(row_bytes) * row_bytes;
}

apsp_status row_batches_map(cl_device *d, row_batches *b, size_t row_bytes, apsp_error *error) {
    b->rows = rows_per_batch(row_bytes);
    for (int k = 0; k < 2; k++) {
        cl_int err;
        size_t bytes = b->rows * row_bytes;
        b->buffer[k] = FAULT_CL_OBJECT(
            &err, clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                 &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(pinned rows)");
        b->host[k] = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(d->queue, b->buffer[k], CL_TRUE,
                                                              CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                                              0, NULL, NULL, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned rows)");
    }
    return APSP_OK;
}

void row_batches_unmap(cl_device *d, row_batches *b) {
    for (int k = 0; k < 2; k++) {
        if (b->ready[k])
            clWaitForEvents(1, &b->ready[k]), clReleaseEvent(b->ready[k]);
        if (b->host[k])
            clEnqueueUnmapMemObject(d->queue, b->buffer[k], b->host[k], 0, NULL, NULL);
        if (b->buffer[k])
            clReleaseMemObject(b->buffer[k]);
    }
    clFinish(d->queue);
}

/* Rows [row, row + count) of the matrix, all in one band, into batch k (tightly packed). */
static apsp_status queue_batch(cl_device *d, row_batches *b, int k, size_t row, size_t count,
                               apsp_error *error) {
    const cl_layout *l = &d->layout;
    const cl_band *band = layout_band_of(l, row);
    const size_t cell = layout_cell_bytes(d);
    size_t real_n = l->geometry.vertices, row_bytes = real_n * cell;
    size_t device_origin[3] = {0, row - band->row0, 0}, host_origin[3] = {0, 0, 0};
    size_t region[3] = {row_bytes, count, 1};
    if (b->ready[k])
        clReleaseEvent(b->ready[k]), b->ready[k] = NULL;
    cl_int err = FAULT_CL_STATUS(clEnqueueReadBufferRect(
        d->queue, band->buffer, CL_FALSE, device_origin, host_origin, region, l->geometry.n * cell,
        0, row_bytes, 0, b->host[k], 0, NULL, &b->ready[k]));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBufferRect(rows %zu)", row);
}

apsp_status row_batches_wait(row_batches *b, int k, size_t row, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(clWaitForEvents(1, &b->ready[k]));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clWaitForEvents(rows %zu)", row);
}

/* Batch k, once it is there, to the caller. */
apsp_status row_batches_hand_on(row_batches *b, int k, size_t row, size_t count, size_t vertices,
                                apsp_cells_fn rows, void *context, apsp_error *error) {
    apsp_status status = row_batches_wait(b, k, row, error);
    return status == APSP_OK ? rows(context, row, count, b->host[k], vertices, error) : status;
}

/* The rows of the next batch from `row`: at most a batch, within one band and the real rows. */
static size_t batch_rows(const cl_layout *l, const row_batches *b, size_t row) {
    const cl_band *band = layout_band_of(l, row);
    size_t end = band->row0 + band->rows;
    end = end < l->row_end ? end : l->row_end;
    end = end < l->geometry.vertices ? end : l->geometry.vertices;
    return end - row < b->rows ? end - row : b->rows;
}

apsp_status layout_store_rows(cl_device *d, apsp_cells_fn rows, void *context, apsp_error *error) {
    const cl_layout *l = &d->layout;
    size_t vertices = l->geometry.vertices;
    size_t end = l->row_end < vertices ? l->row_end : vertices;
    row_batches b = {0};
    apsp_status status = negative_finish(d, error);
    if (status == APSP_OK && l->row_begin < end)
        status = row_batches_map(d, &b, vertices * layout_cell_bytes(d), error);
    size_t last_row = 0, last_count = 0;
    int k = 0;
    for (size_t row = l->row_begin; row < end && status == APSP_OK; k ^= 1) {
        size_t count = batch_rows(l, &b, row);
        status = queue_batch(d, &b, k, row, count, error);
        if (status == APSP_OK && last_count)
            status = row_batches_hand_on(&b, k ^ 1, last_row, last_count, vertices, rows, context,
                                         error);
        last_row = row, last_count = count;
        row += count;
    }
    if (status == APSP_OK && last_count)
        status =
            row_batches_hand_on(&b, k ^ 1, last_row, last_count, vertices, rows, context, error);
    row_batches_unmap(d, &b);
    return status;
}
