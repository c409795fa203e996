/* The test oracle: an independent hw3 reader/writer and a plain triple-loop Floyd-Warshall.
 *
 * Nothing here includes or links the library under test: the answers the tests compare against
 * must not share a line of code with what they check. The distance matrix is a dense V*V int32
 * array, row-major, without padding. */
#ifndef APSP_TEST_ORACLE_H
#define APSP_TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* The unreachable marker of the hw3 format, 2^30 - 1 (spelled out, not taken from apsp.h). */
#define ORACLE_INF 1073741823

/* A V*V matrix with 0 on the diagonal and ORACLE_INF elsewhere; NULL if out of memory. */
int32_t *oracle_matrix_new(int32_t v);

/* Adds the edge src -> dst: self-loops are ignored, parallel edges keep the least weight. */
void oracle_add_edge(int32_t *d, int32_t v, int32_t src, int32_t dst, int32_t w);

/* Plain Floyd-Warshall in place: k outermost, sums in 64 bits, ORACLE_INF never relaxed through.
 * Negative weights are fine, negative cycles are not (oracle_negative_cycle finds them). */
void oracle_floyd_warshall(int32_t *d, int32_t v);

/* After oracle_floyd_warshall: 1 when some d(i,i) < 0 (the graph has a negative cycle; the
 * other distances are then meaningless), else 0. */
int oracle_negative_cycle(const int32_t *d, int32_t v);

/* After oracle_floyd_warshall: 1 when vertex x lies on a closed walk of negative weight: some c
 * with d(c,c) < 0 is in x's strongly connected component (Floyd-Warshall makes d(c,c) < 0 for a
 * vertex c of every simple negative cycle, whatever the order of its updates). An error naming a
 * vertex of a negative cycle must name such a vertex. */
int oracle_on_negative_cycle(const int32_t *d, int32_t v, int32_t x);

/* The vertex named in an error message "... vertex N ...", or -1. */
int oracle_named_vertex(const char *message);

/* Reads a hw3 file into a new matrix (free() it). Refuses what the format forbids: a short
 * header, V < 1, E < 0, a size other than 8 + 12 E bytes, endpoints outside [0, V), weights
 * with (V - 1) * |w| >= ORACLE_INF. Returns 0, or -1 with a message in msg. */
int oracle_read_hw3(const char *path, int32_t *v, int32_t **d, char *msg, size_t msg_size);

/* Writes the V*V matrix as little-endian int32. Returns 0, or -1 with a message in msg. */
int oracle_write_hw3(const char *path, const int32_t *d, int32_t v, char *msg, size_t msg_size);

#endif
