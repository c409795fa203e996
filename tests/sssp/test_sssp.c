/* apsp_solver_solve_sources against the naive Floyd-Warshall of tests/support/oracle.c: every
 * method on the shapes of graphgen.h, 2-D grids and power-law graphs, sizes around the edges of a
 * batch and of the threads' share, source lists in any order with repeats (and NULL: every vertex).
 * Integer distances must be equal; negative cycles refused as each method promises (apsp.h).
 *
 *     test-sssp [--threads=N] [--quick] */
#include "apsp.h"
#include "check.h"
#include "collect.h"
#include "graphgen.h"
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

/* A W x H grid, each vertex joined to its 4 neighbours both ways, weights 1 to 1000. */
static void make_grid(gg_graph *g, int32_t w, int32_t h, uint64_t seed) {
    g->v = w * h;
    g->edges = malloc((size_t)4 * (size_t)g->v * sizeof *g->edges);
    g->e = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int32_t u = y * w + x;
            if (x + 1 < w) {
                g->edges[g->e++] = (gg_edge){u, u + 1, 1 + (int32_t)gg_below(&seed, 1000)};
                g->edges[g->e++] = (gg_edge){u + 1, u, 1 + (int32_t)gg_below(&seed, 1000)};
            }
            if (y + 1 < h) {
                g->edges[g->e++] = (gg_edge){u, u + w, 1 + (int32_t)gg_below(&seed, 1000)};
                g->edges[g->e++] = (gg_edge){u + w, u, 1 + (int32_t)gg_below(&seed, 1000)};
            }
        }
}

/* Preferential attachment: vertex u > 0 sends 3 edges to earlier vertices picked in proportion
 * to their degree (by picking an endpoint of an earlier edge), one way or the other. */
static void make_power_law(gg_graph *g, int32_t v, uint64_t seed) {
    g->v = v;
    g->edges = malloc((size_t)3 * (size_t)(v ? v : 1) * sizeof *g->edges);
    g->e = 0;
    for (int32_t u = 1; u < v; u++)
        for (int k = 0; k < 3; k++) {
            int32_t to = 0;
            if (g->e > 0) {
                const gg_edge *e = &g->edges[gg_below(&seed, g->e)];
                to = gg_below(&seed, 2) ? e->src : e->dst;
            }
            if (to == u)
                to = (int32_t)gg_below(&seed, (uint64_t)u);
            int32_t w = 1 + (int32_t)gg_below(&seed, 1000);
            g->edges[g->e++] = gg_below(&seed, 2) ? (gg_edge){u, to, w} : (gg_edge){to, u, w};
        }
}

static apsp_graph *to_apsp(const gg_graph *g) {
    apsp_graph *out;
    apsp_error err;
    if (apsp_graph_create((size_t)g->v, g->e, &out, &err) != APSP_OK)
        return NULL;
    for (size_t e = 0; e < g->e; e++)
        apsp_graph_append(out, g->edges[e].src, g->edges[e].dst, g->edges[e].w, &err);
    return out;
}

static int32_t *oracle_of(const gg_graph *g) {
    int32_t *d = oracle_matrix_new(g->v);
    for (size_t e = 0; e < g->e; e++)
        oracle_add_edge(d, g->v, g->edges[e].src, g->edges[e].dst, g->edges[e].w);
    oracle_floyd_warshall(d, g->v);
    return d;
}

static int has_negative(const gg_graph *g) {
    for (size_t e = 0; e < g->e; e++)
        if (g->edges[e].w < 0 && g->edges[e].src != g->edges[e].dst)
            return 1;
    return 0;
}

/* Whether a vertex on a negative cycle is reachable from one of the sources. */
static int cycle_reachable(const int32_t *d, int32_t v, const int32_t *sources, size_t count) {
    for (size_t i = 0; i < count; i++)
        for (int32_t x = 0; x < v; x++)
            if ((x == sources[i] || d[(size_t)sources[i] * (size_t)v + (size_t)x] < ORACLE_INF) &&
                oracle_on_negative_cycle(d, v, x))
                return 1;
    return 0;
}

/* The least weight of each edge (ORACLE_INF: none; self-loops left out), to check paths by. */
static int32_t *weights_of(const gg_graph *g) {
    int32_t *w = oracle_matrix_new(g->v);
    for (size_t e = 0; e < g->e; e++)
        oracle_add_edge(w, g->v, g->edges[e].src, g->edges[e].dst, g->edges[e].w);
    return w;
}

/* Rows of predecessors: each a shortest-path tree of its source under the oracle's distances d
 * and the edges w. Returns the number of rows that are not. */
static size_t bad_trees(const int32_t *pred, const int32_t *sources, size_t count, const int32_t *d,
                        const int32_t *w, size_t v) {
    size_t bad = 0;
    for (size_t r = 0; r < count; r++) {
        size_t s = sources ? (size_t)sources[r] : r;
        const int32_t *row = pred + r * v, *ds = d + s * v;
        int wrong = row[s] != APSP_NO_PREDECESSOR;
        for (size_t t = 0; t < v && !wrong; t++) {
            if (t == s || ds[t] == ORACLE_INF) {
                wrong = t != s && row[t] != APSP_NO_PREDECESSOR;
                continue;
            }
            int32_t p = row[t];
            wrong = p < 0 || (size_t)p >= v || w[(size_t)p * v + t] == ORACLE_INF ||
                    (int64_t)ds[p] + w[(size_t)p * v + t] != ds[t];
            size_t steps = 0; /* and the parents lead back to the source */
            for (size_t x = t; !wrong && x != s; x = (size_t)row[x])
                wrong = row[x] < 0 || ++steps > v;
        }
        bad += (size_t)wrong;
    }
    return bad;
}

static void check_method(apsp_solver *solver, const gg_graph *g, const apsp_graph *graph,
                         const int32_t *d, const int32_t *sources, size_t count, apsp_method method,
                         const char *name) {
    size_t v = (size_t)g->v, s = sources ? count : v;
    collected c = {v, 0, sizeof(int32_t), malloc((s ? s : 1) * (v ? v : 1) * sizeof(int32_t))};
    collected p = {v, 0, sizeof(int32_t), malloc((s ? s : 1) * (v ? v : 1) * sizeof(int32_t))};
    apsp_error err = {0};
    apsp_report report;
    apsp_status status = apsp_solver_solve_sources_paths(
        solver, graph, sources, count, method, collect_int32, &c, collect_int32, &p, &report, &err);
    int cycle = oracle_negative_cycle(d, g->v);
    const char *mname = apsp_method_name(method);
    if (method == APSP_METHOD_DIJKSTRA && has_negative(g)) {
        CHECK(status == APSP_ERR_USAGE, "%s dijkstra on negative weights: %s", name, err.message);
    } else if (cycle && (method != APSP_METHOD_BELLMAN_FORD || !sources ||
                         cycle_reachable(d, g->v, sources, count))) {
        CHECK(status == APSP_ERR_NEGATIVE_CYCLE, "%s %s: negative cycle missed (%d)", name, mname,
              (int)status);
        int named = oracle_named_vertex(err.message);
        CHECK(status != APSP_ERR_NEGATIVE_CYCLE || oracle_on_negative_cycle(d, g->v, named),
              "%s %s: vertex %d is on no negative cycle: %s", name, mname, named, err.message);
    } else if (!cycle || method == APSP_METHOD_BELLMAN_FORD) {
        CHECK(status == APSP_OK, "%s %s: %s", name, mname, err.message);
        CHECK(status != APSP_OK || c.rows == s, "%s %s: %zu rows of %zu", name, mname, c.rows, s);
        size_t wrong = 0;
        for (size_t r = 0; status == APSP_OK && r < s; r++) {
            size_t src = sources ? (size_t)sources[r] : r;
            wrong += memcmp((int32_t *)c.cells + r * v, d + src * v, v * sizeof *d) != 0;
        }
        CHECK(wrong == 0, "%s %s: %zu of %zu rows differ from the oracle's", name, mname, wrong, s);
        int32_t *w = weights_of(g);
        size_t trees = status == APSP_OK ? bad_trees(p.cells, sources, s, d, w, v) : 0;
        CHECK(trees == 0, "%s %s: %zu of %zu predecessor rows are no shortest-path tree", name,
              mname, trees, s);
        free(w);
        CHECK(status != APSP_OK || strstr(report.method, mname) == report.method ||
                  method == APSP_METHOD_AUTO,
              "%s %s: the report says %s", name, mname, report.method);
    }
    free(c.cells);
    free(p.cells);
}

static void check_graph(apsp_solver *solver, const gg_graph *g, const char *name, uint64_t seed) {
    apsp_graph *graph = to_apsp(g);
    int32_t *d = oracle_of(g);
    size_t count = 1 + (size_t)gg_below(&seed, 2 * (uint64_t)g->v);
    int32_t *sources = malloc(count * sizeof *sources);
    for (size_t i = 0; i < count; i++)
        sources[i] = (int32_t)gg_below(&seed, (uint64_t)g->v);
    for (int m = APSP_METHOD_AUTO; m <= APSP_METHOD_BELLMAN_FORD; m++) {
        check_method(solver, g, graph, d, sources, count, (apsp_method)m, name);
        check_method(solver, g, graph, d, NULL, 0, (apsp_method)m, name);
    }
    free(sources);
    free(d);
    apsp_graph_destroy(graph);
}

/* The API's refusals: a source out of range, no rows function. */
static void check_refusals(apsp_solver *solver) {
    gg_graph g;
    make_grid(&g, 3, 3, 1);
    apsp_graph *graph = to_apsp(&g);
    collected c = {9, 0, sizeof(int32_t), malloc(81 * sizeof(int32_t))};
    apsp_error err;
    const int32_t bad[] = {0, 9};
    CHECK(apsp_solver_solve_sources(solver, graph, bad, 2, APSP_METHOD_DIJKSTRA, collect_int32, &c,
                                    NULL, &err) == APSP_ERR_USAGE &&
              strstr(err.message, "source 9"),
          "source 9 of 9 vertices: %s", err.message);
    CHECK(apsp_solver_solve_sources(solver, graph, NULL, 0, APSP_METHOD_AUTO, NULL, NULL, NULL,
                                    &err) == APSP_ERR_USAGE,
          "no rows function accepted");
    apsp_method m;
    CHECK(apsp_method_parse("bellman-ford", &m) == 0 && m == APSP_METHOD_BELLMAN_FORD &&
              apsp_method_parse("BF", &m) == -1,
          "apsp_method_parse");
    free(c.cells);
    apsp_graph_destroy(graph);
    gg_free(&g);
}

int main(int argc, char **argv) {
    apsp_options options;
    apsp_options_init(&options);
    options.backend = APSP_BACKEND_CPU;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--threads=", 10) == 0)
            options.threads = atoi(argv[i] + 10);
        quick |= strcmp(argv[i], "--quick") == 0;
    }
    apsp_solver *solver;
    apsp_error err;
    if (apsp_solver_create(&options, &solver, &err) != APSP_OK) {
        fprintf(stderr, "test-sssp: %s\n", err.message);
        return 1;
    }
    check_refusals(solver);
    const int32_t sizes[] = {1, 2, 5, 17, 64, 131};
    size_t nsizes = quick ? 4 : sizeof sizes / sizeof sizes[0];
    for (int shape = 0; shape < GG_SHAPE_COUNT; shape++)
        for (size_t i = 0; i < nsizes; i++) {
            int32_t v = sizes[i];
            gg_graph g;
            const char *why;
            int64_t e = shape == GG_EMPTY ? 0 : (int64_t)v * 3;
            if (gg_generate((gg_shape)shape, v, e, (uint64_t)(shape * 100 + v), &g, &why) != 0)
                continue;
            char name[64];
            snprintf(name, sizeof name, "%s V=%d", gg_shape_name((gg_shape)shape), v);
            check_graph(solver, &g, name, (uint64_t)v);
            gg_free(&g);
        }
    for (int32_t side = 1; side <= (quick ? 9 : 20); side += 4) {
        gg_graph g;
        char name[64];
        make_grid(&g, side, side + 1, (uint64_t)side);
        snprintf(name, sizeof name, "grid %dx%d", side, side + 1);
        check_graph(solver, &g, name, (uint64_t)side);
        gg_free(&g);
        make_power_law(&g, side * 10, (uint64_t)side);
        snprintf(name, sizeof name, "power-law V=%d", side * 10);
        check_graph(solver, &g, name, (uint64_t)side + 7);
        gg_free(&g);
    }
    apsp_solver_destroy(solver);
    printf("test-sssp: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
