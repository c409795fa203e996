/* gen-graph SHAPE V E SEED OUTPUT: writes a test graph in the hw3 format, the same bytes for the
 * same arguments on every machine. */
#include "graphgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gen-graph SHAPE V E SEED OUTPUT\n"
    "\n"
    "Writes a directed graph of V vertices in the hw3 format (little-endian int32 V, E, then E\n"
    "triples src dst weight), determined by SEED. Shapes:\n"
    "  random        E distinct pairs, no self-loops, weights 0..1000\n"
    "  dense         like random for E near V(V-1); E = 0 means every pair\n"
    "  zeros         E distinct pairs, three weights in four are 0\n"
    "  dups          E entries: repeated pairs with varying weights, 1 in 8 self-loops\n"
    "  disconnected  2 to 4 components of scattered vertices, E edges inside them\n"
    "  chain         the path 0 -> 1 -> ... -> V-1 with weights near the largest allowed,\n"
    "                plus E extra edges leading back (src > dst)\n"
    "  empty         no edges (E must be 0)\n"
    "Shapes of distinct pairs write fewer than E edges when the graph cannot hold E.\n"
    "Weights never exceed the reader's limit: (V - 1) * w < 1073741823.\n";

static int parse_i64(const char *text, int64_t min, int64_t max, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc != 6) {
        fputs(usage, stderr);
        return 2;
    }
    gg_shape shape;
    int64_t v, e;
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(argv[4], &end, 0);
    if (gg_shape_parse(argv[1], &shape) != 0 || parse_i64(argv[2], 1, INT32_MAX, &v) != 0 ||
        parse_i64(argv[3], 0, INT32_MAX, &e) != 0 || errno || end == argv[4] || *end ||
        argv[4][0] == '-') {
        fprintf(stderr, "gen-graph: bad arguments (see gen-graph --help)\n");
        return 2;
    }
    gg_graph g;
    const char *why;
    if (gg_generate(shape, (int32_t)v, e, (uint64_t)seed, &g, &why) != 0) {
        fprintf(stderr, "gen-graph: %s\n", why);
        return 1;
    }
    int rc = gg_write_hw3(&g, argv[5]);
    if (rc != 0)
        fprintf(stderr, "gen-graph: %s: %s\n", argv[5], strerror(errno));
    gg_free(&g);
    return rc == 0 ? 0 : 1;
}
