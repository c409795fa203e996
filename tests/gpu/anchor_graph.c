/* Writes, in the hw3 format, the random graph that the reference programs of
 * .gpu/anchors (fw_cuda, fw_ocl) build in memory for `V E SEED`, so that apsp can be
 * run on the very same graph and its output compared byte for byte with theirs.
 *
 * Their generator, as documented there: xorshift64 (shifts 13, 7, 17) seeded with
 * SEED * 2654435761 + 1; each edge draws src, dst, w = next() % V, % V, % 1001. Self-loops and
 * repeated pairs stay in the file: apsp ignores the former and keeps the least weight of the
 * latter, which is what the references do too.
 *
 * usage: anchor_graph V E SEED OUTPUT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void put_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: anchor_graph V E SEED OUTPUT\n");
        return 2;
    }
    long vertices = atol(argv[1]);
    long long edges = atoll(argv[2]);
    if (vertices < 1 || vertices > INT32_MAX || edges < 0 || edges > INT32_MAX) {
        fprintf(stderr, "anchor_graph: V must be in [1, 2^31) and E in [0, 2^31)\n");
        return 2;
    }
    state = strtoull(argv[3], NULL, 10) * 2654435761ull + 1;
    FILE *out = fopen(argv[4], "wb");
    if (!out) {
        perror(argv[4]);
        return 1;
    }
    unsigned char buf[12];
    put_le32(buf, (uint32_t)vertices);
    put_le32(buf + 4, (uint32_t)edges);
    fwrite(buf, 1, 8, out);
    for (long long e = 0; e < edges; e++) {
        uint32_t src = (uint32_t)(next_random() % (uint64_t)vertices);
        uint32_t dst = (uint32_t)(next_random() % (uint64_t)vertices);
        uint32_t w = (uint32_t)(next_random() % 1001);
        put_le32(buf, src);
        put_le32(buf + 4, dst);
        put_le32(buf + 8, w);
        fwrite(buf, 1, 12, out);
    }
    if (fclose(out) != 0) {
        perror(argv[4]);
        return 1;
    }
    return 0;
}
