/* The OpenCL backend's side of src/backend/backend.h: opening a device (context, queue, parameters
 * and program, kept for every solve) and the solve's steps, which the other files of this folder
 * carry out (device.h lists them).
 *
 * Statuses: a --tile that is not a power of two is APSP_ERR_USAGE, as is a buffer cap
 * (--max-buffer-bytes) below one band of one tile's rows; a tile the device cannot run
 * (work-groups or local memory over its limits) is APSP_ERR_DEVICE, like every failed OpenCL
 * call; a matrix over the device's global memory (or one band over the driver's largest
 * allocation) is APSP_ERR_TOO_LARGE where it cannot stream (stream.c: several devices, or a
 * device too small for even one tile's panels); a kernel that does not compile is
 * APSP_ERR_KERNEL_BUILD, with the options in the message and the build log sent to the log
 * function. */
#include "base/error.h"
#include "base/fault.h"
#include "opencl/blocks.h"
#include "opencl/device.h"
#include "opencl/discovery.h"
#include "opencl/program_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUP = 64 }; /* devices of one platform in one context */

/* One context for the devices of `devices` on d's platform that have none yet, so that their
 * queues can wait on each other's events; each device holds a reference. */
static apsp_status share_context(backend_device **devices, size_t count, cl_device *d,
                                 apsp_error *error) {
    cl_device_id ids[MAX_GROUP] = {0};
    cl_uint used = 0;
    for (size_t i = 0; i < count && used < MAX_GROUP; i++) {
        cl_device *other = cl_device_of(devices[i]);
        if (!other->context && other->platform == d->platform)
            ids[used++] = other->device;
    }
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    cl_context context = FAULT_CL_OBJECT(&err, clCreateContext(props, used, ids, NULL, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateContext(%s)", d->name);
    for (size_t i = 0; i < count; i++) {
        cl_device *other = cl_device_of(devices[i]);
        if (!other->context && other->platform == d->platform) {
            other->context = context;
            if (other != d)
                clRetainContext(context);
        }
    }
    return APSP_OK;
}

static apsp_status create_queues(cl_device *d, apsp_error *error) {
    cl_int err;
    /* With a profile both queues time their commands (the derivation's reads run on the copy
     * queue, predecessors.c). */
    cl_command_queue_properties props = d->options->profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    d->queue = FAULT_CL_OBJECT(&err, clCreateCommandQueue(d->context, d->device, props, &err));
    if (err == CL_SUCCESS)
        d->copy_queue =
            FAULT_CL_OBJECT(&err, clCreateCommandQueue(d->context, d->device, props, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateCommandQueue(%s)", d->name);
    return APSP_OK;
}

/* The parameters of every solve unless a tight buffer cap lowers the phase-3 blocks. */
static apsp_status choose(cl_device *d, apsp_error *error) {
    apsp_status status =
        choose_params(d->options, &d->limits, d->name, &d->chosen, &d->extra_options, error);
    d->params = d->chosen;
    return status;
}

static void opencl_drain(backend_device *device) {
    cl_device *d = cl_device_of(device);
    if (d->queue)
        clFinish(d->queue);
    if (d->copy_queue)
        clFinish(d->copy_queue);
}

/* The bands and panels of a successful in-core solve stay (backend.h: unload): creating and
 * releasing them is most of a solve's set-up (0.11 s of 1.6 GB on an H100). What else the solve
 * made (events, a streamed solve's buffers, the panels' pinned staging) goes. */
static void opencl_unload(backend_device *device, int keep) {
    cl_device *d = cl_device_of(device);
    stream_release(d);
    panels_release(d);
    rounds_release(d);
    if (!keep || !d->layout.complete)
        layout_release(d);
    d->shares = 0;
}

static void opencl_close(backend_device *device) {
    cl_device *d = cl_device_of(device);
    if (!d)
        return;
    opencl_unload(&d->base, 0);
    program_release_all(d);
    predecessors_release(d);
    batch_release(d);
    opencl_sources.release(&d->base, NULL);
    sssp_release_program(d);
    program_cache_close(d); /* the programs let go without a crash */
    negative_release(d);
    if (d->copy_queue)
        clReleaseCommandQueue(d->copy_queue);
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    free(d);
}

/* Finds the listed device again and reads what choosing parameters needs. */
static apsp_status find(const apsp_device_info *info, const apsp_options *options,
                        backend_device **out, apsp_error *error) {
    cl_device *d = apsp_calloc(1, sizeof *d);
    if (!d)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening %s", info->name);
    d->base.impl = &apsp_backend_opencl; /* the table this device carries (backend.h) */
    *out = &d->base;
    d->options = options;
    apsp_status status = opencl_find(info->backend_index, &d->platform, &d->device, error);
    if (status == APSP_OK && !d->device)
        status = fail(error, APSP_ERR_NO_DEVICE, "OpenCL device %d (%s) is gone", info->index,
                      info->name);
    if (status == APSP_OK) {
        cl_device_string(d->device, CL_DEVICE_NAME, d->name, sizeof d->name);
        query_limits(d->device, &d->limits);
        status = layout_check_host_room(d, 0, DRIVER_OPEN_BYTES, "its context and kernels", error);
    }
    return status;
}

/* Opens the devices together: each found, then a context per platform among them, then each
 * device's queues, parameters and program. */
static apsp_status open_devices(const apsp_device_info *const *infos, size_t count,
                                const apsp_options *options, const char *extra_source,
                                backend_device **out, apsp_error *error) {
    apsp_status status = APSP_OK;
    memset(out, 0, count * sizeof *out);
    for (size_t i = 0; i < count && status == APSP_OK; i++) {
        status = find(infos[i], options, &out[i], error);
        if (out[i])
            cl_device_of(out[i])->extra_source = extra_source;
    }
    for (size_t i = 0; i < count && status == APSP_OK; i++)
        if (!cl_device_of(out[i])->context)
            status = share_context(out, count, cl_device_of(out[i]), error);
    for (size_t i = 0; i < count && status == APSP_OK; i++) {
        cl_device *d = cl_device_of(out[i]);
        status = create_queues(d, error);
        if (status == APSP_OK)
            status = negative_open(d, error);
        if (status == APSP_OK)
            status = choose(d, error);
        if (status == APSP_OK)
            status = program_prepare(d, error);
    }
    if (status != APSP_OK)
        for (size_t i = 0; i < count; i++) {
            opencl_close(out[i]);
            out[i] = NULL;
        }
    return status;
}

static apsp_status opencl_open(const apsp_device_info *const *infos, size_t count,
                               const apsp_options *options, backend_device **out,
                               apsp_error *error) {
    return open_devices(infos, count, options, NULL, out, error);
}

apsp_status opencl_open_extended(const apsp_device_info *info, const apsp_options *options,
                                 const char *extra_source, cl_device **out, apsp_error *error) {
    backend_device *opened = NULL;
    apsp_status status = open_devices(&info, 1, options, extra_source, &opened, error);
    *out = cl_device_of(opened);
    return status;
}

/* Relaxations per second to share rows by: the compute units times the clock times what one
 * unit relaxes per cycle, measured: 56 on an NVIDIA Hopper multiprocessor (14.8 T relax/s on
 * 132 units at 1.98 GHz), 8 on a CPU core through PoCL (30 G relax/s at 3.7 GHz). Devices of
 * one kind get equal shares whatever the constants. */
static double opencl_speed(backend_device *device) {
    cl_device *d = cl_device_of(device);
    cl_uint units = 0, mhz = 0;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    double per_cycle = d->limits.type & CL_DEVICE_TYPE_CPU ? 8.0 : 56.0;
    return (units ? units : 1) * (mhz ? mhz : 1000) * 1e6 * per_cycle;
}

static apsp_status opencl_store(backend_device *device, apsp_matrix *m, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    apsp_status status = layout_store(d, m, error);
    if (status == APSP_OK)
        rounds_log_profile(d);
    return status;
}

static int opencl_takes_graph(backend_device *device, apsp_dtype dtype) {
    return layout_takes_graph(cl_device_of(device), dtype);
}

static apsp_status opencl_store_rows(backend_device *device, apsp_cells_fn rows, void *context,
                                     apsp_error *error) {
    cl_device *d = cl_device_of(device);
    apsp_status status = layout_store_rows(d, rows, context, error);
    if (status == APSP_OK)
        rounds_log_profile(d);
    return status;
}

static void opencl_summarize(backend_device *device, device_summary *s) {
    cl_device *d = cl_device_of(device);
    snprintf(s->device, sizeof s->device, "%s", d->name);
    s->tile = d->params.tile;
    s->threads = 0;
    s->program_builds = d->builds;
    s->on_host = (d->limits.type & CL_DEVICE_TYPE_CPU) != 0;
    d->builds = 0;
}

static const backend_device_memory opencl_device_memory = {
    .takes_graph = opencl_takes_graph,
    .load_graph = layout_load_graph,
    .store_rows = opencl_store_rows,
    .host_memory = host_memory_create,
};

static const backend_graphs opencl_graphs = {
    .most_vertices = batch_most_vertices,
    .stage = batch_stage,
    .start = batch_start,
    .finish = batch_finish,
};

static const backend_paths opencl_paths = {
    .prepare = predecessors_prepare,
    .derive = predecessors_derive,
};

const apsp_backend_impl apsp_backend_opencl = {
    .kind = APSP_BACKEND_OPENCL,
    .list = opencl_list,
    .open = opencl_open,
    .close = opencl_close,
    .plan = layout_plan,
    .prepare = layout_prepare,
    .load = layout_load,
    .set_form = program_set_form,
    .close_pivot = rounds_close_pivot,
    .speed = opencl_speed,
    .get_row_panel = panels_get,
    .put_row_panel = panels_put,
    .relax = rounds_relax,
    .wait_round = rounds_wait,
    .store = opencl_store,
    .drain = opencl_drain,
    .unload = opencl_unload,
    .summarize = opencl_summarize,
    .device_memory = &opencl_device_memory,
    .paths = &opencl_paths,
    .stream = &opencl_stream,
    .blocks = &opencl_blocks,
    .sources = &opencl_sources,
    .graphs = &opencl_graphs,
};
