/* One probe of tests/bench/ceiling.c, instantiated there per element type and instruction set.
 * Define before including:
 *
 *   NAME, TARGET     the int32_t NAME(int32_t seed, uint64_t iterations) to define, its target
 *   CELL, VEC        the element type and the vector
 *   SET1(x), STOREU(p, v)   broadcast, unaligned store
 *   ADD(a, b), MIN(c, sum)  the relaxation c = MIN(c, ADD(a, b)) as the kernel computes it
 *   REG              the asm register class: "x" (ymm, VEX) or "v" (any zmm)
 *   ROWS             2 (2 x 4 accumulators, AVX2's 16 registers) or 4 (4 x 4, AVX-512's 32)
 *
 * Every parameter is undefined at the end, ready for the next instance. Named variables rather
 * than arrays: with arrays GCC 12 keeps the accumulators on the stack. */
#if !defined(NAME) || !defined(TARGET) || !defined(CELL) || !defined(VEC) || !defined(SET1) ||     \
    !defined(STOREU) || !defined(ADD) || !defined(MIN) || !defined(REG) || !defined(ROWS)
#error "define every parameter before including ceiling_probe.h"
#endif

/* One relaxation of an accumulator, pinned to its register right after (the header of
 * ceiling.c says why). */
#define PROBE_RELAX(c, a, b)                                                                       \
    c = MIN(c, ADD(a, b));                                                                         \
    __asm__ volatile("" : "+" REG(c))
#define PROBE_ROW(r)                                                                               \
    PROBE_RELAX(c##r##0, a##r, b0);                                                                \
    PROBE_RELAX(c##r##1, a##r, b1);                                                                \
    PROBE_RELAX(c##r##2, a##r, b2);                                                                \
    PROBE_RELAX(c##r##3, a##r, b3)
#define PROBE_LEAST(m, r) m = MIN(MIN(MIN(MIN(m, c##r##0), c##r##1), c##r##2), c##r##3)

TARGET static int32_t NAME(int32_t seed, uint64_t iterations) {
    const CELL s = (CELL)seed;
    VEC a0 = SET1(s), a1 = SET1(s + 1), b0 = SET1(s + 2), b1 = SET1(s + 3);
    VEC b2 = SET1(s + 4), b3 = SET1(s + 5);
    VEC c00 = ADD(a0, a0), c01 = ADD(a0, a1), c02 = ADD(a0, b0), c03 = ADD(a0, b1);
    VEC c10 = ADD(a1, b2), c11 = ADD(a1, b3), c12 = ADD(a1, a1), c13 = ADD(a1, b0);
#if ROWS == 4
    VEC a2 = SET1(s + 6), a3 = SET1(s + 7);
    VEC c20 = ADD(a2, a2), c21 = ADD(a2, a3), c22 = ADD(a2, b0), c23 = ADD(a2, b1);
    VEC c30 = ADD(a3, b2), c31 = ADD(a3, b3), c32 = ADD(b0, b0), c33 = ADD(b1, b1);
#endif
    for (uint64_t it = 0; it < iterations; it++) {
        __asm__ volatile(""
                         : "+" REG(a0), "+" REG(a1), "+" REG(b0), "+" REG(b1), "+" REG(b2),
                           "+" REG(b3));
        PROBE_ROW(0);
        PROBE_ROW(1);
#if ROWS == 4
        __asm__ volatile("" : "+" REG(a2), "+" REG(a3));
        PROBE_ROW(2);
        PROBE_ROW(3);
#endif
    }
    VEC m = c00;
    PROBE_LEAST(m, 0);
    PROBE_LEAST(m, 1);
#if ROWS == 4
    PROBE_LEAST(m, 2);
    PROBE_LEAST(m, 3);
#endif
    CELL out[sizeof(VEC) / sizeof(CELL)];
    STOREU(out, m);
    CELL least = out[0];
    for (size_t i = 1; i < sizeof out / sizeof out[0]; i++)
        least = out[i] < least ? out[i] : least;
    return (int32_t)least;
}

#undef PROBE_RELAX
#undef PROBE_ROW
#undef PROBE_LEAST
#undef NAME
#undef TARGET
#undef CELL
#undef VEC
#undef SET1
#undef STOREU
#undef ADD
#undef MIN
#undef REG
#undef ROWS
