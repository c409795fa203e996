/* Replays saved fuzzer inputs without libFuzzer, in the normal test suite:
 *
 *   replay-hw3 [--verbose] FILE_OR_DIR...
 *
 * Every regular file named, or found directly inside a named directory, is checked by
 * hw3_check (the fuzzer's own properties, see hw3_check.h): it must be refused cleanly or read,
 * solved and written exactly as the test oracle says. Exit status: 0 all passed, 1 a failure or
 * nothing to replay, 2 an unreadable argument. */
#include "hw3_check.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int verbose;
static size_t counts[5], failures;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay-hw3: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t size = 0, capacity = 0;
    uint8_t *data = NULL;
    for (;;) {
        if (size == capacity) {
            capacity = capacity ? 2 * capacity : 4096;
            uint8_t *bigger = realloc(data, capacity);
            if (!bigger) {
                fprintf(stderr, "replay-hw3: %s: out of memory\n", path);
                free(data);
                fclose(f);
                return -1;
            }
            data = bigger;
        }
        size_t got = fread(data + size, 1, capacity - size, f);
        size += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
        fprintf(stderr, "replay-hw3: %s: read error\n", path);
        free(data);
        return -1;
    }
    char why[2048];
    hw3_outcome o = hw3_check(data, size, why, sizeof why);
    free(data);
    static const char *const names[] = {"refused", "accepted", "solved", "skipped (large V)"};
    if (o == HW3_FAILED) {
        failures++;
        fprintf(stderr, "FAIL %s (%zu bytes): %s\n", path, size, why);
    } else {
        counts[o]++;
        if (verbose)
            printf("ok   %s (%zu bytes): %s\n", path, size, names[o]);
    }
    return 0;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay-hw3: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    int rc = 0;
    for (struct dirent *ent; rc == 0 && (ent = readdir(d));) {
        if (ent->d_name[0] == '.')
            continue;
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **bigger = realloc(names, capacity * sizeof *names);
            if (!bigger) {
                rc = -1;
                break;
            }
            names = bigger;
        }
        size_t len = strlen(dir) + strlen(ent->d_name) + 2;
        if (!(names[count] = malloc(len))) {
            rc = -1;
            break;
        }
        snprintf(names[count++], len, "%s/%s", dir, ent->d_name);
    }
    closedir(d);
    if (rc != 0)
        fprintf(stderr, "replay-hw3: %s: out of memory\n", dir);
    if (count > 1)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            rc = replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        struct stat st;
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay-hw3: %s: %s\n", argv[i], strerror(errno));
            rc = -1;
        } else
            rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
    }
    if (rc != 0)
        return 2;
    size_t passed =
        counts[HW3_REFUSED] + counts[HW3_ACCEPTED] + counts[HW3_SOLVED] + counts[HW3_SKIPPED_LARGE];
    printf("%zu of %zu inputs passed: %zu refused, %zu read, %zu read and solved, %zu skipped "
           "(large V)\n",
           passed, passed + failures, counts[HW3_REFUSED], counts[HW3_ACCEPTED], counts[HW3_SOLVED],
           counts[HW3_SKIPPED_LARGE]);
    return failures == 0 && passed > 0 ? 0 : 1;
}
