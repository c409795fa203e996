/* Auto's cost model for chosen sources (method.h); the methods' names are in base/names.c. */
#include "sssp/method.h"
#include "base/error.h"
#include "base/memory_room.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* How many of Floyd-Warshall's relaxations (the blocked, vectorised kernels) take the time of
 * one step of Dijkstra (one of its S (E + V) log2 V); measured on the 2-core development machine
 * (docs/performance.md, "Chosen sources"): the pthread backend at 27.6 G relax/s, Dijkstra at
 * 0.76 G steps/s on a random graph (V = 3000, E = 10 V; 36) and 1.4 on the 1000 x 1000 grid
 * (20), both on 2 threads. */
#define FW_RELAXATIONS_PER_DIJKSTRA_STEP 32.0

/* The pthread backend's Floyd-Warshall relaxations per second per thread (27.6 G on 2 threads,
 * above): the rate that turns the device's seconds into the model's unit for this host. */
#define FW_RELAXATIONS_PER_THREAD_SECOND 13.8e9

/* The row writer's bytes per second (a source's distances and predecessors to the output file),
 * which every method pays alike: NOT YET MEASURED, a placeholder of the right order for .npy on
 * a local disk; tests/gpu/sssp.sh's whole_s minus compute_s on its cases fits it. */
#define WRITE_BYTES_PER_SECOND 1e9

/* The model's estimates, in Floyd-Warshall relaxations: Floyd-Warshall V^3 whatever S is;
 * Dijkstra S (E + V) log2 V steps; Johnson that plus its Bellman-Ford for the potentials,
 * counted as E log2 V steps (a few rounds over the edges on the graphs met so far: its worst
 * case, V E, is rare); the device's batched Bellman-Ford by its parts (backend.h:
 * sources_device_costs: fixed, upload, S E relaxed, download), at what the host's threads relax
 * in that time (the device's rate does not grow with them); Johnson on the device that plus its
 * potentials, one source's plain rounds counted as E log2 V relaxed; and the rows' write, the
 * same for every method, so that the estimates are of the whole run. */
typedef struct method_costs {
    double fw, dijkstra, potentials, device, johnson_device, write;
    double up, relax, down; /* the device's parts, in seconds (for the report) */
} method_costs;

/* log2 V rounded up, at least 1 (the library links no maths library). */
static double log2_ceiling(size_t v) {
    double bits = 1.0;
    for (size_t x = v - (v > 0); x > 1; x >>= 1)
        bits += 1.0;
    return bits;
}

/* Dijkstra's S (E + V) log2 V steps, in Floyd-Warshall relaxations. */
static double dijkstra_relaxations(size_t vertices, size_t edges, size_t sources) {
    return FW_RELAXATIONS_PER_DIJKSTRA_STEP * (double)sources * ((double)edges + (double)vertices) *
           log2_ceiling(vertices);
}

double method_dijkstra_seconds(size_t vertices, size_t edges, size_t sources, unsigned threads) {
    return dijkstra_relaxations(vertices, edges, sources) /
           (FW_RELAXATIONS_PER_THREAD_SECOND * (threads ? threads : 1));
}

static method_costs estimate(const method_inputs *in) {
    double v = (double)in->vertices, e = (double)in->edges, s = (double)in->sources;
    double log_v = log2_ceiling(in->vertices);
    double host_rate = FW_RELAXATIONS_PER_THREAD_SECOND * (in->threads ? in->threads : 1);
    method_costs c = {.fw = v * v * v,
                      .dijkstra = dijkstra_relaxations(in->vertices, in->edges, in->sources),
                      .potentials = FW_RELAXATIONS_PER_DIJKSTRA_STEP * e * log_v,
                      .write = s * in->row_bytes / WRITE_BYTES_PER_SECOND * host_rate};
    const sources_device_costs *d = in->device ? in->device : in->johnson_device;
    if (d) {
        c.up = in->graph_bytes / d->upload_bytes_per_second;
        c.relax = s * e / (d->source_edges_per_second * (in->wide ? d->wide_share : 1.0));
        c.down = s * in->row_bytes / d->download_bytes_per_second;
        c.device = (d->fixed_seconds + c.up + c.relax + c.down) * host_rate;
    }
    if (in->johnson_device)
        c.johnson_device = c.device + e * log_v / d->source_edges_per_second * host_rate;
    return c;
}

/* A dense graph with every source goes to Floyd-Warshall whatever the estimates say. */
static int dense_with_every_source(const method_inputs *in) {
    double v = (double)in->vertices;
    return in->sources >= in->vertices && (double)in->edges >= v * v / 8.0;
}

/* Whether the V x V int32 matrix of Floyd-Warshall takes at most half of the host's memory
 * (the machine's size: a matrix larger than that is a poor choice however much is free), and
 * fits what is free now: auto never picks the method that would be refused for memory when a
 * sparse one can run (memory_room.h). */
static int matrix_fits(const method_inputs *in) {
    double bytes = 4.0 * (double)in->vertices * (double)in->vertices;
    memory_room room; /* read once for both */
    memory_room_now(&room);
    uint64_t memory = physical_memory_said_in(&room, NULL, 0);
    if (memory != 0 && bytes > 0.5 * (double)memory)
        return 0;
    return bytes < MEMORY_ROOM_LEAST ||
           memory_room_check_in(&room, bytes < 0x1p64 ? (uint64_t)bytes : UINT64_MAX, "", NULL) ==
               APSP_OK;
}

/* The cheaper of the host's sparse method and the device's (Johnson where a weight is negative
 * and it can run there: its search delta-steps, where Bellman-Ford's plain rounds on negative
 * weights do not, which the model does not see; else Bellman-Ford), and Floyd-Warshall where it
 * is cheaper still and its matrix fits. *on_device: the device's method won. */
static apsp_method auto_choice(const method_inputs *in, const method_costs *c, int *on_device) {
    apsp_method sparse_method = in->negative ? APSP_METHOD_JOHNSON : APSP_METHOD_DIJKSTRA;
    double sparse = in->negative ? c->dijkstra + c->potentials : c->dijkstra;
    int johnson = in->negative && in->johnson_device;
    double device = johnson ? c->johnson_device : c->device;
    if ((johnson || in->device) && device < sparse) {
        sparse_method = johnson ? APSP_METHOD_JOHNSON : APSP_METHOD_BELLMAN_FORD;
        sparse = device;
        *on_device = 1;
    }
    if (!in->fw_fits || !matrix_fits(in))
        return sparse_method;
    if (!dense_with_every_source(in) && c->fw > sparse)
        return sparse_method;
    *on_device = 0;
    return APSP_METHOD_FW;
}

apsp_status method_choose(apsp_method asked, const method_inputs *in, apsp_method *chosen,
                          int *on_device, char *why, size_t size, apsp_error *error) {
    if (strcmp(apsp_method_name(asked), "unknown") == 0) /* (names.c: past its list) */
        return fail(error, APSP_ERR_USAGE, "method %d is not an apsp_method", (int)asked);
    if (asked == APSP_METHOD_DIJKSTRA && in->negative)
        return fail(error, APSP_ERR_USAGE,
                    "dijkstra needs non-negative weights and this graph has a negative one: "
                    "use johnson, bellman-ford or fw");
    method_costs c = estimate(in);
    *on_device = (asked == APSP_METHOD_BELLMAN_FORD && in->device) ||
                 (asked == APSP_METHOD_JOHNSON && in->johnson_device);
    *chosen = asked == APSP_METHOD_AUTO ? auto_choice(in, &c, on_device) : asked;
    char device[192] = "";
    const sources_device_costs *d = in->device ? in->device : in->johnson_device;
    if (d)
        snprintf(device, sizeof device,
                 ", device: (%g s fixed + %.3g s up + %.3g s S E + %.3g s down) x %u threads' "
                 "rate = %.3g%s",
                 d->fixed_seconds, c.up, c.relax, c.down, in->threads ? in->threads : 1,
                 in->johnson_device && in->negative ? c.johnson_device : c.device,
                 in->johnson_device && in->negative ? " (johnson: with its potentials)" : "");
    snprintf(why, size,
             "%s (%s): V = %zu, E = %zu, S = %zu%s; cost model in FW relaxations: dijkstra: "
             "%g S (E + V) log2 V = %.3g%s, fw: V^3 = %.3g%s%s; each + the rows' write %.3g",
             apsp_method_name(*chosen), asked == APSP_METHOD_AUTO ? "auto" : "asked for",
             in->vertices, in->edges, in->sources, in->negative ? ", negative weights" : "",
             FW_RELAXATIONS_PER_DIJKSTRA_STEP, c.dijkstra,
             in->negative ? " + potentials (E log2 V steps)" : "", c.fw,
             dense_with_every_source(in) ? " (dense, every source: fw)" : "", device, c.write);
    return APSP_OK;
}
