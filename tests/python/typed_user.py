"""A user's script that calls every public function of apsp (tests/python/test_style.py
checks it with mypy --strict)."""
import importlib
from typing import Any

import numpy as np
import numpy.typing as npt

import apsp


def shown(done: int, total: int) -> None:
    print(f"{done}/{total}")


def main() -> None:
    graph: npt.NDArray[np.float64] = np.array([[0.0, 1.0, 4.0], [0.0, 0.0, 2.0], [1.0, 0.0, 0.0]])
    dist = apsp.floyd_warshall(graph, progress=shown)
    dist, pred = apsp.floyd_warshall(graph, return_predecessors=True, device="host")
    path: list[int] = apsp.reconstruct_path(pred, 0, 2)
    lengths = apsp.construct_dist_matrix(graph, pred)
    rows = apsp.shortest_path(graph, method="D", indices=[0, 1])
    rows, rows_pred = apsp.shortest_path(graph, return_predecessors=True)
    near = apsp.dijkstra(graph, indices=0, limit=3.0)
    near, near_pred = apsp.dijkstra(graph, indices=0, return_predecessors=True)
    least, least_pred, sources = apsp.dijkstra(graph, indices=[0, 1], return_predecessors=True,
                                               min_only=True)
    j = apsp.johnson(graph, directed=False)
    j, j_pred = apsp.johnson(graph, return_predecessors=True)
    b = apsp.bellman_ford(graph, indices=[2])
    b, b_pred = apsp.bellman_ford(graph, return_predecessors=True)
    marker = apsp.unreachable(np.int32)
    found = [d["name"] for d in apsp.devices()]
    with apsp.Solver(device="host", threads=1) as solver:
        s = solver.floyd_warshall(graph, dtype=np.int64)
        s, s_pred = solver.floyd_warshall(graph, return_predecessors=True)
        t = solver.shortest_path(graph, method="J")
        u = solver.dijkstra(graph, indices=[0], progress=shown)
        v = solver.johnson(graph)
        w = solver.bellman_ford(graph)
        x = solver.solve_matrix(np.zeros((2, 2), dtype=np.int32))
        report = solver.last_report
        print(repr(solver), report)
        edges = np.array([[0, 1, 3], [1, 2, 4]])
        batch_d, batch_pred, sizes = apsp.floyd_warshall_batch(
            edge_index=edges, num_nodes=[3, 2], return_predecessors=True, dtype=np.int32,
            solver=solver)
        paths: npt.NDArray[np.int64] = apsp.edge_paths(batch_pred, edges, 2, num_nodes=sizes)
    packed, packed_sizes = apsp.floyd_warshall_batch([graph, graph[:2, :2]], packed=True)
    clipped, _ = apsp.floyd_warshall_batch([graph], directed=False, max_distance=5.0)
    first: npt.NDArray[np.int64] = sizes[:1] + packed_sizes[:1]
    apsp.release()
    try:
        apsp.floyd_warshall(-graph)
    except apsp.NegativeCycleError as error:
        print(error)
    except (apsp.DeviceError, apsp.Error):
        raise
    print(dist.sum(), path, lengths[0, 2], rows.shape, rows_pred.shape, near, near_pred, least,
          least_pred, sources, j, j_pred, b, b_pred, marker, found, s, s_pred, t, u, v, w, x,
          batch_d.shape, paths.shape, [p.shape for p in packed], clipped.max(), first,
          apsp.INF32, apsp.INF64, apsp.PREDECESSOR_TOLERANCE, apsp.__version__)
    tables()


def tables() -> None:
    """from_pandas and from_arrow as the stubs type them: the tables are Any (pandas and pyarrow
    ship no types mypy reads without pandas-stubs), the keywords are checked; they run where
    pandas and pyarrow are installed."""
    try:
        pd: Any = importlib.import_module("pandas")
        pa: Any = importlib.import_module("pyarrow")
    except ImportError:
        return
    edges = {"from": ["a", "b"], "to": ["b", "c"], "w": [1.0, 2.0]}
    long = apsp.from_pandas(pd.DataFrame(edges), source="from", target="to", weight="w",
                            limit=2.0, sources=["a"])
    arrow = apsp.from_arrow(pa.table(edges), "from", "to", None, directed=False)
    print(len(long), arrow.num_rows)


if __name__ == "__main__":
    main()
