/* The library's own use of the public edge list (apsp_graph): the rule each distance type sets
 * for the weights, kept in one place (graph_matrix.c), and the readers' per-edge steps. */
#ifndef APSP_GRAPH_H
#define APSP_GRAPH_H

#include "apsp.h"
#include "base/element_types.h"

#include <stddef.h>

/* The integer weights a graph of `vertices` vertices may carry for distances of `dtype`:
 * int32: |w| <= most with (V - 1) * most < APSP_INF; int64: the same below APSP_INF64; so that
 * every simple path's length lies strictly between minus the unreachable marker and the marker:
 * no shortest distance reaches it, and the sum of two distances never overflows the type (with
 * V = 1 every edge is an ignored self-loop: any int32, any int64). The floating-point types take
 * any integer (it is rounded), and vertices = 0 means V is not known yet: no bound applies.
 * The chosen sources take a tighter bound for their searches and, on non-negative weights,
 * their int32 rows (weights_path_bound, graph_int32_by_path_bound below); this per-weight rule
 * stays for the readers, which check weight by weight before V's largest weights are known, and
 * for Floyd-Warshall, whose bounded negative form (backend/backend.h: kernel_form) is derived from
 * (V + n - 1) max|w| < INF over the padded size n and would need its own derivation and tests
 * for a sum bound (auto's choice leaves Floyd-Warshall out where int32 rows rest on the path
 * bound: sssp/method.h). */
typedef struct weight_rule {
    int64_t least;
    int64_t most;
} weight_rule;

weight_rule weight_rule_for(size_t vertices, apsp_dtype dtype);

/* A bound no simple path over these weights can pass: the sum of the V - 1 largest |w| (a simple
 * path has at most V - 1 edges, each a different one), saturating at UINT64_MAX; 0 for V < 2.
 * Self-loops (source[e] == target[e]) are left out where source and target are given (NULL:
 * every weight counts). Exact, in one pass for the largest and one per byte below it, no copy,
 * each pass on up to `threads` threads (parallel.h; graph_matrix.c). */
uint64_t weights_path_bound(const int64_t *weights, const int32_t *source, const int32_t *target,
                            size_t edges, size_t vertices, unsigned threads);

/* Whether the chosen sources' int32 rows hold this graph's distances under the path bound
 * where the per-weight rule above does not: integer weights, none negative (no self-loop
 * counted), and weights_path_bound <= APSP_INF - 1, so that every distance, the length of a
 * simple path, stays below the marker (apsp_graph_sources_dtype). The weights must be within
 * int64's rule already (both callers have checked it: apsp_graph_dtype, graph_check_typed). */
int graph_int32_by_path_bound(const apsp_graph *g, unsigned threads);

/* The floating-point types' rule: a nonzero |w| from the type's smallest normal number up to
 * real_weight_most, (V - 1) |w| below the type's largest number with room for the rounding of a
 * path's V - 1 additions, so that no path's length overflows to +-inf; with V <= 1 (or V not
 * known yet, 0) any finite value of the type. Below the normal range a weight would be rounded
 * to 0 or lose its precision (and devices may flush it to 0), which can hide a negative cycle.
 * Integer weights always pass: |w| < 2^63 times V - 1 < 2^31 is far below FLT_MAX. */
double real_weight_most(size_t vertices, apsp_dtype dtype);

/* NULL when w obeys the rule for V = vertices and the type; else why not, as a phrase that names
 * w ("weight 5000000 is too large: with V = ...", "weight -5000000 is too negative: ..."), in
 * buf. */
const char *weight_problem(int64_t w, size_t vertices, apsp_dtype dtype, char *buf, size_t size);
/* The same for a real weight, named as `written` (its text in the input; NULL: w's digits): not
 * finite, a fraction for an integer type, outside a floating-point type's rule, or (a whole value)
 * outside the integer type's rule. */
const char *real_weight_problem(double w, const char *written, size_t vertices, apsp_dtype dtype,
                                char *buf, size_t size);

/* The type whose rule a read with these options applies: the options' dtype, or int64 (the
 * widest integer rule) for dtype_auto. */
apsp_dtype read_rule_dtype(const apsp_read_options *options);
/* Whether a read with these options may keep fractional weights. */
int read_takes_fractions(const apsp_read_options *options);
/* The type whose rule a real weight of such a read meets: the options' dtype, or float64 (what
 * real weights give) for dtype_auto. */
apsp_dtype read_real_dtype(const apsp_read_options *options);

/* The largest |weight| of an edge that is no self-loop, for the kernels' bounded negative form
 * (backend.h: kernel_form); UINT64_MAX for real-valued weights. */
uint64_t graph_largest_weight(const apsp_graph *graph);

/* Whether some edge that is no self-loop has a negative weight (the kernels' negative form). */
int graph_has_negative(const apsp_graph *graph);

/* Every edge's endpoints in [0, V) and weight within the type's rule, and 1 <= V <= INT32_MAX:
 * else APSP_ERR_USAGE naming the first bad edge (what apsp_graph_to_matrix_typed checks first).
 * graph_check is the int32 check of the paths that read integer weights directly
 * (apsp_solver_solve_graph): it also refuses a graph whose weights are stored as real. A large
 * graph is checked on `threads` threads (0: one per core). */
apsp_status graph_check_typed(const apsp_graph *graph, apsp_dtype dtype, unsigned threads,
                              apsp_error *error);
apsp_status graph_check(const apsp_graph *graph, unsigned threads, apsp_error *error);

/* The graph's vertex names (apsp_graph_labels): `labels` (graph->vertices names, each allocated,
 * and the array) taken over, those it had freed; NULL: none. */
void graph_set_labels(apsp_graph *graph, char **labels);

/* The weights become real (those there converted); nothing when they are. */
apsp_status graph_make_real(apsp_graph *graph, apsp_error *error);

/* Edge e's weight as a double, whichever array holds it. */
static inline double graph_weight_real(const apsp_graph *g, size_t e) {
    return g->real_weight ? g->real_weight[e] : (double)g->weight[e];
}

/* Edge e's weight as a cell of `dtype` into *cell, converted as the matrix made from the graph
 * converts it (apsp_graph_to_matrix_typed; graph_check_typed passed it for the type). */
static inline void graph_weight_as(const apsp_graph *g, size_t e, apsp_dtype dtype, void *cell) {
    element_weight_as(g->weight, g->real_weight, e, dtype, cell);
}

/* apsp_graph_append with its common case inline: the readers' per-edge step. */
static inline apsp_status graph_push(apsp_graph *g, int32_t source, int32_t target, int64_t weight,
                                     apsp_error *error) {
    if (g->edges == g->capacity || g->real_weight)
        return apsp_graph_append(g, source, target, weight, error);
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    g->weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

/* The same for a real weight (apsp_graph_append_real). */
static inline apsp_status graph_push_real(apsp_graph *g, int32_t source, int32_t target,
                                          double weight, apsp_error *error) {
    if (g->edges == g->capacity || !g->real_weight)
        return apsp_graph_append_real(g, source, target, weight, error);
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    g->real_weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

#endif
