/* The element types of a matrix (apsp_dtype), listed once: each one's name, C type, no-path
 * marker, whether it is floating-point, and the digits that print it back exactly. The names
 * (apsp_dtype_name, and from it Python's _core.DTYPES and the --dtype words), the sizes and the
 * switches that only map a type to these facts are made of this list: such a switch is
 * `switch (dtype) { ELEMENT_TYPES(CASE) }` with a CASE macro of the file's own, which compiles to
 * the code written out by hand for each type, the entry's facts being constants there.
 *
 * Only apsp.h and the C library, and nothing to link: apsp-option-docs compiles base/names.c
 * alone. */
#ifndef APSP_BASE_ELEMENT_TYPES_H
#define APSP_BASE_ELEMENT_TYPES_H

#include "apsp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* X(TYPE, NAME, C, NONE, REAL, DIGITS): TYPE the apsp_dtype (in the enum's order), NAME its
 * spelling, C the type of a cell (its size is sizeof(C)), NONE the distance of no path (the
 * integers' marker, +inf for the floating-point types), REAL 1 for floating-point, DIGITS the
 * significant digits that read back as the same value (%.*g; 0 for the integers, printed
 * whole). */
#define ELEMENT_TYPES(X)                                                                           \
    X(APSP_INT32, "int32", int32_t, APSP_INF, 0, 0)                                                \
    X(APSP_INT64, "int64", int64_t, APSP_INF64, 0, 0)                                              \
    X(APSP_FLOAT32, "float32", float, INFINITY, 1, FLT_DECIMAL_DIG)                                \
    X(APSP_FLOAT64, "float64", double, INFINITY, 1, DBL_DECIMAL_DIG)

#define ELEMENT_TYPE_ONE(TYPE, NAME, C, NONE, REAL, DIGITS) +1
enum { ELEMENT_TYPE_COUNT = 0 ELEMENT_TYPES(ELEMENT_TYPE_ONE) };
#undef ELEMENT_TYPE_ONE
_Static_assert(APSP_FLOAT64 + 1 == ELEMENT_TYPE_COUNT, "apsp_dtype and ELEMENT_TYPES agree");

/* The list's facts of one type as values: {"unknown", 0, 0, 0} for a number that is no
 * apsp_dtype. Inline, so that the front ends' own code (cli/, python/) has them too. */
typedef struct element_type {
    const char *name;
    size_t size;
    int real;
    int digits;
} element_type;

static inline element_type element_facts(apsp_dtype dtype) {
    switch (dtype) {
#define ELEMENT_FACTS(TYPE, NAME, C, NONE, REAL, DIGITS)                                           \
    case TYPE:                                                                                     \
        return (element_type){NAME, sizeof(C), REAL, DIGITS};
        ELEMENT_TYPES(ELEMENT_FACTS)
#undef ELEMENT_FACTS
    }
    return (element_type){"unknown", 0, 0, 0};
}

/* Whether the type is floating-point; the significant digits of its %.*g. */
static inline int element_is_real(apsp_dtype dtype) {
    return element_facts(dtype).real;
}

static inline int element_digits(apsp_dtype dtype) {
    return element_facts(dtype).digits;
}

/* Weight i of an edge list that holds either whole weights (`whole`) or real ones (`real`, the
 * other NULL) as a cell of `dtype` at *cell: the floating-point types round the weight's value
 * as a double once; the integer types take the integer (a real weight only where the type's rule
 * admitted it as whole). The one conversion of the host's fill (base/graph.h: graph_weight_as)
 * and of the edges a device is sent (opencl/sssp_setup.c), so that both make the same cells. */
static inline void element_weight_as(const int64_t *whole, const double *real, size_t i,
                                     apsp_dtype dtype, void *cell) {
    switch (dtype) {
#define WEIGHT_AS(TYPE, NAME, C, NONE, REAL, DIGITS)                                               \
    case TYPE:                                                                                     \
        *(C *)cell = REAL   ? (C)(real ? real[i] : (double)whole[i])                               \
                     : real ? (C)real[i]                                                           \
                            : (C)whole[i];                                                         \
        break;
        ELEMENT_TYPES(WEIGHT_AS)
#undef WEIGHT_AS
    }
}

#endif
