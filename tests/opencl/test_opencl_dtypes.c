/* The OpenCL kernels for int64, float32 and float64 distances against independent oracles, on
 * random graphs at sizes around the block edges, dense and sparse, with negative weights (no
 * negative cycle: edges reweighted by vertex potentials, as Johnson's algorithm does) and with a
 * negative cycle (APSP_ERR_NEGATIVE_CYCLE):
 *   int64:  weights beyond int32's rule, equal to oracle_floyd_warshall_i64;
 *   floats: fractional weights, bit-identical to oracle_blocked_f32/f64 at the solve's round
 *           depth; integral weights, equal to the int32 oracle.
 * One solver serves every case, so the element type changes between its solves.
 *
 * --stream=N: each case streams from host memory (src/drivers/stream.c) in super-rounds of N row
 * units, with blocks of one unit: its own solver has the --device-memory for that (stream_cap),
 * and the report must say it streamed. int64 must still equal the oracle. Floats cannot be
 * compared bit for bit: a streamed block adds C(i,k) + R(k,j) over the closed K x n panels, so a
 * path i -> a -> b -> j with a, b in one super-round is summed both as (w1 + w2) + w3 and as
 * w1 + (w2 + w3) and the smaller kept, where the in-core rounds (and oracle_blocked) sum only the
 * first when a and b are in different rounds (docs/design/opencl.md, "Streaming from host
 * memory"). Integral weights must still be exact; fractional ones within stream_tolerance.
 *
 *   test-opencl-dtypes [--tile=N] [--device=SPEC] [--devices=N] [--kernel-params=WORDS]
 *                      [--dtypes=int64,float32,...] [--sizes=1,63,...] [--seed=N] [--stream=N]
 *
 * --devices=N: every solve must report N devices sharing it. A device without double precision
 * must refuse float64 with APSP_ERR_USAGE. Exit status: 0 passed, 1 a failure, 2 bad arguments,
 * 77 (skipped) without an OpenCL device unless APSP_TEST_REQUIRE_DEVICE=1. */
#include "apsp.h"
#include "graphgen.h"
#include "oracle.h"
#include "oracle_typed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77, MAX_SIZES = 16 };

/* INTEGRAL floats take the integer kernels (src/whole/), INTEGRAL_FLOAT_PATH the same graphs
 * the float kernels (apsp_options.float_kernels): both must give the integral oracle's bits.
 * ZEROS: fractional weights with -0 among them, and -0 on the diagonal (negative_zeros). */
typedef enum weights {
    SPARSE,
    DENSE,
    NEGATIVE,
    CYCLE,
    ZEROS,
    INTEGRAL, /* the integral kinds last: kind >= INTEGRAL */
    INTEGRAL_FLOAT_PATH,
    WEIGHTS_COUNT
} weights;
static const char *const weights_name[] = {"sparse",
                                           "dense",
                                           "negative",
                                           "negative-cycle",
                                           "negative-zeros",
                                           "integral",
                                           "integral, float kernels"};

typedef struct config {
    apsp_options options;
    size_t sizes[MAX_SIZES], size_count;
    int dtype_on[4];
    int devices;
    int stream; /* K in row units for streamed cases; 0: in core */
    uint64_t seed;
    apsp_solver *float_path; /* the same options with float_kernels (in core) */
} config;

/* One graph as an edge list, the weights in double (rounded to float for float32). */
typedef struct edges {
    size_t count;
    size_t *source, *target;
    double *weight;
} edges;

/* The graph of a case: dense (9 in 10 pairs) or sparse (4 edges a vertex); negative weights by
 * potentials h, w + h(u) - h(v) with w >= 1, so that every cycle keeps its positive weight; a
 * negative cycle 0 -> 1 -> 0 of weight -1 added. int64 takes weights up to 2^40; the floats
 * weights in [1, 100) with random low bits, so that sums round and only the same association
 * gives the same bits. */
static int make_graph(weights kind, apsp_dtype dtype, size_t v, uint64_t *rng, edges *g) {
    const int wide = dtype == APSP_INT64;
    const int integral = wide || kind >= INTEGRAL;
    size_t most = kind == DENSE ? v * v : 4 * v + 2;
    g->source = malloc(most * sizeof *g->source);
    g->target = malloc(most * sizeof *g->target);
    g->weight = malloc(most * sizeof *g->weight);
    double *h = calloc(v, sizeof *h);
    if (!g->source || !g->target || !g->weight || !h) {
        free(h);
        return -1;
    }
    for (size_t i = 0; kind == NEGATIVE && i < v; i++)
        h[i] = wide ? (double)gg_below(rng, UINT64_C(1) << 40) : (double)gg_below(rng, 64);
    g->count = 0;
    for (size_t e = 0; e < (kind == DENSE ? v * v : 4 * v); e++) {
        size_t u = kind == DENSE ? e / v : (size_t)gg_below(rng, v);
        size_t t = kind == DENSE ? e % v : (size_t)gg_below(rng, v);
        if (u == t || (kind == DENSE && gg_below(rng, 10) == 0))
            continue;
        double w = wide       ? (double)(1 + gg_below(rng, UINT64_C(1) << 40))
                   : integral ? (double)(1 + gg_below(rng, 100))
                              : 1 + 0x1p-64 * 99 * (double)gg_next(rng); /* every bit used */
        g->source[g->count] = u;
        g->target[g->count] = t;
        g->weight[g->count++] = kind == ZEROS && e % 5 == 0 ? -0.0 : w + h[u] - h[t];
    }
    if (kind == CYCLE && v >= 2) {
        g->source[g->count] = 0, g->target[g->count] = 1, g->weight[g->count++] = 2;
        g->source[g->count] = 1, g->target[g->count] = 0, g->weight[g->count++] = -3;
    }
    free(h);
    return 0;
}

static void free_graph(edges *g) {
    free(g->source);
    free(g->target);
    free(g->weight);
}

/* The graph into the dense V*V oracle array of the type (0 on the diagonal, unreachable
 * elsewhere, the least of repeated edges) and into the library's matrix. */
#define FILL(T, dense, unreachable)                                                                \
    do {                                                                                           \
        T *d_ = (T *)(dense);                                                                      \
        for (size_t i = 0; i < v * v; i++)                                                         \
            d_[i] = i % (v + 1) == 0 ? (T)0 : (unreachable);                                       \
        for (size_t e = 0; e < g->count; e++) {                                                    \
            T *c = &d_[g->source[e] * v + g->target[e]];                                           \
            if ((T)g->weight[e] < *c)                                                              \
                *c = (T)g->weight[e];                                                              \
        }                                                                                          \
        for (size_t i = 0; i < v; i++)                                                             \
            memcpy(apsp_matrix_row_cells(m, i), d_ + i * v, v * sizeof(T));                        \
    } while (0)

static void fill(apsp_dtype dtype, const edges *g, size_t v, void *dense, apsp_matrix *m) {
    if (dtype == APSP_INT64)
        FILL(int64_t, dense, ORACLE_INF64);
    else if (dtype == APSP_FLOAT32)
        FILL(float, dense, INFINITY);
    else
        FILL(double, dense, INFINITY);
}

/* The negative-zeros case: the solve gets -0 on the diagonal as well as the -0 weights, the
 * oracle +0 for each, so that the solve's bits must show every -0 read as +0 (the GPU kernels'
 * fmin and the CPU ones' compare-and-select would disagree on -0: cl/fw.cl, FLOAT_FMIN). */
static void negative_zeros(apsp_dtype dtype, void *dense, apsp_matrix *m) {
    size_t v = m->n;
    for (size_t i = 0; i < v * v; i++)
        if (dtype == APSP_FLOAT32 ? ((float *)dense)[i] == 0 : ((double *)dense)[i] == 0) {
            if (dtype == APSP_FLOAT32)
                ((float *)dense)[i] = 0.0f;
            else
                ((double *)dense)[i] = 0.0;
        }
    for (size_t i = 0; i < v; i++) {
        if (dtype == APSP_FLOAT32)
            ((float *)apsp_matrix_row_cells(m, i))[i] = -0.0f;
        else
            ((double *)apsp_matrix_row_cells(m, i))[i] = -0.0;
    }
}

/* The int32 oracle's answer for integral weights, converted to the float type. */
static int integral_oracle(apsp_dtype dtype, const edges *g, size_t v, void *want) {
    int32_t *d = oracle_matrix_new((int32_t)v);
    if (!d)
        return -1;
    for (size_t e = 0; e < g->count; e++)
        oracle_add_edge(d, (int32_t)v, (int32_t)g->source[e], (int32_t)g->target[e],
                        (int32_t)g->weight[e]);
    oracle_floyd_warshall(d, (int32_t)v);
    for (size_t i = 0; i < v * v; i++) {
        double x = d[i] == ORACLE_INF ? INFINITY : (double)d[i];
        if (dtype == APSP_FLOAT32)
            ((float *)want)[i] = (float)x;
        else
            ((double *)want)[i] = x;
    }
    free(d);
    return 0;
}

/* The oracle's distances for the case; 1 when they show a negative cycle. */
static int oracle(apsp_dtype dtype, weights kind, const edges *g, size_t v, size_t tile,
                  void *want) {
    if (dtype == APSP_INT64) {
        oracle_floyd_warshall_i64(want, v);
        for (size_t i = 0; i < v; i++)
            if (((int64_t *)want)[i * v + i] < 0)
                return 1;
        return 0;
    }
    if (kind >= INTEGRAL)
        return integral_oracle(dtype, g, v, want) == 0 ? 0 : -1;
    if (dtype == APSP_FLOAT32)
        oracle_blocked_f32(want, v, tile);
    else
        oracle_blocked_f64(want, v, tile);
    for (size_t i = 0; i < v; i++)
        if (dtype == APSP_FLOAT32 ? ((float *)want)[i * v + i] < 0
                                  : ((double *)want)[i * v + i] < 0)
            return 1;
    return 0;
}

/* The first cell where the solve and the oracle differ in any bit, or -1. */
static long first_difference(const apsp_matrix *m, const void *want, size_t v, size_t cell) {
    for (size_t i = 0; i < v; i++) {
        const char *got = apsp_matrix_row_cells(m, i), *row = (const char *)want + i * v * cell;
        for (size_t j = 0; j < v; j++)
            if (memcmp(got + j * cell, row + j * cell, cell) != 0)
                return (long)(i * v + j);
    }
    return -1;
}

static double cell_value(const void *cells, size_t at, apsp_dtype dtype) {
    if (dtype == APSP_INT64)
        return (double)((const int64_t *)cells)[at];
    return dtype == APSP_FLOAT32 ? ((const float *)cells)[at] : ((const double *)cells)[at];
}

/* A streamed float cell against the in-core flow's: each computed distance is a sum of at most
 * V - 1 weights rounded once per addition, every partial sum within 128 of the distance (weights
 * >= 1, and the potentials of negative weights in [0, 64) move a subpath by less than 128), so
 * either flow is within (V - 1) * eps / 2 * (|d| + 128) of the exact distance; twice that apart
 * at most, with a factor 2 to spare. */
static int within_tolerance(const apsp_matrix *m, const void *want, size_t v, apsp_dtype dtype,
                            size_t *bits_differ, size_t *at) {
    const double eps = dtype == APSP_FLOAT32 ? 0x1p-23 : 0x1p-52;
    *bits_differ = 0;
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++) {
            double got = cell_value(apsp_matrix_row_cells(m, i), j, dtype);
            double w = cell_value(want, i * v + j, dtype);
            *bits_differ += got != w;
            if (got == w)
                continue;
            if (isinf(got) || isinf(w) || fabs(got - w) > 2 * (double)v * eps * (fabs(w) + 128)) {
                *at = i * v + j;
                return 0;
            }
        }
    return 1;
}

/* The --device-memory that streams the matrix in super-rounds of c->stream row units, with
 * blocks of one: (n, U) from the refusal of a 1 KiB cap, then what stream_prepare.c's
 * device_bytes takes for T-row panels, K-row panels and four blocks, and half a block more. */
static uint64_t stream_cap(const config *c, apsp_matrix *m, size_t cell, int tile) {
    apsp_options o = c->options;
    o.device_memory = 1024;
    apsp_solver *probe = NULL;
    apsp_error err = {0};
    size_t n = 0, unit = 0;
    if (apsp_solver_create(&o, &probe, &err) == APSP_OK &&
        apsp_solver_solve(probe, m, NULL, &err) == APSP_ERR_TOO_LARGE) {
        const char *shape = strstr(err.message, "streaming the ");
        const char *panels = strstr(err.message, "(panels of ");
        if (!shape || !panels || sscanf(shape, "streaming the %zu", &n) != 1 ||
            sscanf(panels, "(panels of %zu", &unit) != 1)
            n = unit = 0;
    }
    apsp_solver_destroy(probe);
    uint64_t row = (uint64_t)n * cell;
    return row * (4 * (uint64_t)tile + 4 * (uint64_t)c->stream * unit + 4 * unit) + row * unit / 2;
}

/* Floats of whole weights (small enough for int32's rule here; V = 1 has none) take the int32
 * kernels unless asked not to; everything else its own type's. */
static apsp_dtype expected_kernels(apsp_dtype dtype, weights kind, size_t v) {
    int whole = kind == INTEGRAL || (v == 1 && kind != INTEGRAL_FLOAT_PATH);
    return dtype != APSP_INT64 && whole ? APSP_INT32 : dtype;
}

/* One case: 0 passed, 1 failed, EXIT_SKIP no device (first solve only), 2 float64 refused. */
static int run_case(const config *c, apsp_solver *solver, apsp_dtype dtype, weights kind, size_t v,
                    uint64_t *rng) {
    const size_t cell = apsp_dtype_size(dtype);
    char name[96];
    snprintf(name, sizeof name, "%s %s V=%zu", apsp_dtype_name(dtype), weights_name[kind], v);
    edges g = {0};
    apsp_matrix *m = NULL;
    apsp_solver *own = NULL; /* --stream: the case's own solver, with its cap */
    apsp_error err = {0};
    void *want = malloc(v * v * cell);
    int result = 1;
    if (!want || make_graph(kind, dtype, v, rng, &g) != 0 ||
        apsp_matrix_create_typed(v, dtype, &m, &err) != APSP_OK) {
        fprintf(stderr, "%s: cannot set up: %s\n", name, err.message);
        goto done;
    }
    fill(dtype, &g, v, want, m);
    if (kind == ZEROS && dtype != APSP_INT64)
        negative_zeros(dtype, want, m);
    apsp_report report = {0};
    if (kind == INTEGRAL_FLOAT_PATH)
        solver = c->float_path;
    if (c->stream) {
        apsp_options o = c->options;
        o.float_kernels = kind == INTEGRAL_FLOAT_PATH;
        o.device_memory = stream_cap(c, m, apsp_dtype_size(expected_kernels(dtype, kind, v)),
                                     c->options.tile ? c->options.tile : 64);
        if (o.device_memory == 0 || apsp_solver_create(&o, &own, &err) != APSP_OK) {
            fprintf(stderr, "%s: no streaming cap: %s\n", name, err.message);
            goto done;
        }
        solver = own;
    }
    apsp_status status = apsp_solver_solve(solver, m, &report, &err);
    if (status == APSP_ERR_USAGE && dtype == APSP_FLOAT64 && strstr(err.message, "fp64")) {
        printf("%s: refused, no double precision: %s\n", name, err.message);
        result = 2;
        goto done;
    }
    /* A failed solve reports no round depth; a negative cycle shows at any. */
    int tile = report.tile ? report.tile : c->options.tile ? c->options.tile : 64;
    int cycle = oracle(dtype, kind, &g, v, (size_t)tile, want);
    if (cycle < 0) {
        fprintf(stderr, "%s: out of memory in the oracle\n", name);
    } else if (cycle) {
        if (status == APSP_ERR_NEGATIVE_CYCLE)
            result = 0;
        else
            fprintf(stderr, "%s: the oracle finds a negative cycle, the solve says %d (%s)\n", name,
                    (int)status, err.message);
    } else if (status != APSP_OK) {
        fprintf(stderr, "%s: solve failed (%d): %s\n", name, (int)status, err.message);
    } else if (report.kernels != expected_kernels(dtype, kind, v)) {
        fprintf(stderr, "%s: ran the %s kernels (%s)\n", name, apsp_dtype_name(report.kernels),
                report.kernels_why);
    } else if (c->stream && !report.streamed) {
        fprintf(stderr, "%s: did not stream\n", name);
    } else if (c->stream && dtype != APSP_INT64 && kind < INTEGRAL) {
        size_t differ = 0, at = 0;
        if (within_tolerance(m, want, v, dtype, &differ, &at))
            result = 0;
        else
            fprintf(stderr, "%s: d(%zu,%zu) = %.17g, the in-core flow %.17g, beyond tolerance\n",
                    name, at / v, at % v,
                    cell_value(apsp_matrix_row_cells(m, at / v), at % v, dtype),
                    cell_value(want, at, dtype));
        printf("%s streamed, K = %zu, %zu blocks: %zu cells differ in bits from the in-core "
               "flow\n",
               name, report.stream_pivots, report.stream_blocks, differ);
    } else if (c->devices && report.devices != c->devices) {
        fprintf(stderr, "%s: %d devices shared the solve, not %d (%s)\n", name, report.devices,
                c->devices, report.device);
    } else {
        long at = first_difference(m, want, v, cell);
        if (at < 0) {
            result = 0;
            if (c->stream)
                printf("%s streamed, K = %zu, %zu blocks: exact\n", name, report.stream_pivots,
                       report.stream_blocks);
        } else {
            size_t i = (size_t)at / v, j = (size_t)at % v;
            fprintf(stderr, "%s (tile %d): d(%zu,%zu) = %.17g, the oracle says %.17g\n", name,
                    report.tile, i, j, cell_value(apsp_matrix_row_cells(m, i), j, dtype),
                    cell_value(want, at, dtype));
        }
    }
done:
    apsp_solver_destroy(own);
    free_graph(&g);
    apsp_matrix_destroy(m);
    free(want);
    return result;
}

static int parse_args(int argc, char **argv, config *c) {
    static const size_t default_sizes[] = {1, 63, 64, 65, 200, 300};
    apsp_options_init(&c->options);
    c->options.backend = APSP_BACKEND_OPENCL;
    c->size_count = sizeof default_sizes / sizeof default_sizes[0];
    memcpy(c->sizes, default_sizes, sizeof default_sizes);
    c->dtype_on[APSP_INT64] = c->dtype_on[APSP_FLOAT32] = c->dtype_on[APSP_FLOAT64] = 1;
    c->seed = 15;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *v = strchr(arg, '=');
        v = v ? v + 1 : "";
        char *end = NULL;
        if (strncmp(arg, "--tile=", 7) == 0) {
            c->options.tile = (int)strtol(v, &end, 10);
        } else if (strncmp(arg, "--device=", 9) == 0) {
            c->options.device = v;
        } else if (strncmp(arg, "--kernel-params=", 16) == 0) {
            c->options.kernel_params = v;
        } else if (strncmp(arg, "--devices=", 10) == 0) {
            c->devices = (int)strtol(v, &end, 10);
        } else if (strncmp(arg, "--stream=", 9) == 0) {
            c->stream = (int)strtol(v, &end, 10);
        } else if (strncmp(arg, "--seed=", 7) == 0) {
            c->seed = strtoull(v, &end, 10);
        } else if (strncmp(arg, "--sizes=", 8) == 0) {
            c->size_count = 0;
            for (const char *s = v; *s && c->size_count < MAX_SIZES; s = *end ? end + 1 : end) {
                c->sizes[c->size_count++] = (size_t)strtoul(s, &end, 10);
                if (end == s || c->sizes[c->size_count - 1] == 0 || (*end && *end != ','))
                    return -1;
            }
        } else if (strncmp(arg, "--dtypes=", 9) == 0) {
            memset(c->dtype_on, 0, sizeof c->dtype_on);
            char copy[64];
            snprintf(copy, sizeof copy, "%s", v);
            for (char *word = strtok(copy, ","); word; word = strtok(NULL, ",")) {
                apsp_dtype dtype;
                if (apsp_dtype_parse(word, &dtype) != 0 || dtype == APSP_INT32)
                    return -1;
                c->dtype_on[dtype] = 1;
            }
        } else {
            return -1;
        }
        if (end && *end)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    config c = {0};
    if (parse_args(argc, argv, &c) != 0) {
        fprintf(stderr, "usage: test-opencl-dtypes [--tile=N] [--device=SPEC] [--devices=N] "
                        "[--kernel-params=WORDS] [--dtypes=int64,float32,float64] "
                        "[--sizes=1,63,...] [--seed=N] [--stream=N]\n");
        return 2;
    }
    apsp_solver *solver = NULL;
    apsp_error err = {0};
    if (apsp_solver_create(&c.options, &solver, &err) != APSP_OK) {
        const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
        int required = require && strcmp(require, "1") == 0;
        printf("no OpenCL device: %s\n", err.message);
        return required || err.status != APSP_ERR_NO_DEVICE ? 1 : EXIT_SKIP;
    }
    apsp_options float_path = c.options;
    float_path.float_kernels = 1;
    if (apsp_solver_create(&float_path, &c.float_path, &err) != APSP_OK) {
        printf("no float-kernel solver: %s\n", err.message);
        apsp_solver_destroy(solver);
        return 1;
    }
    uint64_t rng = c.seed;
    int failures = 0, cases = 0;
    for (int dtype = APSP_INT64; dtype <= APSP_FLOAT64; dtype++) {
        int refused = 0;
        for (int kind = 0; kind < WEIGHTS_COUNT && c.dtype_on[dtype] && !refused; kind++) {
            if (kind >= INTEGRAL && dtype == APSP_INT64)
                continue; /* every int64 case is integral */
            for (size_t s = 0; s < c.size_count && !refused; s++) {
                int r = run_case(&c, solver, (apsp_dtype)dtype, (weights)kind, c.sizes[s], &rng);
                refused = r == 2;
                failures += r == 1;
                cases++;
            }
        }
    }
    apsp_solver_destroy(solver);
    apsp_solver_destroy(c.float_path);
    printf("%d cases, %d failed\n", cases, failures);
    return failures ? 1 : 0;
}
