/* The predecessor derivation on an OpenCL device (backend.h: derive_predecessors), after the
 * solve's store while the device's rows are still in their bands: cl/paths.cl's paths_tight over
 * chunks of those rows (at most CHUNK_BYTES or the buffer cap each), each chunk's predecessors
 * read into the caller's rows on the copy queue while the kernel runs over the next chunk (two
 * chunk buffers, used in turn). The in-edges go up once per solve. The program is built before
 * the load (prepare_predecessors) and kept with the device; it is small, so it is not cached on
 * disk (program_cache.c keeps fw.cl's). */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "opencl/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sources per work-item (paths.cl's ROWS), work-items per group along the targets, and the most
 * one chunk of predecessors takes on the device (two of them are used). */
enum { ROWS_PER_ITEM = 4, GROUP_TARGETS = 64, CHUNK_BYTES = 64 << 20 };

apsp_status predecessors_prepare(backend_device *d, apsp_error *error) {
    if (d->paths_tight)
        return APSP_OK;
    char *source, origin[1024], options[64];
    apsp_status status =
        cl_load_source("paths.cl", d->options->kernel_dir, &source, origin, sizeof origin, error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    d->paths_program = FAULT_CL_OBJECT(
        &err, clCreateProgramWithSource(d->context, 1, (const char **)&source, NULL, &err));
    free(source);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateProgramWithSource(%s)", origin);
    d->builds++;
    snprintf(options, sizeof options, "-DROWS=%d", ROWS_PER_ITEM);
    err = FAULT_CL_STATUS(clBuildProgram(d->paths_program, 1, &d->device, options, NULL, NULL));
    char *build_log = cl_build_log(d->paths_program, d->device);
    log_message(d->options, err == CL_SUCCESS ? APSP_LOG_DEBUG : APSP_LOG_ERROR,
                "%s %s for %s with '%s'; build log:\n%s",
                err == CL_SUCCESS ? "built" : "failed to build", origin, d->name, options,
                build_log ? build_log : "(the driver gave no build log)");
    free(build_log);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clBuildProgram(%s) for %s", origin,
                       d->name);
    d->paths_tight = FAULT_CL_OBJECT(&err, clCreateKernel(d->paths_program, "paths_tight", &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(paths_tight)");
    return APSP_OK;
}

void predecessors_release(backend_device *d) {
    if (d->paths_tight)
        clReleaseKernel(d->paths_tight);
    if (d->paths_program)
        clReleaseProgram(d->paths_program);
    d->paths_tight = NULL;
    d->paths_program = NULL;
}

/* What one derivation holds on the device. */
typedef struct derivation {
    cl_mem start, source, weight, untight;
    cl_mem chunk[2];
    cl_event read[2]; /* the last read out of chunk k */
    size_t chunk_rows;
    size_t chunks; /* chunks queued so far */
} derivation;

static apsp_status upload(backend_device *d, cl_mem *buffer, const void *host, size_t bytes,
                          apsp_error *error) {
    cl_int err;
    *buffer =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                             bytes, (void *)host, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(in-edges, %zu bytes)", bytes);
    return APSP_OK;
}

static apsp_status begin(backend_device *d, const paths_csr *csr, size_t rows, derivation *dv,
                         apsp_error *error) {
    size_t v = csr->vertices, m = csr->edges ? csr->edges : 1;
    uint64_t cap = layout_buffer_cap(d) < CHUNK_BYTES ? layout_buffer_cap(d) : CHUNK_BYTES;
    size_t most = (size_t)(cap / (v * sizeof(int32_t))) / ROWS_PER_ITEM * ROWS_PER_ITEM;
    dv->chunk_rows = most < ROWS_PER_ITEM ? ROWS_PER_ITEM : most;
    if (dv->chunk_rows > rows)
        dv->chunk_rows = rows;
    const int32_t none = 0;
    apsp_status status = upload(d, &dv->start, csr->start, (v + 1) * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->source, csr->source, m * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->weight, csr->weight, m * sizeof(int32_t), error);
    if (status == APSP_OK)
        status = upload(d, &dv->untight, &none, sizeof none, error);
    for (int k = 0; k < 2 && status == APSP_OK; k++) {
        cl_int err;
        size_t bytes = dv->chunk_rows * v * sizeof(int32_t);
        dv->chunk[k] =
            FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err));
        if (err != CL_SUCCESS)
            status = cl_fail(error, APSP_ERR_DEVICE, err,
                             "clCreateBuffer(predecessors, %zu bytes) on %s", bytes, d->name);
    }
    return status;
}

static void end(derivation *dv) {
    cl_mem buffers[] = {dv->start, dv->source, dv->weight, dv->untight, dv->chunk[0], dv->chunk[1]};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    for (int k = 0; k < 2; k++)
        if (dv->read[k])
            clReleaseEvent(dv->read[k]);
}

/* Rows [row, row + rows) of the band, from its row `band_row`: the kernel into the next chunk
 * buffer once its last read is done, then the read into pred's rows. */
static apsp_status queue_chunk(backend_device *d, const paths_csr *csr, const cl_band *band,
                               size_t row, size_t rows, derivation *dv, int32_t *pred,
                               apsp_error *error) {
    cl_kernel kernel = d->paths_tight;
    const int k = (int)(dv->chunks++ % 2);
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
    cl_event done = NULL;
    cl_int err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, kernel, 2, NULL, global, local,
                                                        dv->read[k] ? 1 : 0,
                                                        dv->read[k] ? &dv->read[k] : NULL, &done));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(paths_tight) on %s",
                       d->name);
    if (dv->read[k])
        clReleaseEvent(dv->read[k]);
    dv->read[k] = NULL;
    size_t bytes = rows * csr->vertices * sizeof(int32_t);
    err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->copy_queue, dv->chunk[k], CL_FALSE, 0, bytes,
                                              pred + row * csr->vertices, 1, &done, &dv->read[k]));
    clReleaseEvent(done);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(predecessors) on %s",
                       d->name);
    return APSP_OK;
}

/* Every band's real rows, chunk by chunk; then the copies and the untight flag waited for. */
static apsp_status run(backend_device *d, const paths_csr *csr, derivation *dv, int32_t *pred,
                       int *untight, apsp_error *error) {
    const cl_layout *l = &d->layout;
    apsp_status status = APSP_OK;
    for (size_t b = 0; b < l->band_count && status == APSP_OK; b++) {
        const cl_band *band = &l->bands[b];
        size_t end =
            band->row0 + band->rows < csr->vertices ? band->row0 + band->rows : csr->vertices;
        for (size_t row = band->row0; row < end && status == APSP_OK; row += dv->chunk_rows) {
            size_t rows = end - row < dv->chunk_rows ? end - row : dv->chunk_rows;
            status = queue_chunk(d, csr, band, row, rows, dv, pred, error);
        }
    }
    cl_int err = FAULT_CL_STATUS(clFinish(d->copy_queue));
    if (status == APSP_OK && err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(predecessors) on %s", d->name);
    cl_int flag = 0;
    err = status == APSP_OK
              ? FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, dv->untight, CL_TRUE, 0, sizeof flag,
                                                    &flag, 0, NULL, NULL))
              : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status =
            cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(untight) on %s", d->name);
    *untight = flag != 0;
    return status;
}

apsp_status predecessors_derive(backend_device *d, const paths_csr *csr, int32_t *pred,
                                int *untight, apsp_error *error) {
    const cl_layout *l = &d->layout;
    *untight = 0;
    if (l->row_begin >= csr->vertices)
        return APSP_OK;
    size_t rows = (l->row_end < csr->vertices ? l->row_end : csr->vertices) - l->row_begin;
    derivation dv = {0};
    apsp_status status = predecessors_prepare(d, error); /* built already, by the driver */
    if (status == APSP_OK)
        status = begin(d, csr, rows, &dv, error);
    if (status == APSP_OK)
        status = run(d, csr, &dv, pred, untight, error);
    if (status != APSP_OK) { /* nothing may still write into pred */
        clFinish(d->queue);
        clFinish(d->copy_queue);
    }
    end(&dv);
    return status;
}
