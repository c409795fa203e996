/* The properties the fuzzer checks on every input, shared by the libFuzzer harness (fuzz_hw3.c)
 * and the plain replay test (replay_hw3.c), so a saved crash is replayed against exactly the
 * checks that found it.
 *
 * For one input (the bytes of a would-be hw3 file), apsp_read_hw3 runs twice: on a regular
 * file (a memfd, whose size the reader checks up front) and on a pipe (where it finds the end
 * by reading). Both must agree with the test oracle's independent reader on accept or refuse.
 * A refusal must carry an error status of the reader's kind and one non-empty line naming the
 * file, and leave *out NULL. An accepted matrix must have n = V, 0 on the diagonal, every cell
 * in [0, APSP_INF] and equal to the oracle's, and padding cells APSP_INF off the diagonal and 0
 * on it. Graphs of at most HW3_CHECK_SOLVE_MAX_V vertices are also solved by the CPU backend
 * (one thread) and written with apsp_write_hw3; both must match the oracle's Floyd-Warshall. */
#ifndef APSP_TEST_HW3_CHECK_H
#define APSP_TEST_HW3_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Inputs with V above this are only read where the reader refuses them before allocating a
 * matrix (or where the matrix cannot fit in memory): reading an 8-byte header with a large V
 * legitimately allocates V^2 ints, which would only measure the allocator. */
#define HW3_CHECK_MAX_V 1100
#define HW3_CHECK_SOLVE_MAX_V 64

typedef enum hw3_outcome {
    HW3_FAILED = -1,  /* a property does not hold: see why */
    HW3_REFUSED,      /* the reader refused the input, correctly */
    HW3_ACCEPTED,     /* read and checked */
    HW3_SOLVED,       /* read, checked, solved and written, all matching the oracle */
    HW3_SKIPPED_LARGE /* V > HW3_CHECK_MAX_V with a matrix that would fit in memory */
} hw3_outcome;

/* Checks one input. On HW3_FAILED, why holds a one-line description. */
hw3_outcome hw3_check(const uint8_t *data, size_t size, char *why, size_t why_size);

#endif
