/* libFuzzer harness for the hw3 reader: every input is checked by hw3_check (see hw3_check.h);
 * a property that does not hold aborts, and libFuzzer saves the input as a crash.
 *
 * Built by `meson setup build-fuzz -Dfuzzing=true` with clang; run by tests/fuzz/run.sh. */
#include "hw3_check.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char why[2048];
    if (hw3_check(data, size, why, sizeof why) == HW3_FAILED) {
        fprintf(stderr, "fuzz-hw3: %zu-byte input: %s\n", size, why);
        abort();
    }
    return 0;
}
