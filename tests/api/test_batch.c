/* apsp_solver_solve_batch (apsp_batch.h) on the pthread backend: a few hundred random graphs of
 * 0 to 200 vertices, made from edges (packed) and from cells (padded), each against the oracle's
 * plain Floyd-Warshall and its predecessors checked as a shortest-path tree; float64 graphs
 * byte for byte against apsp_solver_solve alone; refusals naming the graph. The python suite's
 * test_batch.py runs thousands against SciPy. */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GRAPHS = 300, MOST = 200 };

/* Graph sizes: mostly molecule-sized, some 0 and 1, a few past the small solve's 128. */
static size_t size_of(unsigned g) {
    return g % 50 == 0   ? 0
           : g % 50 == 1 ? 1
           : g % 60 == 7 ? 129 + (size_t)(rand() % 72)
                         : 2 + (size_t)(rand() % 60);
}

/* Whether pred is a shortest-path tree of d over the oracle's edge matrix w (all n x n). */
static int tree_ok(const int32_t *d, const int32_t *pred, const int32_t *w, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const int32_t p = pred[i * n + j];
            if (i == j || d[i * n + j] == ORACLE_INF) {
                if (p != APSP_NO_PREDECESSOR)
                    return 0;
            } else if (p < 0 || (size_t)p >= n || w[(size_t)p * n + j] == ORACLE_INF ||
                       d[i * n + (size_t)p] + w[(size_t)p * n + j] != d[i * n + j])
                return 0;
        }
    return 1;
}

/* GRAPHS random graphs of size_of's sizes (wide: every seventh of 65-128 vertices instead),
 * E = 1.1 V, weights 1-20 (src, dst and weight of GRAPHS * 300 entries); returns the packed
 * batch's cells. */
static size_t random_edges(size_t *sizes, size_t *first, int64_t *src, int64_t *dst,
                           int32_t *weight, int wide) {
    size_t cells = 0, nodes = 0, edges = 0;
    for (unsigned g = 0; g < GRAPHS; g++) {
        sizes[g] = wide && g % 7 == 5 ? 65 + (size_t)(rand() % 64) : size_of(g);
        first[g] = edges;
        for (size_t e = 0; sizes[g] > 0 && e < sizes[g] * 11 / 10; e++, edges++) {
            src[edges] = (int64_t)(nodes + (size_t)rand() % sizes[g]);
            dst[edges] = (int64_t)(nodes + (size_t)rand() % sizes[g]);
            weight[edges] = 1 + rand() % 20;
        }
        nodes += sizes[g];
        cells += sizes[g] * sizes[g];
    }
    first[GRAPHS] = edges;
    return cells;
}

/* Graph g's distances by the oracle (weight NULL: every edge 1), its n x n cells malloc'd. */
static int32_t *oracle_graph(const size_t *first, const int64_t *src, const int64_t *dst,
                             const int32_t *weight, size_t g, size_t n, size_t node,
                             int undirected) {
    int32_t *want = oracle_matrix_new(n ? (int32_t)n : 1);
    for (size_t e = first[g]; e < first[g + 1]; e++)
        for (int way = 0; way <= undirected; way++) {
            const int32_t s = (int32_t)((way ? dst[e] : src[e]) - (int64_t)node);
            const int32_t t = (int32_t)((way ? src[e] : dst[e]) - (int64_t)node);
            oracle_add_edge(want, (int32_t)n, s, t, weight ? weight[e] : 1);
        }
    oracle_floyd_warshall(want, (int32_t)n);
    return want;
}

static void test_int32_edges(apsp_solver *solver, int undirected) {
    size_t sizes[GRAPHS], first[GRAPHS + 1];
    int64_t *src = malloc(GRAPHS * 300 * sizeof *src), *dst = malloc(GRAPHS * 300 * sizeof *dst);
    int32_t *weight = malloc(GRAPHS * 300 * sizeof *weight);
    const size_t cells = random_edges(sizes, first, src, dst, weight, 0);
    int32_t *d = malloc(cells * sizeof *d), *pred = malloc(cells * sizeof *pred);
    const apsp_batch_edges list = {src, dst, weight, first, undirected, 0};
    const apsp_batch batch = {GRAPHS, sizes, APSP_INT32, d, 0, pred, &list};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_OK, "batch: %s", err.message);
    size_t at = 0, node = 0;
    for (unsigned g = 0; g < GRAPHS; g++) {
        const size_t n = sizes[g];
        int32_t *w = oracle_matrix_new((int32_t)(n ? n : 1));
        for (size_t e = first[g]; e < first[g + 1]; e++)
            for (int way = 0; way <= undirected; way++)
                oracle_add_edge(w, (int32_t)n, (int32_t)((way ? dst[e] : src[e]) - (int64_t)node),
                                (int32_t)((way ? src[e] : dst[e]) - (int64_t)node), weight[e]);
        int32_t *want = oracle_graph(first, src, dst, weight, g, n, node, undirected);
        CHECK(n == 0 || memcmp(want, d + at, n * n * sizeof *d) == 0, "graph %u (V = %zu, %s)", g,
              n, undirected ? "undirected" : "directed");
        CHECK(tree_ok(d + at, pred + at, w, n), "graph %u: predecessors", g);
        free(w);
        free(want);
        at += n * n;
        node += n;
    }
    free(d);
    free(pred);
    free(src);
    free(dst);
    free(weight);
}

/* Without `first` (apsp_batch_edges.first NULL: the library finds each graph's first edge):
 * many graphs of 0-12 vertices, a third of them empty, some without edges, so that the slices
 * of the library's search (4096 edges and more) begin and end inside graphs, between them and on
 * empty ones; the cells those of the same batch with `first`, on 1, 2 and 7 threads. Edges out
 * of their graphs' order, and a source outside the batch, refused naming the edge. */
static void test_without_first(void) {
    enum { MANY = 6000 };
    size_t *sizes = malloc(MANY * sizeof *sizes), *first = malloc((MANY + 1) * sizeof *first);
    int64_t *src = malloc(MANY * 20 * sizeof *src), *dst = malloc(MANY * 20 * sizeof *dst);
    size_t cells = 0, nodes = 0, edges = 0;
    for (size_t g = 0; g < MANY; g++) {
        sizes[g] = g % 3 == 0 ? 0 : (size_t)(rand() % 13);
        first[g] = edges;
        for (size_t e = 0; sizes[g] > 0 && e < (size_t)(rand() % 20); e++, edges++) {
            src[edges] = (int64_t)(nodes + (size_t)rand() % sizes[g]);
            dst[edges] = (int64_t)(nodes + (size_t)rand() % sizes[g]);
        }
        nodes += sizes[g];
        cells += sizes[g] * sizes[g];
    }
    first[MANY] = edges;
    int32_t *want = malloc(cells * sizeof *want), *got = malloc(cells * sizeof *got);
    apsp_batch_edges given = {src, dst, NULL, first, 0, 0},
                     found = {src, dst, NULL, NULL, 0, edges};
    apsp_batch batch = {MANY, sizes, APSP_INT32, want, 0, NULL, &given};
    apsp_error err;
    const int threads[] = {1, 2, 7};
    for (unsigned k = 0; k < sizeof threads / sizeof *threads; k++) {
        apsp_options o;
        apsp_options_init(&o);
        o.backend = APSP_BACKEND_CPU;
        o.threads = threads[k];
        apsp_solver *solver = NULL;
        CHECK(apsp_solver_create(&o, &solver, &err) == APSP_OK, "solver: %s", err.message);
        batch.cells = want, batch.edges = &given;
        CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_OK, "with first: %s",
              err.message);
        memset(got, 0x55, cells * sizeof *got);
        batch.cells = got, batch.edges = &found;
        CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_OK, "without first: %s",
              err.message);
        CHECK(memcmp(want, got, cells * sizeof *got) == 0,
              "without first, %d threads: cells differ", threads[k]);
        const int64_t kept = src[edges / 2];
        src[edges / 2] = src[edges / 4] - 1; /* into a graph before the edge before's */
        CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_USAGE &&
                  strstr(err.message, "not grouped by graph") != NULL,
              "edges out of order: %s", err.message);
        src[edges / 2] = (int64_t)nodes;
        CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_USAGE &&
                  strstr(err.message, "leaves the batch's vertices") != NULL,
              "a source outside the batch: %s", err.message);
        src[edges / 2] = kept;
        apsp_solver_destroy(solver);
    }
    free(sizes);
    free(first);
    free(src);
    free(dst);
    free(want);
    free(got);
}

/* Whether graph g's block of the padded unweighted batch (int32 or float64 cells of pitch MOST)
 * holds the oracle's distances want of its n x n, the type's marker for no path and outside. */
static int block_ok(apsp_dtype dtype, const void *cells, size_t g, const int32_t *want, size_t n) {
    for (size_t i = 0; i < MOST; i++)
        for (size_t j = 0; j < MOST; j++) {
            const int32_t d = i < n && j < n ? want[i * n + j] : ORACLE_INF;
            const size_t at = (g * MOST + i) * MOST + j;
            if (dtype == APSP_INT32
                    ? ((const int32_t *)cells)[at] != (d == ORACLE_INF ? APSP_INF : d)
                    : ((const double *)cells)[at] != (d == ORACLE_INF ? INFINITY : (double)d))
                return 0;
        }
    return 1;
}

/* Edges without weights (every edge 1), no predecessors, padded: the graphs of at most 128
 * vertices by breadth-first search (drivers/batch_hops.c: 1-64 of one word, 65-128 of two),
 * the others by the solve; each block
 * the oracle's distances and the marker around them, int32 and float64; an edge leaving its
 * graph refused as with weights. */
static void test_unweighted(apsp_solver *solver, apsp_dtype dtype, int undirected) {
    size_t sizes[GRAPHS], first[GRAPHS + 1];
    int64_t *src = malloc(GRAPHS * 300 * sizeof *src), *dst = malloc(GRAPHS * 300 * sizeof *dst);
    int32_t *weight = malloc(GRAPHS * 300 * sizeof *weight);
    random_edges(sizes, first, src, dst, weight, 1);
    void *cells = malloc(GRAPHS * MOST * MOST * sizeof(double));
    const apsp_batch_edges list = {src, dst, NULL, first, undirected, 0};
    const apsp_batch batch = {GRAPHS, sizes, dtype, cells, MOST, NULL, &list};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_OK, "unweighted: %s",
          err.message);
    for (size_t g = 0, node = 0; g < GRAPHS; node += sizes[g], g++) {
        int32_t *want = oracle_graph(first, src, dst, NULL, g, sizes[g], node, undirected);
        CHECK(block_ok(dtype, cells, g, want, sizes[g]), "unweighted %s graph %zu (V = %zu, %s)",
              dtype == APSP_INT32 ? "int32" : "float64", g, sizes[g],
              undirected ? "undirected" : "directed");
        free(want);
    }
    dst[first[3] + 1] = (int64_t)sizes[0] + (int64_t)sizes[1] + (int64_t)sizes[2] - 1;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_USAGE &&
              strncmp(err.message, "graph 3: edge ", 14) == 0 && strstr(err.message, "leaves"),
          "unweighted, an edge leaving its graph: %s", err.message);
    free(cells);
    free(src);
    free(dst);
    free(weight);
}

/* float64 graphs of real weights in a padded batch: each graph's bytes those of a solve alone. */
static void test_float64_alone(apsp_solver *solver) {
    enum { COUNT = 60 };
    size_t sizes[COUNT];
    double *cells = malloc(COUNT * MOST * MOST * sizeof *cells);
    for (unsigned g = 0; g < COUNT; g++) {
        sizes[g] = size_of(g);
        for (size_t i = 0; i < MOST * MOST; i++) {
            const size_t r = i / MOST, c = i % MOST;
            cells[g * MOST * MOST + i] = r == c ? 0 : rand() % 4 ? INFINITY : rand() / 1e7;
        }
    }
    double *alone = malloc(COUNT * MOST * MOST * sizeof *alone);
    memcpy(alone, cells, COUNT * MOST * MOST * sizeof *cells);
    const apsp_batch batch = {COUNT, sizes, APSP_FLOAT64, cells, MOST, NULL, NULL};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_OK, "float64: %s",
          err.message);
    for (unsigned g = 0; g < COUNT; g++) {
        const size_t n = sizes[g];
        apsp_matrix *m = NULL;
        if (n == 0 || apsp_matrix_create_typed(n, APSP_FLOAT64, &m, &err) != APSP_OK)
            continue;
        for (size_t i = 0; i < n; i++)
            memcpy(apsp_matrix_row_cells(m, i), alone + g * MOST * MOST + i * MOST, n * 8);
        CHECK(apsp_solver_solve(solver, m, NULL, &err) == APSP_OK, "alone: %s", err.message);
        for (size_t i = 0; i < n; i++)
            CHECK(memcmp(apsp_matrix_row_cells(m, i), cells + g * MOST * MOST + i * MOST, n * 8) ==
                      0,
                  "float64 graph %u (V = %zu) row %zu: not the bytes of a solve alone", g, n, i);
        apsp_matrix_destroy(m);
    }
    free(cells);
    free(alone);
}

/* An edge leaving its graph, a weight past the rule (the check the fill's facts skip otherwise)
 * and a negative cycle, each refused naming the graph. */
static void test_refusals(apsp_solver *solver) {
    size_t sizes[] = {2, 3}, first[] = {0, 1, 3};
    int64_t src[] = {0, 2, 3}, dst[] = {1, 1, 4};
    int32_t weight[] = {1, 1, 1}, d[13];
    apsp_batch_edges list = {src, dst, weight, first, 0, 0};
    const apsp_batch batch = {2, sizes, APSP_INT32, d, 0, NULL, &list};
    apsp_error err;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_USAGE &&
              strncmp(err.message, "graph 1: edge 1 ", 16) == 0,
          "an edge leaving its graph: %s", err.message);
    weight[0] = APSP_INF / 2; /* within graph 0's rule (V = 2), past graph 1's (V = 3) */
    dst[1] = 3, src[2] = 3, dst[2] = 4, weight[1] = APSP_INF / 2 + 1;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_USAGE &&
              strncmp(err.message, "graph 1: matrix: a weight of magnitude", 38) == 0,
          "a weight past the rule: %s", err.message);
    weight[0] = weight[1] = 1;
    dst[1] = 4;
    src[2] = 4, dst[2] = 2, weight[1] = 1, weight[2] = -2;
    CHECK(apsp_solver_solve_batch(solver, &batch, NULL, &err) == APSP_ERR_NEGATIVE_CYCLE &&
              strncmp(err.message, "graph 1: ", 9) == 0,
          "a negative cycle: %s", err.message);
}

int main(void) {
    srand(42);
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    o.threads = 2;
    apsp_solver *solver = NULL;
    apsp_error err;
    if (apsp_solver_create(&o, &solver, &err) != APSP_OK) {
        fprintf(stderr, "solver: %s\n", err.message);
        return 1;
    }
    test_int32_edges(solver, 0);
    test_int32_edges(solver, 1);
    for (int undirected = 0; undirected <= 1; undirected++) {
        test_unweighted(solver, APSP_INT32, undirected);
        test_unweighted(solver, APSP_FLOAT64, undirected);
    }
    test_float64_alone(solver);
    test_refusals(solver);
    apsp_solver_destroy(solver);
    test_without_first();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
