/* apsp_options.cancelled: a cancel function that says stop on its third call stops the solve
 * with APSP_ERR_CANCELLED on every driver (the rows of the pthread backend and of an OpenCL
 * device, and a solve streamed through a device under a memory cap), and the same solver then
 * solves the graph right (against tests/support/oracle.c), with a cancel function that never stops.
 */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

typedef struct asked {
    int calls;
    int stop_at; /* the call that answers nonzero; 0: never */
} asked;

static int cancel_on_call(void *context) {
    asked *a = context;
    a->calls++;
    return a->stop_at > 0 && a->calls >= a->stop_at;
}

/* A random graph of v vertices into m and the oracle's distances into want. */
static void make_graph(apsp_matrix *m, int32_t *want, int32_t v, unsigned seed) {
    for (int e = 0; e < 4 * v; e++) {
        seed = seed * 1103515245u + 12345u;
        int32_t a = (int32_t)(seed >> 8) % v, b = (int32_t)(seed >> 3) % v,
                w = (int32_t)(seed % 90) + 1;
        if (a != b && w < apsp_matrix_row(m, (size_t)a)[b]) {
            apsp_matrix_row(m, (size_t)a)[b] = w;
            oracle_add_edge(want, v, a, b, w);
        }
    }
    oracle_floyd_warshall(want, v);
}

static void cancel_on(const char *label, apsp_backend_kind backend, const char *device,
                      uint64_t device_memory, int32_t v) {
    apsp_error err = {0};
    asked a = {0, 3};
    apsp_options o;
    apsp_options_init(&o);
    o.backend = backend;
    o.device = device;
    o.tile = backend == APSP_BACKEND_OPENCL ? 32 : 0;
    o.threads = 2;
    o.device_memory = device_memory;
    o.cancelled = cancel_on_call;
    o.cancel_context = &a;
    apsp_solver *s = NULL;
    if (apsp_solver_create(&o, &s, &err) != APSP_OK) {
        printf("%s: no device (%s): skipped\n", label, err.message);
        return;
    }
    apsp_matrix *m = NULL;
    int32_t *want = oracle_matrix_new(v);
    CHECK(want && apsp_matrix_create((size_t)v, &m, &err) == APSP_OK, "%s: set-up", label);
    if (!want || !m) {
        free(want);
        apsp_solver_destroy(s);
        return;
    }
    make_graph(m, want, v, 11);
    apsp_report r = {0};
    apsp_status got = apsp_solver_solve(s, m, &r, &err);
    CHECK(got == APSP_ERR_CANCELLED && a.calls == 3 && strstr(err.message, "cancelled"),
          "%s: stop on the third call: status %s (%s) after %d calls", label, apsp_status_name(got),
          got ? err.message : "", a.calls);

    /* The matrix holds no distances now: the graph again, then a solve that is never stopped. */
    apsp_matrix_destroy(m);
    m = NULL;
    CHECK(apsp_matrix_create((size_t)v, &m, &err) == APSP_OK, "%s: second matrix", label);
    if (m) {
        int32_t *again = oracle_matrix_new(v);
        make_graph(m, again, v, 11);
        free(again);
        a.calls = 0;
        a.stop_at = 0;
        got = apsp_solver_solve(s, m, &r, &err);
        size_t wrong = 0;
        for (int32_t i = 0; got == APSP_OK && i < v; i++)
            wrong += memcmp(apsp_matrix_row(m, (size_t)i), want + (size_t)i * (size_t)v,
                            (size_t)v * sizeof(int32_t)) != 0;
        CHECK(got == APSP_OK && wrong == 0 && a.calls >= 3 &&
                  (device_memory == 0 || r.streamed == 1),
              "%s: the solve after the cancelled one: %s, %zu wrong rows, %d calls, streamed %d",
              label, got ? err.message : "ok", wrong, a.calls, r.streamed);
    }
    apsp_matrix_destroy(m);
    free(want);
    apsp_solver_destroy(s);
}

int main(void) {
    cancel_on("pthread", APSP_BACKEND_CPU, NULL, 0, 1000);
    cancel_on("opencl", APSP_BACKEND_OPENCL, "cpu", 0, 600);
    /* 1024 vertices need 4.5 MiB in core: under 3 MiB they stream. */
    cancel_on("opencl streamed", APSP_BACKEND_OPENCL, "cpu", 3u << 20, 1024);
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
