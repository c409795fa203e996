/* The program: cl/fw.cl (embedded, or from options->kernel_dir) built with the parameters as
 * -D defines, its kernels, and the build log for the caller's log function. A device keeps one
 * program and rebuilds it only when a solve needs other parameters; the binary of a build is
 * kept on disk between runs when options->kernel_cache names a directory (program_cache.c). */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "formats/rows.h"
#include "opencl/device.h"
#include "opencl/program_cache.h"
#include "base/element_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* options->dump_program: the program binary (PTX on NVIDIA), for kernel work. Written as every
 * output is (src/output/): replaced atomically, and refused where a link or a file of another
 * user in a sticky directory would take it elsewhere. */
static apsp_status dump_program(const cl_device *d, apsp_error *error) {
    const char *path = d->options->dump_program;
    size_t size = 0;
    unsigned char *binary = NULL;
    char reason[512];
    if (!path || !*path)
        return APSP_OK;
    if (!program_binary_has_room(reason, sizeof reason))
        return fail(error, APSP_ERR_NO_MEMORY, "%s: no program binary written to %s: %s", d->name,
                    path, reason);
    int got = clGetProgramInfo(d->kernels.program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                               NULL) == CL_SUCCESS &&
              size > 0 && (binary = apsp_malloc(size)) != NULL &&
              clGetProgramInfo(d->kernels.program, CL_PROGRAM_BINARIES, sizeof binary, &binary,
                               NULL) == CL_SUCCESS;
    apsp_output *output = NULL;
    apsp_status status = got ? apsp_output_open(path, &output, error)
                             : fail(error, APSP_ERR_DEVICE,
                                    "%s gave no program binary to write to %s", d->name, path);
    if (status == APSP_OK) {
        apsp_output_set_log(output, d->options->log, d->options->log_context);
        status = commit_bytes(output, binary, size, error);
    }
    free(binary);
    return status;
}

/* More build options may not define what the library defines itself (a wrong INF or TILE
 * would give wrong answers silently). */
static apsp_status check_build_options(const char *extra, const char *defines, apsp_error *error) {
    for (const char *d = extra ? strstr(extra, "-D") : NULL; d; d = strstr(d + 2, "-D")) {
        size_t len = strcspn(d + 2, "= ");
        char own[80];
        snprintf(own, sizeof own, "-D%.*s=", (int)(len < 60 ? len : 60), d + 2);
        if (len > 0 && strstr(defines, own))
            return fail(error, APSP_ERR_USAGE,
                        "build options '%s': %.*s is set by apsp itself (use --kernel-params)",
                        extra, (int)len + 2, d);
    }
    return APSP_OK;
}

/* The build log at `level`, after `headline`. Without a log (PoCL leaves none for a clean
 * build): a success's headline still (APSP_SHOW_BUILD promises the options), a
 * failure's nothing (the error itself says what failed: one line, as every other failure). */
static void log_build(const cl_device *d, cl_program program, apsp_log_level level,
                      const char *headline) {
    char *build_log = cl_build_log(program, d->device);
    if (build_log)
        log_message(d->options, level, "%s; build log:\n%s", headline, build_log);
    else if (level == APSP_LOG_DEBUG)
        log_message(d->options, level, "%s; no build log", headline);
    free(build_log);
}

static apsp_status build_from_source(cl_device *d, const char *source, const char *origin,
                                     apsp_error *error) {
    cl_int err;
    d->kernels.program =
        FAULT_CL_OBJECT(&err, clCreateProgramWithSource(d->context, 1, &source, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateProgramWithSource(%s)", origin);
    d->builds++;
    err = FAULT_CL_STATUS(
        clBuildProgram(d->kernels.program, 1, &d->device, d->kernels.options, NULL, NULL));
    if (err != CL_SUCCESS) {
        /* The log is many lines and the error message one: the log goes to the log function. */
        cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clBuildProgram(%s) for %s with options '%s'",
                origin, d->name, d->kernels.options);
        log_build(d, d->kernels.program, APSP_LOG_ERROR,
                  error ? error->message : "clBuildProgram failed");
        return APSP_ERR_KERNEL_BUILD;
    }
    char headline[1400];
    snprintf(headline, sizeof headline, "built for %s with '%s'", d->name, d->kernels.options);
    log_build(d, d->kernels.program, APSP_LOG_DEBUG, headline);
    return APSP_OK;
}

/* *source with the file `name` of cl/ after it, in one text. */
static apsp_status append_source(const cl_device *d, const char *name, char **source, char *origin,
                                 size_t origin_size, apsp_error *error) {
    char *extra, extra_origin[1024];
    apsp_status status = cl_load_source(name, d->options->kernel_dir, &extra, extra_origin,
                                        sizeof extra_origin, error);
    size_t first = strlen(*source), second = status == APSP_OK ? strlen(extra) : 0;
    char *both = status == APSP_OK ? apsp_malloc(first + second + 2) : NULL;
    if (both) {
        memcpy(both, *source, first);
        both[first] = '\n';
        memcpy(both + first + 1, extra, second + 1);
        snprintf(origin + strlen(origin), origin_size - strlen(origin), " + %.200s",
                 extra_origin); /* for messages: the start of a long path is enough */
    } else if (status == APSP_OK)
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory for the kernel source");
    free(extra);
    free(*source);
    *source = both;
    return status;
}

/* fw.cl and graph_fill.cl (fw_scatter: the matrix made from edges), followed by d->extra_source
 * when there is one (backend.c: opencl_open_extended). */
static apsp_status load_sources(const cl_device *d, char **source, char *origin, size_t origin_size,
                                apsp_error *error) {
    apsp_status status =
        cl_load_source("fw.cl", d->options->kernel_dir, source, origin, origin_size, error);
    if (status == APSP_OK)
        status = append_source(d, "graph_fill.cl", source, origin, origin_size, error);
    if (status == APSP_OK && d->extra_source)
        status = append_source(d, d->extra_source, source, origin, origin_size, error);
    if (status != APSP_OK) {
        free(*source);
        *source = NULL;
    }
    return status;
}

static apsp_status compile(cl_device *d, apsp_error *error) {
    char *source, origin[1024];
    apsp_status status = load_sources(d, &source, origin, sizeof origin, error);
    if (status != APSP_OK)
        return status;
    d->kernels.program = program_cache_load(d, d->kernels.options, source);
    if (d->kernels.program) {
        free(source);
        return dump_program(d, error);
    }
    status = build_from_source(d, source, origin, error);
    if (status == APSP_OK)
        program_cache_store(d, d->kernels.program, d->kernels.options, source);
    free(source);
    return status == APSP_OK ? dump_program(d, error) : status;
}
/* Creates one kernel and checks that the driver runs it with work-groups of `items`: a kernel's
 * own limit can be below the device's (registers, local memory). */
static apsp_status create_kernel(cl_device *d, cl_kernel *kernel, const char *name, size_t items,
                                 apsp_error *error) {
    cl_int err;
    *kernel = FAULT_CL_OBJECT(&err, clCreateKernel(d->kernels.program, name, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(%s)", name);
    size_t most = 0;
    err = clGetKernelWorkGroupInfo(*kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                                   &most, NULL);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clGetKernelWorkGroupInfo(%s)", name);
    if (most < items)
        return fail(error, APSP_ERR_DEVICE,
                    "tile %d: kernel %s needs work-groups of %zu work-items but %s runs it with "
                    "at most %zu (options '%s')",
                    d->params.tile, name, items, d->name, most, d->kernels.options);
    return APSP_OK;
}

static apsp_status create_kernels(cl_device *d, apsp_error *error) {
    const kernel_params *p = &d->params;
    const size_t pivot_group = (size_t)p->pivot_items * (size_t)p->pivot_items;
    const size_t edge = (size_t)copy_edge(p);
    cl_kernels *k = &d->kernels;
    apsp_status status = create_kernel(d, &k->phase1, "fw_phase1", pivot_group, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->phase2, "fw_phase2", p->cpu_kernels ? 1 : pivot_group, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->phase3, "fw_phase3",
                               (size_t)p->group_rows * (size_t)p->group_cols, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->transpose, "fw_transpose", edge * edge, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->pad, "fw_pad", 1, error);
    if (status == APSP_OK && layout_takes_graph(d, d->dtype)) /* (cl/graph_fill.cl) */
        status = create_kernel(d, &k->scatter, "fw_scatter", 1, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->stream, "fw_stream",
                               (size_t)p->group_rows * (size_t)p->group_cols, error);
    if (status == APSP_OK)
        status = create_kernel(d, &k->unreachable, "fw_unreachable", 1, error);
    return status;
}

/* The kept program built with `options` becomes the current one, the current one kept in its
 * place. */
static int take_kept(cl_device *d, const char *options) {
    for (size_t i = 0; i < KEPT_PROGRAMS; i++)
        if (d->kept[i].program && strcmp(d->kept[i].options, options) == 0) {
            cl_kernels current = d->kernels;
            d->kernels = d->kept[i];
            d->kept[i] = current;
            return 1;
        }
    return 0;
}

/* The current program to the front of the kept ones (the oldest released), leaving none
 * current. */
static void keep_current(cl_device *d) {
    if (!d->kernels.program)
        return;
    program_release(&d->kept[KEPT_PROGRAMS - 1]);
    memmove(&d->kept[1], &d->kept[0], (KEPT_PROGRAMS - 1) * sizeof d->kept[0]);
    d->kept[0] = d->kernels;
    memset(&d->kernels, 0, sizeof d->kernels);
}

apsp_status program_prepare(cl_device *d, apsp_error *error) {
    char options[sizeof d->kernels.options], defines[768];
    const char *extra = d->options->build_options;
    kernel_defines(&d->params, d->dtype, defines, sizeof defines);
    /* Only then: the options of graphs without negative weights stay as they were. A plan for a
     * floating-point solve may come before its set_form, after an integer solve's. */
    int floating = element_is_real(d->dtype);
    if (d->negative && !floating) {
        size_t used = strlen(defines);
        snprintf(defines + used, sizeof defines - used, " -DNEGATIVE=%d", d->negative);
    }
    snprintf(options, sizeof options, "%s%s%s%s%s", defines, *d->extra_options ? " " : "",
             d->extra_options, extra && *extra ? " " : "", extra ? extra : "");
    if (d->kernels.program && strcmp(options, d->kernels.options) == 0)
        return APSP_OK;
    apsp_status checked = check_build_options(extra, defines, error);
    if (checked == APSP_OK && extra && strstr(extra, "-DNEGATIVE"))
        checked =
            fail(error, APSP_ERR_USAGE,
                 "build options '%s': NEGATIVE is set by apsp itself, from the weights", extra);
    if (checked != APSP_OK)
        return checked;
    if (take_kept(d, options))
        return APSP_OK;
    keep_current(d);
    snprintf(d->kernels.options, sizeof d->kernels.options, "%s", options);
    apsp_status status = compile(d, error);
    if (status == APSP_OK)
        status = create_kernels(d, error);
    if (status != APSP_OK)
        program_release(&d->kernels);
    return status;
}

apsp_status program_set_form(backend_device *device, const kernel_form *form, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    if (form->dtype != d->dtype) /* layout_plan fitted the parameters and buffers to d->dtype */
        return fail(error, APSP_ERR_INTERNAL, "%s: a %s solve planned, %s kernels asked for",
                    d->name, apsp_dtype_name(d->dtype), apsp_dtype_name(form->dtype));
    /* +inf absorbs every finite sum: the floating-point kernels have one form. */
    int floating = element_is_real(form->dtype);
    d->negative = !form->negative || floating ? NEGATIVE_NONE
                  : form->bound > 0           ? NEGATIVE_BOUNDED
                                              : NEGATIVE_EXACT;
    d->bound = form->bound;
    return program_prepare(d, error);
}

void program_release(cl_kernels *k) {
    cl_kernel kernels[] = {k->phase1,    k->phase2, k->phase3,  k->pad,
                           k->transpose, k->stream, k->scatter, k->unreachable};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    if (k->program)
        clReleaseProgram(k->program);
    memset(k, 0, sizeof *k);
}

void program_release_all(cl_device *d) {
    program_release(&d->kernels);
    for (size_t i = 0; i < KEPT_PROGRAMS; i++)
        program_release(&d->kept[i]);
}

/* `source` compiled, and kept in the kernel cache for the next run. */
static apsp_status build_side(cl_device *d, const char *source, const char *origin,
                              const char *options, cl_program *program, apsp_error *error) {
    cl_int err;
    *program = FAULT_CL_OBJECT(&err, clCreateProgramWithSource(d->context, 1, &source, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateProgramWithSource(%s)", origin);
    d->builds++;
    err = FAULT_CL_STATUS(clBuildProgram(*program, 1, &d->device, options, NULL, NULL));
    char headline[1400];
    snprintf(headline, sizeof headline, "%s %s for %s with '%s'",
             err == CL_SUCCESS ? "built" : "failed to build", origin, d->name, options);
    log_build(d, *program, err == CL_SUCCESS ? APSP_LOG_DEBUG : APSP_LOG_ERROR, headline);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clBuildProgram(%s) for %s", origin,
                       d->name);
    program_cache_store(d, *program, options, source);
    return APSP_OK;
}

apsp_status program_side(cl_device *d, const char *file, const char *options, cl_program *program,
                         apsp_error *error) {
    char *source, origin[1024];
    apsp_status status =
        cl_load_source(file, d->options->kernel_dir, &source, origin, sizeof origin, error);
    if (status != APSP_OK)
        return status;
    *program = program_cache_load(d, options, source);
    if (!*program)
        status = build_side(d, source, origin, options, program, error);
    free(source);
    return status;
}
