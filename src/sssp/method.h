/* Which algorithm a solve over chosen sources runs: the method asked for, or auto's choice by
 * the cost model (method.c, docs/design/sources.md "Chosen sources"). */
#ifndef APSP_SSSP_METHOD_H
#define APSP_SSSP_METHOD_H

#include "apsp.h"
#include "backend/backend.h"

#include <stddef.h>

/* The graph's sizes as the choice sees them: V, E without self-loops and repeated pairs, S. */
typedef struct method_inputs {
    size_t vertices, edges, sources;
    int negative;                               /* some weight is negative */
    unsigned threads;                           /* the host threads the sparse methods run on */
    const sources_device_costs *device;         /* the device's batched Bellman-Ford (on_device.h):
                                                 * its cost figures; NULL where it cannot run */
    const sources_device_costs *johnson_device; /* Johnson on the device
                                                 * (on_device_johnson.h); NULL likewise */
    double graph_bytes; /* the CSR the device's run uploads (its predecessors' in-edges too) */
    double row_bytes;   /* a source's output: its distances and predecessors */
    int wide;           /* the distances take 8 bytes (int64, float64) */
    int fw_fits;        /* the rows' type holds the graph by its per-weight rule (base/graph.h),
                         * which Floyd-Warshall needs: int32 rows on the path bound alone leave
                         * it out of auto's choice */
} method_inputs;

/* The method to run for `asked` (APSP_METHOD_AUTO: by the cost model), with the reason and the
 * model's numbers in why (for apsp_report.method). *on_device: it runs on the device, which
 * Bellman-Ford and Johnson asked for do where the device can run them (in->device,
 * in->johnson_device), and auto's choice where the device's estimate won (auto takes
 * Bellman-Ford only there; with a negative weight the device's method is Johnson where it can
 * run). Dijkstra asked for on negative weights is refused (APSP_ERR_USAGE): it would give wrong
 * distances. */
apsp_status method_choose(apsp_method asked, const method_inputs *in, apsp_method *chosen,
                          int *on_device, char *why, size_t size, apsp_error *error);

/* The host's estimated seconds for Dijkstra from `sources` sources over a graph of `vertices` and
 * `edges` on `threads` threads (the model below, in seconds): what auto's small-work rule
 * (apsp_options.sources_hint) weighs before any device is loaded. */
double method_dijkstra_seconds(size_t vertices, size_t edges, size_t sources, unsigned threads);

#endif
