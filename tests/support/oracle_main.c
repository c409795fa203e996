/* apsp-oracle INPUT OUTPUT: the reference answer for a hw3 file, by the test oracle alone.
 * Used to make testcases/\*.out; slow (V^3, one thread) but independent of the library. */
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: apsp-oracle INPUT OUTPUT\n");
        return 2;
    }
    char msg[512];
    int32_t v;
    int32_t *d;
    if (oracle_read_hw3(argv[1], &v, &d, msg, sizeof msg) != 0) {
        fprintf(stderr, "apsp-oracle: %s\n", msg);
        return 1;
    }
    oracle_floyd_warshall(d, v);
    int rc = oracle_write_hw3(argv[2], d, v, msg, sizeof msg);
    if (rc != 0)
        fprintf(stderr, "apsp-oracle: %s\n", msg);
    free(d);
    return rc == 0 ? 0 : 1;
}
