/* The combined device list of all backends and choosing one entry from it. */
#ifndef APSP_BACKENDS_H
#define APSP_BACKENDS_H

#include "backend.h"

/* Every backend's devices, OpenCL first, then the pthread backend. */
apsp_status devices_collect(device_list *list, apsp_error *error);

/* Picks the entry to run on for `backend` and `spec` (NULL: the default for the backend).
 * A spec is a 0-based index, a type word (gpu, cpu, accelerator, host), or a case-insensitive
 * substring of the device or platform name. */
apsp_status devices_select(const device_list *list, apsp_backend_kind backend, const char *spec,
                           const apsp_device_info **chosen, apsp_error *error);

/* The implementation that runs a listed entry. */
const apsp_backend_impl *backend_for(const apsp_device_info *device);

#endif
