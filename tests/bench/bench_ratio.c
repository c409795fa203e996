/* bench-ratio ROUNDS BASE ENTRY...: the speeds of several reads of one graph as ratios to the
 * first's, measured in one run with the entries interleaved (docs/performance.md, "Tables and
 * compressed inputs"). On a shared, loaded machine two runs minutes apart see different loads;
 * rounds that take each entry in turn see the same, and the median of the per-round ratios
 * says what a best-of-three taken apart cannot.
 *
 * An entry is FILE:FORMAT (apsp_read_graph, FORMAT as --input-format spells it) or !COMMAND
 * (a shell command, timed as a whole: "!zcat g.txt.gz > /dev/null"). Prints, for each entry, the
 * medians over the rounds of its wall time, its CPU time (all threads; a command's children),
 * and of BASE's wall (and CPU) time over its own in the same round: the entry's speed as a
 * fraction of BASE's. */
#include "apsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { MOST_ROUNDS = 64, MOST_ENTRIES = 8 };

static double clock_seconds(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double children_cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

/* One entry timed once: wall and CPU seconds. */
static void run_entry(const char *entry, double *wall, double *cpu) {
    double w = clock_seconds(CLOCK_MONOTONIC);
    if (entry[0] == '!') {
        double c = children_cpu();
        if (system(entry + 1) != 0) {
            fprintf(stderr, "bench-ratio: '%s' failed\n", entry + 1);
            exit(1);
        }
        *cpu = children_cpu() - c;
        *wall = clock_seconds(CLOCK_MONOTONIC) - w;
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", entry);
    char *colon = strrchr(path, ':');
    apsp_read_options options;
    apsp_read_options_init(&options);
    if (!colon || apsp_format_parse(colon + 1, &options.format) != 0) {
        fprintf(stderr, "bench-ratio: '%s' is not FILE:FORMAT or !COMMAND\n", entry);
        exit(2);
    }
    *colon = '\0';
    double c = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    apsp_graph *g;
    apsp_error err;
    if (apsp_read_graph(path, &options, &g, &err) != APSP_OK) {
        fprintf(stderr, "bench-ratio: %s\n", err.message);
        exit(1);
    }
    *cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
    *wall = clock_seconds(CLOCK_MONOTONIC) - w;
    apsp_graph_destroy(g);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *values, int count) {
    double sorted[MOST_ROUNDS];
    memcpy(sorted, values, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, by_value);
    return count % 2 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 0, entries = argc - 2;
    if (argc < 3 || rounds < 1 || rounds > MOST_ROUNDS || entries > MOST_ENTRIES) {
        fprintf(stderr,
                "usage: bench-ratio ROUNDS(1-%d) BASE ENTRY... (FILE:FORMAT or !COMMAND, "
                "at most %d)\n",
                MOST_ROUNDS, MOST_ENTRIES);
        return 2;
    }
    static double wall[MOST_ENTRIES][MOST_ROUNDS], cpu[MOST_ENTRIES][MOST_ROUNDS];
    static double wall_ratio[MOST_ENTRIES][MOST_ROUNDS], cpu_ratio[MOST_ENTRIES][MOST_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        for (int e = 0; e < entries; e++) {
            run_entry(argv[2 + e], &wall[e][r], &cpu[e][r]);
            fprintf(stderr, "round %d: %s %.3f s wall %.3f s cpu\n", r + 1, argv[2 + e], wall[e][r],
                    cpu[e][r]);
        }
        for (int e = 0; e < entries; e++) {
            wall_ratio[e][r] = wall[0][r] / wall[e][r];
            cpu_ratio[e][r] = cpu[0][r] / cpu[e][r];
        }
    }
    printf("%d rounds; medians; ratio = BASE's time / the entry's in the same round\n", rounds);
    printf("%-40s %9s %9s %11s %10s\n", "entry", "wall s", "cpu s", "wall ratio", "cpu ratio");
    for (int e = 0; e < entries; e++)
        printf("%-40.40s %9.3f %9.3f %11.3f %10.3f\n", argv[2 + e], median(wall[e], rounds),
               median(cpu[e], rounds), median(wall_ratio[e], rounds), median(cpu_ratio[e], rounds));
    return 0;
}
