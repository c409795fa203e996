/* Times apsp_solve on the anchors' random graph without file input or output, for tuning and for
 * side-by-side runs with the reference programs of .gpu/anchors.
 *
 * usage: bench V E SEED [REPS] [TILE] [DTYPE]
 *
 * The graph is the one fw_cuda and fw_ocl build for `V E SEED` (tests/gpu/anchor_graph.c writes
 * the same one as a file). Each repetition solves a fresh copy with the OpenCL backend on the
 * default device ($APSP_DEVICE picks another; $APSP_KERNEL_PARAMS and the other variables of
 * src/cli/env_options.c apply). Prints one line per repetition, then a summary line with the
 * median compute time, V^3 and n^3 relaxations per second, and the FNV-1a checksum of the V x V
 * result computed as fw_cuda computes it, so that the two can be compared at any size. DTYPE
 * (int32, the default, int64, float32, float64) solves the same integral weights in that type;
 * the checksum is then over the result as int32 (unreachable as 2^30 - 1), so equal results of
 * every type have the same checksum. Built by
 * tests/gpu/run.sh against the static library; not part of the Meson build. */
#include "../support/typed_cells.h" /* (by its path: the scripts give no -I for tests/) */
#include "apsp.h"
#include "env_options.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* $APSP_PROFILE's lines and build failures. */
static void print_log(void *context, apsp_log_level level, const char *message) {
    (void)context;
    if (level != APSP_LOG_DEBUG)
        fprintf(stderr, "bench: %s\n", message);
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 7) {
        fprintf(stderr, "usage: bench V E SEED [REPS] [TILE] [DTYPE]\n");
        return 2;
    }
    long v = atol(argv[1]);
    long long e = atoll(argv[2]);
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    int tile = argc > 5 ? atoi(argv[5]) : 0;
    apsp_dtype dtype = APSP_INT32;
    if (argc > 6 && apsp_dtype_parse(argv[6], &dtype) != 0) {
        fprintf(stderr, "bench: no element type %s\n", argv[6]);
        return 2;
    }
    if (v < 2 || v > 100000 || e < 0 || reps < 1 || reps > 100 || tile < 0) {
        fprintf(stderr, "bench: bad arguments\n");
        return 2;
    }
    state = strtoull(argv[3], NULL, 10) * 2654435761ull + 1;

    apsp_error err;
    apsp_matrix *graph, *m;
    if (apsp_matrix_create_typed((size_t)v, dtype, &graph, &err) != APSP_OK ||
        apsp_matrix_create_typed((size_t)v, dtype, &m, &err) != APSP_OK) {
        fprintf(stderr, "bench: %s\n", err.message);
        return 1;
    }
    for (long long k = 0; k < e; k++) {
        size_t s = (size_t)(next_random() % (uint64_t)v);
        size_t t = (size_t)(next_random() % (uint64_t)v);
        int32_t w = (int32_t)(next_random() % 1001);
        if (s != t && w < cell_at(graph, s, t))
            set_cell(graph, s, t, w);
    }
    size_t bytes = graph->padded * graph->stride * apsp_dtype_size(dtype);

    apsp_options options;
    apsp_options_init(&options);
    options.backend = APSP_BACKEND_OPENCL;
    options.tile = tile;
    /* Each type by its own kernels: the graph's weights are whole, which would send a float
     * matrix to the integer kernels (src/whole/) and time int32's kernels under float64's name. */
    options.float_kernels = 1;
    int show_build;
    char message[256];
    if (env_options_apply(&options, &show_build, message, sizeof message) != 0) {
        fprintf(stderr, "bench: %s\n", message);
        return 2;
    }
    options.log = print_log;
    double *compute = calloc((size_t)reps, sizeof *compute);
    apsp_report r = {0};
    for (int rep = 0; rep < reps; rep++) {
        memcpy(m->cells, graph->cells, bytes);
        apsp_status status = apsp_solve(m, &options, &r, &err);
        if (status != APSP_OK) {
            fprintf(stderr, "bench: %s\n", err.message);
            return 1;
        }
        compute[rep] = r.compute_seconds;
        printf("rep %d: setup %.3f s, upload %.3f s, compute %.4f s, download %.3f s\n", rep + 1,
               r.setup_seconds, r.upload_seconds, r.compute_seconds, r.download_seconds);
    }
    qsort(compute, (size_t)reps, sizeof *compute, compare_doubles);
    double median = compute[reps / 2];

    uint64_t checksum = 1469598103934665603ull;
    for (long i = 0; i < v; i++) {
        for (long j = 0; j < v; j++) {
            checksum ^= (uint32_t)cell_at(m, (size_t)i, (size_t)j);
            checksum *= 1099511628211ull;
        }
    }
    double real = (double)v * (double)v * (double)v;
    double padded = (double)r.padded * (double)r.padded * (double)r.padded;
    printf("BENCH V=%ld n=%zu tile=%d dtype=%s device=\"%s\" compute_median=%.4f min=%.4f "
           "Trelax_V=%.2f Trelax_n=%.2f checksum=%016llx\n",
           v, r.padded, r.tile, apsp_dtype_name(dtype), r.device, median, compute[0],
           real / median / 1e12, padded / median / 1e12, (unsigned long long)checksum);
    free(compute);
    apsp_matrix_destroy(m);
    apsp_matrix_destroy(graph);
    return 0;
}
