"""apsp.floyd_warshall_batch (issue 42): thousands of random graphs of 0 to 200 vertices in a
few batches, graph by graph against SciPy's floyd_warshall (int and float weights, directed and
not, empty and single-vertex graphs), the predecessors SciPy's for integers and shortest-path
trees for floats; edge_index batches (num_nodes or PyG's batch vector, grouped or not), lists of
dense and sparse matrices, max_distance, edge_paths, DLPack input and like=."""

import sys
import tracemalloc
import types

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import apsp

RTOL = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-5}


def random_batch(rng, count, whole):
    """count graphs, sizes mostly 1-60, some 0 and some up to 200, E about 1.1 V: (counts,
    edge_index over the batch, weights)."""
    counts = rng.integers(1, 61, count)
    counts[rng.random(count) < 0.03] = 0
    counts[rng.random(count) < 0.02] = 1
    big = rng.random(count) < 0.01
    counts[big] = rng.integers(129, 201, big.sum())
    starts = np.concatenate(([0], np.cumsum(counts)))
    edges = (counts * 11 // 10).astype(np.int64)
    graph = np.repeat(np.arange(count), edges)
    src = starts[graph] + (rng.random(graph.size) * counts[graph]).astype(np.int64)
    dst = starts[graph] + (rng.random(graph.size) * counts[graph]).astype(np.int64)
    w = rng.integers(1, 20, graph.size).astype(np.float64)
    if not whole:
        w += rng.random(graph.size)
    return counts, np.stack([src, dst]), w


def scipy_graph(counts, edge_index, w, g, directed):
    """Graph g as a CSR matrix for SciPy, its repeated edges' least weight taken first (a COO's
    repeated entries would be summed)."""
    starts = np.concatenate(([0], np.cumsum(counts)))
    n = counts[g]
    mine = (edge_index[0] >= starts[g]) & (edge_index[0] < starts[g + 1])
    s, t, x = edge_index[0, mine] - starts[g], edge_index[1, mine] - starts[g], w[mine]
    dense = np.full((n, n), np.inf)
    np.minimum.at(dense, (s, t), x)
    if not directed:
        np.minimum.at(dense, (t, s), x)
    keep = np.isfinite(dense)
    return sp.csr_matrix((dense[keep], np.nonzero(keep)), shape=(n, n))


def check_tree(d, pred, graph, rtol):
    """pred a shortest-path tree of d over graph's edges."""
    n = d.shape[0]
    w = np.full((n, n), np.inf)
    edges = graph.tocoo()
    w[edges.row, edges.col] = edges.data
    for i in range(n):
        for j in range(n):
            p = pred[i, j]
            if i == j or np.isinf(d[i, j]):
                assert p == -9999
            else:
                assert np.isclose(d[i, p] + w[p, j], d[i, j], rtol=rtol, atol=0)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("whole", [True, False])
def test_batch_equals_scipy(directed, whole):
    rng = np.random.default_rng(7 + directed + 2 * whole)
    counts, edge_index, w = random_batch(rng, 1000, whole)
    d, pred, sizes = apsp.floyd_warshall_batch(
        edge_index=edge_index, edge_weight=w, num_nodes=counts, directed=directed,
        return_predecessors=True)
    assert np.array_equal(sizes, counts)
    for g in range(counts.size):
        n = counts[g]
        graph = scipy_graph(counts, edge_index, w, g, directed)
        want, want_pred = scipy_fw(graph, directed=True, return_predecessors=True)
        got, got_pred = d[g, :n, :n], pred[g, :n, :n]
        assert np.all(np.isinf(d[g, n:, :])) and np.all(np.isinf(d[g, :, n:]))
        if whole:
            assert np.array_equal(got, want), g
            assert np.array_equal(got_pred, want_pred), g
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12)
            if n <= 40:  # the tree check is a Python double loop
                check_tree(got, got_pred, graph, 1e-12)


def test_bytes_of_a_solve_alone():
    """Each graph's distances are apsp.floyd_warshall's for it alone, bit for bit."""
    rng = np.random.default_rng(3)
    counts, edge_index, w = random_batch(rng, 200, False)
    for kind in (np.float32, np.float64, np.int64):
        weight = w if kind != np.int64 else np.rint(w)
        d, sizes = apsp.floyd_warshall_batch(
            edge_index=edge_index, edge_weight=weight.astype(kind), num_nodes=counts, dtype=kind,
            packed=True)
        for g, n in enumerate(sizes):
            graph = scipy_graph(counts, edge_index, weight.astype(kind), g, True)
            alone = apsp.floyd_warshall(graph.astype(kind), dtype=kind) if n else np.empty((0, 0))
            assert d[g].tobytes() == np.asarray(alone, dtype=kind).tobytes(), (kind, g)


def test_batch_vector_and_ungrouped_edges():
    rng = np.random.default_rng(5)
    counts, edge_index, w = random_batch(rng, 300, True)
    batch = np.repeat(np.arange(counts.size), counts)
    want, _ = apsp.floyd_warshall_batch(edge_index=edge_index, edge_weight=w, num_nodes=counts)
    order = rng.permutation(edge_index.shape[1])
    got, sizes = apsp.floyd_warshall_batch(
        edge_index=edge_index[:, order], edge_weight=w[order], batch=batch)
    assert sizes.size == counts.size and np.array_equal(got[: sizes.size], want[: sizes.size])


def test_lists_of_matrices():
    rng = np.random.default_rng(11)
    graphs = [sp.random(n, n, density=0.1, format="csr", random_state=n) for n in
              rng.integers(1, 80, 200)]
    graphs.append(sp.csr_matrix((0, 0)))
    d, sizes = apsp.floyd_warshall_batch(graphs, directed=False, packed=True)
    dense = [g.toarray() for g in graphs[:-1]]
    d2, _ = apsp.floyd_warshall_batch(dense, directed=False)
    for g, graph in enumerate(graphs[:-1]):
        want = scipy_fw(graph, directed=False)
        np.testing.assert_allclose(d[g], want, rtol=1e-12)
        n = graph.shape[0]
        np.testing.assert_allclose(d2[g, :n, :n], scipy_fw(dense[g], directed=False), rtol=1e-12)
    assert d[-1].shape == (0, 0)


@pytest.mark.parametrize("directed", [True, False])
def test_unweighted_batches_equal_scipy(directed):
    """Edges of weight 1 without predecessors (the library's breadth-first search up to 128
    vertices, the solve past them): every type, padded and packed, against SciPy's unweighted
    floyd_warshall byte for byte; weights that are all 1 solved as no weights."""
    rng = np.random.default_rng(13 + directed)
    counts, edge_index, w = random_batch(rng, 400, True)
    starts = np.concatenate(([0], np.cumsum(counts)))
    want = [scipy_fw(scipy_graph(counts, edge_index, w, g, directed), directed=True,
                     unweighted=True) for g in range(counts.size)]
    for kind in (None, np.int32, np.int64, np.float32):
        d, sizes = apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts,
                                             directed=directed, unweighted=True, dtype=kind)
        assert d.dtype == (kind or np.float64) and np.array_equal(sizes, counts)
        marker = {np.int32: apsp.INF32, np.int64: apsp.INF64}.get(kind, np.inf)
        for g, n in enumerate(counts):
            expect = np.full((n, n), marker, dtype=d.dtype)
            expect[np.isfinite(want[g])] = want[g][np.isfinite(want[g])]
            assert np.array_equal(d[g, :n, :n], expect), (kind, g)
            assert np.all(d[g, n:, :] == marker) and np.all(d[g, :, n:] == marker), (kind, g)
    packed, _ = apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts,
                                          directed=directed, edge_weight=np.ones(w.size),
                                          packed=True)
    assert all(packed[g].tobytes() == want[g].tobytes() for g in range(counts.size))
    bad = edge_index.copy()
    g = int(np.argmax(counts > 1))
    bad[1, np.searchsorted(edge_index[0], starts[g])] = starts[g + 1]
    with pytest.raises(ValueError, match=f"graph {g}: edge"):
        apsp.floyd_warshall_batch(edge_index=bad, num_nodes=counts, unweighted=True)


def test_lists_of_sparse_formats():
    """Lists of sparse matrices read as SciPy reads each: CSC and COO among CSR, integer,
    boolean and float32 data, stored zeros (edges), NaN and inf entries (none), entries past
    indptr[-1] (no part of the matrix), unsorted indices, one matrix's arrays of another dtype or
    strided; a matrix not square, or whose indptr does not fit, refused."""
    rng = np.random.default_rng(17)
    graphs = []
    for k, n in enumerate(rng.integers(1, 70, 120)):
        m = sp.random(n, n, density=0.08, format="csr", random_state=k)
        m.data = np.rint(m.data * 9)  # whole, some 0: stored zeros are edges
        kind = k % 6
        if kind == 1:
            m = m.tocsc()
        elif kind == 2:
            m = m.tocoo()
        elif kind == 3:
            m = m.astype(np.int64)
        elif kind == 4 and m.nnz:
            m.data[0] = np.nan if k % 2 else np.inf
            m.indices[: m.indptr[1]] = m.indices[: m.indptr[1]][::-1].copy()
        elif kind == 5:
            m.indices, m.data = np.append(m.indices, 0), np.append(m.data, 7.0)  # past indptr[-1]
        graphs.append(m)
    for directed in (True, False):
        d, sizes = apsp.floyd_warshall_batch(graphs, directed=directed, packed=True)
        for g, graph in enumerate(graphs):
            want = scipy_fw(graph.tocsr(), directed=directed)  # (SciPy refuses a COO)
            assert d[g].tobytes() == want.tobytes(), (directed, g)
    singles = [sp.csr_matrix(m, dtype=np.float32) for m in graphs[:20]]
    d, _ = apsp.floyd_warshall_batch(singles, packed=True)
    assert all(np.array_equal(d[g], scipy_fw(m)) for g, m in enumerate(singles))
    ones = [sp.csr_matrix(m, dtype=bool) for m in graphs[:20]]
    d, _ = apsp.floyd_warshall_batch(ones, packed=True)
    assert all(np.array_equal(d[g], scipy_fw(m)) for g, m in enumerate(ones))
    # all the arrays of a kind alike but one: int64 indices in one matrix, a strided view of its
    # data in another (joined by concatenate, not as bytes)
    mixed = [sp.csr_matrix(m) for m in graphs[:20]]
    mixed[3].indices, mixed[3].indptr = (mixed[3].indices.astype(np.int64),
                                         mixed[3].indptr.astype(np.int64))
    mixed[5].data = np.repeat(mixed[5].data, 2)[::2]
    d, _ = apsp.floyd_warshall_batch(mixed, packed=True)
    assert all(np.array_equal(d[g], scipy_fw(m)) for g, m in enumerate(mixed))
    # no stored entry in any matrix: empty arrays joined (an empty buffer)
    edgeless = [sp.csr_matrix((3, 3)), sp.csr_matrix((0, 0)), sp.csr_matrix((1, 1))]
    d, sizes = apsp.floyd_warshall_batch(edgeless, packed=True)
    assert sizes.tolist() == [3, 0, 1]
    assert all(np.array_equal(d[g], scipy_fw(m) if m.shape[0] else np.empty((0, 0)))
               for g, m in enumerate(edgeless))
    with pytest.raises(ValueError, match=r"shape \(2, 3\) is not square"):
        apsp.floyd_warshall_batch([graphs[0], sp.csr_matrix((2, 3))])
    broken = sp.csr_matrix(np.eye(3))
    broken.indptr = np.array([0, 1, 2, 7], dtype=broken.indptr.dtype)
    with pytest.raises(ValueError, match="indptr does not fit"):
        apsp.floyd_warshall_batch([graphs[0], broken])


def test_max_distance_and_edge_paths():
    # a path 0-1-2-3 and a lone vertex 4 in one graph; a triangle in another
    edge_index = np.array([[0, 1, 2, 5, 6, 7], [1, 2, 3, 6, 7, 5]])
    d, pred, sizes = apsp.floyd_warshall_batch(
        edge_index=edge_index, num_nodes=[5, 3], directed=False, unweighted=True,
        return_predecessors=True, max_distance=2, dtype=np.int32)
    assert d[0, 0, 3] == 2 and d[0, 0, 4] == 2 and d[0, 0, 1] == 1 and d[1, 0, 2] == 1
    paths = apsp.edge_paths(pred, edge_index, 2, num_nodes=[5, 3], directed=False)
    assert paths.shape == (2, 5, 5, 2)
    assert list(paths[0, 0, 3]) == [0, 1]  # the first two edges of 0-1-2-3
    assert list(paths[0, 3, 0]) == [2, 1]
    assert list(paths[0, 0, 4]) == [-1, -1] and list(paths[0, 2, 2]) == [-1, -1]
    assert list(paths[1, 1, 0]) == [3, -1]  # the edge 5-6 used backwards, local 1 -> 0


class Tensor:
    """A host tensor known only by DLPack, as torch.Tensor is to NumPy."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_input_and_like():
    module = types.ModuleType("faketensor")
    module.from_dlpack = lambda x: Tensor(np.from_dlpack(x))
    Tensor.__module__ = "faketensor"
    sys.modules["faketensor"] = module
    try:
        edge_index = np.array([[0, 1, 3], [1, 2, 4]])
        source = Tensor(edge_index)
        assert np.shares_memory(apsp._batch._array(source), edge_index)  # no copy
        d, sizes = apsp.floyd_warshall_batch(edge_index=source, num_nodes=Tensor(np.array([3, 2])),
                                             like=source)
        assert isinstance(d, Tensor) and d.array[0, 0, 2] == 2 and d.array[1, 0, 1] == 1
        out = np.zeros((2, 3, 3))
        d, _ = apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=[3, 2], out=out)
        assert d is out and out[0, 0, 2] == 2
    finally:
        del sys.modules["faketensor"]


def _random_edge_index(counts, rng):
    """About 1.1 V random edges inside each graph of `counts`, over the batch's numbering."""
    starts = np.concatenate(([0], np.cumsum(counts)))
    graph = np.repeat(np.arange(counts.size), counts * 11 // 10)
    pick = lambda: starts[graph] + (rng.random(graph.size) * counts[graph]).astype(np.int64)
    return np.stack([pick(), pick()])


def test_out_filled_in_place():
    """out= that the solve can write into (C-contiguous, the result's type and shape) is filled
    directly and can be reused batch after batch; any other writable one gets a copy; the
    results equal those without out=."""
    rng = np.random.default_rng(11)
    out = np.empty((40, 9, 9), dtype=np.int32)
    for seed in range(3):
        counts = rng.integers(1, 10, size=40)
        edge_index = _random_edge_index(counts, rng)
        kwargs = dict(edge_index=edge_index, num_nodes=counts, dtype=np.int32, directed=False)
        want, _ = apsp.floyd_warshall_batch(**kwargs)
        if int(counts.max()) != 9:
            continue
        before = out.__array_interface__["data"][0]
        d, _ = apsp.floyd_warshall_batch(out=out, **kwargs)
        assert d is out and out.__array_interface__["data"][0] == before
        assert np.array_equal(out, want), "seed %d: out= differs from the fresh result" % seed
    big = np.full(2000, 60)  # filled in place: no array of the result's size made on the way
    kwargs = dict(edge_index=_random_edge_index(big, rng), num_nodes=big, dtype=np.int32)
    reused = np.empty((2000, 60, 60), dtype=np.int32)
    tracemalloc.start()
    apsp.floyd_warshall_batch(out=reused, **kwargs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < reused.nbytes // 2, "out= filled in place: %d bytes allocated at the peak" % peak
    strided = np.zeros((40, 9, 18), dtype=np.int32)[:, :, ::2]  # not C-contiguous: copied into
    counts = np.full(40, 9)
    edge_index = _random_edge_index(counts, rng)
    want, _ = apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, dtype=np.int32)
    d, _ = apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, dtype=np.int32,
                                     out=strided)
    assert d is strided and np.array_equal(strided, want)
    clipped = np.empty((40, 9, 9), dtype=np.int32)
    apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, dtype=np.int32,
                              max_distance=2, out=clipped)
    assert np.array_equal(clipped, np.minimum(want, 2))
    with pytest.raises(ValueError, match="^out: expected int32"):
        apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, dtype=np.int32,
                                  out=np.empty((40, 9, 9), dtype=np.int64))


def test_flat_layout():
    """packed="flat": one 1-D array of every graph's block at its offset, each equal to SciPy's
    floyd_warshall of that graph alone (distances and predecessors), int32 and float64 with
    max_distance too; into out= (in place where it can be); out= of the wrong shape, out= with
    packed=True and an unknown layout refused."""
    rng = np.random.default_rng(29)
    counts, edge_index, w = random_batch(rng, 300, True)
    offsets = np.concatenate(([0], np.cumsum(counts * counts)))
    for kind, clip in ((None, None), (np.int32, None), (None, 25.0)):
        d, pred, sizes = apsp.floyd_warshall_batch(
            edge_index=edge_index, edge_weight=w, num_nodes=counts, return_predecessors=True,
            packed="flat", dtype=kind, max_distance=clip)
        assert d.ndim == 1 and d.size == offsets[-1] and pred.shape == d.shape
        assert np.array_equal(sizes, counts)
        for g, n in enumerate(counts):
            want, want_pred = scipy_fw(scipy_graph(counts, edge_index, w, g, True), directed=True,
                                       return_predecessors=True)
            if clip is not None:
                want = np.minimum(want, clip)
            if kind == np.int32:
                want = np.where(np.isinf(want), apsp.INF32, want).astype(np.int32)
            block = d[offsets[g]:offsets[g + 1]].reshape(n, n)
            assert block.tobytes() == want.tobytes(), (kind, clip, g)
            assert np.array_equal(pred[offsets[g]:offsets[g + 1]].reshape(n, n), want_pred), g
    # into out=: the front of a larger reused buffer (solved in place), or another type (copied)
    fresh, _ = apsp.floyd_warshall_batch(edge_index=edge_index, edge_weight=w, num_nodes=counts,
                                         packed="flat", dtype=np.int32)
    buffer = np.full(offsets[-1] + 99, 7, dtype=np.int32)
    into, _ = apsp.floyd_warshall_batch(edge_index=edge_index, edge_weight=w, num_nodes=counts,
                                        packed="flat", dtype=np.int32, out=buffer[:offsets[-1]])
    assert np.shares_memory(into, buffer) and np.array_equal(buffer[:offsets[-1]], fresh)
    assert np.all(buffer[offsets[-1]:] == 7)
    copied = np.zeros(offsets[-1])
    apsp.floyd_warshall_batch(edge_index=edge_index, edge_weight=w, num_nodes=counts,
                              packed="flat", out=copied)
    assert np.array_equal(copied, np.where(fresh == apsp.INF32, np.inf, fresh))
    with pytest.raises(ValueError, match="out: expected"):
        apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, packed="flat",
                                  out=np.empty((counts.size, counts.max(), counts.max())))
    with pytest.raises(ValueError, match="out= and packed=True"):
        apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, packed=True,
                                  out=np.empty((counts.size, counts.max(), counts.max())))
    with pytest.raises(ValueError, match="packed='ragged': expected False, True or 'flat'"):
        apsp.floyd_warshall_batch(edge_index=edge_index, num_nodes=counts, packed="ragged")


def test_refusals():
    with pytest.raises(ValueError, match="graph 1: edge"):
        apsp.floyd_warshall_batch(edge_index=np.array([[0, 2], [1, 9]]), num_nodes=[2, 2])
    # Edges not grouped by graph are sorted before the solve: the refused one is still named by
    # its column of edge_index (1), not by its place after the sort (0).
    with pytest.raises(ValueError, match=r"graph 0: edge 1 \(0 -> 9\)"):
        apsp.floyd_warshall_batch(edge_index=np.array([[2, 0], [3, 9]]), num_nodes=[2, 2])
    with pytest.raises(ValueError, match="finite"):
        apsp.floyd_warshall_batch(edge_index=np.array([[0], [1]]), edge_weight=[np.nan],
                                  num_nodes=[2])
    with pytest.raises(apsp.NegativeCycleError, match="graph 0"):
        apsp.floyd_warshall_batch(edge_index=np.array([[0, 1], [1, 0]]), edge_weight=[1.0, -2.0],
                                  num_nodes=[2])


def test_opencl_solver_a_graph_at_a_time():
    """An OpenCL solver (PoCL's CPU device here) solves a batch a graph at a time, with the
    pthread backend's bytes for integers."""
    if not any(d["backend"] == "opencl" for d in apsp.devices()):
        pytest.skip("no OpenCL device")
    rng = np.random.default_rng(13)
    counts, edge_index, w = random_batch(rng, 40, True)
    args = dict(edge_index=edge_index, edge_weight=w, num_nodes=counts, directed=False,
                return_predecessors=True, dtype=np.int32)
    with apsp.Solver(backend="opencl") as device:
        got, got_pred, _ = apsp.floyd_warshall_batch(solver=device, **args)
    want, want_pred, _ = apsp.floyd_warshall_batch(solver=apsp.Solver(device="host"), **args)
    assert np.array_equal(got, want) and np.array_equal(got_pred, want_pred)


@pytest.mark.parametrize("directed", [True, False])
def test_opencl_batch_of_work_groups(directed):
    """An OpenCL solver (PoCL's CPU device here) without predecessors solves the graphs of at
    most 128 vertices a work-group per graph (cl/batch.cl): the pthread batch's bytes in every
    type, and SciPy's distances."""
    if not any(d["backend"] == "opencl" for d in apsp.devices()):
        pytest.skip("no OpenCL device")
    rng = np.random.default_rng(17 + directed)
    counts, edge_index, w = random_batch(rng, 300, False)
    host = apsp.Solver(device="host")
    with apsp.Solver(backend="opencl") as device:
        for kind in (np.int32, np.int64, np.float32, np.float64):
            weight = (w if kind in (np.float32, np.float64) else np.rint(w)).astype(kind)
            args = dict(edge_index=edge_index, edge_weight=weight, num_nodes=counts,
                        directed=directed, dtype=kind, packed=True)
            got, _ = apsp.floyd_warshall_batch(solver=device, **args)
            want, _ = apsp.floyd_warshall_batch(solver=host, **args)
            for g in range(counts.size):
                assert got[g].tobytes() == want[g].tobytes(), (kind, g)
            marker = {np.int32: apsp.INF32, np.int64: apsp.INF64}.get(kind)
            for g in range(0, counts.size, 10):
                graph = scipy_graph(counts, edge_index, weight.astype(np.float64), g, directed)
                mine = np.where(got[g] == marker, np.inf, got[g]) if marker else got[g]
                np.testing.assert_allclose(mine, scipy_fw(graph, directed=True),
                                           rtol=RTOL.get(np.dtype(kind), 0))
