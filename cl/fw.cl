/* Blocked Floyd-Warshall: the three phases of one round, the column-panel copy and the padding.
 *
 * The host (src/opencl/, device.h) keeps the padded n x n distance matrix as row bands, one
 * buffer each (row pitch n), and two pairs of panel buffers, all TILE x n with pitch n:
 *   row panel: the TILE pivot rows: row panel[k][j] = d(p + k, j);
 *   col panel: the TILE pivot columns, transposed: col panel[k][i] = d(i, p + k);
 * with p = r * TILE the first pivot row and column of round r. Round r uses pair r % 2; round 0's
 * panels are copied from the bands (a buffer copy, and fw_transpose once per band), every later
 * round's are written by the phase 3 before it. Round r runs
 *   fw_phase1: closes the pivot block P (Floyd-Warshall inside it), held in registers; writes
 *              it to the row panel and, transposed, to the col panel;
 *   fw_phase2: one launch over the other blocks of the pivot row, in the row panel: C = P (x) C,
 *              with (x) the min-plus product (P is closed, so this equals the k-ordered update
 *              and needs no barrier per k);
 *   fw_phase3: once per band, C = min(C, A (x) B) over every block of the band, A from the col
 *              panel and B from the row panel: a min-plus GEMM; the work-groups that hold the
 *              next round's pivot rows or columns also write them to the other pair of panels.
 * Why the pivot column needs no phase 2: its update would be A' = A (x) P, and phase 3 would use
 * A' (x) B = A (x) (P (x) B) = A (x) B, because P (x) B = B (P is closed and B was multiplied by
 * P in phase 2). On the pivot column itself phase 3 gives min(A, A (x) P) = A', and on the pivot
 * rows min(B_old, P (x) B) = B (P has a zero diagonal and P (x) B = B; the col panel holds the
 * closed P in the pivot rows). So phase 3 relaxes every block of every band, the pivot row and
 * column included, and nothing is copied back.
 * Streaming from host memory (src/opencl/stream.c) keeps a super-round's K pivot rows as a
 * K x n buffer shaped like the row panel, closes it with the rounds above, and relaxes each block
 * of streamed rows with
 *   fw_stream: C = min(C, A (x) B), fw_phase3's product K deep (K a runtime argument), B the
 *              closed pivot rows and A the block's own pivot columns before it (fw_transpose
 *              copies them k-major): they need no closing, for the reason just given.
 * Both panels are k-major, so phase 3 stages A and B alike: rows of k, VECTOR elements at a time,
 * coalesced in global memory and without bank conflicts in local memory.
 * Distances are DIST: int by default (int32), long (int64), float or double (FLOAT_DIST = 1).
 * For the integers, with weights >= 0 and unreachable = INF (2^30 - 1 for int, 2^62 - 1 for
 * long), a + b never overflows. A graph with a negative weight is built with NEGATIVE = 1 (the
 * host sets it from the weights): every min(c, a + b) then takes the negative form RELAX, which
 * never lets INF absorb a negative weight and keeps sums at -INF or above (a negative cycle could
 * otherwise drive them to overflow; the host finds the cycle on the diagonal afterwards). Values
 * stay in [-INF, INF].
 * Floating-point distances use INF = +inf, which absorbs every finite sum, so they need no
 * negative form; each sum is rounded once, so the result depends only on which two values meet:
 * every kernel keeps the data flow above (the pthread backend and tests/support/oracle_typed.h follow
 * the same), and the step is a plain add and compare, never fused or reassociated.
 */

/* Every parameter is a -D define from the host's kernel_defines (src/opencl/params.c): one for
 * each entry of the tunable parameters' list, src/opencl/param_list.h, which alone names them
 * with their meaning and range (`apsp --kernel-params=help` lists them), then the fixed sizes
 * CPU_ROWS, CPU_COLS (CPU kernels: micro-tiles of CPU_ROWS x CPU_COLS cells), COPY_EDGE
 * (fw_transpose: work-groups of COPY_EDGE x COPY_EDGE) and INF (the unreachable distance); DIST
 * and FLOAT_DIST only for the types other than int32, whose build options stay as they were.
 * Since one expansion of the list writes them all, what is checked here is only that the
 * program was built with kernel_defines' options: without them a parameter tested by #if alone
 * would silently read as 0. */
#if !defined(CPU_ROWS) || !defined(INF)
#error "build with the -D defines of src/opencl/params.c: kernel_defines"
#endif
#ifndef NEGATIVE
#define NEGATIVE                                                                                   \
    0 /* set by the host (src/opencl/program.c) only for a graph with negative weights */
#endif
#ifndef DIST
#define DIST int /* the distance type (src/opencl/params.c: kernel_defines) */
#define INT32_DIST 1
#else
#define INT32_DIST 0
#endif
#ifndef FLOAT_DIST
#define FLOAT_DIST 0
#endif
#if FLOAT_DIST && NEGATIVE
#error "the floating-point kernels have no negative form: +inf absorbs every finite sum"
#endif
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* DIST's vector types: VEC(DIST, 4) is int4, long4, float4 or double4. */
#define VEC_PASTE(type, width) type##width
#define VEC(type, width) VEC_PASTE(type, width)
#define DIST16 VEC(DIST, 16)

/* c = min(c, a + b), the step of every kernel. The negative form takes a + b only when neither
 * term is INF (else INF or more, which min ignores) and never below -INF; branch-free, with the
 * floors of a and b, INF or -INF, which the compiler computes once per operand. RELAX16 is the
 * same on DIST16 vectors (the CPU kernels).
 * The floating-point step: the CPU kernels compare and select, as the pthread backend does
 * (x86's minps is exactly that); the GPU kernels for float32 take fmin (FLOAT_FMIN), one
 * instruction on NVIDIA (FMNMX) where compare and select are two. The two agree on every value the solve
 * meets: they differ only when c is NaN, which no step ever stores (a sum -inf + inf, only
 * after a negative cycle, is NaN, and both keep c then), or between -0 and +0, and no -0 is
 * ever met: the solver turns -0 weights into +0 before any backend sees them, and a sum of two
 * values is -0 only when both are. */
#if FLOAT_DIST
#ifndef FLOAT_FMIN /* measured on an H100: float32 7.3 -> 12.0 T relax/s with fmin, float64 */
#if CPU_KERNELS || defined(FP64) /* 4.5 -> 1.8 T: its compare and select is faster */
#define FLOAT_FMIN 0
#else
#define FLOAT_FMIN 1
#endif
#endif
inline DIST relax_float(DIST c, DIST a, DIST b) {
    const DIST s = a + b;
#if FLOAT_FMIN
    return fmin(c, s);
#else
    return s < c ? s : c;
#endif
}
inline DIST16 relax_float16(DIST16 c, DIST16 a, DIST16 b) {
    const DIST16 s = a + b;
    return select(c, s, s < c);
}
#define RELAX(c, a, b) relax_float((c), (a), (b))
#define RELAX16(c, a, b) relax_float16((c), (a), (b))
#elif NEGATIVE == 1
#define FLOOR_OF(x) ((x) == INF ? INF : -INF)
#define RELAX(c, a, b) min((c), max((a) + (b), max(FLOOR_OF(a), FLOOR_OF(b))))
#define FLOOR16_OF(x) select((DIST16)(-INF), (DIST16)(INF), (x) == (DIST16)(INF))
#define RELAX16(c, a, b) min((c), max((a) + (b), max(FLOOR16_OF(a), FLOOR16_OF(b))))
#else
#define RELAX(c, a, b) min((c), (a) + (b))
#define RELAX16(c, a, b) min((c), (a) + (b))
#endif

/* The bounded negative form (NEGATIVE = 2), which the host picks for one device holding the
 * whole matrix when the weights are small enough: (V + n - 1) * |w| < INF. Phases 2 and 3 then
 * keep the plain add-min, letting INF absorb a negative weight: INF is just a very long edge, and
 * the solve finds the exact shortest paths of the complete graph whose missing edges weigh INF.
 * A real path is at most (V - 1) |w| long, one over a missing edge at least INF - (V - 2) |w|,
 * so the two stay apart, and fw_unreachable turns every distance above the bound (V - 1) |w|
 * back into INF at the end. Every value is the length of a walk between -INF and INF, and the
 * sum of two never overflows, as long as no negative cycle is met: phase 1 closes the pivot block
 * in the exact negative form (PIVOT_RELAX), and when its diagonal comes out negative (the first
 * negative cycle is closed in the round of its highest vertex) records the vertex in *cycle and
 * hands on a pivot block of INF instead, so that no later step walks around the cycle; the host
 * then reports the cycle. */
#if NEGATIVE == 2 && !FLOAT_DIST
#define PIVOT_RELAX(c, a, b) min((c), max((a) + (b), max(FLOOR_OF_PIVOT(a), FLOOR_OF_PIVOT(b))))
#define FLOOR_OF_PIVOT(x) ((x) == INF ? INF : -INF)
#else
#define PIVOT_RELAX(c, a, b) RELAX(c, a, b)
#endif

/* Derived sizes. */
#define PIVOT_CELLS (TILE / PIVOT_ITEMS)        /* cells per work-item and side, phases 1-2 */
#define PIVOT_GROUP (PIVOT_ITEMS * PIVOT_ITEMS) /* work-items per phase 1-2 work-group */
#define SLAB (TILE / PIVOT_SPLIT)               /* phase 2: columns per work-group */
#define SLAB_CELLS (PIVOT_CELLS / PIVOT_SPLIT)  /* phase 2: columns per work-item */
#define BLOCK_ROWS (GROUP_ROWS * THREAD_ROWS)   /* phase-3 output block height */
#define BLOCK_COLS (GROUP_COLS * THREAD_COLS)   /* phase-3 output block width */
#define GROUP_SIZE (GROUP_ROWS * GROUP_COLS)    /* work-items per phase-3 work-group */
#define ROW_VECTORS (BLOCK_ROWS / VECTOR)       /* vectors across a phase-3 block's rows */
#define COL_VECTORS (BLOCK_COLS / VECTOR)       /* vectors across a phase-3 block's columns */
#define CHUNK_VECTORS (K_CHUNK * (ROW_VECTORS > COL_VECTORS ? ROW_VECTORS : COL_VECTORS))
#define STAGE_STEPS ((CHUNK_VECTORS + GROUP_SIZE - 1) / GROUP_SIZE) /* staging loads per item */
#define STAGES (PREFETCH ? 2 : 1)                                   /* phase-3 local buffers */

#if TILE % PIVOT_ITEMS != 0 || TILE % K_CHUNK != 0
#error "TILE must be a multiple of PIVOT_ITEMS and of K_CHUNK"
#endif
#if PIVOT_CELLS % PIVOT_SPLIT != 0
#error "PIVOT_SPLIT must divide TILE / PIVOT_ITEMS"
#endif
#if K_CHUNK % K_UNROLL != 0
#error "K_UNROLL must divide K_CHUNK"
#endif
#if THREAD_ROWS % VECTOR != 0 || THREAD_COLS % VECTOR != 0
#error "VECTOR must divide THREAD_ROWS and THREAD_COLS"
#endif

/* vdist: VECTOR distances; VSPLIT stores one into dst[o .. o + VECTOR - 1], VJOIN makes one from
 * src[o .. o + VECTOR - 1]. */
#if VECTOR == 4
typedef VEC(DIST, 4) vdist;
#define VSPLIT(v, dst, o)                                                                          \
    ((dst)[(o)] = (v).s0, (dst)[(o) + 1] = (v).s1, (dst)[(o) + 2] = (v).s2, (dst)[(o) + 3] = (v).s3)
#define VJOIN(src, o) ((vdist)((src)[(o)], (src)[(o) + 1], (src)[(o) + 2], (src)[(o) + 3]))
#elif VECTOR == 2
typedef VEC(DIST, 2) vdist;
#define VSPLIT(v, dst, o) ((dst)[(o)] = (v).s0, (dst)[(o) + 1] = (v).s1)
#define VJOIN(src, o) ((vdist)((src)[(o)], (src)[(o) + 1]))
#elif VECTOR == 1
typedef DIST vdist;
#define VSPLIT(v, dst, o) ((dst)[(o)] = (v))
#define VJOIN(src, o) ((src)[(o)])
#else
#error "VECTOR must be 1, 2 or 4"
#endif

/* dst[k * dst_pitch + i] = src[i * src_pitch + k] for every k and row i of the launch: global
 * size (rows, columns), both multiples of COPY_EDGE, the strip starting at src + src_offset, the
 * panel at dst + dst_offset. Local memory turns the reads along k into writes along i. The rounds
 * take each band's pivot columns into the col panel with it (src_offset the pivot's column,
 * dst_offset the band's first row); streaming a block's pivot columns (fw_stream's A); apsp-mpi's
 * ranks their panels (cl/mpi.cl). */
__kernel __attribute__((reqd_work_group_size(COPY_EDGE, COPY_EDGE, 1))) void
fw_transpose(__global const DIST *src, ulong src_offset, int src_pitch, __global DIST *dst,
             ulong dst_offset, int dst_pitch) {
    __local DIST part[COPY_EDGE][COPY_EDGE + 1];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const size_t i0 = get_group_id(0) * (size_t)COPY_EDGE;
    const size_t k0 = get_group_id(1) * (size_t)COPY_EDGE;
    part[ly][lx] = src[src_offset + (i0 + ly) * src_pitch + k0 + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[dst_offset + (k0 + ly) * dst_pitch + i0 + lx] = part[lx][ly];
}

/* Phase 1: Floyd-Warshall inside the pivot block, one work-group. Each work-item keeps its
 * PIVOT_CELLS x PIVOT_CELLS cells (ty + a * PIVOT_ITEMS, tx + b * PIVOT_ITEMS) in registers; at
 * step k the owners of row k and of column k publish them in local memory, double-buffered by
 * the parity of k so that one barrier per step suffices. Splitting k into a * PIVOT_ITEMS + t,
 * with a unrolled, keeps every register index a compile-time constant. */
__kernel __attribute__((reqd_work_group_size(PIVOT_ITEMS, PIVOT_ITEMS, 1))) void
fw_phase1(__global DIST *row_panel, __global DIST *col_panel, int n, int r,
          __global int *cycle) {
    __local DIST row_k[2][TILE], col_k[2][TILE];
    const int tx = get_local_id(0), ty = get_local_id(1);
#if NEGATIVE == 2
    __local int cycle_here; /* some diagonal cell of the closed block is negative */
    if (tx == 0 && ty == 0)
        cycle_here = 0; /* the barriers of the closure publish it */
#else
    (void)cycle;
#endif
    __global DIST *pivot = row_panel + r * TILE; /* pitch n */

    DIST cell[PIVOT_CELLS][PIVOT_CELLS];
#pragma unroll
    for (int a = 0; a < PIVOT_CELLS; a++)
#pragma unroll
        for (int b = 0; b < PIVOT_CELLS; b++)
            cell[a][b] = pivot[(ty + a * PIVOT_ITEMS) * n + tx + b * PIVOT_ITEMS];
#pragma unroll
    for (int a = 0; a < PIVOT_CELLS; a++) {
        for (int t = 0; t < PIVOT_ITEMS; t++) {
            const int k = a * PIVOT_ITEMS + t, buf = k & 1;
            /* Row k and column k do not change at step k (d(k,k) = 0). */
            if (ty == t)
#pragma unroll
                for (int b = 0; b < PIVOT_CELLS; b++)
                    row_k[buf][tx + b * PIVOT_ITEMS] = cell[a][b];
            if (tx == t)
#pragma unroll
                for (int b = 0; b < PIVOT_CELLS; b++)
                    col_k[buf][ty + b * PIVOT_ITEMS] = cell[b][a];
            barrier(CLK_LOCAL_MEM_FENCE);
            DIST rk[PIVOT_CELLS], ck[PIVOT_CELLS];
#pragma unroll
            for (int b = 0; b < PIVOT_CELLS; b++) {
                rk[b] = row_k[buf][tx + b * PIVOT_ITEMS];
                ck[b] = col_k[buf][ty + b * PIVOT_ITEMS];
            }
#pragma unroll
            for (int i = 0; i < PIVOT_CELLS; i++)
#pragma unroll
                for (int j = 0; j < PIVOT_CELLS; j++)
                    cell[i][j] = PIVOT_RELAX(cell[i][j], ck[i], rk[j]);
        }
    }
#if NEGATIVE == 2
#pragma unroll
    for (int a = 0; a < PIVOT_CELLS; a++)
#pragma unroll
        for (int b = 0; b < PIVOT_CELLS; b++) {
            const int i = ty + a * PIVOT_ITEMS, j = tx + b * PIVOT_ITEMS;
            if (i == j && cell[a][b] < 0) {
                atomic_or(&cycle_here, 1);
                atomic_min(cycle, r * TILE + i);
            }
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (cycle_here)
#pragma unroll
        for (int a = 0; a < PIVOT_CELLS; a++)
#pragma unroll
            for (int b = 0; b < PIVOT_CELLS; b++)
                cell[a][b] = INF;
#endif
    __global DIST *pivot_t = col_panel + r * TILE; /* pitch n, transposed */
#pragma unroll
    for (int a = 0; a < PIVOT_CELLS; a++)
#pragma unroll
        for (int b = 0; b < PIVOT_CELLS; b++) {
            const int i = ty + a * PIVOT_ITEMS, j = tx + b * PIVOT_ITEMS;
            pivot[i * n + j] = cell[a][b];
            pivot_t[j * n + i] = cell[a][b];
        }
}

#if CPU_KERNELS

/* The CPU kernels (CPU_KERNELS = 1). An OpenCL CPU compiler spreads the work-items of a
 * work-group over SIMD lanes only when it can; these kernels instead give each work-item a whole
 * slab or block and write the SIMD themselves, with 16-wide vectors: CPU_ROWS x CPU_COLS cells of
 * C stay in registers while k runs over the round, as in the pthread backend's micro-kernel.
 * No local memory: the CPU's caches hold the panels. */

/* C(rows, cols) = min(C, A (x) B) for CPU_ROWS rows and CPU_COLS columns over `depth` k-steps
 * (TILE in the rounds); A is k-major (pitch a_pitch: A(y, k) = a[k * a_pitch + y]) and B
 * row-major (pitch b_pitch). */
#define CPU_MICRO_TILE(c, c_pitch, a, a_pitch, b, b_pitch)                                         \
    CPU_MICRO_TILE_DEPTH(c, c_pitch, a, a_pitch, b, b_pitch, TILE)
#define CPU_MICRO_TILE_DEPTH(c, c_pitch, a, a_pitch, b, b_pitch, depth)                            \
    do {                                                                                           \
        DIST16 lo[CPU_ROWS], hi[CPU_ROWS];                                                         \
        _Pragma("unroll") for (int y = 0; y < CPU_ROWS; y++) {                                     \
            lo[y] = vload16(0, (c) + y * (c_pitch));                                               \
            hi[y] = vload16(1, (c) + y * (c_pitch));                                               \
        }                                                                                          \
        for (int k = 0; k < (depth); k++) {                                                        \
            const DIST16 b_lo = vload16(0, (b) + k * (b_pitch));                                   \
            const DIST16 b_hi = vload16(1, (b) + k * (b_pitch));                                   \
            _Pragma("unroll") for (int y = 0; y < CPU_ROWS; y++) {                                 \
                const DIST16 ay = (DIST16)((a)[k * (a_pitch) + y]);                                \
                lo[y] = RELAX16(lo[y], ay, b_lo);                                                  \
                hi[y] = RELAX16(hi[y], ay, b_hi);                                                  \
            }                                                                                      \
        }                                                                                          \
        _Pragma("unroll") for (int y = 0; y < CPU_ROWS; y++) {                                     \
            vstore16(lo[y], 0, (c) + y * (c_pitch));                                               \
            vstore16(hi[y], 1, (c) + y * (c_pitch));                                               \
        }                                                                                          \
    } while (0)

/* Phase 2: one work-item per CPU_COLS-wide slab of the pivot rows (outside the pivot block),
 * C = min(C, P (x) C) with P read k-major from the col panel, on a private copy of the slab
 * because every output row reads every row of it. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
fw_phase2(__global DIST *row_panel, __global const DIST *col_panel, int n, int r) {
    const int j = get_group_id(0) * CPU_COLS;
    if (j / TILE == r)
        return;                       /* the pivot block itself, final after phase 1 */
    __global DIST *c = row_panel + j; /* pitch n */
    DIST old[TILE * CPU_COLS];
    for (int k = 0; k < TILE; k++) {
        vstore16(vload16(0, c + k * n), 0, old + k * CPU_COLS);
        vstore16(vload16(1, c + k * n), 1, old + k * CPU_COLS);
    }
    __global const DIST *pivot_t = col_panel + r * TILE; /* P(i, k) = pivot_t[k * n + i] */
    for (int i = 0; i < TILE; i += CPU_ROWS)
        CPU_MICRO_TILE(c + i * n, n, pivot_t + i, n, old, CPU_COLS);
}

/* Phase 3: one work-item per BLOCK_ROWS x BLOCK_COLS block of a band, in micro-tiles; the rows
 * and columns of the next round's pivot also go to the next round's panels, as in the
 * work-group version below. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
fw_phase3(__global DIST *band, __global const DIST *col_panel, __global const DIST *row_panel,
          int n, int row0, __global DIST *next_col_panel, __global DIST *next_row_panel, int next) {
    const int i0 = get_group_id(1) * BLOCK_ROWS; /* band-relative */
    const int j0 = get_group_id(0) * BLOCK_COLS;
    for (int j = j0; j < j0 + BLOCK_COLS; j += CPU_COLS)
        for (int i = i0; i < i0 + BLOCK_ROWS; i += CPU_ROWS)
            CPU_MICRO_TILE(band + (size_t)i * n + j, n, col_panel + row0 + i, n, row_panel + j, n);
    if (next < 0)
        return;
    for (int i = i0; i < i0 + BLOCK_ROWS; i++) {
        const int k = row0 + i - next; /* a next pivot row */
        if (k >= 0 && k < TILE)
            for (int j = j0; j < j0 + BLOCK_COLS; j++)
                next_row_panel[k * n + j] = band[(size_t)i * n + j];
    }
    for (int j = j0; j < j0 + BLOCK_COLS; j++) {
        const int k = j - next; /* a next pivot column */
        if (k >= 0 && k < TILE)
            for (int i = i0; i < i0 + BLOCK_ROWS; i++)
                next_col_panel[k * n + row0 + i] = band[(size_t)i * n + j];
    }
}

/* Streaming from host memory: C = min(C, A (x) B) over one block of streamed rows, A the block's
 * own pivot columns as they came (k-major, pitch columns_pitch) and B the super-round's closed
 * K x n pivot rows, `depth` = K k-steps deep; blocks as in fw_phase3. k indexes the panels in
 * int, as in the rounds: K x n stays below 2^31. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
fw_stream(__global DIST *band, __global const DIST *columns, __global const DIST *row_panel,
          int n, int columns_pitch, int depth) {
    const int i0 = get_group_id(1) * BLOCK_ROWS; /* band-relative */
    const int j0 = get_group_id(0) * BLOCK_COLS;
    for (int j = j0; j < j0 + BLOCK_COLS; j += CPU_COLS)
        for (int i = i0; i < i0 + BLOCK_ROWS; i += CPU_ROWS)
            CPU_MICRO_TILE_DEPTH(band + (size_t)i * n + j, n, columns + i, columns_pitch,
                                 row_panel + j, n, depth);
}

#else /* the work-group kernels, for GPUs */

/* Phase 2: the pivot row blocks, C = P (x) C, P read transposed from the col panel. Each
 * output column depends only on the same column of C, so a block is split into PIVOT_SPLIT slabs
 * of SLAB columns, one per work-group (group index t * PIVOT_SPLIT + slab along dimension 0):
 * more, shorter work-groups for this step that nothing overlaps. Each slab is both an input and
 * the output; the work-group reads all of it into local memory before writing any of it. */
__kernel __attribute__((reqd_work_group_size(PIVOT_ITEMS, PIVOT_ITEMS, 1))) void
fw_phase2(__global DIST *row_panel, __global const DIST *col_panel, int n, int r) {
    __local DIST p_part[K_CHUNK][TILE]; /* P(i, k0 + k), transposed: [k][i] */
    __local DIST c_part[K_CHUNK][SLAB]; /* C(k0 + k, j) */
    const int t = get_group_id(0) / PIVOT_SPLIT, slab = get_group_id(0) % PIVOT_SPLIT;
    if (t == r)
        return; /* the pivot block itself, final after phase 1 (uniform per work-group) */
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * PIVOT_ITEMS + tx;
    __global const DIST *pivot_t = col_panel + r * TILE;   /* pitch n */
    __global DIST *c = row_panel + t * TILE + slab * SLAB; /* pitch n */

    DIST acc[PIVOT_CELLS][SLAB_CELLS];
#pragma unroll
    for (int y = 0; y < PIVOT_CELLS; y++)
#pragma unroll
        for (int x = 0; x < SLAB_CELLS; x++)
            acc[y][x] = c[(ty + y * PIVOT_ITEMS) * n + tx + x * PIVOT_ITEMS];
    for (int k0 = 0; k0 < TILE; k0 += K_CHUNK) {
        for (int e = lid; e < TILE * K_CHUNK; e += PIVOT_GROUP)
            p_part[e / TILE][e % TILE] = pivot_t[(k0 + e / TILE) * n + e % TILE];
        for (int e = lid; e < SLAB * K_CHUNK; e += PIVOT_GROUP)
            c_part[e / SLAB][e % SLAB] = c[(k0 + e / SLAB) * n + e % SLAB];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 4
        for (int k = 0; k < K_CHUNK; k++) {
            DIST pv[PIVOT_CELLS], cv[SLAB_CELLS];
#pragma unroll
            for (int y = 0; y < PIVOT_CELLS; y++)
                pv[y] = p_part[k][ty + y * PIVOT_ITEMS];
#pragma unroll
            for (int x = 0; x < SLAB_CELLS; x++)
                cv[x] = c_part[k][tx + x * PIVOT_ITEMS];
#pragma unroll
            for (int y = 0; y < PIVOT_CELLS; y++)
#pragma unroll
                for (int x = 0; x < SLAB_CELLS; x++)
                    acc[y][x] = RELAX(acc[y][x], pv[y], cv[x]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* The slab is read above by other work-items than write it below, and the loop's barriers
     * order local memory only: without this one the reads and writes of C race (Oclgrind's
     * --data-races, tests/opencl/oclgrind.py; docs/reliability.md). */
    barrier(CLK_GLOBAL_MEM_FENCE);
#pragma unroll
    for (int y = 0; y < PIVOT_CELLS; y++)
#pragma unroll
        for (int x = 0; x < SLAB_CELLS; x++)
            c[(ty + y * PIVOT_ITEMS) * n + tx + x * PIVOT_ITEMS] = acc[y][x];
}

/* Phase 3 on one band: a min-plus GEMM, C = min(C, A (x) B), one BLOCK_ROWS x BLOCK_COLS output
 * block per work-group (group dimension 0: block column, 1: block row within the band).
 *
 * Each work-item keeps THREAD_ROWS x THREAD_COLS outputs in registers. Its rows come in runs of
 * VECTOR: run g is rows g * GROUP_ROWS * VECTOR + ty * VECTOR + (0 .. VECTOR - 1), and its
 * columns likewise with tx, so that one vector load from local memory gives VECTOR rows (or
 * columns) and neighbouring work-items read neighbouring vectors: no bank conflicts, and the
 * work-items of a row share (broadcast) their A vector. K_CHUNK-deep slices of both panels pass
 * through local memory, k-major like the panels. row0 is the band's first row in the matrix. */
#define ROW_OF(y) (((y) / VECTOR) * GROUP_ROWS * VECTOR + ty * VECTOR + (y) % VECTOR)
#define COLV_OF(h) ((h)*GROUP_COLS + tx) /* column vector h of this work-item */
#define ROWV_OF(g) ((g)*GROUP_ROWS + ty) /* row vector g of this work-item */
/* The chunk of both panels from k-step k1 into this work-item's registers a_next and b_next:
 * its share of the K_CHUNK x ROW_VECTORS vectors of A and K_CHUNK x COL_VECTORS of B. */
#define LOAD_CHUNK(k1)                                                                             \
    do {                                                                                           \
        _Pragma("unroll") for (int s = 0; s < STAGE_STEPS; s++) {                                  \
            const int e = lid + s * GROUP_SIZE;                                                    \
            if (e < K_CHUNK * ROW_VECTORS)                                                         \
                a_next[s] = a[((k1) + e / ROW_VECTORS) * a_pitch + e % ROW_VECTORS];               \
            if (e < K_CHUNK * COL_VECTORS)                                                         \
                b_next[s] = b[((k1) + e / COL_VECTORS) * nv + e % COL_VECTORS];                    \
        }                                                                                          \
    } while (0)

/* acc = min(acc, A (x) B) over one staged chunk, A and B k-major in local memory. K_UNROLL
 * k-steps are unrolled at a time: the whole chunk by default; fewer keep the loop body within
 * the instruction cache. */
void multiply_chunk(DIST acc[THREAD_ROWS][THREAD_COLS], __local const vdist *ap,
                    __local const vdist *bp, const int tx, const int ty) {
#pragma unroll 1
    for (int k0 = 0; k0 < K_CHUNK; k0 += K_UNROLL) {
#pragma unroll
        for (int u = 0; u < K_UNROLL; u++) {
            const int k = k0 + u;
            DIST av[THREAD_ROWS], bv[THREAD_COLS];
#pragma unroll
            for (int g = 0; g < THREAD_ROWS / VECTOR; g++) {
                const vdist v = ap[k * ROW_VECTORS + ROWV_OF(g)];
                VSPLIT(v, av, g * VECTOR);
            }
#pragma unroll
            for (int h = 0; h < THREAD_COLS / VECTOR; h++) {
                const vdist v = bp[k * COL_VECTORS + COLV_OF(h)];
                VSPLIT(v, bv, h * VECTOR);
            }
#pragma unroll
            for (int y = 0; y < THREAD_ROWS; y++)
#pragma unroll
                for (int x = 0; x < THREAD_COLS; x++)
                    acc[y][x] = RELAX(acc[y][x], av[y], bv[x]);
        }
    }
}

/* The cells of a finished block (first row r0, first column vector j0) that lie in the next
 * round's pivot rows (from row `next`) or pivot columns, into the next round's panels. */
void write_next_panels(DIST acc[THREAD_ROWS][THREAD_COLS], const int r0, const int j0, const int nv,
                       const int next, __global DIST *next_col_panel,
                       __global vdist *next_row_panel, const int tx, const int ty) {
    const int c0 = j0 * VECTOR;
    if (next < r0 + BLOCK_ROWS && r0 < next + TILE) {
#pragma unroll
        for (int y = 0; y < THREAD_ROWS; y++) {
            const int i = r0 + ROW_OF(y) - next;
            if (i >= 0 && i < TILE)
#pragma unroll
                for (int h = 0; h < THREAD_COLS / VECTOR; h++)
                    next_row_panel[i * nv + j0 + COLV_OF(h)] = VJOIN(acc[y], h * VECTOR);
        }
    }
    if (next < c0 + BLOCK_COLS && c0 < next + TILE) {
#pragma unroll
        for (int x = 0; x < THREAD_COLS; x++) {
            const int k = c0 + COLV_OF(x / VECTOR) * VECTOR + x % VECTOR - next;
            if (k >= 0 && k < TILE)
#pragma unroll
                for (int y = 0; y < THREAD_ROWS; y++)
                    next_col_panel[k * nv * VECTOR + r0 + ROW_OF(y)] = acc[y][x];
        }
    }
}

/* acc = min(acc, A (x) B) over `depth` k-steps (a multiple of K_CHUNK) of the panels a and b:
 * chunk q travels from global memory into registers (a_next, b_next), then into local memory.
 * With PREFETCH, chunk q + 1 is loaded while chunk q is multiplied and goes to the other buffer:
 * one barrier per chunk. A macro, so that fw_phase3's depth stays the constant TILE. */
#define RELAX_CHUNKS(depth)                                                                        \
    do {                                                                                           \
        vdist a_next[STAGE_STEPS], b_next[STAGE_STEPS];                                            \
        LOAD_CHUNK(0);                                                                             \
        for (int q = 0; q < (depth) / K_CHUNK; q++) {                                              \
            __local vdist *ap = a_part + (PREFETCH ? (q & 1) * K_CHUNK * ROW_VECTORS : 0);         \
            __local vdist *bp = b_part + (PREFETCH ? (q & 1) * K_CHUNK * COL_VECTORS : 0);         \
            _Pragma("unroll") for (int s = 0; s < STAGE_STEPS; s++) {                              \
                const int e = lid + s * GROUP_SIZE;                                                \
                if (e < K_CHUNK * ROW_VECTORS)                                                     \
                    ap[e] = a_next[s];                                                             \
                if (e < K_CHUNK * COL_VECTORS)                                                     \
                    bp[e] = b_next[s];                                                             \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            const int k1 = (q + 1) * K_CHUNK; /* the next chunk's first k-step */                  \
            if (PREFETCH && k1 < (depth)) {                                                        \
                LOAD_CHUNK(k1);                                                                    \
            }                                                                                      \
            multiply_chunk(acc, ap, bp, tx, ty);                                                   \
            if (!PREFETCH) {                                                                       \
                barrier(CLK_LOCAL_MEM_FENCE);                                                      \
                if (k1 < (depth)) {                                                                \
                    LOAD_CHUNK(k1);                                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The block's cells from C into acc, and back. */
#define LOAD_ACC()                                                                                 \
    _Pragma("unroll") for (int y = 0; y < THREAD_ROWS; y++)                                        \
        _Pragma("unroll") for (int h = 0; h < THREAD_COLS / VECTOR; h++) {                         \
        const vdist v = c[ROW_OF(y) * nv + COLV_OF(h)];                                            \
        VSPLIT(v, acc[y], h *VECTOR);                                                              \
    }
#define STORE_ACC()                                                                                \
    _Pragma("unroll") for (int y = 0; y < THREAD_ROWS; y++)                                        \
        _Pragma("unroll") for (int h = 0; h < THREAD_COLS / VECTOR; h++)                           \
            c[ROW_OF(y) * nv + COLV_OF(h)] = VJOIN(acc[y], h * VECTOR)

__kernel __attribute__((reqd_work_group_size(GROUP_COLS, GROUP_ROWS, 1))) void
fw_phase3(__global vdist *band, __global const vdist *col_panel, __global const vdist *row_panel,
          int n, int row0, __global DIST *next_col_panel, __global vdist *next_row_panel,
          int next) {
    /* A(i, k0 + k) and B(k0 + k, j), k-major, in STAGES buffers of K_CHUNK k-steps. */
    __local vdist a_part[STAGES * K_CHUNK * ROW_VECTORS];
    __local vdist b_part[STAGES * K_CHUNK * COL_VECTORS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * GROUP_COLS + tx;
    const int nv = n / VECTOR;                                       /* row pitch in vectors */
    const size_t i0 = get_group_id(1) * (size_t)BLOCK_ROWS;          /* band-relative */
    const int j0 = get_group_id(0) * COL_VECTORS;                    /* in vectors */
    __global vdist *c = band + i0 * nv + j0;                         /* pitch nv */
    __global const vdist *a = col_panel + (row0 + (int)i0) / VECTOR; /* pitch nv, k-major */
    __global const vdist *b = row_panel + j0;                        /* pitch nv, k-major */
    const int a_pitch = nv;

    DIST acc[THREAD_ROWS][THREAD_COLS];
#pragma unroll
    for (int y = 0; y < THREAD_ROWS; y++)
#pragma unroll
        for (int h = 0; h < THREAD_COLS / VECTOR; h++) {
            const vdist v = c[ROW_OF(y) * nv + COLV_OF(h)];
            VSPLIT(v, acc[y], h * VECTOR);
        }

    RELAX_CHUNKS(TILE);

#pragma unroll
    for (int y = 0; y < THREAD_ROWS; y++)
#pragma unroll
        for (int h = 0; h < THREAD_COLS / VECTOR; h++)
            c[ROW_OF(y) * nv + COLV_OF(h)] = VJOIN(acc[y], h * VECTOR);

    /* This round's values of the next round's pivot rows and columns (from `next` on; -1 in the
     * last round) are final: they go to the next round's panels too, so no copy is needed. */
    if (next >= 0)
        write_next_panels(acc, row0 + (int)i0, j0, nv, next, next_col_panel, next_row_panel, tx,
                          ty);
}

/* Streaming from host memory: C = min(C, A (x) B) over one block of streamed rows, A the block's
 * own pivot columns as they came (k-major, pitch a_pitch: fw_transpose's copy) and B the
 * super-round's closed K x n pivot rows, `depth` = K k-steps deep: fw_phase3 without the next
 * panels, C in registers across all of K. */
__kernel __attribute__((reqd_work_group_size(GROUP_COLS, GROUP_ROWS, 1))) void
fw_stream(__global vdist *band, __global const vdist *columns, __global const vdist *row_panel,
          int n, int columns_pitch, int depth) {
    __local vdist a_part[STAGES * K_CHUNK * ROW_VECTORS];
    __local vdist b_part[STAGES * K_CHUNK * COL_VECTORS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * GROUP_COLS + tx;
    const int nv = n / VECTOR;
    const size_t i0 = get_group_id(1) * (size_t)BLOCK_ROWS;
    const int j0 = get_group_id(0) * COL_VECTORS;
    __global vdist *c = band + i0 * nv + j0;
    __global const vdist *a = columns + (int)i0 / VECTOR;
    __global const vdist *b = row_panel + j0;
    const int a_pitch = columns_pitch / VECTOR;
    DIST acc[THREAD_ROWS][THREAD_COLS];
    LOAD_ACC();
    RELAX_CHUNKS(depth);
    STORE_ACC();
}

#endif /* CPU_KERNELS */

/* Sets the cells of a band outside the real_n x real_n graph to INF, and their diagonal to 0.
 * Global size: (n, rows of the band); row0 is the band's first row in the whole matrix. */
__kernel void fw_pad(__global DIST *band, int n, int row0, int real_n) {
    const int j = get_global_id(0), i = row0 + get_global_id(1);
    if (i >= real_n || j >= real_n)
        band[(size_t)get_global_id(1) * n + j] = i == j ? 0 : INF;
}

/* The bounded negative form's last step (NEGATIVE = 2, above): every distance above the bound,
 * which only a path over a missing edge reaches, is unreachable. One work-item per cell. */
__kernel void fw_unreachable(__global DIST *band, const DIST bound) {
    const size_t i = get_global_id(0);
    if (band[i] > bound)
        band[i] = INF;
}
