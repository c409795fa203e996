/* The pthread backend's kernels for the element types beyond int32 (kernels.h): the portable
 * instances here, the x86 ones in kernels_x86.c, and the choice among all of them. */
#include "cpu/kernels.h"
#include "cpu/relax.h"

#include <string.h>

#define CELL int64_t
#define SUFFIX i64
#define RELAX add_min64
#include "cpu/kernels_portable.h"
#undef SUFFIX
#undef RELAX
#define SUFFIX i64_negative
#define RELAX relax_negative64
#include "cpu/kernels_portable.h"
#undef CELL
#undef SUFFIX
#undef RELAX
#define CELL float
#define SUFFIX f32
#define RELAX add_min_f32
#include "cpu/kernels_portable.h"
#undef CELL
#undef SUFFIX
#undef RELAX
#define CELL double
#define SUFFIX f64
#define RELAX add_min_f64
#include "cpu/kernels_portable.h"
#undef CELL
#undef SUFFIX
#undef RELAX

static void close_block_i32(void *restrict c, size_t stride) {
    close_block(c, stride);
}

static void close_block_i32_negative(void *restrict c, size_t stride) {
    close_block_negative(c, stride);
}

/* By type and form (negative only for the integer types): the closing kernel and the portable
 * product. */
typedef struct typed_entry {
    close_block_fn close;
    relax_block_fn portable;
} typed_entry;

static const typed_entry typed_entries[][2] = {
    [APSP_INT32] = {{close_block_i32, NULL}, {close_block_i32_negative, NULL}},
    [APSP_INT64] = {{close_block_i64, relax_block_portable_i64},
                    {close_block_i64_negative, relax_block_portable_i64_negative}},
    [APSP_FLOAT32] = {{close_block_f32, relax_block_portable_f32},
                      {close_block_f32, relax_block_portable_f32}},
    [APSP_FLOAT64] = {{close_block_f64, relax_block_portable_f64},
                      {close_block_f64, relax_block_portable_f64}},
};

int choose_kernels(apsp_dtype dtype, int negative, const char *want, block_kernels *out,
                   const char **isa) {
    size_t cell = apsp_dtype_size(dtype);
    int integer = dtype == APSP_INT32 || dtype == APSP_INT64;
    negative = integer && negative;
    /* The int32 chooser resolves `want` against the CPU; the other types follow its pick. */
    relax_block_fn relax = choose_relax_block(want, negative, isa);
    if (!relax || cell == 0)
        return 0;
    const typed_entry *e = &typed_entries[dtype][negative];
    *out = (block_kernels){.close = e->close, .relax = relax, .cell = cell, .exact = integer};
    if (dtype == APSP_INT32)
        return 1;
    int rank = strcmp(*isa, "avx512") == 0 ? 0 : strcmp(*isa, "avx2") == 0 ? 1 : -1;
    relax_block_fn vector = rank >= 0 ? choose_x86_relax(dtype, negative, rank) : NULL;
    out->relax = vector ? vector : e->portable;
    if (!vector)
        *isa = "portable";
    return 1;
}
