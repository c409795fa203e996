/* See report.h. */
#include "mpi/report.h"
#include "backend/blocks.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double model_received_bytes(const layout *l, const grid *g) {
    double n = (double)l->n, pr = g->rows, pc = g->cols, b = BLOCK_SIDE;
    double panels = n * n * (1.0 / pc * (1.0 - 1.0 / pr) + 1.0 / pr * (1.0 - 1.0 / pc));
    double pivots = b * b * (double)l->blocks * (pr + pc - 2.0) / (pr * pc);
    return 4.0 * (panels + pivots);
}

typedef struct figures {
    double received, compute, comm, overlapped;
} figures;

/* `text` as a JSON string. */
static void print_lines(const grid *g, const layout *l, const run_report *r, const figures *sum,
                        const figures *most, const char *engines) {
    const double mib = 1024.0 * 1024.0, n = (double)l->n;
    fprintf(stderr, "apsp-mpi: %d rank(s) as a %dx%d grid, %d x %d blocks dealt cyclically\n",
            g->size, g->rows, g->cols, BLOCK_SIDE, BLOCK_SIDE);
    for (int i = 0; engines && i < g->size; i++)
        fprintf(stderr, "apsp-mpi: rank %d (%d, %d): %s\n", i, i / g->cols, i % g->cols,
                engines + (size_t)i * ENGINE_TEXT);
    if (!engines)
        fprintf(stderr, "apsp-mpi: rank 0: %s\n", r->engine);
    fprintf(stderr, "apsp-mpi: V = %zu, padded to %zu (%zu rounds)\n", l->vertices, l->n,
            l->blocks);
    fprintf(stderr,
            "apsp-mpi: read %.3f s (rank 0), distribute %.3f s, rounds %.3f s (%.2f G relax/s; "
            "most compute %.3f s, most broadcast %.3f s), store %.3f s, write %.3f s, total "
            "%.3f s\n",
            r->input.read, r->input.distribute, r->rounds_seconds,
            r->rounds_seconds > 0 ? n * n * n / r->rounds_seconds / 1e9 : 0.0, most->compute,
            most->comm, r->store_seconds, r->write_seconds, r->total_seconds);
    fprintf(stderr,
            "apsp-mpi: received per rank: mean %.3f MiB, most %.3f MiB; model %.3f MiB "
            "(2n^2/sqrt(P) ints: %.3f MiB)\n",
            sum->received / g->size / mib, most->received / mib, model_received_bytes(l, g) / mib,
            4.0 * 2.0 * n * n / sqrt((double)g->size) / mib);
    fprintf(stderr,
            "apsp-mpi: output %s; its pages faulted in beside the rounds for %.3f s "
            "(the most of any rank)\n",
            r->mapped ? "stored into a shared mapping of the file" : "written with pwrite",
            most->overlapped);
}

/* The figures as apsp's --stats-json names them where they mean the same (compute_s: the
 * rounds), and the grid's own. */
static void print_json(const grid *g, const layout *l, const run_report *r, const figures *sum,
                       const figures *most, const char *engines) {
    const double n = (double)l->n;
    fprintf(stderr, "{\"ranks\":%d,\"grid\":\"%dx%d\",\"engines\":[", g->size, g->rows, g->cols);
    for (int i = 0; i < g->size; i++) {
        if (i)
            fputc(',', stderr);
        json_write_string(stderr, engines  ? engines + (size_t)i * ENGINE_TEXT
                                  : i == 0 ? r->engine
                                           : "");
    }
    fprintf(stderr,
            "],\"vertices\":%zu,\"padded\":%zu,\"round_depth\":%d,\"read_s\":%.6f,"
            "\"distribute_s\":%.6f,\"compute_s\":%.6f,\"download_s\":%.6f,\"write_s\":%.6f,"
            "\"total_s\":%.6f,\"relax_per_s\":%.6g,\"most_compute_s\":%.6f,"
            "\"most_broadcast_s\":%.6f,\"received_mean_bytes\":%.0f,\"received_most_bytes\":%.0f,"
            "\"model_received_bytes\":%.0f,\"overlapped_s\":%.6f,\"write_mapped\":%s}\n",
            l->vertices, l->n, BLOCK_SIDE, r->input.read, r->input.distribute, r->rounds_seconds,
            r->store_seconds, r->write_seconds, r->total_seconds,
            r->rounds_seconds > 0 ? n * n * n / r->rounds_seconds : 0.0, most->compute, most->comm,
            sum->received / g->size, most->received, model_received_bytes(l, g), most->overlapped,
            r->mapped ? "true" : "false");
}

void report_print(const grid *g, const layout *l, const run_report *r, int verbose, int json) {
    figures mine = {(double)r->rounds.received_bytes, r->rounds.compute_seconds,
                    r->rounds.comm_seconds, r->overlapped_seconds};
    figures sum, most;
    MPI_Reduce(&mine, &sum, 4, MPI_DOUBLE, MPI_SUM, 0, g->world);
    MPI_Reduce(&mine, &most, 4, MPI_DOUBLE, MPI_MAX, 0, g->world);
    /* Every rank's engine to rank 0 (none listed but rank 0's when that memory is missing). */
    char *engines = g->rank == 0 ? malloc((size_t)g->size * ENGINE_TEXT) : NULL;
    int gather = engines != NULL;
    MPI_Bcast(&gather, 1, MPI_INT, 0, g->world);
    if (gather)
        MPI_Gather(r->engine, ENGINE_TEXT, MPI_CHAR, engines, ENGINE_TEXT, MPI_CHAR, 0, g->world);
    if (g->rank == 0 && verbose)
        print_lines(g, l, r, &sum, &most, engines);
    if (g->rank == 0 && json)
        print_json(g, l, r, &sum, &most, engines);
    free(engines);
}
