/* Chosen sources on the host threads (on_threads.c): Dijkstra, Johnson and Bellman-Ford from
 * each source, the sources in batches of rows over the threads, each batch handed on as it is
 * done; and the batches' pieces that solver/sources.c's Floyd-Warshall rows share. */
#ifndef APSP_SSSP_ON_THREADS_H
#define APSP_SSSP_ON_THREADS_H

#include "apsp.h"
#include "backend/adjacency.h"

#include <stddef.h>
#include <stdint.h>

/* Where the rows go: the distances of `dtype`, and the predecessors when `pred` is not NULL. */
typedef struct sources_out {
    apsp_dtype dtype;
    apsp_cells_fn rows;
    void *context;
    apsp_rows_fn pred;
    void *pred_context;
    size_t offset;              /* the first of these sources' rows in the caller's list */
    const apsp_idle_work *idle; /* the outputs' preparation beside a device's rounds, or NULL */
} sources_out;

/* The threads that run the sources (the options' count, one per core for 0, at most 16). */
unsigned sources_worker_count(const apsp_options *o);

/* The rows of a batch: 64 MiB of them, at least one, at most count. */
size_t sources_batch_rows(size_t vertices, apsp_dtype dtype, size_t count);

/* Room for a batch of rows of `dtype`, and of predecessors when asked for. */
apsp_status sources_batch_buffers(size_t batch, size_t vertices, apsp_dtype dtype, int want_pred,
                                  void **rows, int32_t **pred, apsp_error *error);

/* A batch's rows handed on (`first` counted from out's first source): the predecessors first,
 * then the distances. */
apsp_status sources_hand_on(const sources_out *out, size_t first, size_t count, const void *rows,
                            const int32_t *pred, size_t vertices, apsp_error *error);

/* The pthread methods (Johnson's second step is Dijkstra): each thread's scratch, Johnson's
 * potentials, the distances' width, the batches. `why` (may be NULL) gets the width for the
 * report. */
apsp_status sources_run_on_threads(const adjacency *g, apsp_method method, const int32_t *sources,
                                   size_t count, const apsp_options *o, const sources_out *out,
                                   char *why, size_t why_size, apsp_error *error);

/* Johnson's potentials on the host: Bellman-Ford from a virtual vertex joined to every vertex
 * by 0-weight edges, into h (V int64, or doubles for real weights). A negative cycle anywhere
 * is refused as the host's Johnson refuses it (fail_negative_cycle, naming a vertex on it). */
apsp_status sources_potentials_on_host(const adjacency *g, void *h, apsp_error *error);

/* w'(u, t) = w + h(u) - h(t) for each edge of g, into `reweighted` (int64, or doubles clamped
 * at 0 for real weights: on_threads.c states the rounding). */
void sources_reweight(const adjacency *g, const void *h, void *reweighted);

#endif
