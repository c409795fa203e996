/* Blocked Floyd-Warshall: the three phases of one round, and the padding fill.
 *
 * The host (src/backend_opencl.c) keeps the padded n x n distance matrix as row bands, one
 * buffer each (row pitch n), and two small panel buffers per round:
 *   row panel: the TILE pivot rows, TILE x n, row pitch n, copied from the pivot's band;
 *   col panel: the TILE pivot columns, n x TILE, row pitch TILE, copied from every band.
 * Round r then runs
 *   fw_phase1: closes the pivot block P (Floyd-Warshall inside it), in the row panel;
 *   fw_phase2: one launch over the other blocks of the pivot row, in the row panel: C = P (x) C,
 *              with (x) the min-plus product (P is closed, so this equals the k-ordered update
 *              and needs no barrier per k);
 *   fw_phase3: once per band, C = min(C, A (x) B) over every block of the band, A from the col
 *              panel (copied before phase 1) and B from the row panel.
 * Why the pivot column needs no phase 2: its update would be A' = A (x) P, and phase 3 would use
 * A' (x) B = A (x) (P (x) B) = A (x) B, because P (x) B = B (P is closed and B was multiplied by
 * P in phase 2). On the pivot column itself phase 3 gives min(A, A (x) P) = A', and on the pivot
 * rows min(B_old, P_old (x) B) = B (P_old has a zero diagonal and P_old >= P). So phase 3 relaxes
 * every block of every band, the pivot row and column included, and nothing is copied back.
 * Distances are int; with weights >= 0 and unreachable = INF = 2^30 - 1, a + b never overflows.
 * Every parameter below is a -D define from the host; the defaults are for reading only.
 */

#ifndef TILE
#define TILE 64 /* round depth B: the pivot block is TILE x TILE, panels are TILE wide */
#endif
#ifndef PIVOT_ITEMS
#define PIVOT_ITEMS 16 /* phases 1 and 2: work-group of PIVOT_ITEMS x PIVOT_ITEMS work-items */
#endif
#ifndef THREAD_ROWS
#define THREAD_ROWS 4 /* phase 3: rows of the micro-tile each work-item keeps in registers */
#endif
#ifndef THREAD_COLS
#define THREAD_COLS 4 /* phase 3: columns of the micro-tile each work-item keeps in registers */
#endif
#ifndef GROUP_ROWS
#define GROUP_ROWS 16 /* phase 3: work-group height in work-items (local size, dimension 1) */
#endif
#ifndef GROUP_COLS
#define GROUP_COLS 16 /* phase 3: work-group width in work-items (local size, dimension 0) */
#endif
#ifndef K_CHUNK
#define K_CHUNK 32 /* phases 2 and 3: k-steps of the panels staged in local memory at a time */
#endif
#ifndef INF
#define INF 1073741823 /* the unreachable distance, 2^30 - 1 */
#endif

/* Derived sizes. */
#define PIVOT_CELLS (TILE / PIVOT_ITEMS)       /* cells per work-item and side, phases 1-2 */
#define PIVOT_GROUP (PIVOT_ITEMS * PIVOT_ITEMS) /* work-items per phase 1-2 work-group */
#define BLOCK_ROWS (GROUP_ROWS * THREAD_ROWS)  /* phase-3 output block height */
#define BLOCK_COLS (GROUP_COLS * THREAD_COLS)  /* phase-3 output block width */
#define GROUP_SIZE (GROUP_ROWS * GROUP_COLS)   /* work-items per phase-3 work-group */

#if TILE % PIVOT_ITEMS != 0 || TILE % K_CHUNK != 0
#error "TILE must be a multiple of PIVOT_ITEMS and of K_CHUNK"
#endif

/* Work-items own cells strided by the group size, (ty + a * ITEMS, tx + b * ITEMS), so that
 * neighbouring work-items touch neighbouring addresses in global and local memory. */

/* Phase 1: Floyd-Warshall inside the pivot block, one work-group. */
__kernel __attribute__((reqd_work_group_size(PIVOT_ITEMS, PIVOT_ITEMS, 1))) void
fw_phase1(__global int *row_panel, int n, int r) {
    __local int block[TILE][TILE];
    const int tx = get_local_id(0), ty = get_local_id(1);
    __global int *pivot = row_panel + r * TILE; /* pitch n */

    for (int a = 0; a < PIVOT_CELLS; a++)
        for (int b = 0; b < PIVOT_CELLS; b++) {
            const int i = ty + a * PIVOT_ITEMS, j = tx + b * PIVOT_ITEMS;
            block[i][j] = pivot[i * n + j];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++) {
        /* Row k and column k do not change at step k (d(k,k) = 0), so a cell is written only
         * when it improves: no work-item writes what another reads in this step. */
        for (int a = 0; a < PIVOT_CELLS; a++)
            for (int b = 0; b < PIVOT_CELLS; b++) {
                const int i = ty + a * PIVOT_ITEMS, j = tx + b * PIVOT_ITEMS;
                const int via = block[i][k] + block[k][j];
                if (via < block[i][j])
                    block[i][j] = via;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int a = 0; a < PIVOT_CELLS; a++)
        for (int b = 0; b < PIVOT_CELLS; b++) {
            const int i = ty + a * PIVOT_ITEMS, j = tx + b * PIVOT_ITEMS;
            pivot[i * n + j] = block[i][j];
        }
}

/* Phase 2: the pivot row blocks, C = P (x) C, one block per work-group (group index t along
 * dimension 0). Each block is both an input and the output; the work-group reads all of it
 * into local memory before writing any of it. */
__kernel __attribute__((reqd_work_group_size(PIVOT_ITEMS, PIVOT_ITEMS, 1))) void
fw_phase2(__global int *row_panel, int n, int r) {
    __local int p_part[K_CHUNK][TILE]; /* P(i, k0 + k), transposed: [k][i] */
    __local int c_part[K_CHUNK][TILE]; /* C(k0 + k, j) */
    const int t = get_group_id(0);
    if (t == r)
        return; /* the pivot block itself, final after phase 1 (uniform per work-group) */
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * PIVOT_ITEMS + tx;
    __global const int *pivot = row_panel + r * TILE; /* pitch n */
    __global int *c = row_panel + t * TILE;           /* pitch n */

    int acc[PIVOT_CELLS][PIVOT_CELLS];
    for (int y = 0; y < PIVOT_CELLS; y++)
        for (int x = 0; x < PIVOT_CELLS; x++)
            acc[y][x] = c[(ty + y * PIVOT_ITEMS) * n + tx + x * PIVOT_ITEMS];
    for (int k0 = 0; k0 < TILE; k0 += K_CHUNK) {
        for (int e = lid; e < TILE * K_CHUNK; e += PIVOT_GROUP) {
            const int i = e / K_CHUNK, k = e % K_CHUNK;
            p_part[k][i] = pivot[i * n + k0 + k];
            const int kk = e / TILE, j = e % TILE;
            c_part[kk][j] = c[(k0 + kk) * n + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < K_CHUNK; k++)
            for (int y = 0; y < PIVOT_CELLS; y++) {
                const int py = p_part[k][ty + y * PIVOT_ITEMS];
                for (int x = 0; x < PIVOT_CELLS; x++)
                    acc[y][x] = min(acc[y][x], py + c_part[k][tx + x * PIVOT_ITEMS]);
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int y = 0; y < PIVOT_CELLS; y++)
        for (int x = 0; x < PIVOT_CELLS; x++)
            c[(ty + y * PIVOT_ITEMS) * n + tx + x * PIVOT_ITEMS] = acc[y][x];
}

/* Phase 3 on one band: a min-plus GEMM, C = min(C, A (x) B), one BLOCK_ROWS x BLOCK_COLS output
 * block per work-group (group dimension 0: block column, 1: block row within the band). Each
 * work-item keeps its THREAD_ROWS x THREAD_COLS outputs in registers; K_CHUNK-deep slices of A
 * and B pass through local memory. row0 is the band's first row in the whole matrix. */
__kernel __attribute__((reqd_work_group_size(GROUP_COLS, GROUP_ROWS, 1))) void
fw_phase3(__global int *band, __global const int *col_panel, __global const int *row_panel,
          int n, int row0) {
    __local int a_part[K_CHUNK][BLOCK_ROWS]; /* A(i, k0 + k), transposed: [k][i] */
    __local int b_part[K_CHUNK][BLOCK_COLS]; /* B(k0 + k, j) */
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * GROUP_COLS + tx;
    const size_t i0 = get_group_id(1) * (size_t)BLOCK_ROWS; /* band-relative */
    const size_t j0 = get_group_id(0) * (size_t)BLOCK_COLS;
    __global int *c = band + i0 * n + j0;                              /* pitch n */
    __global const int *a = col_panel + ((size_t)row0 + i0) * TILE; /* pitch TILE */
    __global const int *b = row_panel + j0;                            /* pitch n */

    int acc[THREAD_ROWS][THREAD_COLS];
    for (int y = 0; y < THREAD_ROWS; y++)
        for (int x = 0; x < THREAD_COLS; x++)
            acc[y][x] = c[(ty + y * GROUP_ROWS) * n + tx + x * GROUP_COLS];
    for (int k0 = 0; k0 < TILE; k0 += K_CHUNK) {
        for (int e = lid; e < BLOCK_ROWS * K_CHUNK; e += GROUP_SIZE) {
            const int i = e / K_CHUNK, k = e % K_CHUNK;
            a_part[k][i] = a[i * TILE + k0 + k];
        }
        for (int e = lid; e < K_CHUNK * BLOCK_COLS; e += GROUP_SIZE) {
            const int k = e / BLOCK_COLS, j = e % BLOCK_COLS;
            b_part[k][j] = b[(k0 + k) * n + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < K_CHUNK; k++) {
            int av[THREAD_ROWS], bv[THREAD_COLS];
            for (int y = 0; y < THREAD_ROWS; y++)
                av[y] = a_part[k][ty + y * GROUP_ROWS];
            for (int x = 0; x < THREAD_COLS; x++)
                bv[x] = b_part[k][tx + x * GROUP_COLS];
            for (int y = 0; y < THREAD_ROWS; y++)
                for (int x = 0; x < THREAD_COLS; x++)
                    acc[y][x] = min(acc[y][x], av[y] + bv[x]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int y = 0; y < THREAD_ROWS; y++)
        for (int x = 0; x < THREAD_COLS; x++)
            c[(ty + y * GROUP_ROWS) * n + tx + x * GROUP_COLS] = acc[y][x];
}

/* Sets the cells of a band outside the real_n x real_n graph to INF, and their diagonal to 0.
 * Global size: (n, rows of the band); row0 is the band's first row in the whole matrix. */
__kernel void fw_pad(__global int *band, int n, int row0, int real_n) {
    const int j = get_global_id(0), i = row0 + get_global_id(1);
    if (i >= real_n || j >= real_n)
        band[(size_t)get_global_id(1) * n + j] = i == j ? 0 : INF;
}
