/* The rank's engine: the block part of a backend (backend/blocks.h), reached through the backend
 * table, on the device the rank takes among its node's, listed and selected as the drivers do
 * (devices/backends.h). */
#ifndef APSP_MPI_ENGINE_H
#define APSP_MPI_ENGINE_H

#include "apsp.h"
#include "backend/blocks.h"

typedef struct rank_engine {
    const backend_blocks *ops;
    block_engine *blocks;
    char choice[96]; /* which of the node's devices this rank took, for -v ("" for none) */
    int opencl;      /* the OpenCL engine */
    int off_host; /* on a device other than the host's cores (a GPU): its rounds leave them idle */
} rank_engine;

/* --backend=opencl or cpu, or for auto, opencl where the node has an OpenCL GPU (ranks of
 * different nodes may differ: both engines take and give the same panels). An OpenCL rank takes
 * the devices -d names, else every OpenCL GPU, else every OpenCL CPU device (PoCL), the one at
 * its node-local rank modulo their number. threads: the pthread engine's pool. */
apsp_status rank_engine_open(const apsp_options *options, unsigned threads, int node_rank,
                             rank_engine *out, apsp_error *error);
void rank_engine_close(rank_engine *r); /* accepts one that did not open */

/* For -v: the engine's own description and the device choice. */
void rank_engine_describe(const rank_engine *r, char *text, size_t size);

#endif
