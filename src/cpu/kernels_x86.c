/* The wider types' AVX2 and AVX-512 instances of the min-plus block product (kernels.h:
 * choose_x86_relax), each kernels_vector.h's scheme with its type's relaxation.
 *
 * Floating point: vaddp[sd] then vminp[sd] with the sum first, which is `sum < c ? sum : c`
 * exactly (x86's min returns its second operand unless the first is less), so every instance
 * gives the portable kernel's and the oracle's bits. As in kernels.c, the add-min pairs are asm
 * statements so that GCC keeps each add next to its min and the tile in registers (with the
 * intrinsics GCC 12 computes the adds ahead and spills). Tiles: floats and int64 on zmm
 * 6 rows x 4 vectors (24 accumulators, 4 of B's row k, the broadcast and the sum: 30 of 32
 * registers), whose packed panel of B (128 x 64 cells of float32) stays in L1; the 2 x 8 tile
 * before it read a 64 KiB panel from L2 and ran 10-13 % slower on a 16-core Xeon at V = 8000
 * (and no faster on Zen 4: docs/performance.md, "CPU kernels per type"); floats on ymm 6 x 2
 * (12 + 2 + 2: all 16).
 * int64: vpminsq is AVX-512 only; AVX2 compares and blends (vpcmpgtq, vpblendvb), so its tile
 * is 4 x 2 to leave the mask a register. The negative form (kernels_typed.c:
 * relax_negative64) leaves c alone where a term is APSP_INF64, and keeps sums at -APSP_INF64 or
 * above; it is written with intrinsics, a form for the rare graph that needs it. */
#include "base/element_types.h"
#include "cpu/kernels.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define TARGET_AVX512 __attribute__((target("avx512f")))
#define TARGET_AVX2 __attribute__((target("avx2")))
#define RELAX_INLINE static inline __attribute__((always_inline))

/* One add-min in asm: sum = a + b, c = min(sum, c), for the instruction pair and the register
 * class ("v": any of 32 zmm; "x": the 16 ymm that VEX encodes). */
#define ASM_ADD_MIN(add, min, class, c, a, b)                                                      \
    __asm__(add " %[b], %[a], %[sum]\n\t" min " %[c], %[sum], %[c]"                                \
            : [c] "+" class(c), [sum] "=&" class(sum)                                              \
            : [a] class(a), [b] class(b))

TARGET_AVX512 RELAX_INLINE __m512d relax_zmm_f64(__m512d c, __m512d a, __m512d b) {
    __m512d sum;
    ASM_ADD_MIN("vaddpd", "vminpd", "v", c, a, b);
    return c;
}

TARGET_AVX512 RELAX_INLINE __m512 relax_zmm_f32(__m512 c, __m512 a, __m512 b) {
    __m512 sum;
    ASM_ADD_MIN("vaddps", "vminps", "v", c, a, b);
    return c;
}

TARGET_AVX512 RELAX_INLINE __m512i relax_zmm_i64(__m512i c, __m512i a, __m512i b) {
    __m512i sum;
    ASM_ADD_MIN("vpaddq", "vpminsq", "v", c, a, b);
    return c;
}

TARGET_AVX2 RELAX_INLINE __m256d relax_ymm_f64(__m256d c, __m256d a, __m256d b) {
    __m256d sum;
    ASM_ADD_MIN("vaddpd", "vminpd", "x", c, a, b);
    return c;
}

TARGET_AVX2 RELAX_INLINE __m256 relax_ymm_f32(__m256 c, __m256 a, __m256 b) {
    __m256 sum;
    ASM_ADD_MIN("vaddps", "vminps", "x", c, a, b);
    return c;
}

TARGET_AVX2 RELAX_INLINE __m256i relax_ymm_i64(__m256i c, __m256i a, __m256i b) {
    __m256i sum = _mm256_add_epi64(a, b);
    return _mm256_blendv_epi8(c, sum, _mm256_cmpgt_epi64(c, sum));
}

TARGET_AVX512 RELAX_INLINE __m512i relax_zmm_i64_negative(__m512i c, __m512i a, __m512i b) {
    const __m512i inf = _mm512_set1_epi64(APSP_INF64), low = _mm512_set1_epi64(-APSP_INF64);
    __mmask8 finite = _mm512_cmpneq_epi64_mask(a, inf) & _mm512_cmpneq_epi64_mask(b, inf);
    __m512i sum = _mm512_max_epi64(_mm512_add_epi64(a, b), low);
    return _mm512_mask_min_epi64(c, finite, c, sum);
}

TARGET_AVX2 RELAX_INLINE __m256i relax_ymm_i64_negative(__m256i c, __m256i a, __m256i b) {
    const __m256i inf = _mm256_set1_epi64x(APSP_INF64), low = _mm256_set1_epi64x(-APSP_INF64);
    __m256i unreachable = _mm256_or_si256(_mm256_cmpeq_epi64(a, inf), _mm256_cmpeq_epi64(b, inf));
    __m256i sum = _mm256_add_epi64(a, b);
    sum = _mm256_blendv_epi8(sum, low, _mm256_cmpgt_epi64(low, sum));
    __m256i take = _mm256_andnot_si256(unreachable, _mm256_cmpgt_epi64(c, sum));
    return _mm256_blendv_epi8(c, sum, take);
}

/* ---- the instances: one line of parameters each (kernels_vector.h) ---------------------- */

/* AVX2 has no typed integer loads: these take the cells' pointers as the others do. */
TARGET_AVX2 RELAX_INLINE __m256i load_si256(const int64_t *p) {
    return _mm256_load_si256((const __m256i *)p);
}
TARGET_AVX2 RELAX_INLINE __m256i loadu_si256(const int64_t *p) {
    return _mm256_loadu_si256((const __m256i *)p);
}
TARGET_AVX2 RELAX_INLINE void storeu_si256(int64_t *p, __m256i v) {
    _mm256_storeu_si256((__m256i *)p, v);
}

#define TARGET TARGET_AVX512
#define ROWS 6
#define VECS 4
#define CELL double
#define VEC __m512d
#define LANES 8
#define VLOAD _mm512_load_pd
#define VLOADU _mm512_loadu_pd
#define VSTOREU _mm512_storeu_pd
#define VSET1 _mm512_set1_pd
#define VRELAX relax_zmm_f64
#define NAME relax_block_avx512_f64
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX512
#define ROWS 6
#define VECS 4
#define CELL float
#define VEC __m512
#define LANES 16
#define VLOAD _mm512_load_ps
#define VLOADU _mm512_loadu_ps
#define VSTOREU _mm512_storeu_ps
#define VSET1 _mm512_set1_ps
#define VRELAX relax_zmm_f32
#define NAME relax_block_avx512_f32
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX512
#define ROWS 6
#define VECS 4
#define CELL int64_t
#define VEC __m512i
#define LANES 8
#define VLOAD _mm512_load_si512
#define VLOADU _mm512_loadu_si512
#define VSTOREU _mm512_storeu_si512
#define VSET1 _mm512_set1_epi64
#define VRELAX relax_zmm_i64
#define NAME relax_block_avx512_i64
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX512
#define ROWS 4
#define VECS 4
#define CELL int64_t
#define VEC __m512i
#define LANES 8
#define VLOAD _mm512_load_si512
#define VLOADU _mm512_loadu_si512
#define VSTOREU _mm512_storeu_si512
#define VSET1 _mm512_set1_epi64
#define VRELAX relax_zmm_i64_negative
#define NAME relax_block_avx512_i64_negative
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX2
#define ROWS 6
#define VECS 2
#define CELL double
#define VEC __m256d
#define LANES 4
#define VLOAD _mm256_load_pd
#define VLOADU _mm256_loadu_pd
#define VSTOREU _mm256_storeu_pd
#define VSET1 _mm256_set1_pd
#define VRELAX relax_ymm_f64
#define NAME relax_block_avx2_f64
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX2
#define ROWS 6
#define VECS 2
#define CELL float
#define VEC __m256
#define LANES 8
#define VLOAD _mm256_load_ps
#define VLOADU _mm256_loadu_ps
#define VSTOREU _mm256_storeu_ps
#define VSET1 _mm256_set1_ps
#define VRELAX relax_ymm_f32
#define NAME relax_block_avx2_f32
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX2
#define ROWS 4
#define VECS 2
#define CELL int64_t
#define VEC __m256i
#define LANES 4
#define VLOAD load_si256
#define VLOADU loadu_si256
#define VSTOREU storeu_si256
#define VSET1 _mm256_set1_epi64x
#define VRELAX relax_ymm_i64
#define NAME relax_block_avx2_i64
#include "cpu/kernels_vector.h"

#define TARGET TARGET_AVX2
#define ROWS 4
#define VECS 2
#define CELL int64_t
#define VEC __m256i
#define LANES 4
#define VLOAD load_si256
#define VLOADU loadu_si256
#define VSTOREU storeu_si256
#define VSET1 _mm256_set1_epi64x
#define VRELAX relax_ymm_i64_negative
#define NAME relax_block_avx2_i64_negative
#include "cpu/kernels_vector.h"

/* By instruction set (0 AVX-512, 1 AVX2), type and form. */
static const relax_block_fn x86_relax[2][ELEMENT_TYPE_COUNT][2] = {
    {
        [APSP_INT64] = {relax_block_avx512_i64, relax_block_avx512_i64_negative},
        [APSP_FLOAT32] = {relax_block_avx512_f32, relax_block_avx512_f32},
        [APSP_FLOAT64] = {relax_block_avx512_f64, relax_block_avx512_f64},
    },
    {
        [APSP_INT64] = {relax_block_avx2_i64, relax_block_avx2_i64_negative},
        [APSP_FLOAT32] = {relax_block_avx2_f32, relax_block_avx2_f32},
        [APSP_FLOAT64] = {relax_block_avx2_f64, relax_block_avx2_f64},
    },
};

relax_block_fn choose_x86_relax(apsp_dtype dtype, int negative, int isa_rank) {
    if (isa_rank < 0 || isa_rank > 1 || (unsigned)dtype > APSP_FLOAT64)
        return NULL;
    return x86_relax[isa_rank][dtype][negative != 0];
}
#else
relax_block_fn choose_x86_relax(apsp_dtype dtype, int negative, int isa_rank) {
    (void)dtype, (void)negative, (void)isa_rank;
    return NULL;
}
#endif
