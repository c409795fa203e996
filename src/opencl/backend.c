/* The OpenCL backend's side of src/backend.h: opening a device (context, queue, parameters and
 * program, kept for every solve) and the solve's steps, which the other files of this folder
 * carry out (device.h lists them).
 *
 * Statuses: a --tile that is not a power of two is APSP_ERR_USAGE, as is a buffer cap
 * (--max-buffer-bytes) below one band of one tile's rows; a tile the device cannot run
 * (work-groups or local memory over its limits) is APSP_ERR_DEVICE, like every failed OpenCL
 * call; a matrix over the device's global memory (or one band over the driver's largest
 * allocation) is APSP_ERR_TOO_LARGE; a kernel that does not compile is APSP_ERR_KERNEL_BUILD,
 * with the options in the message and the build log sent to the log function. */
#include "base/error.h"
#include "base/fault.h"
#include "opencl/device.h"
#include "opencl/discovery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static apsp_status create_context(backend_device *d, apsp_error *error) {
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    d->context = FAULT_CL_OBJECT(&err, clCreateContext(props, 1, &d->device, NULL, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateContext(%s)", d->name);
    d->queue = FAULT_CL_OBJECT(
        &err, clCreateCommandQueue(d->context, d->device,
                                   d->options->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateCommandQueue(%s)", d->name);
    return APSP_OK;
}

/* The parameters of every solve unless a tight buffer cap lowers the phase-3 blocks: the
 * CPU kernels where they fit, else the work-group kernels. */
static apsp_status choose(backend_device *d, apsp_error *error) {
    apsp_status status =
        choose_params(d->options, &d->limits, d->name, &d->chosen, &d->extra_options, error);
    if (status == APSP_OK && (!d->chosen.cpu_kernels || !cpu_kernels_fit(&d->chosen)))
        use_work_group_kernels(&d->chosen);
    d->params = d->chosen;
    return status;
}

static void opencl_close(backend_device *d) {
    if (!d)
        return;
    rounds_release(d);
    layout_release(d);
    program_release(&d->kernels);
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    free(d);
}

static apsp_status opencl_open(const apsp_device_info *info, const apsp_options *options,
                               backend_device **out, apsp_error *error) {
    backend_device *d = apsp_calloc(1, sizeof *d);
    *out = NULL;
    if (!d)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening %s", info->name);
    d->options = options;
    apsp_status status = opencl_find(info->backend_index, &d->platform, &d->device, error);
    if (status == APSP_OK && !d->device)
        status = fail(error, APSP_ERR_NO_DEVICE, "OpenCL device %d (%s) is gone", info->index,
                      info->name);
    if (status == APSP_OK) {
        cl_device_string(d->device, CL_DEVICE_NAME, d->name, sizeof d->name);
        query_limits(d->device, &d->limits);
        status = create_context(d, error);
    }
    if (status == APSP_OK)
        status = choose(d, error);
    if (status == APSP_OK)
        status = program_prepare(d, error);
    if (status != APSP_OK) {
        opencl_close(d);
        return status;
    }
    *out = d;
    return APSP_OK;
}

static apsp_status opencl_store(backend_device *d, apsp_matrix *m, apsp_error *error) {
    apsp_status status = layout_store(d, m, error);
    if (status == APSP_OK)
        rounds_log_profile(d);
    return status;
}

static void opencl_unload(backend_device *d) {
    rounds_release(d);
    layout_release(d);
}

static void opencl_summarize(backend_device *d, device_summary *s) {
    snprintf(s->device, sizeof s->device, "%s", d->name);
    s->tile = d->params.tile;
    s->threads = 0;
    s->program_builds = d->builds;
    d->builds = 0;
}

const apsp_backend_impl apsp_backend_opencl = {
    .kind = APSP_BACKEND_OPENCL,
    .list = opencl_list,
    .open = opencl_open,
    .close = opencl_close,
    .plan = layout_plan,
    .load = layout_load,
    .close_pivot = rounds_close_pivot,
    .get_row_panel = rounds_get_row_panel,
    .put_row_panel = rounds_put_row_panel,
    .relax = rounds_relax,
    .wait_round = rounds_wait,
    .store = opencl_store,
    .unload = opencl_unload,
    .summarize = opencl_summarize,
};
