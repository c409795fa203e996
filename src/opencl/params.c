/* Choosing the kernel parameters for a device: the tuning table, the adaptation to a round
 * depth and to the device's limits, --kernel-params, and the checks. */
#include "opencl/params.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kernel_params fallback_params = {
#define KERNEL_PARAM_FALLBACK(NAME, field, fallback, least, most, meaning) .field = fallback,
    KERNEL_PARAMS(KERNEL_PARAM_FALLBACK)
#undef KERNEL_PARAM_FALLBACK
};

/* The tuning table, CLBlast's database idea in small: the first entry whose vendor and name
 * substrings and device type match the device says how it differs from the fallbacks, in
 * --kernel-params words; TILE is its default round depth and the rest holds at every depth,
 * adapted by derive_params. tests/gpu/tune.sh searches a grid on a device and prints the entry
 * to add; tests/gpu/NOTES.md keeps what was measured. Only rows that differ are kept. */
typedef struct param_entry {
    const char *vendor;  /* substring of CL_DEVICE_VENDOR (any case); NULL: any */
    const char *name;    /* substring of CL_DEVICE_NAME (any case); NULL: any */
    cl_device_type type; /* CL_DEVICE_TYPE_* bits, one of which must match; 0: any */
    const char *params;  /* NAME=N,... over fallback_params */
    const char *options; /* build options for this driver beyond the -D defines */
} param_entry;

/* AMD GPUs, compile-checked and not measured: tests/amd/compile.py compiles cl/fw.cl with clang-14
 * for gfx90a (MI210) and gfx1030 (docs/performance.md, "AMD: compile-checked"). There the GPU
 * row's phase 3 takes 214 VGPRs and 24 KiB of local memory per 128 work-items, so a compute
 * unit's 64 KiB holds two work-groups: one wave per SIMD. 64 x 128 blocks of 4 x 8 micro-tiles
 * per work-group of 16 x 16 (ROCm's largest, 256) with 8-deep k-chunks double-buffered take 113
 * VGPRs and 12 KiB, without spills: four waves per SIMD on gfx90a, eight on gfx1030. Both
 * spellings of the vendor: ROCm says "Advanced Micro Devices, Inc.", Mesa's drivers "AMD". */
#define AMD_GPU_PARAMS "TILE=128,PIVOT_SPLIT=4,THREAD_ROWS=4,THREAD_COLS=8,K_CHUNK=8,PREFETCH=1"

static const param_entry param_table[] = {
    {"Advanced Micro Devices", NULL, CL_DEVICE_TYPE_GPU, AMD_GPU_PARAMS, ""},
    {"AMD", NULL, CL_DEVICE_TYPE_GPU, AMD_GPU_PARAMS, ""},
    /* GPUs. Measured on NVIDIA Hopper through NVIDIA OpenCL 3.0 (driver 580) with
     * tests/gpu/tune.sh (tests/gpu/NOTES.md): H200 14.3 T relax/s at V = 20000 and 14.8 T at
     * 40000, H100 80GB HBM3 the same. 64 x 128 blocks of 8 x 8 micro-tiles per work-group of
     * 8 x 16 (153 registers: three work-groups per multiprocessor), int4 accesses, 16-deep
     * k-chunks double-buffered, the k-loop unrolled 8 steps at a time; phase 2 in 2 column slabs
     * per block (against 4: int32 14.39 -> 14.46 T, float32 12.35 -> 12.37 T on an H100, three
     * interleaved runs each, every one the same; tests/gpu/probe/grid-float32-5.txt). Other NVIDIA
     * GPUs (48 KB of local memory and 64K registers per multiprocessor since Kepler) and Intel GPUs
     * (32 KB of local memory; nothing assumes a sub-group width) get the same shape, not measured;
     * AMD GPUs the rows above. */
    {NULL, NULL, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR,
     "TILE=128,PIVOT_SPLIT=2,THREAD_ROWS=8,THREAD_COLS=8,GROUP_ROWS=8,GROUP_COLS=16,PREFETCH=1,"
     "K_UNROLL=8",
     ""},
    /* CPUs (PoCL): the CPU kernels, one work-item per 64 x 64 block, which the compiler turns
     * into the pthread backend's SIMD micro-kernel; round depth 128 halves the matrix traffic of
     * 64 (measured on 2 Zen 4 cores, docs/performance.md). Tiles below 32 fall back to the
     * work-group kernels, with 4 x 4 scalar micro-tiles. */
    {NULL, NULL, CL_DEVICE_TYPE_CPU,
     "TILE=128,K_CHUNK=32,THREAD_ROWS=64,THREAD_COLS=64,GROUP_ROWS=1,GROUP_COLS=1,VECTOR=1,"
     "CPU_KERNELS=1",
     ""},
    /* Anything else: the fallbacks. */
    {NULL, NULL, 0, "", ""},
};

/* Per element type on a kind of device: parameters over its row above that suit the type
 * better, among those that keep the geometry (the round depth and the phase-3 block), so that
 * a solver plans one geometry whatever the type. Measured on an NVIDIA H100 through NVIDIA
 * OpenCL 3.0 (driver 580) with tests/gpu/probe/run.sh (V = 20000, docs/performance.md): float32
 * 11.96 -> 12.25 T relax/s with the whole 16-step chunk unrolled, int64 2.50 -> 2.89 T with 4
 * steps at a time (its 8 x 8 tile of longs needs the registers the longer unroll takes). The
 * float kernels' min instruction is cl/fw.cl's FLOAT_FMIN. */
typedef struct dtype_entry {
    const char *vendor;  /* substring of CL_DEVICE_VENDOR (any case) */
    cl_device_type type; /* CL_DEVICE_TYPE_* bits, one of which must match */
    apsp_dtype dtype;
    const char *params; /* NAME=N,... over the device's parameters; no TILE, GROUP_*, *_ROWS */
} dtype_entry;

static const dtype_entry dtype_table[] = {
    {"NVIDIA", CL_DEVICE_TYPE_GPU, APSP_FLOAT32, "K_UNROLL=16"},
    {"NVIDIA", CL_DEVICE_TYPE_GPU, APSP_INT64, "K_UNROLL=4"},
};

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

/* ---- NAME=N lists --------------------------------------------------------------------------- */

typedef struct param_field {
    const char *name;
    size_t offset;
    int least, most;
} param_field;

static const param_field param_fields[] = {
#define KERNEL_PARAM_ROW(NAME, field, fallback, least, most, meaning)                              \
    {#NAME, offsetof(kernel_params, field), least, most},
    KERNEL_PARAMS(KERNEL_PARAM_ROW)
#undef KERNEL_PARAM_ROW
};
enum { PARAM_COUNT = sizeof param_fields / sizeof param_fields[0] };

static const param_field *find_field(const char *name, size_t len) {
    for (size_t f = 0; f < PARAM_COUNT; f++)
        if (strlen(param_fields[f].name) == len && strncmp(param_fields[f].name, name, len) == 0)
            return &param_fields[f];
    return NULL;
}

/* "TILE, PIVOT_ITEMS, ..." for messages. */
static const char *param_names(char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t f = 0; f < PARAM_COUNT && used < size; f++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%s", f ? ", " : "", param_fields[f].name);
    return buf;
}

/* Applies "NAME=N,..." (text, from `source`) to p; *set receives a bit per parameter named
 * (1 << its position in KERNEL_PARAMS). */
static apsp_status apply_params(const char *source, const char *text, kernel_params *p,
                                unsigned *set, apsp_error *error) {
    for (const char *s = text; *s;) {
        size_t len = strcspn(s, "=,");
        const param_field *field = find_field(s, len);
        char *end = (char *)s + len;
        errno = 0;
        /* strtol would skip blanks and take a sign: the value must start with a digit. */
        int digit = s[len] == '=' && s[len + 1] >= '0' && s[len + 1] <= '9';
        long v = digit ? strtol(s + len + 1, &end, 10) : 0;
        if (!field || !digit || errno || end == s + len + 1 || (*end != ',' && *end != '\0')) {
            char names[256];
            return fail(error, APSP_ERR_USAGE,
                        "%s=%s: expected NAME=N[,NAME=N...] with NAME one of %s", source, text,
                        param_names(names, sizeof names));
        }
        if (v < field->least || v > field->most)
            return fail(error, APSP_ERR_USAGE, "%s=%s: %s must be from %d to %d", source, text,
                        field->name, field->least, field->most);
        *(int *)((char *)p + field->offset) = (int)v;
        *set |= 1u << (field - param_fields);
        s = *end == ',' ? end + 1 : end;
    }
    return APSP_OK;
}

const char *dtype_defines(apsp_dtype dtype, char *buf, size_t size) {
    switch (dtype) {
    case APSP_INT64:
        snprintf(buf, size, "-DINF=%lldL -DDIST=long", (long long)APSP_INF64);
        break;
    case APSP_FLOAT32:
        snprintf(buf, size, "-DINF=INFINITY -DDIST=float -DFLOAT_DIST=1");
        break;
    case APSP_FLOAT64:
        snprintf(buf, size, "-DINF=INFINITY -DDIST=double -DFLOAT_DIST=1 -DFP64=1");
        break;
    default:
        snprintf(buf, size, "-DINF=%d", APSP_INF);
    }
    return buf;
}

const char *kernel_defines(const kernel_params *params, apsp_dtype dtype, char *buf, size_t size) {
    kernel_params p = *params;
    if (p.k_unroll == 0)
        p.k_unroll = p.k_chunk; /* "all of K_CHUNK" */
    size_t used = 0;
#define KERNEL_PARAM_DEFINE(NAME, field, fallback, least, most, meaning)                           \
    used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "-D%s=%d ", #NAME, p.field);
    KERNEL_PARAMS(KERNEL_PARAM_DEFINE)
#undef KERNEL_PARAM_DEFINE
    char type[96];
    snprintf(buf + (used < size ? used : size - 1), used < size ? size - used : 1,
             "-DCPU_ROWS=%d -DCPU_COLS=%d -DCOPY_EDGE=%d %s", CPU_ROWS, CPU_COLS, copy_edge(&p),
             dtype_defines(dtype, type, sizeof type));
    return buf;
}

/* ---- fitting the device ---------------------------------------------------------------------- */

/* A CPU device (PoCL) reports 4096 work-items per work-group but runs a work-group on one
 * thread, its work-items' private arrays on that thread's stack: 64 x 64 work-items of phase 1
 * at round depth 512 overflow it (SIGSEGV with PoCL 3.1). apsp gives CPU devices at most this. */
enum { CPU_MAX_WORK_GROUP = 1024 };

static size_t usable_work_group(const device_limits *lim) {
    int cpu = (lim->type & CL_DEVICE_TYPE_CPU) != 0;
    return cpu && lim->max_work_group > CPU_MAX_WORK_GROUP ? CPU_MAX_WORK_GROUP
                                                           : lim->max_work_group;
}

int group_fits(const device_limits *lim, size_t cols, size_t rows) {
    return cols * rows <= usable_work_group(lim) && cols <= lim->max_item[0] &&
           rows <= lim->max_item[1];
}

int copy_edge(const kernel_params *p) {
    return p->tile < MAX_COPY_EDGE ? p->tile : MAX_COPY_EDGE;
}

static int is_power_of_two(int x) {
    return x > 0 && (x & (x - 1)) == 0;
}

/* Local memory the kernels need for cells of `cell` bytes: the most any of them declares. */
static uint64_t local_bytes(const kernel_params *p, uint64_t cell) {
    uint64_t tile = (uint64_t)p->tile, chunk = (uint64_t)p->k_chunk;
    uint64_t edge = (uint64_t)copy_edge(p);
    uint64_t phase1 = 4 * tile * cell;
    uint64_t phase2 = (tile + tile / (uint64_t)p->pivot_split) * chunk * cell;
    uint64_t phase3 = (p->prefetch ? 2u : 1u) *
                      ((uint64_t)p->group_rows * (uint64_t)p->thread_rows +
                       (uint64_t)p->group_cols * (uint64_t)p->thread_cols) *
                      chunk * cell;
    uint64_t copy = edge * (edge + 1) * cell;
    uint64_t need = phase1 > phase2 ? phase1 : phase2;
    need = need > phase3 ? need : phase3;
    return need > copy ? need : copy;
}

/* PIVOT_ITEMS such that each work-item of phases 1-2 has at most 8 x 8 cells and the work-group
 * fits; PIVOT_SPLIT dividing what that leaves. */
static void fit_pivot_items(kernel_params *p, const device_limits *lim) {
    if (p->pivot_items > p->tile)
        p->pivot_items = p->tile;
    while (p->tile / p->pivot_items > MAX_PIVOT_CELLS)
        p->pivot_items *= 2;
    while (p->pivot_items > 1 && p->tile / (p->pivot_items / 2) <= MAX_PIVOT_CELLS &&
           !group_fits(lim, (size_t)p->pivot_items, (size_t)p->pivot_items))
        p->pivot_items /= 2;
}

static void fit_pivot_split(kernel_params *p) {
    while (p->pivot_split > 1 && p->tile % p->pivot_items == 0 &&
           (p->tile / p->pivot_items) % p->pivot_split)
        p->pivot_split /= 2;
}

/* K_CHUNK at most the tile, and halved while local memory is short; phase-3 work-groups halved
 * while they do not fit. What still does not fit is left for check_params to report. */
static void fit_phase3(kernel_params *p, const device_limits *lim) {
    if (p->k_chunk > p->tile)
        p->k_chunk = p->tile;
    while (p->group_rows * p->group_cols > 1 &&
           !group_fits(lim, (size_t)p->group_cols, (size_t)p->group_rows)) {
        if (p->group_rows >= p->group_cols)
            p->group_rows /= 2;
        else
            p->group_cols /= 2;
    }
    fit_cell_bytes(p, lim, sizeof(int32_t));
}

void fit_cell_bytes(kernel_params *p, const device_limits *lim, size_t cell_bytes) {
    while (local_bytes(p, cell_bytes) > lim->local_memory && (p->prefetch || p->k_chunk > 1)) {
        if (p->prefetch)
            p->prefetch = 0;
        else
            p->k_chunk /= 2;
    }
    if (p->k_unroll >= p->k_chunk)
        p->k_unroll = 0; /* the whole chunk */
}

/* The table entry's parameters at round depth `tile`, fitted to the device where possible. */
static apsp_status derive_params(const param_entry *entry, int tile, const device_limits *lim,
                                 kernel_params *p, apsp_error *error) {
    *p = fallback_params;
    unsigned set = 0;
    if (apply_params("tuning table", entry->params, p, &set, error) != APSP_OK)
        return fail(error, APSP_ERR_INTERNAL, "the tuning table: %s", error ? error->message : "");
    p->tile = tile;
    fit_pivot_items(p, lim);
    fit_pivot_split(p);
    fit_phase3(p, lim);
    return APSP_OK;
}

static apsp_status check_shape(const kernel_params *p, const char *what, apsp_error *error) {
    if (p->tile % p->pivot_items != 0 || p->tile % p->k_chunk != 0)
        return fail(error, APSP_ERR_USAGE,
                    "%s: must be a multiple of PIVOT_ITEMS (%d) and K_CHUNK (%d)", what,
                    p->pivot_items, p->k_chunk);
    if (p->vector == 3 || p->thread_rows % p->vector || p->thread_cols % p->vector ||
        (p->k_unroll && p->k_chunk % p->k_unroll))
        return fail(error, APSP_ERR_USAGE,
                    "kernel parameters: VECTOR (%d) must be 1, 2 or 4 and divide THREAD_ROWS (%d) "
                    "and THREAD_COLS (%d); K_UNROLL (%d) must divide K_CHUNK (%d)",
                    p->vector, p->thread_rows, p->thread_cols, p->k_unroll, p->k_chunk);
    if ((p->tile / p->pivot_items) % p->pivot_split)
        return fail(error, APSP_ERR_USAGE,
                    "%s: PIVOT_SPLIT (%d) must divide TILE / PIVOT_ITEMS (%d)", what,
                    p->pivot_split, p->tile / p->pivot_items);
    return APSP_OK;
}

apsp_status check_params(const kernel_params *p, const device_limits *lim, const char *device_name,
                         int explicit_tile, size_t cell_bytes, apsp_error *error) {
    char what[32];
    snprintf(what, sizeof what, explicit_tile ? "--tile=%d" : "tile %d", p->tile);
    apsp_status status = check_shape(p, what, error);
    if (status != APSP_OK)
        return status;
    if (p->tile / p->pivot_items > MAX_PIVOT_CELLS)
        return fail(error, APSP_ERR_DEVICE,
                    "%s does not fit %s: phases 1-2 need work-groups of at least %d x %d "
                    "work-items and the device allows %zu",
                    what, device_name, p->tile / MAX_PIVOT_CELLS, p->tile / MAX_PIVOT_CELLS,
                    usable_work_group(lim));
    size_t edge = (size_t)copy_edge(p);
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
            return fail(error, APSP_ERR_DEVICE,
                        "%s does not fit %s: %s work-groups of %zu x %zu work-items and the device "
                        "allows %zu (per dimension %zu x %zu)",
                        what, device_name, groups[g].kernel, groups[g].cols, groups[g].rows,
                        usable_work_group(lim), lim->max_item[0], lim->max_item[1]);
    uint64_t need = local_bytes(p, cell_bytes);
    if (need > lim->local_memory)
        return fail(error, APSP_ERR_DEVICE,
                    "%s does not fit %s: the kernels need %llu bytes of local memory and the "
                    "device has %llu",
                    what, device_name, (unsigned long long)need,
                    (unsigned long long)lim->local_memory);
    return APSP_OK;
}

int cpu_kernels_fit(const kernel_params *p) {
    return p->tile % CPU_COLS == 0 && p->group_rows == 1 && p->group_cols == 1 &&
           p->thread_rows % CPU_ROWS == 0 && p->thread_cols % CPU_COLS == 0;
}

/* The CPU entry's one-item shape becomes the one that suits CPUs in the work-group kernels
 * (4 x 4 scalar micro-tiles): they are not meant for one work-item with thousands of cells
 * (PoCL 3.1's compiler even aborts on them). */
void use_work_group_kernels(kernel_params *p) {
    p->cpu_kernels = 0;
    if (p->group_rows == 1 && p->group_cols == 1) {
        p->thread_rows = p->thread_cols = 4;
        p->group_rows = p->group_cols = 16;
        p->vector = 1;
        p->prefetch = 0;
    }
}

/* One try at round depth `tile`: derive, apply the user's words over it, check. */
_Static_assert(PARAM_COUNT <= 32, "apply_params reports the parameters set in 32 bits");

/* The bit of apply_params' mask for the parameter `name`. */
static unsigned param_bit(const char *name) {
    return 1u << (find_field(name, strlen(name)) - param_fields);
}

/* The user's words over the derived parameters. A table's CPU shape that cannot run the CPU
 * kernels (a round depth below CPU_COLS, or the user's CPU_KERNELS=0) becomes the work-group
 * kernels' CPU shape first, so that the user's own values stay as given; CPU_KERNELS=1 asked
 * for with a shape they cannot run is refused. */
static apsp_status apply_user_params(const apsp_options *options, kernel_params *p,
                                     apsp_error *error) {
    const char *words = options->kernel_params ? options->kernel_params : "";
    kernel_params wanted = *p;
    unsigned set = 0;
    apsp_status status = apply_params("--kernel-params", words, &wanted, &set, error);
    if (status != APSP_OK)
        return status;
    if (!wanted.cpu_kernels || !cpu_kernels_fit(&wanted)) {
        use_work_group_kernels(p);
        set = 0;
        apply_params("--kernel-params", words, p, &set, NULL);
    } else {
        *p = wanted;
    }
    if (p->cpu_kernels && !cpu_kernels_fit(p) && (set & param_bit("CPU_KERNELS")))
        return fail(error, APSP_ERR_USAGE,
                    "--kernel-params=%s: CPU_KERNELS=1 needs GROUP_ROWS = GROUP_COLS = 1, "
                    "THREAD_ROWS a multiple of %d, THREAD_COLS and TILE multiples of %d",
                    words, CPU_ROWS, CPU_COLS);
    if (p->cpu_kernels && !cpu_kernels_fit(p))
        use_work_group_kernels(p);
    return APSP_OK;
}

static apsp_status params_at(const param_entry *entry, int tile, const apsp_options *options,
                             const device_limits *lim, const char *device_name, int explicit_tile,
                             kernel_params *p, apsp_error *error) {
    apsp_status status = derive_params(entry, tile, lim, p, error);
    if (status == APSP_OK)
        status = apply_user_params(options, p, error);
    if (status != APSP_OK)
        return status;
    p->tile = tile; /* TILE among the user's words was taken as the round depth already */
    fit_pivot_split(p);
    return check_params(p, lim, device_name, explicit_tile, sizeof(int32_t), error);
}

void params_for_dtype(const apsp_options *options, const device_limits *lim, apsp_dtype dtype,
                      kernel_params *p) {
    const dtype_entry *entry = NULL;
    for (size_t e = 0; e < sizeof dtype_table / sizeof dtype_table[0] && !entry; e++)
        if (dtype_table[e].dtype == dtype && (dtype_table[e].type & lim->type) &&
            contains_ignoring_case(lim->vendor, dtype_table[e].vendor))
            entry = &dtype_table[e];
    if (!entry || p->cpu_kernels)
        return;
    kernel_params row = *p, user = *p;
    unsigned row_set = 0, user_set = 0;
    apply_params("tuning table", entry->params, &row, &row_set, NULL);
    if (options->kernel_params) /* checked at open */
        apply_params("--kernel-params", options->kernel_params, &user, &user_set, NULL);
    for (size_t f = 0; f < PARAM_COUNT; f++)
        if ((row_set & ~user_set) & (1u << f))
            *(int *)((char *)p + param_fields[f].offset) =
                *(const int *)((const char *)&row + param_fields[f].offset);
}

/* TILE from --tile, or else from --kernel-params; 0: the device's. */
static apsp_status explicit_tile(const apsp_options *options, int *tile, apsp_error *error) {
    kernel_params scratch = fallback_params;
    unsigned set = 0;
    *tile = options->tile;
    if (!*tile && options->kernel_params) {
        apsp_status status =
            apply_params("--kernel-params", options->kernel_params, &scratch, &set, error);
        if (status != APSP_OK)
            return status;
        *tile = (set & param_bit("TILE")) ? scratch.tile : 0;
    }
    if (*tile && !is_power_of_two(*tile))
        return fail(error, APSP_ERR_USAGE,
                    "--tile=%d: the OpenCL backend needs a power of two (8, 16, 32, 64, ...)",
                    *tile);
    return APSP_OK;
}

apsp_status choose_params(const apsp_options *options, const device_limits *lim,
                          const char *device_name, kernel_params *p, const char **extra_options,
                          apsp_error *error) {
    const param_entry *entry = find_entry(lim, device_name);
    *extra_options = entry->options;
    int tile;
    apsp_status status = explicit_tile(options, &tile, error);
    if (status != APSP_OK || tile)
        return status != APSP_OK ? status
                                 : params_at(entry, tile, options, lim, device_name, 1, p, error);
    kernel_params entry_params = fallback_params;
    unsigned set = 0;
    apply_params("tuning table", entry->params, &entry_params, &set, NULL);
    /* The device's round depth, halved until everything fits; when none does, the reason at
     * the depth tried first is the one to give (not "tile 1"). */
    apsp_error first = {0};
    for (tile = entry_params.tile;; tile /= 2) {
        status = params_at(entry, tile, options, lim, device_name, 0, p, error);
        if (status == APSP_OK || status == APSP_ERR_USAGE)
            return status;
        if (tile == entry_params.tile && error)
            first = *error;
        if (tile == 1) {
            if (error)
                *error = first;
            return first.status ? first.status : status;
        }
    }
}
