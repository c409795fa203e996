/* The parts of streaming beside stream.c: preparing a solve (stream_prepare.c) and the profile
 * (stream_profile.c). */
#ifndef APSP_OPENCL_STREAM_PARTS_H
#define APSP_OPENCL_STREAM_PARTS_H

#include "opencl/device.h"

/* The shape for the geometry (K, the block height, the memory they take), checked against the
 * device and the host, then the layout of K rows, the queues, panels and slots. */
apsp_status stream_prepare(backend_device *device, const solve_geometry *g, stream_shape *shape,
                           apsp_error *error);
/* The profile's lines, to the log. */
void stream_log_overlap(const cl_device *d);
void stream_log_timeline(const cl_device *d);

#endif
