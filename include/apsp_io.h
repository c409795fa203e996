/* apsp: the library's files, part of the public API (include/apsp.h includes this header, so
 * a program includes either): the file formats, reading a graph from a file, and writing the
 * distances atomically, whole or a few rows at a time as a solve hands them on. */
/* apsp.h first, outside the guard: it includes this header at its end, which must then find
 * the guard still open whichever of the headers a program includes first. */
#include "apsp.h"
#ifndef APSP_IO_H
#define APSP_IO_H

#ifdef __cplusplus
extern "C" {
#endif

/* File formats. Input: hw3, dimacs, mtx, edgelist, npy, csv, tsv; output: hw3, npy, text, csv,
 * tsv. Any input may be gzip, zstd or bzip2 compressed: the first bytes tell. */
typedef enum apsp_format {
    APSP_FORMAT_AUTO = 0, /* by the file's extension (apsp_format_for) */
    APSP_FORMAT_HW3,      /* the course's binary format (below); the default */
    APSP_FORMAT_DIMACS,   /* DIMACS shortest-path .gr: "p sp V E", "a u v w" (1-based), "c ..." */
    APSP_FORMAT_MTX,      /* Matrix Market coordinate: integer, real or pattern; general or
                             symmetric; 1-based; entry (i, j, w) is the edge i -> j */
    APSP_FORMAT_EDGELIST, /* text "u v" or "u v w" per line, 0-based; # and % comment lines */
    APSP_FORMAT_NPY,      /* output: NumPy .npy of the matrix's type (V, V), C order; input: a
                             square C-order '<i4', '<i8', '<f4' or '<f8' matrix, cell (i, j)
                             the edge i -> j, 0 (and inf, nan) no edge, as SciPy's dense graphs */
    APSP_FORMAT_TEXT,     /* output: V lines of V numbers, "inf" for unreachable */
    APSP_FORMAT_CSV,      /* input: an edge list of named vertices, comma-separated, RFC 4180
                             quotes, a header whose columns apsp_read_options.columns names;
                             output: the long table "source,target,distance" (apsp_long.h) */
    APSP_FORMAT_TSV,      /* the same, tab-separated */
} apsp_format;

/* Parses a format's name ("hw3", "dimacs", "mtx", "edgelist", "npy", "text", "csv", "tsv").
 * Returns -1 for anything else. */
APSP_EXPORT int apsp_format_parse(const char *text, apsp_format *format);
APSP_EXPORT const char *apsp_format_name(apsp_format format);
/* The format a path's extension names, for reading (output 0) or writing (output 1): input .gr
 * dimacs, .mtx mtx, .txt .edges .el edgelist, .npy npy, .csv csv, .tsv tsv, each also with .gz,
 * .zst or .bz2 after it; output .npy npy, .txt text, .csv csv, .tsv tsv; anything else (and "-",
 * standard input or output) hw3. */
APSP_EXPORT apsp_format apsp_format_for(const char *path, int output);

/* How apsp_read_graph reads. */
typedef struct apsp_read_options {
    apsp_format format; /* APSP_FORMAT_AUTO: by the extension (hw3 for "-") */
    size_t vertices;    /* edgelist: V, every id below it; 0: the largest id + 1 */
    unsigned flags;     /* APSP_GRAPH_UNDIRECTED, APSP_GRAPH_UNWEIGHTED (weights then unchecked) */
    /* The distances the graph is read for, which decide the weights accepted. dtype_auto 0:
     * `dtype`'s rule (apsp_graph_to_matrix_typed; APSP_INT32, the default, is the hw3 rule, and
     * only the floating-point types take fractional weights). dtype_auto 1: whatever
     * apsp_graph_dtype can pick: integers within int64's rule, any finite fractional value. */
    apsp_dtype dtype;
    int dtype_auto;
    /* Host threads that read a large input: a text body cut into up to 16 pieces, a hw3 file's
     * edges in blocks. 0: one per core this process may run on; negative is refused. */
    int threads;
    /* csv, tsv: the header's columns for the source, the target and the weight, "from,to,length"
     * (the weight's may be left out: every weight 1). NULL: the first header column named
     * source, from, u or src; target, to, v or dst; weight, length, distance or cost (any case);
     * without such a header, columns 1, 2 and (when the first line has it) 3. */
    const char *columns;
} apsp_read_options;
APSP_EXPORT void apsp_read_options_init(apsp_read_options *options);

/* Reads a graph in any input format. "-" is standard input (which is left open). The readers are
 * strict: every malformed input is refused (APSP_ERR_INPUT) with one line that names the file and
 * the line (text formats) or byte offset (hw3, npy); so are weights the options' type does not
 * take, at their line, and "inf" and "nan". DIMACS weights are integers; Matrix Market real, edge
 * list and npy float weights may be fractional ("1.5", "2e-3"). With format AUTO, a file taken
 * for hw3 by its name that starts as a .npy file ("\x93NUMPY") is read as one; asked for hw3, it
 * is refused as one. A file whose size is not its bytes (an empty one, procfs and sysfs files)
 * is read as a stream, to its end. Options may be NULL (the defaults). */
APSP_EXPORT apsp_status apsp_read_graph(const char *path, const apsp_read_options *options,
                                        apsp_graph **out, apsp_error *error);

/* The hw3 format: little-endian int32 V, E, then E triples (src, dst, w).
 * The reader is strict: every malformed input is refused with its byte offset or edge index.
 * Self-loops are ignored, duplicate edges keep the least weight, and weights must satisfy
 * (V - 1) * |w| < APSP_INF so that no distance can reach the unreachable marker.
 * apsp_read_hw3 is apsp_read_graph (format hw3) and apsp_graph_to_matrix in one call.
 * When the refused file starts with text (an edge list, DIMACS or Matrix Market file read as
 * hw3), the message ends with APSP_HW3_TEXT_HINT, which a program may replace with how its users
 * name the right format. */
#define APSP_HW3_TEXT_HINT " (text? read it as edgelist, dimacs or mtx)"
APSP_EXPORT apsp_status apsp_read_hw3(const char *path, apsp_matrix **out, apsp_error *error);

/* The vertex count of a regular hw3 file, read from its header and checked against its size
 * (the errors apsp_read_hw3 would give for those), without reading the edges; *vertices = 0 for
 * a pipe or another stream, which is left unread, and so for a file whose size is not its bytes
 * (an empty one, procfs and sysfs files), which the readers read as a stream. */
APSP_EXPORT apsp_status apsp_hw3_vertices(const char *path, size_t *vertices, apsp_error *error);

/* Writes V*V int32 row-major, atomically: into a temporary file beside the file `path` names
 * (symbolic links followed), renamed over it only when everything was written and synced. A path
 * that is not a regular file (/dev/null, a pipe, /proc/self/fd/N) is written directly. See
 * apsp_output_open for the details. */
APSP_EXPORT apsp_status apsp_write_hw3(const char *path, const apsp_matrix *matrix,
                                       apsp_error *error);
/* Writes the matrix in an output format (hw3, npy or text; AUTO: by the extension), atomically
 * as apsp_write_hw3. npy: NumPy format 1.0 in the matrix's type ('<i4', '<i8', '<f4', '<f8'),
 * shape (V, V), C order, the data 64-byte aligned (numpy.load, also with mmap_mode). text: V
 * lines of V numbers separated by one space, "inf" for unreachable pairs, floating-point values
 * with the digits that read back to the same value (%.9g, %.17g). hw3 is int32: an int64 matrix
 * is written when every distance fits (finite ones strictly between -APSP_INF and APSP_INF),
 * else refused (APSP_ERR_OUTPUT naming a pair and its distance) before the file is touched;
 * floating-point matrices are refused. */
APSP_EXPORT apsp_status apsp_write_matrix(const char *path, apsp_format format,
                                          const apsp_matrix *matrix, apsp_error *error);

/* Atomic output in two steps, so that a bad output path is refused before any computing:
 * apsp_output_open creates the temporary file; apsp_output_commit_hw3 writes, syncs and renames
 * it; apsp_output_abort removes it. Commit and abort both free the handle.
 *
 * The temporary file is unnamed where the system allows (Linux O_TMPFILE): it vanishes with the
 * process, even one killed by SIGKILL, and is linked in at commit. Elsewhere it is a hidden
 * `.NAME.apsp-XXXXXX` (NAME cut short where the whole would pass 255 bytes). The replacement keeps
 * the target's mode, and its owner where the process may set it. In a sticky directory that
 * others may write (/tmp), a symbolic link or an existing file that belongs neither to this user
 * nor to the directory's owner is refused (APSP_ERR_OUTPUT), as the kernel's
 * fs.protected_symlinks and fs.protected_regular refuse them, root included. Where a rename
 * cannot work, OUTPUT is written in place instead: its directory refuses a new file, it belongs
 * to another user who owns its sticky directory, it has several hard links (all keep the
 * result), or the rename was refused at commit. apsp_output_set_log says so. The output then
 * still goes into a temporary copy (beside OUTPUT, else an unnamed one in /tmp), copied over
 * OUTPUT only at commit, so that a run that fails before leaves the old bytes; where no copy can
 * be made anywhere, OUTPUT is written directly and a second line says that a failure leaves it
 * partial. */
typedef struct apsp_output apsp_output;
/* "-" is standard output (written directly, and left open). */
APSP_EXPORT apsp_status apsp_output_open(const char *path, apsp_output **out, apsp_error *error);
APSP_EXPORT apsp_status apsp_output_commit_hw3(apsp_output *output, const apsp_matrix *matrix,
                                               apsp_error *error);
/* The same in any output format (hw3, npy, text; AUTO: by the output path's extension). */
APSP_EXPORT apsp_status apsp_output_commit(apsp_output *output, apsp_format format,
                                           const apsp_matrix *matrix, apsp_error *error);
APSP_EXPORT void apsp_output_abort(apsp_output *output); /* accepts NULL */
/* Where OUTPUT is written in place rather than replaced, one line naming it and the reason goes
 * to `log` at APSP_LOG_INFO: at once when apsp_output_open decided so, else from the commit that
 * found the rename refused. The library prints nothing itself. */
APSP_EXPORT void apsp_output_set_log(apsp_output *output, apsp_log_fn log, void *context);
/* Host threads that write a large output: at most `threads`, and at most 8 for positioned writes
 * (pwrite), which got no faster past 8. 0 (the default; negative: the same): one per core this
 * process may run on (up to 16) for copies into a mapped file, 8 for positioned writes. */
APSP_EXPORT void apsp_output_set_threads(apsp_output *output, int threads);
/* The binary outputs' rows go into a shared mapping of the temporary file (on a local file
 * system, its room reserved). Another process that may open /proc/PID/fd/N (this user, root)
 * can truncate that file meanwhile; a store into a page so lost raises SIGBUS. By default the
 * library therefore copies by process_vm_writev, which meets such a page as an error instead
 * (the output then fails: APSP_ERR_OUTPUT, the old file kept), at a tenth of a store's speed.
 *
 * An application whose SIGBUS handler (SA_SIGINFO) calls apsp_fault_guard_recover(sig, info,
 * ucontext) first calls apsp_fault_guard_enable(1) once that handler is installed, which it
 * records. Each copy is then made by stores wherever, as it starts, that handler is SIGBUS's and
 * the copying thread does not block SIGBUS (else by process_vm_writev); a SIGBUS at a page of
 * the copy's own destination, on the thread that copies, jumps out of the handler back into the
 * copy, which fails as above. For any other signal, address or thread the call returns and the
 * handler goes on as it would. A handler that another library puts over it while a copy runs
 * must pass such a fault back (LLVM's restores the previous handler and returns). 0 (the
 * default) goes back to process_vm_writev. */
APSP_EXPORT void apsp_fault_guard_enable(int enable);
/* `info` is the handler's siginfo_t *. Async-signal-safe. */
APSP_EXPORT void apsp_fault_guard_recover(int sig, void *info, void *ucontext);
/* The temporary file's name, for removal from a signal handler: the named file's, or the name an
 * unnamed one has for an instant at commit (before the rename). NULL when the output is written
 * directly (/dev/null, a pipe), or in place through an unnamed copy (or none). Internal:
 * exported for the apsp command's signal handler, not part of what 1.0 promises
 * (docs/api.md). */
APSP_EXPORT const char *apsp_output_temp_path(const apsp_output *output);
/* The file that a write to `path` names, found as apsp_output_open finds it (symbolic links
 * followed, a dangling one to the name it would create), into `target` (`size` bytes). Internal:
 * exported for the apsp command's check that two of its files are one (a link and the file it
 * names), not part of what 1.0 promises (docs/api.md). */
APSP_EXPORT apsp_status apsp_output_target(const char *path, char *target, size_t size,
                                           apsp_error *error);

/* The labels file of a graph whose vertices are named (apsp_graph_labels): V lines, the name of
 * vertex i on line i + 1, written atomically as apsp_write_hw3 writes (the apsp command writes
 * it beside a matrix OUTPUT, as OUTPUT.labels). */
APSP_EXPORT apsp_status apsp_write_labels(const char *path, const apsp_graph *graph,
                                          apsp_error *error);

/* The matrix every distance of which above `limit` is made its type's unreachable marker (inf):
 * --limit for the matrix formats. */
APSP_EXPORT void apsp_matrix_cut(apsp_matrix *matrix, double limit);

/* The binary outputs (hw3, npy) written a few rows at a time as a solve hands them on: begin
 * takes the output over (a text format is refused: use apsp_output_commit), apsp_row_writer_put
 * is an apsp_rows_fn for the writer, finish syncs the file and puts it into place, abort
 * removes it; each of finish and abort frees the writer and the output. */
typedef struct apsp_row_writer apsp_row_writer;
APSP_EXPORT apsp_status apsp_row_writer_begin(apsp_output *output, apsp_format format,
                                              size_t vertices, apsp_row_writer **out,
                                              apsp_error *error);
/* The same for `rows` rows of `vertices` values (apsp_solver_solve_sources' S x V), in every
 * output format: hw3's raw int32 cells, an S x V .npy, or (when S != V) the text output's lines
 * written in order. */
APSP_EXPORT apsp_status apsp_row_writer_begin_rows(apsp_output *output, apsp_format format,
                                                   size_t rows, size_t vertices,
                                                   apsp_row_writer **out, apsp_error *error);
APSP_EXPORT apsp_status apsp_row_writer_put(void *writer, size_t first_row, size_t count,
                                            const int32_t *rows, size_t pitch, apsp_error *error);
/* The same for rows of any element type (apsp_solver_solve_sources_typed's): an S x V .npy of
 * the type, the text output's lines, or hw3's int32 cells (int64 rows narrowed, a distance
 * beyond int32's range refused as APSP_ERR_OUTPUT; floating-point rows refused at begin, as
 * APSP_ERR_USAGE). put_cells is an apsp_cells_fn taking rows of that type. */
APSP_EXPORT apsp_status apsp_row_writer_begin_typed(apsp_output *output, apsp_format format,
                                                    apsp_dtype dtype, size_t rows, size_t vertices,
                                                    apsp_row_writer **out, apsp_error *error);
APSP_EXPORT apsp_status apsp_row_writer_put_cells(void *writer, size_t first_row, size_t count,
                                                  const void *rows, size_t pitch,
                                                  apsp_error *error);
/* For a writer of float32 or float64 cells into a binary output (npy) without a limit, where
 * apsp_row_writer_takes_int32 says so: the int32 rows of a solve that the int32 kernels ran for
 * that type (whole weights: apsp_solver_solve_graph_typed), each cell stored as the writer's type
 * on its way into the file (APSP_INF as +inf; the values exact, as the whole-number rule has
 * them), so that no converted copy of the rows is made first: an apsp_idle_work's int32_cells.
 * Elsewhere APSP_ERR_USAGE. */
APSP_EXPORT int apsp_row_writer_takes_int32(const apsp_row_writer *writer);
APSP_EXPORT apsp_status apsp_row_writer_put_int32(void *writer, size_t first_row, size_t count,
                                                  const int32_t *rows, size_t pitch,
                                                  apsp_error *error);
/* The long outputs (csv, tsv: the header "source,target,distance", then a line for each pair
 * with a path, row by row, the diagonal's zeros included, as NetworkX's
 * all_pairs_dijkstra_path_length gives them) and a limit, set before the first rows: vertices
 * named by `labels` (V names, e.g. apsp_graph_labels; kept by the caller until finish; quoted as
 * RFC 4180 says where they must be) or, NULL, by their numbers; the vertex of row i
 * row_vertices[i] (the sources' ids; copied) or, NULL, i. With `limited`, a distance above
 * `limit` is left out of a long output and written as no path (inf, the unreachable marker) in
 * the others. Call it before apsp_row_writer_any_order, which a limit turns off. */
APSP_EXPORT apsp_status apsp_row_writer_set_table(apsp_row_writer *writer,
                                                  const char *const *labels,
                                                  const int32_t *row_vertices, int limited,
                                                  double limit, apsp_error *error);
APSP_EXPORT apsp_status apsp_row_writer_finish(apsp_row_writer *writer, apsp_error *error);
APSP_EXPORT void apsp_row_writer_abort(apsp_row_writer *writer); /* accepts NULL */
/* An apsp_idle_work's run and stop for a writer (the context): the output file's room waited for
 * and its pages made ready for the rows (a shared mapping of the whole file, populated page by
 * page), so that the rows are then a copy into memory. A regular file of a known length on a
 * local file system only; anywhere else, and on any failure, nothing is prepared and the rows are
 * written as they would have been. No row may be put while run runs; stop may be called on any
 * thread. */
APSP_EXPORT void apsp_row_writer_prepare(void *writer);
APSP_EXPORT void apsp_row_writer_stop_preparing(void *writer);
/* apsp_row_writer_prepare on at most `threads` threads (0: the output's own,
 * apsp_output_set_threads): an apsp_idle_work's run_threads. */
APSP_EXPORT void apsp_row_writer_prepare_threads(void *writer, unsigned threads);
/* Lets the writer's batches of rows come in any order and on several threads at once, where its
 * output allows it (a regular file written at offsets: not a pipe, not the text output); returns
 * 1 then (apsp_idle_work.rows_in_any_order), else 0, the rows to come in order. finish still
 * wants every row once. Call it before the first row, after apsp_row_writer_set_table (a limit
 * keeps the rows in order). */
APSP_EXPORT int apsp_row_writer_any_order(apsp_row_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
