/* The pthread backend's block engine (core/blocks.h), for its backend table. */
#ifndef APSP_CPU_BLOCKS_H
#define APSP_CPU_BLOCKS_H

#include "core/blocks.h"

extern const backend_blocks cpu_blocks;

#endif
