/* apsp_solver_solve_sources_typed against tests/support's int64 Floyd-Warshall: weights too wide
 * for int32's rule (up to 2^40), positive, negative by vertex potentials (no negative cycle) and
 * signed (negative cycles often), every method, int64 rows equal to the oracle's byte for byte;
 * the same integer graphs as float64 rows (exact: every distance is below 2^53); predecessor
 * rows each a shortest-path tree. Real weights are checked against SciPy (test_sssp_scipy.py,
 * tests/python/test_sources.py). Graphs on either side of the narrow path's bound, the sum of
 * the V - 1 largest weights searched (Johnson's reweighted ones) below INT32_MAX, check the rows
 * and that the report of Dijkstra, Johnson and Bellman-Ford names the width the bound gives
 * (src/sssp/narrow.c); Bellman-Ford on negative weights takes 32-bit distances within int32's
 * per-weight rule, and a negative cycle whose sums pass -APSP_INF before round V is still found
 * and named (bellman_ford_distances_signed's stop and int64 rerun).
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

/* w->d from w->least by the oracle. */
static void solve_oracle(wide_graph *w) {
    size_t v = w->v;
    memcpy(w->d, w->least, v * v * sizeof *w->d);
    for (size_t i = 0; i < v; i++)
        w->d[i * v + i] = 0;
    oracle_floyd_warshall_i64(w->d, v);
}

/* An empty graph on v vertices, room for `edges`, no least weight yet. */
static void start_wide(wide_graph *w, size_t v, size_t edges) {
    apsp_error err;
    w->v = v;
    w->negative = 0;
    apsp_graph_create(v, edges, &w->graph, &err);
    w->least = malloc(v * v * sizeof *w->least);
    w->d = malloc(v * v * sizeof *w->d);
    for (size_t i = 0; i < v * v; i++)
        w->least[i] = ORACLE_INF64;
}

/* The edge a -> b into the graph and the least weights (self-loops left out). */
static void add_edge(wide_graph *w, size_t a, size_t b, int64_t weight) {
    apsp_error err;
    apsp_graph_append(w->graph, (int32_t)a, (int32_t)b, weight, &err);
    if (a != b && weight < w->least[a * w->v + b])
        w->least[a * w->v + b] = weight;
    w->negative |= a != b && weight < 0;
}

/* A random graph of about 3 V edges, weights up to `top`, shaped by `mode`: 0 positive, 1 by
 * potentials, 2 signed. */
static void make_wide(wide_graph *w, size_t v, int mode, int64_t top, uint64_t seed) {
    size_t e = 3 * v;
    start_wide(w, v, e);
    int64_t *potential = malloc(v * sizeof *potential);
    for (size_t i = 0; i < v; i++)
        potential[i] = (int64_t)gg_below(&seed, (uint64_t)top);
    for (size_t k = 0; k < e; k++) {
        size_t a = gg_below(&seed, v), b = gg_below(&seed, v);
        int64_t weight = 1 + (int64_t)gg_below(&seed, (uint64_t)top);
        if (mode == 1)
            weight += potential[a] - potential[b];
        else if (mode == 2)
            weight -= (int64_t)gg_below(&seed, (uint64_t)top / 3);
        add_edge(w, a, b, weight);
    }
    free(potential);
    solve_oracle(w);
}

/* A graph of the `count` edges (source, target, weight) listed, and its oracle. */
static void make_listed(wide_graph *w, size_t v, const int64_t (*edges)[3], size_t count) {
    start_wide(w, v, count);
    for (size_t k = 0; k < count; k++)
        add_edge(w, (size_t)edges[k][0], (size_t)edges[k][1], edges[k][2]);
    solve_oracle(w);
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

/* One cell of a row of `dtype` as the oracle writes it: whether it holds `want`. */
static int cell_is(const unsigned char *cell, apsp_dtype dtype, int64_t want) {
    if (dtype == APSP_INT32) {
        int32_t got;
        memcpy(&got, cell, 4);
        return want == ORACLE_INF64 ? got == APSP_INF : got == want;
    }
    if (dtype == APSP_INT64) {
        int64_t got;
        memcpy(&got, cell, 8);
        return got == want;
    }
    double got;
    memcpy(&got, cell, 8);
    return want == ORACLE_INF64 ? got == (double)INFINITY : got == (double)want;
}

/* The rows of `dtype` (int32, int64 or float64) from every method, against the oracle; with
 * `width` ("32-bit" or "64-bit", or the queue), Dijkstra's and Johnson's report must name it. */
static void check_method(apsp_solver *solver, const wide_graph *w, const int32_t *sources,
                         size_t count, apsp_method method, apsp_dtype dtype, const char *name,
                         const char *width) {
    size_t v = w->v, bytes = apsp_dtype_size(dtype);
    collected c = {v, 0, bytes, malloc(count * v * bytes)};
    collected p = {v, 0, 4, malloc(count * v * 4)};
    apsp_error err = {0};
    apsp_report report;
    apsp_status status =
        apsp_solver_solve_sources_typed(solver, w->graph, sources, count, method, dtype, collect,
                                        &c, collect_int32, &p, &report, &err);
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
            for (size_t x = 0; x < v; x++)
                wrong += !cell_is((const unsigned char *)c.cells + (r * v + x) * bytes, dtype,
                                  w->d[(size_t)sources[r] * v + x]);
        CHECK(wrong == 0, "%s %s %s: %zu cells differ from the oracle's", name, t, m, wrong);
        size_t trees =
            status == APSP_OK ? bad_trees(w, (const int32_t *)p.cells, sources, count) : 0;
        CHECK(trees == 0, "%s %s %s: %zu predecessor rows are no shortest-path tree", name, t, m,
              trees);
        CHECK(!width || status != APSP_OK || strstr(report.choice, width),
              "%s %s %s: the report says \"%s\", not %s distances", name, t, m, report.choice,
              width);
    }
    free(c.cells);
    free(p.cells);
}

/* (INT32_MAX - 1) / 6: the largest weight that keeps Dijkstra's distances on 7 vertices narrow. */
#define NARROW_TOP INT64_C(357913941)

/* The sum of the 6 largest |w| of a listed graph (none of its edges is a self-loop). */
static int64_t six_largest(const int64_t (*edges)[3], size_t count) {
    int64_t taken[6] = {0}, sum = 0;
    for (size_t k = 0; k < count; k++) {
        int64_t w = llabs(edges[k][2]);
        for (size_t i = 0; i < 6; i++)
            if (w > taken[i]) {
                int64_t out = taken[i];
                taken[i] = w;
                w = out;
            }
    }
    for (size_t i = 0; i < 6; i++)
        sum += taken[i];
    return sum;
}

/* int32 rows that rest on the path bound alone: auto must not take Floyd-Warshall (whose
 * kernels keep the per-weight rule) and gives the oracle's rows; fw asked for is refused. */
static void check_fw_left_out(apsp_solver *solver, const wide_graph *w, const char *name) {
    const int32_t every[] = {0, 1, 2, 3, 4, 5, 6};
    check_method(solver, w, every, 7, APSP_METHOD_AUTO, APSP_INT32, name, NULL);
    collected c = {w->v, 0, 4, malloc(7 * w->v * 4)};
    apsp_error err = {0};
    apsp_status status =
        apsp_solver_solve_sources_typed(solver, w->graph, every, 7, APSP_METHOD_FW, APSP_INT32,
                                        collect, &c, NULL, NULL, NULL, &err);
    CHECK(status == APSP_ERR_USAGE, "%s: fw's int32 rows past the per-weight rule: %d (%s)", name,
          (int)status, err.message);
    free(c.cells);
}

/* Graphs on 7 vertices at the narrow bound's edge, Dijkstra, Johnson and Bellman-Ford on each,
 * every source, int64 rows (int32 where the graph is within int32's rule) and float64. */
static void check_narrow_rule(apsp_solver *solver) {
    /* A path 0 -> ... -> 6 of the largest weight: its last distance is INT32_MAX - 1; one unit
     * more on one edge and the rule sends the search to int64 (its distances still fit uint32:
     * the report tells the two apart). Then a path of weights that pack into 32 bits but whose
     * sums pass 2^32, which a narrow search would wrap. */
    const int64_t top = NARROW_TOP, big = INT32_MAX - 1;
    const int64_t plain_under[][3] = {{0, 1, top}, {1, 2, top}, {2, 3, top}, {3, 4, top},
                                      {4, 5, top}, {5, 6, top}, {0, 3, 5},   {6, 2, 1}};
    const int64_t plain_over[][3] = {{0, 1, top}, {1, 2, top + 1}, {2, 3, top}, {3, 4, top},
                                     {4, 5, top}, {5, 6, top},     {0, 3, 5},   {6, 2, 1}};
    const int64_t plain_wraps[][3] = {{0, 1, big}, {1, 2, big}, {2, 3, big}, {3, 4, big},
                                      {4, 5, big}, {5, 6, big}, {6, 0, 3}};
    /* Long arcs: (V - 1) max w passes 2^31 (the rule before the path bound), but one arc of
     * 10^9 and short edges stay below it; two arcs of 1.1 x 10^9 do not. */
    const int64_t long_arc[][3] = {{0, 1, 7},  {1, 2, 1000000000}, {2, 3, 9},
                                   {3, 4, 11}, {4, 5, 13},         {5, 6, 17}};
    const int64_t long_arcs[][3] = {{0, 1, 7},  {1, 2, 1100000000}, {2, 3, 9},
                                    {3, 4, 11}, {4, 5, 1100000000}, {5, 6, 17}};
    /* Johnson: 6 -> 0 of weight -N (6 has no in-edge) makes h(0) = -N and leaves h = 0
     * elsewhere, so each u -> 0 of weight x is searched as x + N. Four of X and one of A put the
     * sum of the 6 largest reweighted weights at INT32_MAX - 1 (narrow), and one more on A at
     * INT32_MAX (not); the sum of the 6 largest |w| of the graph itself is far below: the bound
     * must be taken on the reweighted weights. */
    const int64_t n = 200000000, x = 229496729, a = 229496730;
    const int64_t johnson_under[][3] = {{6, 0, -n}, {1, 0, a}, {2, 0, x},
                                        {3, 0, x},  {4, 0, x}, {5, 0, x}};
    const int64_t johnson_over[][3] = {{6, 0, -n}, {1, 0, a + 1}, {2, 0, x},
                                       {3, 0, x},  {4, 0, x},     {5, 0, x}};
    /* Johnson within int32's rule, (V - 1) max|w| <= APSP_INF - 1: 6 -> 5 -> 0 of -M each makes
     * h(5) = -M, h(0) = -2M, so 1..4 -> 0 of weight M are searched as 3M and 1, 2 -> 5 of M as
     * 2M: 16M past the path bound, int32 rows from the int64 search. */
    const int64_t m = 170000000;
    const int64_t johnson_int32[][3] = {{6, 5, -m}, {5, 0, -m}, {1, 0, m}, {2, 0, m},
                                        {3, 0, m},  {4, 0, m},  {1, 5, m}, {2, 5, m}};
    const struct {
        const char *name;
        const int64_t (*edges)[3];
        size_t count;
        const char *width;
    } cases[] = {
        {"narrow: plain just under", plain_under, sizeof plain_under / sizeof plain_under[0],
         "32-bit"},
        {"narrow: plain just over", plain_over, sizeof plain_over / sizeof plain_over[0], "64-bit"},
        {"narrow: plain past 2^32", plain_wraps, sizeof plain_wraps / sizeof plain_wraps[0],
         "64-bit"},
        {"narrow: one long arc", long_arc, sizeof long_arc / sizeof long_arc[0], "32-bit"},
        {"narrow: two long arcs", long_arcs, sizeof long_arcs / sizeof long_arcs[0], "64-bit"},
        {"narrow: johnson just under", johnson_under,
         sizeof johnson_under / sizeof johnson_under[0], "32-bit"},
        {"narrow: johnson just over", johnson_over, sizeof johnson_over / sizeof johnson_over[0],
         "64-bit"},
        {"narrow: johnson int32 rows", johnson_int32,
         sizeof johnson_int32 / sizeof johnson_int32[0], "64-bit"},
    };
    const int32_t every[] = {0, 1, 2, 3, 4, 5, 6};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wide_graph w;
        make_listed(&w, 7, cases[i].edges, cases[i].count);
        CHECK(!has_cycle(&w), "%s: the case has a negative cycle", cases[i].name);
        int64_t widest = 0;
        for (size_t k = 0; k < cases[i].count; k++)
            widest = llabs(cases[i].edges[k][2]) > widest ? llabs(cases[i].edges[k][2]) : widest;
        /* int32's own rule for the graph, or the path bound on non-negative weights */
        int int32_rows =
            6 * widest <= APSP_INF - 1 ||
            (!w.negative && six_largest(cases[i].edges, cases[i].count) <= APSP_INF - 1);
        if (int32_rows && 6 * widest > APSP_INF - 1)
            check_fw_left_out(solver, &w, cases[i].name);
        for (int m = APSP_METHOD_DIJKSTRA; m <= APSP_METHOD_BELLMAN_FORD; m++) {
            /* (Bellman-Ford where a weight is negative: int32's per-weight rule, not the bound) */
            const char *width = m == APSP_METHOD_BELLMAN_FORD && w.negative
                                    ? (6 * widest <= APSP_INF - 1 ? "32-bit" : "64-bit")
                                    : cases[i].width;
            check_method(solver, &w, every, 7, (apsp_method)m, APSP_INT64, cases[i].name, width);
            check_method(solver, &w, every, 7, (apsp_method)m, APSP_FLOAT64, cases[i].name, width);
            if (int32_rows)
                check_method(solver, &w, every, 7, (apsp_method)m, APSP_INT32, cases[i].name,
                             width);
        }
        free_wide(&w);
    }
}

/* Random graphs on 150 vertices whose largest weight `top` puts the narrow path's queue on either
 * side of its choice (src/sssp/sssp.h, SSSP_BUCKET_SPAN = 4096): Dial's buckets below, the
 * 32-bit radix heap from there; weights 0 to 2 make the buckets' cursor go round many times, with
 * zero-weight edges pushing into the bucket being popped. */
static void check_narrow_queues(apsp_solver *solver) {
    const struct {
        int64_t top;
        const char *queue;
    } cases[] = {{4095, "bucket queue"}, {4096, "32-bit radix heap"}, {2, "bucket queue"}};
    uint64_t seed = 777;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = 150, count = 4 * v;
        int64_t(*edges)[3] = malloc(count * sizeof *edges);
        for (size_t k = 0; k < count; k++) {
            edges[k][0] = (int64_t)gg_below(&seed, v);
            edges[k][1] = (int64_t)gg_below(&seed, v);
            edges[k][2] = k == 0 ? cases[i].top : (int64_t)gg_below(&seed, (uint64_t)cases[i].top);
        }
        edges[0][1] = (edges[0][0] + 1) % (int64_t)v; /* the largest weight is no self-loop */
        wide_graph w;
        make_listed(&w, v, (const int64_t(*)[3])edges, count);
        int32_t sources[40];
        for (size_t k = 0; k < 40; k++)
            sources[k] = (int32_t)gg_below(&seed, v);
        char name[64];
        snprintf(name, sizeof name, "narrow: max w %lld", (long long)cases[i].top);
        for (int m = APSP_METHOD_DIJKSTRA; m <= APSP_METHOD_JOHNSON; m++)
            for (int t = 0; t < 2; t++)
                check_method(solver, &w, sources, 40, (apsp_method)m, t ? APSP_INT64 : APSP_INT32,
                             name, m == APSP_METHOD_DIJKSTRA ? cases[i].queue : "32-bit");
        free_wide(&w);
        free(edges);
    }
}

/* A negative cycle 0 -> 1 -> 2 -> 0 of three weights -R (R = (APSP_INF - 1) / 6, int32's rule
 * on 7 vertices), entered from 6 by edges to 0, 1 and 2 in that order, so that the second round
 * laps the cycle within itself and the sums pass -APSP_INF in round 6, before round V = 7:
 * Bellman-Ford from 6 on 32-bit distances stops there and must still refuse the cycle, naming
 * one of its vertices; from 3, which reaches no cycle, its rows are the oracle's. */
static void check_signed_floor(apsp_solver *solver) {
    const int64_t r = (APSP_INF - 1) / 6;
    const int64_t edges[][3] = {{6, 0, 1},  {6, 1, 1},  {6, 2, 1}, {0, 1, -r},
                                {1, 2, -r}, {2, 0, -r}, {3, 4, r}, {4, 5, -r}};
    wide_graph w;
    make_listed(&w, 7, edges, sizeof edges / sizeof edges[0]);
    const int32_t from_cycle[] = {6}, from_clear[] = {3};
    collected c = {7, 0, 4, malloc(7 * 4)};
    apsp_error err = {0};
    apsp_report report;
    apsp_status status =
        apsp_solver_solve_sources_typed(solver, w.graph, from_cycle, 1, APSP_METHOD_BELLMAN_FORD,
                                        APSP_INT32, collect, &c, NULL, NULL, &report, &err);
    CHECK(status == APSP_ERR_NEGATIVE_CYCLE &&
              (strstr(err.message, "vertex 0 ") || strstr(err.message, "vertex 1 ") ||
               strstr(err.message, "vertex 2 ")),
          "signed floor: bellman-ford from 6: %d (%s)", (int)status, err.message);
    c.rows = 0;
    status =
        apsp_solver_solve_sources_typed(solver, w.graph, from_clear, 1, APSP_METHOD_BELLMAN_FORD,
                                        APSP_INT32, collect, &c, NULL, NULL, &report, &err);
    const int32_t want[7] = {APSP_INF, APSP_INF, APSP_INF, 0, (int32_t)r, 0, APSP_INF};
    CHECK(status == APSP_OK && c.rows == 1 && memcmp(c.cells, want, sizeof want) == 0 &&
              strstr(report.choice, "32-bit"),
          "signed floor: bellman-ford from 3: %d (%s), %s", (int)status, err.message,
          report.choice);
    free(c.cells);
    free_wide(&w);
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
                check_method(solver, &w, sources, count, (apsp_method)m, APSP_INT64, name, NULL);
                check_method(solver, &w, sources, count, (apsp_method)m, APSP_FLOAT64, name, NULL);
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
    check_narrow_rule(solver);
    check_narrow_queues(solver);
    check_signed_floor(solver);
    apsp_solver_destroy(solver);
    printf("test-sssp-typed: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
