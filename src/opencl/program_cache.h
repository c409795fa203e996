/* The compiled program cached on disk between runs (program_cache.c). */
#ifndef APSP_OPENCL_PROGRAM_CACHE_H
#define APSP_OPENCL_PROGRAM_CACHE_H

#include "opencl/device.h"

/* Sets d->kernels.program from the cache of options->kernel_cache for the device, the options in
 * d->kernels.options and `source`; returns 0 (and leaves it NULL) when there is none to use. */
int program_cache_load(backend_device *d, const char *source);

/* Keeps the binary of d->kernels.program, built from `source`, in the cache; failures only go to
 * the log (a cache never fails a solve). */
void program_cache_store(const backend_device *d, const char *source);

#endif
