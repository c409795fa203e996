/* apsp: a graph solved into rows handed to the caller (no V x V matrix held), a solver's matrices
 * in the host memory its devices reach fastest, and dense matrices solved row by row from the
 * caller's own memory and layout (the Python package's arrays). Part
 * of the public API: include/apsp.h includes this header, so a program includes either. */
/* (Not APSP_ROWS_H: the library's private src/formats/rows.h has that guard.) */
/* apsp.h first, outside the guard: it includes this header at its end, which must then find
 * the guard still open whichever of the headers a program includes first. */
#include "apsp.h"
#ifndef APSP_ROWS_API_H
#define APSP_ROWS_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* Receives solved distances a few rows at a time, in increasing row order: `count` rows from
 * `first_row`, row r at rows + r * pitch, V values each. A status other than APSP_OK stops the
 * solve with it (the callee fills `error`). */
typedef apsp_status (*apsp_rows_fn)(void *context, size_t first_row, size_t count,
                                    const int32_t *rows, size_t pitch, apsp_error *error);

/* Receives rows of distances of a solve's element type (apsp_rows_fn for any apsp_dtype): `count`
 * rows from `first_row`, row r at (type *)rows + r * pitch, V cells each. */
typedef apsp_status (*apsp_cells_fn)(void *context, size_t first_row, size_t count,
                                     const void *rows, size_t pitch, apsp_error *error);

/* Solves the graph and hands the distances to `rows` instead of returning a matrix: on OpenCL
 * devices the matrix is made on the device from the edge list and comes back through pinned
 * buffers while earlier rows are being handed on, so the host never holds the V x V matrix; the
 * pthread backend (and a streamed solve) builds it in host memory and hands its rows on. The
 * graph is checked as apsp_graph_to_matrix checks it. */
APSP_EXPORT apsp_status apsp_solver_solve_graph(apsp_solver *solver, const apsp_graph *graph,
                                                apsp_rows_fn rows, void *context,
                                                apsp_report *report, apsp_error *error);

/* The same for distances of any element type, handed to `cells` as rows of `dtype`. A float32
 * or float64 graph whose weights are whole and small enough (apsp_report.kernels_why says) is
 * solved by the int32 kernels straight from its edges, no float matrix made or scanned, with the
 * same bits as the float path. An int64 graph, and a float graph on the float kernels (a weight
 * that is not whole), is made on OpenCL devices from its edges in `dtype` as an int32 graph is
 * (where the device has 64-bit atomics for int64 and float64), with the bytes apsp_solver_solve
 * gives its matrix; the other graphs (the pthread backend's, streamed ones, whole float weights
 * with a negative one or past int32's bound) are made into a host matrix of `dtype`, solved by
 * apsp_solver_solve and handed on in batches of rows. A negative cycle met on a device stops the
 * rows before the first row that shows it. */
APSP_EXPORT apsp_status apsp_solver_solve_graph_typed(apsp_solver *solver, const apsp_graph *graph,
                                                      apsp_dtype dtype, apsp_cells_fn cells,
                                                      void *context, apsp_report *report,
                                                      apsp_error *error);

/* Host work for the time a solve's devices compute (apsp_solver_solve_graph_idle): `run` is
 * called at most once, on a thread of its own, when the rounds begin, on devices other than the
 * host's cores (apsp_options.overlap), and has returned before the first rows are handed on;
 * `stop` (optional) is called on the solving thread when the rounds end, so that `run` may
 * return early. The place to prepare the output (apsp_row_writer_prepare). A failure inside
 * `run` must leave the work to the rows function, which cannot fail because of it.
 * `rows_in_any_order`: nonzero when the cells function takes batches in any order and on
 * several threads at once (apsp_row_writer_any_order), so that several devices hand their rows
 * on together, each as they come down; 0: in increasing order, on the solving thread.
 * `run_threads` (optional): called instead of `run`, with the most threads the work should
 * take: 0 where the devices leave the host's cores idle (the work's own choice), a few
 * (APSP_IDLE_THREADS_STREAMED) beside a solve streamed from host memory, whose host threads move
 * blocks between the rounds and were slowed by page faults on every core
 * (apsp_row_writer_prepare_threads).
 * `int32_cells` (optional), with the cells function's context: the cells function's own
 * conversion, for a float32 or float64 solve that the int32 kernels run (whole weights): it takes
 * their int32 rows and stores each cell as the solve's type (APSP_INF as +inf) where the cells
 * function would have stored the converted rows, called as the cells function would be (in any
 * order where rows_in_any_order says so), so that the rows are converted once on their way
 * instead of into a copy first (apsp_row_writer_put_int32). */
typedef struct apsp_idle_work {
    void (*run)(void *context);
    void (*stop)(void *context);
    void *context;
    int rows_in_any_order;
    void (*run_threads)(void *context, unsigned threads);
    apsp_rows_fn int32_cells;
} apsp_idle_work;

/* apsp_idle_work.run_threads' count beside a streamed solve. Measured on one NVIDIA H200 with
 * 16 host threads, V = 60000 and a fifth of the matrix on the device, the output prepared on 16,
 * 4 and 2 threads: the super-rounds took 15.7-16.0, 15.4-15.5 and 15.3 s (15.2 s with nothing
 * beside them), the write 1.0 s each (1.3 s unprepared). */
#define APSP_IDLE_THREADS_STREAMED 2u

/* apsp_solver_solve_graph_typed with `idle` (NULL: none) beside the rounds; its seconds within
 * them are apsp_report.overlapped_seconds. */
APSP_EXPORT apsp_status apsp_solver_solve_graph_idle(apsp_solver *solver, const apsp_graph *graph,
                                                     apsp_dtype dtype, apsp_cells_fn cells,
                                                     void *context, const apsp_idle_work *idle,
                                                     apsp_report *report, apsp_error *error);

/* A matrix as apsp_matrix_create_typed makes it (the same geometry and cells), in the host memory
 * the solver's devices reach fastest: on an OpenCL device, page-locked memory of the device's
 * context (a mapped CL_MEM_ALLOC_HOST_PTR buffer), which its uploads and downloads read and
 * write at the bus's speed, several times faster than ordinary memory; on the pthread backend,
 * and for a matrix larger than the device's largest single allocation, ordinary memory. For a
 * program that solves many matrices of one size: make the matrix once, and refill only its n x n
 * cells between solves (a successful solve leaves the padding as it was made). Any solver may
 * solve it, and it is ordinary host memory for everything else; free it with apsp_matrix_destroy,
 * before or after destroying the solver (it holds its own reference to the device's context).
 * Page-locked memory is taken from what the system may swap out: keep no more such matrices than
 * the solves need. */
APSP_EXPORT apsp_status apsp_solver_matrix_create(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                                  apsp_matrix **out, apsp_error *error);

/* A dense n x n matrix that stays in the caller's memory, in the caller's layout, moved row by
 * row (apsp_solver_solve_rows). `read` puts row i's n cells into `cells`, in the solve's type and
 * apsp_solve's meaning (0 on the diagonal, the type's unreachable marker or +inf where there is
 * no edge); `write` takes row i's n distances from `cells`. Both are called on several threads at
 * once, for different rows, and every read comes before the first write, so that the distances
 * may go into the memory the weights came from. */
typedef struct apsp_row_io {
    void (*read)(void *context, size_t i, void *cells);
    void (*write)(void *context, size_t i, const void *cells);
    void *context;
    /* Optional (NULL: none). Called at most once, on a thread of its own, during the rounds of
     * devices other than the host's cores (GPUs; apsp_options.overlap), and returned from before
     * the first write (its seconds within the rounds: apsp_report.overlapped_seconds);
     * not when the host's cores compute, which have no time to spare, nor when the matrix
     * streams through a device smaller than it (the host moves blocks then). The place to fault
     * in the destination's pages (madvise MADV_POPULATE_WRITE), which the writes would
     * otherwise touch first after the solve. It must not write to what read reads. */
    void (*prepare)(void *context);
} apsp_row_io;

/* apsp_solver_solve of the n x n matrix of `dtype` that `io` reads, the distances handed to
 * io->write: the same results, bit for bit, with no copy of the matrix in the caller's hands.
 * The solver keeps the padded matrix it reads the rows into (apsp_solver_matrix_create's:
 * page-locked on an OpenCL device) for the next call of the same size and type. A float32 or
 * float64 matrix of whole weights goes straight into the integer matrix (the whole-number rule
 * of apsp_options.float_kernels), each row read once; the float matrix is made only for the float
 * path. The rows are read and written on the options' threads (report->rows_in_seconds,
 * rows_out_seconds). io->write is called only once the solve has succeeded (an error after it,
 * out of memory for a row buffer, leaves the rows written so far). */
APSP_EXPORT apsp_status apsp_solver_solve_rows(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                               const apsp_row_io *io, apsp_report *report,
                                               apsp_error *error);

#ifdef __cplusplus
}
#endif

#endif
