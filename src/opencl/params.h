/* The tunable parameters of cl/fw.cl: one list, from which everything else is derived (the
 * struct, the -D options, the --kernel-params parser and its messages, the range checks, the
 * public table of apsp_kernel_params). Adding a parameter touches cl/fw.cl and KERNEL_PARAMS.
 *
 * The per-device tuning table (params.c) says in the same NAME=N words how a device differs from
 * the fallbacks here; choose_params adapts the result to the round depth and the device's
 * limits and checks it. */
#ifndef APSP_OPENCL_PARAMS_H
#define APSP_OPENCL_PARAMS_H

#include "apsp.h"
#include "opencl/cl_util.h"
#include "opencl/param_list.h"

/* What choose_params needs to know of a device. */
typedef struct device_limits {
    cl_device_type type;
    char vendor[128]; /* CL_DEVICE_VENDOR, to pick parameters */
    cl_ulong global_memory;
    cl_ulong max_allocation;
    cl_ulong local_memory;
    size_t max_work_group;
    size_t max_item[3];
    int fp64;        /* CL_DEVICE_DOUBLE_FP_CONFIG is not 0: the float64 kernels can run */
    int host_memory; /* its buffers are host memory: a CPU or CL_DEVICE_HOST_UNIFIED_MEMORY */
} device_limits;

/* The parameters for a device: its table entry at --tile's round depth (or the entry's own,
 * halved until it fits), with options->kernel_params over it, checked against the device.
 * *extra_options receives the entry's build options beyond the -D defines. */
apsp_status choose_params(const apsp_options *options, const device_limits *limits,
                          const char *device_name, kernel_params *params,
                          const char **extra_options, apsp_error *error);

/* The element type's row of the per-type table over params (chosen for int32), where the
 * device has one: only parameters that keep the geometry, and none that options->kernel_params
 * names (the user's words win). */
void params_for_dtype(const apsp_options *options, const device_limits *limits, apsp_dtype dtype,
                      kernel_params *params);

/* The parameters of a solve after plan_layout changed the phase-3 block height (a tight buffer
 * cap) or fitted them to cells of cell_bytes, checked again. */
apsp_status check_params(const kernel_params *params, const device_limits *limits,
                         const char *device_name, int explicit_tile, size_t cell_bytes,
                         apsp_error *error);

/* The parameters, chosen for 4-byte cells, fitted to the local memory of wider cells: without
 * PREFETCH, then with K_CHUNK halved, while the kernels' local memory exceeds the device's.
 * The geometry (tile, block shapes) stays. */
void fit_cell_bytes(kernel_params *params, const device_limits *limits, size_t cell_bytes);

/* Whether the CPU kernels can run these parameters (whole CPU_ROWS x CPU_COLS micro-tiles). */
int cpu_kernels_fit(const kernel_params *params);

/* Round depths below CPU_COLS, CPU_KERNELS=0 or a work-group shape asked for: the work-group
 * kernels, with a one-item shape turned into one that suits CPUs. */
void use_work_group_kernels(kernel_params *params);

/* The -D options for these parameters, the fixed sizes and the distance type, into buf (int32
 * defines no type: its options stay as they always were). Returns buf. */
/* The distance type's defines beyond int32's (cl/fw.cl: DIST, FLOAT_DIST, FP64) and its INF. */
const char *dtype_defines(apsp_dtype dtype, char *buf, size_t size);
const char *kernel_defines(const kernel_params *params, apsp_dtype dtype, char *buf, size_t size);

/* The work-group edge of fw_transpose at this round depth. */
int copy_edge(const kernel_params *params);

/* Whether two work-group dimensions fit the device. */
int group_fits(const device_limits *limits, size_t cols, size_t rows);

#endif
