/* bench-read FILE [FORMAT]: the speed of reading FILE, beside the memory's own speed measured in
 * the same run (docs/performance.md, "Reading").
 *
 * Prints, for FILE's bytes (read once first, so that they are in the page cache):
 *   memcpy      one copy of that many bytes between two buffers: the memory-bandwidth figure
 *   read()      the file into a buffer with read(2): the page cache's own speed
 *   graph       apsp_read_graph: the edge list, checked (the reader's speed)
 *   matrix      apsp_graph_to_matrix: the padded V x V matrix from the edge list (timed after
 *               the reads)
 *   read_hw3    apsp_read_hw3, the matrix reader of the library (both steps), hw3 files only
 * Each figure is the best of three runs; GB/s are 10^9 bytes of FILE per second. A third argument
 * `graph` leaves out the matrix (a graph whose V x V matrix would not fit: a CSV of many names).
 * A compressed FILE's GB/s count its compressed bytes. */
#include "apsp.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { RUNS = 3 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void show(const char *what, double seconds, double bytes) {
    printf("%-9s %8.3f s  %6.2f GB/s\n", what, seconds, bytes / seconds / 1e9);
}

static double time_memcpy(size_t size) {
    char *a = malloc(size), *b = malloc(size);
    if (!a || !b) {
        fprintf(stderr, "bench-read: out of memory\n");
        exit(1);
    }
    memset(a, 1, size);
    memset(b, 2, size); /* both touched: no page faults in the timing */
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        memcpy(b, a, size);
        t = now() - t;
        best = t < best ? t : best;
    }
    if (b[size / 2] != 1)
        exit(1);
    free(a);
    free(b);
    return best;
}

static double time_read(const char *path, size_t size) {
    char *buf = malloc(size);
    if (!buf)
        exit(1);
    memset(buf, 0, size);
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        int fd = open(path, O_RDONLY);
        double t = now();
        size_t done = 0;
        ssize_t n;
        while (done < size && (n = read(fd, buf + done, size - done)) > 0)
            done += (size_t)n;
        t = now() - t;
        close(fd);
        best = t < best ? t : best;
    }
    free(buf);
    return best;
}

static void die(const apsp_error *err) {
    fprintf(stderr, "bench-read: %s\n", err->message);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench-read FILE [hw3|dimacs|mtx|edgelist|csv|tsv [graph]]\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    double bytes = (double)st.st_size;
    printf("%s: %.0f bytes\n", argv[1], bytes);
    time_read(argv[1], (size_t)st.st_size);
    show("memcpy", time_memcpy((size_t)st.st_size), bytes);
    show("read()", time_read(argv[1], (size_t)st.st_size), bytes);
    apsp_error err;
    apsp_read_options options;
    apsp_read_options_init(&options);
    int graph_only = argc == 4 && strcmp(argv[3], "graph") == 0;
    if (argc >= 3 && apsp_format_parse(argv[2], &options.format) != 0) {
        fprintf(stderr, "bench-read: unknown format %s\n", argv[2]);
        return 2;
    }
    /* The reads first, then the conversions: after a 6 GB matrix is freed, the next reads run
     * slower for a while (the kernel takes the pages back), which is not the reader's cost. */
    double graph_best = 1e30, matrix_best = 1e30;
    size_t edges = 0, vertices = 0;
    apsp_graph *g = NULL;
    for (int r = 0; r < RUNS; r++) {
        apsp_graph_destroy(g);
        double t = now();
        if (apsp_read_graph(argv[1], &options, &g, &err) != APSP_OK)
            die(&err);
        t = now() - t;
        graph_best = t < graph_best ? t : graph_best;
        edges = g->edges;
        vertices = g->vertices;
    }
    for (int r = 0; r < RUNS && !graph_only; r++) {
        apsp_matrix *m;
        double t = now();
        if (apsp_graph_to_matrix(g, &m, &err) != APSP_OK)
            die(&err);
        t = now() - t;
        matrix_best = t < matrix_best ? t : matrix_best;
        apsp_matrix_destroy(m);
    }
    apsp_graph_destroy(g);
    printf("V = %zu, E = %zu\n", vertices, edges);
    show("graph", graph_best, bytes);
    if (!graph_only)
        show("matrix", matrix_best, bytes);
    if (options.format == APSP_FORMAT_HW3 ||
        (options.format == APSP_FORMAT_AUTO && apsp_format_for(argv[1], 0) == APSP_FORMAT_HW3)) {
        double best = 1e30;
        for (int r = 0; r < RUNS; r++) {
            apsp_matrix *m;
            double t = now();
            if (apsp_read_hw3(argv[1], &m, &err) != APSP_OK)
                die(&err);
            t = now() - t;
            best = t < best ? t : best;
            apsp_matrix_destroy(m);
        }
        show("read_hw3", best, bytes);
    }
    return 0;
}
