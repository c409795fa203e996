/* The small promises of include/apsp.h that the other tests do not reach: matrix geometry and
 * initial contents, size arithmetic, names, device listing and selection, solve defaults. */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_matrix(void) {
    static const size_t sizes[] = {1, 2, 63, 64, 65, 129, 1000, 1024, 1025};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        apsp_error err;
        apsp_matrix *m = NULL;
        apsp_status got = apsp_matrix_create(n, &m, &err);
        CHECK(got == APSP_OK && m, "create(%zu): %s", n, got ? err.message : "NULL");
        if (!m)
            continue;
        CHECK(m->n == n && m->padded >= n && m->padded < n + APSP_MATRIX_ALIGN &&
                  m->padded % APSP_MATRIX_ALIGN == 0 && m->stride >= m->padded,
              "create(%zu): n=%zu padded=%zu stride=%zu", n, m->n, m->padded, m->stride);
        CHECK((uintptr_t)m->data % 64 == 0, "create(%zu): rows are not 64-byte aligned", n);
        uint64_t bytes = apsp_matrix_bytes(n);
        CHECK(bytes >= (uint64_t)m->padded * m->stride * sizeof(int32_t),
              "apsp_matrix_bytes(%zu) = %llu is less than the matrix", n,
              (unsigned long long)bytes);
        size_t wrong = 0;
        for (size_t i = 0; i < m->padded; i++)
            for (size_t j = 0; j < m->padded; j++)
                wrong += apsp_matrix_row(m, i)[j] != (i == j ? 0 : APSP_INF);
        CHECK(wrong == 0, "create(%zu): %zu cells are not 0 on the diagonal, INF elsewhere", n,
              wrong);
        apsp_matrix_destroy(m);
    }
    apsp_matrix_destroy(NULL);

    apsp_error err;
    apsp_matrix *m = NULL;
    apsp_status got = apsp_matrix_create(0, &m, &err);
    CHECK(got != APSP_OK && !m, "create(0) must fail, got %s", apsp_status_name(got));
    got = apsp_matrix_create((size_t)1 << 40, &m, &err);
    CHECK(got == APSP_ERR_TOO_LARGE && !m, "create(2^40): %s", apsp_status_name(got));
    CHECK(apsp_matrix_bytes(0) == 0, "apsp_matrix_bytes(0) must be 0");
    CHECK(apsp_matrix_bytes(UINT64_MAX) == 0, "apsp_matrix_bytes(UINT64_MAX) must be 0");
    CHECK(apsp_matrix_bytes((uint64_t)1 << 32) == 0, "apsp_matrix_bytes(2^32) overflows size_t");
    CHECK(apsp_matrix_bytes(1) >= 64 * 64 * 4, "apsp_matrix_bytes(1) is below one padded tile");
}

static void test_names(void) {
    for (int s = APSP_OK; s <= APSP_ERR_INTERNAL; s++) {
        const char *name = apsp_status_name((apsp_status)s);
        CHECK(name && *name, "status %d has no name", s);
        for (int t = APSP_OK; t < s; t++)
            CHECK(strcmp(name, apsp_status_name((apsp_status)t)) != 0,
                  "statuses %d and %d share the name %s", s, t, name);
    }
    CHECK(apsp_status_name((apsp_status)999) != NULL, "an unknown status must still have a name");
    static const char *const backends[] = {"auto", "cpu", "opencl"};
    for (size_t b = 0; b < 3; b++) {
        apsp_backend_kind kind = (apsp_backend_kind)77;
        CHECK(apsp_backend_parse(backends[b], &kind) == 0, "'%s' is not parsed", backends[b]);
        CHECK(strcmp(apsp_backend_name(kind), backends[b]) == 0, "'%s' does not round-trip",
              backends[b]);
    }
    apsp_backend_kind kind;
    CHECK(apsp_backend_parse("gpu", &kind) == -1 && apsp_backend_parse("", &kind) == -1 &&
              apsp_backend_parse("CPU ", &kind) == -1,
          "apsp_backend_parse accepts nonsense");
    apsp_options o;
    memset(&o, 0x5a, sizeof o);
    apsp_options_init(&o);
    CHECK(o.backend == APSP_BACKEND_AUTO && o.device == NULL && o.tile == 0 && o.threads == 0 &&
              o.max_buffer_bytes == 0 && o.device_memory == 0 && o.progress == NULL &&
              o.progress_context == NULL,
          "apsp_options_init does not give the documented defaults");
    CHECK(apsp_version() && *apsp_version(), "no version");
}

static void test_devices(void) {
    apsp_device_info *list = NULL;
    size_t count = 0;
    apsp_error err;
    apsp_status got = apsp_list_devices(&list, &count, &err);
    CHECK(got == APSP_OK, "apsp_list_devices: %s", got ? err.message : "");
    if (got != APSP_OK)
        return;
    size_t cpu = count;
    for (size_t i = 0; i < count; i++) {
        CHECK(list[i].index == (int)i, "device %zu has index %d", i, list[i].index);
        CHECK(list[i].name[0] && list[i].type[0], "device %zu has no name or type", i);
        if (list[i].backend == APSP_BACKEND_CPU)
            cpu = i;
    }
    CHECK(cpu < count && strcmp(list[cpu].type, "host") == 0,
          "the pthread backend is not listed as a host device");
    free(list);
}

/* A 70-vertex ring 0 -> 1 -> ... -> 69 -> 0 with weight 1 + i % 3, solved through each way
 * of naming the CPU backend; the answer comes from the oracle. */
static void test_solve(void) {
    enum { V = 70 };
    int32_t *want = oracle_matrix_new(V);
    if (!want) {
        CHECK(0, "out of memory");
        return;
    }
    for (int32_t i = 0; i < V; i++)
        oracle_add_edge(want, V, i, (i + 1) % V, 1 + i % 3);
    oracle_floyd_warshall(want, V);

    apsp_device_info *list = NULL;
    size_t count = 0;
    apsp_error err;
    char host_index[16] = "";
    if (apsp_list_devices(&list, &count, &err) == APSP_OK) {
        for (size_t i = 0; i < count; i++)
            if (list[i].backend == APSP_BACKEND_CPU)
                snprintf(host_index, sizeof host_index, "%d", list[i].index);
        free(list);
    }
    static const struct {
        apsp_backend_kind backend;
        const char *device;
        int threads;
    } ways[] = {
        {APSP_BACKEND_CPU, NULL, 0},
        {APSP_BACKEND_CPU, NULL, 64},
        {APSP_BACKEND_CPU, "host", 2},
        {APSP_BACKEND_AUTO, "host", 1},
        {APSP_BACKEND_AUTO, "HOST", 3},
        {APSP_BACKEND_AUTO, "", 1}, /* index of the host entry, filled in below */
    };
    for (size_t w = 0; w <= sizeof ways / sizeof ways[0]; w++) {
        apsp_matrix *m = NULL;
        if (apsp_matrix_create(V, &m, &err) != APSP_OK) {
            CHECK(0, "create: %s", err.message);
            break;
        }
        for (int32_t i = 0; i < V; i++)
            apsp_matrix_row(m, (size_t)i)[(i + 1) % V] = 1 + i % 3;
        apsp_status got;
        apsp_options o;
        apsp_options_init(&o);
        if (w == sizeof ways / sizeof ways[0]) {
            got = apsp_solve(m, NULL, NULL, &err); /* all defaults */
        } else {
            o.backend = ways[w].backend;
            o.device = ways[w].device && !*ways[w].device ? host_index : ways[w].device;
            o.threads = ways[w].threads;
            apsp_report r;
            got = apsp_solve(m, &o, &r, &err);
            if (got == APSP_OK)
                CHECK(strcmp(r.backend, "cpu") == 0, "way %zu ran on '%s', not cpu", w, r.backend);
        }
        CHECK(got == APSP_OK, "way %zu: %s: %s", w, apsp_status_name(got), got ? err.message : "");
        size_t wrong = 0;
        for (size_t i = 0; got == APSP_OK && i < V; i++)
            for (size_t j = 0; j < V; j++)
                wrong += apsp_matrix_row(m, i)[j] != want[i * V + j];
        CHECK(wrong == 0, "way %zu: %zu wrong distances", w, wrong);
        apsp_matrix_destroy(m);
    }

    /* Devices that do not exist. */
    apsp_matrix *m = NULL;
    if (apsp_matrix_create(3, &m, &err) == APSP_OK) {
        apsp_options o;
        apsp_options_init(&o);
        o.device = "no device is called this";
        apsp_status got = apsp_solve(m, &o, NULL, &err);
        CHECK(got == APSP_ERR_NO_DEVICE && strstr(err.message, "no device is called this"),
              "an unknown device name: %s: %s", apsp_status_name(got), err.message);
        o.device = "4096";
        got = apsp_solve(m, &o, NULL, &err);
        CHECK(got == APSP_ERR_NO_DEVICE, "device index 4096: %s", apsp_status_name(got));
        apsp_matrix_destroy(m);
    }
    free(want);
}

/* The solver's lifecycle on the pthread backend: a refused device leaves no solver, destroy
 * takes NULL, and one solver solves graphs of growing and shrinking sizes (chains, whose
 * distances the oracle knows), building no program. */
static void test_solver(void) {
    apsp_error err;
    apsp_options o;
    apsp_options_init(&o);
    apsp_solver *solver = (apsp_solver *)&o; /* must be overwritten */
    o.device = "no device is called this";
    apsp_status got = apsp_solver_create(&o, &solver, &err);
    CHECK(got == APSP_ERR_NO_DEVICE && solver == NULL, "create on an unknown device: %s",
          apsp_status_name(got));
    apsp_solver_destroy(NULL);

    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    o.threads = 2;
    got = apsp_solver_create(&o, &solver, &err);
    CHECK(got == APSP_OK && solver, "create: %s", got ? err.message : "");
    static const int32_t sizes[] = {5, 300, 1, 129, 64};
    for (size_t s = 0; solver && s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t v = sizes[s];
        apsp_matrix *m = NULL;
        int32_t *want = oracle_matrix_new(v);
        CHECK(want && apsp_matrix_create((size_t)v, &m, &err) == APSP_OK, "V=%d: set-up", v);
        if (!want || !m) {
            free(want);
            apsp_matrix_destroy(m);
            break;
        }
        for (int32_t i = 0; i + 1 < v; i++) {
            apsp_matrix_row(m, (size_t)i)[i + 1] = 3;
            oracle_add_edge(want, v, i, i + 1, 3);
        }
        oracle_floyd_warshall(want, v);
        apsp_report r;
        got = apsp_solver_solve(solver, m, &r, &err);
        size_t wrong = 0;
        for (int32_t i = 0; got == APSP_OK && i < v; i++)
            wrong += memcmp(apsp_matrix_row(m, (size_t)i), want + (size_t)i * (size_t)v,
                            (size_t)v * sizeof(int32_t)) != 0;
        /* (a graph of one round, V <= 128, runs the small solve over its own V x V cells) */
        const size_t ran_over = v <= 128 ? (size_t)v : m->padded;
        CHECK(got == APSP_OK && wrong == 0 && r.program_builds == 0 && r.padded == ran_over,
              "solve %zu (V=%d): %s, %zu wrong rows, %d builds", s + 1, v, got ? err.message : "ok",
              wrong, r.program_builds);
        apsp_matrix_destroy(m);
        free(want);
    }
    apsp_solver_destroy(solver);
}

/* A matrix built by hand is checked before anything reads or changes it: each wrong one is
 * APSP_ERR_USAGE naming the problem, and the matrix is left as it was. */
static void test_matrix_checks(void) {
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    apsp_solver *solver = NULL;
    apsp_error err;
    CHECK(apsp_solver_create(&o, &solver, &err) == APSP_OK, "create: %s", err.message);
    CHECK(apsp_solver_solve(NULL, NULL, NULL, &err) == APSP_ERR_USAGE, "no solver");
    CHECK(apsp_solver_solve(solver, NULL, NULL, &err) == APSP_ERR_USAGE, "no matrix");
    static const struct {
        size_t i, j;
        int32_t value;
        const char *needle;
    } bad[] = {
        {0, 1, INT32_MAX, "(-APSP_INF, APSP_INF]"},
        {0, 1, -APSP_INF, "(-APSP_INF, APSP_INF]"},
        {0, 1, -(APSP_INF - 1), "reach APSP_INF"},
        {2, 2, 5, "diagonal"},
        {0, 1, APSP_INF - 1, "reach APSP_INF"}, /* (V - 1) w >= APSP_INF: V = 3 */
        {1, 100, 7, "padding"},
    };
    for (size_t b = 0; solver && b < sizeof bad / sizeof bad[0]; b++) {
        apsp_matrix *m = NULL;
        CHECK(apsp_matrix_create(3, &m, &err) == APSP_OK, "create(3)");
        if (!m)
            break;
        apsp_matrix_row(m, bad[b].i)[bad[b].j] = bad[b].value;
        apsp_status got = apsp_solver_solve(solver, m, NULL, &err);
        CHECK(got == APSP_ERR_USAGE && strstr(err.message, bad[b].needle) &&
                  apsp_matrix_row(m, bad[b].i)[bad[b].j] == bad[b].value &&
                  apsp_matrix_row(m, 0)[2] == APSP_INF,
              "cell (%zu, %zu) = %d: %s: %s", bad[b].i, bad[b].j, bad[b].value,
              apsp_status_name(got), err.message);
        apsp_matrix_destroy(m);
    }
    int32_t cells[128 * 128];
    apsp_matrix shapes[] = {
        {.n = 0, .padded = 128, .stride = 128, .data = cells},
        {.n = 100, .padded = 100, .stride = 100, .data = cells},
        {.n = 100, .padded = 128, .stride = 64, .data = cells},
        {.n = 100, .padded = 128, .stride = 128, .data = NULL},
    };
    for (size_t k = 0; solver && k < sizeof shapes / sizeof shapes[0]; k++)
        CHECK(apsp_solver_solve(solver, &shapes[k], NULL, &err) == APSP_ERR_USAGE,
              "shape %zu (n %zu, padded %zu, stride %zu) is accepted", k, shapes[k].n,
              shapes[k].padded, shapes[k].stride);
    apsp_solver_destroy(solver);
}

/* apsp_solver_solve_graph: the rows handed on in order, each once, equal to the oracle's, on
 * every backend (OpenCL makes the matrix on the device, several bands of it under a buffer cap;
 * the pthread backend hands on a host matrix); a failing rows function stops the solve. */
typedef struct collected {
    int32_t *d; /* V x V */
    size_t v, next_row;
    int out_of_order, fail_at_row;
} collected;

static apsp_status collect_rows(void *context, size_t first, size_t count, const int32_t *rows,
                                size_t pitch, apsp_error *error) {
    collected *c = context;
    if (c->fail_at_row >= 0 && first + count > (size_t)c->fail_at_row) {
        snprintf(error->message, sizeof error->message, "the rows function refused");
        return error->status = APSP_ERR_OUTPUT;
    }
    c->out_of_order |= first != c->next_row || pitch < c->v;
    for (size_t r = 0; r < count && first + r < c->v; r++)
        memcpy(c->d + (first + r) * c->v, rows + r * pitch, c->v * sizeof(int32_t));
    c->next_row = first + count;
    return APSP_OK;
}

static void solve_graph_on(apsp_backend_kind backend, const char *device, uint64_t cap) {
    const int32_t v = 301;
    apsp_error err = {0};
    apsp_graph *g = NULL;
    CHECK(apsp_graph_create((size_t)v, 0, &g, &err) == APSP_OK, "graph_create: %s", err.message);
    if (!g)
        return;
    int32_t *want = oracle_matrix_new(v);
    unsigned seed = 7;
    for (int e = 0; e < 3 * v; e++) {
        seed = seed * 1103515245u + 12345u;
        int32_t a = (int32_t)(seed >> 8) % v, b = (int32_t)(seed >> 3) % v,
                w = (int32_t)(seed % 90);
        apsp_graph_append(g, a, b, w, &err);
        oracle_add_edge(want, v, a, b, w);
    }
    oracle_floyd_warshall(want, v);
    apsp_options o;
    apsp_options_init(&o);
    o.backend = backend;
    o.device = device;
    o.tile = backend == APSP_BACKEND_OPENCL ? 16 : 0;
    o.max_buffer_bytes = cap;
    apsp_solver *s = NULL;
    if (apsp_solver_create(&o, &s, &err) != APSP_OK) {
        printf("solve_graph: no %s device (%s)\n", apsp_backend_name(backend), err.message);
        apsp_graph_destroy(g);
        free(want);
        return;
    }
    collected c = {.d = calloc((size_t)v * v, sizeof(int32_t)), .v = (size_t)v, .fail_at_row = -1};
    apsp_report r;
    apsp_status got = apsp_solver_solve_graph(s, g, collect_rows, &c, &r, &err);
    CHECK(got == APSP_OK && !c.out_of_order && c.next_row >= (size_t)v &&
              memcmp(c.d, want, (size_t)v * v * sizeof(int32_t)) == 0,
          "solve_graph on %s (cap %llu): status %d (%s), order %d, rows %zu, cells differ",
          r.backend, (unsigned long long)cap, got, got ? err.message : "", c.out_of_order,
          c.next_row);
    collected stop = {.d = c.d, .v = (size_t)v, .fail_at_row = 100};
    got = apsp_solver_solve_graph(s, g, collect_rows, &stop, &r, &err);
    CHECK(got == APSP_ERR_OUTPUT && strstr(err.message, "refused"),
          "a failing rows function did not stop the solve: %d %s", got, err.message);
    /* Negative weights by potentials (no negative cycle): the kernels' negative form. */
    int32_t *neg = oracle_matrix_new(v);
    for (size_t e = 0; neg && e < g->edges; e++) {
        g->weight[e] += (g->source[e] * 37) % 50 - (g->target[e] * 37) % 50;
        oracle_add_edge(neg, v, g->source[e], g->target[e], (int32_t)g->weight[e]);
    }
    if (neg)
        oracle_floyd_warshall(neg, v);
    collected n = {.d = c.d, .v = (size_t)v, .fail_at_row = -1};
    got = apsp_solver_solve_graph(s, g, collect_rows, &n, &r, &err);
    CHECK(neg && got == APSP_OK && !n.out_of_order && n.next_row >= (size_t)v &&
              memcmp(n.d, neg, (size_t)v * v * sizeof(int32_t)) == 0,
          "solve_graph with negative weights on %s (cap %llu): status %d (%s), cells differ",
          r.backend, (unsigned long long)cap, got, got ? err.message : "");
    free(neg);
    /* A cycle 250 -> 260 -> 250 of weight -1: refused, the rows from 250 on not handed on. */
    int32_t p250 = (250 * 37) % 50, p260 = (260 * 37) % 50;
    apsp_graph_append(g, 250, 260, p250 - p260, &err);
    apsp_graph_append(g, 260, 250, p260 - p250 - 1, &err);
    collected cyc = {.d = c.d, .v = (size_t)v, .fail_at_row = -1};
    got = apsp_solver_solve_graph(s, g, collect_rows, &cyc, &r, &err);
    CHECK(got == APSP_ERR_NEGATIVE_CYCLE && strstr(err.message, "negative cycle: vertex") &&
              cyc.next_row <= 250,
          "a negative cycle on %s: status %d (%s), rows handed on up to %zu",
          apsp_backend_name(backend), got, err.message, cyc.next_row);
    g->target[5] = v; /* an endpoint out of range */
    got = apsp_solver_solve_graph(s, g, collect_rows, &c, &r, &err);
    CHECK(got == APSP_ERR_USAGE && strstr(err.message, "edge 5"),
          "a bad edge was not refused: %d %s", got, err.message);
    apsp_solver_destroy(s);
    apsp_graph_destroy(g);
    free(c.d);
    free(want);
}

static void test_solve_graph(void) {
    solve_graph_on(APSP_BACKEND_CPU, NULL, 0);
    solve_graph_on(APSP_BACKEND_OPENCL, "cpu", 0);
    solve_graph_on(APSP_BACKEND_OPENCL, "cpu", 64 << 10);
}

int main(void) {
    test_matrix();
    test_names();
    test_devices();
    test_solve();
    test_solver();
    test_matrix_checks();
    test_solve_graph();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
