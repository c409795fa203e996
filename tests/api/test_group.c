/* base/group.c, items grouped by a key on the host's threads (the adjacency of every sparse
 * solve, the device's in-edges for the predecessors): against a serial counting sort, on 1, 2, 4
 * and 16 threads, with items left out, empty groups, a hub of many and no items at all; and with
 * the first half's keys slowed, so that the second thread places its items first and only the
 * groups' sort puts them back in order. */
#include "base/group.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITEMS = 300000, GROUPS = 5000, HUB = 7, SMALL_GROUPS = 60000 };

typedef struct keys {
    const int64_t *key;
    size_t slow_below; /* items below this spin a little before saying their key */
} keys;

static int64_t key_of(const void *context, size_t item) {
    const keys *k = context;
    for (volatile size_t spin = 0; item < k->slow_below && spin < 200; spin++)
        ;
    return k->key[item];
}

/* The answer by a serial stable counting sort. */
static void reference(const int64_t *key, size_t count, size_t groups, size_t *starts,
                      size_t *items) {
    memset(starts, 0, (groups + 1) * sizeof *starts);
    for (size_t i = 0; i < count; i++)
        if (key[i] >= 0)
            starts[key[i] + 1]++;
    for (size_t g = 0; g < groups; g++)
        starts[g + 1] += starts[g];
    size_t *fill = malloc((groups + 1) * sizeof *fill);
    memcpy(fill, starts, (groups + 1) * sizeof *fill);
    for (size_t i = 0; i < count; i++)
        if (key[i] >= 0)
            items[fill[key[i]]++] = i;
    free(fill);
}

static void check_grouping(const char *what, const keys *k, size_t count, size_t groups,
                           unsigned threads) {
    size_t *want_starts = malloc((groups + 1) * sizeof(size_t));
    size_t *want = malloc((count ? count : 1) * sizeof(size_t));
    size_t *starts = malloc((groups + 1) * sizeof(size_t));
    size_t *items = calloc(count ? count : 1, sizeof(size_t));
    reference(k->key, count, groups, want_starts, want);
    int result = group_by_key(count, groups, key_of, k, threads, starts, items);
    size_t grouped = want_starts[groups];
    CHECK(result == 0 && memcmp(starts, want_starts, (groups + 1) * sizeof *starts) == 0 &&
              memcmp(items, want, grouped * sizeof *items) == 0,
          "%s, %u threads: the serial counting sort's groups, each in increasing order", what,
          threads);
    free(want_starts);
    free(want);
    free(starts);
    free(items);
}

int main(void) {
    int64_t *key = malloc(ITEMS * sizeof *key);
    uint64_t state = 12345;
    for (size_t i = 0; i < ITEMS; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t r = state >> 33;
        key[i] = r % 10 == 0 ? -1 : r % 3 == 0 ? HUB : (int64_t)(r % (GROUPS / 2)) * 2;
    }
    keys k = {key, 0};
    unsigned counts[] = {1, 2, 4, 16};
    for (size_t t = 0; t < sizeof counts / sizeof *counts; t++)
        check_grouping("random keys, a tenth left out, odd groups empty, a hub", &k, ITEMS, GROUPS,
                       counts[t]);
    keys slowed = {key, ITEMS / 2};
    check_grouping("the first half's keys slowed (the second thread places first)", &slowed, ITEMS,
                   GROUPS, 2);
    check_grouping("a few items (one thread)", &k, 100, GROUPS, 4);
    check_grouping("no items", &k, 0, GROUPS, 4);
    check_grouping("no groups, no items", &k, 0, 0, 4);
    for (size_t i = 0; i < ITEMS; i++) /* groups of a few items each: the insertion's */
        key[i] = key[i] < 0 ? -1 : (int64_t)((i * 7919 + (size_t)key[i]) % SMALL_GROUPS);
    check_grouping("small groups, the first half's keys slowed", &slowed, ITEMS, SMALL_GROUPS, 2);
    check_grouping("small groups", &k, ITEMS, SMALL_GROUPS, 16);
    free(key);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
