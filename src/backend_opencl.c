/* The OpenCL backend: device discovery, kernel build, banded device buffers, the three phases.
 *
 * The distance matrix lives on the device padded to n (a multiple of the round depth TILE and of
 * the phase-3 block edges), as row bands of whole tile rows, one buffer per band, so
 * that a matrix larger than the driver's biggest single allocation still fits. Besides the bands
 * there are two pairs of panel buffers, TILE x n each; round r uses pair r % 2:
 *     row panel: the TILE pivot rows;
 *     col panel: the TILE pivot columns, transposed (k-major like the row panel).
 * Round 0's panels are copied from the bands (a buffer copy, and fw_col_panel per band). Phase 1
 * closes the pivot block (into both panels), phase 2 (one launch) updates the pivot row blocks in
 * the row panel, and phase 3 (one launch per band) relaxes the whole band against the panels,
 * which also gives the band's pivot row and column their new values: the pivot column needs no
 * phase 2 of its own (cl/fw.cl shows why), and nothing is copied back. Phase 3 also writes the
 * next round's pivot rows and columns into the other pair, so no copies run between rounds.
 * Kernel parameters come from a small per-device table (param_table), adapted to the round depth
 * and the device's limits; tests/gpu/tune.sh searches for new entries.
 * All commands go to one in-order queue; the host waits only after upload, at the end, and when
 * a progress callback is set, on the round a few rounds behind the one being queued.
 *
 * Everything about one device sits in cl_state, so that one solve could later span several
 * devices, each with its own bands.
 *
 * Statuses: a --tile that is not a power of two is APSP_ERR_USAGE, as is a buffer cap
 * (--max-buffer-bytes, $APSP_MAX_BUFFER_BYTES) below one band of one tile's rows; a tile the
 * device cannot run (work-groups or local memory over its limits) is APSP_ERR_DEVICE, like every
 * failed OpenCL call; a matrix over the device's global memory (or one band over the driver's
 * largest allocation) is APSP_ERR_TOO_LARGE; a kernel that does not compile is
 * APSP_ERR_KERNEL_BUILD, with the options and the build log printed on stderr.
 *
 * Environment: APSP_KERNEL_DIR=DIR builds DIR/fw.cl instead of the embedded copy (kernel work
 * without rebuilding); APSP_MAX_BUFFER_BYTES=N[K|M|G] caps one buffer when the option does not;
 * APSP_KERNEL_PARAMS=NAME=N,... overrides kernel parameters (see override_params);
 * APSP_BUILD_OPTIONS, APSP_SHOW_BUILD and APSP_DUMP_PROGRAM help kernel work (see show_build);
 * APSP_PROFILE=1 prints the device time of each step of the rounds (see cl_state). */
#include "backend.h"
#include "cl_util.h"
#include "error.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tuning parameters of cl/fw.cl, passed as -D defines (see the comments there). */
typedef struct kernel_params {
    int tile;        /* TILE: round depth */
    int pivot_items; /* PIVOT_ITEMS: phases 1-2 work-group edge */
    int pivot_split; /* PIVOT_SPLIT: phase-2 work-groups per block (column slabs) */
    int k_chunk;     /* K_CHUNK */
    int thread_rows; /* THREAD_ROWS x THREAD_COLS: phase-3 micro-tile per work-item */
    int thread_cols;
    int group_rows; /* GROUP_ROWS x GROUP_COLS: phase-3 work-group */
    int group_cols;
    int vector;      /* VECTOR: ints per phase-3 load and store (1, 2 or 4) */
    int prefetch;    /* PREFETCH: 1 = phase 3 loads the next k-chunk during this one */
    int k_unroll;    /* K_UNROLL: phase-3 k-steps unrolled at a time; 0: all of K_CHUNK */
    int cpu_kernels; /* CPU_KERNELS: 1 = phases 2-3 one work-item per block, wide vectors */
} kernel_params;

enum {
    MAX_PIVOT_CELLS = 8, /* phases 1-2: at most 8 x 8 cells per work-item */
    MAX_COPY_EDGE = 16,  /* fw_col_panel: work-groups of up to 16 x 16 work-items */
    CPU_ROWS = 8,        /* CPU kernels: rows of a micro-tile (CPU_ROWS in cl/fw.cl) */
    CPU_COLS = 32,       /* CPU kernels: columns of a micro-tile and of a phase-2 slab */
    PROGRESS_LAG = 4,    /* rounds queued ahead of the one waited on for progress */
};

typedef struct device_limits {
    cl_device_type type;
    char vendor[128]; /* CL_DEVICE_VENDOR, to pick parameters */
    cl_ulong global_memory;
    cl_ulong max_allocation;
    cl_ulong local_memory;
    size_t max_work_group;
    size_t max_item[3];
} device_limits;

/* The steps of a round, for $APSP_PROFILE=1. */
enum { STEP_ROW_PANEL, STEP_COL_PANEL, STEP_PHASE1, STEP_PHASE2, STEP_PHASE3, STEP_COUNT };

typedef struct cl_band {
    cl_mem buffer;
    size_t row0; /* first row in the whole matrix */
    size_t rows;
} cl_band;

typedef struct cl_state {
    cl_platform_id platform;
    cl_device_id device;
    char name[256];
    device_limits limits;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel col_copy, phase1, phase2, phase3, pad;
    kernel_params params;
    const char *extra_options; /* the device's build options beyond the -D defines */
    char build_options[1024];
    size_t real_n;   /* vertices */
    size_t n;        /* padded size on the device */
    size_t row_unit; /* every band's height is a multiple of this */
    cl_band *bands;
    size_t band_count;
    cl_mem row_panel[2], col_panel[2]; /* round r uses pair r % 2 (see cl/fw.cl) */
    /* $APSP_PROFILE=1: every command of a round gets an event; the device time of each step is
     * summed after the round (which then waits for the device: the total grows, the steps do
     * not) and printed at the end. */
    int profile;
    cl_event *step_events;
    int *step_kinds;
    size_t step_count;
    double step_seconds[STEP_COUNT];
} cl_state;

static size_t gcd(size_t a, size_t b) {
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static size_t lcm(size_t a, size_t b) {
    return a / gcd(a, b) * b;
}

static int is_power_of_two(int x) {
    return x > 0 && (x & (x - 1)) == 0;
}

/* ---- discovery ---------------------------------------------------------------------------- */

/* Called for every available device in platform order; returns nonzero to stop. */
typedef int (*device_visitor)(void *context, cl_platform_id platform, cl_device_id device);

/* Visits every available OpenCL device. No loader, no platform (CL_PLATFORM_NOT_FOUND_KHR) or a
 * platform that fails to list its devices all mean "no devices": OpenCL trouble must never keep
 * the pthread backend from running. */
static apsp_status for_each_device(device_visitor visit, void *context, apsp_error *error) {
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(0, NULL, &platform_count) != CL_SUCCESS || platform_count == 0)
        return APSP_OK;
    cl_platform_id *platforms = apsp_calloc(platform_count, sizeof *platforms);
    if (!platforms)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing OpenCL platforms");
    if (clGetPlatformIDs(platform_count, platforms, &platform_count) != CL_SUCCESS)
        platform_count = 0;
    int stop = 0;
    for (cl_uint p = 0; p < platform_count && !stop; p++) {
        cl_uint device_count = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &device_count) !=
                CL_SUCCESS ||
            device_count == 0)
            continue;
        cl_device_id *devices = apsp_calloc(device_count, sizeof *devices);
        if (!devices) {
            free(platforms);
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing OpenCL devices");
        }
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, devices,
                           &device_count) != CL_SUCCESS)
            device_count = 0;
        for (cl_uint d = 0; d < device_count && !stop; d++) {
            cl_bool available = CL_FALSE;
            if (clGetDeviceInfo(devices[d], CL_DEVICE_AVAILABLE, sizeof available, &available,
                                NULL) == CL_SUCCESS &&
                available)
                stop = visit(context, platforms[p], devices[d]);
        }
        free(devices);
    }
    free(platforms);
    return APSP_OK;
}

static const char *type_word(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

/* Every clGetDeviceInfo query below has a fixed-size result; a failed one leaves 0. */
static void query_limits(cl_device_id device, device_limits *lim) {
    memset(lim, 0, sizeof *lim);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof lim->type, &lim->type, NULL);
    cl_device_string(device, CL_DEVICE_VENDOR, lim->vendor, sizeof lim->vendor);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof lim->global_memory,
                    &lim->global_memory, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof lim->max_allocation,
                    &lim->max_allocation, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lim->local_memory, &lim->local_memory,
                    NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof lim->max_work_group,
                    &lim->max_work_group, NULL);
    cl_uint dims = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL);
    if (dims >= 3) {
        size_t sizes[16] = {0};
        if (dims <= 16 && clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                          dims * sizeof sizes[0], sizes, NULL) == CL_SUCCESS)
            memcpy(lim->max_item, sizes, sizeof lim->max_item);
    }
}

typedef struct list_context {
    device_list *list;
    int count;
    int out_of_memory;
} list_context;

static int list_one(void *context, cl_platform_id platform, cl_device_id device) {
    list_context *lc = context;
    apsp_device_info *d = device_list_add(lc->list);
    if (!d) {
        lc->out_of_memory = 1;
        return 1;
    }
    device_limits lim;
    query_limits(device, &lim);
    cl_uint units = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    char driver[60], version[60]; /* both fit d->driver */
    cl_device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    cl_device_string(device, CL_DEVICE_VERSION, version, sizeof version);

    d->backend = APSP_BACKEND_OPENCL;
    d->backend_index = lc->count++;
    /* The platform's name, and its vendor where the name does not say it, so that a spec like
     * "pocl" or "amd" finds "Portable Computing Language (The pocl project)". */
    char name[96], vendor[96], first[96];
    cl_platform_string(platform, CL_PLATFORM_NAME, name, sizeof name);
    cl_platform_string(platform, CL_PLATFORM_VENDOR, vendor, sizeof vendor);
    snprintf(first, sizeof first, "%.*s", (int)strcspn(vendor, " ,"), vendor);
    if (vendor[0] && !contains_ignoring_case(name, first))
        snprintf(d->platform, sizeof d->platform, "%.*s (%.*s)", 60, name, 60, vendor);
    else
        snprintf(d->platform, sizeof d->platform, "%s", name);
    cl_device_string(device, CL_DEVICE_NAME, d->name, sizeof d->name);
    snprintf(d->type, sizeof d->type, "%s", type_word(lim.type));
    d->compute_units = units;
    d->global_memory = lim.global_memory;
    d->max_allocation = lim.max_allocation;
    d->local_memory = lim.local_memory;
    d->max_work_group = lim.max_work_group;
    /* "3.1+debian, OpenCL 3.0": the driver's version and the first two words of the device's. */
    int words = 0;
    for (char *c = version; *c; c++)
        if (*c == ' ' && ++words == 2)
            *c = '\0';
    snprintf(d->driver, sizeof d->driver, "%s, %s", driver, version);
    return 0;
}

static apsp_status opencl_list(device_list *list, apsp_error *error) {
    list_context lc = {.list = list};
    apsp_status status = for_each_device(list_one, &lc, error);
    if (status == APSP_OK && lc.out_of_memory)
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory listing devices");
    return status;
}

typedef struct find_context {
    int wanted, seen;
    cl_platform_id platform;
    cl_device_id device;
} find_context;

static int find_one(void *context, cl_platform_id platform, cl_device_id device) {
    find_context *fc = context;
    if (fc->seen++ != fc->wanted)
        return 0;
    fc->platform = platform;
    fc->device = device;
    return 1;
}

/* ---- kernel parameters ---------------------------------------------------------------------- */

static int group_fits(const device_limits *lim, size_t cols, size_t rows) {
    return cols * rows <= lim->max_work_group && cols <= lim->max_item[0] &&
           rows <= lim->max_item[1];
}

/* The parameter table, CLBlast's database idea in small: the first entry whose vendor and name
 * substrings and device type match the device gives its defaults (a vendor's architecture or
 * model first, then the vendor, then the device type). `tile` is the default round depth; the
 * other fields hold at every round depth, adapted to it and to the device's limits by
 * derive_params. tests/gpu/tune.sh searches a grid of these on a device and prints the entry to
 * add; tests/gpu/NOTES.md keeps what was measured. */
typedef struct param_entry {
    const char *vendor;  /* substring of CL_DEVICE_VENDOR (any case); NULL: any */
    const char *name;    /* substring of CL_DEVICE_NAME (any case); NULL: any */
    cl_device_type type; /* CL_DEVICE_TYPE_* bits, one of which must match; 0: any */
    kernel_params params;
    const char *options; /* build options for this driver beyond the -D defines */
} param_entry;

/* clang-format off */
static const param_entry param_table[] = {
    /* NVIDIA Hopper (H100, H200), NVIDIA OpenCL 3.0 (driver 580): measured on an H200 with
     * tests/gpu/tune.sh (tests/gpu/NOTES.md): 14.3 T relax/s at V = 20000, 14.8 T at 40000.
     * 64 x 128 blocks of 8 x 8 micro-tiles per work-group of 8 x 16 (153 registers: three
     * work-groups per multiprocessor), int4 accesses, 16-deep k-chunks double-buffered
     * (PREFETCH), the k-loop unrolled 8 steps at a time; phase 2 in 4 column slabs per block
     * (1, 2, 4 and 8 measured the same). */
    {"NVIDIA", "H200", CL_DEVICE_TYPE_GPU,
     {.tile = 128, .pivot_items = 16, .pivot_split = 4, .k_chunk = 16,
      .thread_rows = 8, .thread_cols = 8, .group_rows = 8, .group_cols = 16,
      .vector = 4, .prefetch = 1, .k_unroll = 8},
     ""},
    /* The H100 is the same chip with less and slower memory: the H200's entry, which measured
     * the same there (H100 80GB HBM3: 14.31 T relax/s at V = 20000, 14.80 T at 40000). */
    {"NVIDIA", "H100", CL_DEVICE_TYPE_GPU,
     {.tile = 128, .pivot_items = 16, .pivot_split = 4, .k_chunk = 16,
      .thread_rows = 8, .thread_cols = 8, .group_rows = 8, .group_cols = 16,
      .vector = 4, .prefetch = 1, .k_unroll = 8},
     ""},
    /* Other NVIDIA GPUs: Hopper's shape, not measured (every NVIDIA GPU since Kepler has 48 KB of
     * local memory per work-group and 64K registers per multiprocessor). */
    {"NVIDIA", NULL, CL_DEVICE_TYPE_GPU,
     {.tile = 128, .pivot_items = 16, .pivot_split = 4, .k_chunk = 16,
      .thread_rows = 8, .thread_cols = 8, .group_rows = 8, .group_cols = 16,
      .vector = 4, .prefetch = 1, .k_unroll = 8},
     ""},
    /* Other GPUs (AMD, Intel): the same shape, not measured. 32 KB of local memory; nothing
     * assumes a sub-group width (AMD's wavefronts are 64 wide). */
    {NULL, NULL, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR,
     {.tile = 128, .pivot_items = 16, .pivot_split = 4, .k_chunk = 16,
      .thread_rows = 8, .thread_cols = 8, .group_rows = 8, .group_cols = 16,
      .vector = 4, .prefetch = 1, .k_unroll = 8},
     ""},
    /* CPUs (PoCL): the CPU kernels, one work-item per 64 x 64 block, which the compiler turns
     * into the pthread backend's SIMD micro-kernel; round depth 128 halves the matrix traffic of
     * 64 (measured on 2 Zen 4 cores, docs/performance.md). Tiles below 32 fall back to the
     * work-group kernels, with 4 x 4 scalar micro-tiles. */
    {NULL, NULL, CL_DEVICE_TYPE_CPU,
     {.tile = 128, .pivot_items = 16, .pivot_split = 1, .k_chunk = 32,
      .thread_rows = 64, .thread_cols = 64, .group_rows = 1, .group_cols = 1,
      .vector = 1, .prefetch = 0, .k_unroll = 0, .cpu_kernels = 1},
     ""},
    /* Anything else. */
    {NULL, NULL, 0,
     {.tile = 64, .pivot_items = 16, .pivot_split = 1, .k_chunk = 16,
      .thread_rows = 4, .thread_cols = 4, .group_rows = 16, .group_cols = 16,
      .vector = 4, .prefetch = 0, .k_unroll = 0},
     ""},
};
/* clang-format on */

static const param_entry *find_entry(const device_limits *lim, const char *device_name) {
    size_t count = sizeof param_table / sizeof param_table[0];
    for (size_t e = 0; e + 1 < count; e++) {
        const param_entry *entry = &param_table[e];
        if ((!entry->vendor || contains_ignoring_case(lim->vendor, entry->vendor)) &&
            (!entry->name || contains_ignoring_case(device_name, entry->name)) &&
            (!entry->type || (entry->type & lim->type)))
            return entry;
    }
    return &param_table[count - 1];
}

/* Local memory the kernels need, in bytes: the most any of them declares. */
static uint64_t local_bytes(const kernel_params *p) {
    uint64_t tile = (uint64_t)p->tile, chunk = (uint64_t)p->k_chunk;
    uint64_t edge = (uint64_t)(p->tile < MAX_COPY_EDGE ? p->tile : MAX_COPY_EDGE);
    uint64_t phase1 = 4 * tile * 4;
    uint64_t phase2 = (tile + tile / (uint64_t)p->pivot_split) * chunk * 4;
    uint64_t phase3 = (p->prefetch ? 2u : 1u) *
                      ((uint64_t)p->group_rows * (uint64_t)p->thread_rows +
                       (uint64_t)p->group_cols * (uint64_t)p->thread_cols) *
                      chunk * 4;
    uint64_t copy = edge * (edge + 1) * 4;
    uint64_t need = phase1 > phase2 ? phase1 : phase2;
    need = need > phase3 ? need : phase3;
    return need > copy ? need : copy;
}

/* The entry's parameters at round depth `tile`, fitted to the device where that is possible:
 * PIVOT_ITEMS such that each work-item of phases 1-2 has at most 8 x 8 cells and the work-group
 * fits; K_CHUNK at most the tile, and halved while local memory is short; phase-3 work-groups
 * halved while they do not fit. What still does not fit is left for check_params to report. */
static void derive_params(const param_entry *entry, int tile, const device_limits *lim,
                          kernel_params *p) {
    *p = entry->params;
    p->tile = tile;
    if (p->pivot_items > tile)
        p->pivot_items = tile;
    while (tile / p->pivot_items > MAX_PIVOT_CELLS)
        p->pivot_items *= 2;
    while (p->pivot_items > 1 && tile / (p->pivot_items / 2) <= MAX_PIVOT_CELLS &&
           !group_fits(lim, (size_t)p->pivot_items, (size_t)p->pivot_items))
        p->pivot_items /= 2;
    while ((tile / p->pivot_items) % p->pivot_split)
        p->pivot_split /= 2;
    if (p->k_chunk > tile)
        p->k_chunk = tile;
    while (p->group_rows * p->group_cols > 1 &&
           !group_fits(lim, (size_t)p->group_cols, (size_t)p->group_rows)) {
        if (p->group_rows >= p->group_cols)
            p->group_rows /= 2;
        else
            p->group_cols /= 2;
    }
    while (local_bytes(p) > lim->local_memory && (p->prefetch || p->k_chunk > 1)) {
        if (p->prefetch)
            p->prefetch = 0;
        else
            p->k_chunk /= 2;
    }
    if (p->k_unroll >= p->k_chunk)
        p->k_unroll = 0; /* the whole chunk */
}

/* --kernel-params or else $APSP_KERNEL_PARAMS, e.g. "K_CHUNK=16,THREAD_ROWS=2", overrides
 * parameters (for tuning and for testing other shapes); TILE is --tile's. PIVOT_SPLIT is capped
 * to what the round depth allows (TILE / PIVOT_ITEMS), so that one setting serves every --tile. */
static apsp_status override_params(const apsp_options *options, kernel_params *p,
                                   apsp_error *error) {
    const char *source = options->kernel_params ? "--kernel-params" : "APSP_KERNEL_PARAMS";
    const char *text = options->kernel_params ? options->kernel_params : getenv(source);
    if (!text || !*text)
        return APSP_OK;
    static const struct {
        const char *name;
        size_t offset;
        long least;
    } fields[] = {
        {"PIVOT_ITEMS", offsetof(kernel_params, pivot_items), 1},
        {"PIVOT_SPLIT", offsetof(kernel_params, pivot_split), 1},
        {"K_CHUNK", offsetof(kernel_params, k_chunk), 1},
        {"THREAD_ROWS", offsetof(kernel_params, thread_rows), 1},
        {"THREAD_COLS", offsetof(kernel_params, thread_cols), 1},
        {"GROUP_ROWS", offsetof(kernel_params, group_rows), 1},
        {"GROUP_COLS", offsetof(kernel_params, group_cols), 1},
        {"VECTOR", offsetof(kernel_params, vector), 1},
        {"PREFETCH", offsetof(kernel_params, prefetch), 0},
        {"K_UNROLL", offsetof(kernel_params, k_unroll), 0},
        {"CPU_KERNELS", offsetof(kernel_params, cpu_kernels), 0},
    };
    const char *s = text;
    while (*s) {
        size_t len = strcspn(s, "=");
        size_t f = 0;
        while (f < sizeof fields / sizeof fields[0] &&
               !(strlen(fields[f].name) == len && strncmp(fields[f].name, s, len) == 0))
            f++;
        char *end = (char *)s;
        errno = 0;
        long v = s[len] == '=' ? strtol(s + len + 1, &end, 10) : 0;
        if (f == sizeof fields / sizeof fields[0] || s[len] != '=' || errno ||
            v < fields[f].least || v > 1024 || end == s + len + 1 || (*end != ',' && *end != '\0'))
            return fail(error, APSP_ERR_USAGE,
                        "%s=%s: expected NAME=N[,NAME=N...] with NAME one of "
                        "PIVOT_ITEMS, PIVOT_SPLIT, K_CHUNK, THREAD_ROWS, THREAD_COLS, GROUP_ROWS, "
                        "GROUP_COLS, "
                        "VECTOR, PREFETCH, K_UNROLL, CPU_KERNELS",
                        source, text);
        *(int *)((char *)p + fields[f].offset) = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    while (p->pivot_split > 1 && p->tile % p->pivot_items == 0 &&
           (p->tile / p->pivot_items) % p->pivot_split)
        p->pivot_split /= 2;
    return APSP_OK;
}

/* Checks parameters against the kernel's rules and the device's limits: a misfit is
 * APSP_ERR_DEVICE (exit 6, "tile does not fit"); `explicit` says whether the user chose it. */
static apsp_status check_params(const kernel_params *p, const device_limits *lim,
                                const char *device_name, int explicit, apsp_error *error) {
    apsp_status status = APSP_ERR_DEVICE;
    char what[32];
    snprintf(what, sizeof what, explicit ? "--tile=%d" : "tile %d", p->tile);
    if (p->tile % p->pivot_items != 0 || p->tile % p->k_chunk != 0)
        return fail(error, APSP_ERR_USAGE,
                    "%s: must be a multiple of PIVOT_ITEMS (%d) and K_CHUNK (%d)", what,
                    p->pivot_items, p->k_chunk);
    if ((p->vector != 1 && p->vector != 2 && p->vector != 4) || p->thread_rows % p->vector ||
        p->thread_cols % p->vector || p->prefetch > 1 || (p->k_unroll && p->k_chunk % p->k_unroll))
        return fail(error, APSP_ERR_USAGE,
                    "kernel parameters: VECTOR (%d) must be 1, 2 or 4 and divide THREAD_ROWS (%d) "
                    "and THREAD_COLS (%d); PREFETCH (%d) must be 0 or 1; K_UNROLL (%d) must "
                    "divide K_CHUNK (%d)",
                    p->vector, p->thread_rows, p->thread_cols, p->prefetch, p->k_unroll,
                    p->k_chunk);
    if ((p->tile / p->pivot_items) % p->pivot_split)
        return fail(error, APSP_ERR_USAGE,
                    "%s: PIVOT_SPLIT (%d) must divide TILE / PIVOT_ITEMS (%d)", what,
                    p->pivot_split, p->tile / p->pivot_items);
    if (p->tile / p->pivot_items > MAX_PIVOT_CELLS)
        return fail(error, status,
                    "%s does not fit %s: phases 1-2 need work-groups of at least %d x %d "
                    "work-items and the device allows %zu",
                    what, device_name, p->tile / MAX_PIVOT_CELLS, p->tile / MAX_PIVOT_CELLS,
                    lim->max_work_group);
    size_t edge = (size_t)(p->tile < MAX_COPY_EDGE ? p->tile : MAX_COPY_EDGE);
    const struct {
        const char *kernel; /* "... need(s) work-groups of" */
        size_t cols, rows;
    } groups[] = {
        {"phases 1-2 need", (size_t)p->pivot_items, (size_t)p->pivot_items},
        {"phase 3 needs", (size_t)p->group_cols, (size_t)p->group_rows},
        {"the column copy needs", edge, edge},
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        if (!group_fits(lim, groups[g].cols, groups[g].rows))
            return fail(error, status,
                        "%s does not fit %s: %s work-groups of %zu x %zu work-items and the device "
                        "allows %zu (per dimension %zu x %zu)",
                        what, device_name, groups[g].kernel, groups[g].cols, groups[g].rows,
                        lim->max_work_group, lim->max_item[0], lim->max_item[1]);
    uint64_t need = local_bytes(p);
    if (need > lim->local_memory)
        return fail(error, status,
                    "%s does not fit %s: the kernels need %llu bytes of local memory and the "
                    "device has %llu",
                    what, device_name, (unsigned long long)need,
                    (unsigned long long)lim->local_memory);
    return APSP_OK;
}

/* The parameters: the device's table entry at --tile's round depth, checked; or at the entry's
 * own depth, halved until it fits. $APSP_KERNEL_PARAMS applies to either. */
static apsp_status choose_params(const apsp_options *options, const device_limits *lim,
                                 const char *device_name, kernel_params *p,
                                 const char **extra_options, apsp_error *error) {
    const param_entry *entry = find_entry(lim, device_name);
    *extra_options = entry->options;
    if (options->tile != 0) {
        if (!is_power_of_two(options->tile))
            return fail(error, APSP_ERR_USAGE,
                        "--tile=%d: the OpenCL backend needs a power of two (8, 16, 32, 64, ...)",
                        options->tile);
        derive_params(entry, options->tile, lim, p);
        apsp_status status = override_params(options, p, error);
        if (status == APSP_OK)
            status = check_params(p, lim, device_name, 1, error);
        return status;
    }
    for (int tile = entry->params.tile;; tile /= 2) {
        derive_params(entry, tile, lim, p);
        apsp_status status = override_params(options, p, error);
        if (status != APSP_OK)
            return status;
        status = check_params(p, lim, device_name, 0, error);
        if (status == APSP_OK || tile == 1)
            return status;
    }
}

/* ---- set-up ---------------------------------------------------------------------------------- */

/* $APSP_MAX_BUFFER_BYTES: "65536", "64K", "512M", "2G". */
static apsp_status env_buffer_cap(uint64_t *cap, apsp_error *error) {
    const char *text = getenv("APSP_MAX_BUFFER_BYTES");
    *cap = 0;
    if (!text || !*text)
        return APSP_OK;
    if (apsp_parse_bytes(text, cap) != 0)
        return fail(error, APSP_ERR_USAGE,
                    "APSP_MAX_BUFFER_BYTES=%s: expected a positive size like 64K or 512M", text);
    return APSP_OK;
}

/* The CPU kernels take whole micro-tiles of CPU_ROWS x CPU_COLS and phase-2 slabs of CPU_COLS. */
static int cpu_kernels_fit(const kernel_params *p) {
    return p->tile % CPU_COLS == 0 && p->group_rows == 1 && p->group_cols == 1 &&
           p->thread_rows % CPU_ROWS == 0 && p->thread_cols % CPU_COLS == 0;
}

/* Round depths below CPU_COLS, bands lower than CPU_ROWS rows, CPU_KERNELS=0 or a work-group
 * shape asked for in the kernel parameters: the work-group kernels. The CPU entry's one-item
 * shape becomes the one that suits CPUs there (4 x 4 scalar micro-tiles): the work-group
 * kernels are not meant for one work-item with thousands of cells (PoCL 3.1's compiler even
 * aborts on them). */
static void use_work_group_kernels(kernel_params *p) {
    p->cpu_kernels = 0;
    if (p->group_rows == 1 && p->group_cols == 1) {
        p->thread_rows = p->thread_cols = 4;
        p->group_rows = p->group_cols = 16;
        p->vector = 1;
        p->prefetch = 0;
    }
}

/* Decides the padded size and the bands; refuses what cannot fit. Bands are whole multiples of
 * row_unit = lcm(TILE, phase-3 block height) rows, so that the pivot rows lie in one band and
 * phase 3 tiles every band exactly; n is also a multiple of the phase-3 block width. */
static apsp_status plan_layout(cl_state *s, const apsp_options *options, apsp_error *error) {
    kernel_params *p = &s->params;
    char need[32], have[32];
    uint64_t cap = s->limits.max_allocation, user_cap = options->max_buffer_bytes;
    const char *cap_source = "the device's largest single allocation";
    const char *user_source = "--max-buffer-bytes";
    if (!user_cap) {
        apsp_status status = env_buffer_cap(&user_cap, error);
        if (status != APSP_OK)
            return status;
        user_source = "APSP_MAX_BUFFER_BYTES";
    }
    int user_limited = user_cap && user_cap < cap;
    if (user_limited) {
        cap = user_cap;
        cap_source = user_source;
    }

    size_t row_unit, unit;
    uint64_t unit_bytes; /* one band of the least height */
    for (;;) {
        if (!p->cpu_kernels || !cpu_kernels_fit(p))
            use_work_group_kernels(p);
        size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
        row_unit = lcm((size_t)p->tile, block_rows);
        unit = lcm(row_unit, (size_t)(p->group_cols * p->thread_cols));
        s->n = (s->real_n + unit - 1) / unit * unit;
        unit_bytes = (uint64_t)row_unit * s->n * 4;
        if (unit_bytes <= cap || row_unit == (size_t)p->tile)
            break;
        /* Under a tight buffer cap, lower phase-3 blocks allow bands as low as one tile. */
        if (p->group_rows > 1)
            p->group_rows /= 2;
        else if (p->thread_rows > 1)
            p->thread_rows /= 2;
        else
            break;
        while (p->thread_rows % p->vector)
            p->vector /= 2;
    }
    s->row_unit = row_unit;
    /* The kernels index within a band and the panels in int. */
    if ((uint64_t)s->n * ((uint64_t)row_unit + (uint64_t)p->tile + 1) > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu is too large for the OpenCL kernels",
                    s->real_n);
    uint64_t n = s->n;
    uint64_t matrix = n * n * 4, panels = 4 * n * (uint64_t)p->tile * 4;
    if (matrix + panels > s->limits.global_memory)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "V = %zu: the %llu x %llu distance matrix and its panels need %s but %s has "
                    "%s of global memory",
                    s->real_n, (unsigned long long)n, (unsigned long long)n,
                    format_bytes(matrix + panels, need, sizeof need), s->name,
                    format_bytes(s->limits.global_memory, have, sizeof have));
    if (unit_bytes > cap)
        return fail(error, user_limited ? APSP_ERR_USAGE : APSP_ERR_TOO_LARGE,
                    "V = %zu: the smallest band of the matrix (%zu rows of %llu) needs %s but "
                    "one buffer may hold at most %s (%s)",
                    s->real_n, row_unit, (unsigned long long)n,
                    format_bytes(unit_bytes, need, sizeof need),
                    format_bytes(cap, have, sizeof have), cap_source);

    /* As few bands as the cap allows, of even heights in whole units. */
    size_t units = s->n / row_unit;
    size_t units_per_band = (size_t)(cap / unit_bytes);
    size_t bands = (units + units_per_band - 1) / units_per_band;
    units_per_band = (units + bands - 1) / bands;
    bands = (units + units_per_band - 1) / units_per_band;
    /* band_count counts the entries of `bands` that exist, for close_device. */
    s->bands = apsp_calloc(bands, sizeof *s->bands);
    if (!s->bands)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory planning %zu buffers", bands);
    s->band_count = bands;
    for (size_t b = 0; b < s->band_count; b++) {
        s->bands[b].row0 = b * units_per_band * row_unit;
        size_t end = s->bands[b].row0 + units_per_band * row_unit;
        s->bands[b].rows = (end < s->n ? end : s->n) - s->bands[b].row0;
    }
    return APSP_OK;
}

/* Development aids after a successful build: $APSP_SHOW_BUILD=1 prints the options and the build
 * log on stderr (with -cl-nv-verbose in $APSP_BUILD_OPTIONS, NVIDIA's log gives each kernel's
 * registers and spills); $APSP_DUMP_PROGRAM=FILE writes the program binary (PTX on NVIDIA). */
static void show_build(const cl_state *s) {
    const char *show = getenv("APSP_SHOW_BUILD");
    if (show && strcmp(show, "1") == 0) {
        char *log = cl_build_log(s->program, s->device);
        fprintf(stderr, "apsp: built for %s with '%s'; build log:\n%s\n", s->name, s->build_options,
                log ? log : "(empty)");
        free(log);
    }
    const char *dump = getenv("APSP_DUMP_PROGRAM");
    if (!dump || !*dump)
        return;
    size_t size = 0;
    unsigned char *binary = NULL;
    if (clGetProgramInfo(s->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) ==
            CL_SUCCESS &&
        size > 0 && (binary = malloc(size)) != NULL &&
        clGetProgramInfo(s->program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) ==
            CL_SUCCESS) {
        FILE *f = fopen(dump, "wb");
        if (f) {
            fwrite(binary, 1, size, f);
            fclose(f);
        }
    }
    free(binary);
}

static apsp_status build_program(cl_state *s, apsp_error *error) {
    const kernel_params *p = &s->params;
    /* $APSP_BUILD_OPTIONS adds build options (e.g. -cl-nv-verbose, -cl-nv-maxrregcount=128). */
    const char *more = getenv("APSP_BUILD_OPTIONS");
    snprintf(s->build_options, sizeof s->build_options,
             "-DTILE=%d -DPIVOT_ITEMS=%d -DPIVOT_SPLIT=%d -DK_CHUNK=%d -DTHREAD_ROWS=%d "
             "-DTHREAD_COLS=%d "
             "-DGROUP_ROWS=%d -DGROUP_COLS=%d -DVECTOR=%d -DPREFETCH=%d -DK_UNROLL=%d "
             "-DCPU_KERNELS=%d -DCPU_ROWS=%d -DCPU_COLS=%d -DCOPY_EDGE=%d -DINF=%d%s%s%s%s",
             p->tile, p->pivot_items, p->pivot_split, p->k_chunk, p->thread_rows, p->thread_cols,
             p->group_rows, p->group_cols, p->vector, p->prefetch,
             p->k_unroll ? p->k_unroll : p->k_chunk, p->cpu_kernels, CPU_ROWS, CPU_COLS,
             p->tile < MAX_COPY_EDGE ? p->tile : MAX_COPY_EDGE, APSP_INF,
             s->extra_options && *s->extra_options ? " " : "",
             s->extra_options ? s->extra_options : "", more && *more ? " " : "", more ? more : "");
    char *source, origin[1024];
    apsp_status status = cl_load_source("fw.cl", &source, origin, sizeof origin, error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    const char *text = source;
    s->program = FAULT_CL_OBJECT(&err, clCreateProgramWithSource(s->context, 1, &text, NULL, &err));
    free(source);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateProgramWithSource(%s)", origin);
    err = FAULT_CL_STATUS(clBuildProgram(s->program, 1, &s->device, s->build_options, NULL, NULL));
    if (err != CL_SUCCESS) {
        /* The log is many lines; the error message is one. Print the failure and the log on
         * stderr now, and return the same line. */
        cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clBuildProgram(%s) for %s with options '%s'",
                origin, s->name, s->build_options);
        char *log = cl_build_log(s->program, s->device);
        if (error)
            fprintf(stderr, "apsp: %s; build log:\n%s\n", error->message,
                    log ? log : "(the driver gave no build log)");
        free(log);
        return APSP_ERR_KERNEL_BUILD;
    }
    show_build(s);
    struct {
        cl_kernel *kernel;
        const char *name;
        size_t items;
    } kernels[] = {
        {&s->col_copy, "fw_col_panel",
         (size_t)(p->tile < MAX_COPY_EDGE ? p->tile * p->tile : MAX_COPY_EDGE * MAX_COPY_EDGE)},
        {&s->phase1, "fw_phase1", (size_t)p->pivot_items * (size_t)p->pivot_items},
        {&s->phase2, "fw_phase2",
         p->cpu_kernels ? 1 : (size_t)p->pivot_items * (size_t)p->pivot_items},
        {&s->phase3, "fw_phase3", (size_t)p->group_rows * (size_t)p->group_cols},
        {&s->pad, "fw_pad", 1},
    };
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        *kernels[k].kernel =
            FAULT_CL_OBJECT(&err, clCreateKernel(s->program, kernels[k].name, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(%s)",
                           kernels[k].name);
        /* A kernel's own limit can be below the device's (registers, local memory). */
        size_t most = 0;
        err = clGetKernelWorkGroupInfo(*kernels[k].kernel, s->device, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof most, &most, NULL);
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clGetKernelWorkGroupInfo(%s)",
                           kernels[k].name);
        if (most < kernels[k].items)
            return fail(error, APSP_ERR_DEVICE,
                        "tile %d: kernel %s needs work-groups of %zu work-items but %s runs it "
                        "with at most %zu (options '%s')",
                        p->tile, kernels[k].name, kernels[k].items, s->name, most,
                        s->build_options);
    }
    return APSP_OK;
}

static apsp_status create_buffers(cl_state *s, apsp_error *error) {
    cl_int err;
    for (size_t b = 0; b < s->band_count; b++) {
        s->bands[b].buffer = FAULT_CL_OBJECT(
            &err, clCreateBuffer(s->context, CL_MEM_READ_WRITE,
                                 s->bands[b].rows * s->n * sizeof(cl_int), NULL, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(band %zu of %zu rows)", b,
                           s->bands[b].rows);
    }
    size_t panel = (size_t)s->params.tile * s->n * sizeof(cl_int);
    for (int k = 0; k < 2; k++) {
        s->row_panel[k] =
            FAULT_CL_OBJECT(&err, clCreateBuffer(s->context, CL_MEM_READ_WRITE, panel, NULL, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(row panel)");
        s->col_panel[k] =
            FAULT_CL_OBJECT(&err, clCreateBuffer(s->context, CL_MEM_READ_WRITE, panel, NULL, &err));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(column panel)");
    }
    return APSP_OK;
}

static apsp_status open_device(cl_state *s, const apsp_device_info *device, apsp_error *error) {
    find_context fc = {.wanted = device->backend_index};
    apsp_status status = for_each_device(find_one, &fc, error);
    if (status != APSP_OK)
        return status;
    if (!fc.device)
        return fail(error, APSP_ERR_NO_DEVICE, "OpenCL device %d (%s) is gone", device->index,
                    device->name);
    s->platform = fc.platform;
    s->device = fc.device;
    cl_device_string(s->device, CL_DEVICE_NAME, s->name, sizeof s->name);
    query_limits(s->device, &s->limits);
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)s->platform, 0};
    s->context = FAULT_CL_OBJECT(&err, clCreateContext(props, 1, &s->device, NULL, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateContext(%s)", s->name);
    const char *profile = getenv("APSP_PROFILE");
    s->profile = profile && strcmp(profile, "1") == 0;
    s->queue = FAULT_CL_OBJECT(
        &err, clCreateCommandQueue(s->context, s->device,
                                   s->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateCommandQueue(%s)", s->name);
    return APSP_OK;
}

static void close_device(cl_state *s) {
    if (s->queue)
        clFinish(s->queue);
    for (size_t b = 0; b < s->band_count; b++)
        if (s->bands[b].buffer)
            clReleaseMemObject(s->bands[b].buffer);
    free(s->bands);
    for (size_t k = 0; k < s->step_count; k++)
        clReleaseEvent(s->step_events[k]);
    free(s->step_events);
    free(s->step_kinds);
    for (int k = 0; k < 2; k++) {
        if (s->row_panel[k])
            clReleaseMemObject(s->row_panel[k]);
        if (s->col_panel[k])
            clReleaseMemObject(s->col_panel[k]);
    }
    cl_kernel kernels[] = {s->col_copy, s->phase1, s->phase2, s->phase3, s->pad};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        if (kernels[k])
            clReleaseKernel(kernels[k]);
    if (s->program)
        clReleaseProgram(s->program);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    if (s->context)
        clReleaseContext(s->context);
    memset(s, 0, sizeof *s);
}

/* ---- transfers and rounds ------------------------------------------------------------------ */

/* Sets kernel argument `index`, reporting the kernel's name on failure. */
#define SET_ARG(kernel, name, index, value)                                                        \
    do {                                                                                           \
        cl_int e_ = clSetKernelArg(kernel, index, sizeof(value), &(value));                        \
        if (e_ != CL_SUCCESS)                                                                      \
            return cl_fail(error, APSP_ERR_DEVICE, e_, "clSetKernelArg(%s, %d)", name, index);     \
    } while (0)

/* A band's real rows (none when it is all padding) as the origins and region of a rect copy
 * between the band (pitch n) and the host matrix (pitch stride). */
typedef struct band_rect {
    size_t device_origin[3], host_origin[3], region[3];
} band_rect;

static int band_has_real_rows(const cl_state *s, const cl_band *band, band_rect *rect) {
    if (band->row0 >= s->real_n)
        return 0;
    size_t end = band->row0 + band->rows < s->real_n ? band->row0 + band->rows : s->real_n;
    *rect = (band_rect){.host_origin = {0, band->row0, 0},
                        .region = {s->real_n * sizeof(cl_int), end - band->row0, 1}};
    return 1;
}

static apsp_status upload(cl_state *s, const apsp_matrix *m, apsp_error *error) {
    cl_int err, n = (cl_int)s->n, real_n = (cl_int)s->real_n;
    for (size_t b = 0; b < s->band_count; b++) {
        const cl_band *band = &s->bands[b];
        band_rect r;
        if (band_has_real_rows(s, band, &r)) {
            err = FAULT_CL_STATUS(clEnqueueWriteBufferRect(
                s->queue, band->buffer, CL_FALSE, r.device_origin, r.host_origin, r.region,
                s->n * sizeof(cl_int), 0, m->stride * sizeof(cl_int), 0, m->data, 0, NULL, NULL));
            if (err != CL_SUCCESS)
                return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBufferRect(band %zu)",
                               b);
        }
        if (s->n > s->real_n) {
            cl_int row0 = (cl_int)band->row0;
            SET_ARG(s->pad, "pad", 0, band->buffer);
            SET_ARG(s->pad, "pad", 1, n);
            SET_ARG(s->pad, "pad", 2, row0);
            SET_ARG(s->pad, "pad", 3, real_n);
            size_t global[2] = {s->n, band->rows};
            err = FAULT_CL_STATUS(
                clEnqueueNDRangeKernel(s->queue, s->pad, 2, NULL, global, NULL, 0, NULL, NULL));
            if (err != CL_SUCCESS)
                return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(pad, band %zu)",
                               b);
        }
    }
    err = FAULT_CL_STATUS(clFinish(s->queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(upload)");
    return APSP_OK;
}

static apsp_status download(cl_state *s, apsp_matrix *m, apsp_error *error) {
    cl_int err;
    band_rect r;
    for (size_t b = 0; b < s->band_count && band_has_real_rows(s, &s->bands[b], &r); b++) {
        err = FAULT_CL_STATUS(clEnqueueReadBufferRect(
            s->queue, s->bands[b].buffer, CL_FALSE, r.device_origin, r.host_origin, r.region,
            s->n * sizeof(cl_int), 0, m->stride * sizeof(cl_int), 0, m->data, 0, NULL, NULL));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBufferRect(band %zu)", b);
    }
    err = FAULT_CL_STATUS(clFinish(s->queue));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(download)");
    return APSP_OK;
}

/* Queues round r: the panel copies, phase 1, phase 2 and phase 3 per band. When `done` is not
 * NULL it receives an event that completes with the round. */
/* Where the next command of step `kind` puts its event: NULL unless profiling. */
static cl_event *step_event(cl_state *s, int kind) {
    if (!s->profile)
        return NULL;
    s->step_kinds[s->step_count] = kind;
    return &s->step_events[s->step_count++];
}

/* Waits for the round's commands and adds their device times to the steps' sums. */
static apsp_status collect_steps(cl_state *s, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(clFinish(s->queue));
    for (size_t k = 0; k < s->step_count; k++) {
        cl_ulong start = 0, end = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(s->step_events[k], CL_PROFILING_COMMAND_START,
                                          sizeof start, &start, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(s->step_events[k], CL_PROFILING_COMMAND_END, sizeof end,
                                          &end, NULL);
        if (err == CL_SUCCESS)
            s->step_seconds[s->step_kinds[k]] += 1e-9 * (double)(end - start);
        clReleaseEvent(s->step_events[k]);
    }
    s->step_count = 0;
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "profiling a round");
    return APSP_OK;
}

/* Queues the copies of round 0's panels from the bands (later rounds' come from phase 3). */
static apsp_status queue_first_panels(cl_state *s, apsp_error *error) {
    const size_t tile = (size_t)s->params.tile, row_bytes = s->n * sizeof(cl_int);
    cl_int err = FAULT_CL_STATUS(clEnqueueCopyBuffer(s->queue, s->bands[0].buffer, s->row_panel[0],
                                                     0, 0, tile * row_bytes, 0, NULL,
                                                     step_event(s, STEP_ROW_PANEL)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueCopyBuffer(row panel)");
    /* The pivot columns, transposed into the col panel by fw_col_panel, band by band. */
    const size_t edge = tile < MAX_COPY_EDGE ? tile : MAX_COPY_EDGE;
    size_t copy_local[2] = {edge, edge};
    cl_int n = (cl_int)s->n, r = 0;
    SET_ARG(s->col_copy, "col_panel", 1, s->col_panel[0]);
    SET_ARG(s->col_copy, "col_panel", 2, n);
    SET_ARG(s->col_copy, "col_panel", 4, r);
    for (size_t b = 0; b < s->band_count; b++) {
        cl_int row0 = (cl_int)s->bands[b].row0;
        SET_ARG(s->col_copy, "col_panel", 0, s->bands[b].buffer);
        SET_ARG(s->col_copy, "col_panel", 3, row0);
        size_t global[2] = {s->bands[b].rows, tile};
        err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(s->queue, s->col_copy, 2, NULL, global,
                                                     copy_local, 0, NULL,
                                                     step_event(s, STEP_COL_PANEL)));
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err,
                           "clEnqueueNDRangeKernel(col_panel, band %zu)", b);
    }
    return APSP_OK;
}

/* Queues round r: phase 1, phase 2 and phase 3 per band, on panel pair r % 2; phase 3 writes
 * the next round's panels into the other pair. When `done` is not NULL it receives an event
 * that completes with the round. */
static apsp_status queue_round(cl_state *s, cl_int r, cl_event *done, apsp_error *error) {
    const kernel_params *p = &s->params;
    const size_t tile = (size_t)p->tile, rounds = s->n / tile;
    cl_mem row_panel = s->row_panel[r % 2], col_panel = s->col_panel[r % 2];
    cl_mem next_row_panel = s->row_panel[(r + 1) % 2], next_col_panel = s->col_panel[(r + 1) % 2];
    cl_int next = (size_t)r + 1 < rounds ? (r + 1) * (cl_int)tile : -1;
    cl_int err;

    SET_ARG(s->phase1, "phase1", 0, row_panel);
    SET_ARG(s->phase1, "phase1", 1, col_panel);
    SET_ARG(s->phase1, "phase1", 3, r);
    size_t pivot_local[2] = {(size_t)p->pivot_items, (size_t)p->pivot_items};
    err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(s->queue, s->phase1, 2, NULL, pivot_local,
                                                 pivot_local, 0, NULL, step_event(s, STEP_PHASE1)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(phase1, round %d)",
                       (int)r);

    SET_ARG(s->phase2, "phase2", 0, row_panel);
    SET_ARG(s->phase2, "phase2", 1, col_panel);
    SET_ARG(s->phase2, "phase2", 3, r);
    size_t phase2_global[2] = {(size_t)(p->pivot_items * p->pivot_split) * (s->n / tile),
                               (size_t)p->pivot_items};
    size_t cpu_global[2] = {s->n / CPU_COLS, 1}, cpu_local[2] = {1, 1}; /* a slab per item */
    err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(
        s->queue, s->phase2, 2, NULL, p->cpu_kernels ? cpu_global : phase2_global,
        p->cpu_kernels ? cpu_local : pivot_local, 0, NULL, step_event(s, STEP_PHASE2)));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(phase2, round %d)",
                       (int)r);

    size_t block_rows = (size_t)(p->group_rows * p->thread_rows);
    size_t block_cols = (size_t)(p->group_cols * p->thread_cols);
    size_t local[2] = {(size_t)p->group_cols, (size_t)p->group_rows};
    SET_ARG(s->phase3, "phase3", 1, col_panel);
    SET_ARG(s->phase3, "phase3", 2, row_panel);
    SET_ARG(s->phase3, "phase3", 5, next_col_panel);
    SET_ARG(s->phase3, "phase3", 6, next_row_panel);
    SET_ARG(s->phase3, "phase3", 7, next);
    for (size_t b = 0; b < s->band_count; b++) {
        cl_int row0 = (cl_int)s->bands[b].row0;
        SET_ARG(s->phase3, "phase3", 0, s->bands[b].buffer);
        SET_ARG(s->phase3, "phase3", 4, row0);
        size_t global[2] = {s->n / block_cols * local[0], s->bands[b].rows / block_rows * local[1]};
        int last = b + 1 == s->band_count;
        err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(s->queue, s->phase3, 2, NULL, global, local, 0,
                                                     NULL,
                                                     s->profile ? step_event(s, STEP_PHASE3)
                                                     : last     ? done
                                                                : NULL));
        if (s->profile && last && done && err == CL_SUCCESS) {
            *done = s->step_events[s->step_count - 1];
            clRetainEvent(*done);
        }
        if (err != CL_SUCCESS)
            return cl_fail(error, APSP_ERR_DEVICE, err,
                           "clEnqueueNDRangeKernel(phase3, band %zu, round %d)", b, (int)r);
    }
    return APSP_OK;
}

static apsp_status run_rounds(cl_state *s, const apsp_options *options, apsp_error *error) {
    cl_int n = (cl_int)s->n;
    SET_ARG(s->phase1, "phase1", 2, n);
    SET_ARG(s->phase2, "phase2", 2, n);
    SET_ARG(s->phase3, "phase3", 3, n);

    const size_t rounds = s->n / (size_t)s->params.tile;
    const int report = options->progress != NULL;
    if (s->profile) {
        s->step_events = calloc(2 * s->band_count + 3, sizeof *s->step_events);
        s->step_kinds = calloc(2 * s->band_count + 3, sizeof *s->step_kinds);
        if (!s->step_events || !s->step_kinds)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory");
    }
    apsp_status first = queue_first_panels(s, error);
    if (first != APSP_OK)
        return first;
    /* With progress, round r's end event is kept until round r + PROGRESS_LAG is queued, then
     * waited on: the device stays busy while the host reports. */
    cl_event pending[PROGRESS_LAG] = {0};
    size_t reported = 0;
    apsp_status status = APSP_OK;
    for (size_t r = 0; r < rounds && status == APSP_OK; r++) {
        cl_event *slot = report ? &pending[r % PROGRESS_LAG] : NULL;
        if (slot && *slot) {
            cl_int err = FAULT_CL_STATUS(clWaitForEvents(1, slot));
            clReleaseEvent(*slot);
            *slot = NULL;
            if (err != CL_SUCCESS) {
                status =
                    cl_fail(error, APSP_ERR_DEVICE, err, "clWaitForEvents(round %zu)", reported);
                break;
            }
            options->progress(options->progress_context, ++reported, rounds);
        }
        status = queue_round(s, (cl_int)r, slot, error);
        if (status == APSP_OK && s->profile)
            status = collect_steps(s, error);
        if (status == APSP_OK) {
            cl_int err = clFlush(s->queue);
            if (err != CL_SUCCESS)
                status = cl_fail(error, APSP_ERR_DEVICE, err, "clFlush(round %zu)", r);
        }
    }
    cl_int err = FAULT_CL_STATUS(clFinish(s->queue));
    if (status == APSP_OK && err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(rounds)");
    for (size_t k = 0; k < PROGRESS_LAG; k++)
        if (pending[k])
            clReleaseEvent(pending[k]);
    while (status == APSP_OK && report && reported < rounds)
        options->progress(options->progress_context, ++reported, rounds);
    if (status == APSP_OK && s->profile)
        fprintf(stderr,
                "apsp: profile, device seconds per step over %zu rounds: row panel %.4f, col "
                "panel %.4f, phase 1 %.4f, phase 2 %.4f, phase 3 %.4f\n",
                rounds, s->step_seconds[STEP_ROW_PANEL], s->step_seconds[STEP_COL_PANEL],
                s->step_seconds[STEP_PHASE1], s->step_seconds[STEP_PHASE2],
                s->step_seconds[STEP_PHASE3]);
    return status;
}

/* ---- the backend ----------------------------------------------------------------------------- */

static apsp_status opencl_solve(apsp_matrix *m, const apsp_options *options,
                                const apsp_device_info *device, apsp_report *report,
                                apsp_error *error) {
    cl_state s = {.real_n = m->n};
    double t0 = seconds_now();
    apsp_status status = open_device(&s, device, error);
    if (status == APSP_OK)
        status = choose_params(options, &s.limits, s.name, &s.params, &s.extra_options, error);
    if (status == APSP_OK)
        status = plan_layout(&s, options, error);
    if (status == APSP_OK)
        status = build_program(&s, error);
    if (status == APSP_OK)
        status = create_buffers(&s, error);
    double t1 = seconds_now();
    if (status == APSP_OK)
        status = upload(&s, m, error);
    double t2 = seconds_now();
    if (status == APSP_OK)
        status = run_rounds(&s, options, error);
    double t3 = seconds_now();
    if (status == APSP_OK)
        status = download(&s, m, error);
    double t4 = seconds_now();
    if (status == APSP_OK && report) {
        snprintf(report->backend, sizeof report->backend, "opencl");
        snprintf(report->device, sizeof report->device, "%s", s.name);
        report->padded = s.n;
        report->tile = s.params.tile;
        report->threads = 0;
        report->setup_seconds = t1 - t0;
        report->upload_seconds = t2 - t1;
        report->compute_seconds = t3 - t2;
        report->download_seconds = t4 - t3;
    }
    close_device(&s);
    return status;
}

const apsp_backend_impl apsp_backend_opencl = {
    .name = "opencl",
    .kind = APSP_BACKEND_OPENCL,
    .list = opencl_list,
    .solve = opencl_solve,
};
