"""The NetworkX backend (apsp.nx, NetworkX >= 3.2): floyd_warshall_numpy and floyd_warshall
with backend="apsp" against NetworkX's own, on random graphs."""

import numpy as np
import pytest

nx = pytest.importorskip("networkx")
if tuple(int(p) for p in nx.__version__.split(".")[:2]) < (3, 2):
    pytest.skip("NetworkX < 3.2 has no backends.", allow_module_level=True)
# apsp's converted graph only refers to the NetworkX graph: NetworkX's cache of it is harmless.
nx.config.warnings_to_ignore.add("cache")


def random_graph(seed, directed, multigraph=False, negative=False, n=40):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.12, seed=seed, directed=directed)
    if multigraph:
        G = nx.MultiDiGraph(G) if directed else nx.MultiGraph(G)
        for u, v in list(G.edges())[::3]:
            G.add_edge(u, v)  # parallel edges: the least weight counts
    p = rng.integers(0, 20, n)
    for u, v, data in G.edges(data=True):
        w = int(rng.integers(0, 30))  # weight-0 edges are edges in NetworkX
        data["weight"] = w + (p[u] - p[v] if negative else 0)
        data["cost"] = w * 0.5
    G.add_node("isolated")
    return G


def test_registered():
    assert "apsp" in nx.utils.backends.backends


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("multigraph", [False, True])
def test_floyd_warshall_numpy(directed, multigraph):
    for seed in range(4):
        G = random_graph(seed, directed, multigraph)
        nodes = list(G)[::-1]
        np.testing.assert_array_equal(
            nx.floyd_warshall_numpy(G, nodelist=nodes, backend="apsp"),
            nx.floyd_warshall_numpy(G, nodelist=nodes),
        )
        for weight in ("weight", None, "cost"):  # "cost": float weights, the float64 kernels
            want = nx.floyd_warshall_numpy(G, weight=weight)
            got = nx.floyd_warshall_numpy(G, weight=weight, backend="apsp")
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_negative_weights():
    G = random_graph(9, True, negative=True)
    assert any(w < 0 for _, _, w in G.edges(data="weight"))
    np.testing.assert_array_equal(
        nx.floyd_warshall_numpy(G, backend="apsp"), nx.floyd_warshall_numpy(G)
    )
    G.add_edge(0, 1, weight=-100)
    G.add_edge(1, 0, weight=-100)
    with pytest.raises(nx.NetworkXUnbounded):
        nx.floyd_warshall_numpy(G, backend="apsp")


@pytest.mark.parametrize("directed", [True, False])
def test_floyd_warshall_dicts(directed):
    G = random_graph(21, directed)
    got = nx.floyd_warshall(G, backend="apsp")
    want = nx.floyd_warshall(G)
    assert got == want
    assert got["isolated"][0] == float("inf")


def test_nodelist_refused():
    G = random_graph(1, True)
    with pytest.raises(nx.NetworkXError):
        nx.floyd_warshall_numpy(G, nodelist=[0, 1], backend="apsp")



@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize(
    "weights", [(1e19, 3), (-1e19, 2e19), (2**70, 5), (2**53 + 1, 1), (-(2**63), 2**63)]
)
def test_weights_past_the_integer_kernels(directed, weights):
    """Whole-number weights too wide for the integer kernels (|w| >= 2^63, or sums past 2^53
    where float64 rounds) are solved in float64, NetworkX's floyd_warshall_numpy's arithmetic:
    never a cast that wraps. (A path of two edges: one sum, the same in any order.)"""
    G = nx.DiGraph() if directed else nx.Graph()
    first, second = weights
    G.add_edge(0, 1, weight=first)
    G.add_edge(1, 2, weight=second)
    G.add_node(3)
    if not directed and min(weights) < 0:
        with pytest.raises(nx.NetworkXUnbounded):  # a negative edge both ways: a negative cycle
            nx.floyd_warshall_numpy(G, backend="apsp")
        return
    want = nx.floyd_warshall_numpy(G)
    np.testing.assert_array_equal(nx.floyd_warshall_numpy(G, backend="apsp"), want)
    # floyd_warshall: the same float64 numbers (NetworkX's own adds Python ints, exact past 2^53).
    got = nx.floyd_warshall(G, backend="apsp")
    assert {u: dict(got[u]) for u in G} == {u: dict(zip(G, d)) for u, d in zip(G, want.tolist())}
