/* apsp_solver_solve_paths on a backend: the predecessors derived on the solve's devices (OpenCL)
 * or the host threads, against what this file computes from tests/support/oracle.c's distances
 * alone.
 *
 * Random graphs at sizes around the tile edges:
 *   zero-dag    weights 0..20, zero-weight edges only from a lower to a higher vertex: derived on
 *               an OpenCL device, and every cell the least k with a tight edge (k, j), exactly
 *               (so also the smallest graphs of the other kinds, which have no zero-weight cycle
 *               or negative weight);
 *   zero-cycle  with a zero-weight cycle: the host's search (paths_on_device 0);
 *   negative    negative weights, no negative cycle: the host's search;
 * each also byte-identical to apsp_predecessors on the same distances and checked as paths (every
 * chain an edge path back to the source weighing the distance). Then distances that are not the
 * graph's (the matrix has an edge the graph lacks): refused, as apsp_predecessors refuses them.
 * usage: test-paths-device --backend=cpu|opencl [--device=SPEC] [--tile=N]
 *                          [--max-buffer-bytes=N]
 * Exits 77 when the backend has no device (unless APSP_TEST_REQUIRE_DEVICE=1). */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ZERO_DAG, ZERO_CYCLE, NEGATIVE, KINDS };
static const char *const kind_name[KINDS] = {"zero-dag", "zero-cycle", "negative"};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_random(void) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng >> 33);
}

/* About 4 V edges, some repeated, some self-loops. Negative weights come from potentials h:
 * w + h(u) - h(v) with w >= 0 closes no negative cycle. */
static apsp_graph *make_graph(int kind, int32_t v) {
    apsp_graph *g;
    if (apsp_graph_create((size_t)v, 0, &g, NULL) != APSP_OK)
        return NULL;
    size_t m = (size_t)v * 4;
    for (size_t e = 0; e < m; e++) {
        int32_t a = (int32_t)(next_random() % (uint32_t)v),
                b = (int32_t)(next_random() % (uint32_t)v);
        int64_t w = next_random() % 21;
        if (w == 0 && kind == ZERO_DAG && a > b) { /* zero-weight edges go up only */
            int32_t t = a;
            a = b;
            b = t;
        }
        if (kind == NEGATIVE)
            w += (a % 7) - (b % 7);
        apsp_graph_append(g, a, b, w, NULL);
    }
    for (int32_t k = 0; kind == ZERO_CYCLE && k < 3 && v >= 3; k++)
        apsp_graph_append(g, k, (k + 1) % 3, 0, NULL);
    return g;
}

/* The least weight of each edge (u, v), u != v, as a dense V x V table (INT64_MAX: none). */
static int64_t *least_weights(const apsp_graph *g) {
    size_t v = g->vertices;
    int64_t *w = malloc(v * v * sizeof *w);
    for (size_t c = 0; w && c < v * v; c++)
        w[c] = INT64_MAX;
    for (size_t e = 0; w && e < g->edges; e++) {
        size_t c = (size_t)g->source[e] * v + (size_t)g->target[e];
        if (g->source[e] != g->target[e] && g->weight[e] < w[c])
            w[c] = g->weight[e];
    }
    return w;
}

/* Whether the first tight in-edge will do (what the device derives): no negative weight (self-loops
 * aside) and no cycle of zero-weight edges, found by closing the zero-weight reachability. */
static int takes_first_tight(const int64_t *w, int32_t v) {
    size_t n = (size_t)v;
    char *r = calloc(n * n, 1);
    int ok = r != NULL;
    for (size_t c = 0; ok && c < n * n; c++) {
        ok = w[c] == INT64_MAX || w[c] >= 0;
        r[c] = w[c] == 0;
    }
    for (size_t k = 0; ok && k < n; k++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; r[i * n + k] && j < n; j++)
                r[i * n + j] |= r[k * n + j];
    for (size_t i = 0; ok && i < n; i++)
        ok = !r[i * n + i];
    free(r);
    return ok;
}

/* Each chain an edge path back to its source weighing the distance; for zero-dag, each cell the
 * least tight in-neighbour. Returns the wrong cells (the first reported). */
static size_t check_pred(const char *what, int first_tight, int32_t v, const int64_t *w,
                         const int32_t *d, const int32_t *pred) {
    size_t wrong = 0;
    for (int32_t i = 0; i < v; i++)
        for (int32_t j = 0; j < v; j++) {
            const int32_t *di = d + (size_t)i * (size_t)v;
            int32_t p = pred[(size_t)i * (size_t)v + (size_t)j], expect = p;
            if (j == i || di[j] >= ORACLE_INF)
                expect = APSP_NO_PREDECESSOR;
            else if (first_tight)
                for (expect = 0; expect < v; expect++) {
                    int64_t we = w[(size_t)expect * (size_t)v + (size_t)j];
                    if (we != INT64_MAX && di[expect] < ORACLE_INF && di[expect] + we == di[j])
                        break;
                }
            int32_t at = j, steps = 0;
            int64_t sum = 0;
            while (expect == p && p != APSP_NO_PREDECESSOR && at != i && steps++ <= v) {
                int32_t k = pred[(size_t)i * (size_t)v + (size_t)at];
                if (k < 0 || k >= v || w[(size_t)k * (size_t)v + (size_t)at] == INT64_MAX)
                    break;
                sum += w[(size_t)k * (size_t)v + (size_t)at];
                at = k;
            }
            int ok = expect == p && (p == APSP_NO_PREDECESSOR || (at == i && sum == di[j]));
            if (!ok && wrong++ == 0)
                fprintf(stderr, "%s: pred(%d, %d) = %d, expected %d (chain ends at %d)\n", what, i,
                        j, p, expect, at);
        }
    return wrong;
}

static void check_graph(apsp_solver *solver, int opencl, int kind, int32_t v) {
    char what[96];
    snprintf(what, sizeof what, "%s V=%d", kind_name[kind], v);
    apsp_graph *g = make_graph(kind, v);
    int32_t *d = oracle_matrix_new(v);
    apsp_matrix *m = NULL;
    size_t cells = (size_t)v * (size_t)v;
    int32_t *pred = malloc(cells * sizeof *pred), *host = malloc(cells * sizeof *host);
    int64_t *w = g ? least_weights(g) : NULL;
    CHECK(g && d && pred && host && w && apsp_graph_to_matrix(g, &m, NULL) == APSP_OK, "%s: set-up",
          what);
    if (!m) {
        free(d), free(pred), free(host), free(w), apsp_graph_destroy(g);
        return;
    }
    for (size_t e = 0; e < g->edges; e++)
        oracle_add_edge(d, v, g->source[e], g->target[e], (int32_t)g->weight[e]);
    oracle_floyd_warshall(d, v);
    apsp_report report;
    apsp_error err;
    apsp_status status = apsp_solver_solve_paths(solver, m, g, pred, &report, &err);
    CHECK(status == APSP_OK, "%s: %s", what, err.message);
    if (status == APSP_OK) {
        int first_tight = takes_first_tight(w, v);
        int device = opencl && first_tight;
        CHECK(v < 4 || first_tight == (kind == ZERO_DAG), "%s: the generator made no %s graph",
              what, kind_name[kind]);
        CHECK(report.paths_on_device == device, "%s: paths_on_device %d, expected %d", what,
              report.paths_on_device, device);
        for (int32_t i = 0; i < v; i++)
            CHECK(memcmp(apsp_matrix_row(m, (size_t)i), d + (size_t)i * (size_t)v,
                         (size_t)v * sizeof *d) == 0,
                  "%s: distances of row %d differ from the oracle", what, i);
        CHECK(check_pred(what, first_tight, v, w, d, pred) == 0, "%s: wrong predecessors", what);
        CHECK(apsp_predecessors(g, m, 0, (size_t)v, 1, host, &err) == APSP_OK &&
                  memcmp(host, pred, cells * sizeof *pred) == 0,
              "%s: not byte-identical to apsp_predecessors", what);
    }
    apsp_matrix_destroy(m);
    free(d), free(pred), free(host), free(w), apsp_graph_destroy(g);
}

/* A matrix with an edge of weight 0 the graph (weights >= 1) lacks: refused, not derived. */
static void check_not_the_graphs(apsp_solver *solver) {
    int32_t v = 100;
    apsp_graph *g;
    apsp_matrix *m = NULL;
    apsp_error err;
    if (apsp_graph_create((size_t)v, 0, &g, NULL) != APSP_OK)
        return;
    for (int32_t k = 0; k < v; k++)
        apsp_graph_append(g, k, (k + 1) % v, 1 + k % 5, NULL);
    int32_t *pred = malloc((size_t)v * (size_t)v * sizeof *pred);
    if (pred && apsp_graph_to_matrix(g, &m, NULL) == APSP_OK) {
        apsp_matrix_row(m, 10)[60] = 0;
        apsp_status status = apsp_solver_solve_paths(solver, m, g, pred, NULL, &err);
        CHECK(status == APSP_ERR_USAGE && strstr(err.message, "not the graph's shortest"),
              "distances not the graph's: status %d, %s", (int)status, err.message);
    }
    apsp_matrix_destroy(m);
    apsp_graph_destroy(g);
    free(pred);
}

int main(int argc, char **argv) {
    apsp_options options;
    apsp_options_init(&options);
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strncmp(arg, "--backend=", 10) == 0 && apsp_backend_parse(arg + 10, &options.backend))
            return fprintf(stderr, "unknown backend %s\n", arg), 2;
        else if (strncmp(arg, "--device=", 9) == 0)
            options.device = arg + 9;
        else if (strncmp(arg, "--tile=", 7) == 0)
            options.tile = atoi(arg + 7);
        else if (strncmp(arg, "--max-buffer-bytes=", 19) == 0)
            options.max_buffer_bytes = strtoull(arg + 19, NULL, 10);
    }
    apsp_solver *solver;
    apsp_error err;
    if (apsp_solver_create(&options, &solver, &err) != APSP_OK) {
        const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
        fprintf(stderr, "no device: %s\n", err.message);
        return err.status == APSP_ERR_NO_DEVICE && !(require && strcmp(require, "1") == 0) ? 77 : 1;
    }
    const int32_t sizes[] = {1, 2, 3, 31, 63, 64, 65, 127, 128, 129, 200, 257};
    for (int kind = 0; kind < KINDS; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            check_graph(solver, options.backend == APSP_BACKEND_OPENCL, kind, sizes[s]);
    check_not_the_graphs(solver);
    apsp_solver_destroy(solver);
    printf("test-paths-device: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
