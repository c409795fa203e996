/* Every graph shape at sizes around the tile edges, solved by the library (one apsp_solver for
 * every case, so one device and one program build) and by the oracle; all V*V distances must be
 * identical, and only the first solve may report a program build.
 *
 *   test-backends [--backend=cpu|opencl|auto] [--device=SPEC] [--tile=N] [--threads=N]
 *                 [--max-buffer-bytes=N] [--sizes=1,2,...] [--shapes=random,chain,...]
 *                 [--seed=N] [--devices=N] [--large] [--verbose]
 *
 * --large adds V = 1000 (padded to 1024, where the row pitch is wider than the padded row);
 * slow under the sanitizers, so only one of the registered runs asks for it.
 *
 * Exit status: 0 all cases passed, 1 a failure, 2 bad arguments, 77 (skipped) when the first
 * solve finds no such device, unless APSP_TEST_REQUIRE_DEVICE=1 makes that a failure. */
#include "apsp.h"
#include "env_options.h"
#include "graphgen.h"
#include "oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SKIP = 77, MAX_SIZES = 64 };

static const int32_t default_sizes[] = {1, 2, 3, 63, 64, 65, 127, 129, 200, 333};

/* With --large: a size whose padded width (1024) makes the row pitch wider than a row. */
static const struct {
    gg_shape shape;
    int32_t v;
} extra_cases[] = {{GG_DISCONNECTED, 1000}};

typedef struct config {
    apsp_options options;
    int32_t sizes[MAX_SIZES];
    size_t size_count;
    int shape_on[GG_SHAPE_COUNT];
    int large;
    uint64_t devices; /* --devices=N: every solve must report N devices sharing it */
    uint64_t seed;
    int verbose;
} config;

/* How many edges each shape gets at size v. */
static int64_t edges_for(gg_shape shape, int32_t v) {
    int64_t n = v;
    switch (shape) {
    case GG_RANDOM:
        return 4 * n;
    case GG_DENSE:
        return n * (n - 1) * 9 / 10;
    case GG_ZEROS:
        return 3 * n;
    case GG_DUPS:
        return 6 * n;
    case GG_DISCONNECTED:
        return 5 * n;
    case GG_CHAIN:
        return n / 8;
    case GG_NEGATIVE:
        return 4 * n;
    case GG_NEGCYCLE:
        return 3 * n;
    case GG_EMPTY:
    case GG_SHAPE_COUNT:
        break;
    }
    return 0;
}

static int parse_u64(const char *text, uint64_t max, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_list(const char *text, config *c, int shapes) {
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    if (shapes)
        memset(c->shape_on, 0, sizeof c->shape_on);
    else
        c->size_count = 0;
    for (char *save, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (shapes) {
            gg_shape s;
            if (gg_shape_parse(item, &s) != 0)
                return -1;
            c->shape_on[s] = 1;
        } else {
            uint64_t v;
            if (c->size_count == MAX_SIZES || parse_u64(item, INT32_MAX, &v) != 0 || v == 0)
                return -1;
            c->sizes[c->size_count++] = (int32_t)v;
        }
    }
    return 0;
}

static const char *value_of(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static int parse_args(int argc, char **argv, config *c) {
    memset(c, 0, sizeof *c);
    apsp_options_init(&c->options);
    c->seed = 20240611;
    memcpy(c->sizes, default_sizes, sizeof default_sizes);
    c->size_count = sizeof default_sizes / sizeof default_sizes[0];
    for (int s = 0; s < GG_SHAPE_COUNT; s++)
        c->shape_on[s] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        uint64_t n;
        int ok = 1;
        if ((v = value_of(a, "--backend")))
            ok = apsp_backend_parse(v, &c->options.backend) == 0;
        else if ((v = value_of(a, "--device")))
            c->options.device = v;
        else if ((v = value_of(a, "--tile"))) {
            ok = parse_u64(v, 1 << 20, &n) == 0;
            c->options.tile = (int)n;
        } else if ((v = value_of(a, "--threads"))) {
            ok = parse_u64(v, 1 << 20, &n) == 0;
            c->options.threads = (int)n;
        } else if ((v = value_of(a, "--max-buffer-bytes")))
            ok = parse_u64(v, UINT64_MAX, &c->options.max_buffer_bytes) == 0;
        else if ((v = value_of(a, "--sizes"))) {
            ok = parse_list(v, c, 0) == 0;
        } else if ((v = value_of(a, "--shapes")))
            ok = parse_list(v, c, 1) == 0;
        else if ((v = value_of(a, "--seed")))
            ok = parse_u64(v, UINT64_MAX, &c->seed) == 0;
        else if ((v = value_of(a, "--devices")))
            ok = parse_u64(v, 64, &c->devices) == 0;
        else if (strcmp(a, "--large") == 0)
            c->large = 1;
        else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            c->verbose = 1;
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr,
                    "test-backends: bad argument '%s' (see the comment at the top of "
                    "tests/backends/test_backends.c)\n",
                    a);
            return -1;
        }
    }
    /* $APSP_KERNEL_PARAMS, $APSP_CPU_ISA and the rest, as the apsp command reads them. */
    int show_build;
    char message[256];
    if (env_options_apply(&c->options, &show_build, message, sizeof message) != 0) {
        fprintf(stderr, "test-backends: %s\n", message);
        return -1;
    }
    return 0;
}

typedef struct progress_log {
    size_t calls;
    size_t last_done;
    size_t total;
    int out_of_order;
} progress_log;

static void on_progress(void *context, size_t done, size_t total) {
    progress_log *p = context;
    if (done < p->last_done || done > total || (p->calls > 0 && total != p->total))
        p->out_of_order = 1;
    p->calls++;
    p->last_done = done;
    p->total = total;
}

typedef enum outcome { CASE_PASS, CASE_FAIL, CASE_NO_DEVICE } outcome;

/* Compares everything the solve promises; prints the first problem of each kind. */
static int check_result(const char *name, const apsp_matrix *m, const int32_t *expected,
                        const apsp_report *report, const progress_log *progress, const config *c) {
    size_t n = m->n, bad = 0;
    for (size_t i = 0; i < n; i++) {
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < n; j++) {
            if (row[j] != expected[i * n + j] && bad++ == 0)
                fprintf(stderr, "%s: first mismatch at i=%zu j=%zu: got %d, expected %d\n", name, i,
                        j, row[j], expected[i * n + j]);
        }
    }
    if (bad)
        fprintf(stderr, "%s: %zu of %zu distances are wrong\n", name, bad, n * n);
    size_t bad_padding = 0;
    for (size_t i = 0; i < m->padded; i++) {
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = i < n ? n : 0; j < m->padded; j++) {
            int32_t want = i == j ? 0 : APSP_INF;
            if (row[j] != want && bad_padding++ == 0)
                fprintf(stderr, "%s: padding cell (%zu, %zu) of %zu is %d, expected %d\n", name, i,
                        j, m->padded, row[j], want);
        }
    }
    int failed = bad > 0 || bad_padding > 0;
    if (progress->calls == 0 || progress->out_of_order || progress->last_done != progress->total) {
        fprintf(stderr, "%s: progress callback: %zu calls, last %zu of %zu, %s order\n", name,
                progress->calls, progress->last_done, progress->total,
                progress->out_of_order ? "out of" : "in");
        failed = 1;
    }
    if (c->options.backend != APSP_BACKEND_AUTO &&
        strcmp(report->backend, apsp_backend_name(c->options.backend)) != 0) {
        fprintf(stderr, "%s: asked for backend %s, the report says it ran on '%s'\n", name,
                apsp_backend_name(c->options.backend), report->backend);
        failed = 1;
    }
    if (c->devices && (uint64_t)report->devices != c->devices) {
        fprintf(stderr, "%s: expected %llu devices to share the solve, the report says %d (%s)\n",
                name, (unsigned long long)c->devices, report->devices, report->device);
        failed = 1;
    }
    if (report->padded < n) {
        fprintf(stderr, "%s: report.padded = %zu is below V\n", name, report->padded);
        failed = 1;
    }
    if (c->options.backend == APSP_BACKEND_CPU && c->options.threads > 0 &&
        (report->threads < 1 || report->threads > c->options.threads)) {
        fprintf(stderr, "%s: asked for %d threads, the report says %d\n", name, c->options.threads,
                report->threads);
        failed = 1;
    }
    return failed;
}

/* One solver serves every case of a run, as a program solving many graphs would keep one:
 * its device is opened and its kernels built once (the first report counts the builds, later
 * ones must count none unless a tight buffer cap changes the kernels' shape for a size). */
typedef struct run_state {
    apsp_solver *solver;
    progress_log progress; /* the solver's progress context, reset for each case */
    size_t solves;
    int negative; /* the last solve had a negative weight (the kernels' negative form) */
    int rebuilt;  /* the last solve's form differed or it failed: a rebuild may show now */
} run_state;

static int check_builds(const char *name, const config *c, const apsp_report *report, size_t solves,
                        int form_changed) {
    int opencl = strcmp(report->backend, "opencl") == 0;
    /* With a kernel cache (APSP_KERNEL_CACHE, the XDG default) the program may come built. */
    if (solves == 0 && opencl && report->program_builds < 1 && !c->options.kernel_cache) {
        fprintf(stderr, "%s: the first OpenCL solve reports no program build\n", name);
        return 1;
    }
    /* A graph with negative weights after one without (or back) builds the other form once on
     * each device sharing the solve; a solve refused for a negative cycle reports its builds
     * with the next one. (Devices of one name may share a cache file, so fewer is fine: on 2
     * cores the first device's build was loaded by the others, on 16 all three built at once.) */
    int devices = report->devices > 1 ? report->devices : 1;
    if (solves > 0 && report->program_builds > (form_changed ? 2 * devices : 0) &&
        !c->options.max_buffer_bytes) {
        fprintf(stderr, "%s: solve %zu of one solver built %d program(s); expected none\n", name,
                solves + 1, report->program_builds);
        return 1;
    }
    return 0;
}

static outcome run_case(const config *c, run_state *run, gg_shape shape, int32_t v,
                        apsp_error *err) {
    char name[96];
    snprintf(name, sizeof name, "%s V=%d", gg_shape_name(shape), v);
    gg_graph g;
    const char *why;
    uint64_t seed = c->seed ^ ((uint64_t)v * 0x9e3779b97f4a7c15u);
    if (gg_generate(shape, v, edges_for(shape, v), seed, &g, &why) != 0) {
        fprintf(stderr, "%s: cannot make the graph: %s\n", name, why);
        return CASE_FAIL;
    }
    apsp_matrix *m = NULL;
    int32_t *expected = oracle_matrix_new(v);
    outcome result = CASE_FAIL;
    if (!expected) {
        fprintf(stderr, "%s: out of memory for the oracle\n", name);
        goto done;
    }
    apsp_status status = apsp_matrix_create((size_t)v, &m, err);
    if (status != APSP_OK) {
        fprintf(stderr, "%s: apsp_matrix_create: %s: %s\n", name, apsp_status_name(status),
                err->message);
        goto done;
    }
    for (size_t e = 0; e < g.e; e++) {
        const gg_edge *edge = &g.edges[e];
        oracle_add_edge(expected, v, edge->src, edge->dst, edge->w);
        if (edge->src != edge->dst) {
            int32_t *cell = apsp_matrix_row(m, (size_t)edge->src) + edge->dst;
            if (edge->w < *cell)
                *cell = edge->w;
        }
    }
    oracle_floyd_warshall(expected, v);
    int negative = 0;
    for (size_t e = 0; e < g.e; e++)
        negative |= g.edges[e].w < 0 && g.edges[e].src != g.edges[e].dst;
    int form_changed = negative != run->negative || run->rebuilt;
    run->rebuilt = negative != run->negative;
    run->negative = negative;

    memset(&run->progress, 0, sizeof run->progress);
    if (!run->solver) {
        apsp_options options = c->options;
        options.progress = on_progress;
        options.progress_context = &run->progress;
        status = apsp_solver_create(&options, &run->solver, err);
        if (status == APSP_ERR_NO_DEVICE) {
            result = CASE_NO_DEVICE;
            goto done;
        }
    }
    apsp_report report;
    if (status == APSP_OK)
        status = apsp_solver_solve(run->solver, m, &report, err);
    /* A negative cycle (the oracle's diagonal says so): the one status, a message naming a
     * vertex on a negative closed walk; anything else is a failure. */
    int cycle = oracle_negative_cycle(expected, v);
    if (cycle || status == APSP_ERR_NEGATIVE_CYCLE) {
        int vertex = oracle_named_vertex(err->message);
        if (cycle && status == APSP_ERR_NEGATIVE_CYCLE && strstr(err->message, "negative cycle") &&
            oracle_on_negative_cycle(expected, v, vertex))
            result = CASE_PASS;
        else
            fprintf(stderr, "%s: the oracle finds %s negative cycle, the solve: %s: %s\n", name,
                    cycle ? "a" : "no", apsp_status_name(status),
                    status == APSP_OK ? "" : err->message);
        run->solves++;
        run->rebuilt = 1;
        goto done;
    }
    if (status != APSP_OK) {
        fprintf(stderr, "%s: solving failed: %s: %s\n", name, apsp_status_name(status),
                err->message);
        goto done;
    }
    if (check_result(name, m, expected, &report, &run->progress, c) == 0 &&
        check_builds(name, c, &report, run->solves, form_changed) == 0)
        result = CASE_PASS;
    run->solves++;
    if (c->verbose)
        printf("%-22s E=%-8zu %s on %s (padded %zu, tile %d): %s\n", name, g.e, report.backend,
               report.device, report.padded, report.tile, result == CASE_PASS ? "ok" : "FAILED");
done:
    apsp_matrix_destroy(m);
    free(expected);
    gg_free(&g);
    return result;
}

int main(int argc, char **argv) {
    config c;
    if (parse_args(argc, argv, &c) != 0)
        return 2;
    const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
    int device_required = require && strcmp(require, "1") == 0;
    size_t cases = 0, failures = 0;
    apsp_error err;
    run_state run = {0};
    for (size_t si = 0; si < c.size_count; si++) {
        for (int s = 0; s < GG_SHAPE_COUNT; s++) {
            if (!c.shape_on[s])
                continue;
            memset(&err, 0, sizeof err);
            outcome o = run_case(&c, &run, (gg_shape)s, c.sizes[si], &err);
            if (o == CASE_NO_DEVICE && cases == 0) {
                printf("no device for backend %s: %s\n", apsp_backend_name(c.options.backend),
                       err.message);
                if (device_required) {
                    fprintf(stderr, "APSP_TEST_REQUIRE_DEVICE=1: a missing device is a failure\n");
                    return 1;
                }
                printf("skipped\n");
                return EXIT_SKIP;
            }
            if (o == CASE_NO_DEVICE)
                fprintf(stderr, "%s V=%d: the device went away: %s\n", gg_shape_name((gg_shape)s),
                        c.sizes[si], err.message);
            cases++;
            failures += o != CASE_PASS;
        }
    }
    for (size_t x = 0; c.large && x < sizeof extra_cases / sizeof extra_cases[0]; x++) {
        if (!c.shape_on[extra_cases[x].shape])
            continue;
        memset(&err, 0, sizeof err);
        outcome o = run_case(&c, &run, extra_cases[x].shape, extra_cases[x].v, &err);
        if (o == CASE_NO_DEVICE)
            fprintf(stderr, "V=%d: no device: %s\n", extra_cases[x].v, err.message);
        cases++;
        failures += o != CASE_PASS;
    }
    apsp_solver_destroy(run.solver);
    printf("%zu of %zu cases passed (backend %s, one solver)\n", cases - failures, cases,
           apsp_backend_name(c.options.backend));
    return failures == 0 && cases > 0 ? 0 : 1;
}
