/* apsp-mpi's block kernels (src/opencl/blocks.c), built after cl/fw.cl in one program so that
 * they reuse its parameters, its relaxation step and its phase-3 product (RELAX_CHUNKS and the
 * CPU micro-tile) rather than a second copy of them.
 *
 * A rank keeps its local matrix (its blocks in global order) as one buffer of pitch n, where n is
 * at least its local rows and columns, because fw.cl's product reads A, B and C with one pitch.
 * Beside it, TILE x n panels, k-major as fw.cl's: A(i, k) = a[k * n + i] indexed by the row i of
 * the matrix, B(k, j) = b[k * n + j] by the column j.
 *
 *   mpi_product:   C = min(C, A (x) B), TILE deep, over the rectangle of whole blocks of the
 *                  matrix from (row0, col0): phase 3 on a rank's blocks, and phase 2 as products
 *                  with the closed pivot P (a pivot-row block C = min(C, P (x) C), a
 *                  pivot-column block C = min(C, C (x) P), the old C read from a copy);
 *   fw_transpose (cl/fw.cl): a TILE-wide strip of columns into a k-major panel (the column
 *                  panel as it arrives from MPI, row-major, becomes A; a pivot-column strip
 *                  becomes A for its own phase 2; the pivot becomes A for the pivot row's).
 * fw_phase1 closes the pivot, in a TILE x TILE buffer of its own (n = TILE, r = 0). */

#if CPU_KERNELS

/* One work-item per BLOCK_ROWS x BLOCK_COLS block, in micro-tiles, as fw_stream. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
mpi_product(__global DIST *matrix, __global const DIST *col_panel, __global const DIST *row_panel,
            int n, int row0, int col0) {
    const int i0 = row0 + get_group_id(1) * BLOCK_ROWS;
    const int j0 = col0 + get_group_id(0) * BLOCK_COLS;
    for (int j = j0; j < j0 + BLOCK_COLS; j += CPU_COLS)
        for (int i = i0; i < i0 + BLOCK_ROWS; i += CPU_ROWS)
            CPU_MICRO_TILE(matrix + (size_t)i * n + j, n, col_panel + i, n, row_panel + j, n);
}

#else

/* fw_stream's work-groups, with the rectangle's corner (row0, col0; col0 a multiple of
 * BLOCK_COLS) added to the block's place in C, A and B. */
__kernel __attribute__((reqd_work_group_size(GROUP_COLS, GROUP_ROWS, 1))) void
mpi_product(__global vdist *matrix, __global const vdist *col_panel,
            __global const vdist *row_panel, int n, int row0, int col0) {
    __local vdist a_part[STAGES * K_CHUNK * ROW_VECTORS];
    __local vdist b_part[STAGES * K_CHUNK * COL_VECTORS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int lid = ty * GROUP_COLS + tx;
    const int nv = n / VECTOR;
    const size_t i0 = (size_t)row0 + get_group_id(1) * (size_t)BLOCK_ROWS;
    const int j0 = col0 / VECTOR + get_group_id(0) * COL_VECTORS;
    __global vdist *c = matrix + i0 * nv + j0;
    __global const vdist *a = col_panel + (int)i0 / VECTOR;
    __global const vdist *b = row_panel + j0;
    const int a_pitch = nv;
    DIST acc[THREAD_ROWS][THREAD_COLS];
    LOAD_ACC();
    RELAX_CHUNKS(TILE);
    STORE_ACC();
}

#endif /* CPU_KERNELS */
