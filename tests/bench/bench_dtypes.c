/* The pthread backend's rate per element type (docs/performance.md), for tests/bench/dtypes.sh:
 *
 *   bench-dtypes [V] [THREADS] [REPS] [ISA] [TYPES]   (defaults 3000, 2, 3, the best, all four)
 *
 * For each of int32, int64, float32 and float64 (or those of TYPES, e.g. "float32,float64"), one
 * dense random graph (weights 1-1000, so every type solves the same graph) is solved REPS times
 * on THREADS threads; each solve starts from a fresh copy. The float types run their own
 * kernels (apsp_options.float_kernels: whole weights would take the int32 ones, src/whole/). Prints
 * the median and best compute seconds (apsp_report) and G relax/s = V^3 / compute seconds, the
 * yardstick SciPy's rate is quoted in (the kernels run padded^3, shown apart). No thresholds. */
#include "../support/typed_cells.h"
#include "apsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t v = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000;
    int threads = argc > 2 ? atoi(argv[2]) : 2, reps = argc > 3 ? atoi(argv[3]) : 3;
    const char *isa = argc > 4 && strcmp(argv[4], "best") != 0 ? argv[4] : NULL;
    const char *only = argc > 5 ? argv[5] : NULL;
    if (v < 2 || threads < 1 || reps < 1 || reps > 99) {
        fprintf(stderr, "usage: bench-dtypes [V >= 2] [THREADS >= 1] [REPS 1-99] [ISA|best] "
                        "[TYPES]\n");
        return 2;
    }
    static const apsp_dtype types[] = {APSP_INT32, APSP_INT64, APSP_FLOAT32, APSP_FLOAT64};
    printf("%-8s %6s %7s %-26s %9s %9s %11s %11s\n", "dtype", "V", "threads", "device", "median s",
           "best s", "G relax/s", "(padded^3)");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        if (only && !strstr(only, apsp_dtype_name(types[t])))
            continue;
        double seconds[99];
        apsp_report report;
        for (int r = 0; r < reps; r++) {
            apsp_error err;
            apsp_matrix *m = NULL;
            if (apsp_matrix_create_typed(v, types[t], &m, &err) != APSP_OK) {
                fprintf(stderr, "bench-dtypes: %s\n", err.message);
                return 1;
            }
            srand(2024); /* the same graph every time */
            for (size_t i = 0; i < v; i++)
                for (size_t j = 0; j < v; j++)
                    if (i != j)
                        set_cell(m, i, j, 1 + rand() % 1000);
            apsp_options o;
            apsp_options_init(&o);
            o.backend = APSP_BACKEND_CPU;
            o.threads = threads;
            o.cpu_isa = isa;
            o.float_kernels = 1;
            if (apsp_solve(m, &o, &report, &err) != APSP_OK) {
                fprintf(stderr, "bench-dtypes: %s\n", err.message);
                return 1;
            }
            seconds[r] = report.compute_seconds;
            apsp_matrix_destroy(m);
        }
        qsort(seconds, (size_t)reps, sizeof seconds[0], by_value);
        double median = seconds[reps / 2], n = (double)v, p = (double)report.padded;
        printf("%-8s %6zu %7d %-26.26s %9.3f %9.3f %11.2f %11.2f\n", apsp_dtype_name(types[t]), v,
               threads, report.device, median, seconds[0], n * n * n / median / 1e9,
               p * p * p / median / 1e9);
        fflush(stdout);
    }
    return 0;
}
