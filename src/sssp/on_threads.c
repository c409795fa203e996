/* The host threads' methods for chosen sources (on_threads.h): each thread takes the batch's
 * sources one at a time into its O(V) scratch and writes their rows; Johnson's reweighting runs
 * first, and Dijkstra's integer distances are chosen 32- or 64-bit, before the batches. */
#include "sssp/on_threads.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/memory_room.h"
#include "base/parallel.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch of rows is at most this many bytes (and at least one row). */
enum { BATCH_BYTES = 64 << 20, MAX_WORKERS = 16 };

/* What every thread of a solve shares. */
typedef struct sources_job {
    const adjacency *graph;
    int real;                           /* the weights are real: g->real, double distances */
    const int64_t *weights;             /* g->weight, or Johnson's reweighted ones */
    const double *real_weights;         /* g->real, or Johnson's reweighted ones */
    const sssp_arc *arcs;               /* the weights packed for Dijkstra's narrow path, or NULL */
    const sssp_signed_arc *signed_arcs; /* Bellman-Ford's on negative weights, or NULL */
    sssp_potential potential;           /* Johnson's h; NULL otherwise */
    apsp_method method;     /* dijkstra (also for Johnson's second step) or bellman-ford */
    apsp_dtype dtype;       /* the rows' */
    const int32_t *sources; /* this batch's */
    size_t count;
    void *rows;               /* count x V of dtype */
    int32_t *pred;            /* count x V, or NULL: no predecessors asked for */
    atomic_size_t next;       /* the batch's next source not taken by a thread */
    sssp_scratch *scratch;    /* one per thread */
    atomic_int cycle_found;   /* Bellman-Ford met a negative cycle */
    atomic_int out_of_memory; /* a Dijkstra queue could not grow */
    int32_t cycle_vertex;
} sources_job;

/* Bellman-Ford from `source` in the weights' kind (the narrow path's where the job has its
 * arcs). Returns 1 for a negative cycle. */
static int bellman_ford_of(const sources_job *job, int32_t source, sssp_scratch *s,
                           int32_t *cycle) {
    if (job->arcs) {
        bellman_ford_distances_narrow(job->graph, job->arcs, source, s);
        return 0;
    }
    if (job->signed_arcs)
        return bellman_ford_distances_signed(job->graph, job->signed_arcs, source, s, cycle);
    return job->real ? bellman_ford_distances_real(job->graph, source, s, cycle)
                     : bellman_ford_distances(job->graph, source, s, cycle);
}

/* Dijkstra from `source` in the weights' kind, the parents only where predecessors are asked
 * for. Returns 1 when its queue found no memory. */
static int dijkstra_of(const sources_job *job, int32_t source, sssp_scratch *s) {
    int parents = job->pred != NULL;
    if (job->arcs)
        return dijkstra_distances_narrow(job->graph, job->arcs, source, parents, s);
    return job->real ? dijkstra_distances_real(job->graph, job->real_weights, source, parents, s)
                     : dijkstra_distances(job->graph, job->weights, source, parents, s);
}

/* Which distances the job's searches keep. */
static sssp_kind kind_of(const sources_job *job) {
    return job->real          ? SSSP_REAL
           : job->arcs        ? SSSP_NARROW
           : job->signed_arcs ? SSSP_SIGNED
                              : SSSP_WIDE;
}

/* One thread (`worker`: its slice of parallel_slices over one item per thread, and its
 * scratch): takes the batch's sources one at a time, so that threads whose sources reach less
 * of the graph take more of them. */
static int run_worker(void *context, size_t worker, size_t end) {
    (void)end;
    sources_job *job = context;
    sssp_scratch *s = &job->scratch[worker];
    size_t v = job->graph->vertices, row_bytes = v * apsp_dtype_size(job->dtype);
    for (size_t i; (i = atomic_fetch_add(&job->next, 1)) < job->count;) {
        int32_t source = job->sources[i];
        int32_t cycle;
        if (job->method == APSP_METHOD_BELLMAN_FORD) {
            if (bellman_ford_of(job, source, s, &cycle)) {
                if (atomic_exchange(&job->cycle_found, 1) == 0) /* the first thread says which */
                    job->cycle_vertex = cycle;
                return 0;
            }
        } else if (dijkstra_of(job, source, s)) {
            atomic_store(&job->out_of_memory, 1);
            return 0;
        }
        sssp_store_row(s, v, source, &job->potential, kind_of(job), job->dtype,
                       (char *)job->rows + i * row_bytes);
        if (job->pred)
            sssp_store_pred(s, v, source, kind_of(job), job->pred + i * v);
    }
    return 0;
}

unsigned sources_worker_count(const apsp_options *o) {
    unsigned cores = o->threads > 0 ? (unsigned)o->threads : online_cores();
    return cores < MAX_WORKERS ? cores : MAX_WORKERS;
}

/* The options' cancel function, asked between batches. */
static apsp_status check_cancelled(const apsp_options *o, size_t done, size_t total,
                                   apsp_error *error) {
    if (o->cancelled && done < total && o->cancelled(o->cancel_context))
        return fail(error, APSP_ERR_CANCELLED, "the solve was cancelled after %zu of %zu sources",
                    done, total);
    return APSP_OK;
}

/* The rows of a batch: BATCH_BYTES of them, at least one, at most count. */
size_t sources_batch_rows(size_t vertices, apsp_dtype dtype, size_t count) {
    size_t batch = BATCH_BYTES / (vertices * apsp_dtype_size(dtype));
    return batch < 1 ? 1 : batch > count ? count : batch;
}

/* A batch's rows handed on: the predecessors first, then the distances. */
apsp_status sources_hand_on(const sources_out *out, size_t first, size_t count, const void *rows,
                            const int32_t *pred, size_t vertices, apsp_error *error) {
    first += out->offset;
    apsp_status status =
        out->pred ? out->pred(out->pred_context, first, count, pred, vertices, error) : APSP_OK;
    return status == APSP_OK ? out->rows(out->context, first, count, rows, vertices, error)
                             : status;
}

/* Room for a batch of rows of `dtype`, and of predecessors when asked for. */
apsp_status sources_batch_buffers(size_t batch, size_t vertices, apsp_dtype dtype, int want_pred,
                                  void **rows, int32_t **pred, apsp_error *error) {
    size_t cells = (batch ? batch : 1) * vertices;
    *rows = apsp_malloc(cells * apsp_dtype_size(dtype));
    *pred = want_pred ? apsp_malloc(cells * sizeof **pred) : NULL;
    if (*rows && (*pred || !want_pred))
        return APSP_OK;
    free(*rows);
    free(*pred);
    *rows = *pred = NULL;
    return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for %zu rows of %zu", batch,
                vertices);
}

/* The sources in batches over the threads, each batch handed on as it is done. */
static apsp_status run_batches(sources_job *job, unsigned workers, const int32_t *sources,
                               size_t count, const apsp_options *o, const sources_out *out,
                               apsp_error *error) {
    size_t v = job->graph->vertices, batch = sources_batch_rows(v, out->dtype, count);
    apsp_status status = sources_batch_buffers(batch, v, out->dtype, out->pred != NULL, &job->rows,
                                               &job->pred, error);
    if (status != APSP_OK)
        return status;
    for (size_t first = 0; first < count && status == APSP_OK; first += batch) {
        job->sources = sources + first;
        job->count = count - first < batch ? count - first : batch;
        atomic_store(&job->next, 0);
        if (parallel_slices(workers, workers, run_worker, job) != 0 ||
            atomic_load(&job->out_of_memory))
            status = fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for a queue");
        else if (atomic_load(&job->cycle_found))
            status = fail_negative_cycle(error, (size_t)job->cycle_vertex);
        if (status == APSP_OK)
            status = sources_hand_on(out, first, job->count, job->rows, job->pred, v, error);
        if (status == APSP_OK && o->progress)
            o->progress(o->progress_context, first + job->count, count);
        if (status == APSP_OK)
            status = check_cancelled(o, first + job->count, count, error);
    }
    free(job->rows);
    free(job->pred);
    return status;
}

/* w'(u, t) = w + h(u) - h(t), exact in int64 and >= 0 (h is a shortest distance). */
static void johnson_reweight(const adjacency *g, const int64_t *h, int64_t *reweighted) {
    for (size_t u = 0; u < g->vertices; u++)
        for (size_t i = g->start[u]; i < g->start[u + 1]; i++)
            reweighted[i] = g->weight[i] + h[u] - h[g->other[i]];
}

/* The same in double, where the two roundings (each at most half an ulp, eps = 2^-53 of the
 * partial sum) may leave w' slightly below 0 although it is >= 0 exactly: it is clamped to 0,
 * which moves it by no more than those roundings, so each reweighted edge is within
 * 2 eps (|w| + |h(u)| + |h(t)|) of the exact one, and Dijkstra's heap keeps non-negative keys
 * (dijkstra.c). A distance of k edges is then within (2k + 3) eps times the sum over its path of
 * (|w| + |h(u)| + |h(t)|) plus |h(source)| + |h(t)| of the exact one (Dijkstra's k additions
 * and the two of sssp_store_row): SciPy's Johnson rounds the same sums, in its order. */
static void johnson_reweight_real(const adjacency *g, const double *h, double *reweighted) {
    for (size_t u = 0; u < g->vertices; u++)
        for (size_t i = g->start[u]; i < g->start[u + 1]; i++) {
            double w = g->real[i] + h[u] - h[g->other[i]];
            reweighted[i] = w < 0 ? 0 : w;
        }
}

/* h from Bellman-Ford from the virtual vertex over s (the negative cycle check over the whole
 * graph): V int64 or, for real weights, doubles. */
static apsp_status potentials_of(const adjacency *g, sssp_scratch *s, void *h, apsp_error *error) {
    int32_t cycle;
    if (g->real ? bellman_ford_distances_real(g, -1, s, &cycle)
                : bellman_ford_distances(g, -1, s, &cycle))
        return fail_negative_cycle(error, (size_t)cycle);
    memcpy(h, s->dist, g->vertices * 8); /* (dist and real_dist are one array) */
    return APSP_OK;
}

apsp_status sources_potentials_on_host(const adjacency *g, void *h, apsp_error *error) {
    sssp_scratch s = {0};
    apsp_status status = sssp_scratch_init(&s, g->vertices, error);
    if (status == APSP_OK)
        status = potentials_of(g, &s, h, error);
    sssp_scratch_free(&s);
    return status;
}

void sources_reweight(const adjacency *g, const void *h, void *reweighted) {
    if (g->real)
        johnson_reweight_real(g, h, reweighted);
    else
        johnson_reweight(g, h, reweighted);
}

/* Johnson's reweighting: h (potentials_of), then w'(u, t) = w + h(u) - h(t) >= 0 for every
 * edge, into the job. */
static apsp_status johnson_potentials(const adjacency *g, sssp_scratch *s, sources_job *job,
                                      void **potential, void **weights, apsp_error *error) {
    size_t v = g->vertices, e = g->start[v];
    *potential = apsp_malloc((v ? v : 1) * 8); /* int64 or double */
    *weights = apsp_malloc((e ? e : 1) * 8);
    if (!*potential || !*weights)
        return fail(error, APSP_ERR_NO_MEMORY, "johnson: out of memory for %zu edges", e);
    apsp_status status = potentials_of(g, s, *potential, error);
    if (status != APSP_OK)
        return status;
    sources_reweight(g, *potential, *weights);
    job->potential =
        job->real ? (sssp_potential){NULL, *potential} : (sssp_potential){*potential, NULL};
    job->weights = job->real ? NULL : *weights;
    job->real_weights = job->real ? *weights : NULL;
    return APSP_OK;
}

/* Whether some weight is negative (Bellman-Ford then takes the per-weight rule of int32, not the
 * path bound: its rounds may run into a negative cycle, whose walks no path bound holds). */
static int any_negative(const int64_t *weights, size_t edges) {
    for (size_t e = 0; e < edges; e++)
        if (weights[e] < 0)
            return 1;
    return 0;
}

/* The integer distances of Dijkstra (also Johnson's second step) and of Bellman-Ford on
 * non-negative weights: the narrow path's arcs when its bound holds for the weights searched
 * (the job's: Johnson's reweighted ones for Johnson), and each thread's scratch made ready for
 * them; `why` says which, and the queue, for the report. */
static apsp_status choose_distances(sources_job *job, unsigned workers, sssp_arc **arcs,
                                    sssp_signed_arc **signed_arcs, char *why, size_t size,
                                    apsp_error *error) {
    const adjacency *g = job->graph;
    int bellman_ford = job->method == APSP_METHOD_BELLMAN_FORD;
    if (job->real)
        return APSP_OK;
    if (bellman_ford && any_negative(job->weights, g->start[g->vertices])) {
        apsp_status status = sssp_signed_arcs(g, signed_arcs, error);
        job->signed_arcs = *signed_arcs;
        snprintf(why, size, "; bellman-ford on %s distances (a weight is negative, %s)",
                 *signed_arcs ? "32-bit" : "64-bit",
                 *signed_arcs ? "every weight within int32's rule: frontier rounds"
                              : "some weight past int32's rule");
        return status;
    }
    int64_t largest;
    uint64_t bound;
    apsp_status status = sssp_narrow_arcs(g, job->weights, workers, arcs, &largest, &bound, error);
    job->arcs = *arcs;
    /* (a largest weight of SSSP_BUCKET_SPAN: no bucket queue, which Bellman-Ford's rounds never
     * use) */
    for (unsigned w = 0; w < workers && *arcs && status == APSP_OK; w++)
        if (sssp_scratch_narrow(&job->scratch[w], g, bellman_ford ? SSSP_BUCKET_SPAN : largest))
            status = fail(error, APSP_ERR_NO_MEMORY, "dijkstra: out of memory for a queue");
    const char *queue = bellman_ford                        ? "frontier rounds"
                        : !*arcs                            ? "radix heap"
                        : job->scratch[0].narrow_queue.span ? "bucket queue"
                                                            : "32-bit radix heap";
    if (status == APSP_OK)
        snprintf(why, size,
                 "; %s on %s distances (sum of the V - 1 largest w = %llu %s 2^31 - 1), %s",
                 bellman_ford ? "bellman-ford" : "dijkstra", *arcs ? "32-bit" : "64-bit",
                 (unsigned long long)bound, *arcs ? "<" : ">=", queue);
    return status;
}

/* The threads' scratch and a batch of rows (and of predecessors) against the memory free now,
 * before any of it is taken. */
static apsp_status check_room(size_t vertices, unsigned workers, size_t count,
                              const sources_out *out, apsp_error *error) {
    size_t batch = sources_batch_rows(vertices, out->dtype, count);
    size_t cell = apsp_dtype_size(out->dtype) + (out->pred ? sizeof(int32_t) : 0);
    char what[160];
    snprintf(what, sizeof what,
             "sources: V = %zu: the working memory of %u threads and a batch of %zu rows", vertices,
             workers, batch);
    return memory_room_check(
        workers * sssp_scratch_bytes(vertices) + (uint64_t)batch * vertices * cell, what, error);
}

/* The pthread methods: the scratch of each thread, Johnson's potentials, the distances' width,
 * the batches. `why` (may be NULL) gets the width for the report. */
apsp_status sources_run_on_threads(const adjacency *g, apsp_method method, const int32_t *sources,
                                   size_t count, const apsp_options *o, const sources_out *out,
                                   char *why, size_t why_size, apsp_error *error) {
    sources_job job = {.graph = g,
                       .real = g->real != NULL,
                       .weights = g->weight,
                       .real_weights = g->real,
                       .method = method,
                       .dtype = out->dtype};
    unsigned workers = sources_worker_count(o);
    sssp_scratch scratch[MAX_WORKERS] = {{0}};
    apsp_status status = APSP_OK;
    void *potential = NULL, *weights = NULL; /* Johnson's */
    sssp_arc *arcs = NULL;
    sssp_signed_arc *signed_arcs = NULL;
    char width[128] = "";
    status = check_room(g->vertices, workers, count, out, error);
    for (unsigned w = 0; w < workers && status == APSP_OK; w++)
        status = sssp_scratch_init(&scratch[w], g->vertices, error);
    if (status == APSP_OK && method == APSP_METHOD_JOHNSON) {
        status = johnson_potentials(g, &scratch[0], &job, &potential, &weights, error);
        job.method = APSP_METHOD_DIJKSTRA;
    }
    job.scratch = scratch;
    if (status == APSP_OK)
        status = choose_distances(&job, workers, &arcs, &signed_arcs, width, sizeof width, error);
    if (why)
        snprintf(why, why_size, "%s", width);
    if (status == APSP_OK)
        status = run_batches(&job, workers, sources, count, o, out, error);
    for (unsigned w = 0; w < workers; w++)
        sssp_scratch_free(&scratch[w]);
    free(potential);
    free(weights);
    free(arcs);
    free(signed_arcs);
    return status;
}
