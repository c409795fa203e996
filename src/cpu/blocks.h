/* The pthread backend's block engine (backend/blocks.h), for its backend table. */
#ifndef APSP_CPU_BLOCKS_H
#define APSP_CPU_BLOCKS_H

#include "backend/blocks.h"

extern const backend_blocks cpu_blocks;

#endif
