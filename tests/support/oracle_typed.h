/* Oracles for the wider element types (tests/support/oracle.h has the int32 ones), as independent
 * of the library as those: nothing here includes or links it. Matrices are dense V*V, row-major,
 * without padding.
 *
 * Floating-point Floyd-Warshall rounds each sum, so its result depends on the order in which a
 * path's weights are added: the oracle for float32 and float64 follows the blocked data flow
 * that every apsp backend follows at round depth `tile` (cl/fw.cl's header): round r closes the
 * pivot block P (k-ordered, in place), takes the pivot rows R = P (x) D[K][*] and the pivot
 * columns as they were, A = D[*][K] (P where the rows are pivots), and then relaxes every cell,
 * D = min(D, A (x) R), (x) the min-plus product. Its answer must match a backend's bit for bit
 * at the same tile. */
#ifndef APSP_TEST_ORACLE_TYPED_H
#define APSP_TEST_ORACLE_TYPED_H

#include <stddef.h>
#include <stdint.h>

/* The int64 unreachable marker, 2^62 - 1 (spelled out, not taken from apsp.h). */
#define ORACLE_INF64 INT64_C(4611686018427387903)

/* Plain Floyd-Warshall on int64 distances: k outermost, ORACLE_INF64 never relaxed through. */
void oracle_floyd_warshall_i64(int64_t *d, size_t v);

/* The blocked data flow above at round depth tile, +inf for unreachable. */
void oracle_blocked_f64(double *d, size_t v, size_t tile);
void oracle_blocked_f32(float *d, size_t v, size_t tile);

#endif
