/* One row of a caller's matrix against apsp_solve's rules, for one element type: included by
 * base/matrix.c once per type, with CELL (the C type), CELL_INF (its unreachable marker),
 * CELL_INTEGER (1 for the integer types) and SCAN_ROW (the function's name) defined.
 *
 * Returns the first column of row i whose cell breaks the rules (SIZE_MAX: none), and adds the
 * row's largest finite off-diagonal magnitude (to *most for the integer types, to *most_real for
 * the floating-point ones) and negativity to *negative. The rules: 0 on the diagonal, exactly
 * CELL_INF in the padding, and in the graph -CELL_INF < d <= CELL_INF (for floating point: no NaN,
 * no -inf). Columns [0, width) are read: m->padded, or m->n for the graph's cells alone. */
static size_t SCAN_ROW(const apsp_matrix *m, size_t i, size_t width, uint64_t *most,
                       double *most_real, int *negative) {
    const CELL *row = apsp_matrix_row_cells(m, i);
    size_t bad = SIZE_MAX;
    for (size_t j = 0; j < width; j++) {
        CELL c = row[j];
        int padding = i >= m->n || j >= m->n;
        int ok = i == j ? c == 0 : padding ? c == CELL_INF : c > -CELL_INF && c <= CELL_INF;
        if (!ok) {
            bad = bad == SIZE_MAX ? j : bad;
            continue;
        }
        if (i == j || padding || c == CELL_INF)
            continue;
        *negative |= c < 0;
#if CELL_INTEGER
        uint64_t magnitude = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        *most = magnitude > *most ? magnitude : *most;
        (void)most_real;
#else
        double magnitude = fabs((double)c);
        *most_real = magnitude > *most_real ? magnitude : *most_real;
        (void)most;
#endif
    }
    return bad;
}
