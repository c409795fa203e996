/* The step of every pthread-backend kernel, min(c, a + b), per element type and form: the block
 * kernels (kernels.c, kernels_typed.c) and the small solve (small.c) share it, so that each gives
 * the same bits. */
#ifndef APSP_CPU_RELAX_H
#define APSP_CPU_RELAX_H

#include "apsp.h"

#include <stdint.h>

static inline int32_t min32(int32_t a, int32_t b) {
    return a < b ? a : b;
}

/* The negative form of min(c, a + b) (graphs with a negative weight): a sum with an APSP_INF
 * term stays at APSP_INF or above, so "unreachable" never absorbs a negative weight, and a finite
 * sum is kept at -APSP_INF or above, so a negative cycle cannot drive values down to overflow.
 * Every value lies in [-APSP_INF, APSP_INF], so a + b fits int32. Branch-free: the floor is
 * APSP_INF when a term is unreachable, else -APSP_INF. */
static inline int32_t floor_of(int32_t x) {
    return x == APSP_INF ? APSP_INF : -APSP_INF;
}

static inline int32_t relax_negative(int32_t c, int32_t a, int32_t b) {
    int32_t sum = a + b, low = floor_of(a) > floor_of(b) ? floor_of(a) : floor_of(b);
    sum = sum > low ? sum : low;
    return c < sum ? c : sum;
}

static inline int32_t add_min32(int32_t c, int32_t a, int32_t b) {
    return min32(c, a + b);
}

/* int64 as int32: add-min, and the negative form for graphs with a negative weight (a sum with
 * an APSP_INF64 term stays at APSP_INF64 or above, so "unreachable" never absorbs a negative
 * weight, and a finite sum stays at -APSP_INF64 or above, so a negative cycle cannot drive values
 * to overflow; every value lies in [-APSP_INF64, APSP_INF64], so a + b fits). */
static inline int64_t add_min64(int64_t c, int64_t a, int64_t b) {
    int64_t sum = a + b;
    return c < sum ? c : sum;
}

static inline int64_t floor64_of(int64_t x) {
    return x == APSP_INF64 ? APSP_INF64 : -APSP_INF64;
}

static inline int64_t relax_negative64(int64_t c, int64_t a, int64_t b) {
    int64_t sum = a + b, low = floor64_of(a) > floor64_of(b) ? floor64_of(a) : floor64_of(b);
    sum = sum > low ? sum : low;
    return c < sum ? c : sum;
}

/* Floating point: the sum rounded once, kept only when below c; +inf absorbs every finite sum,
 * so no other form is needed. (With no -inf among the distances a sum is never NaN; if one were,
 * c would stay.) */
static inline float add_min_f32(float c, float a, float b) {
    float sum = a + b;
    return sum < c ? sum : c;
}

static inline double add_min_f64(double c, double a, double b) {
    double sum = a + b;
    return sum < c ? sum : c;
}

#endif
