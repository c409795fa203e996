/* apsp_solver_solve_rows of an int32 or int64 matrix checks each row as it reads it (base/matrix.h:
 * matrix_read_rows_known) and hands what it found, negative weights or not and the largest
 * |weight|, to the driver instead of reading the matrix again. Every case puts what matters in
 * the last row, which a pass that missed a row or a thread's slice would not see, and compares
 * the rows solve with apsp_solver_solve of the same cells (which checks the whole matrix) and
 * with the int64 oracle:
 *
 *   the last row:  its -1 the only negative weight, its weight at the type's bound
 *                  ((V - 1) W < INF) the largest and the only edge into vertex 1, its vertex on
 *                  no cycle: the oracle's distances, the same bits as the matrix solve (OpenCL's
 *                  bounded negative form takes d(V-1, 1) for unreachable if W were missed);
 *   a cycle:       the same with 0 -> V-1 of weight 0: APSP_ERR_NEGATIVE_CYCLE, as the matrix;
 *   refusals:      a last-row weight one past the bound, a last-row diagonal 1, a last-row cell
 *                  -INF: APSP_ERR_USAGE with the matrix solve's message;
 *   io->prepare:   called once, before the first row is written, where a device off the host
 *                  computes (a GPU), and never on the host's cores (threads, an OpenCL CPU).
 *
 * V = 300 on one thread, against the oracle too; with --large also V = 4097 on 3 threads (past the
 * 64 MB from which the row passes split over the threads, and rows that 3 does not divide),
 * against the matrix solve only (the oracle would take minutes).
 *
 *   test-rows-checked [--backend=cpu|opencl] [--device=SPEC] [--tile=N] [--large]
 * Exit 77 (skipped) when the backend has no device. */
#include "apsp.h"
#include "check.h"
#include "device_args.h"
#include "oracle_typed.h"

#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77 };

typedef enum spoil {
    SPOIL_NONE,
    SPOIL_CYCLE,
    SPOIL_PAST_BOUND,
    SPOIL_DIAGONAL,
    SPOIL_MINUS_INF
} spoil;

static const char *const spoil_names[] = {"no cycle", "a negative cycle", "a weight past the bound",
                                          "a diagonal 1", "a cell -INF"};

static int64_t inf_of(apsp_dtype type) {
    return type == APSP_INT32 ? APSP_INF : APSP_INF64;
}

/* The dense V*V graph of the case (the header), inf_of(type) for no edge: a few edges a vertex
 * of weights 0..49 (no negative cycle among them), column V-1 and column 1 emptied but for
 * 1 -> 1 and V-1 -> 1, then the last row's cells. */
static int64_t *case_graph(size_t v, apsp_dtype type, spoil how) {
    const int64_t inf = inf_of(type), most = (inf - 1) / (int64_t)(v - 1);
    int64_t *w = malloc(sizeof *w * v * v);
    if (!w)
        abort();
    uint64_t state = 0x726f7773u + v;
    for (size_t x = 0; x < v * v; x++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        size_t i = x / v, j = x % v;
        w[x] = i == j ? 0 : (state >> 33) % 64 < 3 ? (int64_t)((state >> 40) % 50) : inf;
        if (j == v - 1 && i != j)
            w[x] = inf;
        if (j == 1 && i != 1 && i != v - 1)
            w[x] = inf;
    }
    int64_t *last = w + (v - 1) * v;
    last[0] = -1;
    last[1] = how == SPOIL_PAST_BOUND ? most + 1 : most;
    if (how == SPOIL_CYCLE)
        w[0 * v + v - 1] = 0;
    if (how == SPOIL_DIAGONAL)
        last[v - 1] = 1;
    if (how == SPOIL_MINUS_INF)
        last[2] = -inf;
    return w;
}

static void put(apsp_dtype type, void *cells, size_t j, int64_t value) {
    if (type == APSP_INT32)
        ((int32_t *)cells)[j] = (int32_t)value;
    else
        ((int64_t *)cells)[j] = value;
}

static int64_t get(apsp_dtype type, const void *cells, size_t j) {
    return type == APSP_INT32 ? ((const int32_t *)cells)[j] : ((const int64_t *)cells)[j];
}

/* The caller's rows: the graph in, the distances out into `out`; what io->prepare saw. */
typedef struct rows {
    const int64_t *w;
    int64_t *out;
    size_t v;
    apsp_dtype type;
    int prepared;       /* io->prepare's calls */
    int written_before; /* rows written before io->prepare returned */
} rows;

static void prepare_rows(void *context) {
    rows *r = context;
    r->prepared++;
}

static void read_row(void *context, size_t i, void *cells) {
    const rows *r = context;
    for (size_t j = 0; j < r->v; j++)
        put(r->type, cells, j, r->w[i * r->v + j]);
}

static void write_row(void *context, size_t i, const void *cells) {
    rows *r = context;
    r->written_before += !r->prepared;
    for (size_t j = 0; j < r->v; j++)
        r->out[i * r->v + j] = get(r->type, cells, j);
}

/* The number of cells where the rows' distances differ from the matrix's; the first in *at. */
static size_t differences(const int64_t *got, const apsp_matrix *m, size_t *at) {
    size_t count = 0;
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j < m->n; j++)
            if (got[i * m->n + j] != get(m->dtype, apsp_matrix_row_cells(m, i), j) && count++ == 0)
                *at = i * m->n + j;
    return count;
}

/* The distances against the int64 oracle (the graph's INF read as the oracle's). */
static size_t oracle_differences(const int64_t *w, const int64_t *got, size_t v, apsp_dtype type,
                                 size_t *at) {
    const int64_t inf = inf_of(type);
    int64_t *d = malloc(sizeof *d * v * v);
    if (!d)
        abort();
    for (size_t x = 0; x < v * v; x++)
        d[x] = w[x] == inf ? ORACLE_INF64 : w[x];
    oracle_floyd_warshall_i64(d, v);
    size_t count = 0;
    for (size_t x = 0; x < v * v; x++)
        if ((d[x] == ORACLE_INF64 ? inf : d[x]) != got[x] && count++ == 0)
            *at = x;
    free(d);
    return count;
}

/* Whether the report's device computes off the host's cores: an OpenCL device not of type "cpu"
 * (apsp_list_devices), where io->prepare runs beside the solve (apsp.h). */
static int computes_off_host(const apsp_report *report) {
    apsp_device_info *devices;
    size_t count;
    apsp_error err;
    if (strcmp(report->backend, "opencl") != 0 ||
        apsp_list_devices(&devices, &count, &err) != APSP_OK)
        return 0;
    int off = 0;
    for (size_t i = 0; i < count; i++)
        if (devices[i].backend == APSP_BACKEND_OPENCL &&
            strcmp(devices[i].name, report->device) == 0)
            off = strcmp(devices[i].type, "cpu") != 0;
    free(devices);
    return off;
}

static void test_case(apsp_solver *solver, size_t v, apsp_dtype type, spoil how, int oracle) {
    char what[128];
    snprintf(what, sizeof what, "%s V=%zu, the last row with %s", apsp_dtype_name(type), v,
             spoil_names[how]);
    int64_t *w = case_graph(v, type, how), *out = malloc(sizeof *out * v * v);
    apsp_matrix *m;
    apsp_error err = {0}, matrix_err = {0};
    if (!out || apsp_matrix_create_typed(v, type, &m, &err) != APSP_OK)
        abort();
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++)
            put(type, apsp_matrix_row_cells(m, i), j, w[i * v + j]);
    rows r = {w, out, v, type, 0, 0};
    const apsp_row_io io = {read_row, write_row, &r, prepare_rows};
    apsp_report report;
    apsp_status got = apsp_solver_solve_rows(solver, v, type, &io, &report, &err);
    apsp_status want = apsp_solver_solve(solver, m, NULL, &matrix_err);
    const apsp_status expected = how == SPOIL_NONE    ? APSP_OK
                                 : how == SPOIL_CYCLE ? APSP_ERR_NEGATIVE_CYCLE
                                                      : APSP_ERR_USAGE;
    CHECK(got == expected && want == expected, "%s: rows %s, matrix %s, not %s", what,
          apsp_status_name(got), apsp_status_name(want), apsp_status_name(expected));
    CHECK(got == APSP_OK || strcmp(err.message, matrix_err.message) == 0,
          "%s: rows '%s', matrix '%s'", what, err.message, matrix_err.message);
    const int off = got == APSP_OK && computes_off_host(&report);
    CHECK(got != APSP_OK || (r.prepared == off && (!off || r.written_before == 0)),
          "%s on %s: io->prepare called %d times (want %d), %d rows written before it returned",
          what, report.device, r.prepared, off, r.written_before);
    size_t at = 0;
    if (got == APSP_OK && want == APSP_OK) {
        size_t differ = differences(out, m, &at);
        CHECK(differ == 0, "%s: %zu cells differ from the matrix solve, first (%zu, %zu)", what,
              differ, at / v, at % v);
        differ = oracle ? oracle_differences(w, out, v, type, &at) : 0;
        CHECK(differ == 0, "%s: %zu cells differ from the oracle, first (%zu, %zu): %lld", what,
              differ, at / v, at % v, (long long)out[at]);
    }
    apsp_matrix_destroy(m);
    free(w);
    free(out);
}

/* --large (device_args' own argument). */
static int large_arg(const char *arg, void *large) {
    return strcmp(arg, "--large") == 0 ? (*(int *)large = 1) : 0;
}

int main(int argc, char **argv) {
    apsp_options o;
    int large = 0;
    if (device_args(argc, argv, &o, large_arg, &large) != 0) {
        fprintf(stderr, "usage: test-rows-checked [--backend=cpu|opencl] [--device=SPEC] "
                        "[--tile=N] [--large]\n");
        return 2;
    }
    static const struct {
        size_t v;
        unsigned threads;
        int oracle;
    } sizes[] = {{300, 1, 1}, {4097, 3, 0}};
    for (size_t k = 0; k < (large ? 2 : 1); k++) {
        o.threads = sizes[k].threads;
        apsp_solver *solver;
        apsp_error err;
        if (apsp_solver_create(&o, &solver, &err) != APSP_OK) {
            printf("no device: %s\n", err.message);
            return err.status == APSP_ERR_NO_DEVICE ? EXIT_SKIP : 1;
        }
        for (apsp_dtype type = APSP_INT32; type <= APSP_INT64; type++)
            for (spoil how = SPOIL_NONE; how <= SPOIL_MINUS_INF; how++)
                test_case(solver, sizes[k].v, type, how, sizes[k].oracle);
        apsp_solver_destroy(solver);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
