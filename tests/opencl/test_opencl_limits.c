/* The OpenCL backend through the public API: what it refuses and what it reports.
 *
 *   test-opencl-limits
 *
 * On the first OpenCL device:
 *   - a matrix larger than the device's global memory under a device_memory cap too small to
 *     stream it, and one larger than the host's memory: APSP_ERR_TOO_LARGE, refused before any
 *     upload and before the matrix is read (it has one cell of data);
 *   - a tile that does not fit the device: APSP_ERR_DEVICE; one that is not a power of two,
 *     and a buffer cap below one band: APSP_ERR_USAGE;
 *   - a solve spread over several bands: the oracle's answer, the report's fields, and one
 *     progress call per round, in order;
 *   - one solver under a device_memory cap: in core, streamed, in core again, each right.
 * Exit status: 0 passed, 1 failed, 77 (skipped) when there is no OpenCL device, unless
 * APSP_TEST_REQUIRE_DEVICE=1 makes that a failure. */
#include "apsp.h"
#include "graphgen.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL (line %d): ", __LINE__);                                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

typedef struct progress_log {
    size_t calls, last_done, total;
    int out_of_order;
} progress_log;

static void on_progress(void *context, size_t done, size_t total) {
    progress_log *p = context;
    if (done != p->last_done + 1 || (p->calls > 0 && total != p->total))
        p->out_of_order = 1;
    p->calls++;
    p->last_done = done;
    p->total = total;
}

/* A random graph of v vertices as a library matrix and as the oracle's answer. */
static int make_case(int32_t v, apsp_matrix **m, int32_t **expected) {
    gg_graph g;
    const char *why;
    apsp_error err;
    *m = NULL;
    *expected = NULL;
    if (gg_generate(GG_RANDOM, v, 4 * (int64_t)v, 12345, &g, &why) != 0) {
        fprintf(stderr, "cannot make a graph: %s\n", why);
        return -1;
    }
    *expected = oracle_matrix_new(v);
    if (!*expected || apsp_matrix_create((size_t)v, m, &err) != APSP_OK) {
        gg_free(&g);
        return -1;
    }
    for (size_t e = 0; e < g.e; e++) {
        const gg_edge *edge = &g.edges[e];
        oracle_add_edge(*expected, v, edge->src, edge->dst, edge->w);
        int32_t *cell = apsp_matrix_row(*m, (size_t)edge->src) + edge->dst;
        if (edge->src != edge->dst && edge->w < *cell)
            *cell = edge->w;
    }
    oracle_floyd_warshall(*expected, v);
    gg_free(&g);
    return 0;
}

static apsp_status solve_with(apsp_matrix *m, const char *device, int tile, uint64_t cap,
                              apsp_report *report, apsp_error *err) {
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_OPENCL;
    o.device = device;
    o.tile = tile;
    o.max_buffer_bytes = cap;
    memset(err, 0, sizeof *err);
    return apsp_solve(m, &o, report, err);
}

/* Solves a matrix of v vertices with one cell of data, which the library must not touch:
 * it is refused before it is read. */
static apsp_status solve_fake(size_t v, const char *spec, uint64_t device_memory, apsp_error *err) {
    int32_t cell = 0;
    size_t padded = (v + APSP_MATRIX_ALIGN - 1) / APSP_MATRIX_ALIGN * APSP_MATRIX_ALIGN;
    apsp_matrix m = {.n = v, .padded = padded, .stride = padded, .data = &cell};
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_OPENCL;
    o.device = spec;
    o.device_memory = device_memory;
    memset(err, 0, sizeof *err);
    return apsp_solve(&m, &o, NULL, err);
}

static void test_too_large(const apsp_device_info *d, const char *spec) {
    /* The least multiple of 64 whose matrix exceeds the device's memory streams; under a cap
     * too small for even that, it is refused. */
    size_t v = 64;
    while ((uint64_t)v * v * 4 <= d->global_memory)
        v += 64;
    apsp_error err;
    apsp_status status = solve_fake(v, spec, 64 * 1024, &err);
    CHECK(status == APSP_ERR_TOO_LARGE,
          "V = %zu on %s under a 64K cap: status %s (%s), expected "
          "too large",
          v, d->name, apsp_status_name(status), err.message);
    CHECK(strstr(err.message, "streaming") && strstr(err.message, "--device-memory"),
          "V = %zu: the message does not say that streaming needs more: %s", v, err.message);
    /* A matrix beyond the host's memory: refused by the host's measure, streaming or not. */
    v = 4000000;
    status = solve_fake(v, spec, 0, &err);
    CHECK(status == APSP_ERR_TOO_LARGE && strstr(err.message, "this machine has"),
          "V = %zu: status %s (%s), expected too large for the host", v, apsp_status_name(status),
          err.message);
}

static void test_refusals(const char *spec) {
    apsp_matrix *m;
    int32_t *expected;
    if (make_case(300, &m, &expected) != 0) {
        CHECK(0, "cannot make the V = 300 case");
        return;
    }
    apsp_report report;
    apsp_error err;
    static const struct {
        int tile;
        apsp_status want;
    } bad_tiles[] = {{1024, APSP_ERR_DEVICE}, {48, APSP_ERR_USAGE}, {3, APSP_ERR_USAGE}};
    for (size_t t = 0; t < sizeof bad_tiles / sizeof bad_tiles[0]; t++) {
        apsp_status status = solve_with(m, spec, bad_tiles[t].tile, 0, &report, &err);
        CHECK(status == bad_tiles[t].want, "tile %d: status %s (%s), expected %s",
              bad_tiles[t].tile, apsp_status_name(status), err.message,
              apsp_status_name(bad_tiles[t].want));
    }
    /* One band is at least 64 rows of 320 ints at tile 64: 80 KiB. */
    apsp_status status = solve_with(m, spec, 64, 4096, &report, &err);
    CHECK(status == APSP_ERR_USAGE && strstr(err.message, "--max-buffer-bytes"),
          "a 4 KiB buffer cap: status %s (%s), expected a usage error naming the option",
          apsp_status_name(status), err.message);
    apsp_matrix_destroy(m);
    free(expected);
}

static void test_banded_solve(const apsp_device_info *d, const char *spec) {
    const int32_t v = 333;
    const int tile = 16;
    apsp_matrix *m;
    int32_t *expected;
    if (make_case(v, &m, &expected) != 0) {
        CHECK(0, "cannot make the V = %d case", v);
        return;
    }
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_OPENCL;
    o.device = spec;
    o.tile = tile;
    o.max_buffer_bytes = 32 * 1024; /* rows of 384 ints: 24 bands of 16 rows (24 KiB) */
    progress_log progress = {0};
    o.progress = on_progress;
    o.progress_context = &progress;
    apsp_report r;
    apsp_error err = {0};
    apsp_status status = apsp_solve(m, &o, &r, &err);
    CHECK(status == APSP_OK, "banded solve: %s: %s", apsp_status_name(status), err.message);
    if (status == APSP_OK) {
        size_t bad = 0;
        for (int32_t i = 0; i < v; i++)
            for (int32_t j = 0; j < v; j++)
                bad += apsp_matrix_row(m, (size_t)i)[j] != expected[(size_t)i * (size_t)v + j];
        CHECK(bad == 0, "banded solve: %zu wrong distances", bad);
        CHECK(strcmp(r.backend, "opencl") == 0, "report.backend = '%s'", r.backend);
        CHECK(strcmp(r.device, d->name) == 0, "report.device = '%s', expected '%s'", r.device,
              d->name);
        CHECK(r.tile == tile, "report.tile = %d", r.tile);
        CHECK(r.padded >= (size_t)v && r.padded % (size_t)tile == 0 && r.padded < (size_t)v + 64,
              "report.padded = %zu", r.padded);
        CHECK(r.threads == 0, "report.threads = %d", r.threads);
        CHECK(r.setup_seconds > 0 && r.upload_seconds >= 0 && r.compute_seconds > 0 &&
                  r.download_seconds >= 0,
              "report times: setup %g upload %g compute %g download %g", r.setup_seconds,
              r.upload_seconds, r.compute_seconds, r.download_seconds);
        size_t rounds = r.padded / (size_t)tile;
        CHECK(progress.calls == rounds && progress.total == rounds && !progress.out_of_order,
              "progress: %zu calls, last %zu of %zu%s; expected %zu rounds", progress.calls,
              progress.last_done, progress.total, progress.out_of_order ? ", out of order" : "",
              rounds);
    }
    apsp_matrix_destroy(m);
    free(expected);
}

/* The oracle's answer in the matrix? */
static size_t wrong_cells(const apsp_matrix *m, const int32_t *expected) {
    size_t bad = 0, v = m->n;
    for (size_t i = 0; i < v; i++)
        for (size_t j = 0; j < v; j++)
            bad += apsp_matrix_row(m, i)[j] != expected[i * v + j];
    return bad;
}

/* One solver under a device_memory cap: a matrix that fits, one that streams (every round
 * reported), and the first again; each against the oracle. */
static void test_stream_reuse(const char *spec) {
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_OPENCL;
    o.device = spec;
    o.tile = 32;
    o.device_memory = 3 * 1024 * 1024; /* 1024 x 1024 needs 4.5 MiB in core */
    progress_log progress = {0};
    o.progress = on_progress;
    o.progress_context = &progress;
    apsp_solver *solver;
    apsp_error err;
    if (apsp_solver_create(&o, &solver, &err) != APSP_OK) {
        CHECK(0, "apsp_solver_create: %s", err.message);
        return;
    }
    const int32_t sizes[] = {300, 1000, 300};
    for (size_t k = 0; k < 3; k++) {
        apsp_matrix *m;
        int32_t *expected;
        if (make_case(sizes[k], &m, &expected) != 0) {
            CHECK(0, "cannot make the V = %d case", sizes[k]);
            break;
        }
        progress = (progress_log){0};
        apsp_report r;
        apsp_status status = apsp_solver_solve(solver, m, &r, &err);
        CHECK(status == APSP_OK, "V = %d under a 3 MiB cap: %s", sizes[k], err.message);
        if (status == APSP_OK) {
            CHECK(wrong_cells(m, expected) == 0, "V = %d under a 3 MiB cap: wrong distances",
                  sizes[k]);
            CHECK(r.streamed == (sizes[k] > 300) &&
                      (!r.streamed ||
                       (r.stream_pivots >= 32 && r.stream_blocks > 1 && r.stream_bytes_up > 0)),
                  "V = %d: streamed %d, K %zu, %zu blocks", sizes[k], r.streamed, r.stream_pivots,
                  r.stream_blocks);
            size_t rounds = r.padded / 32;
            CHECK(progress.calls == rounds && !progress.out_of_order,
                  "V = %d: %zu progress calls for %zu rounds%s", sizes[k], progress.calls, rounds,
                  progress.out_of_order ? ", out of order" : "");
        }
        apsp_matrix_destroy(m);
        free(expected);
    }
    apsp_solver_destroy(solver);
}

int main(void) {
    apsp_device_info *devices;
    size_t count;
    apsp_error err;
    if (apsp_list_devices(&devices, &count, &err) != APSP_OK) {
        fprintf(stderr, "apsp_list_devices: %s\n", err.message);
        return 1;
    }
    const apsp_device_info *d = NULL;
    for (size_t i = 0; i < count && !d; i++)
        if (devices[i].backend == APSP_BACKEND_OPENCL)
            d = &devices[i];
    if (!d) {
        free(devices);
        const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
        if (require && strcmp(require, "1") == 0) {
            fprintf(stderr, "no OpenCL device, and APSP_TEST_REQUIRE_DEVICE=1\n");
            return 1;
        }
        printf("no OpenCL device: skipped\n");
        return 77;
    }
    char spec[16];
    snprintf(spec, sizeof spec, "%d", d->index);
    printf("device %s: %s\n", spec, d->name);
    test_too_large(d, spec);
    test_refusals(spec);
    test_banded_solve(d, spec);
    test_stream_reuse(spec);
    free(devices);
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
