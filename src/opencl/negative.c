/* The host side of the kernels' bounded negative form (cl/fw.cl, NEGATIVE = 2): the cell where
 * phase 1 records the first vertex found on a negative cycle, reset before the rounds and read
 * after them, and the last step that turns the distances above the bound back into INF. */
#include "base/error.h"
#include "base/fault.h"
#include "opencl/device.h"

#include <limits.h>

/* *cycle's value while no negative cycle has been met (phase 1 keeps the least vertex). */
static const cl_int NO_CYCLE = INT_MAX;

apsp_status negative_open(cl_device *d, apsp_error *error) {
    cl_int err;
    d->cycle = FAULT_CL_OBJECT(
        &err, clCreateBuffer(d->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(negative cycle cell)");
    return APSP_OK;
}

void negative_release(cl_device *d) {
    if (d->cycle)
        clReleaseMemObject(d->cycle);
    d->cycle = NULL;
}

apsp_status negative_begin(cl_device *d, apsp_error *error) {
    if (d->negative != NEGATIVE_BOUNDED)
        return APSP_OK;
    cl_int err = FAULT_CL_STATUS(clEnqueueWriteBuffer(d->queue, d->cycle, CL_TRUE, 0,
                                                      sizeof NO_CYCLE, &NO_CYCLE, 0, NULL, NULL));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBuffer(negative cycle cell)");
}

static apsp_status clear_above_bound(cl_device *d, const cl_band *band, apsp_error *error) {
    const size_t cell = layout_cell_bytes(d);
    cl_int err = FAULT_CL_STATUS(
        clSetKernelArg(d->kernels.unreachable, 0, sizeof band->buffer, &band->buffer));
    if (err == CL_SUCCESS) /* DIST: the low bytes of the int64 bound on a little-endian host */
        err = FAULT_CL_STATUS(clSetKernelArg(d->kernels.unreachable, 1, cell, &d->bound));
    size_t cells = band->rows * d->layout.geometry.n;
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, d->kernels.unreachable, 1, NULL,
                                                     &cells, NULL, 0, NULL, NULL));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "fw_unreachable(rows from %zu)", band->row0);
}

apsp_status negative_finish(cl_device *d, apsp_error *error) {
    if (d->negative != NEGATIVE_BOUNDED)
        return APSP_OK;
    cl_int cycle = NO_CYCLE;
    cl_int err = FAULT_CL_STATUS(
        clEnqueueReadBuffer(d->queue, d->cycle, CL_TRUE, 0, sizeof cycle, &cycle, 0, NULL, NULL));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(negative cycle cell)");
    if (cycle != NO_CYCLE)
        return fail_negative_cycle(error, (size_t)cycle); /* (a vertex: never negative) */
    apsp_status status = APSP_OK;
    for (size_t b = 0; b < d->layout.band_count && status == APSP_OK; b++)
        status = clear_above_bound(d, &d->layout.bands[b], error);
    return status;
}
