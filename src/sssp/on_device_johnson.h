/* Johnson on the solver's device (on_device_johnson.c): the potentials by the device's
 * Bellman-Ford from a virtual vertex, the edges reweighted, the device's batched method over
 * them, and the rows' reweighting undone on the host (docs/design/sources.md, "Chosen
 * sources"). */
#ifndef APSP_SSSP_ON_DEVICE_JOHNSON_H
#define APSP_SSSP_ON_DEVICE_JOHNSON_H

#include "sssp/on_device.h"

typedef struct device_johnson {
    device_method search;         /* the batched method over the reweighted edges */
    device_method potentials;     /* Bellman-Ford from the virtual vertex, where it ran */
    const char *potentials_where; /* for the report: where and how h was computed */
    char declined[192]; /* why the search could not run on the device once h was known: the
                           host threads' Johnson ran it (the report's device_declined); "" */
    size_t on_host;     /* sources the host's Johnson ran instead */
} device_johnson;

/* Whether the solver's device can run Johnson for rows of any type: a backend with the sources
 * part, E + V < 2^32 (the virtual vertex's edges), 64-bit cells (int64 for integer weights, float64
 * for real ones: the search's type is chosen once the potentials are known) and, for
 * predecessors, every weight above 0 (a negative weight leaves some reweighted edge at 0, where
 * the device picks none). Fills j->search's device, name and costs when it can; else why_not
 * says why ("johnson on DEVICE: ...") where the solver has such a device, "" otherwise. */
int device_johnson_find(backend_device *device, const adjacency *graph, int want_pred,
                        device_johnson *j, char *why_not, size_t size);

/* Johnson's rows for the sources on the device (device_johnson_find said it can), handed to
 * `out` in order; a negative cycle refused as the host's Johnson refuses it (exit 7). Where the
 * device gives a batch up, that batch and the rest run on the host threads' Johnson. */
apsp_status device_johnson_run(device_johnson *j, const adjacency *graph, const int32_t *sources,
                               size_t count, const apsp_options *o, const sources_out *out,
                               apsp_error *error);

/* The method's line and figures for the report. */
void device_johnson_describe(const device_johnson *j, const char *why, apsp_report *report);

#endif
