"""NetworkX's own shortest-path tests (networkx/algorithms/shortest_paths/tests) with
NETWORKX_TEST_BACKEND=apsp: every test passes, the functions apsp implements are called on apsp
(nx_backend_calls.py counts them), and they fall back to NetworkX only where apsp declines by
design: a weight function (can_run), a negative weight for Dijkstra, int and float weights mixed,
a weight neither int nor float. Graph builders and the functions apsp lacks fall back."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

nx = pytest.importorskip("networkx")
if tuple(int(p) for p in nx.__version__.split(".")[:2]) < (3, 2):
    pytest.skip("NetworkX < 3.2 has no backends.", allow_module_level=True)
scipy_sparse = pytest.importorskip("scipy.sparse")
if not hasattr(scipy_sparse, "sparray"):
    pytest.skip("NetworkX's backend test mode imports scipy.sparse.sparray (SciPy >= 1.11).",
                allow_module_level=True)

TESTS = pathlib.Path(nx.__file__).parent / "algorithms" / "shortest_paths" / "tests"
# Issue 39.1's family: each must reach apsp in NetworkX's tests (apsp.nx.FUNCTIONS may hold more).
REQUIRED = {
    "dijkstra_path", "dijkstra_path_length", "single_source_dijkstra_path",
    "single_source_dijkstra_path_length", "single_source_dijkstra", "multi_source_dijkstra_path",
    "multi_source_dijkstra_path_length", "multi_source_dijkstra",
    "dijkstra_predecessor_and_distance", "all_pairs_dijkstra", "all_pairs_dijkstra_path_length",
    "all_pairs_dijkstra_path", "bidirectional_dijkstra", "bellman_ford_predecessor_and_distance",
    "bellman_ford_path", "bellman_ford_path_length", "single_source_bellman_ford_path",
    "single_source_bellman_ford_path_length", "single_source_bellman_ford",
    "all_pairs_bellman_ford_path_length", "all_pairs_bellman_ford_path", "negative_edge_cycle",
    "johnson", "has_path", "shortest_path", "shortest_path_length",
    "average_shortest_path_length", "single_source_shortest_path_length",
    "single_target_shortest_path_length", "all_pairs_shortest_path_length", "floyd_warshall",
    "floyd_warshall_numpy", "floyd_warshall_predecessor_and_distance",
}
DECLINED = ("can't run", "apsp's Dijkstra takes no negative weight",
            "apsp: int and float weights mixed", "apsp: an edge weight that is neither")


def test_networkx_shortest_paths_suite(tmp_path):
    if not TESTS.is_dir():
        pytest.skip(f"{TESTS}: NetworkX installed without its tests")
    from apsp.nx import FUNCTIONS

    calls = tmp_path / "calls.json"
    env = dict(os.environ, NETWORKX_TEST_BACKEND="apsp", NETWORKX_FALLBACK_TO_NX="1",
               APSP_NX_CALLS=str(calls),
               PYTHONPATH=os.pathsep.join([str(pathlib.Path(__file__).parent)] +
                                          sys.path))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "nx_backend_calls", "-p", "no:cacheprovider",
         "-q", "-x", str(TESTS)], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    record = json.loads(calls.read_text())
    reached = {name: n for name, n in record["reached"].items() if name in FUNCTIONS}
    print(f"{sum(reached.values())} calls of {len(reached)} functions reached apsp: {reached}")
    strays = [(name, why) for name, why in record["fell_back"]
              if name in FUNCTIONS and not why.startswith(DECLINED)]
    assert not strays
    missing = (REQUIRED | set(FUNCTIONS)) - set(reached)
    assert not missing, f"never reached apsp: {sorted(missing)}"
