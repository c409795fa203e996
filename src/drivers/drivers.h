/* Drivers: what runs a solve through the round-level interface of backend.h. rows.c shares the
 * rows among the devices of one process (one device is its simplest case); MPI ranks and
 * streaming from host memory go beside it. */
#ifndef APSP_DRIVERS_H
#define APSP_DRIVERS_H

#include "backend.h"

/* Solves the matrix in place on opened devices of one backend (one or more), each holding a
 * share of the rows; fills the report's timings and devices. */
apsp_status drive_rows(const apsp_backend_impl *impl, backend_device *const *devices, size_t count,
                       apsp_matrix *matrix, const apsp_options *options, apsp_report *report,
                       apsp_error *error);

/* Whether a solve of `vertices` vertices can run on the devices (the geometry, the buffer caps,
 * the devices' memory), without a matrix. */
apsp_status drive_check(const apsp_backend_impl *impl, backend_device *const *devices, size_t count,
                        size_t vertices, const apsp_options *options, apsp_error *error);

#endif
