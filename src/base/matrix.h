/* The library's own use of the public matrix: checking one a caller built. */
#ifndef APSP_MATRIX_H
#define APSP_MATRIX_H

#include "apsp.h"
#include "base/element_types.h"

/* Whether a matrix of n vertices could be addressed at all, whatever the memory
 * (APSP_ERR_TOO_LARGE, or APSP_ERR_USAGE for n = 0 or no such dtype): the first half of
 * matrix_fits_memory_typed, and apsp-mpi's check, whose matrix is spread over its ranks. */
apsp_status matrix_addressable(size_t n, apsp_dtype dtype, apsp_error *error);
/* Whether a matrix of n vertices can be made on this machine at all: addressable, and within
 * its physical memory (APSP_ERR_TOO_LARGE naming both sizes). */
apsp_status matrix_fits_memory(size_t n, apsp_error *error);
apsp_status matrix_fits_memory_typed(size_t n, apsp_dtype dtype, apsp_error *error);
/* Whether the matrix, and `beside` bytes more that are held with it (`beside_what` names them),
 * fit the host memory this process can still get (memory_room_check: APSP_ERR_TOO_LARGE naming
 * both figures and the limit). matrix_fits_memory_typed is the machine's size, checked first;
 * this is what is free now, checked just before the memory is taken. */
apsp_status matrix_fits_room(size_t n, apsp_dtype dtype, uint64_t beside, const char *beside_what,
                             apsp_error *error);
/* matrix_fits_memory_typed, then matrix_fits_room with nothing beside, the memory files read
 * once for both: the check just before a matrix is allocated. */
apsp_status matrix_fits_host(size_t n, apsp_dtype dtype, apsp_error *error);

/* apsp_matrix.owner: who frees cells that are not the heap's (a backend's pinned memory). A
 * backend embeds it as the first member of its own record; release frees the cells and the
 * record, also after the device that made them was closed. */
struct apsp_matrix_owner {
    void (*release)(struct apsp_matrix_owner *owner);
};

/* apsp_matrix_create_typed, its cells filled on `threads` threads for a large matrix (0: one per
 * core; the options' count, threads_of in base/parallel.h). */
apsp_status matrix_create_threads(size_t n, apsp_dtype dtype, unsigned threads, apsp_matrix **out,
                                  apsp_error *error);
/* The same matrix in `cells` (apsp_matrix_bytes_typed(n, dtype) bytes, 64-byte aligned), which
 * `owner` frees with the matrix. On failure the owner is released. The caller has checked n and
 * dtype (matrix_fits_memory_typed). */
apsp_status matrix_create_in(size_t n, apsp_dtype dtype, void *cells,
                             struct apsp_matrix_owner *owner, unsigned threads, apsp_matrix **out,
                             apsp_error *error);

/* A floating-point matrix's -0 cells made +0 (other types: nothing), on `threads` threads for a
 * large one. Every backend then computes on values among which no -0 ever arises (a sum is -0
 * only when both terms are), so fmin and compare-and-select agree (cl/fw.cl: FLOAT_FMIN) and
 * the backends' bits stay identical. */
void matrix_clear_negative_zeros(apsp_matrix *matrix, unsigned threads);
/* The matrix's n x n cells from io->read (a float matrix's -0 cells made +0, as
 * matrix_clear_negative_zeros does), or to io->write, a row at a time on `threads` threads for a
 * large matrix (apsp_solver_solve_rows). */
void matrix_read_rows(apsp_matrix *matrix, const apsp_row_io *io, unsigned threads);
void matrix_write_rows(apsp_matrix *matrix, const apsp_row_io *io, unsigned threads);
/* APSP_ERR_USAGE, naming the first wrong thing, unless the matrix is one a solve can take.
 * The shape: the geometry of apsp_matrix_create (data, n >= 1, padded a multiple of
 * APSP_MATRIX_ALIGN, stride >= padded); cheap, checked first. The cells (after the device has
 * planned, so that a matrix too large is refused before it is read): distances 0 to APSP_INF
 * with 0 on the diagonal and APSP_INF in the padding, and weights small enough that no path of
 * V - 1 edges reaches APSP_INF (the rule of the hw3 reader); every cell is read, on all cores
 * for a large matrix. */
apsp_status matrix_check_shape(const apsp_matrix *matrix, apsp_error *error);
/* Every cell as apsp_solve requires (-INF < d <= INF and (V - 1) * |largest| below INF for the
 * integer types' INF; no NaN and no -inf for floating point, and |largest| within
 * real_weight_most, base/graph.h; the padding as made); *negative = 1
 * when some distance is negative, and *most (unless NULL) the largest |distance| off the diagonal
 * below INF (integers; 0 for floating point). A large matrix is read on `threads` threads (0: one
 * per core). */
apsp_status matrix_check_cells(const apsp_matrix *matrix, unsigned threads, int *negative,
                               uint64_t *most, apsp_error *error);
/* Whether the padding is as apsp_matrix_create made it, byte for byte: the unreachable marker,
 * and 0 on the diagonal (compared at memory speed; -0.0 there reads as not as made). */
int matrix_padding_as_made(const apsp_matrix *matrix);
/* matrix_check_cells over the n x n cells of the graph alone, on the calling thread: for a solve
 * that reads no padding (the small solve, solver/solver.c), a check proportional to the graph
 * when the padding is as made (matrix_padding_as_made), else matrix_check_cells. */
apsp_status matrix_check_graph_cells(const apsp_matrix *matrix, int *negative, uint64_t *most,
                                     apsp_error *error);
/* What matrix_check_cells finds in an integer matrix that passes it, when whoever wrote the
 * matrix already knows it from reading every cell (a whole-number float graph's scan,
 * src/whole/; matrix_read_rows_known): handed to the driver, which then skips that read pass. */
typedef struct cell_facts {
    int negative;  /* some distance is negative */
    uint64_t most; /* the largest |distance| off the diagonal below INF */
} cell_facts;
/* matrix_read_rows of an integer matrix whose padding is as made (the solver's own), each row
 * scanned as matrix_check_cells would while it is in cache: returns 1 with *known what the check
 * would find when every cell passes it, else 0 (a floating-point matrix, or a cell against the
 * rules, which the check then names). */
int matrix_read_rows_known(apsp_matrix *matrix, const apsp_row_io *io, unsigned threads,
                           cell_facts *known);
/* After a solve with negative distances: APSP_ERR_NEGATIVE_CYCLE naming the first vertex i with
 * d(i,i) < 0 (a closed walk of negative weight through i), else APSP_OK. */
apsp_status matrix_check_cycles(const apsp_matrix *matrix, apsp_error *error);
/* Whether cell j of a row of `dtype` is below 0 (on the diagonal after a solve: a negative
 * cycle, as matrix_check_cycles reads it). */
static inline int cell_below_zero(apsp_dtype dtype, const void *row, size_t j) {
    switch (dtype) {
#define BELOW_ZERO(TYPE, NAME, C, NONE, REAL, DIGITS)                                              \
    case TYPE:                                                                                     \
        return ((const C *)row)[j] < 0;
        ELEMENT_TYPES(BELOW_ZERO)
#undef BELOW_ZERO
    }
    return 0;
}

/* Cell (i, j) as text in buf, for a message: integers as they are, float32 with %.9g and float64
 * with %.17g (the digits that read back to the same value). Returns buf. */
const char *matrix_cell_text(const apsp_matrix *matrix, size_t i, size_t j, char *buf, size_t size);

/* Passes over more bytes than this run on the options' threads; fewer, on one (a thread's start
 * costs more than the pass). */
enum { PARALLEL_FILL_BYTES = 64 << 20 };

/* The integer types' unreachable marker (0 for the floating-point types: no rule applies). */
static inline uint64_t matrix_integer_inf(apsp_dtype dtype) {
    return dtype == APSP_INT32 ? APSP_INF : dtype == APSP_INT64 ? APSP_INF64 : 0;
}

/* `count` cells of a row of `dtype`: 0 at column `diagonal` (SIZE_MAX: none), the unreachable
 * marker elsewhere. */
void matrix_fill_row(apsp_dtype dtype, void *row, size_t count, size_t diagonal);

#endif
