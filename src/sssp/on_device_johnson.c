/* Johnson on the solver's device (on_device_johnson.h). The potentials h are the distances from
 * a virtual vertex joined to every vertex by 0-weight edges: for integer weights the device's
 * Bellman-Ford computes them, as one source (vertex V) of the graph with that vertex added; a
 * batch it gives up (a negative cycle may be reachable) goes to the host's potentials, which
 * name a vertex on the cycle as the host's Johnson does, or find none and compute h. Real
 * weights take the host's Bellman-Ford: the device's float cells order only non-negative
 * floats (cl/sssp.cl), and h is mostly negative. The edges reweighted, w' = w + h(u) - h(t)
 * >= 0, go to the device's batched method (delta-stepping, no negative weight), and each row
 * comes back as d(s, t) = d'(s, t) - h(s) + h(t), formed on the host in the rows' way.
 *
 * The search's cells: integer weights are summed exactly, in int32 where the sum of the V - 1
 * largest w' is at most APSP_INF - 1 (each value the rounds store is a simple path's length,
 * and one more weight stays below 2^31), else in int64 where that sum is at most APSP_INF64 - 1;
 * d' - h(s) + h(t) is formed in int64, where d' < 2^62 and |h| is a simple path's length, within
 * int64's rule of the graph's check, and the result, a distance, holds in the rows' type by that
 * check. Real weights are summed in float64 whatever the rows' type (float32 rows are the
 * float64 result rounded once), since d' - h(s) + h(t) cancels: float32 sums of d' would leave
 * an error of d''s size, not d's. */
#include "sssp/on_device_johnson.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/parallel.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int device_johnson_find(backend_device *device, const adjacency *graph, int want_pred,
                        device_johnson *j, char *why_not, size_t size) {
    why_not[0] = '\0';
    *j = (device_johnson){.potentials_where = ""};
    apsp_dtype cells = graph->real ? APSP_FLOAT64 : APSP_INT64;
    size_t v = graph->vertices;
    if (v == 0 || !device_method_of(device, (sources_run){cells, want_pred}, &j->search))
        return 0;
    const char *reason = j->search.part->declines(device, cells);
    if (!reason && graph->start[v] + v >= UINT32_MAX)
        reason = "it indexes fewer than 2^32 edges, the virtual vertex's included";
    if (!reason && want_pred && adjacency_least_weight(graph) <= 0)
        reason = "it picks predecessors only where every weight is above 0 (with a negative "
                 "one, some reweighted edge is 0)";
    if (reason)
        snprintf(why_not, size, "johnson on %.60s: %s", j->search.name, reason);
    return reason == NULL;
}

/* g with vertex V added, joined to every vertex by a 0-weight edge (integer weights). */
static apsp_status with_virtual_vertex(const adjacency *g, adjacency *a, apsp_error *error) {
    size_t v = g->vertices, e = g->start[v];
    *a = (adjacency){.vertices = v + 1};
    a->start = apsp_malloc((v + 2) * sizeof *a->start);
    a->other = apsp_malloc((e + v) * sizeof *a->other);
    a->weight = apsp_malloc((e + v) * sizeof *a->weight);
    if (!a->start || !a->other || !a->weight)
        return fail(error, APSP_ERR_NO_MEMORY, "johnson: out of memory for %zu edges", e + v);
    memcpy(a->start, g->start, (v + 1) * sizeof *a->start);
    memcpy(a->other, g->other, e * sizeof *a->other);
    memcpy(a->weight, g->weight, e * sizeof *a->weight);
    for (size_t t = 0; t < v; t++)
        a->other[e + t] = (int32_t)t, a->weight[e + t] = 0;
    a->start[v + 1] = e + v;
    return APSP_OK;
}

/* The potentials' row off the device (one source: vertex V, which reaches every vertex), of
 * int32 or int64 cells, into h. */
typedef struct potentials_row {
    int64_t *h;
    size_t vertices;
    apsp_dtype cells;
} potentials_row;

static apsp_status take_potentials(void *context, size_t first_row, size_t count, const void *rows,
                                   size_t pitch, apsp_error *error) {
    (void)first_row, (void)count, (void)pitch, (void)error;
    const potentials_row *p = context;
    for (size_t t = 0; t < p->vertices; t++)
        p->h[t] = p->cells == APSP_INT32 ? ((const int32_t *)rows)[t] : ((const int64_t *)rows)[t];
    return APSP_OK;
}

/* Bellman-Ford from the virtual vertex on the device, in int32 cells where the graph with it
 * keeps int32's rule, else int64. *ran: it ran to the end and h is filled (0: the device gave
 * the batch up, or could not take it). */
static apsp_status potentials_on_device(device_johnson *j, const adjacency *g,
                                        const apsp_options *o, int64_t *h, int *ran,
                                        apsp_error *error) {
    adjacency a;
    apsp_status status = with_virtual_vertex(g, &a, error);
    char why_not[192];
    backend_device *device = j->search.device;
    size_t done = 0;
    if (status == APSP_OK &&
        (device_method_find(device, &a, APSP_INT32, 0, &j->potentials, why_not, sizeof why_not) ||
         device_method_find(device, &a, APSP_INT64, 0, &j->potentials, why_not, sizeof why_not))) {
        apsp_options quiet = *o; /* (one source: no progress of its own) */
        quiet.progress = NULL;
        int32_t source = (int32_t)g->vertices;
        potentials_row into = {h, g->vertices, j->potentials.run.dtype};
        sources_out to = {.dtype = into.cells, .rows = take_potentials, .context = &into};
        status = device_method_run(&j->potentials, &a, &source, 1, &quiet, &to, &done, error);
    }
    adjacency_free(&a);
    *ran = done == 1;
    /* the graph with the virtual vertex's V edges did not fit (--device-memory) where the
     * search may: the host's potentials instead */
    return status == APSP_ERR_TOO_LARGE ? APSP_OK : status;
}

/* h into `h` (calloc'd: 0 where no weight is negative), and where it was computed. */
static apsp_status potentials(device_johnson *j, const adjacency *g, const apsp_options *o, void *h,
                              apsp_error *error) {
    if (adjacency_least_weight(g) >= 0) {
        j->potentials_where = "0 (no weight is negative)";
        return APSP_OK;
    }
    int ran = 0;
    apsp_status status = APSP_OK;
    if (!g->real)
        status = potentials_on_device(j, g, o, h, &ran, error);
    j->potentials_where = ran       ? "by bellman-ford on the device from a virtual vertex"
                          : g->real ? "by the host's bellman-ford (real weights)"
                                    : "by the host's bellman-ford (the device gave it up, a "
                                      "negative cycle may be reachable, or had no room)";
    return status == APSP_OK && !ran ? sources_potentials_on_host(g, h, error) : status;
}

/* The search's cells for the reweighted edges (module comment); 0 where none holds them. */
static int search_cells(const adjacency *reweighted, apsp_dtype *cells) {
    if (reweighted->real) {
        *cells = APSP_FLOAT64;
        return 1;
    }
    size_t v = reweighted->vertices;
    uint64_t bound = weights_path_bound(reweighted->weight, NULL, NULL, reweighted->start[v], v, 0);
    *cells = bound <= (uint64_t)APSP_INF - 1 ? APSP_INT32 : APSP_INT64;
    return bound <= (uint64_t)APSP_INF64 - 1;
}

/* The device's rows of d' handed on as the caller's rows of d = d' - h(s) + h(t). */
typedef struct unweighting {
    const sources_out *out;
    const int32_t *sources; /* the list the device ran, whose first row is out->offset */
    const int64_t *h;       /* integer weights' potentials, or NULL */
    const double *real_h;   /* real weights' */
    apsp_dtype cells;       /* the search's */
    size_t vertices;
    unsigned threads;
    void *buffer; /* rows of the caller's type */
    size_t buffer_rows;
    /* the batch in hand (unweighted_rows), for the threads */
    size_t first_row;
    const void *rows;
    size_t pitch_bytes;
} unweighting;

/* int32 cells into int32 rows, the common case, in a loop of its own that the compiler
 * vectorises: d' < APSP_INF, and d' - h(s) + h(t), a distance, is within int32 (module
 * comment). */
static void unweight_int32(const int32_t *d, const int64_t *h, int32_t source, size_t v,
                           int32_t *row) {
    int64_t from = h[source];
    for (size_t t = 0; t < v; t++)
        row[t] = d[t] == APSP_INF ? APSP_INF : (int32_t)(d[t] - from + h[t]);
}

static void unweight_row(const unweighting *u, int32_t source, const void *from, void *to) {
    apsp_dtype dtype = u->out->dtype;
    if (u->h && u->cells == APSP_INT32 && dtype == APSP_INT32) {
        unweight_int32(from, u->h, source, u->vertices, to);
        return;
    }
    for (size_t t = 0; t < u->vertices; t++) {
        if (u->real_h) {
            double d = ((const double *)from)[t];
            sssp_put_real(to, t, dtype, isinf(d) ? d : d - u->real_h[source] + u->real_h[t]);
            continue;
        }
        int32_t narrow = u->cells == APSP_INT32 ? ((const int32_t *)from)[t] : 0;
        int64_t d = u->cells == APSP_INT32 ? narrow : ((const int64_t *)from)[t];
        int unreached = u->cells == APSP_INT32 ? narrow == APSP_INF : d == APSP_INF64;
        sssp_put_integer(to, t, dtype, unreached ? d : d - u->h[source] + u->h[t], unreached);
    }
}

/* Rows [begin, end) of the batch in hand (parallel_slices). */
static int unweight_slice(void *context, size_t begin, size_t end) {
    const unweighting *u = context;
    size_t row_bytes = u->vertices * apsp_dtype_size(u->out->dtype);
    for (size_t r = begin; r < end; r++)
        unweight_row(u, u->sources[u->first_row - u->out->offset + r],
                     (const char *)u->rows + r * u->pitch_bytes, (char *)u->buffer + r * row_bytes);
    return 0;
}

/* A batch of the device's rows, undone over the host threads (the rows' own pass, which the
 * host's Johnson makes per source too), handed on. */
static apsp_status unweighted_rows(void *context, size_t first_row, size_t count, const void *rows,
                                   size_t pitch, apsp_error *error) {
    unweighting *u = context;
    size_t v = u->vertices, size = apsp_dtype_size(u->out->dtype);
    if (count > u->buffer_rows) {
        void *grown = apsp_realloc(u->buffer, count * v * size);
        if (!grown)
            return fail(error, APSP_ERR_NO_MEMORY, "johnson: out of memory for %zu rows", count);
        u->buffer = grown;
        u->buffer_rows = count;
    }
    u->first_row = first_row;
    u->rows = rows;
    u->pitch_bytes = pitch * apsp_dtype_size(u->cells);
    parallel_slices(count, threads_for_bytes(count * v * size, u->threads), unweight_slice, u);
    return u->out->rows(u->out->context, first_row, count, u->buffer, v, error);
}

/* The batched method over the reweighted edges on the device, the rows' reweighting undone;
 * what the device does not run (a batch given up, or no cells that hold d') on the host
 * threads' Johnson. */
static apsp_status search(device_johnson *j, const adjacency *g, const adjacency *reweighted,
                          const void *h, const int32_t *sources, size_t count,
                          const apsp_options *o, const sources_out *out, apsp_error *error) {
    apsp_dtype cells;
    size_t done = 0;
    apsp_status status = APSP_OK;
    if (!search_cells(reweighted, &cells))
        snprintf(j->declined, sizeof j->declined,
                 "johnson on %.60s: the reweighted edges' path bound passes 2^62", j->search.name);
    else if (!device_method_find(j->search.device, reweighted, cells, out->pred != NULL, &j->search,
                                 j->declined, sizeof j->declined))
        ; /* (j->declined says why) */
    else {
        unweighting u = {.out = out,
                         .sources = sources,
                         .h = g->real ? NULL : h,
                         .real_h = g->real ? h : NULL,
                         .cells = cells,
                         .vertices = g->vertices,
                         .threads = threads_of(o->threads)};
        sources_out to = *out;
        to.dtype = cells;
        to.rows = unweighted_rows;
        to.context = &u;
        status = device_method_run(&j->search, reweighted, sources, count, o, &to, &done, error);
        free(u.buffer);
    }
    j->on_host = count - done;
    sources_out rest = *out;
    rest.offset += done;
    if (status == APSP_OK && done < count)
        status = sources_run_on_threads(g, APSP_METHOD_JOHNSON, sources + done, count - done, o,
                                        &rest, NULL, 0, error);
    return status;
}

apsp_status device_johnson_run(device_johnson *j, const adjacency *g, const int32_t *sources,
                               size_t count, const apsp_options *o, const sources_out *out,
                               apsp_error *error) {
    size_t v = g->vertices, e = g->start[v];
    void *h = apsp_calloc(v ? v : 1, 8), *w = apsp_malloc((e ? e : 1) * 8);
    apsp_status status =
        h && w ? APSP_OK
               : fail(error, APSP_ERR_NO_MEMORY, "johnson: out of memory for %zu edges", e);
    if (status == APSP_OK)
        status = potentials(j, g, o, h, error);
    if (status == APSP_OK) {
        sources_reweight(g, h, w);
        adjacency reweighted = *g; /* (the same CSR) */
        if (g->real)
            reweighted.real = w;
        else
            reweighted.weight = w;
        status = search(j, g, &reweighted, h, sources, count, o, out, error);
    }
    free(h);
    free(w);
    return status;
}

void device_johnson_describe(const device_johnson *j, const char *why, apsp_report *report) {
    const device_method *m = &j->search, *p = &j->potentials;
    device_method_describe(m, why, report);
    snprintf(report->method, sizeof report->method,
             "johnson on %.60s: potentials %s, then the batched frontier over the reweighted "
             "edges, %s distances%s, %zu sources a batch%s; %s",
             m->name, j->potentials_where, apsp_dtype_name(m->run.dtype),
             m->run.pred ? ", predecessors picked on the device" : "", m->batch,
             j->on_host ? " (the last ones on the host threads' johnson: a vertex without a "
                          "predecessor the device could pick)"
                        : "",
             why);
    report->upload_seconds += p->times.upload;
    report->download_seconds += p->times.download;
}
