/* The properties the fuzzer checks on every input of a text reader (DIMACS, Matrix Market, edge
 * list), shared by the libFuzzer harnesses (fuzz_text.c) and the plain replay test
 * (replay_text.c).
 *
 * For one input, apsp_read_graph runs twice with the format given: on a regular file (a memfd)
 * and, for inputs up to 64 KiB, on a pipe; both must accept, or both refuse with the same
 * message but for the name. A refusal must carry a reader's status and one non-empty line that
 * names the file and, for a malformed input, its line ("line N"); *out must be NULL. An accepted
 * graph must have 1 <= V, every endpoint in [0, V) and every weight within today's rule
 * (0 <= w, (V - 1) * w < APSP_INF); for V <= TEXT_CHECK_SOLVE_MAX_V its matrix is solved by the
 * CPU backend and compared with the test oracle's Floyd-Warshall over the same edges. */
#ifndef APSP_TEST_TEXT_CHECK_H
#define APSP_TEST_TEXT_CHECK_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

#define TEXT_CHECK_SOLVE_MAX_V 64

typedef enum text_outcome {
    TEXT_FAILED = -1, /* a property does not hold: see why */
    TEXT_REFUSED,
    TEXT_ACCEPTED,
    TEXT_SOLVED,
} text_outcome;

text_outcome text_check(apsp_format format, const uint8_t *data, size_t size, char *why,
                        size_t why_size);

#endif
