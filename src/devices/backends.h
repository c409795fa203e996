/* The combined device list of all backends and choosing one entry from it. */
#ifndef APSP_DEVICES_BACKENDS_H
#define APSP_DEVICES_BACKENDS_H

#include "backend/backend.h"

/* The devices of `only` (APSP_BACKEND_AUTO: of every backend, OpenCL first, then the pthread
 * backend). Listing the pthread backend alone loads no OpenCL platform. */
apsp_status devices_collect(device_list *list, apsp_backend_kind only, apsp_error *error);

/* The most devices one solve can share. */
enum { MAX_DEVICES = 16 };

/* Picks the entries to run on for `backend` and `spec` (NULL or "": the backend's default, one
 * device) into chosen[MAX_DEVICES]. A spec is a comma-separated list of items, each a 0-based
 * index, a type word (gpu, cpu, accelerator, host: the first of that type), a plural (gpus,
 * cpus, accelerators: every device of that type) or a case-insensitive substring of the device
 * or platform name. Several devices must be different devices of one backend. */
apsp_status devices_select(const device_list *list, apsp_backend_kind backend, const char *spec,
                           const apsp_device_info **chosen, size_t *count, apsp_error *error);

/* The implementation of `kind` in this build; NULL for one the build has not (or AUTO). The
 * list of backends.c is the one place that names the backends' tables: everything outside
 * their folders reaches a table through this or backend_for. */
const apsp_backend_impl *backends_find(apsp_backend_kind kind);

/* The implementation that runs a listed entry. */
const apsp_backend_impl *backend_for(const apsp_device_info *device);

#endif
