/* See report.h. */
#include "mpi/report.h"
#include "cpu/kernels.h"

#include <math.h>
#include <stdio.h>

double model_received_bytes(const layout *l, const grid *g) {
    double n = (double)l->n, pr = g->rows, pc = g->cols, b = ROUND_DEPTH;
    double panels = n * n * (1.0 / pc * (1.0 - 1.0 / pr) + 1.0 / pr * (1.0 - 1.0 / pc));
    double pivots = b * b * (double)l->blocks * (pr + pc - 2.0) / (pr * pc);
    return 4.0 * (panels + pivots);
}

typedef struct figures {
    double received, compute, comm;
} figures;

void report_print(const grid *g, const layout *l, const run_report *r) {
    figures mine = {(double)r->rounds.received_bytes, r->rounds.compute_seconds,
                    r->rounds.comm_seconds};
    figures sum, most;
    MPI_Reduce(&mine, &sum, 3, MPI_DOUBLE, MPI_SUM, 0, g->world);
    MPI_Reduce(&mine, &most, 3, MPI_DOUBLE, MPI_MAX, 0, g->world);
    if (g->rank != 0)
        return;
    const double mib = 1024.0 * 1024.0, n = (double)l->n;
    fprintf(stderr, "apsp-mpi: %d rank(s) as a %dx%d grid, %d x %d blocks dealt cyclically\n",
            g->size, g->rows, g->cols, ROUND_DEPTH, ROUND_DEPTH);
    fprintf(stderr, "apsp-mpi: each rank: %s\n", r->engine);
    fprintf(stderr, "apsp-mpi: V = %zu, padded to %zu (%zu rounds)\n", l->vertices, l->n,
            l->blocks);
    fprintf(stderr,
            "apsp-mpi: read %.3f s (rank 0), scatter %.3f s, rounds %.3f s (%.2f G relax/s; "
            "most compute %.3f s, most broadcast %.3f s), write %.3f s, total %.3f s\n",
            r->input.read, r->input.scatter, r->rounds_seconds,
            r->rounds_seconds > 0 ? n * n * n / r->rounds_seconds / 1e9 : 0.0, most.compute,
            most.comm, r->write_seconds, r->total_seconds);
    fprintf(stderr,
            "apsp-mpi: received per rank: mean %.3f MiB, most %.3f MiB; model %.3f MiB "
            "(2n^2/sqrt(P) ints: %.3f MiB)\n",
            sum.received / g->size / mib, most.received / mib, model_received_bytes(l, g) / mib,
            4.0 * 2.0 * n * n / sqrt((double)g->size) / mib);
}
