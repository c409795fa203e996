/* The list of the OpenCL kernels' tunable parameters; see params.h. No OpenCL header needed, so
 * that apsp_kernel_params exists in every build. */
#ifndef APSP_OPENCL_PARAM_LIST_H
#define APSP_OPENCL_PARAM_LIST_H

#include "apsp.h"

/* X(NAME, field, fallback, least, most, meaning): NAME is the -D define in cl/fw.cl. */
#define KERNEL_PARAMS(X)                                                                           \
    X(TILE, tile, 64, 1, APSP_TILE_MAX,                                                            \
      "round depth: the pivot block is TILE x TILE (a power of two)")                              \
    X(PIVOT_ITEMS, pivot_items, 16, 1, 1024,                                                       \
      "phases 1-2: work-groups of PIVOT_ITEMS x PIVOT_ITEMS work-items")                           \
    X(PIVOT_SPLIT, pivot_split, 1, 1, 1024,                                                        \
      "phase 2: work-groups per pivot-row block (column slabs)")                                   \
    X(K_CHUNK, k_chunk, 16, 1, 1024, "phases 2-3: k-steps staged in local memory at a time")       \
    X(THREAD_ROWS, thread_rows, 4, 1, 1024, "phase 3: rows of each work-item's micro-tile")        \
    X(THREAD_COLS, thread_cols, 4, 1, 1024, "phase 3: columns of each work-item's micro-tile")     \
    X(GROUP_ROWS, group_rows, 16, 1, 1024, "phase 3: work-group height in work-items")             \
    X(GROUP_COLS, group_cols, 16, 1, 1024, "phase 3: work-group width in work-items")              \
    X(VECTOR, vector, 4, 1, 4, "phase 3: elements per global and local access (1, 2 or 4)")        \
    X(PREFETCH, prefetch, 0, 0, 1, "phase 3: 1 = the next k-chunk loads during this one")          \
    X(K_UNROLL, k_unroll, 0, 0, 1024,                                                              \
      "phase 3: k-steps unrolled at a time, dividing K_CHUNK; 0 = all of K_CHUNK")                 \
    X(CPU_KERNELS, cpu_kernels, 0, 0, 1,                                                           \
      "1 = phases 2-3 with one work-item per block and wide vectors (CPU devices)")

/* Fixed sizes of the kernels, passed as -D defines too. */
enum {
    MAX_PIVOT_CELLS = 8, /* phases 1-2: at most 8 x 8 cells per work-item */
    MAX_COPY_EDGE = 16,  /* fw_transpose: work-groups of up to 16 x 16 work-items (COPY_EDGE) */
    CPU_ROWS = 8,        /* CPU kernels: rows of a micro-tile (CPU_ROWS in cl/fw.cl) */
    CPU_COLS = 32,       /* CPU kernels: columns of a micro-tile and of a phase-2 slab */
};

typedef struct kernel_params {
#define KERNEL_PARAM_FIELD(NAME, field, fallback, least, most, meaning) int field;
    KERNEL_PARAMS(KERNEL_PARAM_FIELD)
#undef KERNEL_PARAM_FIELD
} kernel_params;

#endif
