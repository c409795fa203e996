/* apsp: many small graphs in one call, part of the public API (include/apsp.h includes this
 * header, so a program includes either). Graph-learning pipelines (Graphormer's spatial
 * encoding) solve every graph of a dataset: millions of graphs of tens of vertices, where one
 * call per graph costs more than its relaxations. */
/* apsp.h first, outside the guard: it includes this header at its end, which must then find
 * the guard still open whichever of the headers a program includes first. */
#include "apsp.h"
#ifndef APSP_BATCH_H
#define APSP_BATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* A batch of graphs, all of one element type, each a dense square matrix of its own size solved
 * in place. Graph g has vertices[g] vertices (0 is an empty graph: nothing to do) and its cells
 * lie in `cells` either packed (pitch 0: graph g's n x n cells, row-major with row pitch n, right
 * after graph g - 1's) or padded (pitch > 0, at least every vertices[g]: graph g's rows at
 * cells + g * pitch * pitch with row pitch `pitch`, the (B, pitch, pitch) array of a padded
 * batch; the cells outside each graph's n x n are neither read nor written). Before the solve a
 * graph's cells are what apsp_solve takes of a matrix: 0 on the diagonal, the edge weight i -> j
 * or the type's unreachable marker (APSP_INF, APSP_INF64, +inf), within the weight rule of
 * apsp_solve for its own V. `predecessors`: NULL, or int32 cells in the same layout, which
 * receive SciPy's floyd_warshall predecessors (APSP_NO_PREDECESSOR for none). */
typedef struct apsp_batch {
    size_t count;
    const size_t *vertices;
    apsp_dtype dtype;
    void *cells;
    size_t pitch;
    int32_t *predecessors;
    /* NULL, or the graphs' edges, from which each graph's cells are made on the thread (or the
     * device's work-group) that solves it (as a graph-learning batch holds them: PyG's
     * edge_index): then the cells' content
     * before the call does not matter, and with a pitch the whole pitch x pitch block of each
     * graph is written (the unreachable marker outside the graph, APSP_NO_PREDECESSOR in the
     * predecessors). */
    const struct apsp_batch_edges *edges;
} apsp_batch;

/* Edges of a batch, numbered over the whole batch: graph g's vertices are the `vertices[g]`
 * numbers after those of graphs 0 .. g - 1, and its edges source[e] -> target[e] for e in
 * [first[g], first[g + 1]) (first: count + 1 entries, non-decreasing), or with first NULL
 * `edge_count` edges grouped by graph in order (as PyG batches them: each edge's source in the
 * graph of the edge before it or a later one), whose first edges the library finds on its
 * threads; edges out of that order are refused (APSP_ERR_USAGE, naming the edge). weight: NULL
 * (every edge weighs 1) or one weight per edge of the batch's dtype. As apsp_graph_to_matrix
 * makes a matrix: repeated edges keep the least weight, self-loops are ignored; undirected: each
 * edge also the other way. An endpoint outside its graph's vertices is refused (APSP_ERR_USAGE,
 * naming the graph and the edge), as is a floating-point weight that is NaN or infinite. */
typedef struct apsp_batch_edges {
    const int64_t *source, *target;
    const void *weight;
    const size_t *first;
    int undirected;
    size_t edge_count; /* the edges, where first is NULL (else first[count]) */
} apsp_batch_edges;

/* Solves every graph of the batch: the distances of each are the bytes apsp_solver_solve gives
 * that graph alone. On the pthread backend the graphs of at most 128 vertices are spread over
 * the solver's threads, a graph per thread at a time, each solved on its own cells (small enough
 * to stay in the core's L1 or L2 cache); a graph of at most 128 vertices made from edges without
 * weights (every edge 1) and no predecessors asked for by a breadth-first search from each
 * vertex, its hop counts written straight into the cells (the same bytes). On an OpenCL solver
 * without predecessors, the graphs that fit a work-group's local memory (at most 128 vertices;
 * float ones at most the device's tile) are solved a work-group per graph, many per launch, with
 * the same bytes. Larger graphs, and every graph otherwise, are solved one after another by
 * apsp_solver_solve. Predecessors follow SciPy's rule (its Floyd-Warshall's loop: k, i, j
 * ascending, the predecessor of (k, j) taken by a strictly shorter path), so integer graphs get
 * SciPy's very predecessors; floating-point ones a valid shortest-path tree of their distances.
 * Refuses (APSP_ERR_USAGE, naming the graph and its cell) a batch whose graph breaks apsp_solve's
 * rules, a pitch below a graph's size and a type that is none of apsp_dtype's;
 * APSP_ERR_NEGATIVE_CYCLE names the graph and a vertex of a negative cycle. Each graph is checked
 * as its thread takes it: after a refusal the batch's cells hold no distances (some graphs solved,
 * some not). The report gives the backend, the threads and the seconds. */
APSP_EXPORT apsp_status apsp_solver_solve_batch(apsp_solver *solver, const apsp_batch *batch,
                                                apsp_report *report, apsp_error *error);

#ifdef __cplusplus
}
#endif

#endif
