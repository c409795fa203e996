/* apsp_solver_solve_batch on an OpenCL device (src/opencl/batch.c, cl/batch.cl: a work-group per
 * graph in local memory; the larger graphs one at a time): a few hundred random graphs of 0 to 200
 * vertices in every element type, directed (with negative weights on edges that make no cycle)
 * and undirected, made from edges (packed) and from cells (padded), byte for byte against the
 * pthread backend's batch (tests/api/test_batch.c checks that against the oracle), and some
 * graphs against apsp_solver_solve alone on the device; the report says the device path ran; a
 * negative cycle is named by its graph.
 *
 *   test-batch-opencl [--device=SPEC] [--small]
 *
 * --small: 16 graphs of at most 25 vertices per type, none solved alone, for Oclgrind (suite
 * 'oclgrind': the blocked kernels have their own runs there).
 *
 * Exit status: 0 passed, 1 a failure, 77 (skipped) without an OpenCL device unless
 * APSP_TEST_REQUIRE_DEVICE=1. */
#include "apsp.h"
#include "batch_solvers.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GRAPHS = 300, PITCH = 200, ALONE_EVERY = 23 };

/* --small: the graphs of a batch and their most vertices (Oclgrind interprets every step). */
static unsigned graph_count = GRAPHS;
static int small;

static size_t size_of(unsigned g) {
    if (small)
        return g % 10 == 0 ? 0 : g % 10 == 1 ? 1 : 2 + (size_t)(rand() % 24);
    return g % 50 == 0   ? 0
           : g % 50 == 1 ? 1
           : g % 40 == 7 ? 61 + (size_t)(rand() % 140)
                         : 2 + (size_t)(rand() % 59);
}

/* A batch's edges: sizes, first, endpoints and weights (as double, stored in the dtype). */
typedef struct edge_set {
    size_t sizes[GRAPHS], first[GRAPHS + 1], cells, edges;
    int64_t *src, *dst;
    double *w;
    void *weight; /* w in the batch's dtype */
} edge_set;

/* v into cell `at`; +inf is the type's unreachable marker. */
static void put(apsp_dtype t, void *cells, size_t at, double v) {
    if (t == APSP_INT32)
        ((int32_t *)cells)[at] = isinf(v) ? APSP_INF : (int32_t)v;
    else if (t == APSP_INT64)
        ((int64_t *)cells)[at] = isinf(v) ? APSP_INF64 : (int64_t)v;
    else if (t == APSP_FLOAT32)
        ((float *)cells)[at] = (float)v;
    else
        ((double *)cells)[at] = v;
}

static double get(apsp_dtype t, const void *cells, size_t at) {
    return t == APSP_INT32     ? ((const int32_t *)cells)[at]
           : t == APSP_INT64   ? (double)((const int64_t *)cells)[at]
           : t == APSP_FLOAT32 ? ((const float *)cells)[at]
                               : ((const double *)cells)[at];
}

/* Random graphs; directed ones get negative weights without a negative cycle: weights of 1 to 10
 * (whole numbers for the integer types) shifted by potentials p(s) - p(d) of 0 to 5, so that
 * every cycle keeps its weight of at least 1. */
static void make_edges(edge_set *e, apsp_dtype t, int undirected) {
    const int real = t == APSP_FLOAT32 || t == APSP_FLOAT64;
    size_t nodes = 0;
    double p[PITCH];
    e->cells = e->edges = 0;
    e->src = malloc(GRAPHS * 230 * sizeof *e->src);
    e->dst = malloc(GRAPHS * 230 * sizeof *e->dst);
    e->w = malloc(GRAPHS * 230 * sizeof *e->w);
    e->weight = malloc(GRAPHS * 230 * sizeof(double));
    for (unsigned g = 0; g < graph_count; g++) {
        const size_t n = e->sizes[g] = size_of(g);
        e->first[g] = e->edges;
        for (size_t v = 0; v < n; v++)
            p[v] = undirected ? 0 : real ? rand() / (double)RAND_MAX * 5.0 : rand() % 6;
        for (size_t k = 0; n > 0 && k < n * 11 / 10; k++, e->edges++) {
            const size_t s = (size_t)rand() % n, d = (size_t)rand() % n;
            double w = (real ? 1 + rand() / (double)RAND_MAX * 9.0 : 1 + rand() % 10) + p[s] - p[d];
            if (t == APSP_FLOAT32)
                w = (float)w;
            e->src[e->edges] = (int64_t)(nodes + s);
            e->dst[e->edges] = (int64_t)(nodes + d);
            e->w[e->edges] = w;
            put(t, e->weight, e->edges, w);
        }
        nodes += n;
        e->cells += n * n;
    }
    e->first[graph_count] = e->edges;
}

/* The padded (GRAPHS, PITCH, PITCH) cells of the graphs: the least weight per pair. */
static void *padded_cells(const edge_set *e, apsp_dtype t, int undirected) {
    char *cells = calloc((size_t)GRAPHS * PITCH * PITCH, apsp_dtype_size(t));
    size_t node = 0;
    for (unsigned g = 0; g < graph_count; g++) {
        const size_t n = e->sizes[g], base = (size_t)g * PITCH * PITCH;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                put(t, cells, base + i * PITCH + j, i == j ? 0 : INFINITY);
        for (size_t k = e->first[g]; k < e->first[g + 1]; k++)
            for (int back = 0; back <= undirected; back++) {
                size_t s = (size_t)e->src[k] - node, d = (size_t)e->dst[k] - node;
                if (back)
                    s = d, d = (size_t)e->src[k] - node;
                if (s != d && e->w[k] < get(t, cells, base + s * PITCH + d))
                    put(t, cells, base + s * PITCH + d, e->w[k]);
            }
        node += n;
    }
    return cells;
}

/* Graph g of a padded batch solved alone on `solver`, against the batch's bytes. */
static int same_alone(apsp_solver *solver, apsp_dtype t, const char *input, const char *batch,
                      size_t g, size_t n) {
    const size_t cell = apsp_dtype_size(t), base = g * PITCH * PITCH * cell;
    apsp_matrix *m = NULL;
    apsp_error err;
    if (apsp_matrix_create_typed(n, t, &m, &err) != APSP_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        memcpy(apsp_matrix_row_cells(m, i), input + base + i * PITCH * cell, n * cell);
    int same = apsp_solver_solve(solver, m, NULL, &err) == APSP_OK;
    for (size_t i = 0; same && i < n; i++)
        same = memcmp(apsp_matrix_row_cells(m, i), batch + base + i * PITCH * cell, n * cell) == 0;
    apsp_matrix_destroy(m);
    return same;
}

static void test_type(apsp_solver *cpu, apsp_solver *cl, apsp_dtype t, int undirected) {
    edge_set e;
    make_edges(&e, t, undirected);
    const size_t cell = apsp_dtype_size(t), padded = (size_t)GRAPHS * PITCH * PITCH * cell;
    const apsp_batch_edges list = {e.src, e.dst, e.weight, e.first, undirected, 0};
    char *packed[2] = {malloc(e.cells * cell), malloc(e.cells * cell)};
    char *input = padded_cells(&e, t, undirected), *pad[2] = {malloc(padded), malloc(padded)};
    apsp_solver *solver[2] = {cpu, cl};
    apsp_report report;
    apsp_error err;
    for (int s = 0; s < 2; s++) {
        const apsp_batch from_edges = {graph_count, e.sizes, t, packed[s], 0, NULL, &list};
        CHECK(apsp_solver_solve_batch(solver[s], &from_edges, &report, &err) == APSP_OK,
              "%s edges (%s): %s", apsp_dtype_name(t), s ? "opencl" : "cpu", err.message);
        memcpy(pad[s], input, padded);
        const apsp_batch from_cells = {graph_count, e.sizes, t, pad[s], PITCH, NULL, NULL};
        CHECK(apsp_solver_solve_batch(solver[s], &from_cells, &report, &err) == APSP_OK,
              "%s cells (%s): %s", apsp_dtype_name(t), s ? "opencl" : "cpu", err.message);
    }
    CHECK(strstr(report.device, "work-group per graph") != NULL, "the device path ran: %s",
          report.device);
    CHECK(memcmp(packed[0], packed[1], e.cells * cell) == 0, "%s %s from edges: the same bytes",
          apsp_dtype_name(t), undirected ? "undirected" : "directed");
    for (size_t g = 0; g < graph_count; g++)
        for (size_t i = 0; i < e.sizes[g]; i++) {
            const size_t at = (g * PITCH * PITCH + i * PITCH) * cell;
            CHECK(memcmp(pad[0] + at, pad[1] + at, e.sizes[g] * cell) == 0,
                  "%s graph %zu row %zu from cells: the same bytes", apsp_dtype_name(t), g, i);
        }
    for (size_t g = 2; !small && g < graph_count; g += ALONE_EVERY)
        CHECK(same_alone(cl, t, input, pad[1], g, e.sizes[g]), "%s graph %zu as solved alone",
              apsp_dtype_name(t), g);
    for (int s = 0; s < 2; s++)
        free(packed[s]), free(pad[s]);
    free(input), free(e.src), free(e.dst), free(e.w), free(e.weight);
}

/* Graph 1 of three has a negative cycle, then graph 2 a cell past the marker: each refused,
 * naming the graph. */
static void test_cycle(apsp_solver *cl) {
    size_t sizes[3] = {3, 3, 3};
    int32_t cells[27];
    for (size_t k = 0; k < 27; k++)
        cells[k] = k % 3 == (k / 3) % 3 ? 0 : APSP_INF;
    cells[9 + 1] = 1, cells[9 + 3 + 2] = -3, cells[9 + 6] = 1; /* 0 -> 1 -> 2 -> 0 weighs -1 */
    const apsp_batch batch = {3, sizes, APSP_INT32, cells, 0, NULL, NULL};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(cl, &batch, NULL, &err) == APSP_ERR_NEGATIVE_CYCLE &&
              strncmp(err.message, "graph 1: ", 9) == 0,
          "a negative cycle: %s", err.message);
    for (size_t k = 0; k < 27; k++) /* (the refused call left distances) */
        cells[k] = k % 3 == (k / 3) % 3 ? 0 : APSP_INF;
    cells[18 + 1] = APSP_INF + 1; /* graph 2's cell (0, 1) past the marker */
    CHECK(apsp_solver_solve_batch(cl, &batch, NULL, &err) == APSP_ERR_USAGE &&
              strncmp(err.message, "graph 2: ", 9) == 0,
          "a cell against the rules: %s", err.message);
}

int main(int argc, char **argv) {
    srand(7);
    apsp_options c;
    apsp_options_init(&c);
    c.backend = APSP_BACKEND_OPENCL;
    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], "--device=", 9) == 0)
            c.device = argv[a] + 9;
        else if (strcmp(argv[a], "--small") == 0)
            small = 1, graph_count = 16;
        else {
            fprintf(stderr, "usage: test-batch-opencl [--device=SPEC] [--small]\n");
            return 2;
        }
    }
    apsp_solver *cpu = NULL, *cl = NULL;
    const int status = batch_solvers(&c, &cpu, &cl);
    if (status)
        return status;
    const apsp_dtype types[] = {APSP_INT32, APSP_INT64, APSP_FLOAT32, APSP_FLOAT64};
    for (size_t k = 0; k < 4; k++)
        for (int undirected = 0; undirected < 2; undirected++)
            test_type(cpu, cl, types[k], undirected);
    test_cycle(cl);
    apsp_solver_destroy(cl);
    apsp_solver_destroy(cpu);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
