"""The dense fast path (apsp._convert.dense_fast and Solver.solve_dense: SciPy's reading of a
dense matrix done in the C copy into the padded matrix): its edge cases against SciPy, the
layouts it reads, and where its output goes."""

import numpy as np
import pytest
from conftest import potentials, random_weights
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import floyd_warshall as scipy_fw
from test_scipy import TYPES, output_type, same

import apsp
from apsp import _convert


def fast(graph, dtype=None, overwrite=False):
    """Whether apsp takes the fast path for this input (the tests below mean to exercise it)."""
    return _convert.dense_fast(graph, False, dtype, overwrite) is not None


@pytest.mark.parametrize("dtype", TYPES)
def test_no_edge_markers(device, dtype):
    """0 is no edge; for floats so are inf, -inf and NaN (SciPy's infinity_null and nan_null);
    the diagonal is 0 whatever the self-loop weighs, negative ones included."""
    inf, nan = np.inf, np.nan
    if np.dtype(dtype).kind == "f":
        w = np.array(
            [[-5, 0, 4, inf], [nan, 7, -2, -inf], [inf, 3, 0, 6], [1, nan, 0, -1]], dtype=dtype
        )
    else:
        w = np.array([[-5, 0, 4, 0], [0, 7, -2, 0], [0, 3, 0, 6], [1, 0, 0, -1]], dtype=dtype)
    assert fast(w)
    got = apsp.floyd_warshall(w, device=device)
    assert got.dtype == output_type(dtype)
    assert np.all(np.diag(got) == 0)
    same(got, scipy_fw(w), dtype)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("directed", [True, False])
def test_negative_weights_and_undirected(device, dtype, directed):
    """Negative weights; undirected input whose two directions differ (the least is taken, in
    64 x 64 blocks: sizes below, at and past a block's edge)."""
    rng = np.random.default_rng([TYPES.index(dtype), directed])
    for n in (63, 64, 65, 191):
        w = random_weights(rng, n, 0.1, 1, 60, dtype)
        if directed:
            w = potentials(rng, w, 40)
            assert (w < 0).any()
        assert fast(w)
        same(apsp.floyd_warshall(w, directed=directed, device=device),
             scipy_fw(w, directed=directed), dtype)


def test_integer_widths(device):
    """int32 input whose distances could pass 2^30 is solved in int64; int64 input with small
    weights in int32: both exact, float64 with inf out."""
    rng = np.random.default_rng(8)
    wide = random_weights(rng, 60, 0.04, 2**28, 2**29, np.int32)
    assert fast(wide)
    assert _convert.dense_fast(wide, False, None, False)[1] == np.int64
    got = apsp.floyd_warshall(wide, device=device)
    assert got.dtype == np.float64 and got[np.isfinite(got)].max() > apsp.INF32
    same(got, scipy_fw(wide), np.int64)
    narrow = random_weights(rng, 60, 0.1, 1, 9, np.int64)
    narrow[:, 0] = 0  # nothing reaches vertex 0: unreachable pairs to mark
    assert _convert.dense_fast(narrow, False, None, False)[1] == np.int32
    same(apsp.floyd_warshall(narrow, device=device), scipy_fw(narrow), np.int64)
    kept = apsp.floyd_warshall(narrow, device=device, dtype=np.int64)
    assert kept.dtype == np.int64 and (kept == apsp.INF64).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_overwrite(device, dtype):
    """On the fast path, overwrite=True writes into a C-ordered writable float64 input and
    returns it, and leaves float32 as it was, as SciPy does (test_scipy.test_overwrite has every
    type); overwrite=False leaves the input as it was; float32 stays float32."""
    w = random_weights(np.random.default_rng(2), 70, 0.1, 1, 9, dtype)
    want = scipy_fw(w)
    kept = w.copy()
    got = apsp.floyd_warshall(w, device=device)
    assert got is not w and got.dtype == dtype and np.array_equal(w, kept)
    same(got, want, dtype)
    assert fast(w, overwrite=True)
    got = apsp.floyd_warshall(w, overwrite=True, device=device)
    assert got.dtype == dtype and (got is w) == (dtype == np.float64)
    same(got, want, dtype)
    if dtype == np.float32:
        assert np.array_equal(w, kept)


def test_overwrite_refused(device):
    """An input that cannot hold the result (integers, which come back as float64; read-only;
    not C-ordered) is left as it was and a new array returned."""
    rng = np.random.default_rng(9)
    ints = random_weights(rng, 40, 0.2, 1, 9, np.int64)
    frozen = random_weights(rng, 40, 0.2, 1, 9, np.float64)
    frozen.flags.writeable = False
    fortran = np.asfortranarray(random_weights(rng, 40, 0.2, 1, 9, np.float64))
    for w in (ints, frozen, fortran):
        kept = w.copy()
        got = apsp.floyd_warshall(w, overwrite=True, device=device)
        assert got is not w and np.array_equal(w, kept)
        same(got, scipy_fw(kept), w.dtype.type)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_layouts(device, dtype):
    """Views read in place, whatever their strides: every other row and column, reversed
    columns, a transpose (Fortran order) and a Fortran-ordered copy."""
    # (Non-negative: a view whose rows and columns are not the same vertices can make cycles.)
    base = random_weights(np.random.default_rng(5), 150, 0.1, 1, 50, dtype)
    for view in (base[::2, ::2], base[10:90, 20:100][:, ::-1], base.T, np.asfortranarray(base)):
        assert fast(view) and not view.flags.c_contiguous
        kept = view.copy()
        got = apsp.floyd_warshall(view, device=device)
        assert np.array_equal(view, kept)
        same(got, scipy_fw(np.ascontiguousarray(view)), dtype)


def test_report_parts(device):
    """last_report has the call's parts besides the library's times."""
    solver = apsp.Solver(device=device)
    solver.floyd_warshall(np.ones((30, 30), dtype=np.float32))
    for key in ("convert_seconds", "copy_in_seconds", "copy_out_seconds", "output_seconds"):
        assert solver.last_report[key] >= 0
    assert solver.last_report["copy_in_seconds"] > 0


def test_one_solver_many_calls(device):
    """One Solver keeps its padded matrix (the solver's pinned one on a GPU) and the device's
    buffers for the next call of the same size and type, and refills only the n x n cells: calls
    of one size with different graphs, then another size and type, a negative cycle (which drops
    them) and a good call of that size again, through solve_dense and through solve (the
    predecessors' path) alike, each against SciPy."""
    rng = np.random.default_rng(16)
    solver = apsp.Solver(device=device)
    steps = [(130, np.float32), (130, np.float32), (129, np.float32), (130, np.int32),
             (130, np.float32)]
    for n, dtype in steps:
        w = random_weights(rng, n, 0.1, 1, 60, dtype)
        same(solver.floyd_warshall(w), scipy_fw(w), dtype)
        d, pred = solver.floyd_warshall(w, return_predecessors=True)
        same(d, scipy_fw(w), dtype)
    cycle = random_weights(rng, 130, 0.1, 1, 60, np.float32)
    cycle[0, 1], cycle[1, 0] = 1, -2
    with pytest.raises(apsp.NegativeCycleError):
        solver.floyd_warshall(cycle)
    w = random_weights(rng, 130, 0.1, 1, 60, np.float32)
    same(solver.floyd_warshall(w), scipy_fw(w), np.float32)


@pytest.mark.parametrize("dtype, weight, fits", [
    (np.float32, 1.5e38, True), (np.float32, 3e38, False),
    (np.float64, 8.9e307, True), (np.float64, 1.5e308, False)])
def test_sums_that_overflow(device, dtype, weight, fits):
    """A path of two edges of weight w has length 2 w: where that passes the type's largest
    number the call is refused (ValueError naming the bound), not answered with inf, which would
    read as no path; just inside it the length is exact, dense and sparse alike."""
    w = np.array([[0, weight, 0], [0, 0, weight], [0, 0, 0]], dtype=dtype)
    for graph in (w, csr_matrix(w)):
        if fits:
            assert apsp.floyd_warshall(graph, device=device)[0, 2] == 2 * dtype(weight)
        else:
            with pytest.raises(ValueError, match="overflow to inf"):
                apsp.floyd_warshall(graph, device=device)


def sparse_whole(rng, n, dtype, fraction=None):
    """A dense n x n array of whole weights in [1, 50), four edges a vertex (0: no edge), one
    of them made `fraction` when given."""
    w = np.zeros((n, n), dtype=dtype)
    w[rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)] = rng.integers(1, 50, 4 * n)
    if fraction is not None:
        w[n - 2, 3] = fraction
    return w


@pytest.mark.parametrize("fraction", [None, 0.5])
def test_whole_rows_in_place(device, fraction):
    """A directed float64 array goes by rows (apsp_solver_solve_rows): whole weights straight
    into the int32 matrix, a fraction to the float path. With overwrite=True the distances go
    into the input itself, every row read before the first is written; the bits are
    float_kernels=True's, the numbers SciPy's (Dijkstra: exact sums of whole weights)."""
    from scipy.sparse.csgraph import dijkstra

    w = sparse_whole(np.random.default_rng(30), 300, np.float64, fraction)
    want = dijkstra(w)
    with apsp.Solver(device=device) as solver, apsp.Solver(device=device,
                                                           float_kernels=True) as floats:
        fp = floats.floyd_warshall(w)
        got = solver.floyd_warshall(w, overwrite=True)
        report = solver.last_report
    assert got is w
    assert got.tobytes() == fp.tobytes()
    same(got, want, np.float64)
    assert report["kernels"] == ("int32" if fraction is None else "float64")
    assert ("whole weights: int32" if fraction is None else "0.5 at (298, 3)") in \
        report["kernels_why"]
    assert report["copy_in_seconds"] > 0 and report["copy_out_seconds"] > 0


@pytest.mark.parametrize("fraction", [None, 0.5])
def test_whole_rows_threads(device, fraction):
    """V = 1501 on 3 threads (the whole path's passes split over the threads from 16 MB on,
    and 3 does not divide 1501): the same bits as float_kernels=True, SciPy's numbers."""
    from scipy.sparse.csgraph import dijkstra

    w = sparse_whole(np.random.default_rng(31), 1501, np.float64, fraction)
    with apsp.Solver(device=device, threads=3) as solver, apsp.Solver(
            device=device, threads=3, float_kernels=True) as floats:
        got = solver.floyd_warshall(w)
        kernels = solver.last_report["kernels"]
        fp = floats.floyd_warshall(w)
    assert kernels == ("int32" if fraction is None else "float64")
    assert got.tobytes() == fp.tobytes()
    same(got, dijkstra(w), np.float64)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_extremes(dtype):
    """The integer arrays' least and largest cells (0 counted), read by the extension on several
    threads in any layout, are NumPy's; int64's least value too."""
    rng = np.random.default_rng(32)
    info = np.iinfo(dtype)
    base = rng.integers(-1000, 1000, (301, 301)).astype(dtype)
    base[7, 250], base[300, 0] = info.min, info.max
    for view in (base, base.T, base[::3, ::3], base[1:, 1:][:, ::-1], np.abs(base[:50, :50]),
                 -np.abs(base[100:200, 100:200])):
        for threads in (1, 3, 0):
            least, most = apsp._core.extremes(view, threads)
            assert (least, most) == (min(int(view.min()), 0), max(int(view.max()), 0))
