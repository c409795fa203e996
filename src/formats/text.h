/* Hand parsing of the text formats (DIMACS, Matrix Market, edge lists): the whole input in one
 * buffer, a cursor that counts lines, and number fields parsed without a library call per
 * number. Every error names the input and the line: "FILE: line L: ...". */
#ifndef APSP_TEXT_H
#define APSP_TEXT_H

#include "apsp.h"
#include "base/error.h"
#include "formats/input.h"

#include <stddef.h>
#include <stdint.h>

typedef struct text_input {
    const char *name; /* for messages */
    char *data;       /* the whole input, with a '\0' after its last byte */
    const char *end;  /* data + size */
    const char *p;    /* the cursor, inside the current line */
    const char *line_start;
    uint64_t line; /* the current line, from 1 */
    int started;   /* text_next_line was called: the cursor is inside a line */
} text_input;

/* Reads the whole of `in` into t (in stays open; the caller closes it). A stream (a pipe, a
 * compressed input) with a line longer than `longest_line` bytes (0: no limit) is refused as it
 * comes in; a regular file is its own bound. */
apsp_status text_load(input_file *in, text_input *t, size_t longest_line, apsp_error *error);
void text_free(text_input *t);

/* Moves the cursor to the start of the next line that has something on it other than blanks
 * and is not a comment (its first non-blank byte one of `comments`), skipping the rest of the
 * current line. The first call goes to the first such line. Returns 0 at the end of the input. */
int text_next_line(text_input *t, const char *comments);

/* Skips spaces and tabs; then whether the cursor is at the end of the line ("\n", "\r\n", or the
 * end of the input). */
int text_at_line_end(text_input *t);

/* Fails with "NAME: line L: " and the message, as APSP_ERR_INPUT. */
apsp_status text_fail(const text_input *t, apsp_error *error, const char *format, ...)
    APSP_PRINTF(3, 4);

/* The next blank-separated field for a message: at most 24 bytes of it, non-printing bytes
 * escaped, "the end of the line" where there is none. */
const char *text_field(const text_input *t, char *buf, size_t size);

/* A number field as text_number reads it: an integer in value, or a real number in real
 * (is_real = 1), and the field as written (for messages: "1e39", not 9.9999999999999994e+38). */
typedef struct text_weight {
    int64_t value;
    double real;
    int is_real;
    const char *text; /* into the input's buffer, `length` bytes */
    int length;
} text_weight;

/* w's field as written, for a message: its first 24 bytes ("..." after them) in buf
 * (TEXT_WRITTEN_BYTES hold any). Returns buf. */
enum { TEXT_WRITTEN_BYTES = 32 };
const char *text_written(const text_weight *w, char *buf, size_t size);

/* Fields, each after optional blanks. A field must end at a blank or the end of the line.
 * text_uint: digits only, at most `most` (`what` names it in messages: "vertex id").
 * text_int: an optional sign and digits, in int64.
 * text_integral: also a real number with an integral value ("2.0", "1.5e1", "3e+00").
 * text_number: what text_integral takes into w->value (w->is_real = 0) or, where that is not a
 *   whole number of int64 ("1.5", "2e-3", "1e30"), the real number into w->real (w->is_real =
 *   1); "inf" and "nan" are refused as not finite, a value beyond double's range as out of range;
 *   a nonzero value below it ("1e-400") is the least double of its sign, so that the weight rule
 *   refuses it as nonzero rather than taking it as 0.
 * text_word: letters, digits, '-' and '_', lowercased into buf (banner words). */
apsp_status text_uint(text_input *t, const char *what, uint64_t most, uint64_t *value,
                      apsp_error *error);
apsp_status text_int(text_input *t, const char *what, int64_t *value, apsp_error *error);
apsp_status text_integral(text_input *t, const char *what, int64_t *value, apsp_error *error);
apsp_status text_number(text_input *t, const char *what, text_weight *w, apsp_error *error);
apsp_status text_word(text_input *t, const char *what, char *buf, size_t size, apsp_error *error);

/* Fails unless the line has nothing more (`after` names the last field, for the message). */
apsp_status text_line_done(text_input *t, const char *after, apsp_error *error);

/* Parsing a long body of like lines (edges, arcs, entries) on several threads: the lines after
 * the cursor's are cut into up to `most` (at most TEXT_MAX_PIECES) contiguous pieces, each
 * ending at the first line end after its share of at least TEXT_PIECE_BYTES (fewer pieces where
 * long lines leave nothing for the last ones), each a text_input of its own over the same buffer
 * (line numbers not counted: a reader that meets a problem in a piece parses the whole body
 * again in order, for the exact first error and its line). Returns the number of pieces, 0 when
 * the body is too short to be worth cutting. */
enum { TEXT_PIECE_BYTES = 1 << 20, TEXT_MAX_PIECES = 16 };
size_t text_split(const text_input *t, size_t most, text_input *pieces);
/* The lines from the cursor to the end (a bound on a piece's edges, for reserving room). */
size_t text_count_lines(const text_input *t);

#endif
