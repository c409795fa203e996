/* replay-cache-file PATH...: every file (directories: every file in them, in name order)
 * through cache_check, the fuzzer's own properties (cache_check.h), without libFuzzer. Exits 0
 * when all pass, 1 on a failure or nothing to replay, 2 on an unreadable argument. */
#include "cache_check.h"
#include "replay_files.h"

#include <stdio.h>

static size_t outcomes[2];

static int check_one(const uint8_t *data, size_t size, const char *path) {
    char why[512];
    cache_outcome o = cache_check(data, size, why, sizeof why);
    if (o == CACHE_FAILED) {
        fprintf(stderr, "FAIL %s (%zu bytes): %s\n", path, size, why);
        return -1;
    }
    outcomes[o]++;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: replay-cache-file PATH...\n");
        return 2;
    }
    size_t failed = 0;
    long replayed = replay_files("replay-cache-file", argv + 1, argc - 1, check_one, &failed);
    if (replayed < 0)
        return 2;
    printf("cache files: %ld inputs, %zu failed: %zu refused, %zu accepted\n", replayed, failed,
           outcomes[CACHE_REFUSED], outcomes[CACHE_ACCEPTED]);
    return failed == 0 && outcomes[CACHE_ACCEPTED] > 0 && outcomes[CACHE_REFUSED] > 0 ? 0 : 1;
}
