/* libFuzzer harness for one text reader, FUZZ_FORMAT (APSP_FORMAT_DIMACS, _MTX or _EDGELIST, a
 * -D define: tests/fuzz/meson.build builds one harness per reader). Every input is checked by
 * text_check (text_check.h); a property that does not hold aborts and libFuzzer saves the input.
 * Run by tests/fuzz/run.sh. */
#include "text_check.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char why[2048];
    if (text_check(FUZZ_FORMAT, data, size, why, sizeof why) == TEXT_FAILED) {
        fprintf(stderr, "fuzz-%s: %zu-byte input: %s\n", apsp_format_name(FUZZ_FORMAT), size, why);
        abort();
    }
    return 0;
}
