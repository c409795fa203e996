/* The fields of a CSV or TSV line and the header that names its columns (csv.c). */
#ifndef APSP_CSV_HEADER_H
#define APSP_CSV_HEADER_H

#include "formats/text.h"
#include "formats/vertex_names.h"

#include <stddef.h>

/* The longest line (and field) taken: a stream of longer lines is refused as it comes. */
enum { CSV_LONGEST_LINE = 1 << 20, CSV_COLUMN_NAME = 64 };

/* A field's bytes within the line, without its quotes; `escaped`: it holds "" (csv_unquote). */
typedef struct csv_field {
    const char *start;
    size_t len;
    int escaped;
} csv_field;

/* Which fields hold the source, the target and the weight (index[2] = -1: none, every weight
 * 1), as the header names them (or "column 1", ... without one); `fields`: how many a line must
 * have. */
typedef struct csv_columns {
    char delimiter;
    int index[3];
    int fields;
    char name[3][CSV_COLUMN_NAME];
} csv_columns;

/* The field at the cursor, the cursor moved past it and its separator (',' or '\t', the only two
 * it knows); *last: it ended the line.
 * Refuses an unclosed quote (also one that a line break would close), a quote inside an
 * unquoted field, and bytes after a closing quote. */
apsp_status csv_next_field(text_input *t, char delimiter, csv_field *f, int *last,
                           apsp_error *error);
/* f's bytes with each "" made one quote, into out (f->len bytes of room); returns the length. */
size_t csv_unquote(const csv_field *f, char *out);
/* "line L: N fields, but COLUMN is field M". */
apsp_status csv_missing_field(const text_input *t, const csv_columns *c, int field,
                              apsp_error *error);

/* The first line, at the cursor: a header when `wanted` names columns ("from,to[,length]", which
 * it must hold) or when it has a source and a target column of the default names (apsp_io.h),
 * else the first edge (*header = 0), whose field count says whether there are weights. */
apsp_status csv_read_header(text_input *t, char delimiter, const char *wanted, csv_columns *c,
                            int *header, apsp_error *error);

#endif
