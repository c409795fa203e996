/* Whole-number floats through the integer kernels (src/whole/), against the float path and an
 * independent oracle. Two solvers of the same options, one with float_kernels: for each case the
 * default solver's answer must have the float path's bits, and its report the kernels the rule
 * picks:
 *
 *   at a bound:   a DAG (no cycle, so negative weights are fine) with a chain 0 -> 1 -> ... of
 *                 weight -W, so that d(0, V-1) = -(V-1) W, and random whole weights in [-W, W];
 *                 float32 at W = 2^23 / (V - 1) takes int32, one more the float path; float64 at
 *                 int32's rule takes int32, one more int64, at 2^52 / (V - 1) int64, one more the
 *                 float path. Within the bound the answer is also the int64 oracle's.
 *   fractions:    one weight 0.5 among whole ones: the float path, the report naming it;
 *   -0.0:         a weight -0.0, or a diagonal -0.0: read as +0.0 by every path (the solver makes
 *                 -0 cells +0 first, base/matrix.h), so the int32 kernels, the same bits;
 *   negative cycle: APSP_ERR_NEGATIVE_CYCLE with the float path's message and matrix.
 *   the last row:  the only negative weight (-1) and the largest |weight| (at the int32 bound,
 *                 or at float32's, the only edge into vertex 1) in the last row, its vertex on
 *                 no cycle, then on a negative one: the integer matrix's negativity and largest
 *                 weight come from the scan that reads the rows (the driver does not read the
 *                 matrix again), and a scan that missed that row would give the kernels the
 *                 wrong form (OpenCL's bounded negative form then takes d(V-1, 1) for
 *                 unreachable), or no cycle check.
 *
 * Every case is also solved from rows in the caller's memory (apsp_solver_solve_rows, the
 * distances written into the array the weights came from): the same status, kernels and bits;
 * and from its edge list (apsp_solver_solve_graph_typed), real and integer: the same status and
 * bits and kernels, decided from the edges except where the matrix's scan decides (whole_graph.h:
 * int64's bound, or whole weights within int32's with one negative).
 * A graph of V = 1501 on 3 threads (float64: 18 MB, past the size the passes split over the
 * threads at, and rows that 3 does not divide) runs each pass on several threads.
 *
 *   test-whole-floats [--backend=cpu|opencl] [--device=SPEC] [--tile=N] [--devices=N]
 * Exit 77 (skipped) when the backend has no device. */
#include "apsp.h"
#include "check.h"
#include "device_args.h"
#include "oracle_typed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77 };

static uint64_t rng_state = 0x77686f6c65u; /* splitmix64, so that a failure replays */

static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A whole number in [-most, most]. */
static double whole_within(uint64_t most) {
    return (double)(int64_t)(next_random() % (2 * most + 1)) - (double)most;
}

typedef struct solvers {
    apsp_solver *whole, *floats;
    int devices; /* --devices: every solve must say so */
} solvers;

/* A dense V*V graph of doubles: 0 on the diagonal, +inf for no edge. */
static double *empty_graph(size_t v) {
    double *w = malloc(sizeof *w * v * v);
    if (!w)
        abort();
    for (size_t x = 0; x < v * v; x++)
        w[x] = x % (v + 1) == 0 ? 0 : INFINITY;
    return w;
}

/* The DAG of the bound cases: the chain of -most, about six random edges a vertex forward. */
static double *bound_graph(size_t v, uint64_t most) {
    double *w = empty_graph(v);
    for (size_t i = 0; i + 1 < v; i++) {
        w[i * v + i + 1] = -(double)most;
        for (int e = 0; e < 6; e++) {
            size_t j = i + 1 + next_random() % (v - i - 1);
            if (j != i + 1)
                w[i * v + j] = whole_within(most);
        }
    }
    return w;
}

/* Whole weights in [0, 50), zeros among them, four edges a vertex; cycles of positive weight. */
static double *small_graph(size_t v) {
    double *w = empty_graph(v);
    for (size_t e = 0; e < 4 * v; e++) {
        size_t i = next_random() % v, j = next_random() % v;
        if (i != j)
            w[i * v + j] = (double)(next_random() % 50);
    }
    return w;
}

static apsp_matrix *matrix_of(const double *w, size_t v, apsp_dtype type) {
    apsp_matrix *m;
    apsp_error err;
    if (apsp_matrix_create_typed(v, type, &m, &err) != APSP_OK)
        abort();
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++) {
            void *row = apsp_matrix_row_cells(m, i);
            if (type == APSP_FLOAT32)
                ((float *)row)[j] = (float)w[i * v + j];
            else
                ((double *)row)[j] = w[i * v + j];
        }
    return m;
}

/* apsp_row_io over a dense V x V array of the type, read and written in place. */
typedef struct dense_rows {
    void *cells;
    size_t v;
    apsp_dtype type;
} dense_rows;

static void read_row(void *context, size_t i, void *cells) {
    const dense_rows *d = context;
    const size_t bytes = d->v * apsp_dtype_size(d->type);
    memcpy(cells, (const char *)d->cells + i * bytes, bytes);
}

static void write_row(void *context, size_t i, const void *cells) {
    const dense_rows *d = context;
    const size_t bytes = d->v * apsp_dtype_size(d->type);
    memcpy((char *)d->cells + i * bytes, cells, bytes);
}

/* The rows solve of w in `type`, compared with the float path's matrix (status, message, bits)
 * and its report with the matrix solve's. */
static void check_rows(const solvers *s, const char *what, const double *w, size_t v,
                       apsp_dtype type, apsp_status want, const apsp_error *want_err,
                       const apsp_matrix *floats, const apsp_report *matrix_report) {
    const size_t size = apsp_dtype_size(type);
    dense_rows d = {malloc(size * v * v), v, type};
    if (!d.cells)
        abort();
    for (size_t x = 0; x < v * v; x++)
        if (type == APSP_FLOAT32)
            ((float *)d.cells)[x] = (float)w[x];
        else
            ((double *)d.cells)[x] = w[x];
    const apsp_row_io io = {read_row, write_row, &d, NULL};
    apsp_report report;
    apsp_error err = {0};
    apsp_status got = apsp_solver_solve_rows(s->whole, v, type, &io, &report, &err);
    CHECK(got == want, "%s, rows: %s, the float path %s", what, apsp_status_name(got),
          apsp_status_name(want));
    CHECK(got == APSP_OK || strcmp(err.message, want_err->message) == 0,
          "%s, rows: '%s', the float path '%s'", what, err.message, want_err->message);
    size_t differ = 0, first = 0;
    for (size_t i = 0; got == APSP_OK && i < v; i++)
        for (size_t j = 0; j < v; j++)
            if (memcmp((const char *)d.cells + (i * v + j) * size,
                       (const char *)apsp_matrix_row_cells(floats, i) + j * size, size) != 0 &&
                differ++ == 0)
                first = i * v + j;
    CHECK(differ == 0, "%s, rows: %zu cells differ in bits from the float path, first (%zu, %zu)",
          what, differ, first / v, first % v);
    CHECK(got != APSP_OK || (report.kernels == matrix_report->kernels &&
                             strcmp(report.kernels_why, matrix_report->kernels_why) == 0),
          "%s, rows: the %s kernels (%s), the matrix solve's %s (%s)", what,
          apsp_dtype_name(report.kernels), report.kernels_why,
          apsp_dtype_name(matrix_report->kernels), matrix_report->kernels_why);
    free(d.cells);
}

/* The edges of w (every finite cell off the diagonal, and the diagonal's as self-loops, which
 * are ignored), with real weights, or integer ones where every weight is whole (`integer`). */
static apsp_graph *graph_of(const double *w, size_t v, int integer) {
    apsp_graph *g;
    apsp_error err;
    if (apsp_graph_create(v, 0, &g, &err) != APSP_OK)
        abort();
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++) {
            double x = w[i * v + j];
            if (!isfinite(x))
                continue;
            apsp_status added = integer
                                    ? apsp_graph_append(g, (int32_t)i, (int32_t)j, (int64_t)x, &err)
                                    : apsp_graph_append_real(g, (int32_t)i, (int32_t)j, x, &err);
            if (added != APSP_OK)
                abort();
        }
    return g;
}

/* Whether every finite weight of w is whole and within int64 (graph_of's integer form). */
static int all_whole(const double *w, size_t v) {
    for (size_t x = 0; x < v * v; x++)
        if (isfinite(w[x]) && (w[x] != rint(w[x]) || fabs(w[x]) >= 0x1p62))
            return 0;
    return 1;
}

/* Rows of `type` handed on by apsp_solver_solve_graph_typed, into a dense V x V array. */
typedef struct graph_rows {
    char *cells;
    size_t v, size, next_row;
    int out_of_order;
} graph_rows;

static apsp_status take_rows(void *context, size_t first, size_t count, const void *rows,
                             size_t pitch, apsp_error *error) {
    (void)error;
    graph_rows *g = context;
    g->out_of_order |= first != g->next_row || pitch < g->v;
    for (size_t r = 0; r < count && first + r < g->v; r++)
        memcpy(g->cells + (first + r) * g->v * g->size, (const char *)rows + r * pitch * g->size,
               g->v * g->size);
    g->next_row = first + count;
    return APSP_OK;
}

/* The solve of w's edges for rows of `type` (apsp_solver_solve_graph_typed), against the float
 * path's matrix (status, message, bits), with the matrix solve's kernels. The edges decide, and
 * the report says so, unless the bound is int64's or whole weights, some negative, are within
 * int32's (whole_graph.h). Both
 * the real and (for whole weights) the integer form of the edge list. */
static void check_graph(const solvers *s, const char *what, const double *w, size_t v,
                        apsp_dtype type, apsp_status want, const apsp_error *want_err,
                        const apsp_matrix *floats, const apsp_report *matrix_report) {
    int negative = 0;
    for (size_t x = 0; x < v * v; x++)
        negative |= w[x] < 0 && x % (v + 1) != 0;
    for (int integer = 0; integer <= all_whole(w, v); integer++) {
        apsp_graph *g = graph_of(w, v, integer);
        graph_rows rows = {calloc(v * v, apsp_dtype_size(type)), v, apsp_dtype_size(type), 0, 0};
        if (!rows.cells)
            abort();
        apsp_report report;
        apsp_error err = {0};
        apsp_status got =
            apsp_solver_solve_graph_typed(s->whole, g, type, take_rows, &rows, &report, &err);
        const char *form = integer ? "integer edges" : "real edges";
        CHECK(got == want, "%s, %s: %s, the float path %s", what, form, apsp_status_name(got),
              apsp_status_name(want));
        CHECK(got == APSP_OK || strcmp(err.message, want_err->message) == 0,
              "%s, %s: '%s', the float path '%s'", what, form, err.message, want_err->message);
        size_t differ = 0, first = 0;
        for (size_t i = 0; got == APSP_OK && i < v; i++)
            for (size_t j = 0; j < v; j++)
                if (memcmp(rows.cells + (i * v + j) * rows.size,
                           (const char *)apsp_matrix_row_cells(floats, i) + j * rows.size,
                           rows.size) != 0 &&
                    differ++ == 0)
                    first = i * v + j;
        CHECK(differ == 0 && !rows.out_of_order,
              "%s, %s: %zu cells differ in bits from the float path, first (%zu, %zu); rows out "
              "of order: %d",
              what, form, differ, first / v, first % v, rows.out_of_order);
        /* (the edges decide unless the bound is int64's, or a weight is negative and the int32
         * kernels would answer: whole_graph.h) */
        const int from_edges = matrix_report->kernels != APSP_INT64 &&
                               !(negative && matrix_report->kernels == APSP_INT32);
        CHECK(got != APSP_OK || (report.kernels == matrix_report->kernels &&
                                 (strstr(report.kernels_why, "edge") != NULL) == from_edges),
              "%s, %s: the %s kernels (%s), the matrix solve's %s (%s)", what, form,
              apsp_dtype_name(report.kernels), report.kernels_why,
              apsp_dtype_name(matrix_report->kernels), matrix_report->kernels_why);
        free(rows.cells);
        apsp_graph_destroy(g);
    }
}

/* Cells of the n x n block that differ in any bit, the first at *at. */
static size_t bits_differ(const apsp_matrix *a, const apsp_matrix *b, size_t *at) {
    const size_t size = apsp_dtype_size(a->dtype);
    size_t differ = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < a->n; j++)
            if (memcmp((const char *)apsp_matrix_row_cells(a, i) + j * size,
                       (const char *)apsp_matrix_row_cells(b, i) + j * size, size) != 0 &&
                differ++ == 0)
                *at = i * a->n + j;
    return differ;
}

static double cell(const apsp_matrix *m, size_t i, size_t j) {
    const void *row = apsp_matrix_row_cells(m, i);
    return m->dtype == APSP_FLOAT32 ? ((const float *)row)[j] : ((const double *)row)[j];
}

/* The solve against the int64 oracle, for a graph within the bound (no rounding anywhere). */
static void check_oracle(const char *what, const double *w, const apsp_matrix *m) {
    const size_t v = m->n;
    int64_t *d = malloc(sizeof *d * v * v);
    if (!d)
        abort();
    for (size_t x = 0; x < v * v; x++)
        d[x] = isinf(w[x]) ? ORACLE_INF64 : (int64_t)w[x];
    oracle_floyd_warshall_i64(d, v);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++) {
            int64_t want = d[i * v + j];
            double got = cell(m, i, j);
            int same = want == ORACLE_INF64 ? got == INFINITY : got == (double)want;
            if (!same && wrong++ == 0)
                first = i * v + j;
        }
    CHECK(wrong == 0, "%s: %zu cells differ from the oracle, first (%zu, %zu): %.17g", what, wrong,
          first / v, first % v, cell(m, first / v, first % v));
    free(d);
}

/* Solves the graph both ways; the default's kernels must be `kernels` and its bits the float
 * path's (the same error, message and matrix for a negative cycle). Returns the default's
 * report's reason in why. */
static void solve_both(const solvers *s, const char *what, const double *w, size_t v,
                       apsp_dtype type, apsp_dtype kernels, int exact, char *why, size_t size) {
    apsp_matrix *whole = matrix_of(w, v, type), *floats = matrix_of(w, v, type);
    apsp_report report, float_report;
    apsp_error err = {0}, float_err = {0};
    apsp_status got = apsp_solver_solve(s->whole, whole, &report, &err);
    apsp_status want = apsp_solver_solve(s->floats, floats, &float_report, &float_err);
    size_t at = 0, differ = bits_differ(whole, floats, &at);
    CHECK(got == want, "%s: %s, the float path %s", what, apsp_status_name(got),
          apsp_status_name(want));
    CHECK(got == APSP_OK || strcmp(err.message, float_err.message) == 0,
          "%s: '%s', the float path '%s'", what, err.message, float_err.message);
    CHECK(differ == 0,
          "%s: %zu cells differ in bits from the float path, first (%zu, %zu): "
          "%.17g, not %.17g",
          what, differ, at / v, at % v, cell(whole, at / v, at % v), cell(floats, at / v, at % v));
    if (got == APSP_OK) {
        CHECK(report.kernels == kernels, "%s: the %s kernels ran, not the %s ones (%s)", what,
              apsp_dtype_name(report.kernels), apsp_dtype_name(kernels), report.kernels_why);
        CHECK(float_report.kernels == type, "%s: float_kernels ran the %s kernels", what,
              apsp_dtype_name(float_report.kernels));
        CHECK(!s->devices || report.devices == s->devices, "%s: %d devices, not %d", what,
              report.devices, s->devices);
        snprintf(why, size, "%s", report.kernels_why);
    }
    if (got == APSP_OK && exact)
        check_oracle(what, w, whole);
    check_rows(s, what, w, v, type, want, &float_err, floats, &report);
    check_graph(s, what, w, v, type, want, &float_err, floats, &report);
    apsp_matrix_destroy(whole);
    apsp_matrix_destroy(floats);
}

/* The bound cases of one size (the header). */
static void test_bounds(const solvers *s, size_t v) {
    const uint64_t steps = v - 1, int32_most = (uint64_t)(APSP_INF - 1) / steps;
    const struct {
        apsp_dtype type;
        uint64_t most;
        apsp_dtype kernels;
    } cases[] = {
        {APSP_FLOAT32, ((uint64_t)1 << 23) / steps, APSP_INT32},
        {APSP_FLOAT32, ((uint64_t)1 << 23) / steps + 1, APSP_FLOAT32},
        {APSP_FLOAT64, int32_most, APSP_INT32},
        {APSP_FLOAT64, int32_most + 1, APSP_INT64},
        {APSP_FLOAT64, ((uint64_t)1 << 52) / steps, APSP_INT64},
        {APSP_FLOAT64, ((uint64_t)1 << 52) / steps + 1, APSP_FLOAT64},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char what[128], why[192] = "";
        snprintf(what, sizeof what, "%s V=%zu, weights within +-%llu",
                 apsp_dtype_name(cases[k].type), v, (unsigned long long)cases[k].most);
        double *w = bound_graph(v, cases[k].most);
        int exact = cases[k].kernels != cases[k].type;
        solve_both(s, what, w, v, cases[k].type, cases[k].kernels, exact, why, sizeof why);
        CHECK(exact ? strstr(why, "whole weights") != NULL : strstr(why, "rounds") != NULL,
              "%s: the report says '%s'", what, why);
        free(w);
    }
}

/* One small whole graph spoiled by `spoil` at (i, j) (NaN: unspoiled): the float path unless
 * unspoiled, the report's reason containing `says`. */
static void test_spoiled(const solvers *s, apsp_dtype type, size_t v, size_t i, size_t j,
                         double spoil, const char *label, const char *says) {
    char what[128], why[192] = "";
    snprintf(what, sizeof what, "%s V=%zu, %s", apsp_dtype_name(type), v, label);
    double *w = small_graph(v);
    int spoiled = !isnan(spoil) && spoil != 0; /* -0.0 spoils nothing: it is read as +0.0 */
    if (spoiled)
        w[i * v + j] = spoil;
    solve_both(s, what, w, v, type, spoiled ? type : APSP_INT32, !spoiled, why, sizeof why);
    CHECK(strstr(why, says) != NULL, "%s: the report says '%s', not '%s'", what, why, says);
    free(w);
}

/* A negative cycle 0 -> 1 -> 2 -> 0 of weight -1 in a whole graph. */
static void test_cycle(const solvers *s, apsp_dtype type, size_t v) {
    char what[128], why[192] = "";
    snprintf(what, sizeof what, "%s V=%zu, a negative cycle", apsp_dtype_name(type), v);
    double *w = small_graph(v);
    w[0 * v + 1] = 2;
    w[1 * v + 2] = -5;
    w[2 * v + 0] = 2;
    solve_both(s, what, w, v, type, type, 0, why, sizeof why);
    free(w);
}

/* The last row's case (the header), V >= 3: on no cycle (column V-1 empty), or on 0 -> V-1 -> 0. */
static void test_last_row(const solvers *s, apsp_dtype type, size_t v, int cycle) {
    const uint64_t steps = v - 1;
    const uint64_t most =
        type == APSP_FLOAT32 ? ((uint64_t)1 << 23) / steps : (uint64_t)(APSP_INF - 1) / steps;
    char what[128], why[192] = "";
    snprintf(what, sizeof what, "%s V=%zu, -1 and %llu in the last row%s", apsp_dtype_name(type), v,
             (unsigned long long)most, cycle ? ", on a negative cycle" : "");
    double *w = small_graph(v);
    for (size_t i = 0; i + 1 < v; i++) {
        w[i * v + v - 1] = INFINITY;
        w[i * v + 1] = i == 1 ? 0 : INFINITY;
    }
    if (cycle)
        w[0 * v + v - 1] = 0;
    w[(v - 1) * v + 0] = -1;
    w[(v - 1) * v + 1] = (double)most;
    solve_both(s, what, w, v, type, cycle ? type : APSP_INT32, !cycle, why, sizeof why);
    CHECK(cycle || strstr(why, "whole weights: int32") != NULL, "%s: the report says '%s'", what,
          why);
    free(w);
}

/* --devices=N (device_args' own argument). */
static int devices_arg(const char *arg, void *devices) {
    if (strncmp(arg, "--devices=", 10) != 0)
        return 0;
    *(int *)devices = atoi(arg + 10);
    return 1;
}

int main(int argc, char **argv) {
    apsp_options o;
    solvers s = {0};
    if (device_args(argc, argv, &o, devices_arg, &s.devices) != 0) {
        fprintf(stderr, "usage: test-whole-floats [--backend=cpu|opencl] [--device=SPEC] "
                        "[--tile=N] [--devices=N]\n");
        return 2;
    }
    apsp_error err;
    if (apsp_solver_create(&o, &s.whole, &err) != APSP_OK) {
        printf("no device: %s\n", err.message);
        return err.status == APSP_ERR_NO_DEVICE ? EXIT_SKIP : 1;
    }
    o.float_kernels = 1;
    if (apsp_solver_create(&o, &s.floats, &err) != APSP_OK) {
        fprintf(stderr, "the float-kernel solver: %s\n", err.message);
        return 1;
    }
    static const size_t sizes[] = {2, 129, 300};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t v = sizes[k];
        test_bounds(&s, v);
        for (apsp_dtype type = APSP_FLOAT32; type <= APSP_FLOAT64; type++) {
            test_spoiled(&s, type, v, 0, 0, NAN, "whole weights", "whole weights: int32");
            test_spoiled(&s, type, v, 1, 0, 0.5, "a weight 0.5", "weight 0.5 at (1, 0)");
            test_spoiled(&s, type, v, 0, 1, -0.0, "a weight -0.0", "whole weights: int32");
            /* past the bound with no negative weight: the edges decide the float path too */
            const unsigned digits = type == APSP_FLOAT32 ? 24 : 53;
            test_spoiled(&s, type, v, 0, 1, (double)((1ull << (digits - 1)) / (v - 1) + 1),
                         "a whole weight past the bound", "rounds");
            test_spoiled(&s, type, v, 1, 1, -0.0, "a diagonal -0.0", "whole weights: int32");
            if (v >= 3) {
                test_cycle(&s, type, v);
                test_last_row(&s, type, v, 0);
                test_last_row(&s, type, v, 1);
            }
        }
    }
    apsp_solver_destroy(s.whole);
    apsp_solver_destroy(s.floats);
    /* Passes on several threads: 3 of them over 1501 rows. */
    o.threads = 3;
    o.float_kernels = 0;
    if (apsp_solver_create(&o, &s.whole, &err) != APSP_OK)
        return 1;
    o.float_kernels = 1;
    if (apsp_solver_create(&o, &s.floats, &err) != APSP_OK)
        return 1;
    test_spoiled(&s, APSP_FLOAT64, 1501, 0, 0, NAN, "whole weights, 3 threads",
                 "whole weights: int32");
    test_spoiled(&s, APSP_FLOAT64, 1501, 1400, 3, 0.5, "a weight 0.5, 3 threads",
                 "weight 0.5 at (1400, 3)");
    test_last_row(&s, APSP_FLOAT64, 1501, 0);
    test_last_row(&s, APSP_FLOAT64, 1501, 1);
    apsp_solver_destroy(s.whole);
    apsp_solver_destroy(s.floats);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
