#include "env_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The variable's value, or NULL when it is unset or empty. */
static const char *env(const char *name) {
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

static void fill(const char **field, const char *name) {
    if (!*field)
        *field = env(name);
}

/* The kernel cache: the option, else APSP_KERNEL_CACHE, else the XDG cache directory; "off"
 * turns it off. */
static void choose_kernel_cache(apsp_options *o) {
    static char standard[4096];
    fill(&o->kernel_cache, "APSP_KERNEL_CACHE");
    const char *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
    if (!o->kernel_cache && xdg && xdg[0] == '/') /* a relative one is to be ignored (XDG) */
        snprintf(standard, sizeof standard, "%s/apsp", xdg);
    else if (!o->kernel_cache && home)
        snprintf(standard, sizeof standard, "%s/.cache/apsp", home);
    if (!o->kernel_cache && standard[0])
        o->kernel_cache = standard;
    if (o->kernel_cache && strcmp(o->kernel_cache, "off") == 0)
        o->kernel_cache = NULL;
}

int env_options_apply(apsp_options *o, int *show_build, char *message, size_t size) {
    if (o->backend != APSP_BACKEND_CPU)
        fill(&o->device, "APSP_DEVICE");
    if (o->backend != APSP_BACKEND_CPU) /* OpenCL's: the pthread backend would refuse it */
        fill(&o->kernel_params, "APSP_KERNEL_PARAMS");
    fill(&o->cpu_isa, "APSP_CPU_ISA");
    fill(&o->kernel_dir, "APSP_KERNEL_DIR");
    fill(&o->build_options, "APSP_BUILD_OPTIONS");
    fill(&o->dump_program, "APSP_DUMP_PROGRAM");
    choose_kernel_cache(o);
    const char *profile = env("APSP_PROFILE"), *show = env("APSP_SHOW_BUILD");
    if (profile && strcmp(profile, "1") == 0)
        o->profile = 1;
    *show_build = show && strcmp(show, "1") == 0;
    const char *cap = env("APSP_MAX_BUFFER_BYTES");
    if (cap && !o->max_buffer_bytes && apsp_parse_bytes(cap, &o->max_buffer_bytes) != 0) {
        snprintf(message, size,
                 "APSP_MAX_BUFFER_BYTES=%s: expected a positive size like 64K or 512M", cap);
        return -1;
    }
    /* The output prepared beside the rounds (apsp_options.overlap). */
    const char *overlap = env("APSP_OVERLAP");
    if (overlap && strcmp(overlap, "auto") != 0 && strcmp(overlap, "on") != 0 &&
        strcmp(overlap, "off") != 0) {
        snprintf(message, size, "APSP_OVERLAP=%s: expected auto, on or off", overlap);
        return -1;
    }
    o->overlap = !overlap || strcmp(overlap, "auto") == 0 ? 0 : strcmp(overlap, "on") == 0 ? 1 : -1;
    const char *memory = env("APSP_DEVICE_MEMORY");
    if (memory && !o->device_memory && apsp_parse_bytes(memory, &o->device_memory) != 0) {
        snprintf(message, size, "APSP_DEVICE_MEMORY=%s: expected a positive size like 4G", memory);
        return -1;
    }
    return 0;
}
