/* Prints the build options the OpenCL backend would give cl/fw.cl on a described device: the
 * -D defines of kernel_defines() and the tuning-table entry's extra options. It is compiled
 * together with src/opencl/params.c (tests/amd/meson.build), so the table, the fitting to a round
 * depth and the defines are the library's own code, not a copy: tests/amd/compile.py compiles
 * the kernels for AMD GPUs with exactly what an AMD device would be given.
 *
 *   amd-kernel-defines [--type=gpu|cpu|accelerator|custom] [--vendor=TEXT] [--name=TEXT]
 *                      [--tile=N] [--kernel-params=NAME=N,...] [--local-memory=BYTES]
 *                      [--max-work-group=N]
 *
 * The defaults describe an AMD Instinct MI210 as ROCm's OpenCL reports it: a GPU of vendor
 * "Advanced Micro Devices, Inc.", 64 KiB of local memory, work-groups of up to 256. --type=custom
 * matches no typed row of the table and so gets the fallbacks. */
#include "apsp.h"
#include "opencl/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *arg) {
    fprintf(stderr,
            "amd-kernel-defines: bad argument '%s'\nusage: amd-kernel-defines "
            "[--type=gpu|cpu|accelerator|custom] [--vendor=TEXT] [--name=TEXT] [--tile=N] "
            "[--kernel-params=NAME=N,...] [--local-memory=BYTES] [--max-work-group=N]\n",
            arg);
    return 2;
}

/* The value of "--key=value" in arg, or NULL when arg is not that option. */
static const char *option_value(const char *arg, const char *key) {
    size_t len = strlen(key);
    return strncmp(arg, key, len) == 0 && arg[len] == '=' ? arg + len + 1 : NULL;
}

int main(int argc, char **argv) {
    device_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.type = CL_DEVICE_TYPE_GPU;
    snprintf(lim.vendor, sizeof lim.vendor, "%s", "Advanced Micro Devices, Inc.");
    lim.global_memory = lim.max_allocation = (cl_ulong)64 << 30;
    lim.local_memory = 65536;
    lim.max_work_group = 256;
    lim.max_item[0] = lim.max_item[1] = lim.max_item[2] = 1024;
    const char *name = "gfx90a";
    apsp_options options;
    apsp_options_init(&options);

    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = option_value(argv[i], "--type"))) {
            if (strcmp(v, "gpu") == 0)
                lim.type = CL_DEVICE_TYPE_GPU;
            else if (strcmp(v, "cpu") == 0)
                lim.type = CL_DEVICE_TYPE_CPU;
            else if (strcmp(v, "accelerator") == 0)
                lim.type = CL_DEVICE_TYPE_ACCELERATOR;
            else if (strcmp(v, "custom") == 0)
                lim.type = CL_DEVICE_TYPE_CUSTOM;
            else
                return usage(argv[i]);
        } else if ((v = option_value(argv[i], "--vendor"))) {
            snprintf(lim.vendor, sizeof lim.vendor, "%s", v);
        } else if ((v = option_value(argv[i], "--name"))) {
            name = v;
        } else if ((v = option_value(argv[i], "--tile"))) {
            options.tile = atoi(v);
        } else if ((v = option_value(argv[i], "--kernel-params"))) {
            options.kernel_params = v;
        } else if ((v = option_value(argv[i], "--local-memory"))) {
            lim.local_memory = strtoull(v, NULL, 10);
        } else if ((v = option_value(argv[i], "--max-work-group"))) {
            lim.max_work_group = strtoull(v, NULL, 10);
        } else {
            return usage(argv[i]);
        }
    }

    kernel_params p;
    const char *extra = "";
    apsp_error error;
    memset(&error, 0, sizeof error);
    if (choose_params(&options, &lim, name, &p, &extra, &error) != APSP_OK) {
        fprintf(stderr, "amd-kernel-defines: %s\n", error.message);
        return 1;
    }
    char defines[768];
    printf("%s%s%s\n", kernel_defines(&p, APSP_INT32, defines, sizeof defines), *extra ? " " : "",
           extra);
    return 0;
}
