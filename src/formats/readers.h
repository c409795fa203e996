/* The graph readers, one file per format; apsp_read_graph (formats.c) picks one by the format.
 * Each reads `path` ("-": standard input) into a new graph, refusing every malformed input with
 * the line or byte offset, and every weight the options' type does not take (base/graph.h)
 * unless the read is unweighted; apsp_read_graph then applies the options' flags. */
#ifndef APSP_READERS_H
#define APSP_READERS_H

#include "apsp.h"
#include "formats/text.h"

apsp_status read_hw3_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error);
apsp_status read_dimacs_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                              apsp_error *error);
apsp_status read_mtx_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error);
apsp_status read_edgelist_graph(const char *path, const apsp_read_options *options,
                                apsp_graph **out, apsp_error *error);
apsp_status read_csv_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error);
apsp_status read_tsv_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error);
apsp_status read_npy_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error);

/* The .npy reader (npy.c) on an open input whose first `head_bytes` bytes the caller read
 * already into `head` (the hw3 reader, which found NPY_MAGIC there); in stays open.
 * npy_read_vertices reads the header only and checks a regular file's size against it. */
enum { NPY_MAGIC_BYTES = 6 /* "\x93NUMPY" */ };
int npy_has_magic(const unsigned char *bytes, size_t count);
apsp_status npy_read_graph(input_file *in, const unsigned char *head, size_t head_bytes,
                           const apsp_read_options *options, apsp_graph **out, apsp_error *error);
apsp_status npy_read_vertices(input_file *in, const unsigned char *head, size_t head_bytes,
                              size_t *vertices, apsp_error *error);

/* For the text readers: refuses w at the current line where it breaks the rule of the options'
 * type (base/graph.h) with V = vertices (0: V not known yet, no bound); nothing for an unweighted
 * read. text_check_real: the same for a real weight (a fraction refused for an integer type),
 * named as written. */
apsp_status text_check_weight(const text_input *t, const apsp_read_options *options, int64_t w,
                              size_t vertices, apsp_error *error);
apsp_status text_check_real(const text_input *t, const apsp_read_options *options,
                            const text_weight *w, size_t vertices, apsp_error *error);

/* Checks the weight (as above) and appends the edge with it. */
apsp_status text_push_weight(const text_input *t, const apsp_read_options *options, apsp_graph *g,
                             int32_t source, int32_t target, const text_weight *w, size_t vertices,
                             apsp_error *error);

/* The weights of the largest magnitude a text reader took, with their lines: the rule for V is
 * known only at the end (edge lists and CSV count V as they go). `real` is the largest real
 * weight that stays real (is_real = 0: none). */
typedef struct weight_extremes {
    int64_t largest;
    uint64_t largest_line;
    text_weight real;
    uint64_t real_line;
} weight_extremes;
void weight_extremes_merge(weight_extremes *into, const weight_extremes *piece);
/* NULL when both fit the rule for V = vertices, else why not, with *line the weight's line. */
const char *weight_extremes_problem(const weight_extremes *x, const apsp_read_options *options,
                                    size_t vertices, char *why, size_t size, uint64_t *line);

/* A weight read at the current line (text_number), checked (V not known yet), made an integer
 * where the options' type takes no fractions (a whole number written as a real), and noted in
 * x. */
apsp_status text_take_weight(const text_input *t, const apsp_read_options *options, text_weight *w,
                             weight_extremes *x, apsp_error *error);

/* Opens path and loads it whole for a text reader (text_load: longest_line, 0 for none). */
apsp_status text_open(const char *path, text_input *t, size_t longest_line, apsp_error *error);

/* Room for the edges a header announces, but no more than the input's bytes could hold (each
 * edge needs at least `least_bytes` of them): a header that claims billions costs nothing. */
apsp_status reserve_announced(apsp_graph *g, const text_input *t, uint64_t announced,
                              size_t least_bytes, apsp_error *error);

/* A text reader's body (its edge, arc or entry lines) parsed on several threads: `body` parses
 * the lines after the cursor to the end with a reader (a struct of `size` bytes holding its
 * text_input at input_offset and its apsp_graph * at graph_offset). parse_body cuts a long
 * body into up to `threads` pieces (0: one per core; text_split), each parsed on a thread of
 * its own with a copy of the reader with its own input and graph, and, when every piece was
 * read without a problem, appends their edges to the reader's graph in order, merges each
 * piece's figures with `merge` and lets `accept` check the whole (both may be NULL). Otherwise
 * (a short body, a problem anywhere, a refusal by accept) it runs `body` on the reader itself,
 * in order, which finds the first problem and its line exactly. */
typedef struct body_reader {
    size_t size, input_offset, graph_offset;
    size_t edges_per_line; /* at most, for reserving room in each piece */
    apsp_status (*body)(void *reader, apsp_error *error);
    void (*merge)(void *reader, const void *piece);
    int (*accept)(const void *reader);
    void (*release)(void *piece); /* what a piece's body made beside its graph (may be NULL) */
} body_reader;
apsp_status parse_body(void *reader, const body_reader *how, int threads, apsp_error *error);

#endif
