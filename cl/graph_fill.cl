/* The matrix born on the device from an edge list, for every element type
 * (src/opencl/graph_io.c: layout_load_graph). Built after fw.cl in one program, so DIST, INF,
 * FLOAT_DIST and INT32_DIST are fw.cl's.
 *
 * After fw_pad with real_n = 0 has set a band to INF with 0 on the diagonal, each edge that
 * leaves one of the band's rows lowers its cell to its weight, as the host's fill
 * (src/base/graph_matrix.c: place_edge) does: the least of repeated edges, whatever their order;
 * self-loops, negative ones too, leave the diagonal at 0. The host sends the weights in DIST,
 * converted as the host's fill converts them, and float -0 as +0 (the float path reads -0 cells
 * as +0: the solver clears them before a float solve), so that no order of two zeros matters.
 *
 * The least of several: int takes atomic_min (OpenCL 1.1's own), long atom_min where
 * cl_khr_int64_extended_atomics is; float and
 * double (and long without it) a compare-and-swap loop on the cell's bits, which stores a weight
 * only while it is below what the cell holds. The 64-bit types need cl_khr_int64_base_atomics:
 * without it no kernel is defined here, and the host (graph_io.c: layout_takes_graph) keeps the
 * matrix of such a graph on the host. Global size: the edge count rounded up; the host checked
 * every edge. */
#if INT32_DIST
#define FILL_KERNEL 1
#define CELL_BITS int
#elif FLOAT_DIST && !defined(FP64) /* float: 32-bit atomics, every OpenCL 1.1 device's */
#define FILL_KERNEL 1
#define CELL_BITS int
#define AS_DIST(bits) as_float(bits)
#define AS_BITS(w) as_int(w)
#define SWAP_IF(cell, old, w) atomic_cmpxchg((cell), (old), (w))
#elif defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define FILL_KERNEL 1
#define CELL_BITS long
#if FLOAT_DIST
#define AS_DIST(bits) as_double(bits)
#define AS_BITS(w) as_long(w)
#else
#define AS_DIST(bits) (bits)
#define AS_BITS(w) (w)
#endif
#define SWAP_IF(cell, old, w) atom_cmpxchg((cell), (old), (w))
#else
#define FILL_KERNEL 0
#endif

#if FILL_KERNEL

#if INT32_DIST
static void lower_cell(volatile __global int *cell, const int w) {
    atomic_min(cell, w);
}
#elif !FLOAT_DIST && defined(cl_khr_int64_extended_atomics) && !defined(FILL_FORCE_CAS)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
static void lower_cell(volatile __global CELL_BITS *cell, const DIST w) {
    atom_min(cell, w);
}
#else
/* FILL_FORCE_CAS (a test's build option) takes this loop where atom_min is. The first swap
 * guesses INF, what fw_pad left (so the cell is read by atomics alone, no plain load to race
 * with another edge's swap: Oclgrind's --data-races); a failed swap returns what the cell held,
 * and the loop tries again with that while the weight is below it. */
static void lower_cell(volatile __global CELL_BITS *cell, const DIST w) {
    CELL_BITS old = AS_BITS((DIST)INF);
    while (w < AS_DIST(old)) {
        const CELL_BITS seen = SWAP_IF(cell, old, AS_BITS(w));
        if (seen == old)
            break;
        old = seen;
    }
}
#endif

__kernel void fw_scatter(__global DIST *band, int n, int row0, int rows, __global const int *source,
                         __global const int *target, __global const DIST *weight, int edges) {
    const int e = get_global_id(0);
    if (e >= edges)
        return;
    const int i = source[e] - row0, j = target[e];
    if (i >= 0 && i < rows && source[e] != j)
        lower_cell((volatile __global CELL_BITS *)&band[(size_t)i * n + j], weight[e]);
}

#endif /* FILL_KERNEL */
