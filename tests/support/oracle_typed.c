/* The wider types' oracles (oracle_typed.h). */
#include "oracle_typed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void oracle_floyd_warshall_i64(int64_t *d, size_t v) {
    for (size_t k = 0; k < v; k++)
        for (size_t i = 0; i < v; i++) {
            int64_t ik = d[i * v + k];
            if (ik == ORACLE_INF64)
                continue;
            for (size_t j = 0; j < v; j++) {
                int64_t kj = d[k * v + j];
                if (kj != ORACLE_INF64 && ik + kj < d[i * v + j])
                    d[i * v + j] = ik + kj;
            }
        }
}

/* One round of the blocked flow over the pivots [p, q), for the element type T: P closed in
 * place in a copy, R = P (x) D[K][*] and A = D[*][K] taken before any cell changes, then every
 * cell relaxed by A (x) R. The sums are rounded once each (s = a + b, with no multiply to contract
 * with), and min keeps c unless s < c. */
#define BLOCKED_ROUND(T, d, v, p, q)                                                               \
    do {                                                                                           \
        size_t depth = (q) - (p);                                                                  \
        T *rows = malloc(sizeof(T) * depth * (v)), *cols = malloc(sizeof(T) * (v)*depth);          \
        T *pivot = malloc(sizeof(T) * depth * depth);                                              \
        if (!rows || !cols || !pivot)                                                              \
            abort();                                                                               \
        for (size_t a = 0; a < depth; a++)                                                         \
            for (size_t b = 0; b < depth; b++)                                                     \
                pivot[a * depth + b] = d[((p) + a) * (v) + (p) + b];                               \
        for (size_t k = 0; k < depth; k++)                                                         \
            for (size_t a = 0; a < depth; a++)                                                     \
                for (size_t b = 0; b < depth; b++) {                                               \
                    T s = pivot[a * depth + k] + pivot[k * depth + b];                             \
                    if (s < pivot[a * depth + b])                                                  \
                        pivot[a * depth + b] = s;                                                  \
                }                                                                                  \
        for (size_t a = 0; a < depth; a++)                                                         \
            for (size_t j = 0; j < (v); j++) {                                                     \
                T best = (j >= (p) && j < (q)) ? pivot[a * depth + j - (p)] : (T)INFINITY;         \
                for (size_t k = 0; k < depth && !(j >= (p) && j < (q)); k++) {                     \
                    T s = pivot[a * depth + k] + d[((p) + k) * (v) + j];                           \
                    if (s < best)                                                                  \
                        best = s;                                                                  \
                }                                                                                  \
                rows[a * (v) + j] = best;                                                          \
            }                                                                                      \
        for (size_t i = 0; i < (v); i++)                                                           \
            for (size_t k = 0; k < depth; k++)                                                     \
                cols[i * depth + k] =                                                              \
                    (i >= (p) && i < (q)) ? pivot[(i - (p)) * depth + k] : d[i * (v) + (p) + k];   \
        for (size_t i = 0; i < (v); i++)                                                           \
            for (size_t j = 0; j < (v); j++)                                                       \
                for (size_t k = 0; k < depth; k++) {                                               \
                    T s = cols[i * depth + k] + rows[k * (v) + j];                                 \
                    if (s < d[i * (v) + j])                                                        \
                        d[i * (v) + j] = s;                                                        \
                }                                                                                  \
        free(rows);                                                                                \
        free(cols);                                                                                \
        free(pivot);                                                                               \
    } while (0)

/* A round depth of 0 would never advance. */
static void check_tile(size_t tile) {
    if (tile == 0) {
        fprintf(stderr, "oracle_blocked: tile 0 (pass the depth the backend reports)\n");
        abort();
    }
}

void oracle_blocked_f64(double *d, size_t v, size_t tile) {
    check_tile(tile);
    for (size_t p = 0; p < v; p += tile)
        BLOCKED_ROUND(double, d, v, p, p + tile < v ? p + tile : v);
}

void oracle_blocked_f32(float *d, size_t v, size_t tile) {
    check_tile(tile);
    for (size_t p = 0; p < v; p += tile)
        BLOCKED_ROUND(float, d, v, p, p + tile < v ? p + tile : v);
}
