/* base/sha256.c against Python's hashlib (tests/api/test_sha256.py): prints "LENGTH HEX" for
 * messages of every length around the block and padding edges, and for one large message, whose
 * bytes are a fixed pattern that the script rebuilds. */
#include "base/sha256.h"

#include <stdio.h>
#include <stdlib.h>

static unsigned char pattern_byte(size_t i) {
    return (unsigned char)(i * 131 + (i >> 8) * 7 + 29);
}

int main(void) {
    const size_t largest = 1000003; /* over a MiB-ish, not a multiple of 64 */
    unsigned char *data = malloc(largest);
    if (!data)
        return 1;
    for (size_t i = 0; i < largest; i++)
        data[i] = pattern_byte(i);
    char hex[SHA256_HEX];
    for (size_t size = 0; size <= 300; size++) {
        sha256_hex(size ? data : NULL, size, hex);
        printf("%zu %s\n", size, hex);
    }
    sha256_hex(data, largest, hex);
    printf("%zu %s\n", largest, hex);
    free(data);
    return 0;
}
