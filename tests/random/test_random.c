/* Randomized differential test: random graphs, every backend and configuration available,
 * against the test oracle.
 *
 *   test-random [--graphs=N] [--seed=N|time] [--replay=GRAPH_SEED] [--max-v=N] [--verbose]
 *
 * Each graph is drawn from its own 64-bit seed: V in [1, --max-v] (default 400; half of them
 * next to a multiple of 16), a shape (the generator's seven, or "raw": random pairs with
 * self-loops, repeats and weights up to the reader's limit), an edge count from empty to
 * complete, a CPU thread count (1-8) and micro-kernel (options.cpu_isa). The graph is written
 * in the hw3 format, read back with apsp_read_hw3, and solved by the CPU backend and by every
 * OpenCL device at tiles 16, 32 and 64 (some runs under a --max-buffer-bytes cap that splits
 * the matrix into row bands), and, with several OpenCL devices, by all of them together;
 * every distance and padding cell must match the oracle.
 *
 * A failure prints the graph's seed; --replay=SEED runs that graph alone. --graphs defaults to
 * $APSP_RANDOM_GRAPHS or 20, --seed to $APSP_RANDOM_SEED or a fixed value; --seed=time draws a
 * new one (printed). No OpenCL device: the OpenCL runs are skipped, said so, and with
 * APSP_TEST_REQUIRE_DEVICE=1 that is a failure. An explicit tile a device refuses
 * (APSP_ERR_USAGE) is reported and not run again.
 *
 * Exit status: 0 all passed, 1 a failure, 2 bad arguments. */
#include "apsp.h"
#include "graphgen.h"
#include "oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SHAPE_RAW = GG_SHAPE_COUNT, SHAPES = GG_SHAPE_COUNT + 1, MAX_CL_DEVICES = 16 };

static const int tiles[] = {16, 32, 64};
enum { TILE_COUNT = sizeof tiles / sizeof tiles[0] };
static const char *const isas[] = {NULL, "avx512", "avx2", "portable"};

typedef struct config {
    size_t graphs;
    uint64_t seed;
    int replay;
    uint64_t replay_seed;
    int32_t max_v;
    int verbose;
} config;

/* The OpenCL devices, and the tiles each refused. */
typedef struct cl_device {
    char spec[64]; /* the device's index, or a list of every OpenCL device */
    char name[256];
    int tile_refused[TILE_COUNT];
} cl_device;

static cl_device cl_devices[MAX_CL_DEVICES];
static size_t cl_device_count;
static char dir[256];
static size_t solves_cpu, solves_opencl;

/* A graph and what was drawn to make it. */
typedef struct plan {
    uint64_t seed;
    int32_t v;
    int shape;
    gg_graph g;
    int threads;
    const char *isa;
    uint64_t cap_divisor; /* 0: no --max-buffer-bytes */
} plan;

static uint64_t below(uint64_t *rng, uint64_t bound) {
    return gg_below(rng, bound);
}

/* Random pairs, self-loops and repeats included, with weights of one drawn scale. */
static int raw_graph(int32_t v, uint64_t e, uint64_t *rng, gg_graph *g) {
    g->v = v;
    g->e = 0;
    g->edges = e ? malloc((size_t)e * sizeof *g->edges) : NULL;
    if (e && !g->edges)
        return -1;
    int32_t limit = gg_weight_limit(v);
    int32_t scale = (int32_t[]){1, 10, 1000, limit}[below(rng, 4)];
    if (scale > limit)
        scale = limit;
    for (uint64_t i = 0; i < e; i++) {
        gg_edge *edge = &g->edges[g->e++];
        edge->src = (int32_t)below(rng, (uint64_t)v);
        edge->dst = below(rng, 16) == 0 ? edge->src : (int32_t)below(rng, (uint64_t)v);
        /* Now and then the largest weight the reader allows. */
        edge->w = below(rng, 8) == 0 ? limit : (int32_t)below(rng, (uint64_t)scale + 1);
    }
    return 0;
}

static int make_plan(uint64_t seed, int32_t max_v, plan *p) {
    memset(p, 0, sizeof *p);
    p->seed = seed;
    uint64_t rng = seed;
    if (below(&rng, 8) == 0) {
        p->v = 1 + (int32_t)below(&rng, max_v < 5 ? (uint64_t)max_v : 5);
    } else if (below(&rng, 2) == 0) {
        /* Next to a tile edge: a multiple of 16, or one off. */
        int32_t edges = max_v / 16;
        int32_t base = 16 * (1 + (int32_t)below(&rng, edges > 0 ? (uint64_t)edges : 1));
        p->v = base - 1 + (int32_t)below(&rng, 3);
    } else {
        p->v = 1 + (int32_t)below(&rng, (uint64_t)max_v);
    }
    if (p->v > max_v)
        p->v = max_v;
    if (p->v < 1)
        p->v = 1;
    uint64_t pairs = (uint64_t)p->v * (uint64_t)(p->v - 1);
    /* Edge counts spread over orders of magnitude, from none to every pair. */
    uint64_t e = below(&rng, (pairs >> below(&rng, 12)) + 2);
    p->shape = (int)below(&rng, SHAPES);
    p->threads = 1 + (int)below(&rng, 8);
    p->isa = isas[below(&rng, sizeof isas / sizeof isas[0])];
    p->cap_divisor = p->v >= 256 && below(&rng, 4) == 0 ? 2 + below(&rng, 3) : 0;
    uint64_t gen_seed = gg_next(&rng);
    if (p->shape == SHAPE_RAW)
        return raw_graph(p->v, e, &rng, &p->g);
    const char *why;
    if (p->shape == GG_EMPTY)
        e = 0;
    else if (p->shape == GG_CHAIN)
        e %= (uint64_t)p->v * 2 + 1; /* back edges */
    else if (p->shape == GG_DUPS)
        e %= (uint64_t)p->v * 8 + 1;
    if (gg_generate((gg_shape)p->shape, p->v, (int64_t)e, gen_seed, &p->g, &why) != 0) {
        fprintf(stderr, "seed 0x%016llx: gg_generate: %s\n", (unsigned long long)seed, why);
        return -1;
    }
    return 0;
}

static const char *shape_name(int shape) {
    return shape == SHAPE_RAW ? "raw" : gg_shape_name((gg_shape)shape);
}

/* Compares every real cell with the oracle and every padding cell with INF / 0. Returns 0 or
 * -1 with the first difference in msg. */
static int compare(const apsp_matrix *m, const int32_t *expect, char *msg, size_t size) {
    size_t n = m->n, bad = 0;
    int written = 0;
    for (size_t i = 0; i < m->padded; i++) {
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < m->padded; j++) {
            int32_t want = i < n && j < n ? expect[i * n + j] : i == j ? 0 : APSP_INF;
            if (row[j] != want && bad++ == 0)
                written = snprintf(msg, size, "%s cell (%zu, %zu) is %d, expected %d",
                                   i < n && j < n ? "distance" : "padding", i, j, row[j], want);
        }
    }
    if (bad && written >= 0 && (size_t)written < size)
        snprintf(msg + written, size - (size_t)written, " (%zu cells differ)", bad);
    return bad ? -1 : 0;
}

typedef enum run_result { RUN_PASS, RUN_FAIL, RUN_TILE_REFUSED } run_result;

static run_result run_one(const plan *p, size_t number, const apsp_matrix *input,
                          const int32_t *expect, const apsp_options *options, const char *what) {
    apsp_error err;
    apsp_matrix *m;
    char msg[1200];
    apsp_status status = apsp_matrix_create(input->n, &m, &err);
    if (status == APSP_OK) {
        memcpy(m->data, input->data, m->padded * m->stride * sizeof *m->data);
        apsp_report report;
        status = apsp_solve(m, options, &report, &err);
        if (status == APSP_ERR_USAGE && options->backend == APSP_BACKEND_OPENCL) {
            apsp_matrix_destroy(m);
            printf("%s: refused: %s; this tile is not tested on this device\n", what, err.message);
            return RUN_TILE_REFUSED;
        }
    }
    /* A negative cycle: that status, naming a vertex on one (the oracle's diagonal decides). */
    int cycle = oracle_negative_cycle(expect, p->v), bad;
    if (status != APSP_OK)
        snprintf(msg, sizeof msg, "%s: %s", apsp_status_name(status), err.message);
    if (cycle || status == APSP_ERR_NEGATIVE_CYCLE)
        bad = !cycle || status != APSP_ERR_NEGATIVE_CYCLE ||
              !oracle_on_negative_cycle(expect, p->v, oracle_named_vertex(err.message));
    else
        bad = status != APSP_OK || compare(m, expect, msg, sizeof msg) != 0;
    if (bad && cycle && status == APSP_OK)
        snprintf(msg, sizeof msg, "the oracle finds a negative cycle, the solve none");
    apsp_matrix_destroy(m);
    if (bad) {
        fprintf(stderr,
                "FAIL graph %zu, seed 0x%016llx (V=%d, E=%zu, shape %s) on %s: %s\n"
                "     replay: test-random --replay=0x%016llx\n",
                number, (unsigned long long)p->seed, p->v, p->g.e, shape_name(p->shape), what, msg,
                (unsigned long long)p->seed);
        return RUN_FAIL;
    }
    return RUN_PASS;
}

/* Makes, writes, reads and solves one graph every way; returns the number of failed runs. */
static size_t run_graph(uint64_t seed, size_t number, const config *c) {
    plan p;
    if (make_plan(seed, c->max_v, &p) != 0)
        return 1;
    char path[300], what[400];
    snprintf(path, sizeof path, "%s/graph.in", dir);
    size_t failures = 0;
    apsp_matrix *input = NULL;
    apsp_error err;
    int32_t *expect = oracle_matrix_new(p.v);
    if (!expect || gg_write_hw3(&p.g, path) != 0) {
        fprintf(stderr, "seed 0x%016llx: cannot write %s: %s\n", (unsigned long long)seed, path,
                expect ? strerror(errno) : "out of memory");
        failures++;
        goto done;
    }
    apsp_status status = apsp_read_hw3(path, &input, &err);
    if (status != APSP_OK) {
        fprintf(stderr, "FAIL graph %zu, seed 0x%016llx: apsp_read_hw3: %s\n", number,
                (unsigned long long)seed, err.message);
        failures++;
        goto done;
    }
    for (size_t e = 0; e < p.g.e; e++)
        oracle_add_edge(expect, p.v, p.g.edges[e].src, p.g.edges[e].dst, p.g.edges[e].w);
    oracle_floyd_warshall(expect, p.v);
    if (c->verbose)
        printf("graph %zu seed 0x%016llx: V=%d E=%zu %s, cpu threads %d isa %s%s\n", number,
               (unsigned long long)seed, p.v, p.g.e, shape_name(p.shape), p.threads,
               p.isa ? p.isa : "default", p.cap_divisor ? ", capped buffers" : "");

    apsp_options options;
    apsp_options_init(&options);
    options.backend = APSP_BACKEND_CPU;
    options.threads = p.threads;
    options.cpu_isa = p.isa;
    snprintf(what, sizeof what, "cpu threads=%d cpu_isa=%s", p.threads, p.isa ? p.isa : "(best)");
    failures += run_one(&p, number, input, expect, &options, what) != RUN_PASS;
    solves_cpu++;

    for (size_t d = 0; d < cl_device_count; d++) {
        cl_device *dev = &cl_devices[d];
        for (int t = 0; t < TILE_COUNT; t++) {
            if (dev->tile_refused[t])
                continue;
            apsp_options_init(&options);
            options.backend = APSP_BACKEND_OPENCL;
            options.device = dev->spec;
            options.tile = tiles[t];
            if (p.cap_divisor) {
                /* Splits the matrix into 2-4 bands, never below 256 rows of a 128-padded V. */
                uint64_t rounded = ((uint64_t)p.v + 127) / 128 * 128;
                uint64_t cap = rounded * rounded * 4 / p.cap_divisor;
                options.max_buffer_bytes = cap > 256 * rounded * 4 ? cap : 256 * rounded * 4;
            }
            snprintf(what, sizeof what, "opencl -d %.60s (%.200s) tile=%d max_buffer_bytes=%llu",
                     dev->spec, dev->name, tiles[t], (unsigned long long)options.max_buffer_bytes);
            run_result r = run_one(&p, number, input, expect, &options, what);
            if (r == RUN_TILE_REFUSED)
                dev->tile_refused[t] = 1;
            else
                solves_opencl++;
            failures += r == RUN_FAIL;
        }
    }
done:
    apsp_matrix_destroy(input);
    free(expect);
    gg_free(&p.g);
    unlink(path);
    return failures;
}

static int parse_u64(const char *text, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *end || text[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static const char *value_of(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static int parse_seed(const char *text, uint64_t *seed) {
    if (strcmp(text, "time") == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s =
            (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
        *seed = gg_next(&s);
        return 0;
    }
    return parse_u64(text, seed);
}

static int parse_args(int argc, char **argv, config *c) {
    memset(c, 0, sizeof *c);
    c->graphs = 20;
    c->seed = 0x5eed2024;
    c->max_v = 400;
    uint64_t n;
    const char *env = getenv("APSP_RANDOM_GRAPHS");
    if (env && *env) {
        if (parse_u64(env, &n) != 0) {
            fprintf(stderr, "test-random: APSP_RANDOM_GRAPHS=%s is not a number\n", env);
            return -1;
        }
        c->graphs = (size_t)n;
    }
    env = getenv("APSP_RANDOM_SEED");
    if (env && *env && parse_seed(env, &c->seed) != 0) {
        fprintf(stderr, "test-random: APSP_RANDOM_SEED=%s is not a number or 'time'\n", env);
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int ok = 1;
        if ((v = value_of(a, "--graphs"))) {
            ok = parse_u64(v, &n) == 0;
            c->graphs = (size_t)n;
        } else if ((v = value_of(a, "--seed")))
            ok = parse_seed(v, &c->seed) == 0;
        else if ((v = value_of(a, "--replay"))) {
            ok = parse_u64(v, &c->replay_seed) == 0;
            c->replay = 1;
            c->verbose = 1;
        } else if ((v = value_of(a, "--max-v"))) {
            ok = parse_u64(v, &n) == 0 && n >= 1 && n <= 20000;
            c->max_v = (int32_t)n;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            c->verbose = 1;
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr, "test-random: bad argument '%s' (see tests/random/test_random.c)\n", a);
            return -1;
        }
    }
    return 0;
}

/* Finds the OpenCL devices; returns -1 when none and APSP_TEST_REQUIRE_DEVICE=1. */
static int find_devices(void) {
    apsp_device_info *list;
    size_t count;
    apsp_error err;
    if (apsp_list_devices(&list, &count, &err) != APSP_OK) {
        fprintf(stderr, "test-random: apsp_list_devices: %s\n", err.message);
        return -1;
    }
    for (size_t i = 0; i < count && cl_device_count < MAX_CL_DEVICES; i++) {
        if (list[i].backend != APSP_BACKEND_OPENCL)
            continue;
        cl_device *d = &cl_devices[cl_device_count++];
        snprintf(d->spec, sizeof d->spec, "%d", list[i].index);
        snprintf(d->name, sizeof d->name, "%s", list[i].name);
        printf("OpenCL device %s: %s (%s), tiles 16, 32, 64\n", d->spec, d->name, list[i].type);
    }
    free(list);
    /* Several devices: also all of them sharing each solve. */
    if (cl_device_count >= 2 && cl_device_count < MAX_CL_DEVICES) {
        cl_device *all = &cl_devices[cl_device_count];
        size_t used = 0;
        for (size_t i = 0; i < cl_device_count; i++)
            used += (size_t)snprintf(all->spec + used, sizeof all->spec - used, "%s%s",
                                     i ? "," : "", cl_devices[i].spec);
        snprintf(all->name, sizeof all->name, "all %zu OpenCL devices", cl_device_count);
        printf("OpenCL devices %s together, tiles 16, 32, 64\n", all->spec);
        cl_device_count++;
    }
    if (cl_device_count == 0) {
        printf("no OpenCL device: the OpenCL backend is NOT tested here, only the CPU backend\n");
        const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
        if (require && strcmp(require, "1") == 0) {
            fprintf(stderr, "APSP_TEST_REQUIRE_DEVICE=1: a missing device is a failure\n");
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    config c;
    if (parse_args(argc, argv, &c) != 0)
        return 2;
    if (find_devices() != 0)
        return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/apsp-random-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "test-random: mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t failures = 0, graphs = 0, failed_graphs = 0;
    if (c.replay) {
        failures = run_graph(c.replay_seed, 0, &c);
        graphs = 1;
        failed_graphs = failures > 0;
    } else {
        printf("%zu graphs from seed 0x%016llx (V up to %d)\n", c.graphs,
               (unsigned long long)c.seed, c.max_v);
        fflush(stdout);
        uint64_t state = c.seed;
        for (; graphs < c.graphs; graphs++) {
            size_t f = run_graph(gg_next(&state), graphs, &c);
            failures += f;
            failed_graphs += f > 0;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rmdir(dir);
    printf("%zu of %zu graphs passed: %zu cpu and %zu opencl solves, %zu solves failed, %.1f s\n",
           graphs - failed_graphs, graphs, solves_cpu, solves_opencl, failures,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (failures)
        printf("base seed 0x%016llx; replay one graph with --replay=SEED as printed above\n",
               (unsigned long long)c.seed);
    return failures == 0 ? 0 : 1;
}
