/* The pthread backend on the element types beyond int32, against the independent oracles:
 *
 *   int64:   equal to plain Floyd-Warshall (oracle_floyd_warshall_i64), with weights far beyond
 *            what int32 distances allow, and with negative weights;
 *   float32, float64: bit for bit the blocked data flow at the pthread round depth
 *            (oracle_blocked_f32/f64 at tile 128) with real weights in [0, 1) and [-0.1, 1),
 *            and equal to the int32 oracle when the weights are small integers, both by the
 *            int32 kernels that such floats take (src/whole/; the report must say so) and by
 *            the float kernels (apsp_options.float_kernels);
 *   every type: a negative cycle is APSP_ERR_NEGATIVE_CYCLE naming one of its vertices;
 *   float32, float64: a matrix whose path lengths could overflow to inf is refused, one just
 *            inside the rule solved exactly.
 *
 * Sizes sit around the block edge (1, 127, 128, 129, 300, 513) and below it (2, 30, 64: up to 128
 * the small solve runs, on the calling thread over V x V cells, with the blocked solve's bits),
 * graphs are dense and sparse, and every graph is solved with each micro-kernel (options.cpu_isa:
 * a set the CPU lacks falls to the next one down) on 1, 2 and 3 threads. Padding cells must come
 * back untouched.
 *
 *   test-cpu-dtypes [--quick]   (--quick: sizes up to 300) */
#include "apsp.h"
#include "check.h"
#include "oracle.h"
#include "oracle_typed.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The test's own generator (splitmix64), so that a failure replays. */
static uint64_t rng_state = 0x5eed2024u;

static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi) { /* [lo, hi) */
    return lo + (hi - lo) * (double)(next_random() >> 11) * 0x1.0p-53;
}

typedef enum weights {
    REAL,          /* floats: [0, 1); int64: [0, 2^40) */
    REAL_NEGATIVE, /* floats: [-0.1, 1); int64: [-2^36, 2^40), no negative cycle */
    SMALL_INTEGER, /* [0, 1000): floats compared with the int32 oracle */
    NEGATIVE_CYCLE,
} weights;

static const char *const weight_names[] = {"real", "real, negative", "small integers",
                                           "a negative cycle"};

/* A graph as a dense V*V array of doubles (weights of int64 graphs are whole numbers below
 * 2^53, so a double holds them exactly): 0 on the diagonal, +inf for no edge. Edges i -> j
 * with i > j carry an extra 0.1 V (int64: 2^36 V) when weights may be negative: every cycle
 * has such an edge, which outweighs the negative ones, so no cycle is negative. The negative
 * cycle is a triangle of its own, unconnected to the rest. */
static double *make_graph(size_t v, int dense, weights kind, int integer, size_t cycle[3]) {
    double *w = malloc(sizeof *w * v * v);
    if (!w)
        abort();
    const double scale = integer ? 0x1.0p40 : 1.0, low = integer ? -0x1.0p36 : -0.1;
    const double edge_chance = dense ? 1.0 : 4.0 / (double)v;
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++) {
            double x = INFINITY;
            if (i != j && uniform(0, 1) < edge_chance) {
                if (kind == SMALL_INTEGER || kind == NEGATIVE_CYCLE)
                    x = (double)(next_random() % 1000);
                else if (kind == REAL)
                    x = uniform(0, scale);
                else
                    x = uniform(low, scale) + (i > j ? -low * (double)v : 0);
                if (integer)
                    x = floor(x);
            }
            w[i * v + j] = i == j ? 0 : x;
        }
    if (kind == NEGATIVE_CYCLE && v >= 3) {
        for (int c = 0; c < 3; c++)
            cycle[c] = (size_t)(next_random() % v);
        while (cycle[1] == cycle[0])
            cycle[1] = (cycle[1] + 1) % v;
        while (cycle[2] == cycle[0] || cycle[2] == cycle[1])
            cycle[2] = (cycle[2] + 1) % v;
        for (int c = 0; c < 3; c++)
            for (size_t k = 0; k < v; k++)
                if (k != cycle[c])
                    w[cycle[c] * v + k] = w[k * v + cycle[c]] = INFINITY;
        for (int c = 0; c < 3; c++)
            w[cycle[c] * v + cycle[(c + 1) % 3]] = -1;
    }
    return w;
}

/* The graph in the type's cells (int64: APSP_INF64 for +inf). */
static void *typed_copy(const double *w, size_t v, apsp_dtype type) {
    size_t size = apsp_dtype_size(type);
    unsigned char *cells = malloc(size * v * v);
    if (!cells)
        abort();
    for (size_t x = 0; x < v * v; x++) {
        if (type == APSP_INT64)
            ((int64_t *)cells)[x] = isinf(w[x]) ? ORACLE_INF64 : (int64_t)w[x];
        else if (type == APSP_FLOAT32)
            ((float *)cells)[x] = (float)w[x];
        else
            ((double *)cells)[x] = w[x];
    }
    return cells;
}

/* The oracle's answer for a graph without a negative cycle, in the type's cells. */
static void *oracle_answer(const double *w, size_t v, apsp_dtype type, weights kind) {
    void *want = typed_copy(w, v, type);
    if (type == APSP_INT64)
        oracle_floyd_warshall_i64(want, v);
    else if (kind == SMALL_INTEGER) { /* exact: the int32 oracle, whatever the order */
        int32_t *d = oracle_matrix_new((int32_t)v);
        if (!d)
            abort();
        for (size_t x = 0; x < v * v; x++)
            if (!isinf(w[x]))
                d[x] = (int32_t)w[x];
        oracle_floyd_warshall(d, (int32_t)v);
        for (size_t x = 0; x < v * v; x++) {
            double e = d[x] == ORACLE_INF ? INFINITY : d[x];
            if (type == APSP_FLOAT32)
                ((float *)want)[x] = (float)e;
            else
                ((double *)want)[x] = e;
        }
        free(d);
    } else if (type == APSP_FLOAT32)
        oracle_blocked_f32(want, v, 128);
    else
        oracle_blocked_f64(want, v, 128);
    return want;
}

/* Whether padding cell (i, j) holds what a new matrix holds there: 0 on the diagonal, the
 * type's unreachable marker elsewhere. */
static int padding_intact(const apsp_matrix *m, size_t i, size_t j) {
    const void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
    case APSP_INT64:
        return ((const int64_t *)row)[j] == (i == j ? 0 : ORACLE_INF64);
    case APSP_FLOAT32:
        return ((const float *)row)[j] == (i == j ? 0.0f : INFINITY);
    case APSP_FLOAT64:
        return ((const double *)row)[j] == (i == j ? 0.0 : INFINITY);
    default:
        return 0;
    }
}

typedef struct run_case {
    apsp_dtype type;
    size_t v;
    int dense;
    weights kind;
    const char *isa;
    int threads;
    int float_kernels; /* apsp_options.float_kernels: whole floats by the float kernels too */
} run_case;

static void describe(const run_case *c, char *text, size_t size) {
    snprintf(text, size, "%s V=%zu %s %s, %s, %d thread(s)%s", apsp_dtype_name(c->type), c->v,
             c->dense ? "dense" : "sparse", weight_names[c->kind], c->isa, c->threads,
             c->float_kernels ? ", float kernels" : "");
}

/* Floats of whole weights (small integers, or none at V = 1) take the int32 kernels
 * (src/whole/) unless float_kernels asks for theirs. */
static apsp_dtype expected_kernels(const run_case *c) {
    int whole = c->kind == SMALL_INTEGER || c->v == 1;
    return c->type != APSP_INT64 && whole && !c->float_kernels ? APSP_INT32 : c->type;
}

/* Solves the graph (cells as typed_copy) on the case's configuration; compares the answer with
 * `want` byte for byte (NULL: expects the negative cycle). */
static void solve_and_compare(const run_case *c, const void *graph, const void *want,
                              const size_t cycle[3]) {
    char what[160];
    describe(c, what, sizeof what);
    const size_t v = c->v, size = apsp_dtype_size(c->type);
    apsp_error err;
    apsp_matrix *m = NULL;
    if (apsp_matrix_create_typed(v, c->type, &m, &err) != APSP_OK) {
        CHECK(0, "%s: create: %s", what, err.message);
        return;
    }
    for (size_t i = 0; i < v; i++)
        memcpy(apsp_matrix_row_cells(m, i), (const char *)graph + i * v * size, v * size);
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    o.threads = c->threads;
    o.cpu_isa = c->isa;
    o.float_kernels = c->float_kernels;
    apsp_report report;
    apsp_status got = apsp_solve(m, &o, &report, &err);
    if (!want) {
        int named = got == APSP_ERR_NEGATIVE_CYCLE ? oracle_named_vertex(err.message) : -1;
        CHECK(got == APSP_ERR_NEGATIVE_CYCLE, "%s: %s, not the negative cycle", what,
              apsp_status_name(got));
        CHECK(named >= 0 && ((size_t)named == cycle[0] || (size_t)named == cycle[1] ||
                             (size_t)named == cycle[2]),
              "%s: '%s' names no vertex of the cycle %zu, %zu, %zu", what, err.message, cycle[0],
              cycle[1], cycle[2]);
    } else if (got != APSP_OK) {
        CHECK(0, "%s: %s: %s", what, apsp_status_name(got), err.message);
    } else {
        size_t wrong = 0, first = SIZE_MAX, padding = 0;
        for (size_t i = 0; i < v; i++)
            for (size_t j = 0; j < v; j++)
                if (memcmp((const char *)apsp_matrix_row_cells(m, i) + j * size,
                           (const char *)want + (i * v + j) * size, size) != 0) {
                    first = wrong++ ? first : i * v + j;
                }
        for (size_t i = 0; i < m->padded; i++)
            for (size_t j = i < v ? v : 0; j < m->padded; j++)
                padding += !padding_intact(m, i, j);
        CHECK(wrong == 0, "%s: %zu cells differ from the oracle, first (%zu, %zu)", what, wrong,
              first / (v ? v : 1), first % (v ? v : 1));
        CHECK(padding == 0, "%s: %zu padding cells changed", what, padding);
        /* One round (V <= 128): the small solve, over the V x V cells alone (report.padded). */
        const size_t ran_over = v <= 128 ? v : m->padded;
        CHECK(report.padded == ran_over && (v > 128 || report.threads == 1),
              "%s: ran over %zu vertices on %d thread(s), not %zu (the small solve up to 128)",
              what, report.padded, report.threads, ran_over);
        apsp_dtype kernels = expected_kernels(c);
        CHECK(report.kernels == kernels, "%s: the %s kernels ran, not the %s ones (%s)", what,
              apsp_dtype_name(report.kernels), apsp_dtype_name(kernels), report.kernels_why);
    }
    apsp_matrix_destroy(m);
}

static const char *const isas[] = {"avx512", "avx2", "portable"};
static const int thread_counts[] = {1, 2, 3};

static void test_graph(apsp_dtype type, size_t v, int dense, weights kind) {
    size_t cycle[3] = {0, 0, 0};
    if (kind == NEGATIVE_CYCLE && v < 3)
        return;
    int integer = type == APSP_INT64;
    double *w = make_graph(v, dense, kind, integer, cycle);
    void *graph = typed_copy(w, v, type);
    void *want = kind == NEGATIVE_CYCLE ? NULL : oracle_answer(w, v, type, kind);
    /* Whole floats twice: by the integer kernels, and by the float kernels. */
    int float_runs = type != APSP_INT64 && kind == SMALL_INTEGER ? 2 : 1;
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++)
            for (int f = 0; f < float_runs; f++) {
                run_case c = {type, v, dense, kind, isas[i], thread_counts[t], f};
                solve_and_compare(&c, graph, want, cycle);
            }
    free(w);
    free(graph);
    free(want);
}

/* apsp_solve's check of a caller's floating-point matrix: with V = 3 a path of two edges of
 * weight w has length 2w, which must stay below the type's largest number (else it would be
 * inf, and the pair read as unreachable). Taken: the path's length is exactly 2w. */
static void test_overflow_rule(void) {
    const struct {
        apsp_dtype type;
        double w;
        int taken;
    } cases[] = {
        {APSP_FLOAT64, DBL_MAX / 2 * 0.999, 1},
        {APSP_FLOAT64, 1.5e308, 0},
        {APSP_FLOAT64, -DBL_MAX / 2 * 1.001, 0},
        {APSP_FLOAT32, 1.5e38, 1},
        {APSP_FLOAT32, 3e38, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double w[9] = {0, cases[k].w, INFINITY, INFINITY, 0, cases[k].w, INFINITY, INFINITY, 0};
        apsp_matrix *m;
        apsp_error err = {0};
        if (apsp_matrix_create_typed(3, cases[k].type, &m, &err) != APSP_OK)
            abort();
        void *cells = typed_copy(w, 3, cases[k].type);
        size_t size = apsp_dtype_size(cases[k].type);
        for (size_t i = 0; i < 3; i++)
            memcpy(apsp_matrix_row_cells(m, i), (const char *)cells + i * 3 * size, 3 * size);
        apsp_options o;
        apsp_options_init(&o);
        o.backend = APSP_BACKEND_CPU;
        apsp_status got = apsp_solve(m, &o, NULL, &err);
        double d02 = cases[k].type == APSP_FLOAT32 ? ((float *)apsp_matrix_row_cells(m, 0))[2]
                                                   : ((double *)apsp_matrix_row_cells(m, 0))[2];
        if (cases[k].taken)
            CHECK(got == APSP_OK &&
                      d02 == 2 * (cases[k].type == APSP_FLOAT32 ? (float)cases[k].w : cases[k].w),
                  "%s, weights %g: %s, d(0, 2) = %g", apsp_dtype_name(cases[k].type), cases[k].w,
                  apsp_status_name(got), d02);
        else
            CHECK(got == APSP_ERR_USAGE && strstr(err.message, "overflow to inf"),
                  "%s, weights %g: %s (%s), expected a refusal", apsp_dtype_name(cases[k].type),
                  cases[k].w, apsp_status_name(got), err.message);
        free(cells);
        apsp_matrix_destroy(m);
    }
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    test_overflow_rule();
    static const size_t sizes[] = {1, 2, 30, 64, 127, 128, 129, 300, 513};
    static const apsp_dtype types[] = {APSP_INT64, APSP_FLOAT32, APSP_FLOAT64};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (quick && sizes[s] > 300)
                continue;
            for (int dense = 0; dense <= 1; dense++)
                for (weights kind = REAL; kind <= NEGATIVE_CYCLE; kind++)
                    test_graph(types[t], sizes[s], dense, kind);
        }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
