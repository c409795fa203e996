/* The text readers' splitter (text_split, src/formats/text.c) directly, for every piece count
 * from 1 to 16 (and beyond, which must be capped at TEXT_MAX_PIECES): bodies of sizes around
 * multiples of TEXT_PIECE_BYTES (-1, 0, +1), short lines that cross every cut, lines longer than
 * a piece, with and without a final newline, the cursor at the start or in the middle of the
 * first line. Each input is a buffer of exactly its size, so that a read past its end is an
 * error under AddressSanitizer too. The pieces must be contiguous, cover exactly the bytes after
 * the cursor's line, each end at a line end (the last at the input's end), none reach past the
 * end, and with short lines there must be as many as the body's size allows. */
#include "check.h"
#include "formats/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOST_TRIED = 64, GUARD = 4 };

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void) { /* xorshift64: the same inputs on every run */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* `size` bytes of lines of 1 to `longest` bytes each (the newline included): digits and
 * blanks, as an edge list's. */
static char *random_lines(size_t size, size_t longest) {
    char *data = malloc(size);
    if (!data) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t at = 0; at < size;) {
        size_t line = 1 + next_random() % longest;
        for (size_t i = 0; i + 1 < line && at < size; i++, at++)
            data[at] = (next_random() % 4 == 0) ? ' ' : (char)('0' + next_random() % 10);
        if (at < size)
            data[at++] = '\n';
    }
    return data;
}

/* The first `size` bytes of `lines` in a buffer of exactly that size, whose last byte is a
 * newline or not, as `final_newline` says. */
static char *input_of(const char *lines, size_t size, int final_newline) {
    char *data = malloc(size);
    if (!data) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(data, lines, size);
    data[size - 1] = final_newline ? '\n' : '7';
    return data;
}

/* The first byte after the line the cursor is in, found by a plain loop. */
static const char *after_cursor_line(const text_input *t) {
    const char *p = t->p;
    while (p < t->end && *p != '\n')
        p++;
    return p < t->end ? p + 1 : t->end;
}

static size_t expected_count(size_t body, size_t most) {
    size_t count = body / TEXT_PIECE_BYTES;
    count = count < most ? count : most;
    count = count < TEXT_MAX_PIECES ? count : TEXT_MAX_PIECES;
    return count < 2 ? 0 : count;
}

/* One split of t into up to `most` pieces, checked; `short_lines`: every line is far shorter
 * than a piece, so the count is exact. */
static void check_split(const text_input *t, size_t most, int short_lines, const char *what) {
    text_input pieces[TEXT_MAX_PIECES + GUARD];
    memset(pieces, 0xA5, sizeof pieces);
    size_t count = text_split(t, most, pieces);
    const char *body = after_cursor_line(t);
    size_t body_bytes = (size_t)(t->end - body);
    CHECK(count <= TEXT_MAX_PIECES && count <= most && count != 1, "%s, most %zu: %zu pieces", what,
          most, count);
    if (short_lines)
        CHECK(count == expected_count(body_bytes, most), "%s, most %zu: %zu pieces, expected %zu",
              what, most, count, expected_count(body_bytes, most));
    for (size_t i = count; i < TEXT_MAX_PIECES + GUARD; i++) {
        unsigned char poison[sizeof pieces[0]];
        memset(poison, 0xA5, sizeof poison);
        CHECK(memcmp(&pieces[i], poison, sizeof poison) == 0,
              "%s, most %zu: entry %zu written past the %zu pieces", what, most, i, count);
    }
    if (count == 0 || count > TEXT_MAX_PIECES)
        return;
    const char *expect_start = body;
    for (size_t i = 0; i < count; i++) {
        const text_input *piece = &pieces[i];
        CHECK(piece->data == t->data && piece->name == t->name, "%s, most %zu: piece %zu buffer",
              what, most, i);
        CHECK(piece->p == expect_start && piece->line_start == expect_start,
              "%s, most %zu: piece %zu starts at %td, expected %td", what, most, i,
              piece->p - t->data, expect_start - t->data);
        CHECK(piece->end > piece->p && piece->end <= t->end,
              "%s, most %zu: piece %zu is [%td, %td) of an input of %td bytes", what, most, i,
              piece->p - t->data, piece->end - t->data, t->end - t->data);
        if (!(piece->end > piece->p && piece->end <= t->end))
            return; /* nothing below can be read safely */
        if (i + 1 < count)
            CHECK(piece->end[-1] == '\n',
                  "%s, most %zu: piece %zu ends at %td, not after a newline", what, most, i,
                  piece->end - t->data);
        expect_start = piece->end;
    }
    CHECK(pieces[count - 1].end == t->end, "%s, most %zu: the last piece ends at %td, not at %td",
          what, most, pieces[count - 1].end - t->data, t->end - t->data);
}

/* Every piece count over the first `size` bytes of `lines` (lines of up to `longest` bytes). */
static void check_input(const char *lines, size_t size, size_t longest, int final_newline,
                        size_t cursor, const char *shape) {
    char *data = input_of(lines, size, final_newline);
    text_input t = {.name = "split-test", .data = data, .end = data + size};
    t.p = t.line_start = data + (cursor < size ? cursor : 0);
    char what[160];
    snprintf(what, sizeof what, "%s, %zu bytes (%zu MiB %+lld), cursor at %zu%s", shape, size,
             (size + TEXT_PIECE_BYTES / 2) / TEXT_PIECE_BYTES,
             (long long)size -
                 (long long)((size + TEXT_PIECE_BYTES / 2) / TEXT_PIECE_BYTES * TEXT_PIECE_BYTES),
             cursor, final_newline ? "" : ", no final newline");
    for (size_t most = 1; most <= TEXT_MAX_PIECES + 1; most++)
        check_split(&t, most, longest < 1024, what);
    check_split(&t, MOST_TRIED, longest < 1024, what);
    free(data);
}

int main(void) {
    const size_t piece = TEXT_PIECE_BYTES, most_bytes = (TEXT_MAX_PIECES + 1) * piece + 64;
    /* Short lines (up to 80 bytes) that cross every cut, around each multiple of the piece's
     * size up to 17, the cursor at the start of the input and in its first line. */
    char *short_lines = random_lines(most_bytes, 80);
    for (size_t k = 1; k <= TEXT_MAX_PIECES + 1; k++)
        for (int delta = -1; delta <= 1; delta++) {
            size_t size = k * piece + (size_t)((long)delta);
            check_input(short_lines, size, 80, delta != 0, 0, "short lines");
            check_input(short_lines, size, 80, delta == 0, 1, "short lines");
        }
    /* A body of k pieces after a first line that the cursor is in the middle of. */
    for (size_t k = 2; k <= TEXT_MAX_PIECES; k += 7)
        check_input(short_lines, k * piece + 40, 80, 1, 3, "short lines, cursor mid-line");
    free(short_lines);
    /* Lines longer than a piece: some shares end inside the line before; pieces may be fewer. */
    const size_t long_lines[][3] = {/* size, longest line, cursor */
                                    {9 * piece + 1, 3 * piece, 0},
                                    {5 * piece - 1, 2 * piece, 0},
                                    {16 * piece + 1, piece + 7, 2},
                                    {3 * piece, 4 * piece, 1}};
    for (size_t i = 0; i < sizeof long_lines / sizeof long_lines[0]; i++) {
        char *lines = random_lines(long_lines[i][0], long_lines[i][1]);
        check_input(lines, long_lines[i][0], long_lines[i][1], (int)(i % 2), long_lines[i][2],
                    "long lines");
        free(lines);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
