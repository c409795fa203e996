/* The padded host distance matrix. */
#include "base/matrix.h"
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/memory_room.h"
#include "base/parallel.h"
#include "base/util.h"

#include <pthread.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static size_t padded_size(uint64_t n) {
    return (size_t)((n + APSP_MATRIX_ALIGN - 1) / APSP_MATRIX_ALIGN * APSP_MATRIX_ALIGN);
}

/* Rows that start a multiple of 4 KiB apart map to the same cache sets; a little slack in the
 * pitch spreads them out. 16 ints keep every row 64-byte aligned. */
static size_t row_stride(size_t padded) {
    return padded % 1024 == 0 ? padded + 16 : padded;
}

uint64_t apsp_matrix_bytes_typed(uint64_t n, apsp_dtype dtype) {
    size_t cell = apsp_dtype_size(dtype);
    if (n == 0 || n > (uint64_t)1 << 31 || cell == 0)
        return 0;
    uint64_t padded = padded_size(n);
    uint64_t stride = row_stride((size_t)padded);
    if (padded > SIZE_MAX / stride / cell)
        return 0;
    return padded * stride * cell;
}

uint64_t apsp_matrix_bytes(uint64_t n) {
    return apsp_matrix_bytes_typed(n, APSP_INT32);
}

void matrix_fill_row(apsp_dtype dtype, void *row, size_t count, size_t diagonal) {
    switch (dtype) {
#define FILL_ROW(TYPE, NAME, C, NONE, REAL, DIGITS)                                                \
    case TYPE:                                                                                     \
        for (size_t j = 0; j < count; j++)                                                         \
            ((C *)row)[j] = j == diagonal ? (C)0 : (C)(NONE);                                      \
        break;
        ELEMENT_TYPES(FILL_ROW)
#undef FILL_ROW
    }
}

/* Rows [begin, end) of an edgeless matrix: 0 on the diagonal, the unreachable marker elsewhere. */
static int fill_rows(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    for (size_t i = begin; i < end; i++)
        matrix_fill_row(m->dtype, apsp_matrix_row_cells(m, i), m->stride, i);
    return 0;
}

apsp_status matrix_fits_memory(size_t n, apsp_error *error) {
    return matrix_fits_memory_typed(n, APSP_INT32, error);
}

apsp_status matrix_addressable(size_t n, apsp_dtype dtype, apsp_error *error) {
    if (n == 0)
        return fail(error, APSP_ERR_USAGE, "a matrix needs at least one vertex");
    if (apsp_dtype_size(dtype) == 0)
        return fail(error, APSP_ERR_USAGE, "element type %d is none of apsp_dtype's", (int)dtype);
    if (apsp_matrix_bytes_typed(n, dtype) == 0)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "V = %zu: the distance matrix would need more memory than can be addressed", n);
    return APSP_OK;
}

/* A matrix this small is not weighed against the machine's memory: any machine has room for it,
 * and its allocation says so where not (APSP_ERR_NO_MEMORY). 1 MiB: an int32 matrix of 512
 * vertices, a float64 one of 362. */
enum { MATRIX_UNCHECKED_BYTES = 1 << 20 };

/* matrix_fits_memory_typed; *read: whether `room` was read for it (memory_room_now), for
 * matrix_fits_host's room check to use rather than read the files again. */
static apsp_status fits_memory_in(size_t n, apsp_dtype dtype, memory_room *room, int *read,
                                  apsp_error *error) {
    char need[32], have[320];
    *read = 0;
    apsp_status status = matrix_addressable(n, dtype, error);
    if (status != APSP_OK)
        return status;
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    if (bytes <
        MATRIX_UNCHECKED_BYTES) /* reading /proc and the cgroups costs more than its solve */
        return APSP_OK;
    memory_room_now(room);
    *read = 1;
    uint64_t memory = physical_memory_said_in(room, have, sizeof have);
    if (memory && bytes > memory)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu: the %s distance matrix needs %s but %s", n,
                    apsp_dtype_name(dtype), format_bytes(bytes, need, sizeof need), have);
    return APSP_OK;
}

apsp_status matrix_fits_memory_typed(size_t n, apsp_dtype dtype, apsp_error *error) {
    memory_room room;
    int read;
    return fits_memory_in(n, dtype, &room, &read, error);
}

/* matrix_fits_room against `room`, or (NULL) the room read now. */
static apsp_status fits_room_in(size_t n, apsp_dtype dtype, uint64_t beside,
                                const char *beside_what, const memory_room *room,
                                apsp_error *error) {
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype) + beside;
    if (bytes < MEMORY_ROOM_LEAST) /* as memory_room_check: nothing read */
        return APSP_OK;
    memory_room now;
    if (!room) {
        memory_room_now(&now);
        room = &now;
    }
    char what[192];
    snprintf(what, sizeof what, "V = %zu: the %s distance matrix%s%.100s", n,
             apsp_dtype_name(dtype), beside ? " with " : "", beside ? beside_what : "");
    return memory_room_check_in(room, bytes, what, error);
}

apsp_status matrix_fits_room(size_t n, apsp_dtype dtype, uint64_t beside, const char *beside_what,
                             apsp_error *error) {
    return fits_room_in(n, dtype, beside, beside_what, NULL, error);
}

apsp_status matrix_fits_host(size_t n, apsp_dtype dtype, apsp_error *error) {
    memory_room room;
    int read;
    apsp_status status = fits_memory_in(n, dtype, &room, &read, error);
    return status == APSP_OK ? fits_room_in(n, dtype, 0, NULL, read ? &room : NULL, error) : status;
}

/* The header of a matrix of n vertices, its cells filled as an edgeless graph's. */
static apsp_status make_matrix(size_t n, apsp_dtype dtype, void *cells, unsigned threads,
                               apsp_matrix **out, apsp_error *error) {
    apsp_matrix *m = apsp_malloc(sizeof *m);
    if (!m)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory allocating a matrix header");
    m->n = n;
    m->padded = padded_size(n);
    m->stride = row_stride(m->padded);
    m->dtype = dtype;
    m->cells = cells;
    m->owner = NULL;
    /* Filling a large matrix is mostly page faults, which cores take in parallel. */
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    parallel_slices(m->padded, bytes < PARALLEL_FILL_BYTES ? 1 : threads, fill_rows, m);
    *out = m;
    return APSP_OK;
}

apsp_status matrix_create_threads(size_t n, apsp_dtype dtype, unsigned threads, apsp_matrix **out,
                                  apsp_error *error) {
    *out = NULL;
    char need[32];
    apsp_status status = matrix_fits_host(n, dtype, error);
    if (status != APSP_OK)
        return status;
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    void *cells = alloc_large((size_t)bytes); /* blocks read a row pitch apart */
    if (!cells)
        return fail(error, APSP_ERR_NO_MEMORY,
                    "V = %zu: could not allocate %s for the distance matrix", n,
                    format_bytes(bytes, need, sizeof need));
    status = make_matrix(n, dtype, cells, threads, out, error);
    if (status != APSP_OK)
        free(cells);
    return status;
}

apsp_status apsp_matrix_create_typed(size_t n, apsp_dtype dtype, apsp_matrix **out,
                                     apsp_error *error) {
    return matrix_create_threads(n, dtype, 0, out, error);
}

apsp_status matrix_create_in(size_t n, apsp_dtype dtype, void *cells,
                             struct apsp_matrix_owner *owner, unsigned threads, apsp_matrix **out,
                             apsp_error *error) {
    apsp_status status = make_matrix(n, dtype, cells, threads, out, error);
    if (status != APSP_OK)
        owner->release(owner);
    else
        (*out)->owner = owner;
    return status;
}

apsp_status apsp_matrix_create(size_t n, apsp_matrix **out, apsp_error *error) {
    return apsp_matrix_create_typed(n, APSP_INT32, out, error);
}

void apsp_matrix_destroy(apsp_matrix *matrix) {
    if (!matrix)
        return;
    if (matrix->owner)
        matrix->owner->release(matrix->owner);
    else
        free(matrix->cells);
    free(matrix);
}

/* Rows [begin, end) of a floating-point matrix with every zero made +0. */
static int clear_rows(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    for (size_t i = begin; i < end; i++) {
        void *row = apsp_matrix_row_cells(m, i);
        if (m->dtype == APSP_FLOAT32) {
            float *cells = row;
            for (size_t j = 0; j < m->n; j++)
                if (cells[j] == 0.0f)
                    cells[j] = 0.0f;
        } else {
            double *cells = row;
            for (size_t j = 0; j < m->n; j++)
                if (cells[j] == 0.0)
                    cells[j] = 0.0;
        }
    }
    return 0;
}

void matrix_clear_negative_zeros(apsp_matrix *m, unsigned threads) {
    if (m->dtype != APSP_FLOAT32 && m->dtype != APSP_FLOAT64)
        return;
    size_t bytes = m->padded * m->stride * apsp_dtype_size(m->dtype);
    parallel_slices(m->n, bytes < PARALLEL_FILL_BYTES ? 1 : threads, clear_rows, m);
}

/* ---- the caller's rows (apsp_row_io) ----------------------------------------------------- */

typedef struct row_pass {
    apsp_matrix *m;
    const apsp_row_io *io;
} row_pass;

/* A float row's -0 cells made +0 while it is in cache, as matrix_clear_negative_zeros would. */
static int read_rows(void *context, size_t begin, size_t end) {
    const row_pass *p = context;
    const int floats = element_is_real(p->m->dtype);
    for (size_t i = begin; i < end; i++) {
        p->io->read(p->io->context, i, apsp_matrix_row_cells(p->m, i));
        if (floats)
            clear_rows(p->m, i, i + 1);
    }
    return 0;
}

static int write_rows(void *context, size_t begin, size_t end) {
    const row_pass *p = context;
    for (size_t i = begin; i < end; i++)
        p->io->write(p->io->context, i, apsp_matrix_row_cells(p->m, i));
    return 0;
}

/* The threads of a pass over the n x n cells: one for a small matrix. */
static unsigned row_threads(const apsp_matrix *m, unsigned threads) {
    return apsp_matrix_bytes_typed(m->n, m->dtype) < PARALLEL_FILL_BYTES ? 1 : threads;
}

void matrix_read_rows(apsp_matrix *m, const apsp_row_io *io, unsigned threads) {
    row_pass p = {m, io};
    parallel_slices(m->n, row_threads(m, threads), read_rows, &p);
}

void matrix_write_rows(apsp_matrix *m, const apsp_row_io *io, unsigned threads) {
    row_pass p = {m, io};
    parallel_slices(m->n, row_threads(m, threads), write_rows, &p);
}

/* ---- the caller's rows read and checked in one pass ---------------------------------------- */

typedef struct checked_read {
    row_pass pass;
    pthread_mutex_t lock;
    int broken; /* some row breaks the rules: matrix_check_cells must say which */
    int negative;
    uint64_t most;
} checked_read;

/* Row i's n cells against the rules SCAN_ROW applies, in one loop without branches that the
 * compiler vectorizes: 0 when a cell breaks them (matrix_check_cells then names it), else 1 with
 * the row's negativity and largest |weight| below INF added (the diagonal, 0, adds nothing). The
 * row's padding is not read: the solver's matrix has it as made. */
#define FAST_SCAN_ROW(NAME, CELL, UCELL, INF)                                                      \
    static int NAME(const void *cells, size_t n, size_t i, uint64_t *most, int *negative) {        \
        const CELL *row = cells;                                                                   \
        UCELL largest = 0;                                                                         \
        int below = 0, ok = 1;                                                                     \
        for (size_t j = 0; j < n; j++) {                                                           \
            const CELL c = row[j];                                                                 \
            const UCELL size = c < 0 ? (UCELL)0 - (UCELL)c : (UCELL)c;                             \
            ok &= c > -(INF) && c <= (INF);                                                        \
            below |= c < 0;                                                                        \
            largest = c != (INF) && size > largest ? size : largest;                               \
        }                                                                                          \
        if (!ok || row[i] != 0)                                                                    \
            return 0;                                                                              \
        *negative |= below;                                                                        \
        *most = largest > *most ? largest : *most;                                                 \
        return 1;                                                                                  \
    }
FAST_SCAN_ROW(fast_scan_int32, int32_t, uint32_t, APSP_INF)
FAST_SCAN_ROW(fast_scan_int64, int64_t, uint64_t, APSP_INF64)
#undef FAST_SCAN_ROW

/* read_rows for an integer matrix, each row scanned while it is still in cache. */
static int read_and_scan_rows(void *context, size_t begin, size_t end) {
    checked_read *r = context;
    const apsp_matrix *m = r->pass.m;
    uint64_t most = 0;
    int negative = 0, ok = 1;
    for (size_t i = begin; i < end; i++) {
        void *row = apsp_matrix_row_cells(m, i);
        r->pass.io->read(r->pass.io->context, i, row);
        ok &= m->dtype == APSP_INT32 ? fast_scan_int32(row, m->n, i, &most, &negative)
                                     : fast_scan_int64(row, m->n, i, &most, &negative);
    }
    pthread_mutex_lock(&r->lock);
    r->broken |= !ok;
    r->negative |= negative;
    r->most = most > r->most ? most : r->most;
    pthread_mutex_unlock(&r->lock);
    return 0;
}

int matrix_read_rows_known(apsp_matrix *m, const apsp_row_io *io, unsigned threads,
                           cell_facts *known) {
    const uint64_t inf = matrix_integer_inf(m->dtype);
    if (!inf) {
        matrix_read_rows(m, io, threads);
        return 0;
    }
    checked_read r = {.pass = {m, io}};
    pthread_mutex_init(&r.lock, NULL);
    parallel_slices(m->n, row_threads(m, threads), read_and_scan_rows, &r);
    pthread_mutex_destroy(&r.lock);
    /* A row or a weight against the rules: matrix_check_cells finds it and names it. */
    if (r.broken || (m->n > 1 && r.most > (inf - 1) / (m->n - 1)))
        return 0;
    *known = (cell_facts){r.negative, r.most};
    return 1;
}
