/* convert-graph IN OUT: writes the hw3 graph IN as text, in the format OUT's extension names:
 * .gr (DIMACS), .mtx (Matrix Market, integer general) or anything else (an edge list "u v w").
 * For measuring the text readers on the same graphs as the hw3 one (bench-read). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: convert-graph IN.hw3 OUT.gr|OUT.mtx|OUT.txt\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "w");
    unsigned char h[8], e[12];
    if (!in || !out || fread(h, 1, 8, in) != 8) {
        perror("convert-graph");
        return 1;
    }
    const char *ext = strrchr(argv[2], '.');
    int dimacs = ext && strcmp(ext, ".gr") == 0, mtx = ext && strcmp(ext, ".mtx") == 0;
    int32_t v = le32(h), edges = le32(h + 4), base = dimacs || mtx;
    if (dimacs)
        fprintf(out, "c converted from %s\np sp %d %d\n", argv[1], v, edges);
    if (mtx)
        fprintf(out, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", v, v, edges);
    while (fread(e, 1, 12, in) == 12)
        fprintf(out, "%s%d %d %d\n", dimacs ? "a " : "", le32(e) + base, le32(e + 4) + base,
                le32(e + 8));
    return fclose(out) == 0 ? 0 : 1;
}
