/* Many small graphs at once (src/opencl/batch.c, apsp_solver_solve_batch): one work-group per
 * graph, the graph's whole n x n matrix in local memory for the n steps of Floyd-Warshall, many
 * graphs per launch. The graphs lie packed in one buffer: graph g's n x n cells, row-major with
 * row pitch n, from cell index[4g] on, n = index[4g + 1] without its top bit (0: the group has
 * nothing to do), relaxed in the negative form where the top bit is set (the host read the
 * weights). The host gives the local buffer room for the launch's largest graph plus its pivot
 * row and column. With FROM_EDGES in `form` the cells are not read: graph g is made in local
 * memory from its edges [index[4g + 2], + index[4g + 3]) (source | target << 8, graph-local)
 * as the host's fill makes it (src/drivers/batch_fill.c): INF, a 0 diagonal, then each edge's
 * weight (1 with UNWEIGHTED) where it is less, self-loops ignored, both ways with UNDIRECTED.
 * Each work-item owns the cells c = lid (mod items) and takes from every edge only those, so
 * that no two items write a cell; the least weight is kept whatever the order.
 *
 * Step k copies row k and column k aside before any cell of them changes, then relaxes every cell
 * from the copies: c = min(c, d(i, k) + d(k, j)), each cell once per k in ascending k, the plain
 * k-loop that closes cl/fw.cl's pivot block in phase 1. A graph of at most one tile is one round
 * of the blocked solve, so for integers (exact) that is the result; for floats the round's phase
 * 3 follows, min(P, P (x) P), whose sums round differently (src/cpu/small.c does the same), and
 * the host sends a float graph here only up to the device's tile, so that its bytes are those of
 * apsp_solver_solve (tests/opencl/test_batch_opencl.c compares them). Without the copies a
 * negative d(k, k) would let row k change while others read it.
 *
 * Defines from the host: DIST, FLOAT_DIST, FP64 and INF as for cl/fw.cl (src/opencl/params.c:
 * dtype_defines); none for int32. */
#ifndef INF
#error "build with -DINF (src/opencl/params.c: dtype_defines)"
#endif
#ifndef DIST
#define DIST int
#endif
#ifndef FLOAT_DIST
#define FLOAT_DIST 0
#endif
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* c = min(c, a + b) as cl/fw.cl's RELAX: floats compare and select (a sum rounded once, never
 * fused); integers add, and in the negative form never let INF absorb a negative term nor a sum
 * fall below -INF. */
inline DIST relax(DIST c, DIST a, DIST b, int negative) {
#if FLOAT_DIST
    const DIST s = a + b;
    return s < c ? s : c;
#else
    if (!negative)
        return min(c, a + b);
    const DIST floor_a = a == INF ? INF : -INF, floor_b = b == INF ? INF : -INF;
    return min(c, max(a + b, max(floor_a, floor_b)));
#endif
}

#define FROM_EDGES 1u
#define UNDIRECTED 2u
#define UNWEIGHTED 4u

/* The cell c = s * n + t lowered to w where this item owns it. */
inline void lower(__local DIST *d, uint c, uint lid, uint step, DIST w) {
    if (c % step == lid && w < d[c])
        d[c] = w;
}

/* Graph g's cells made in local memory from its edges (FROM_EDGES, above). */
inline void make_from_edges(__local DIST *d, uint n, __global const uint *index, size_t g,
                            __global const ushort *edges, __global const DIST *weights, uint form,
                            uint lid, uint step) {
    const uint nn = n * n, first = index[4 * g + 2], count = index[4 * g + 3];
    for (uint c = lid; c < nn; c += step)
        d[c] = c % (n + 1) == 0 ? 0 : INF; /* (the diagonal: every (n + 1)th cell) */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint e = first; e < first + count; e++) {
        const uint s = edges[e] & 0xffu, t = edges[e] >> 8;
        const DIST w = (form & UNWEIGHTED) ? (DIST)1 : weights[e];
        if (s == t)
            continue;
        lower(d, s * n + t, lid, step, w);
        if (form & UNDIRECTED)
            lower(d, t * n + s, lid, step, w);
    }
}

__kernel void batch_fw(__global DIST *cells, __global const uint *index, __local DIST *local_cells,
                       __global const ushort *edges, __global const DIST *weights, uint form) {
    const size_t g = get_group_id(0);
    const uint word = index[4 * g + 1], n = word & 0x7fffffffu, nn = n * n;
    const uint lid = get_local_id(0), step = get_local_size(0);
    if (n == 0)
        return; /* the whole group returns: no barrier is left waiting */
    __global DIST *graph = cells + index[4 * g];
    __local DIST *d = local_cells, *row = local_cells + nn, *col = row + n;
    const int neg = (word >> 31) != 0;
    if (form & FROM_EDGES)
        make_from_edges(d, n, index, g, edges, weights, form, lid, step);
    else
        for (uint c = lid; c < nn; c += step)
            d[c] = graph[c];
    /* Each item walks its cells i * n + j in strides of `step`: the stride's rows and columns
     * once, then carried, with no division per cell. */
    const uint di = step / n, dj = step - di * n, i0 = lid / n, j0 = lid - i0 * n;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < n; k++) {
        for (uint t = lid; t < n; t += step) {
            row[t] = d[k * n + t];
            col[t] = d[t * n + k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint i = i0, j = j0;
        for (uint c = lid; c < nn; c += step) {
            d[c] = relax(d[c], col[i], row[j], neg);
            i += di;
            j += dj;
            if (j >= n) {
                j -= n;
                i++;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if FLOAT_DIST
    /* The round's phase 3 over its own pivot block (cl/fw.cl): C = min(P, P (x) P). Exact
     * arithmetic would change nothing (P is closed), but each sum P(i, k) + P(k, j) is rounded
     * on its own, not as the k-loop added it, and the blocked solve keeps the least of them. */
    uint i = i0, j = j0;
    for (uint c = lid; c < nn; c += step) {
        DIST v = d[c];
        for (uint k = 0; k < n; k++)
            v = relax(v, d[i * n + k], d[k * n + j], 0);
        graph[c] = v;
        i += di;
        j += dj;
        if (j >= n) {
            j -= n;
            i++;
        }
    }
#else
    for (uint c = lid; c < nn; c += step)
        graph[c] = d[c];
#endif
}
