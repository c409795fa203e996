/* apsp_idle_work.run_threads (include/apsp_rows.h): beside a solve streamed from host memory
 * (apsp_options.device_memory below its matrix) the work is run with APSP_IDLE_THREADS_STREAMED,
 * beside an in-core solve with 0; a work with `run` alone is still run; the rows handed on are
 * the pthread backend's either way. On an OpenCL CPU device with apsp_options.overlap 1, the
 * path a GPU takes by default.
 *
 *   test-idle-threads [--device=SPEC]
 *
 * Exit status: 0 passed, 1 a failure, 77 (skipped) without an OpenCL device unless
 * APSP_TEST_REQUIRE_DEVICE=1. */
#include "apsp.h"
#include "batch_solvers.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum { V = 1500, OUT_DEGREE = 8, STREAMED_CAP = 9000000 }; /* (the 9.4 MB matrix streams) */

/* The rows handed on, and how the work beside the rounds was run. */
typedef struct seen {
    int32_t *rows;
    int runs, threaded_runs;
    unsigned threads;
} seen;

static apsp_status keep_rows(void *context, size_t first_row, size_t count, const void *rows,
                             size_t pitch, apsp_error *error) {
    (void)error;
    seen *s = context;
    for (size_t r = 0; r < count; r++)
        memcpy(s->rows + (first_row + r) * V, (const int32_t *)rows + r * pitch, V * 4);
    return APSP_OK;
}

static apsp_status keep_int32_rows(void *context, size_t first_row, size_t count,
                                   const int32_t *rows, size_t pitch, apsp_error *error) {
    return keep_rows(context, first_row, count, rows, pitch, error);
}

static void run(void *context) {
    ((seen *)context)->runs++;
}

static void run_threads(void *context, unsigned threads) {
    seen *s = context;
    s->threaded_runs++;
    s->threads = threads;
}

static apsp_graph *random_graph(void) {
    apsp_graph *g;
    apsp_error err;
    if (apsp_graph_create(V, V * OUT_DEGREE, &g, &err) != APSP_OK)
        return NULL;
    for (int i = 0; i < V; i++)
        for (int k = 0; k < OUT_DEGREE; k++)
            apsp_graph_append(g, i, (i * 37 + k * 101) % V, (i * 13 + k) % 90 + 1, &err);
    return g;
}

/* One solve on `solver` with a work of `run` alone (threaded 0) or run_threads too. */
static void solve_with(apsp_solver *solver, const apsp_graph *g, int threaded, seen *s,
                       apsp_report *report) {
    const apsp_idle_work work = {
        .run = run, .context = s, .run_threads = threaded ? run_threads : NULL};
    apsp_error err;
    apsp_status status =
        apsp_solver_solve_graph_idle(solver, g, APSP_INT32, keep_rows, s, &work, report, &err);
    CHECK(status == APSP_OK, "solve: %s", err.message);
}

static void check_case(apsp_solver *cl, const apsp_graph *g, const int32_t *want, int streamed,
                       int threaded) {
    seen s = {.rows = calloc((size_t)V * V, 4)};
    apsp_report report;
    solve_with(cl, g, threaded, &s, &report);
    const char *what = streamed ? "streamed" : "in core";
    CHECK(report.streamed == streamed, "%s: the report says streamed = %d", what, report.streamed);
    CHECK(memcmp(s.rows, want, (size_t)V * V * 4) == 0, "%s: the pthread backend's rows", what);
    if (threaded)
        CHECK(s.threaded_runs == 1 && s.runs == 0 &&
                  s.threads == (streamed ? APSP_IDLE_THREADS_STREAMED : 0u),
              "%s: run_threads once with %u threads (got %d calls, %u threads; run %d)", what,
              streamed ? APSP_IDLE_THREADS_STREAMED : 0u, s.threaded_runs, s.threads, s.runs);
    else
        CHECK(s.runs == 1 && s.threaded_runs == 0, "%s: run alone, once (got %d)", what, s.runs);
    free(s.rows);
}

int main(int argc, char **argv) {
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_OPENCL;
    o.overlap = 1;
    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], "--device=", 9) == 0)
            o.device = argv[a] + 9;
        else {
            fprintf(stderr, "usage: test-idle-threads [--device=SPEC]\n");
            return 2;
        }
    }
    apsp_options capped = o;
    capped.device_memory = STREAMED_CAP;
    apsp_solver *cpu = NULL, *cl = NULL, *streaming = NULL;
    int status = batch_solvers(&o, &cpu, &cl);
    if (status)
        return status;
    apsp_error err;
    apsp_graph *g = random_graph();
    int32_t *want = calloc((size_t)V * V, 4);
    seen reference = {.rows = want};
    CHECK(g && want && apsp_solver_create(&capped, &streaming, &err) == APSP_OK, "setup: %s",
          err.message);
    if (failures == 0) {
        CHECK(apsp_solver_solve_graph(cpu, g, keep_int32_rows, &reference, NULL, &err) == APSP_OK,
              "the pthread backend's solve: %s", err.message);
        for (int threaded = 0; threaded < 2; threaded++) {
            check_case(cl, g, want, 0, threaded);
            check_case(streaming, g, want, 1, threaded);
        }
    }
    free(want);
    apsp_graph_destroy(g);
    apsp_solver_destroy(streaming);
    apsp_solver_destroy(cl);
    apsp_solver_destroy(cpu);
    printf("test-idle-threads: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
