/* OpenCL device discovery: every available device of every platform, listed for
 * apsp_list_devices and found again by its position when a solver opens it. */
#ifndef APSP_OPENCL_DISCOVERY_H
#define APSP_OPENCL_DISCOVERY_H

#include "backend/backend.h"
#include "opencl/params.h"

/* Appends every available OpenCL device to the list; no loader or no platform is no device. */
apsp_status opencl_list(device_list *list, apsp_error *error);

/* The device at position `wanted` among the OpenCL entries of the list (backend_index). */
apsp_status opencl_find(int wanted, cl_platform_id *platform, cl_device_id *device,
                        apsp_error *error);

/* The limits choose_params needs; a failed query leaves 0. */
void query_limits(cl_device_id device, device_limits *limits);

#endif
