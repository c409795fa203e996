/* Drivers: what runs a solve through the round-level interface of backend.h. One device holds
 * every row (single.c); the drivers for several devices, MPI ranks and streaming go beside it. */
#ifndef APSP_DRIVERS_H
#define APSP_DRIVERS_H

#include "backend.h"

/* Solves the matrix in place on one opened device, filling the report's timings and device. */
apsp_status drive_single(const apsp_backend_impl *impl, backend_device *device, apsp_matrix *matrix,
                         const apsp_options *options, apsp_report *report, apsp_error *error);

#endif
