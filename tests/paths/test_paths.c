/* apsp_predecessors and apsp_path: every derived predecessor checked against the graph and
 * against distances from tests/support/oracle.c (which shares no code with the library): the
 * predecessor k of j is an edge k -> j of the graph with d(i,k) + w = d(i,j), the chain from j
 * leads back to i within V steps, and -9999 is exactly at the source and the unreachable vertices.
 * Graphs with zero-weight cycles, repeated edges, self-loops, unreachable parts, V = 1, random ones
 * with many zero weights; 1 to 3 threads and sub-ranges of sources; refused inputs. */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct edge {
    int32_t u, v, w;
} edge;

/* Whether there is an edge u -> v (self-loops are not edges here); its least weight in *w. */
static int least_weight(const edge *edges, size_t m, int32_t u, int32_t v, int64_t *w) {
    int found = 0;
    for (size_t e = 0; e < m; e++)
        if (edges[e].u == u && edges[e].v == v && u != v && (!found || edges[e].w < *w)) {
            *w = edges[e].w;
            found = 1;
        }
    return found;
}

/* Checks the rows [first, first + count) of pred against the oracle's distances d. Returns the
 * number of wrong cells (each reported once per graph). */
static size_t check_rows(const char *what, const edge *edges, size_t m, int32_t v, const int32_t *d,
                         const int32_t *pred, size_t first, size_t count) {
    size_t wrong = 0;
    for (size_t r = 0; r < count; r++) {
        int32_t i = (int32_t)(first + r);
        const int32_t *p = pred + r * (size_t)v;
        const int32_t *di = d + (size_t)i * (size_t)v;
        for (int32_t j = 0; j < v; j++) {
            int none = j == i || di[j] >= ORACLE_INF;
            if (none) {
                if (p[j] != APSP_NO_PREDECESSOR && wrong++ == 0)
                    fprintf(stderr, "%s: pred(%d, %d) = %d, expected -9999\n", what, i, j, p[j]);
                continue;
            }
            /* The chain back to i: every step an edge, tight, within V steps. */
            int32_t at = j;
            int64_t sum = 0;
            int steps = 0;
            while (at != i && steps <= v) {
                int32_t k = p[at];
                int64_t w = 0;
                if (k < 0 || k >= v || !least_weight(edges, m, k, at, &w)) {
                    if (wrong++ == 0)
                        fprintf(stderr, "%s: pred(%d, %d) = %d is not an edge into %d\n", what, i,
                                at, k, at);
                    break;
                }
                sum += w;
                at = k;
                steps++;
            }
            if (at != i) {
                if (steps > v && wrong++ == 0)
                    fprintf(stderr, "%s: the chain from %d does not reach %d\n", what, j, i);
                continue;
            }
            if (sum != di[j] && wrong++ == 0)
                fprintf(stderr, "%s: the path %d -> %d weighs %lld, the distance is %d\n", what, i,
                        j, (long long)sum, di[j]);
        }
    }
    return wrong;
}

/* The graph in the library's and the oracle's forms, solved by both; the predecessors of every
 * source on `threads` threads, then of a sub-range, then every path through apsp_path. */
static void check_graph(const char *what, int32_t v, const edge *edges, size_t m,
                        unsigned threads) {
    apsp_error err;
    apsp_graph *g = NULL;
    apsp_matrix *mat = NULL;
    CHECK(apsp_graph_create((size_t)v, m, &g, &err) == APSP_OK, "%s: graph", what);
    for (size_t e = 0; e < m; e++)
        apsp_graph_append(g, edges[e].u, edges[e].v, edges[e].w, &err);
    CHECK(apsp_graph_to_matrix(g, &mat, &err) == APSP_OK, "%s: to_matrix: %s", what, err.message);
    apsp_options opts;
    apsp_options_init(&opts);
    opts.backend = APSP_BACKEND_CPU;
    opts.threads = 1;
    CHECK(apsp_solve(mat, &opts, NULL, &err) == APSP_OK, "%s: solve: %s", what, err.message);
    int32_t *d = oracle_matrix_new(v);
    for (size_t e = 0; e < m; e++)
        oracle_add_edge(d, v, edges[e].u, edges[e].v, edges[e].w);
    oracle_floyd_warshall(d, v);

    size_t cells = (size_t)v * (size_t)v;
    int32_t *pred = malloc(cells * sizeof *pred);
    apsp_status got = apsp_predecessors(g, mat, 0, (size_t)v, threads, pred, &err);
    CHECK(got == APSP_OK, "%s: predecessors: %s", what, got ? err.message : "");
    if (got == APSP_OK) {
        size_t wrong = check_rows(what, edges, m, v, d, pred, 0, (size_t)v);
        CHECK(wrong == 0, "%s (%u threads): %zu wrong predecessors", what, threads, wrong);
    }
    /* A sub-range of sources: the same checks on those rows alone. */
    size_t first = (size_t)v / 3, count = (size_t)v - first;
    int32_t *part = malloc((count ? count : 1) * (size_t)v * sizeof *part);
    got = apsp_predecessors(g, mat, first, count, threads, part, &err);
    CHECK(got == APSP_OK, "%s: predecessors of [%zu, %d): %s", what, first, v,
          got ? err.message : "");
    if (got == APSP_OK)
        CHECK(check_rows(what, edges, m, v, d, part, first, count) == 0,
              "%s: wrong predecessors of sources [%zu, %d)", what, first, v);
    free(part);

    /* apsp_path on every pair: a vertex list from i to j whose edges weigh d(i,j). */
    int32_t *path = malloc((size_t)v * sizeof *path);
    size_t bad = 0;
    for (int32_t i = 0; i < v; i++)
        for (int32_t j = 0; j < v; j++) {
            size_t len = 99;
            got = apsp_path(pred + (size_t)i * (size_t)v, (size_t)v, (size_t)i, (size_t)j, path,
                            &len, &err);
            int32_t dij = d[(size_t)i * (size_t)v + (size_t)j];
            int ok = got == APSP_OK;
            if (ok && dij >= ORACLE_INF)
                ok = len == 0;
            else if (ok) {
                int64_t sum = 0;
                ok = len >= 1 && path[0] == i && path[len - 1] == j;
                for (size_t k = 1; ok && k < len; k++) {
                    int64_t w = 0;
                    ok = least_weight(edges, m, path[k - 1], path[k], &w);
                    sum += w;
                }
                ok = ok && sum == dij && (i != j || len == 1);
            }
            if (!ok && bad++ == 0)
                fprintf(stderr, "%s: path %d -> %d: status %d, %zu vertices\n", what, i, j, got,
                        len);
        }
    CHECK(bad == 0, "%s: %zu wrong paths", what, bad);
    free(path);
    free(pred);
    free(d);
    apsp_matrix_destroy(mat);
    apsp_graph_destroy(g);
}

#define EDGES(...) ((const edge[]){__VA_ARGS__}), sizeof((const edge[]){__VA_ARGS__}) / sizeof(edge)

static void test_shapes(void) {
    for (unsigned t = 1; t <= 3; t++) {
        /* Zero-weight cycles: 1 -> 2 -> 3 -> 1 all 0, entered at 1 and 3; another 0-cycle 4 <-> 5
         * behind a positive edge. A search that took any tight in-edge could loop 1 <-> 2 <-> 3. */
        check_graph("zero-weight cycles", 7,
                    EDGES({0, 1, 2}, {1, 2, 0}, {2, 3, 0}, {3, 1, 0}, {0, 3, 2}, {3, 4, 1},
                          {4, 5, 0}, {5, 4, 0}, {5, 6, 0}, {6, 5, 0}, {2, 0, 0}),
                    t);
        check_graph(
            "all zero", 5,
            EDGES({0, 1, 0}, {1, 0, 0}, {1, 2, 0}, {2, 3, 0}, {3, 1, 0}, {3, 4, 0}, {4, 0, 0}), t);
        /* Repeated edges: the least weight counts, also when it comes last. */
        check_graph("repeated edges", 4,
                    EDGES({0, 1, 9}, {0, 1, 2}, {0, 1, 5}, {1, 2, 7}, {0, 2, 10}, {0, 2, 9},
                          {1, 2, 7}, {2, 3, 1}, {2, 3, 0}),
                    t);
        /* Self-loops (zero and positive) are never predecessors. */
        check_graph("self-loops", 3, EDGES({0, 0, 0}, {1, 1, 0}, {0, 1, 4}, {1, 2, 1}, {2, 2, 3}),
                    t);
        check_graph("unreachable", 6, EDGES({0, 1, 1}, {1, 0, 1}, {3, 4, 2}, {5, 3, 0}), t);
        check_graph("no edges", 4, NULL, 0, t);
        check_graph("V=1", 1, NULL, 0, t);
        check_graph("V=1 self-loop", 1, EDGES({0, 0, 5}), t);
        check_graph("ties", 4, EDGES({0, 1, 1}, {0, 2, 1}, {1, 3, 1}, {2, 3, 1}), t);
    }
}

static uint64_t rng_state = 88172645463325252ull;
static uint32_t next_random(uint32_t bound) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % bound);
}

/* Random graphs where most weights are 0 or 1: many ties and zero-weight cycles. */
static void test_random(void) {
    char what[64];
    for (int g = 0; g < 60; g++) {
        int32_t v = 1 + (int32_t)next_random(g < 40 ? 12 : 150);
        size_t m = next_random((uint32_t)(4 * v + 1));
        edge *edges = malloc((m ? m : 1) * sizeof *edges);
        uint32_t top = next_random(3) == 0 ? 1 : next_random(2) == 0 ? 3 : 1000;
        for (size_t e = 0; e < m; e++)
            edges[e] = (edge){(int32_t)next_random((uint32_t)v), (int32_t)next_random((uint32_t)v),
                              (int32_t)next_random(top + 1)};
        snprintf(what, sizeof what, "random graph %d (V=%d E=%zu)", g, v, m);
        check_graph(what, v, edges, m, 1 + (unsigned)(g % 3));
        free(edges);
    }
}

static void expect_usage(const char *what, apsp_status got, const apsp_error *err);

/* Negative weights without negative cycles (the graph reader refuses them today; the derivation
 * takes them, by its search over out-edges): distances from a plain 64-bit Floyd-Warshall here,
 * tight cycles of weight 0 made of negative and positive edges. */
static void test_negative(void) {
    static const edge edges[] = {{0, 1, 4},  {1, 2, -3}, {2, 1, 3},  {2, 3, 2}, {3, 4, -5},
                                 {4, 2, 3},  {0, 3, 9},  {4, 5, 0},  {5, 4, 0}, {1, 1, -1},
                                 {0, 5, 20}, {6, 0, -2}, {5, 6, 100}};
    const int32_t v = 8;
    size_t m = sizeof edges / sizeof edges[0];
    int64_t d[8][8];
    for (int i = 0; i < v; i++)
        for (int j = 0; j < v; j++)
            d[i][j] = i == j ? 0 : INT64_MAX;
    for (size_t e = 0; e < m; e++)
        if (edges[e].u != edges[e].v && edges[e].w < d[edges[e].u][edges[e].v])
            d[edges[e].u][edges[e].v] = edges[e].w;
    for (int k = 0; k < v; k++)
        for (int i = 0; i < v; i++)
            for (int j = 0; j < v; j++)
                if (d[i][k] != INT64_MAX && d[k][j] != INT64_MAX && d[i][k] + d[k][j] < d[i][j])
                    d[i][j] = d[i][k] + d[k][j];
    apsp_error err;
    apsp_graph *g = NULL;
    apsp_matrix *mat = NULL;
    apsp_graph_create((size_t)v, 0, &g, &err);
    for (size_t e = 0; e < m; e++)
        apsp_graph_append(g, edges[e].u, edges[e].v, edges[e].w, &err);
    apsp_matrix_create((size_t)v, &mat, &err);
    int32_t flat[64];
    for (int i = 0; i < v; i++)
        for (int j = 0; j < v; j++) {
            CHECK(d[i][i] == 0, "the test graph has a negative cycle through %d", i);
            flat[i * v + j] = d[i][j] == INT64_MAX ? ORACLE_INF : (int32_t)d[i][j];
            apsp_matrix_row(mat, (size_t)i)[j] = flat[i * v + j];
        }
    for (unsigned t = 1; t <= 3; t++) {
        int32_t pred[64];
        apsp_status got = apsp_predecessors(g, mat, 0, (size_t)v, t, pred, &err);
        CHECK(got == APSP_OK, "negative weights: %s", got ? err.message : "");
        if (got == APSP_OK)
            CHECK(check_rows("negative weights", edges, m, v, flat, pred, 0, (size_t)v) == 0,
                  "negative weights (%u threads): wrong predecessors", t);
    }
    /* A distance one too long: an edge undercuts it. */
    apsp_matrix_row(mat, 0)[4] += 1;
    int32_t pred[64];
    expect_usage("negative weights, wrong distance",
                 apsp_predecessors(g, mat, 0, (size_t)v, 2, pred, &err), &err);
    apsp_matrix_destroy(mat);
    apsp_graph_destroy(g);
}

static void expect_usage(const char *what, apsp_status got, const apsp_error *err) {
    CHECK(got == APSP_ERR_USAGE && err->message[0], "%s: expected a usage error, got %s", what,
          apsp_status_name(got));
}

static void test_refused(void) {
    apsp_error err;
    apsp_graph *g = NULL, *other = NULL;
    apsp_matrix *mat = NULL;
    apsp_graph_create(4, 0, &g, &err);
    apsp_graph_append(g, 0, 1, 3, &err);
    apsp_graph_append(g, 1, 2, 4, &err);
    apsp_graph_to_matrix(g, &mat, &err);
    apsp_solve(mat, NULL, NULL, &err);
    int32_t pred[16];
    expect_usage("NULL graph", apsp_predecessors(NULL, mat, 0, 4, 1, pred, &err), &err);
    expect_usage("NULL matrix", apsp_predecessors(g, NULL, 0, 4, 1, pred, &err), &err);
    expect_usage("NULL pred", apsp_predecessors(g, mat, 0, 4, 1, NULL, &err), &err);
    expect_usage("sources past V", apsp_predecessors(g, mat, 2, 3, 1, pred, &err), &err);
    apsp_graph_create(5, 0, &other, &err);
    expect_usage("V differs", apsp_predecessors(other, mat, 0, 4, 1, pred, &err), &err);
    /* The matrix before the solve: 0 -> 1 -> 2 undercuts its INF for (0, 2). Non-negative
     * weights check every edge against every distance. */
    apsp_matrix *unsolved = NULL;
    apsp_graph_to_matrix(g, &unsolved, &err);
    expect_usage("unsolved", apsp_predecessors(g, unsolved, 0, 4, 1, pred, &err), &err);
    apsp_matrix_destroy(unsolved);
    /* Distances the graph contradicts: d(0,2) = 8 when 0 -> 1 -> 2 weighs 7 (an edge makes a
     * path shorter), d(0,2) = 6 (no path of that length). */
    apsp_matrix_row(mat, 0)[2] = 8;
    apsp_status got = apsp_predecessors(g, mat, 0, 4, 1, pred, &err);
    expect_usage("too long a distance", got, &err);
    CHECK(strstr(err.message, "shorter than 8") != NULL, "too long: %s", err.message);
    apsp_matrix_row(mat, 0)[2] = 6;
    got = apsp_predecessors(g, mat, 0, 4, 2, pred, &err);
    expect_usage("too short a distance", got, &err);
    CHECK(strstr(err.message, "no path of that length") != NULL, "too short: %s", err.message);
    apsp_matrix_row(mat, 0)[2] = 7;
    CHECK(apsp_predecessors(g, mat, 0, 4, 2, pred, &err) == APSP_OK, "restored: %s", err.message);
    /* A distance no path has. */
    apsp_matrix_row(mat, 3)[0] = 7;
    expect_usage("unreachable finite", apsp_predecessors(g, mat, 3, 1, 2, pred, &err), &err);
    apsp_matrix_row(mat, 3)[0] = APSP_INF;
    apsp_matrix_row(mat, 1)[1] = 1;
    expect_usage("diagonal", apsp_predecessors(g, mat, 0, 4, 1, pred, &err), &err);
    apsp_matrix_row(mat, 1)[1] = 0;
    apsp_graph_append(g, 0, 4, 1, &err);
    expect_usage("endpoint", apsp_predecessors(g, mat, 0, 4, 1, pred, &err), &err);
    CHECK(apsp_predecessors(g, mat, 0, 0, 1, pred, &err) != APSP_OK,
          "an out-of-range edge is refused even for no sources");

    /* apsp_path's refusals and edge cases. */
    int32_t path[4];
    size_t len = 9;
    int32_t row[4] = {APSP_NO_PREDECESSOR, 0, 1, APSP_NO_PREDECESSOR};
    CHECK(apsp_path(row, 4, 0, 2, path, &len, &err) == APSP_OK && len == 3 && path[0] == 0 &&
              path[1] == 1 && path[2] == 2,
          "path 0 -> 2");
    CHECK(apsp_path(row, 4, 0, 3, path, &len, &err) == APSP_OK && len == 0, "no path 0 -> 3");
    CHECK(apsp_path(row, 4, 0, 0, path, &len, &err) == APSP_OK && len == 1 && path[0] == 0,
          "path 0 -> 0");
    expect_usage("path: vertex", apsp_path(row, 4, 0, 4, path, &len, &err), &err);
    expect_usage("path: NULL", apsp_path(NULL, 4, 0, 1, path, &len, &err), &err);
    int32_t loop[4] = {APSP_NO_PREDECESSOR, 2, 1, 0};
    expect_usage("path: loop", apsp_path(loop, 4, 0, 1, path, &len, &err), &err);
    int32_t wrong_row[4] = {3, 0, 1, 2};
    expect_usage("path: not the source's row", apsp_path(wrong_row, 4, 0, 2, path, &len, &err),
                 &err);
    int32_t out_of_range[4] = {APSP_NO_PREDECESSOR, 7, 1, 0};
    expect_usage("path: predecessor", apsp_path(out_of_range, 4, 0, 2, path, &len, &err), &err);
    apsp_matrix_destroy(mat);
    apsp_graph_destroy(g);
    apsp_graph_destroy(other);
}

int main(void) {
    test_shapes();
    test_random();
    test_negative();
    test_refused();
    printf("test-paths: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
