/* apsp_solver_matrix_create (a matrix in the memory the solver's device reaches fastest: pinned
 * on OpenCL) and the device buffers a solver keeps between solves of one geometry:
 *   - the matrix is apsp_matrix_create_typed's: the same geometry and cells;
 *   - one solver solves a sequence of sizes and element types (two solves of one size, then
 *     another size, then the first size in another type, after apsp_solver_check), each on a
 *     solver-made matrix kept for its size and refilled only in its n x n cells, and on a heap
 *     matrix: the two equal in every byte, padding included, and the padding is as made; int32
 *     also equals plain Floyd-Warshall;
 *   - a failed solve (a negative cycle) on kept buffers, then a good solve of that size;
 *   - a matrix that outlives its solver: destroyed after it, solved by another one meanwhile;
 *   - the refusals (no solver, no vertices, no such type).
 *
 *   test-solver-matrix [--backend=cpu|opencl] [--tile=N] [--max-buffer-bytes=B] [--device=SPEC]
 * [--faults]
 *
 * Exit status: 0 passed, 1 a failure, 2 bad arguments, 77 (skipped) without an OpenCL device
 * unless APSP_TEST_REQUIRE_DEVICE=1. */
#include "apsp.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77 };

/* OpenCL: every matrix of these sizes fits one buffer, so the solver's are pinned (owned). */
static int expect_pinned;

/* --faults (tests/faults/test_faults_api.py): a fault-injection build makes one allocation or
 * OpenCL call fail; a call that fails then is no failure of the test (it says so on stderr), but
 * every solve that succeeds must still be right, also on the buffers a failed one left. */
static int faults;

/* A call's status: APSP_OK, or a failure of the test, except that under --faults it only says so
 * and the caller skips what depended on the call. */
static int call_ok(apsp_status status, const apsp_error *err, const char *name, const char *what) {
    checks++;
    if (status == APSP_OK)
        return 1;
    failures += !faults;
    fprintf(stderr, "%s%s: %s: %s: %s\n", faults ? "fault: " : "", name, what,
            apsp_status_name(status), err->message);
    return 0;
}

static uint64_t next(uint64_t *state) {
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 33;
}

/* Cell (i, j) of a matrix of any type set to an integer value, or to the unreachable marker. */
static void set_cell(apsp_matrix *m, size_t i, size_t j, int64_t value, int unreachable) {
    void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
    case APSP_INT32:
        ((int32_t *)row)[j] = unreachable ? APSP_INF : (int32_t)value;
        break;
    case APSP_INT64:
        ((int64_t *)row)[j] = unreachable ? APSP_INF64 : value;
        break;
    case APSP_FLOAT32:
        ((float *)row)[j] = unreachable ? INFINITY : (float)value / 8;
        break;
    case APSP_FLOAT64:
        ((double *)row)[j] = unreachable ? INFINITY : (double)value / 8;
        break;
    }
}

/* A random graph in the n x n cells (every one written, the padding left as it is): edges in
 * about a tenth of the pairs, weights 1-1000 (eighths for the floats); `cycle` adds the negative
 * cycle 0 -> 1 -> 0. */
static void fill_graph(apsp_matrix *m, uint64_t seed, int cycle) {
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j < m->n; j++) {
            int edge = next(&seed) % 10 == 0;
            int64_t w = 1 + (int64_t)(next(&seed) % 1000);
            set_cell(m, i, j, i == j ? 0 : w, i != j && !edge);
        }
    if (cycle && m->n > 1) {
        set_cell(m, 0, 1, 1, 0);
        set_cell(m, 1, 0, -2, 0);
    }
}

static size_t row_bytes(const apsp_matrix *m) {
    return m->stride * apsp_dtype_size(m->dtype);
}

static int same_geometry(const apsp_matrix *a, const apsp_matrix *b) {
    return a->n == b->n && a->padded == b->padded && a->stride == b->stride && a->dtype == b->dtype;
}

/* The first row where two matrices of one geometry differ in any byte, or SIZE_MAX. */
static size_t first_difference(const apsp_matrix *a, const apsp_matrix *b) {
    for (size_t i = 0; i < a->padded; i++)
        if (memcmp(apsp_matrix_row_cells(a, i), apsp_matrix_row_cells(b, i), row_bytes(a)) != 0)
            return i;
    return SIZE_MAX;
}

/* Whether the padding (rows and columns from n) is as a new matrix's. */
static int padding_as_made(const apsp_matrix *m, const apsp_matrix *fresh) {
    const size_t cell = apsp_dtype_size(m->dtype);
    for (size_t i = 0; i < m->padded; i++) {
        const char *a = apsp_matrix_row_cells(m, i), *b = apsp_matrix_row_cells(fresh, i);
        size_t from = i < m->n ? m->n * cell : 0;
        if (memcmp(a + from, b + from, row_bytes(m) - from) != 0)
            return 0;
    }
    return 1;
}

/* int32: the solved n x n cells against plain Floyd-Warshall of the graph. */
static int equals_oracle(const apsp_matrix *solved, uint64_t seed) {
    const size_t n = solved->n;
    int64_t *d = malloc(n * n * sizeof *d);
    apsp_matrix *g;
    apsp_error err;
    if (!d || apsp_matrix_create(n, &g, &err) != APSP_OK) {
        free(d);
        return faults; /* under --faults the injected failure may be this one's: unchecked */
    }
    fill_graph(g, seed, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = apsp_matrix_row(g, i)[j];
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (d[i * n + k] + d[k * n + j] < d[i * n + j])
                    d[i * n + j] = d[i * n + k] + d[k * n + j];
    int same = 1;
    for (size_t i = 0; i < n && same; i++)
        for (size_t j = 0; j < n && same; j++)
            same = d[i * n + j] >= APSP_INF ? apsp_matrix_row(solved, i)[j] == APSP_INF
                                            : apsp_matrix_row(solved, i)[j] == d[i * n + j];
    apsp_matrix_destroy(g);
    free(d);
    return same;
}

/* One solve of a graph on the kept solver-made matrix (refilled in its n x n cells only) and on
 * a heap matrix, with one solver: the same bytes, the padding as made. */
static void solve_both(apsp_solver *solver, apsp_matrix *kept, uint64_t seed, const char *name) {
    apsp_matrix *heap = NULL, *fresh = NULL;
    apsp_error err;
    apsp_status status = apsp_matrix_create_typed(kept->n, kept->dtype, &heap, &err);
    if (status == APSP_OK)
        status = apsp_matrix_create_typed(kept->n, kept->dtype, &fresh, &err);
    if (!call_ok(status, &err, name, "apsp_matrix_create_typed")) {
        apsp_matrix_destroy(heap);
        return;
    }
    fill_graph(heap, seed, 0);
    fill_graph(kept, seed, 0);
    apsp_report report;
    status = apsp_solver_solve(solver, kept, &report, &err);
    int solved = call_ok(status, &err, name, "the solver-made matrix");
    status = apsp_solver_solve(solver, heap, NULL, &err);
    solved &= call_ok(status, &err, name, "the heap matrix");
    size_t row = solved ? first_difference(kept, heap) : SIZE_MAX;
    CHECK(row == SIZE_MAX,
          "%s: the solver-made matrix's distances differ from the heap one's in "
          "row %zu",
          name, row);
    CHECK(padding_as_made(kept, fresh), "%s: the solve changed the solver-made matrix's padding",
          name);
    CHECK(!solved || kept->dtype != APSP_INT32 || equals_oracle(kept, seed),
          "%s: the distances differ from plain Floyd-Warshall", name);
    apsp_matrix_destroy(fresh);
    apsp_matrix_destroy(heap);
}

/* A solver-made matrix as apsp_matrix_create_typed's, before any solve. */
static apsp_status make_kept(apsp_solver *solver, size_t n, apsp_dtype dtype, apsp_matrix **kept,
                             const char *name) {
    apsp_matrix *heap = NULL;
    apsp_error err;
    apsp_status status = apsp_solver_matrix_create(solver, n, dtype, kept, &err);
    call_ok(status, &err, name, "apsp_solver_matrix_create");
    if (status == APSP_OK && apsp_matrix_create_typed(n, dtype, &heap, &err) == APSP_OK) {
        CHECK(same_geometry(*kept, heap) && first_difference(*kept, heap) == SIZE_MAX,
              "%s: a new solver-made matrix is not apsp_matrix_create_typed's", name);
        CHECK(!heap->owner && (!expect_pinned || (*kept)->owner),
              "%s: expected a heap matrix without an owner and %s", name,
              expect_pinned ? "a pinned one with one" : "any solver-made one");
    }
    apsp_matrix_destroy(heap);
    return status;
}

static void refusals(apsp_solver *solver) {
    apsp_matrix *m = (apsp_matrix *)&m; /* anything but NULL: the refusal must clear it */
    apsp_error err;
    CHECK(apsp_solver_matrix_create(NULL, 10, APSP_INT32, &m, &err) == APSP_ERR_USAGE && !m,
          "no solver: expected APSP_ERR_USAGE and no matrix");
    m = (apsp_matrix *)&m;
    CHECK(apsp_solver_matrix_create(solver, 0, APSP_INT32, &m, &err) == APSP_ERR_USAGE && !m,
          "no vertices: expected APSP_ERR_USAGE and no matrix");
    m = (apsp_matrix *)&m;
    CHECK(apsp_solver_matrix_create(solver, 10, (apsp_dtype)7, &m, &err) == APSP_ERR_USAGE && !m,
          "no such element type: expected APSP_ERR_USAGE and no matrix");
}

/* The sequence of one solver: sizes and types, each solve twice (the second on kept buffers). */
static void sequence(apsp_solver *solver, const apsp_options *options) {
    static const struct {
        size_t n;
        apsp_dtype dtype;
    } all[] = {{129, APSP_INT32}, {300, APSP_INT32},   {129, APSP_FLOAT32},
               {1, APSP_INT64},   {200, APSP_FLOAT64}, {129, APSP_INT32}},
      few[] = {{40, APSP_INT32}, {20, APSP_FLOAT32}}; /* --faults: a walk of few sites */
    const size_t count = faults ? sizeof few / sizeof few[0] : sizeof all / sizeof all[0];
    apsp_error err;
    uint64_t seed = 1;
    for (size_t s = 0; s < count; s++) {
        const size_t n = faults ? few[s].n : all[s].n;
        const apsp_dtype dtype = faults ? few[s].dtype : all[s].dtype;
        char name[64];
        snprintf(name, sizeof name, "V=%zu %s", n, apsp_dtype_name(dtype));
        /* A check of the size first makes the buffers that the solve then reuses. */
        if (dtype == APSP_INT32)
            call_ok(apsp_solver_check(solver, n, &err), &err, name, "apsp_solver_check");
        apsp_matrix *kept = NULL;
        if (make_kept(solver, n, dtype, &kept, name) != APSP_OK)
            continue;
        for (int again = 0; again < 2; again++)
            solve_both(solver, kept, seed++, name);
        /* A failed solve leaves nothing that the next one of the size sees. */
        fill_graph(kept, seed, 1);
        apsp_status status = apsp_solver_solve(solver, kept, NULL, &err);
        CHECK(n == 1 || status == APSP_ERR_NEGATIVE_CYCLE || (faults && status != APSP_OK),
              "%s: a negative cycle: expected APSP_ERR_NEGATIVE_CYCLE, got %s", name,
              apsp_status_name(status));
        /* Its padding may not be as made after a failure: a fresh matrix for the good solve. */
        apsp_matrix_destroy(kept);
        if (make_kept(solver, n, dtype, &kept, name) == APSP_OK)
            solve_both(solver, kept, seed++, name);
        apsp_matrix_destroy(kept);
    }
    /* A matrix made by a second solver outlives it, and the first solves it meanwhile. */
    apsp_solver *other = NULL;
    apsp_matrix *orphan = NULL;
    apsp_status status = apsp_solver_create(options, &other, &err);
    call_ok(status, &err, "a second solver", "apsp_solver_create");
    if (status == APSP_OK)
        status = make_kept(other, 129, APSP_FLOAT32, &orphan, "orphan");
    if (status == APSP_OK) {
        solve_both(other, orphan, seed++, "orphan, its own solver");
        apsp_solver_destroy(other);
        other = NULL;
        solve_both(solver, orphan, seed++, "orphan, another solver");
    }
    apsp_solver_destroy(other);
    apsp_matrix_destroy(orphan);
}

int main(int argc, char **argv) {
    apsp_options options;
    apsp_options_init(&options);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--backend=", 10) == 0 && apsp_backend_parse(a + 10, &options.backend) == 0)
            continue;
        if (strncmp(a, "--tile=", 7) == 0 && (options.tile = atoi(a + 7)) > 0)
            continue;
        if (strcmp(a, "--faults") == 0 && (faults = 1))
            continue;
        if (strncmp(a, "--max-buffer-bytes=", 19) == 0 &&
            apsp_parse_bytes(a + 19, &options.max_buffer_bytes) == 0)
            continue;
        if (strncmp(a, "--device=", 9) == 0) {
            options.device = a + 9;
            continue;
        }
        fprintf(stderr, "usage: test-solver-matrix [--backend=cpu|opencl] [--tile=N] "
                        "[--max-buffer-bytes=B] [--device=SPEC] [--faults]\n");
        return 2;
    }
    apsp_solver *solver;
    apsp_error err;
    apsp_status status = apsp_solver_create(&options, &solver, &err);
    if (status == APSP_ERR_NO_DEVICE) {
        const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
        printf("no device: %s\n", err.message);
        return require && strcmp(require, "1") == 0 ? 1 : EXIT_SKIP;
    }
    if (status != APSP_OK) {
        fprintf(stderr, "apsp_solver_create: %s\n", err.message);
        return faults ? 0 : 1;
    }
    expect_pinned = options.backend == APSP_BACKEND_OPENCL;
    refusals(solver);
    sequence(solver, &options);
    apsp_solver_destroy(solver);
    printf("%d checks, %d failed (backend %s)\n", checks, failures,
           apsp_backend_name(options.backend));
    return failures ? 1 : 0;
}
