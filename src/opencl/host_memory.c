/* Host matrices in pinned memory (apsp_solver_matrix_create): a CL_MEM_ALLOC_HOST_PTR buffer of
 * the device's context, mapped for the host once for the matrix's life. NVIDIA's driver backs
 * such a buffer with page-locked memory and recognises pointers into it, so the layout's
 * clEnqueueWriteBufferRect and clEnqueueReadBufferRect from and to the matrix (layout.c) go by
 * DMA at the bus's speed (25-55 GB/s on the H100 hosts against 5 GB/s from pageable memory) with
 * no other change; PoCL's is ordinary memory.
 *
 * The matrix keeps its own references (the buffer, and a queue, which keeps the context), so
 * that it may outlive the solver: destroying it unmaps and releases them. */
#include "base/error.h"
#include "base/fault.h"
#include "base/matrix.h"
#include "opencl/device.h"

#include <stdint.h>
#include <stdlib.h>

/* The layout's rows and the kernels assume cells aligned as the heap's matrices are. */
enum { CELLS_ALIGN = 64 };

typedef struct pinned_matrix {
    struct apsp_matrix_owner owner; /* first: the matrix's owner pointer is this record's */
    cl_command_queue queue;         /* retained: the unmap's, after the solver is gone */
    cl_mem buffer;
    void *host; /* the mapping, or NULL */
} pinned_matrix;

static void release_pinned(struct apsp_matrix_owner *owner) {
    pinned_matrix *p = (pinned_matrix *)owner;
    if (p->host) {
        cl_event unmapped = NULL;
        if (clEnqueueUnmapMemObject(p->queue, p->buffer, p->host, 0, NULL, &unmapped) ==
                CL_SUCCESS &&
            unmapped) {
            clWaitForEvents(1, &unmapped);
            clReleaseEvent(unmapped);
        }
    }
    if (p->buffer)
        clReleaseMemObject(p->buffer);
    if (p->queue)
        clReleaseCommandQueue(p->queue);
    free(p);
}

apsp_status host_memory_create(backend_device *device, size_t bytes, void **cells,
                               struct apsp_matrix_owner **owner, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    *cells = NULL;
    *owner = NULL;
    /* One buffer holds the matrix: a larger one the driver refuses is ordinary memory. */
    if (bytes > d->limits.max_allocation)
        return APSP_OK;
    pinned_matrix *p = apsp_calloc(1, sizeof *p);
    if (!p)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a pinned matrix's record");
    p->owner.release = release_pinned;
    clRetainCommandQueue(d->queue);
    p->queue = d->queue;
    cl_int err;
    p->buffer =
        FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                             bytes, NULL, &err));
    if (err != CL_SUCCESS) {
        release_pinned(&p->owner);
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(pinned matrix of %zu bytes)",
                       bytes);
    }
    p->host = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(d->queue, p->buffer, CL_TRUE,
                                                       CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                                       NULL, NULL, &err));
    if (err != CL_SUCCESS) {
        p->host = NULL;
        release_pinned(&p->owner);
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned matrix)");
    }
    if ((uintptr_t)p->host % CELLS_ALIGN) { /* no driver we know maps it so: the heap's then */
        release_pinned(&p->owner);
        return APSP_OK;
    }
    *cells = p->host;
    *owner = &p->owner;
    return APSP_OK;
}
