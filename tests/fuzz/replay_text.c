/* replay-text FORMAT PATH...: every file (directories: every file in them, in name order) through
 * text_check, the fuzzer's own properties (text_check.h), without libFuzzer. Exits 0 when all
 * pass, 1 on a failure or nothing to replay, 2 on an unreadable argument. */
#include "text_check.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static apsp_format format;
static size_t outcomes[3], failures;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay-text: %s: %s\n", path, strerror(errno));
        return -1;
    }
    static uint8_t data[1 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    char why[2048];
    text_outcome o = text_check(format, data, size, why, sizeof why);
    if (o == TEXT_FAILED) {
        failures++;
        fprintf(stderr, "FAIL %s (%zu bytes): %s\n", path, size, why);
    } else {
        outcomes[o]++;
    }
    return 0;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay-text: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char *names[4096];
    size_t count = 0;
    for (struct dirent *ent; count < 4096 && (ent = readdir(d));) {
        size_t len = strlen(dir) + strlen(ent->d_name) + 2;
        if (ent->d_name[0] != '.' && (names[count] = malloc(len)))
            snprintf(names[count++], len, "%s/%s", dir, ent->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            rc = replay_file(names[i]);
        free(names[i]);
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 3 || apsp_format_parse(argv[1], &format) != 0) {
        fprintf(stderr, "usage: replay-text dimacs|mtx|edgelist PATH...\n");
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc && rc == 0; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay-text: %s: %s\n", argv[i], strerror(errno));
            rc = -1;
        } else {
            rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        }
    }
    if (rc != 0)
        return 2;
    size_t passed = outcomes[TEXT_REFUSED] + outcomes[TEXT_ACCEPTED] + outcomes[TEXT_SOLVED];
    printf("%s: %zu of %zu inputs passed: %zu refused, %zu read, %zu read and solved\n", argv[1],
           passed, passed + failures, outcomes[TEXT_REFUSED], outcomes[TEXT_ACCEPTED],
           outcomes[TEXT_SOLVED]);
    return failures == 0 && passed > 0 ? 0 : 1;
}
