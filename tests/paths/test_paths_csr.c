/* apsp_predecessors_csr in every element type, and apsp_predecessors on int64 and float64
 * distances: random graphs (repeated edges, self-loops, zero weights, negative weights by vertex
 * potentials, unreachable parts) solved by the oracles (tests/support/oracle.c,
 * tests/support/oracle_typed.c, which share no code with the library), every predecessor checked as
 * a path: -9999 exactly at the source and the unreachable vertices, every step an edge of the
 * graph, the least weights of the steps summing to the distance (exactly for the integer types,
 * within the tolerance for the floating-point ones). Then the refusals: distances the graph
 * contradicts, malformed rows, tolerances. */
#include "apsp.h"
#include "check.h"
#include "oracle.h"
#include "oracle_typed.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_V = 40, MAX_E = 4 * MAX_V };

typedef struct graph {
    int v, m;
    int32_t u[MAX_E], t[MAX_E];
    double w[MAX_E]; /* every weight, whole for the integer types */
} graph;

static uint64_t state = 88172645463325252u;
static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}
static int below(int n) {
    return (int)(next() % (uint64_t)n);
}

/* A random graph for the type: weights up to 2^40 for int64 (past int32's rule), fractions for
 * the floating-point types; a third with negative weights w + p(u) - p(t), which closes no
 * negative cycle. */
static void random_graph(graph *g, apsp_dtype dtype) {
    g->v = 1 + below(MAX_V);
    g->m = below(3 * g->v + 1);
    int negative = below(3) == 0;
    double top = dtype == APSP_INT64 ? 0x1p40 : dtype == APSP_INT32 ? 1000 : 100;
    double p[MAX_V];
    for (int k = 0; k < g->v; k++)
        p[k] = negative ? floor(top / 4 * (double)below(1000) / 1000) : 0;
    for (int e = 0; e < g->m; e++) {
        int again = e > 0 && below(6) == 0; /* a repeated pair */
        g->u[e] = again ? g->u[e - 1] : below(g->v);
        g->t[e] = again ? g->t[e - 1] : below(g->v);
        double w = below(4) == 0 ? 0 : floor(top * (double)below(1000) / 1000);
        if (dtype == APSP_FLOAT32 || dtype == APSP_FLOAT64)
            w += below(8) * 0.125 + below(10) * 0.01;
        if (g->u[e] == g->t[e] && below(2))
            w = -1; /* a negative self-loop: ignored, as every self-loop */
        g->w[e] = w + p[g->u[e]] - p[g->t[e]];
    }
}

/* The oracle's distances of the graph as a library matrix of the type. */
static apsp_matrix *solved(const graph *g, apsp_dtype dtype) {
    size_t v = (size_t)g->v;
    apsp_matrix *m;
    if (apsp_matrix_create_typed(v, dtype, &m, NULL) != APSP_OK)
        return NULL;
    int32_t *d32 = oracle_matrix_new(g->v);
    int64_t *d64 = malloc(v * v * sizeof *d64);
    double *f64 = malloc(v * v * sizeof *f64);
    float *f32 = malloc(v * v * sizeof *f32);
    for (size_t c = 0; c < v * v; c++) {
        int diagonal = c / v == c % v;
        d64[c] = diagonal ? 0 : ORACLE_INF64;
        f64[c] = diagonal ? 0 : INFINITY;
        f32[c] = diagonal ? 0 : INFINITY;
    }
    for (int e = 0; e < g->m; e++) {
        size_t c = (size_t)g->u[e] * v + (size_t)g->t[e];
        if (g->u[e] == g->t[e])
            continue;
        oracle_add_edge(d32, g->v, g->u[e], g->t[e], (int32_t)g->w[e]);
        d64[c] = (int64_t)g->w[e] < d64[c] ? (int64_t)g->w[e] : d64[c];
        f64[c] = g->w[e] < f64[c] ? g->w[e] : f64[c];
        f32[c] = (float)g->w[e] < f32[c] ? (float)g->w[e] : f32[c];
    }
    oracle_floyd_warshall(d32, g->v);
    oracle_floyd_warshall_i64(d64, v);
    oracle_blocked_f64(f64, v, 16);
    oracle_blocked_f32(f32, v, 16);
    const void *from[] = {d32, d64, f32, f64};
    for (size_t i = 0; i < v; i++)
        memcpy(apsp_matrix_row_cells(m, i),
               (const char *)from[dtype] + i * v * apsp_dtype_size(dtype),
               v * apsp_dtype_size(dtype));
    free(d32);
    free(d64);
    free(f64);
    free(f32);
    return m;
}

static double distance(const apsp_matrix *m, size_t i, size_t j, int *reachable) {
    const void *row = apsp_matrix_row_cells(m, i);
    double d = m->dtype == APSP_INT32     ? ((const int32_t *)row)[j]
               : m->dtype == APSP_INT64   ? (double)((const int64_t *)row)[j]
               : m->dtype == APSP_FLOAT32 ? ((const float *)row)[j]
                                          : ((const double *)row)[j];
    *reachable = m->dtype == APSP_INT32   ? d < ORACLE_INF
                 : m->dtype == APSP_INT64 ? ((const int64_t *)row)[j] < ORACLE_INF64
                                          : isfinite(d);
    return d;
}

/* The least weight of an edge k -> j (no self-loops), as the type holds it; 0 when none. */
static int least(const graph *g, apsp_dtype dtype, int k, int j, double *w) {
    int found = 0;
    for (int e = 0; e < g->m; e++) {
        double x = dtype == APSP_FLOAT32 ? (double)(float)g->w[e] : g->w[e];
        if (g->u[e] == k && g->t[e] == j && k != j && (!found || x < *w))
            *w = x, found = 1;
    }
    return found;
}

/* Rows [first, first + count) of pred checked as paths; returns the number of wrong ones. */
static int check_paths(const char *what, const graph *g, const apsp_matrix *d, const int32_t *pred,
                       size_t first, size_t count, double tolerance) {
    int wrong = 0;
    for (size_t r = 0; r < count; r++) {
        size_t i = first + r;
        for (int j = 0; j < g->v; j++) {
            int reachable;
            double dij = distance(d, i, (size_t)j, &reachable);
            const int32_t *p = pred + r * (size_t)g->v;
            if ((size_t)j == i || !reachable) {
                wrong += p[j] != APSP_NO_PREDECESSOR;
                continue;
            }
            /* Integer sums stay exact in int64 (|w| < 2^42, under 40 steps). */
            int64_t whole = 0;
            double sum = 0, w = 0;
            int at = j, steps = 0;
            while ((size_t)at != i && steps++ <= g->v && p[at] >= 0 &&
                   least(g, d->dtype, p[at], at, &w)) {
                whole += (int64_t)w;
                sum += w;
                at = p[at];
            }
            int ok = (size_t)at == i &&
                     (d->dtype == APSP_INT32 || d->dtype == APSP_INT64
                          ? (double)whole == dij
                          : fabs(sum - dij) <= g->v * tolerance * (fabs(dij) > 1 ? fabs(dij) : 1));
            if (!ok && wrong++ == 0)
                fprintf(stderr, "%s: the path %zu -> %d (V = %d) ends at %d, sum %.17g, d %.17g\n",
                        what, i, j, g->v, at, sum, dij);
        }
    }
    return wrong;
}

/* The graph in CSR, rows by source, the weights of the type (int32_t, int64_t, float, double). */
typedef struct csr {
    int64_t indptr[MAX_V + 1];
    int32_t indices[MAX_E];
    union {
        int32_t i32[MAX_E];
        int64_t i64[MAX_E];
        float f32[MAX_E];
        double f64[MAX_E];
    } w;
} csr;

static void make_csr(const graph *g, apsp_dtype dtype, csr *c) {
    int at = 0;
    for (int k = 0; k < g->v; k++) {
        c->indptr[k] = at;
        for (int e = 0; e < g->m; e++) {
            if (g->u[e] != k)
                continue;
            c->indices[at] = g->t[e];
            if (dtype == APSP_INT32)
                c->w.i32[at] = (int32_t)g->w[e];
            else if (dtype == APSP_INT64)
                c->w.i64[at] = (int64_t)g->w[e];
            else if (dtype == APSP_FLOAT32)
                c->w.f32[at] = (float)g->w[e];
            else
                c->w.f64[at] = g->w[e];
            at++;
        }
    }
    c->indptr[g->v] = at;
}

static const double tolerances[] = {0, 0, 1e-5, 1e-12};

static void test_random(apsp_dtype dtype, int graphs) {
    int wrong_graphs = 0;
    for (int n = 0; n < graphs; n++) {
        graph g;
        csr c;
        random_graph(&g, dtype);
        make_csr(&g, dtype, &c);
        apsp_matrix *d = solved(&g, dtype);
        size_t v = (size_t)g.v, first = n % 3 ? 0 : v / 3, count = v - first;
        int32_t *pred = malloc(v * v * sizeof *pred);
        apsp_error err = {0};
        apsp_status got = apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, tolerances[dtype],
                                                first, count, (unsigned)(1 + n % 3), pred, &err);
        char what[64];
        snprintf(what, sizeof what, "%s graph %d", apsp_dtype_name(dtype), n);
        CHECK(got == APSP_OK, "%s: %s", what, err.message);
        if (got == APSP_OK)
            wrong_graphs += check_paths(what, &g, d, pred, first, count, tolerances[dtype]) > 0;
        /* apsp_predecessors on the edge list (the command's path) agrees with the graph too. */
        if (dtype == APSP_INT64 || dtype == APSP_FLOAT64) {
            apsp_graph *eg;
            apsp_graph_create(v, 0, &eg, NULL);
            for (int e = 0; e < g.m; e++)
                if (dtype == APSP_INT64)
                    apsp_graph_append(eg, g.u[e], g.t[e], (int64_t)g.w[e], NULL);
                else
                    apsp_graph_append_real(eg, g.u[e], g.t[e], g.w[e], NULL);
            got = apsp_predecessors(eg, d, 0, v, 2, pred, &err);
            CHECK(got == APSP_OK, "%s, edge list: %s", what, err.message);
            if (got == APSP_OK)
                wrong_graphs += check_paths(what, &g, d, pred, 0, v, tolerances[dtype]) > 0;
            apsp_graph_destroy(eg);
        }
        free(pred);
        apsp_matrix_destroy(d);
    }
    CHECK(wrong_graphs == 0, "%s: %d graphs with wrong paths", apsp_dtype_name(dtype),
          wrong_graphs);
}

/* Distances the graph contradicts, and malformed arguments, refused with APSP_ERR_USAGE. */
static void test_refused(void) {
    /* 0 -> 1 (2.5), 1 -> 2 (0.5): d(0,2) = 3. */
    graph g = {.v = 3, .m = 2, .u = {0, 1}, .t = {1, 2}, .w = {2.5, 0.5}};
    csr c;
    make_csr(&g, APSP_FLOAT64, &c);
    apsp_matrix *d = solved(&g, APSP_FLOAT64);
    int32_t pred[9];
    apsp_error err;
    double *row0 = apsp_matrix_row_cells(d, 0);
    row0[2] = 3.25;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 1e-9, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "shorter than 3.25"),
          "a distance longer than a path: %s", err.message);
    row0[2] = 3 + 1e-12; /* within the tolerance */
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 1e-9, 0, 3, 1, pred, &err) ==
                  APSP_OK &&
              pred[2] == 1,
          "within the tolerance: %s", err.message);
    row0[2] = 2.75;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 1e-9, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "vertex 2 is at distance 2.75"),
          "a distance no path has: %s", err.message);
    row0[2] = 3;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, -1, 0, 3, 1, pred, &err) ==
              APSP_ERR_USAGE,
          "a negative tolerance");
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, NAN, 0, 3, 1, pred, &err) ==
              APSP_ERR_USAGE,
          "a NaN tolerance");
    c.indptr[2] = 0;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 0, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "indptr[2]"),
          "a decreasing indptr: %s", err.message);
    c.indptr[2] = 2;
    CHECK(apsp_predecessors_csr(d, c.indptr, NULL, &c.w, 0, 0, 3, 1, pred, &err) == APSP_ERR_USAGE,
          "edges without indices");
    c.indices[1] = 3;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 0, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "outside [0, 3)"),
          "an index out of range: %s", err.message);
    c.indices[1] = 2;
    c.w.f64[0] = INFINITY;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 0, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "not finite"),
          "an infinite weight: %s", err.message);
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 0, 2, 2, 1, pred, &err) ==
              APSP_ERR_USAGE,
          "sources past V");
    apsp_matrix_destroy(d);
    /* An int64 diagonal that is not 0. */
    g.w[0] = 2, g.w[1] = 1;
    make_csr(&g, APSP_INT64, &c);
    d = solved(&g, APSP_INT64);
    ((int64_t *)apsp_matrix_row_cells(d, 1))[1] = -1;
    CHECK(apsp_predecessors_csr(d, c.indptr, c.indices, &c.w, 0, 0, 3, 1, pred, &err) ==
                  APSP_ERR_USAGE &&
              strstr(err.message, "to itself is -1"),
          "a diagonal of -1: %s", err.message);
    apsp_matrix_destroy(d);
}

int main(void) {
    for (int t = 0; t < 4; t++)
        test_random((apsp_dtype)t, 300);
    test_refused();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
