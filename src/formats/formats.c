/* The formats' one table: each format's name, its extensions for reading and for writing, and
 * its reader or writer. Adding a format is a row here and a file beside hw3.c. */
#include "formats/formats.h"
#include "base/error.h"
#include "output/output_file.h"
#include "formats/readers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef apsp_status (*graph_reader)(const char *path, const apsp_read_options *options,
                                    apsp_graph **out, apsp_error *error);
typedef apsp_status (*matrix_writer)(apsp_output *output, const apsp_matrix *matrix,
                                     apsp_error *error);

/* X(FORMAT, name, input extensions, output extensions, reader, writer): extensions are
 * space-separated, with their dot; NULL: not a format of that direction. hw3 has none: it is
 * what any other name means, for the course's files (.in, .bin, .out). */
#define FORMATS(X)                                                                                 \
    X(HW3, "hw3", "", "", read_hw3_graph, apsp_output_commit_hw3)                                  \
    X(DIMACS, "dimacs", ".gr", NULL, read_dimacs_graph, NULL)                                      \
    X(MTX, "mtx", ".mtx", NULL, read_mtx_graph, NULL)                                              \
    X(EDGELIST, "edgelist", ".txt .edges .el", NULL, read_edgelist_graph, NULL)                    \
    X(NPY, "npy", ".npy", ".npy", read_npy_graph, commit_npy)                                      \
    X(TEXT, "text", NULL, ".txt", NULL, commit_text)                                               \
    X(CSV, "csv", ".csv", ".csv", read_csv_graph, NULL)                                            \
    X(TSV, "tsv", ".tsv", ".tsv", read_tsv_graph, NULL)

typedef struct format_row {
    apsp_format format;
    const char *name;
    const char *extensions[2]; /* input, output */
    graph_reader read;
    matrix_writer write;
} format_row;

#define ROW(F, name, in, out, reader, writer) {APSP_FORMAT_##F, name, {in, out}, reader, writer},
static const format_row formats[] = {FORMATS(ROW)};
#undef ROW

enum { FORMAT_COUNT = sizeof formats / sizeof formats[0] };

static const format_row *row_of(apsp_format format) {
    for (int i = 0; i < FORMAT_COUNT; i++)
        if (formats[i].format == format)
            return &formats[i];
    return NULL;
}

int apsp_format_parse(const char *text, apsp_format *format) {
    for (int i = 0; i < FORMAT_COUNT; i++)
        if (strcmp(text, formats[i].name) == 0) {
            *format = formats[i].format;
            return 0;
        }
    return -1;
}

const char *apsp_format_name(apsp_format format) {
    const format_row *row = row_of(format);
    return row ? row->name : format == APSP_FORMAT_AUTO ? "auto" : "unknown";
}

/* Whether the space-separated list holds ext (with its dot), ignoring case. */
static int listed(const char *list, const char *ext) {
    size_t len = strlen(ext);
    for (const char *p = list; p && *p;) {
        size_t word = strcspn(p, " ");
        if (word == len && strncasecmp(p, ext, len) == 0)
            return 1;
        p += word + (p[word] == ' ');
    }
    return 0;
}

/* The extension of the last len bytes of base (without a compressed input's .gz, .zst or .bz2,
 * which the contents tell, not the name: input.c), as a string in buf, or NULL. */
static const char *extension(const char *base, size_t len, int output, char *buf, size_t size) {
    const char *ext = NULL;
    for (const char *p = base; p < base + len; p++)
        ext = *p == '.' ? p : ext;
    if (!ext || ext == base || (size_t)(base + len - ext) >= size)
        return NULL;
    snprintf(buf, size, "%.*s", (int)(base + len - ext), ext);
    if (!output && listed(".gz .zst .zstd .bz2", buf))
        return extension(base, (size_t)(ext - base), output, buf, size);
    return buf;
}

apsp_format apsp_format_for(const char *path, int output) {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char buf[16];
    const char *ext = extension(base, strlen(base), output, buf, sizeof buf);
    for (int i = 0; ext && i < FORMAT_COUNT; i++)
        if (listed(formats[i].extensions[output != 0], ext))
            return formats[i].format;
    return APSP_FORMAT_HW3;
}

void apsp_read_options_init(apsp_read_options *options) {
    memset(options, 0, sizeof *options);
}

apsp_status apsp_read_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                            apsp_error *error) {
    *out = NULL;
    apsp_read_options defaults;
    if (!options) {
        apsp_read_options_init(&defaults);
        options = &defaults;
    }
    if (options->threads < 0)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_read_options.threads = %d: must be 0 (one per core) or more",
                    options->threads);
    apsp_format format = options->format ? options->format : apsp_format_for(path, 0);
    const format_row *row = row_of(format);
    if (!row || !row->read)
        return fail(error, APSP_ERR_USAGE, "%s: %s is not an input format", path,
                    apsp_format_name(format));
    apsp_status status = row->read(path, options, out, error);
    if (status == APSP_OK)
        status = apsp_graph_transform(*out, options->flags, error);
    if (status != APSP_OK) {
        apsp_graph_destroy(*out);
        *out = NULL;
    }
    return status;
}

apsp_status apsp_output_commit(apsp_output *output, apsp_format format, const apsp_matrix *matrix,
                               apsp_error *error) {
    if (format == APSP_FORMAT_AUTO)
        format = apsp_format_for(output_target_path(output), 1);
    const format_row *row = row_of(format);
    if (!row || !row->write) {
        apsp_output_abort(output);
        return fail(error, APSP_ERR_USAGE, "%s is not an output format", apsp_format_name(format));
    }
    return row->write(output, matrix, error);
}

apsp_status apsp_write_matrix(const char *path, apsp_format format, const apsp_matrix *matrix,
                              apsp_error *error) {
    apsp_output *output;
    apsp_status status = apsp_output_open(path, &output, error);
    if (status != APSP_OK)
        return status;
    return apsp_output_commit(output, format, matrix, error);
}
