"""Issue 39.3, a Python package in Python's style: progress=, the logger "apsp", exceptions
named apsp.X, messages in Python's words, threads=0 refused, Solver's SciPy methods and repr,
reconstruct_path and construct_dist_matrix (against SciPy's), python -m apsp, numpydoc
docstrings, and the type stubs under mypy --strict."""

import inspect
import io
import logging
import os
import pydoc
import subprocess
import sys
import traceback

import numpy as np
import pytest
from scipy.sparse import csgraph

import apsp

SOURCES = ["shortest_path", "dijkstra", "johnson", "bellman_ford"]
FUNCTIONS = ["floyd_warshall", "devices", "release", "unreachable", "reconstruct_path",
             "construct_dist_matrix", "floyd_warshall_batch", "edge_paths", "from_pandas",
             "from_arrow"] + SOURCES
METHODS = ["floyd_warshall", "solve_matrix", "close"] + SOURCES


def _graph(n=200, seed=5):
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 20, (n, n)).astype(np.float64)
    w[rng.random((n, n)) < 0.8] = 0
    return w


class Bar:
    """What tqdm's bar does with the documented lambda: total and position."""

    def __init__(self):
        self.n, self.total, self.calls = 0, None, []

    def update(self, step):
        self.n += step


@pytest.mark.parametrize("name", ["floyd_warshall"] + SOURCES)
def test_progress(device, name):
    bar = Bar()

    def progress(done, total):
        bar.calls.append((done, total))
        bar.total = total
        bar.update(done - bar.n)

    solver = apsp.Solver(device=device)
    g = _graph(400)
    kwargs = {} if name == "floyd_warshall" else {"indices": list(range(300))}
    want = getattr(solver, name)(g, **kwargs)
    np.testing.assert_array_equal(getattr(solver, name)(g, progress=progress, **kwargs), want)
    assert bar.calls and bar.n == bar.total == bar.calls[-1][1]
    done = [d for d, _ in bar.calls]
    assert done == sorted(done) and len({t for _, t in bar.calls}) == 1


def test_progress_that_raises_stops_the_solve():
    class Enough(Exception):
        pass

    calls = []

    def progress(done, total):
        calls.append(done)
        raise Enough

    solver = apsp.Solver(device="host")
    with pytest.raises(Enough):
        solver.floyd_warshall(_graph(700), progress=progress)
    assert calls == [1]  # called no more once it raised
    np.testing.assert_array_equal(solver.floyd_warshall(_graph(300)),
                                  csgraph.floyd_warshall(_graph(300)))  # the solver still works
    with pytest.raises(TypeError):
        solver.floyd_warshall(_graph(10), progress="not callable")


def test_tqdm_if_installed():
    tqdm = pytest.importorskip("tqdm").tqdm
    with tqdm(file=io.StringIO()) as bar:  # (a disabled bar would count nothing)
        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        apsp.floyd_warshall(_graph(300), progress=progress)
        assert bar.n == bar.total


def test_logging(caplog):
    with caplog.at_level(logging.INFO, logger="apsp"):
        apsp.Solver(device="host").floyd_warshall(_graph(300))
        apsp.dijkstra(_graph(300), indices=[0])
    lines = [r.getMessage() for r in caplog.records if r.name == "apsp"]
    assert any(line.startswith("backend cpu on ") and "V = 300 padded to" in line
               for line in lines), lines
    assert any(line.startswith("kernels: ") for line in lines), lines
    assert any("compute" in line and "G relax/s" in line for line in lines), lines
    assert any(line.startswith("method: dijkstra") for line in lines), lines
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="apsp"):
        apsp.floyd_warshall(_graph(300))
    assert not [r for r in caplog.records if r.levelno < logging.WARNING]


def test_exceptions_and_messages():
    for cls in (apsp.Error, apsp.DeviceError, apsp.NegativeCycleError):
        assert cls.__module__ == "apsp" and getattr(apsp, cls.__name__) is cls
    assert issubclass(apsp.NegativeCycleError, csgraph.NegativeCycleError)
    with pytest.raises(apsp.NegativeCycleError) as caught:
        apsp.floyd_warshall(np.array([[0, -1.0], [-1.0, 0]]))
    shown = traceback.format_exception_only(caught.type, caught.value)[-1]
    assert shown.startswith("apsp.NegativeCycleError: "), shown
    if any(d["type"] == "cpu" for d in apsp.devices()):  # an OpenCL device: its tile rule
        with pytest.raises(ValueError) as caught:
            apsp.Solver(device="cpu", tile=100).floyd_warshall(_graph(300))
        assert str(caught.value).startswith("tile=100: ") and "--" not in str(caught.value)
    assert apsp._solve.python_words("--tile=8: x; --device-memory=1G") == \
        "tile=8: x; device_memory=1G"


def test_batch_logging_and_messages(caplog):
    """floyd_warshall_batch and edge_paths as the other functions: INFO lines to the logger
    "apsp", messages that name the keyword, Python's TypeError for a call without a graph."""
    edges = np.array([[0, 1, 3], [1, 2, 4]])
    with caplog.at_level(logging.INFO, logger="apsp"):
        _, pred, sizes = apsp.floyd_warshall_batch(edge_index=edges, num_nodes=[3, 2],
                                                   return_predecessors=True)
    lines = [r.getMessage() for r in caplog.records if r.name == "apsp"]
    assert any(line.startswith("batch of 2 graphs (V <= 3) on cpu") for line in lines), lines
    with pytest.raises(TypeError, match=r"^floyd_warshall_batch\(\) needs graphs or edge_index"):
        apsp.floyd_warshall_batch()
    with pytest.raises(ValueError, match="^out= and packed=True"):
        apsp.floyd_warshall_batch([_graph(3)], packed=True, out=np.zeros((1, 3, 3)))
    with pytest.raises(ValueError, match=r"^max_length=-1: expected a non-negative integer"):
        apsp.edge_paths(pred, edges, -1, num_nodes=sizes)
    with pytest.raises(ValueError, match=r"^pred: expected shape \(B, V, V\)"):
        apsp.edge_paths(pred[0], edges, 2, num_nodes=sizes)
    with pytest.raises(ValueError, match=r"^pred: shape \(2, 3, 3\) does not hold 3 graphs"):
        apsp.edge_paths(pred, edges, 2, num_nodes=[3, 1, 1])
    with pytest.raises(ValueError, match=r"^edge_index: expected shape \(2, E\)"):
        apsp.edge_paths(pred, edges.T, 2, num_nodes=sizes)


@pytest.mark.parametrize("setting", ["threads", "tile"])
def test_zero_refused(setting):
    with pytest.raises(ValueError, match=f"^{setting}=0: expected a positive integer"):
        apsp.Solver(**{setting: 0})
    with pytest.raises(ValueError):
        apsp.Solver(**{setting: -2})


def test_solver_methods_and_repr():
    g = _graph()
    solver = apsp.Solver(device="host", threads=1)
    assert repr(solver) == "<apsp.Solver(device='host', threads=1): not used yet>"
    for name in SOURCES:
        ours = getattr(solver, name)(g, indices=[0, 3], return_predecessors=True)
        theirs = getattr(csgraph, name)(g, indices=[0, 3], return_predecessors=True)
        np.testing.assert_array_equal(ours[0], theirs[0])
        assert solver.last_report is not None and solver.last_report["threads"] in (0, 1)
    assert "last ran on" in repr(solver) and "cpu backend" in repr(solver)
    solver.close()
    assert repr(solver).endswith(": closed>")
    with pytest.raises(apsp.Error):
        solver.dijkstra(g)
    # The module-level functions: the default solver's methods, with their signatures.
    for name in SOURCES:
        method = inspect.signature(getattr(apsp.Solver, name))
        function = inspect.signature(getattr(apsp, name))
        assert list(function.parameters) == list(method.parameters)[1:]


@pytest.mark.parametrize("directed", [True, False])
def test_reconstruct_path_and_construct_dist_matrix(directed):
    g = _graph(60)
    dist, pred = csgraph.floyd_warshall(g, directed=directed, return_predecessors=True)
    ours_d, ours_p = apsp.floyd_warshall(g, directed=directed, return_predecessors=True)
    np.testing.assert_array_equal(ours_p, pred)
    sym = g if directed else np.where(g.T == 0, g, np.where(g == 0, g.T, np.minimum(g, g.T)))
    for i in range(0, 60, 7):
        for j in range(60):
            path = apsp.reconstruct_path(pred, i, j)
            if not np.isfinite(dist[i, j]):
                assert path == []
                continue
            assert path[0] == i and path[-1] == j
            weights = [sym[a, b] if sym[a, b] else sym[b, a] for a, b in zip(path, path[1:])]
            assert sum(weights) == dist[i, j]
            assert apsp.reconstruct_path(pred[i], i, j) == path
    np.testing.assert_array_equal(apsp.construct_dist_matrix(g, pred, directed=directed),
                                  csgraph.construct_dist_matrix(g, pred, directed=directed))
    np.testing.assert_array_equal(
        apsp.construct_dist_matrix(g, pred, directed=directed, null_value=-1),
        csgraph.construct_dist_matrix(g, pred, directed=directed, null_value=-1))
    with pytest.raises(TypeError):  # SciPy's own tests ask this of an int64 matrix
        apsp.construct_dist_matrix(g, pred.astype(np.int64), directed=directed)
    with pytest.raises(ValueError):
        apsp.reconstruct_path(pred, 0, 60)
    with pytest.raises(ValueError):
        apsp.reconstruct_path(np.array([[-9999, 1], [1, -9999]]), 0, 1)


def test_python_m_apsp():
    result = subprocess.run([sys.executable, "-m", "apsp", "--version"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert apsp.__version__ in result.stdout
    bad = subprocess.run([sys.executable, "-m", "apsp", "--no-such-option"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("apsp: ")


@pytest.mark.parametrize("name", FUNCTIONS + ["Solver." + m for m in METHODS] + ["Solver"])
def test_numpydoc(name):
    obj = apsp
    for part in name.split("."):
        obj = getattr(obj, part)
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    assert "Parameters\n" in text or name in ("devices", "release", "Solver.close"), text
    assert "Returns\n" in text or name == "Solver", text
    assert "------" in text


def test_types_under_mypy_strict(tmp_path):
    """A user's script calling every public function passes mypy --strict against the installed
    package's stubs (py.typed). mypy comes from the package index: skipped offline."""
    import apsp as package

    here = os.path.dirname(os.path.abspath(package.__file__))
    assert os.path.exists(os.path.join(here, "py.typed"))
    assert os.path.exists(os.path.join(here, "__init__.pyi"))
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                          "--disable-pip-version-check", "mypy"],
                         capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        if not os.environ.get("CI") and any(w in pip.stdout + pip.stderr
                                            for w in ("connection", "resolve", "network",
                                                      "timed out", "Could not find")):
            pytest.skip("mypy: no package index reachable")
        pytest.fail(pip.stdout + pip.stderr)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "typed_user.py")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--cache-dir", str(tmp_path / "cache"), script],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    wrong = tmp_path / "wrong.py"  # and the stubs do say something: a wrong use is caught
    wrong.write_text("import apsp\nd: int = apsp.dijkstra([[0]], return_predecessors=True)\n"
                     "apsp.floyd_warshall([[0]], progess=None)\n"
                     "x, y = apsp.floyd_warshall_batch([[[0]]], return_predecessors=True)\n")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--cache-dir", str(tmp_path / "cache"), str(wrong)],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 1 and "wrong.py:2: error" in run.stdout, run.stdout + run.stderr
    assert "wrong.py:3: error" in run.stdout, run.stdout
    assert "wrong.py:4: error" in run.stdout, run.stdout  # (three values, not two)
    result = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr  # and the script runs
