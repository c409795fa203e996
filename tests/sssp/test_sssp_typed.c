/* apsp_solver_solve_sources_typed against tests/support's int64 Floyd-Warshall: weights too wide
 * for int32's rule (up to 2^40), positive, negative by vertex potentials (no negative cycle) and
 * signed (negative cycles often), every method, int64 rows equal to the oracle's byte for byte;
 * the same integer graphs as float64 rows (exact: every distance is below 2^53); predecessor
 * rows each a shortest-path tree. Real weights are checked against SciPy (test_sssp_scipy.py,
 * tests/python/test_sources.py).
 *
 *     test-sssp-typed [--threads=N] */
#include "apsp.h"
#include "check.h"
#include "collect.h"
#include "graphgen.h"
#include "oracle_typed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct wide_graph {
    size_t v;
    apsp_graph *graph;
    int64_t *least; /* V x V least weights, ORACLE_INF64: none (self-loops left out) */
    int64_t *d;     /* the oracle's distances */
    int negative;
} wide_graph;

/* A random graph of about 3 V edges, weights up to `top`, shaped by `mode`: 0 positive, 1 by
 * potentials, 2 signed. */
static void make_wide(wide_graph *w, size_t v, int mode, int64_t top, uint64_t seed) {
    size_t e = 3 * v;
    apsp_error err;
    w->v = v;
    w->negative = 0;
    apsp_graph_create(v, e, &w->graph, &err);
    w->least = malloc(v * v * sizeof *w->least);
    w->d = malloc(v * v * sizeof *w->d);
    int64_t *potential = malloc(v * sizeof *potential);
    for (size_t i = 0; i < v * v; i++)
        w->least[i] = ORACLE_INF64;
    for (size_t i = 0; i < v; i++)
        potential[i] = (int64_t)gg_below(&seed, (uint64_t)top);
    for (size_t k = 0; k < e; k++) {
        size_t a = gg_below(&seed, v), b = gg_below(&seed, v);
        int64_t weight = 1 + (int64_t)gg_below(&seed, (uint64_t)top);
        if (mode == 1)
            weight += potential[a] - potential[b];
        else if (mode == 2)
            weight -= (int64_t)gg_below(&seed, (uint64_t)top / 3);
        apsp_graph_append(w->graph, (int32_t)a, (int32_t)b, weight, &err);
        if (a != b && weight < w->least[a * v + b])
            w->least[a * v + b] = weight;
        w->negative |= a != b && weight < 0;
    }
    memcpy(w->d, w->least, v * v * sizeof *w->d);
    for (size_t i = 0; i < v; i++)
        w->d[i * v + i] = 0;
    oracle_floyd_warshall_i64(w->d, v);
    free(potential);
}

static void free_wide(wide_graph *w) {
    apsp_graph_destroy(w->graph);
    free(w->least);
    free(w->d);
}

static int has_cycle(const wide_graph *w) {
    for (size_t i = 0; i < w->v; i++)
        if (w->d[i * w->v + i] < 0)
            return 1;
    return 0;
}

/* Rows of predecessors that are no shortest-path tree of their source. */
static size_t bad_trees(const wide_graph *w, const int32_t *pred, const int32_t *sources,
                        size_t count) {
    size_t v = w->v, bad = 0;
    for (size_t r = 0; r < count; r++) {
        size_t s = (size_t)sources[r];
        const int32_t *row = pred + r * v;
        const int64_t *ds = w->d + s * v;
        int wrong = row[s] != APSP_NO_PREDECESSOR;
        for (size_t t = 0; t < v && !wrong; t++) {
            if (t == s || ds[t] == ORACLE_INF64) {
                wrong = t != s && row[t] != APSP_NO_PREDECESSOR;
                continue;
            }
            int32_t p = row[t];
            wrong = p < 0 || (size_t)p >= v || w->least[(size_t)p * v + t] == ORACLE_INF64 ||
                    ds[p] + w->least[(size_t)p * v + t] != ds[t];
        }
        bad += (size_t)wrong;
    }
    return bad;
}

/* The rows of `dtype` (int64 or float64) from every method, against the oracle. */
static void check_method(apsp_solver *solver, const wide_graph *w, const int32_t *sources,
                         size_t count, apsp_method method, apsp_dtype dtype, const char *name) {
    size_t v = w->v, bytes = apsp_dtype_size(dtype);
    collected c = {v, 0, bytes, malloc(count * v * bytes)};
    collected p = {v, 0, 4, malloc(count * v * 4)};
    apsp_error err = {0};
    apsp_status status =
        apsp_solver_solve_sources_typed(solver, w->graph, sources, count, method, dtype, collect,
                                        &c, collect_int32, &p, NULL, &err);
    const char *m = apsp_method_name(method), *t = apsp_dtype_name(dtype);
    if (method == APSP_METHOD_DIJKSTRA && w->negative) {
        CHECK(status == APSP_ERR_USAGE, "%s %s dijkstra on negative weights: %s", name, t,
              err.message);
    } else if (has_cycle(w)) { /* (Bellman-Ford may not reach it: either answer, checked) */
        CHECK(status == APSP_ERR_NEGATIVE_CYCLE || method == APSP_METHOD_BELLMAN_FORD,
              "%s %s %s: negative cycle missed (%d)", name, t, m, (int)status);
    } else {
        CHECK(status == APSP_OK && c.rows == count, "%s %s %s: %s", name, t, m, err.message);
        size_t wrong = 0;
        for (size_t r = 0; status == APSP_OK && r < count; r++)
            for (size_t x = 0; x < v; x++) {
                int64_t want = w->d[(size_t)sources[r] * v + x];
                const unsigned char *cell = c.cells + (r * v + x) * bytes;
                if (dtype == APSP_INT64) {
                    int64_t got;
                    memcpy(&got, cell, 8);
                    wrong += got != want;
                } else {
                    double got;
                    memcpy(&got, cell, 8);
                    wrong += want == ORACLE_INF64 ? got != (double)INFINITY : got != (double)want;
                }
            }
        CHECK(wrong == 0, "%s %s %s: %zu cells differ from the oracle's", name, t, m, wrong);
        size_t trees =
            status == APSP_OK ? bad_trees(w, (const int32_t *)p.cells, sources, count) : 0;
        CHECK(trees == 0, "%s %s %s: %zu predecessor rows are no shortest-path tree", name, t, m,
              trees);
    }
    free(c.cells);
    free(p.cells);
}

int main(int argc, char **argv) {
    apsp_options options;
    apsp_options_init(&options);
    options.backend = APSP_BACKEND_CPU;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--threads=", 10) == 0)
            options.threads = atoi(argv[i] + 10);
    apsp_solver *solver;
    apsp_error err;
    if (apsp_solver_create(&options, &solver, &err) != APSP_OK) {
        fprintf(stderr, "test-sssp-typed: %s\n", err.message);
        return 1;
    }
    const size_t sizes[] = {1, 2, 7, 40, 150};
    const char *modes[] = {"positive", "potentials", "signed"};
    uint64_t seed = 12345;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int mode = 0; mode < 3; mode++) {
            wide_graph w;
            make_wide(&w, sizes[i], mode, (int64_t)1 << 40, seed++);
            size_t count = 1 + gg_below(&seed, 2 * sizes[i]);
            int32_t *sources = malloc(count * sizeof *sources);
            for (size_t k = 0; k < count; k++)
                sources[k] = (int32_t)gg_below(&seed, sizes[i]);
            char name[64];
            snprintf(name, sizeof name, "V=%zu %s", sizes[i], modes[mode]);
            for (int m = APSP_METHOD_AUTO; m <= APSP_METHOD_BELLMAN_FORD; m++) {
                check_method(solver, &w, sources, count, (apsp_method)m, APSP_INT64, name);
                check_method(solver, &w, sources, count, (apsp_method)m, APSP_FLOAT64, name);
            }
            /* int32 refuses these weights (its rule), naming one */
            CHECK(sizes[i] < 2 || w.graph->edges == 0 ||
                      apsp_solver_solve_sources_typed(solver, w.graph, sources, count,
                                                      APSP_METHOD_AUTO, APSP_INT32, collect, NULL,
                                                      NULL, NULL, NULL, &err) == APSP_ERR_USAGE,
                  "%s: int32 took weights past its rule", name);
            free(sources);
            free_wide(&w);
        }
    apsp_solver_destroy(solver);
    printf("test-sssp-typed: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
