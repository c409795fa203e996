/* The predecessor derivation on an OpenCL device (backend.h: backend_paths), after the
 * solve's store while the device's rows are still in their bands: cl/paths.cl's paths_tight over
 * chunks of those rows (at most CHUNK_BYTES or the buffer cap each), in three stages that overlap:
 * the kernel over chunk c + 1 runs while chunk c comes down on the copy queue into a pinned
 * (page-locked) staging buffer and chunk c - 1 is copied from the other one into the caller's
 * rows by several host threads. The caller's rows are usually fresh memory never touched, whose
 * first-touch page faults cost more than the bus: one thread reading straight into them moved
 * about 1 GB/s (1.5 s for V = 20000 on an H100); the threads take the faults in parallel, and
 * the bus reads pinned memory at full speed. The in-edges go up once per solve. The program is
 * built before the load (backend_paths.prepare) and kept with the device, and its binary in the
 * kernel cache beside fw.cl's (program_cache.c). With options->profile the parts (kernel
 * and read device times, host copy and wait) go to the log. */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/parallel.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/program_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sources per work-item (paths.cl's ROWS), work-items per group along the targets, and the most
 * one chunk of predecessors takes (two on the device, two pinned on the host): large enough that
 * a chunk's kernel, read and copy cost far more than the calls and thread starts around them,
 * small enough that pinning the staging (slow on some drivers) stays cheap. Host copies below
 * PARALLEL_COPY_BYTES use one thread (starting the others would cost more). */
enum {
    ROWS_PER_ITEM = 4,
    GROUP_TARGETS = 64,
    CHUNK_BYTES = 32 << 20,
    PARALLEL_COPY_BYTES = 4 << 20
};

apsp_status predecessors_prepare(backend_device *device, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    if (d->paths_tight)
        return APSP_OK;
    char options[64];
    snprintf(options, sizeof options, "-DROWS=%d", ROWS_PER_ITEM);
    apsp_status status = program_side(d, "paths.cl", options, &d->paths_program, error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    d->paths_tight = FAULT_CL_OBJECT(&err, clCreateKernel(d->paths_program, "paths_tight", &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(paths_tight)");
    return APSP_OK;
}

void predecessors_release(cl_device *d) {
    if (d->paths_tight)
        clReleaseKernel(d->paths_tight);
    if (d->paths_program)
        clReleaseProgram(d->paths_program);
    d->paths_tight = NULL;
    d->paths_program = NULL;
}

/* What one derivation holds: the in-edges and the chunks on the device, the pinned staging
 * mapped on the host, and the events of the chunk in each pair of buffers. */
typedef struct derivation {
    cl_mem start, source, weight, untight;
    cl_mem chunk[2], staging[2];
    int32_t *host[2]; /* staging[k], mapped */
    cl_event kernel[2], read[2];
    size_t chunk_rows;
    unsigned threads; /* host threads of a large copy (0: every core) */
    /* options->profile: device seconds of the kernels and reads, host seconds of the copies and
     * of waiting for the reads, and the setup (buffers, in-edges, pinning). */
    double kernel_s, read_s, copy_s, wait_s, setup_s;
    size_t chunks;
} derivation;

static apsp_status upload(cl_device *d, cl_mem *buffer, const void *host, size_t bytes,
                          apsp_error *error) {
    cl_int err;
    *buffer =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                             bytes, (void *)host, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(in-edges, %zu bytes)", bytes);
    return APSP_OK;
}

/* Chunk buffer k on the device and its pinned staging, mapped. */
static apsp_status make_chunk(cl_device *d, derivation *dv, int k, size_t bytes,
                              apsp_error *error) {
    cl_int err;
    dv->chunk[k] =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(predecessors, %zu bytes) on %s",
                       bytes, d->name);
    dv->staging[k] =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                             bytes, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err,
                       "clCreateBuffer(pinned predecessors, %zu bytes) on %s", bytes, d->name);
    dv->host[k] = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(d->queue, dv->staging[k], CL_TRUE,
                                                           CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                                           NULL, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned predecessors) on %s",
                       d->name);
    return APSP_OK;
}

static apsp_status begin(cl_device *d, const paths_csr *csr, size_t rows, derivation *dv,
                         apsp_error *error) {
    size_t v = csr->vertices, m = csr->edges ? csr->edges : 1;
    uint64_t cap = layout_buffer_cap(d) < CHUNK_BYTES ? layout_buffer_cap(d) : CHUNK_BYTES;
    size_t most = (size_t)(cap / (v * sizeof(int32_t))) / ROWS_PER_ITEM * ROWS_PER_ITEM;
    dv->chunk_rows = most < ROWS_PER_ITEM ? ROWS_PER_ITEM : most;
    if (dv->chunk_rows > rows)
        dv->chunk_rows = rows;
    dv->threads = threads_of(d->options->threads);
    const int32_t none = 0;
    apsp_status status = upload(d, &dv->start, csr->start, (v + 1) * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->source, csr->source, m * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->weight, csr->weight, m * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->untight, &none, sizeof none, error);
    for (int k = 0; k < 2 && status == APSP_OK; k++)
        status = make_chunk(d, dv, k, dv->chunk_rows * v * sizeof(int32_t), error);
    return status;
}

static void release_derivation(cl_device *d, derivation *dv) {
    for (int k = 0; k < 2; k++) {
        if (dv->kernel[k])
            clReleaseEvent(dv->kernel[k]);
        if (dv->read[k])
            clReleaseEvent(dv->read[k]);
        if (dv->host[k])
            clEnqueueUnmapMemObject(d->queue, dv->staging[k], dv->host[k], 0, NULL, NULL);
    }
    clFinish(d->queue); /* the unmaps, before the buffers go */
    cl_mem buffers[] = {dv->start,    dv->source,   dv->weight,     dv->untight,
                        dv->chunk[0], dv->chunk[1], dv->staging[0], dv->staging[1]};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
}

/* Rows [row, row + rows) of the band, from its row `band_row`: the kernel into chunk buffer k,
 * then the read into its staging, both flushed so that they run while the host copies. The
 * buffer's last read and the staging's last copy are done (retire). */
static apsp_status queue_chunk(cl_device *d, const paths_csr *csr, const cl_band *band, size_t row,
                               size_t rows, derivation *dv, int k, apsp_error *error) {
    cl_kernel kernel = d->paths_tight;
    const cl_long pitch = (cl_long)d->layout.geometry.n, band_row = (cl_long)(row - band->row0);
    const cl_int first = (cl_int)row, count = (cl_int)rows, vertices = (cl_int)csr->vertices;
    SET_ARG(kernel, "paths_tight", 0, band->buffer);
    SET_ARG(kernel, "paths_tight", 1, pitch);
    SET_ARG(kernel, "paths_tight", 2, band_row);
    SET_ARG(kernel, "paths_tight", 3, first);
    SET_ARG(kernel, "paths_tight", 4, count);
    SET_ARG(kernel, "paths_tight", 5, vertices);
    SET_ARG(kernel, "paths_tight", 6, dv->start);
    SET_ARG(kernel, "paths_tight", 7, dv->source);
    SET_ARG(kernel, "paths_tight", 8, dv->weight);
    SET_ARG(kernel, "paths_tight", 9, dv->chunk[k]);
    SET_ARG(kernel, "paths_tight", 10, dv->untight);
    size_t local[2] = {GROUP_TARGETS, 1};
    size_t global[2] = {(csr->vertices + GROUP_TARGETS - 1) / GROUP_TARGETS * GROUP_TARGETS,
                        (rows + ROWS_PER_ITEM - 1) / ROWS_PER_ITEM};
    cl_int err = FAULT_CL_STATUS(
        clEnqueueNDRangeKernel(d->queue, kernel, 2, NULL, global, local, 0, NULL, &dv->kernel[k]));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(paths_tight) on %s",
                       d->name);
    err = FAULT_CL_STATUS(clFlush(d->queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(paths_tight) on %s", d->name);
    size_t bytes = rows * csr->vertices * sizeof(int32_t);
    err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->copy_queue, dv->chunk[k], CL_FALSE, 0, bytes,
                                              dv->host[k], 1, &dv->kernel[k], &dv->read[k]));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(predecessors) on %s",
                       d->name);
    err = FAULT_CL_STATUS(clFlush(d->copy_queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(predecessors) on %s", d->name);
    return APSP_OK;
}

/* The device seconds of an event's command (0 where the queue keeps no profile). */
static double device_seconds(cl_event event) {
    cl_ulong start = 0, stop = 0;
    if (clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof stop, &stop, NULL) !=
            CL_SUCCESS)
        return 0;
    return 1e-9 * (double)(stop - start);
}

/* One slice of a chunk's copy from its staging into the caller's rows. */
typedef struct chunk_copy {
    const int32_t *from;
    int32_t *to;
} chunk_copy;

static int copy_slice(void *context, size_t begin, size_t end) {
    const chunk_copy *c = context;
    memcpy(c->to + begin, c->from + begin, (end - begin) * sizeof(int32_t));
    return 0;
}

/* Waits for chunk k's read and copies its `cells` into pred from `at`; the chunk's buffer and
 * staging are free again after. */
static apsp_status retire(cl_device *d, derivation *dv, int k, int32_t *at, size_t cells,
                          apsp_error *error) {
    double start = seconds_now();
    cl_int err = FAULT_CL_STATUS(clWaitForEvents(1, &dv->read[k]));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clWaitForEvents(predecessors) on %s", d->name);
    double copy = seconds_now();
    chunk_copy c = {dv->host[k], at};
    parallel_slices(cells, cells * sizeof(int32_t) >= PARALLEL_COPY_BYTES ? dv->threads : 1,
                    copy_slice, &c);
    dv->copy_s += seconds_now() - copy;
    dv->wait_s += copy - start;
    if (d->options->profile) {
        dv->kernel_s += device_seconds(dv->kernel[k]);
        dv->read_s += device_seconds(dv->read[k]);
    }
    clReleaseEvent(dv->kernel[k]);
    clReleaseEvent(dv->read[k]);
    dv->kernel[k] = dv->read[k] = NULL;
    return APSP_OK;
}

/* Every real row of the device's, chunk by chunk within the bands, the kernel and read of the
 * next chunk queued before the current one is copied; then the untight flag. */
static apsp_status run(cl_device *d, const paths_csr *csr, derivation *dv, size_t first, size_t end,
                       int32_t *pred, int *untight, apsp_error *error) {
    const size_t v = csr->vertices;
    apsp_status status = APSP_OK;
    size_t last_row = 0, last_rows = 0; /* the chunk queued but not yet copied */
    for (size_t row = first; (row < end || last_rows) && status == APSP_OK;) {
        size_t rows = 0;
        const int k = (int)(dv->chunks % 2);
        if (row < end) {
            const cl_band *band = layout_band_of(&d->layout, row);
            size_t stop = band->row0 + band->rows < end ? band->row0 + band->rows : end;
            rows = stop - row < dv->chunk_rows ? stop - row : dv->chunk_rows;
            status = queue_chunk(d, csr, band, row, rows, dv, k, error);
            dv->chunks++;
        }
        if (status == APSP_OK && last_rows)
            status = retire(d, dv, k ^ 1, pred + last_row * v, last_rows * v, error);
        last_row = row, last_rows = rows;
        row += rows;
    }
    cl_int flag = 0;
    cl_int err = status == APSP_OK
                     ? FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, dv->untight, CL_TRUE, 0,
                                                           sizeof flag, &flag, 0, NULL, NULL))
                     : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status =
            cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(untight) on %s", d->name);
    *untight = flag != 0;
    return status;
}

apsp_status predecessors_derive(backend_device *device, const paths_csr *csr, int32_t *pred,
                                int *untight, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const cl_layout *l = &d->layout;
    *untight = 0;
    if (l->row_begin >= csr->vertices)
        return APSP_OK;
    size_t end = l->row_end < csr->vertices ? l->row_end : csr->vertices;
    derivation dv = {0};
    double start = seconds_now();
    apsp_status status = predecessors_prepare(&d->base, error); /* built already, by the driver */
    if (status == APSP_OK)
        status = begin(d, csr, end - l->row_begin, &dv, error);
    dv.setup_s = seconds_now() - start;
    if (status == APSP_OK)
        status = run(d, csr, &dv, l->row_begin, end, pred, untight, error);
    if (status != APSP_OK) { /* nothing may still write into pred or the staging */
        clFinish(d->queue);
        clFinish(d->copy_queue);
    }
    release_derivation(d, &dv);
    if (status == APSP_OK && d->options->profile)
        log_message(d->options, APSP_LOG_INFO,
                    "paths on %s, %zu chunks of up to %zu rows: kernel %.4f s, read %.4f s "
                    "(device), host copy %.4f s, waiting for reads %.4f s, setup %.4f s, "
                    "all %.4f s",
                    d->name, dv.chunks, dv.chunk_rows, dv.kernel_s, dv.read_s, dv.copy_s, dv.wait_s,
                    dv.setup_s, seconds_now() - start);
    return status;
}
