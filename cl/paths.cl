/* The predecessor derivation on the device (src/opencl/predecessors.c), a program of its own
 * beside fw.cl, over the int32 distances the solve left in a row band.
 *
 * paths_tight: work-item (j, g) derives the predecessors of target j for the ROWS sources of
 * rows g * ROWS .. g * ROWS + ROWS - 1 of the chunk (rows `first + r`, band row `band_row + r`):
 * the first in-edge (k, j) in the CSR's order (least k) with d(i,k) + w = d(i,j), or NONE for
 * j = i and unreachable j. One pass over j's in-edges serves all ROWS sources, which stops once
 * each has its edge; the sources' rows are read from global memory, where neighbouring
 * work-items (targets of the same rows) share them in the caches. No weight is negative and
 * d <= INF, w < INF, so d(i,k) + w neither overflows nor matches an unreachable d(i,j) when
 * w > 0; with w = 0 the unreachable j is excluded before the scan. A vertex at a finite
 * distance with no tight in-edge (distances that are not the graph's) sets *untight.
 * pred is the chunk's rows, `vertices` apart, as the host wants them. */
#ifndef ROWS
#define ROWS 4
#endif
#define INF 1073741823
#define NONE (-9999)

__kernel void paths_tight(__global const int *restrict band, const long pitch, const long band_row,
                          const int first, const int rows, const int vertices,
                          __global const int *restrict start, __global const int *restrict from,
                          __global const int *restrict weight, __global int *restrict pred,
                          __global int *restrict untight) {
    const int j = get_global_id(0);
    const int r0 = get_global_id(1) * ROWS;
    if (j >= vertices)
        return;
    __global const int *d = band + (band_row + r0) * pitch;
    int dj[ROWS], p[ROWS];
    int open = 0; /* bit q: source r0 + q still looks for its edge */
#pragma unroll
    for (int q = 0; q < ROWS; q++) {
        p[q] = NONE;
        dj[q] = INF;
        if (r0 + q < rows) {
            dj[q] = d[q * pitch + j];
            if (first + r0 + q != j && dj[q] < INF)
                open |= 1 << q;
        }
    }
    for (int e = start[j], end = start[j + 1]; e < end && open; e++) {
        const int k = from[e], w = weight[e];
#pragma unroll
        for (int q = 0; q < ROWS; q++)
            if ((open >> q & 1) && d[q * pitch + k] + w == dj[q]) {
                p[q] = k;
                open &= ~(1 << q);
            }
    }
    if (open)
        *untight = 1;
#pragma unroll
    for (int q = 0; q < ROWS; q++)
        if (r0 + q < rows)
            pred[(long)(r0 + q) * vertices + j] = p[q];
}
