/* The distances' type of a run: --dtype's, or the narrowest the graph's weights fit (cli.h). */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The weight of the largest magnitude of an integer graph, for the message. */
static int64_t widest_weight(const apsp_graph *g) {
    int64_t widest = 0;
    uint64_t most = 0;
    for (size_t e = 0; e < g->edges; e++) {
        int64_t w = g->weight[e];
        uint64_t magnitude = w < 0 ? 0 - (uint64_t)w : (uint64_t)w;
        if (magnitude > most) {
            most = magnitude;
            widest = w;
        }
    }
    return widest;
}

/* Why the weights need the type they got. */
static void explain(cli *c, const apsp_graph *g) {
    size_t size = sizeof c->distances;
    if (!c->read.dtype_auto) {
        snprintf(c->distances, size, "%s (--dtype)", apsp_dtype_name(c->dtype));
    } else if (g->real_weight) {
        snprintf(c->distances, size, "float64: the weights are real (a fractional weight)");
    } else if (c->dtype == APSP_INT32) {
        snprintf(c->distances, size,
                 "int32: every weight w has (V - 1) * |w| < %d, so no distance can pass int32's "
                 "range",
                 APSP_INF);
    } else {
        snprintf(c->distances, size,
                 "%s: with V = %zu, weight %" PRId64 " has (V - 1) * |w| >= %d: a distance could "
                 "pass int32's range",
                 apsp_dtype_name(c->dtype), g->vertices, widest_weight(g), APSP_INF);
    }
}

apsp_status cli_pick_dtype(cli *c, const apsp_graph *g, apsp_error *err) {
    c->dtype = c->read.dtype_auto ? apsp_graph_dtype(g) : c->read.dtype;
    explain(c, g);
    apsp_format format = c->output_format ? c->output_format : apsp_format_for(c->output, 1);
    if (format != APSP_FORMAT_HW3 || c->dtype == APSP_INT32 || c->dtype == APSP_INT64)
        return APSP_OK;
    err->status = APSP_ERR_USAGE;
    snprintf(err->message, sizeof err->message,
             "%.400s: the hw3 output holds int32 distances, and these are %s (%s): name a .npy or "
             ".txt OUTPUT, or give --output-format=npy or text (see apsp --help)",
             strcmp(c->output, "-") == 0 ? "stdout" : c->output, apsp_dtype_name(c->dtype),
             c->read.dtype_auto ? "the weights are real" : "--dtype");
    return APSP_ERR_USAGE;
}
