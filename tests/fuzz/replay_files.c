/* Replaying saved fuzzer inputs (replay_files.h). */
#include "replay_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MOST_INPUT_BYTES = 1 << 20, MOST_DIR_ENTRIES = 4096 };

static const char *program_name;

static int replay_one(const char *path, replay_check_fn check, size_t *failed) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", program_name, path, strerror(errno));
        return -1;
    }
    static uint8_t data[MOST_INPUT_BYTES];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    /* A copy of exactly its size, as libFuzzer gives it: under ASan a read past it is caught. */
    uint8_t *input = malloc(size ? size : 1);
    if (!input) {
        fprintf(stderr, "%s: %s: out of memory\n", program_name, path);
        return -1;
    }
    memcpy(input, data, size);
    *failed += check(input, size, path) != 0;
    free(input);
    return 0;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files directly inside `dir`, in name order; returns how many were replayed. */
static long replay_dir(const char *dir, replay_check_fn check, size_t *failed) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s: %s\n", program_name, dir, strerror(errno));
        return -1;
    }
    static char *names[MOST_DIR_ENTRIES];
    size_t count = 0;
    for (struct dirent *ent; count < MOST_DIR_ENTRIES && (ent = readdir(d));) {
        size_t len = strlen(dir) + strlen(ent->d_name) + 2;
        if (ent->d_name[0] != '.' && (names[count] = malloc(len)))
            snprintf(names[count++], len, "%s/%s", dir, ent->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    long replayed = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (replayed >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            replayed = replay_one(names[i], check, failed) == 0 ? replayed + 1 : -1;
        free(names[i]);
    }
    return replayed;
}

long replay_files(const char *program, char **paths, int count, replay_check_fn check,
                  size_t *failed) {
    program_name = program;
    long replayed = 0;
    *failed = 0;
    for (int i = 0; i < count && replayed >= 0; i++) {
        struct stat st;
        long here = -1;
        if (stat(paths[i], &st) != 0)
            fprintf(stderr, "%s: %s: %s\n", program, paths[i], strerror(errno));
        else if (S_ISDIR(st.st_mode))
            here = replay_dir(paths[i], check, failed);
        else
            here = replay_one(paths[i], check, failed) == 0 ? 1 : -1;
        replayed = here < 0 ? -1 : replayed + here;
    }
    return replayed;
}
