/* Whole-number floats through the integer kernels (docs/design/whole.md, "Whole-number floats").
 *
 * A float32 or float64 matrix whose finite weights are all whole numbers is solved exactly by
 * the int32 kernels (or the int64 ones) when every sum the float path would form is an integer
 * the float type holds exactly: the answer is then the same numbers, and the same bits, as the
 * float path's. apsp_solver_solve hands every floating-point matrix to whole_floats_solve. */
#ifndef APSP_WHOLE_FLOATS_H
#define APSP_WHOLE_FLOATS_H

#include "apsp.h"
#include "base/matrix.h"

/* The solve of a matrix as solver.c does it (drivers, streaming), for the integer matrix:
 * `known` (NULL: none) what the scan found in its cells, for the driver not to read them again;
 * `rows` (NULL: none) the rows the distances will be written to, for their io->prepare. */
typedef apsp_status (*whole_solve_fn)(apsp_solver *solver, apsp_matrix *matrix,
                                      const cell_facts *known, const apsp_row_io *rows,
                                      apsp_report *report, apsp_error *error);
/* apsp_solver_solve_rows in the rows' own type (solver.c): the float path of a row source. */
typedef apsp_status (*whole_solve_rows_fn)(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                           const apsp_row_io *io, apsp_report *report,
                                           apsp_error *error);

/* The matrix kept in *kept when it has n vertices of `dtype`, else a new one from the solver
 * (apsp_solver_matrix_create), the old one freed first. */
typedef apsp_status (*whole_take_fn)(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                     apsp_matrix **kept, apsp_error *error);

/* What whole_floats_solve needs of the solver. */
typedef struct whole_job {
    int float_kernels; /* apsp_options.float_kernels: the float path, always */
    unsigned threads;  /* for reading and converting a large matrix; 0: one per core */
    whole_solve_fn solve;
    whole_solve_rows_fn solve_rows;
    whole_take_fn take;
    /* The integer matrix of the last solve, kept for the next of the same size and type (NULL:
     * none); the solver frees it. */
    apsp_matrix **kept;
} whole_job;

/* Solves a float32 or float64 matrix in place. Every cell is read once, and for a matrix of
 * whole weights written into the int32 matrix in the same pass: the integer kernels are chosen
 * when every cell is +inf or a whole finite number (-0.0 read as +0.0, as the float path reads
 * it: the solver makes -0 cells +0 before a float solve, base/matrix.h), the diagonal 0, the
 * padding as made, and 2 (V - 1) max|w| <= 2^24 (float32) or 2^53 (float64); int32 when also
 * (V - 1) max|w| is within int32's rule (base/graph.c: weight_rule_for), else int64 (a second
 * pass). The integer matrix (*job->kept, made by the solver with apsp_solver_matrix_create when
 * it has another size or type) is solved by job->solve and converted back. Otherwise, or with
 * float_kernels, m itself is solved by job->solve on the float path (which refuses a matrix that
 * breaks apsp_solve's rules). A negative cycle found by the integer kernels is solved again on
 * the float path, so that the error and the matrix left behind are the float path's (past a
 * negative cycle the float path's sums are no longer exact); so is a matrix for which the
 * integer copy finds no memory. Fills report->kernels, kernels_why and whole_seconds. */
apsp_status whole_floats_solve(apsp_solver *solver, apsp_matrix *m, const whole_job *job,
                               apsp_report *report, apsp_error *error);

/* The same for the n x n float32 or float64 matrix that io reads (apsp_solver_solve_rows): each
 * row read once, straight into the integer matrix, and the distances converted back row by row
 * into io->write; the float path is job->solve_rows. Also fills report->rows_in_seconds and
 * rows_out_seconds. */
apsp_status whole_floats_solve_rows(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                    const apsp_row_io *io, const whole_job *job,
                                    apsp_report *report, apsp_error *error);

#endif
