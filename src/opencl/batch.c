/* A batch's small graphs on an OpenCL device (backend.h: backend_graphs): cl/batch.cl, one
 * work-group per graph solving it in local memory, every graph of a call in one launch. The
 * packed cells go up in one write and come down in one read; the offsets, sizes and forms in
 * one write each. One program per element type, built at its first use (or taken from the
 * kernel cache) and kept with the device. */
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/params.h"
#include "base/element_types.h"

#include <stdio.h>
#include <string.h>

/* Work-items per group: a 60-vertex graph's 3600 cells are 14 per item per step, and a group
 * this size fits every device's CL_DEVICE_MAX_WORK_GROUP_SIZE that can run the other kernels.
 * Graphs above MOST_VERTICES go to the blocked solver even where local memory would hold them:
 * one work-group's n^3 steps on a large graph leave the rest of the device idle. */
enum { GROUP_ITEMS = 128, MOST_VERTICES = 128 };

/* Local memory a graph of n vertices takes: its cells and the copies of row and column k. */
static uint64_t local_bytes(size_t n, size_t cell) {
    return ((uint64_t)n * n + 2 * (uint64_t)n) * cell;
}

size_t batch_most_vertices(backend_device *device, apsp_dtype dtype) {
    cl_device *d = cl_device_of(device);
    const size_t cell = apsp_dtype_size(dtype);
    if (!cell || (dtype == APSP_FLOAT64 && !d->limits.fp64) ||
        d->limits.max_work_group < GROUP_ITEMS)
        return 0;
    /* A float graph above the tile would take several rounds of the blocked solve, whose sums
     * round otherwise than one round's (cl/batch.cl): those go alone. */
    const int rounded = element_is_real(dtype);
    size_t n =
        rounded && (size_t)d->chosen.tile < MOST_VERTICES ? (size_t)d->chosen.tile : MOST_VERTICES;
    while (n && local_bytes(n, cell) > d->limits.local_memory)
        n--;
    return n;
}

static apsp_status batch_kernel(cl_device *d, apsp_dtype dtype, cl_kernel *kernel,
                                apsp_error *error) {
    const int t = (int)dtype;
    if (d->batch_kernel[t]) {
        *kernel = d->batch_kernel[t];
        return APSP_OK;
    }
    char options[128];
    apsp_status status = program_side(d, "batch.cl", dtype_defines(dtype, options, sizeof options),
                                      &d->batch_program[t], error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    d->batch_kernel[t] =
        FAULT_CL_OBJECT(&err, clCreateKernel(d->batch_program[t], "batch_fw", &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(batch_fw)");
    *kernel = d->batch_kernel[t];
    return APSP_OK;
}

void batch_release(cl_device *d) {
    for (size_t t = 0; t < BATCH_DTYPES; t++) {
        if (d->batch_kernel[t])
            clReleaseKernel(d->batch_kernel[t]);
        if (d->batch_program[t])
            clReleaseProgram(d->batch_program[t]);
        d->batch_kernel[t] = NULL;
        d->batch_program[t] = NULL;
    }
}

/* A buffer holding `bytes` of `host`, written by a blocking write (so that the caller's arrays
 * may change after the call). */
static apsp_status buffer_of(cl_device *d, cl_mem *buffer, const void *host, size_t bytes,
                             apsp_error *error) {
    cl_int err;
    *buffer = FAULT_CL_OBJECT(
        &err, clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(batch, %zu bytes) on %s", bytes,
                       d->name);
    err = bytes ? FAULT_CL_STATUS(clEnqueueWriteBuffer(d->queue, *buffer, CL_TRUE, 0, bytes, host,
                                                       0, NULL, NULL))
                : CL_SUCCESS;
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBuffer(batch) on %s", d->name);
    return APSP_OK;
}

/* The launch over every graph, and the wait for it. */
static apsp_status launch(cl_device *d, cl_kernel kernel, cl_mem *buffers, const graphs_call *call,
                          apsp_error *error) {
    size_t most = 0;
    for (size_t g = 0; g < call->count; g++)
        if (call->sizes[g] > most)
            most = call->sizes[g];
    const size_t local = local_bytes(most, apsp_dtype_size(call->dtype));
    cl_int err = CL_SUCCESS;
    for (cl_uint a = 0; a < 4 && err == CL_SUCCESS; a++)
        err = clSetKernelArg(kernel, a, sizeof(cl_mem), &buffers[a]);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 4, local ? local : 1, NULL);
    const size_t group = GROUP_ITEMS, global = call->count * GROUP_ITEMS;
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(
            clEnqueueNDRangeKernel(d->queue, kernel, 1, NULL, &global, &group, 0, NULL, NULL));
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clFinish(d->queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "batch_fw over %zu graphs on %s", call->count,
                       d->name);
    return APSP_OK;
}

apsp_status batch_solve(backend_device *device, const graphs_call *call, graphs_times *times,
                        apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_kernel kernel = NULL;
    double at = seconds_now();
    apsp_status status = batch_kernel(d, call->dtype, &kernel, error);
    if (status != APSP_OK || call->count == 0)
        return status;
    const size_t bytes = call->cells_count * apsp_dtype_size(call->dtype);
    cl_mem buffers[4] = {NULL, NULL, NULL, NULL};
    times->setup += seconds_now() - at;
    at = seconds_now();
    status = buffer_of(d, &buffers[0], call->cells, bytes, error);
    if (status == APSP_OK)
        status =
            buffer_of(d, &buffers[1], call->offsets, call->count * sizeof *call->offsets, error);
    if (status == APSP_OK)
        status = buffer_of(d, &buffers[2], call->sizes, call->count * sizeof *call->sizes, error);
    if (status == APSP_OK)
        status =
            buffer_of(d, &buffers[3], call->negative, call->count * sizeof *call->negative, error);
    times->upload += seconds_now() - at;
    at = seconds_now();
    if (status == APSP_OK)
        status = launch(d, kernel, buffers, call, error);
    times->kernels += seconds_now() - at;
    at = seconds_now();
    cl_int err = status == APSP_OK
                     ? FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, buffers[0], CL_TRUE, 0, bytes,
                                                           call->cells, 0, NULL, NULL))
                     : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(batch) on %s", d->name);
    times->download += seconds_now() - at;
    for (size_t b = 0; b < 4; b++)
        if (buffers[b])
            clReleaseMemObject(buffers[b]);
    return status;
}
