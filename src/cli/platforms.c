/* Why an OpenCL platform is missing from the device list.
 *
 * The ICD loader opens every registered platform library and silently drops one that fails to
 * load or start (seen: PoCL under `ulimit -v`, where a library it needs cannot be mapped). Device
 * indices then shift and a spec that named a device in a healthy run names another one. The
 * loader offers no way to ask what it dropped, so this retraces its steps: the registrations it
 * reads (ocl-icd's rules: OCL_ICD_VENDORS as a directory, an .icd file or a library,
 * OCL_ICD_FILENAMES, else /etc/OpenCL/vendors), and for each library whether it is loaded and
 * its platform answers. This is the CLI's business, not the library's: it reads the environment
 * and dlopen()s libraries by their registered names. It runs only after the loader has run (a
 * library the loader took is found with RTLD_NOLOAD at no cost). */
#define _GNU_SOURCE
#include "platforms.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The registrations: one line "library (registered in FILE)" and the library's name each. */
typedef struct registration {
    char library[256];
    char source[256]; /* the .icd file or the variable that named the library */
} registration;

enum { MAX_REGISTRATIONS = 32 };

typedef struct registrations {
    registration item[MAX_REGISTRATIONS];
    size_t count;
} registrations;

static void add_registration(registrations *r, const char *library, const char *source) {
    if (r->count == MAX_REGISTRATIONS || !library[0])
        return;
    registration *g = &r->item[r->count++];
    snprintf(g->library, sizeof g->library, "%s", library);
    snprintf(g->source, sizeof g->source, "%s", source);
}

/* An .icd file holds the library's name or path on its first line. */
static void add_icd_file(registrations *r, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[256] = "";
    if (fgets(line, sizeof line, f))
        line[strcspn(line, "\r\n")] = '\0';
    fclose(f);
    add_registration(r, line, path);
}

static int ends_with(const char *text, const char *suffix) {
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

static void add_icd_directory(registrations *r, const char *dir) {
    struct dirent **entries;
    int count = scandir(dir, &entries, NULL, alphasort);
    for (int i = 0; i < count; i++) {
        if (ends_with(entries[i]->d_name, ".icd")) {
            char path[512];
            int n = snprintf(path, sizeof path, "%s/%s", dir, entries[i]->d_name);
            if (n > 0 && (size_t)n < sizeof path) /* a cut path would name another file */
                add_icd_file(r, path);
        }
        free(entries[i]);
    }
    if (count >= 0)
        free(entries);
}

static void find_registrations(registrations *r) {
    const char *vendors = getenv("OCL_ICD_VENDORS");
    struct stat st;
    if (vendors && *vendors) {
        if (stat(vendors, &st) == 0 && S_ISDIR(st.st_mode))
            add_icd_directory(r, vendors);
        else if (ends_with(vendors, ".icd"))
            add_icd_file(r, vendors);
        else
            add_registration(r, vendors, "OCL_ICD_VENDORS");
    } else {
        add_icd_directory(r, "/etc/OpenCL/vendors");
    }
    const char *filenames = getenv("OCL_ICD_FILENAMES");
    if (filenames) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", filenames);
        char *save = NULL;
        for (char *name = strtok_r(copy, ":", &save); name; name = strtok_r(NULL, ":", &save))
            add_registration(r, name, "OCL_ICD_FILENAMES");
    }
}

/* clIcdGetPlatformIDsKHR, spelled without the OpenCL headers (cl_int, cl_uint, cl_platform_id *):
 * the command does not otherwise depend on them. */
typedef int32_t (*icd_platforms_fn)(uint32_t, void **, uint32_t *);
typedef void *(*extension_address_fn)(const char *);

/* Whether the loaded platform library answers the loader's question; else why not. */
static int platform_answers(void *library, char *why, size_t room) {
    extension_address_fn address =
        (extension_address_fn)(uintptr_t)dlsym(library, "clGetExtensionFunctionAddress");
    icd_platforms_fn platforms =
        address ? (icd_platforms_fn)(uintptr_t)address("clIcdGetPlatformIDsKHR") : NULL;
    if (!platforms) {
        snprintf(why, room, "it is not an OpenCL ICD (no clIcdGetPlatformIDsKHR)");
        return 0;
    }
    uint32_t count = 0;
    int32_t status = platforms(0, NULL, &count);
    if (status != 0 || count == 0) {
        snprintf(why, room, "its platform did not start (OpenCL error %d, %u platforms)",
                 (int)status, (unsigned)count);
        return 0;
    }
    return 1;
}

/* Whether the registered library is up; else why not. A library the loader could not load is
 * tried again here for dlerror()'s reason; one that loads now stays loaded (unloading a
 * platform library that may have started threads is not safe). */
static int library_up(const registration *g, char *why, size_t room) {
    void *library = dlopen(g->library, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!library)
        library = dlopen(g->library, RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(why, room, "%s", reason ? reason : "it cannot be loaded");
        return 0;
    }
    return platform_answers(library, why, room);
}

size_t platforms_not_started(char *text, size_t room) {
    /* Without the loader in this process no platform was asked for (a build without OpenCL),
     * so nothing can be missing. The loader is looked for by a function of it, not by its
     * name: the wheel's copy is renamed (libOpenCL-HASH.so.1.0.0, tools/build-wheel.sh). */
    if (!dlsym(RTLD_DEFAULT, "clGetPlatformIDs"))
        return 0;
    registrations *r = calloc(1, sizeof *r);
    if (!r)
        return 0;
    find_registrations(r);
    size_t failed = 0, used = 0;
    if (room)
        text[0] = '\0';
    for (size_t i = 0; i < r->count; i++) {
        char why[512];
        if (library_up(&r->item[i], why, sizeof why))
            continue;
        int n = snprintf(text + used, room > used ? room - used : 0,
                         "%sOpenCL platform %s (registered in %s) did not start: %s",
                         failed ? "; " : "", r->item[i].library, r->item[i].source, why);
        if (n > 0)
            used += (size_t)n;
        failed++;
    }
    free(r);
    return failed;
}
