/* The rounds on an OpenCL device: the kernels of each phase enqueued on the device's one
 * in-order queue, the pivot-row panel handed out and taken in, and the events that say when a
 * round is done. Phase 3 also writes the next round's panels, so nothing is copied between
 * rounds (cl/fw.cl says why the pivot column needs no phase 2 of its own). */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "opencl/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- profiling (options->profile) ----------------------------------------------------------- */

/* Where the next command of step `kind` puts its event: NULL unless profiling (or when the
 * event table cannot grow, which only loses that command's time). */
static cl_event *step_event(cl_device *d, int kind) {
    cl_profile *p = &d->profile;
    if (!d->options->profile)
        return NULL;
    return cl_event_slot(&p->events, &p->kinds, &p->count, &p->capacity, kind);
}

/* Waits for the round's commands and adds their device times to the steps' sums. */
static apsp_status collect_steps(cl_device *d, apsp_error *error) {
    cl_profile *p = &d->profile;
    cl_int err = FAULT_CL_STATUS(clFinish(d->queue));
    for (size_t k = 0; k < p->count; k++) {
        cl_ulong start = 0, end = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(p->events[k], CL_PROFILING_COMMAND_START, sizeof start,
                                          &start, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(p->events[k], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                          NULL);
        if (err == CL_SUCCESS)
            p->seconds[p->kinds[k]] += 1e-9 * (double)(end - start);
        clReleaseEvent(p->events[k]);
    }
    p->count = 0;
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "profiling a round");
    return APSP_OK;
}

/* ---- the phases ------------------------------------------------------------------------------ */

/* One kernel launch: global and local sizes, an offset (or NULL), the events it waits for. */
typedef struct launch {
    const size_t *global, *local, *offset;
    cl_uint waits;
    const cl_event *wait_list;
} launch;

static apsp_status enqueue_launch(cl_device *d, cl_kernel kernel, const launch *l, cl_event *event,
                                  const char *what, size_t round, apsp_error *error) {
    cl_int err =
        FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, kernel, 2, l->offset, l->global, l->local,
                                               l->waits, l->waits ? l->wait_list : NULL, event));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err,
                                       "clEnqueueNDRangeKernel(%s, round %zu)", what, round);
}

static apsp_status enqueue(cl_device *d, cl_kernel kernel, const size_t *global,
                           const size_t *local, cl_event *event, const char *what, size_t round,
                           apsp_error *error) {
    launch l = {.global = global, .local = local};
    return enqueue_launch(d, kernel, &l, event, what, round, error);
}

/* Round r's panels from the bands (in core, round 0's; the later rounds' come from phase 3; a
 * streamed super-round's first): the pivot rows, when the device holds them, and the pivot
 * columns of its rows, transposed by fw_transpose. */
apsp_status rounds_first_panels(cl_device *d, size_t round, apsp_error *error) {
    const cl_layout *l = &d->layout;
    const size_t tile = l->geometry.tile, row_bytes = l->geometry.n * layout_cell_bytes(d);
    const size_t pivot = round * tile;
    const cl_band *pivot_band = layout_band_of(&d->layout, pivot);
    if (pivot_band) {
        cl_int err = FAULT_CL_STATUS(
            clEnqueueCopyBuffer(d->queue, pivot_band->buffer, l->row_panel[round % 2],
                                (pivot - pivot_band->row0) * row_bytes, 0, tile * row_bytes, 0,
                                NULL, step_event(d, STEP_ROW_PANEL)));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueCopyBuffer(row panel)");
    }
    const size_t edge = (size_t)copy_edge(&d->params);
    size_t copy_local[2] = {edge, edge};
    cl_int n = (cl_int)l->geometry.n;
    cl_ulong pivot_column = pivot;
    cl_kernel k = d->kernels.transpose;
    SET_ARG(k, "col_panel", 1, pivot_column);
    SET_ARG(k, "col_panel", 2, n);
    SET_ARG(k, "col_panel", 3, l->col_panel[round % 2]);
    SET_ARG(k, "col_panel", 5, n);
    for (size_t b = 0; b < l->band_count; b++) {
        cl_ulong row0 = l->bands[b].row0; /* the band's rows' place in the panel */
        SET_ARG(k, "col_panel", 0, l->bands[b].buffer);
        SET_ARG(k, "col_panel", 4, row0);
        size_t global[2] = {l->bands[b].rows, tile};
        apsp_status status = enqueue(d, k, global, copy_local, step_event(d, STEP_COL_PANEL),
                                     "col_panel", round, error);
        if (status != APSP_OK)
            return status;
    }
    return APSP_OK;
}

/* Phase 1 closes the pivot block (into both panels); phase 2, one launch, the pivot row blocks
 * in the row panel. */
apsp_status rounds_close_pivot(backend_device *device, size_t round, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const kernel_params *p = &d->params;
    const cl_layout *l = &d->layout;
    cl_mem row_panel = l->row_panel[round % 2], col_panel = l->col_panel[round % 2];
    cl_int n = (cl_int)l->geometry.n, r = (cl_int)round;
    cl_kernel phase1 = d->kernels.phase1, phase2 = d->kernels.phase2;
    SET_ARG(phase1, "phase1", 0, row_panel);
    SET_ARG(phase1, "phase1", 1, col_panel);
    SET_ARG(phase1, "phase1", 2, n);
    SET_ARG(phase1, "phase1", 3, r);
    SET_ARG(phase1, "phase1", 4, d->cycle);
    size_t pivot_local[2] = {(size_t)p->pivot_items, (size_t)p->pivot_items};
    apsp_status status = enqueue(d, phase1, pivot_local, pivot_local, step_event(d, STEP_PHASE1),
                                 "phase1", round, error);
    if (status != APSP_OK)
        return status;

    SET_ARG(phase2, "phase2", 0, row_panel);
    SET_ARG(phase2, "phase2", 1, col_panel);
    SET_ARG(phase2, "phase2", 2, n);
    SET_ARG(phase2, "phase2", 3, r);
    const size_t blocks = l->geometry.n / l->geometry.tile;
    size_t group_global[2] = {(size_t)(p->pivot_items * p->pivot_split) * blocks,
                              (size_t)p->pivot_items};
    size_t cpu_global[2] = {l->geometry.n / CPU_COLS, 1}, cpu_local[2] = {1, 1}; /* slabs */
    /* A device that shares the solve hands this panel out after phase 2: keep its event. */
    cl_event closed = NULL, *event = step_event(d, STEP_PHASE2);
    status = enqueue(d, phase2, p->cpu_kernels ? cpu_global : group_global,
                     p->cpu_kernels ? cpu_local : pivot_local,
                     event       ? event
                     : d->shares ? &closed
                                 : NULL,
                     "phase2", round, error);
    if (status == APSP_OK && d->shares && event && clRetainEvent(*event) == CL_SUCCESS)
        closed = *event;
    if (closed)
        panels_keep(&d->sync.closed, closed);
    return status;
}

/* The event slot of round r's last command; any older event there is released. */
static cl_event *round_slot(cl_device *d, size_t round) {
    cl_event *slot = &d->round_done[round % ROUND_EVENTS];
    if (*slot)
        clReleaseEvent(*slot);
    *slot = NULL;
    return slot;
}

/* Phase 3 over the rows of `band` within [row_begin, row_end). A part of a band (the
 * look-ahead of several devices) is launched on a sub-buffer that starts at its first row:
 * fw_phase3 counts its blocks from the group id, which a launch offset would leave out, and the
 * plain group id is the fastest index on NVIDIA (a global-offset form cost 0.3 %). Its origin,
 * whole row units of n ints, is aligned far beyond any device's base-address alignment. */
static apsp_status relax_band(cl_device *d, size_t round, const cl_band *band, size_t row_begin,
                              size_t row_end, const launch *waits, cl_event *event,
                              apsp_error *error) {
    const kernel_params *p = &d->params;
    const size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
    const size_t block_cols = (size_t)(p->group_cols * p->thread_cols);
    const size_t row_bytes = d->layout.geometry.n * layout_cell_bytes(d);
    size_t begin = row_begin > band->row0 ? row_begin - band->row0 : 0;
    size_t end = row_end < band->row0 + band->rows ? row_end - band->row0 : band->rows;
    cl_mem rows = band->buffer, part = NULL;
    cl_int err = CL_SUCCESS;
    if (begin > 0 || end < band->rows) {
        cl_buffer_region region = {begin * row_bytes, (end - begin) * row_bytes};
        rows = part =
            FAULT_CL_OBJECT(&err, clCreateSubBuffer(band->buffer, CL_MEM_READ_WRITE,
                                                    CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateSubBuffer(rows %zu-%zu)",
                           band->row0 + begin, band->row0 + end - 1);
    }
    cl_int row0 = (cl_int)(band->row0 + begin);
    err = clSetKernelArg(d->kernels.phase3, 0, sizeof rows, &rows);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(d->kernels.phase3, 4, sizeof row0, &row0);
    size_t local[2] = {(size_t)p->group_cols, (size_t)p->group_rows};
    size_t global[2] = {d->layout.geometry.n / block_cols * local[0],
                        (end - begin) / block_rows * local[1]};
    launch l = {global, local, NULL, waits->waits, waits->wait_list};
    apsp_status status =
        err == CL_SUCCESS ? enqueue_launch(d, d->kernels.phase3, &l, event, "phase3", round, error)
                          : cl_fail(error, APSP_ERR_DEVICE, err, "clSetKernelArg(phase3)");
    if (part) /* the queued launch keeps it alive */
        clReleaseMemObject(part);
    return status;
}

/* After the round's launches: its last event (one reference of ours) goes where it is waited for
 * (progress, the panel transfers of a shared solve); the queue is flushed, or with a profile
 * drained. */
static apsp_status finish_relax(cl_device *d, size_t round, cl_event last, apsp_error *error) {
    if (last && d->options->progress && clRetainEvent(last) == CL_SUCCESS)
        *round_slot(d, round) = last;
    if (last && d->shares && clRetainEvent(last) == CL_SUCCESS)
        panels_keep(&d->sync.relaxed[round % 2], last);
    if (last)
        clReleaseEvent(last);
    if (d->options->profile)
        return collect_steps(d, error);
    cl_int err = clFlush(d->queue);
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(round %zu)", round);
}

/* Phase 3, once per band that meets [row_begin, row_end): the band against the panels, which
 * also writes the next round's panels. */
apsp_status rounds_relax(backend_device *device, size_t round, size_t row_begin, size_t row_end,
                         apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const cl_layout *l = &d->layout;
    const size_t rounds = l->geometry.n / l->geometry.tile;
    cl_int n = (cl_int)l->geometry.n;
    cl_int next = round + 1 < rounds ? (cl_int)((round + 1) * l->geometry.tile) : -1;
    cl_kernel phase3 = d->kernels.phase3;
    SET_ARG(phase3, "phase3", 1, l->col_panel[round % 2]);
    SET_ARG(phase3, "phase3", 2, l->row_panel[round % 2]);
    SET_ARG(phase3, "phase3", 3, n);
    SET_ARG(phase3, "phase3", 5, l->col_panel[(round + 1) % 2]);
    SET_ARG(phase3, "phase3", 6, l->row_panel[(round + 1) % 2]);
    SET_ARG(phase3, "phase3", 7, next);
    /* Events only where someone waits: creating one costs a little every round. */
    const int want_event = d->options->progress || d->shares;
    cl_event wait_list[2], last = NULL;
    const int writes_next = next >= 0 && (size_t)next >= l->row_begin && (size_t)next < l->row_end;
    launch waits = {.waits = panels_wait_list(d, round, writes_next, wait_list),
                    .wait_list = wait_list};
    apsp_status status = APSP_OK;
    for (size_t b = 0; b < l->band_count && status == APSP_OK; b++) {
        const cl_band *band = &l->bands[b];
        if (band->row0 >= row_end || band->row0 + band->rows <= row_begin)
            continue;
        cl_event *profiled = step_event(d, STEP_PHASE3), event = NULL;
        status = relax_band(d, round, band, row_begin, row_end, &waits,
                            profiled     ? profiled
                            : want_event ? &event
                                         : NULL,
                            error);
        if (status == APSP_OK && profiled && clRetainEvent(*profiled) == CL_SUCCESS)
            event = *profiled; /* one reference of our own, as for the others */
        if (event) {
            if (last)
                clReleaseEvent(last);
            last = event;
        }
        waits.waits = 0; /* the queue is in order */
    }
    if (status != APSP_OK) {
        if (last)
            clReleaseEvent(last);
        return status;
    }
    return finish_relax(d, round, last, error);
}

/* ---- panels in and out, waiting ------------------------------------------------------------ */

/* Waits for round r's last command if its event is still kept, else for everything. */
apsp_status rounds_wait(backend_device *device, size_t round, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_event event = d->round_done[round % ROUND_EVENTS];
    cl_int err = FAULT_CL_STATUS(event ? clWaitForEvents(1, &event) : clFinish(d->queue));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "waiting for round %zu", round);
}

void rounds_log_profile(const cl_device *d) {
    const cl_profile *p = &d->profile;
    if (d->options->profile)
        log_message(d->options, APSP_LOG_INFO,
                    "profile, device seconds per step over %zu rounds: row panel %.4f, col panel "
                    "%.4f, phase 1 %.4f, phase 2 %.4f, phase 3 %.4f",
                    d->layout.geometry.n / d->layout.geometry.tile, p->seconds[STEP_ROW_PANEL],
                    p->seconds[STEP_COL_PANEL], p->seconds[STEP_PHASE1], p->seconds[STEP_PHASE2],
                    p->seconds[STEP_PHASE3]);
}

/* Lets go of the events. */
void rounds_release(cl_device *d) {
    cl_profile *p = &d->profile;
    for (size_t k = 0; k < p->count; k++)
        clReleaseEvent(p->events[k]);
    free(p->events);
    free(p->kinds);
    memset(p, 0, sizeof *p);
    for (size_t k = 0; k < ROUND_EVENTS; k++)
        if (d->round_done[k])
            clReleaseEvent(d->round_done[k]);
    memset(d->round_done, 0, sizeof d->round_done);
}
