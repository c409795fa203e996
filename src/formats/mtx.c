/* Matrix Market exchange format (.mtx), the coordinate kind that SciPy's mmwrite and the
 * SuiteSparse collection write:
 *     %%MatrixMarket matrix coordinate FIELD SYMMETRY
 *     % comments
 *     V V NNZ
 *     i j [w]            NNZ entries, i and j from 1 to V
 * FIELD is integer, real or double (whole values "2", "2.0", "2e3" are integer weights; a
 * fraction such as 2.5 makes the weights real, where the read options' type takes them) or
 * pattern (no value: weight 1). SYMMETRY is general, or symmetric: only the lower
 * triangle (i >= j) is stored and each entry off the diagonal is an edge both ways. Entry
 * (i, j, w) is the edge i -> j of weight w. Dense (array) files, complex, hermitian and
 * skew-symmetric matrices, a matrix that is not square and a count of entries other than NNZ
 * are refused with their line. Blank and comment lines may come anywhere after the banner. */
#include "base/graph.h"
#include "formats/readers.h"

#include <stddef.h>
#include <string.h>

typedef struct mtx {
    text_input t;
    const apsp_read_options *options;
    apsp_graph *g;
    int pattern, integer, symmetric;
    uint64_t size_line, announced;
    uint64_t seen; /* entries read */
} mtx;

static apsp_status banner_word(mtx *m, const char *what, char *word, size_t size,
                               apsp_error *error) {
    return text_word(&m->t, what, word, size, error);
}

/* The banner's words, each checked with a message saying what is read. */
static apsp_status banner(mtx *m, apsp_error *error) {
    text_input *t = &m->t;
    static const char magic[] = "%%MatrixMarket";
    if (!text_next_line(t, "") || t->line != 1 || strncmp(t->p, magic, sizeof magic - 1) != 0)
        return text_fail(t, error, "expected the banner '%%%%MatrixMarket matrix coordinate ...'");
    t->p += sizeof magic - 1;
    char object[32], format[32], field[32], symmetry[32];
    apsp_status status = banner_word(m, "'matrix'", object, sizeof object, error);
    if (status == APSP_OK && strcmp(object, "matrix") != 0)
        return text_fail(t, error, "object '%s': only 'matrix' is read", object);
    if (status == APSP_OK)
        status = banner_word(m, "'coordinate'", format, sizeof format, error);
    if (status == APSP_OK && strcmp(format, "coordinate") != 0)
        return text_fail(t, error, "format '%s': only 'coordinate' (sparse) files are read%s",
                         format, strcmp(format, "array") == 0 ? ", not dense 'array' ones" : "");
    if (status == APSP_OK)
        status = banner_word(m, "the field (integer, real or pattern)", field, sizeof field, error);
    if (status == APSP_OK && strcmp(field, "integer") && strcmp(field, "real") &&
        strcmp(field, "double") && strcmp(field, "pattern"))
        return text_fail(t, error, "field '%s': only integer, real and pattern are read", field);
    if (status == APSP_OK)
        status =
            banner_word(m, "the symmetry (general or symmetric)", symmetry, sizeof symmetry, error);
    if (status == APSP_OK && strcmp(symmetry, "general") && strcmp(symmetry, "symmetric"))
        return text_fail(t, error, "symmetry '%s': only general and symmetric are read", symmetry);
    if (status == APSP_OK)
        status = text_line_done(t, "the symmetry", error);
    m->pattern = strcmp(field, "pattern") == 0;
    m->integer = strcmp(field, "integer") == 0;
    m->symmetric = strcmp(symmetry, "symmetric") == 0;
    return status;
}

static apsp_status size_line(mtx *m, apsp_error *error) {
    text_input *t = &m->t;
    uint64_t rows = 0, cols = 0, nnz = 0;
    if (!text_next_line(t, "%"))
        return text_fail(t, error, "the end, and no size line 'V V NNZ'");
    apsp_status status = text_uint(t, "the row count", INT32_MAX, &rows, error);
    if (status == APSP_OK)
        status = text_uint(t, "the column count", INT32_MAX, &cols, error);
    if (status == APSP_OK)
        status = text_uint(t, "the entry count", INT64_MAX, &nnz, error);
    if (status == APSP_OK)
        status = text_line_done(t, "the entry count", error);
    if (status == APSP_OK && rows != cols)
        return text_fail(t, error, "a %llu x %llu matrix: a graph's must be square",
                         (unsigned long long)rows, (unsigned long long)cols);
    if (status == APSP_OK && rows == 0)
        return text_fail(t, error, "a 0 x 0 matrix: a graph needs at least one vertex");
    if (status == APSP_OK)
        status = apsp_graph_create((size_t)rows, 0, &m->g, error);
    if (status == APSP_OK)
        status = reserve_announced(m->g, t, nnz * (m->symmetric ? 2 : 1), 4, error);
    m->size_line = t->line;
    m->announced = nnz;
    return status;
}

static apsp_status entry(mtx *m, apsp_error *error) {
    text_input *t = &m->t;
    uint64_t i = 0, j = 0, n = m->g->vertices;
    text_weight w = {.value = 1};
    apsp_status status = text_uint(t, "the row", UINT64_MAX, &i, error);
    if (status == APSP_OK && (i < 1 || i > n))
        return text_fail(t, error, "row %llu is out of range [1, %llu]", (unsigned long long)i,
                         (unsigned long long)n);
    if (status == APSP_OK)
        status = text_uint(t, "the column", UINT64_MAX, &j, error);
    if (status == APSP_OK && (j < 1 || j > n))
        return text_fail(t, error, "column %llu is out of range [1, %llu]", (unsigned long long)j,
                         (unsigned long long)n);
    if (status == APSP_OK && m->symmetric && j > i)
        return text_fail(t, error,
                         "entry (%llu, %llu) above the diagonal: a symmetric file stores only "
                         "the lower triangle",
                         (unsigned long long)i, (unsigned long long)j);
    if (status == APSP_OK && !m->pattern)
        status = m->integer ? text_int(t, "the value", &w.value, error)
                            : text_number(t, "the value", &w, error);
    if (status == APSP_OK)
        status = text_line_done(
            t, m->pattern ? "the column (a pattern file has no values)" : "the value", error);
    int32_t row = (int32_t)(i - 1), col = (int32_t)(j - 1);
    if (status == APSP_OK)
        status = text_push_weight(t, m->options, m->g, row, col, &w, (size_t)n, error);
    if (status == APSP_OK && m->symmetric && i != j)
        status = text_push_weight(t, m->options, m->g, col, row, &w, (size_t)n, error);
    return status;
}

static apsp_status entry_lines(void *reader, apsp_error *error) {
    mtx *m = reader;
    text_input *t = &m->t;
    apsp_status status = APSP_OK;
    while (status == APSP_OK && text_next_line(t, "%")) {
        if (m->seen++ == m->announced)
            return text_fail(t, error,
                             "more entries than the NNZ = %llu of the size line "
                             "(line %llu)",
                             (unsigned long long)m->announced, (unsigned long long)m->size_line);
        status = entry(m, error);
    }
    return status;
}

static void merge_piece(void *reader, const void *piece) {
    ((mtx *)reader)->seen += ((const mtx *)piece)->seen;
}

/* Read in pieces, the entries must be exactly NNZ (else they are read again in order). */
static int accept_pieces(const void *reader) {
    const mtx *m = reader;
    return m->seen == m->announced;
}

static const body_reader entry_body = {
    .size = sizeof(mtx),
    .input_offset = offsetof(mtx, t),
    .graph_offset = offsetof(mtx, g),
    .edges_per_line = 2,
    .body = entry_lines,
    .merge = merge_piece,
    .accept = accept_pieces,
};

static apsp_status entries(mtx *m, apsp_error *error) {
    apsp_status status = parse_body(m, &entry_body, m->options->threads, error);
    if (status == APSP_OK && m->seen < m->announced)
        status = text_fail(&m->t, error,
                           "the end after %llu entries, but the size line (line %llu) "
                           "says NNZ = %llu",
                           (unsigned long long)m->seen, (unsigned long long)m->size_line,
                           (unsigned long long)m->announced);
    return status;
}

apsp_status read_mtx_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error) {
    mtx m = {.options = options};
    apsp_status status = text_open(path, &m.t, 0, error);
    if (status == APSP_OK)
        status = banner(&m, error);
    if (status == APSP_OK)
        status = size_line(&m, error);
    if (status == APSP_OK)
        status = entries(&m, error);
    text_free(&m.t);
    if (status != APSP_OK) {
        apsp_graph_destroy(m.g);
        m.g = NULL;
    }
    *out = m.g;
    return status;
}
