/* The properties the fuzzer checks on every input of the kernel cache's file parser
 * (src/base/cache_file.h), shared by the libFuzzer harness (fuzz_cache_file.c) and the plain
 * replay test (replay_cache_file.c).
 *
 * The input is parsed as a cache file with the key it starts with (its bytes up to the first
 * NUL), so that the parser goes past the key to the header: the parser must accept exactly
 * what the layout says (size field equal to the bytes after the header, not 0, SHA-256 equal to
 * the binary's), return the binary where it lies in the input, and give a reason when it
 * refuses. Then the same key and the rest of the input as a binary go through cache_file_make
 * and back: the binary must come back whole, and the file must be refused under another key,
 * cut by a byte, or with one bit of its binary flipped. Under ASan and UBSan (the fuzzer's
 * build) no read may leave the input. */
#ifndef APSP_TEST_CACHE_CHECK_H
#define APSP_TEST_CACHE_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef enum cache_outcome {
    CACHE_FAILED = -1, /* a property does not hold: see why */
    CACHE_REFUSED,
    CACHE_ACCEPTED,
} cache_outcome;

cache_outcome cache_check(const uint8_t *data, size_t size, char *why, size_t why_size);

#endif
