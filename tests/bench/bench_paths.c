/* The predecessor derivation alone (docs/performance.md, "Paths"): reads a graph and the solved
 * distances (apsp's hw3 output of it), then times apsp_predecessors over every source, best of
 * REPS runs (wall time, and the process's CPU time: the 2-core test machine is shared).
 *   build/tests/bench/bench-paths GRAPH DISTANCES.out [THREADS] [REPS] */
#include "apsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-paths GRAPH DISTANCES.out [THREADS] [REPS]\n");
        return 2;
    }
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    apsp_error err;
    apsp_graph *g;
    apsp_matrix *d;
    if (apsp_read_graph(argv[1], NULL, &g, &err) != APSP_OK ||
        apsp_matrix_create(g->vertices, &d, &err) != APSP_OK) {
        fprintf(stderr, "bench-paths: %s\n", err.message);
        return 1;
    }
    FILE *f = fopen(argv[2], "rb");
    for (size_t i = 0; f && i < d->n; i++)
        if (fread(apsp_matrix_row(d, i), sizeof(int32_t), d->n, f) != d->n) {
            fclose(f);
            f = NULL;
        }
    if (!f) {
        fprintf(stderr, "bench-paths: %s: not the V x V int32 distances\n", argv[2]);
        return 1;
    }
    fclose(f);
    int32_t *pred = malloc(d->n * d->n * sizeof *pred);
    double best = 1e30, best_cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        clock_t c0 = clock();
        if (apsp_predecessors(g, d, 0, d->n, threads, pred, &err) != APSP_OK) {
            fprintf(stderr, "bench-paths: %s\n", err.message);
            return 1;
        }
        double t = now() - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
        best = t < best ? t : best;
        best_cpu = cpu < best_cpu ? cpu : best_cpu;
    }
    printf("V=%zu E=%zu threads=%u: best of %d %.4f s wall, %.4f s CPU (%.2f ns CPU per source "
           "x edge)\n",
           d->n, g->edges, threads, reps, best, best_cpu,
           1e9 * best_cpu / ((double)d->n * (double)g->edges));
    free(pred);
    apsp_matrix_destroy(d);
    apsp_graph_destroy(g);
    return 0;
}
