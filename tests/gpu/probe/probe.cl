/* Ceiling probe: the relaxation c = min(c, a + b) of fw_phase3's inner step, without the rest of
 * the kernel. Each work-item holds an M x M tile of c in registers and, per step, reads M values
 * of a and M of b from local memory (the same address across the work-group: a broadcast, as
 * in fw_phase3's k-loop), then relaxes all M x M cells. Nothing else is in the loop, so
 * relaxations per second here are what the kernel could reach if staging, the barriers and the
 * phases 1-2 cost nothing. Defines (tests/gpu/probe/probe.c sets them):
 *   DIST   int, long, float or double
 *   FORM   0: min(c, a + b) (the integer kernels); 1: fmin(c, a + b) (the GPU float kernels);
 *          2: a + b < c ? a + b : c (the CPU float kernels, and the GPU ones before fmin)
 *   M      the register tile's side (fw_phase3's THREAD_ROWS = THREAD_COLS)
 *   LOCAL  1: a and b from local memory, as above; 0: a and b stay in registers, a lowered by 1
 *          each step so that no sum is loop-invariant (M additions per M x M relaxations, not
 *          counted): the register ceiling, above what any kernel that stages its operands can
 *          reach */
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define STEPS 16 /* distinct k-steps in local memory: the loads cannot be hoisted */

#if FORM == 0
#define RELAX(c, a, b) min((c), (a) + (b))
#elif FORM == 1
#define RELAX(c, a, b) fmin((c), (a) + (b))
#else
#define RELAX(c, a, b) ((a) + (b) < (c) ? (a) + (b) : (c))
#endif

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void probe(__global DIST *out,
                                                                     int iterations) {
    __local DIST steps[STEPS][2 * M];
    const int lid = get_local_id(0);
    for (int e = lid; e < STEPS * 2 * M; e += 256)
        steps[e / (2 * M)][e % (2 * M)] = (DIST)((e * 7 + (int)get_group_id(0)) & 1023);
    barrier(CLK_LOCAL_MEM_FENCE);
    DIST c[M][M];
#pragma unroll
    for (int y = 0; y < M; y++)
#pragma unroll
        for (int x = 0; x < M; x++)
            c[y][x] = (DIST)((1 << 20) + y * M + x + lid);
    DIST a[M], b[M];
#pragma unroll
    for (int y = 0; y < M; y++) {
        a[y] = steps[lid & (STEPS - 1)][y];
        b[y] = steps[lid & (STEPS - 1)][M + y];
    }
    for (int t = 0; t < iterations; t++) {
#if LOCAL
        __local const DIST *step = steps[t & (STEPS - 1)];
#pragma unroll
        for (int y = 0; y < M; y++) {
            a[y] = step[y];
            b[y] = step[M + y];
        }
#endif
#pragma unroll
        for (int y = 0; y < M; y++)
#pragma unroll
            for (int x = 0; x < M; x++)
                c[y][x] = RELAX(c[y][x], a[y], b[x]);
#if !LOCAL
#pragma unroll
        for (int y = 0; y < M; y++)
            a[y] -= (DIST)1;
#endif
    }
    DIST sum = 0;
#pragma unroll
    for (int y = 0; y < M; y++)
#pragma unroll
        for (int x = 0; x < M; x++)
            sum += c[y][x];
    out[get_global_id(0)] = sum;
}
