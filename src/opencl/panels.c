/* The pivot-row panel between devices: out of the owner into its pinned host memory, and from
 * there into each other device, on each device's copy queue so that the transfers run beside
 * the kernels. Events order everything on the devices; the host waits only when the sender's
 * event belongs to another context (devices of different platforms), where OpenCL allows no
 * event in a wait list.
 *
 * The order, per panel pair k = r % 2 (cl_panel_sync):
 *   out (get): after the phase 2 that made the panel (sync.closed), and after every receiver
 *              took the panel of round r - 2 out of the same pinned buffer (sync.taken[k]);
 *   in (put):  after the sender's copy to host (handoff->ready) and after this device's last
 *              phase 3 that read pair k (round r - 2: sync.relaxed[k]);
 *   phase 3 of round r: after the last transfer of pair k (the panel it reads) and, on the
 *              device that holds round r + 1's pivot rows, of pair 1 - k (the panel it writes
 *              for round r + 1; elsewhere that pair's transfer in runs beside it):
 *              panels_wait_list. */
#include "base/error.h"
#include "base/fault.h"
#include "opencl/device.h"

#include <string.h>

void panels_keep(cl_event *slot, cl_event event) {
    if (*slot)
        clReleaseEvent(*slot);
    *slot = event;
}

cl_uint panels_wait_list(const cl_device *d, size_t round, int writes_next, cl_event list[2]) {
    cl_uint count = 0;
    for (size_t k = 0; k < (writes_next ? 2u : 1u); k++)
        if (d->sync.copied[(round + k) % 2])
            list[count++] = d->sync.copied[(round + k) % 2];
    return count;
}

static size_t panel_bytes(const cl_device *d) {
    return d->layout.geometry.tile * d->layout.geometry.n * layout_cell_bytes(d);
}

/* The pinned host buffer of pair k, made on first use. */
static apsp_status staging_for(cl_device *d, size_t k, apsp_error *error) {
    cl_panel_sync *s = &d->sync;
    if (s->staging_host[k])
        return APSP_OK;
    cl_int err;
    s->staging[k] =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                             panel_bytes(d), NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(pinned panel)");
    s->staging_host[k] = FAULT_CL_OBJECT(
        &err, clEnqueueMapBuffer(d->copy_queue, s->staging[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                 0, panel_bytes(d), 0, NULL, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned panel)");
    return APSP_OK;
}

/* What the copy out of staging k waits for: the phase 2 that made the panel, and the receivers
 * of the panel before in the same buffer (on the host for those of another context). Their
 * events are released. Returns the count, or -1 when a host wait failed. */
static int wait_list_out(cl_device *d, size_t k, cl_event list[MAX_RECEIVERS + 1]) {
    cl_panel_sync *s = &d->sync;
    int count = 0, failed = 0;
    if (s->closed)
        list[count++] = s->closed;
    for (size_t i = 0; i < s->taken_count[k]; i++) {
        if (!s->foreign[k][i]) {
            list[count++] = s->taken[k][i];
            continue;
        }
        failed |= FAULT_CL_STATUS(clWaitForEvents(1, &s->taken[k][i])) != CL_SUCCESS;
        clReleaseEvent(s->taken[k][i]);
    }
    return failed ? -1 : count;
}

static void release_taken(cl_panel_sync *s, size_t k) {
    for (size_t i = 0; i < s->taken_count[k]; i++)
        if (!s->foreign[k][i])
            clReleaseEvent(s->taken[k][i]);
    s->taken_count[k] = 0;
}

apsp_status panels_get(backend_device *device, size_t round, panel_handoff *h, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const size_t k = round % 2;
    apsp_status status = staging_for(d, k, error);
    if (status != APSP_OK)
        return status;
    cl_event done, waits[MAX_RECEIVERS + 1];
    int count = wait_list_out(d, k, waits);
    cl_int err = count < 0 ? CL_OUT_OF_RESOURCES
                           : FAULT_CL_STATUS(clEnqueueReadBuffer(
                                 d->copy_queue, d->layout.row_panel[k], CL_FALSE, 0, panel_bytes(d),
                                 d->sync.staging_host[k], (cl_uint)(count > 0 ? count : 0),
                                 count > 0 ? waits : NULL, &done));
    release_taken(&d->sync, k);
    if (err == CL_SUCCESS)
        err = clFlush(d->copy_queue);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "reading the row panel of round %zu", round);
    panels_keep(&d->sync.copied[k], done);
    *h = (panel_handoff){.host = d->sync.staging_host[k], .ready = done, .sender = &d->base};
    return APSP_OK;
}

apsp_status panels_put(backend_device *device, size_t round, const panel_handoff *h,
                       apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const size_t k = round % 2;
    cl_device *sender = cl_device_of(h->sender);
    cl_event ready = h->ready, waits[2];
    cl_uint count = 0;
    cl_int err = CL_SUCCESS;
    if (ready && sender->context == d->context)
        waits[count++] = ready;
    else if (ready)
        err = FAULT_CL_STATUS(clWaitForEvents(1, &ready)); /* another platform's event */
    if (d->sync.relaxed[k])
        waits[count++] = d->sync.relaxed[k];
    cl_event done = NULL;
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueWriteBuffer(d->copy_queue, d->layout.row_panel[k], CL_FALSE,
                                                   0, panel_bytes(d), h->host, count,
                                                   count ? waits : NULL, &done));
    if (err == CL_SUCCESS)
        err = clFlush(d->copy_queue);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "writing the row panel of round %zu", round);
    panels_keep(&d->sync.copied[k], done);
    /* The sender's next panel into the same pinned buffer waits until this copy is done. */
    cl_panel_sync *s = &sender->sync;
    if (s->taken_count[k] < MAX_RECEIVERS && clRetainEvent(done) == CL_SUCCESS) {
        s->foreign[k][s->taken_count[k]] = sender->context != d->context;
        s->taken[k][s->taken_count[k]++] = done;
    }
    return APSP_OK;
}

void panels_release(cl_device *d) {
    cl_panel_sync *s = &d->sync;
    if (d->copy_queue)
        clFinish(d->copy_queue);
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < s->taken_count[k]; i++)
            clReleaseEvent(s->taken[k][i]);
        s->taken_count[k] = 0;
        panels_keep(&s->copied[k], NULL);
        panels_keep(&s->relaxed[k], NULL);
        if (s->staging_host[k])
            clEnqueueUnmapMemObject(d->copy_queue, s->staging[k], s->staging_host[k], 0, NULL,
                                    NULL);
        if (s->staging[k])
            clReleaseMemObject(s->staging[k]);
    }
    panels_keep(&s->closed, NULL);
    if (d->copy_queue)
        clFinish(d->copy_queue);
    memset(s, 0, sizeof *s);
}
