/* weights_path_bound (src/base/graph_matrix.c), the narrow path's and int32 rows' bound, against
 * its definition: the sum of the V - 1 largest |w| by a sort, on random weights of every width
 * (many repeats, so that the radix selection's boundary falls inside a run of equal values),
 * negative ones, INT64_MIN, fewer edges than V - 1, V < 2, sums that saturate at UINT64_MAX, and
 * self-loops left out; and lists long enough for the passes to run on threads (1 to 7 of them,
 * each count the same bound).
 *
 *     test-path-bound */
#include "check.h"
#include "base/graph.h"
#include "sssp/sssp.h"

#include <stdint.h>
#include <stdlib.h>

/* Every weight counted, on the calling thread. */
static uint64_t sssp_bound(const int64_t *w, size_t edges, size_t vertices) {
    return weights_path_bound(w, NULL, NULL, edges, vertices, 1);
}

static uint64_t magnitude(int64_t w) {
    return w < 0 ? 0 - (uint64_t)w : (uint64_t)w;
}

static int descending(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The definition: sort the magnitudes, add the V - 1 largest, saturating. */
static uint64_t by_sort(const int64_t *w, size_t edges, size_t vertices) {
    uint64_t *m = malloc((edges ? edges : 1) * sizeof *m), sum = 0;
    for (size_t e = 0; e < edges; e++)
        m[e] = magnitude(w[e]);
    qsort(m, edges, sizeof *m, descending);
    size_t take = vertices > 1 ? vertices - 1 : 0;
    for (size_t e = 0; e < edges && e < take; e++)
        sum = sum > UINT64_MAX - m[e] ? UINT64_MAX : sum + m[e];
    free(m);
    return sum;
}

static uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A weight of `bits` random bits (repeats likely when few), negative one time in four. */
static int64_t random_weight(uint64_t *state, unsigned bits) {
    uint64_t x = next_random(state) & (bits >= 63 ? INT64_MAX : ((uint64_t)1 << bits) - 1);
    return next_random(state) % 4 == 0 ? -(int64_t)x : (int64_t)x;
}

static void check_random(void) {
    uint64_t state = 38;
    const unsigned widths[] = {1, 3, 8, 9, 17, 31, 40, 63};
    for (size_t round = 0; round < 400; round++) {
        size_t edges = (size_t)(next_random(&state) % 300);
        size_t vertices = (size_t)(next_random(&state) % 400);
        unsigned bits = widths[round % (sizeof widths / sizeof widths[0])];
        int64_t *w = malloc((edges ? edges : 1) * sizeof *w);
        for (size_t e = 0; e < edges; e++)
            w[e] = random_weight(&state, bits);
        uint64_t got = sssp_bound(w, edges, vertices), want = by_sort(w, edges, vertices);
        CHECK(got == want, "round %zu: E = %zu, V = %zu, %u bits: %llu, not %llu", round, edges,
              vertices, bits, (unsigned long long)got, (unsigned long long)want);
        free(w);
    }
}

static void check_edges(void) {
    const int64_t equal[] = {5, 5, 5, 5, 5, 5};
    CHECK(sssp_bound(equal, 6, 4) == 15, "three of six equal weights: %llu",
          (unsigned long long)sssp_bound(equal, 6, 4));
    CHECK(sssp_bound(equal, 6, 1) == 0 && sssp_bound(equal, 6, 0) == 0, "V < 2 takes no edge");
    CHECK(sssp_bound(NULL, 0, 9) == 0, "no edges");
    const int64_t extreme[] = {INT64_MIN, 1, INT64_MAX};
    CHECK(sssp_bound(extreme, 3, 2) == (uint64_t)1 << 63, "|INT64_MIN| alone: %llu",
          (unsigned long long)sssp_bound(extreme, 3, 2));
    CHECK(sssp_bound(extreme, 3, 3) == UINT64_MAX, "2^63 + 2^63 - 1 saturates");
    const int64_t long_arcs[] = {7, 1000000000, 9, 11, 13, 17};
    CHECK(sssp_bound(long_arcs, 6, 7) == 1000000057, "one long arc and five short edges");
    const int64_t looped[] = {900, 5, 7, 3};
    const int32_t from[] = {2, 0, 1, 2}, to[] = {2, 1, 2, 0};
    CHECK(weights_path_bound(looped, from, to, 4, 3, 1) == 12, "the self-loop 2 -> 2 counted: %llu",
          (unsigned long long)weights_path_bound(looped, from, to, 4, 3, 1));
    CHECK(sssp_narrow_fits(INT32_MAX - 1) && !sssp_narrow_fits(INT32_MAX),
          "the narrow path's edge is INT32_MAX - 1");
}

/* Past PARALLEL_MIN_BYTES of weights, so that each pass is split over the threads asked for:
 * every count gives the sorted definition's bound, self-loops (one edge in five) left out. */
static void check_threads(void) {
    uint64_t state = 42;
    const size_t edges = 300000;
    int64_t *w = malloc(edges * sizeof *w), *kept = malloc(edges * sizeof *kept);
    int32_t *from = malloc(edges * sizeof *from), *to = malloc(edges * sizeof *to);
    const unsigned widths[] = {4, 12, 21, 40};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        size_t loops = 0;
        for (size_t e = 0; e < edges; e++) {
            w[e] = random_weight(&state, widths[k]);
            from[e] = (int32_t)(e % 1000);
            to[e] = e % 5 == 0 ? from[e] : (int32_t)((e + 1) % 1000);
            if (from[e] != to[e])
                kept[e - loops] = w[e];
            else
                loops++;
        }
        size_t vertices = 1000 + 97000 * k; /* (V - 1 below and above the edges) */
        uint64_t want = by_sort(w, edges, vertices),
                 want_kept = by_sort(kept, edges - loops, vertices);
        for (unsigned threads = 1; threads <= 7; threads += 2) {
            uint64_t got = weights_path_bound(w, NULL, NULL, edges, vertices, threads);
            uint64_t got_kept = weights_path_bound(w, from, to, edges, vertices, threads);
            CHECK(got == want && got_kept == want_kept,
                  "%u bits, V = %zu, %u threads: %llu and %llu (self-loops out), not %llu and %llu",
                  widths[k], vertices, threads, (unsigned long long)got,
                  (unsigned long long)got_kept, (unsigned long long)want,
                  (unsigned long long)want_kept);
        }
    }
    free(w);
    free(kept);
    free(from);
    free(to);
}

int main(void) {
    check_edges();
    check_random();
    check_threads();
    printf("test-path-bound: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
