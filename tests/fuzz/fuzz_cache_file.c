/* libFuzzer harness for the kernel cache's file parser (src/base/cache_file.c): every input is
 * checked by cache_check (cache_check.h); a property that does not hold aborts, and libFuzzer
 * saves the input as a crash.
 *
 * Built by `meson setup build-fuzz -Dfuzzing=true` with clang; run by tests/fuzz/run.sh. */
#include "cache_check.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char why[512];
    if (cache_check(data, size, why, sizeof why) == CACHE_FAILED) {
        fprintf(stderr, "fuzz-cache-file: %zu-byte input: %s\n", size, why);
        abort();
    }
    return 0;
}
