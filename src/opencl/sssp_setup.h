/* Chosen sources on an OpenCL device: what sssp.c and sssp_setup.c share. */
#ifndef APSP_OPENCL_SSSP_SETUP_H
#define APSP_OPENCL_SSSP_SETUP_H

#include "opencl/device.h"
#include "backend/adjacency.h"

/* The flags' words (cl/sssp.cl: F_*): a negative cycle, the pairs taken (64 bits), the
 * threshold, the current far list, the two lists' sizes and least distances, the sort's turn,
 * the round's work-groups done, a vertex without a predecessor. */
enum { FLAG_COUNT = 12, F_FAR_COUNT = 5, F_UNTIGHT = 11 };

/* A run's set-up, after d->sssp's vertices, edges and groups are set: the batch (as many
 * sources, up to `sources`, as the device's memory holds), the program and its kernels, the
 * work-groups, the graph on the device and the batch's buffers. */
apsp_status sssp_setup(cl_device *d, const adjacency *g, size_t sources, apsp_error *error);

/* `bytes` of `host` into `mem` (blocking), named `name` in the error. */
apsp_status sssp_write(cl_device *d, cl_mem mem, const void *host, size_t bytes, const char *name,
                       apsp_error *error);

#endif
