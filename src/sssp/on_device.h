/* Chosen sources on the solver's device (on_device.c): the batched Bellman-Ford of a backend's
 * optional `sources` part (backend/backend.h; the OpenCL backend's: src/opencl/sssp.c). */
#ifndef APSP_SSSP_ON_DEVICE_H
#define APSP_SSSP_ON_DEVICE_H

#include "backend/backend.h"
#include "sssp/on_threads.h"

typedef struct device_method {
    const backend_sources *part;
    backend_device *device;
    apsp_backend_kind kind;
    sources_run run;            /* the rows' type, and whether the device picks predecessors */
    char name[256];             /* the device's */
    sources_device_costs costs; /* for auto's cost model (method.c) */
    size_t batch;               /* sources a batch, once run */
    size_t on_host;             /* the sources handed to the host threads, once run */
    sources_device_times times;
    double overlapped; /* seconds of the outputs' idle work within the rounds */
} device_method;

/* Whether the solver's device (NULL: none; its table: device->impl) can run these sources: a
 * backend with the part, E < 2^32, rows of a type the device keeps (64-bit atomics, double),
 * integer rows of integer weights within their rule, float rows of weights none negative, and
 * predecessors only where every weight is > 0. Fills *m when it can; where the solver has such a
 * device but it cannot, why_not says why
 * ("bellman-ford on DEVICE: ..."), else "". */
int device_method_find(backend_device *device, const adjacency *graph, apsp_dtype dtype,
                       int want_pred, device_method *m, char *why_not, size_t size);

/* *m for `device` running `run`: its part, name and cost figures; 0 where the device (or NULL)
 * has no sources part. */
int device_method_of(backend_device *device, sources_run run, device_method *m);

/* The least weight of g, integer or real, as a double (+inf without edges). */
double adjacency_least_weight(const adjacency *g);

/* The sources in batches on the device, each batch's rows (and predecessors) handed to `out`
 * in order. *done: how many sources' rows were handed on; fewer than count (with APSP_OK) when
 * a batch may reach a negative cycle or has a vertex whose predecessor the device could not
 * pick: the caller's host method then runs those sources. */
apsp_status device_method_run(device_method *m, const adjacency *graph, const int32_t *sources,
                              size_t count, const apsp_options *o, const sources_out *out,
                              size_t *done, apsp_error *error);

/* The method's line for apsp_report.method and its figures for apsp_report.choice. */
void device_method_describe(const device_method *m, const char *why, apsp_report *report);

#endif
