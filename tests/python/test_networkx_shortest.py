"""NetworkX's shortest-path family with backend="apsp" (apsp.nx) against NetworkX's own on
random graphs: the same nodes and distances (ints for int weights, floats for float ones), every
path a path of G as long as NetworkX's distance (where paths tie apsp may take another), the same
exceptions."""

import itertools
import math

import numpy as np
import pytest

nx = pytest.importorskip("networkx")
if tuple(int(p) for p in nx.__version__.split(".")[:2]) < (3, 2):
    pytest.skip("NetworkX < 3.2 has no backends.", allow_module_level=True)
nx.config.warnings_to_ignore.add("cache")


def random_graph(seed, directed, multigraph=False, negative=False, floats=False, n=30):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.1, seed=seed, directed=directed)
    if multigraph:
        G = nx.MultiDiGraph(G) if directed else nx.MultiGraph(G)
        for u, v in list(G.edges())[::3]:
            G.add_edge(u, v, weight=int(rng.integers(0, 30)))
    p = rng.integers(0, 20, n)  # a potential: negative edges, no negative cycle
    for u, v, data in G.edges(data=True):
        w = int(rng.integers(0, 30)) + (int(p[u] - p[v]) if negative else 0)
        data["weight"] = w / 4 if floats else w
    G.add_edge(n - 1, n - 1, weight=3)  # a self-loop: on no shortest path
    G.add_node("isolated")
    return G


GRAPHS = [
    pytest.param(dict(directed=d, multigraph=m, floats=f), id=f"d{d:d}m{m:d}f{f:d}")
    for d, m, f in itertools.product([True, False], [False, True], [False, True])
]


def weight_of(G, u, v, weight="weight"):
    if weight is None:
        return 1
    data = G.get_edge_data(u, v)
    if G.is_multigraph():
        return min(d.get(weight, 1) for d in data.values())
    return data.get(weight, 1)


def check_lengths(got, want):
    assert set(got) == set(want)
    for node, length in want.items():
        assert type(got[node]) is type(length), node
        assert got[node] == pytest.approx(length, rel=1e-12)


def check_path(G, path, source, target, length, weight="weight"):
    assert path[0] == source and path[-1] == target
    total = sum(weight_of(G, u, v, weight) for u, v in zip(path, path[1:]))
    assert total == pytest.approx(length, rel=1e-12)


def check_paths(G, got, want_lengths, source, weight="weight"):
    assert set(got) == set(want_lengths)
    for target, path in got.items():
        check_path(G, path, source, target, want_lengths[target], weight)


@pytest.mark.parametrize("kind", GRAPHS)
def test_dijkstra_family(kind):
    G = random_graph(1, **kind)
    for source, cutoff in [(0, None), (3, 20), ("isolated", None)]:
        want = nx.single_source_dijkstra_path_length(G, source, cutoff=cutoff)
        got = nx.single_source_dijkstra_path_length(G, source, cutoff=cutoff, backend="apsp")
        check_lengths(got, want)
        dist, path = nx.single_source_dijkstra(G, source, cutoff=cutoff, backend="apsp")
        check_lengths(dist, want)
        check_paths(G, path, want, source)
        check_paths(G, nx.single_source_dijkstra_path(G, source, cutoff=cutoff,
                                                      backend="apsp"), want, source)
    want = dict(nx.all_pairs_dijkstra_path_length(G))
    got = dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))
    assert list(got) == list(want)
    for u in G:
        check_lengths(got[u], want[u])
    for u, (dist, path) in nx.all_pairs_dijkstra(G, backend="apsp"):
        check_lengths(dist, want[u])
        check_paths(G, path, want[u], u)
    for u, path in nx.all_pairs_dijkstra_path(G, backend="apsp"):
        check_paths(G, path, want[u], u)


@pytest.mark.parametrize("kind", GRAPHS)
def test_dijkstra_pairs_and_multi_source(kind):
    G = random_graph(2, **kind)
    reach = nx.single_source_dijkstra_path_length(G, 0)
    for target in [t for t in G if t != 0][:12]:
        if target not in reach:
            for f in (nx.dijkstra_path, nx.dijkstra_path_length, nx.bidirectional_dijkstra):
                with pytest.raises(nx.NetworkXNoPath):
                    f(G, 0, target, backend="apsp")
            continue
        assert nx.dijkstra_path_length(G, 0, target, backend="apsp") == \
            nx.dijkstra_path_length(G, 0, target)
        check_path(G, nx.dijkstra_path(G, 0, target, backend="apsp"), 0, target, reach[target])
        length, path = nx.bidirectional_dijkstra(G, 0, target, backend="apsp")
        assert length == pytest.approx(reach[target]) and type(length) is type(reach[target])
        check_path(G, path, 0, target, length)
    sources = {0, 5, 9}
    want = nx.multi_source_dijkstra_path_length(G, sources)
    check_lengths(nx.multi_source_dijkstra_path_length(G, sources, backend="apsp"), want)
    dist, paths = nx.multi_source_dijkstra(G, sources, backend="apsp")
    check_lengths(dist, want)
    for target, path in paths.items():
        check_path(G, path, path[0], target, want[target])
        assert path[0] in sources
    pred, dist = nx.dijkstra_predecessor_and_distance(G, 0, backend="apsp")
    want_pred, want_dist = nx.dijkstra_predecessor_and_distance(G, 0)
    check_lengths(dist, want_dist)
    assert {u: sorted(p, key=str) for u, p in pred.items()} == \
        {u: sorted(p, key=str) for u, p in want_pred.items()}


def test_dijkstra_exceptions():
    G = random_graph(3, True)
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(G, "absent", backend="apsp")
    with pytest.raises(nx.NodeNotFound):
        nx.dijkstra_path(G, "absent", 0, backend="apsp")
    with pytest.raises(ValueError):
        nx.multi_source_dijkstra_path_length(G, set(), backend="apsp")
    with pytest.raises(nx.NetworkXNoPath):
        nx.dijkstra_path(G, 0, "isolated", backend="apsp")


@pytest.mark.parametrize("kind", GRAPHS)
def test_bellman_ford_family_negative_weights(kind):
    G = random_graph(4, negative=kind["directed"], **kind)
    for source in (0, 7, "isolated"):
        want = nx.single_source_bellman_ford_path_length(G, source)
        check_lengths(nx.single_source_bellman_ford_path_length(G, source, backend="apsp"),
                      want)
        dist, paths = nx.single_source_bellman_ford(G, source, backend="apsp")
        check_lengths(dist, want)
        check_paths(G, paths, want, source)
        pred, dist = nx.bellman_ford_predecessor_and_distance(G, source, backend="apsp")
        want_pred, _ = nx.bellman_ford_predecessor_and_distance(G, source)
        check_lengths(dist, want)
        assert {u: sorted(p, key=str) for u, p in pred.items()} == \
            {u: sorted(p, key=str) for u, p in want_pred.items()}
        for target in list(want)[:5]:
            assert nx.bellman_ford_path_length(G, source, target, backend="apsp") == \
                want[target]
            check_path(G, nx.bellman_ford_path(G, source, target, backend="apsp"), source,
                       target, want[target])
    want = dict(nx.all_pairs_bellman_ford_path_length(G))
    got = dict(nx.all_pairs_bellman_ford_path_length(G, backend="apsp"))
    for u in G:
        check_lengths(got[u], want[u])
    for u, paths in nx.all_pairs_bellman_ford_path(G, backend="apsp"):
        check_paths(G, paths, want[u], u)
    for u, paths in nx.johnson(G, backend="apsp").items():
        check_paths(G, paths, want[u], u)
    assert nx.negative_edge_cycle(G, backend="apsp") is False


@pytest.mark.parametrize("directed", [True, False])
def test_negative_cycles(directed):
    G = random_graph(5, directed, negative=directed)
    G.add_edge(1, 2, weight=-50)
    G.add_edge(2, 1, weight=-50)
    assert nx.negative_edge_cycle(G, backend="apsp") is True
    for f in (nx.single_source_bellman_ford_path_length, nx.single_source_bellman_ford):
        with pytest.raises(nx.NetworkXUnbounded):
            f(G, 1, backend="apsp")
    with pytest.raises(nx.NetworkXUnbounded):
        nx.johnson(G, backend="apsp")
    # A negative self-loop anywhere: NetworkX's Bellman-Ford raises at once.
    H = random_graph(6, directed)
    H.add_edge("isolated", "isolated", weight=-1)
    assert nx.negative_edge_cycle(H, backend="apsp") is True
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(H, 0, backend="apsp")
    # Unreachable from the source: no cycle on any path from it, as NetworkX's search finds.
    K = random_graph(7, True)
    K.add_edge("a", "b", weight=-5)
    K.add_edge("b", "a", weight=1)
    assert nx.single_source_bellman_ford_path_length(K, 0, backend="apsp") == \
        nx.single_source_bellman_ford_path_length(K, 0)


@pytest.mark.parametrize("kind", GRAPHS[:4])
def test_unweighted_and_generic(kind):
    G = random_graph(8, **kind)
    for source in (0, 4):
        for cutoff in (None, 2):
            assert nx.single_source_shortest_path_length(G, source, cutoff, backend="apsp") \
                == nx.single_source_shortest_path_length(G, source, cutoff)
            assert nx.single_target_shortest_path_length(G, source, cutoff, backend="apsp") \
                == nx.single_target_shortest_path_length(G, source, cutoff)
    assert dict(nx.all_pairs_shortest_path_length(G, backend="apsp")) == \
        dict(nx.all_pairs_shortest_path_length(G))
    for u, v in [(0, 1), (0, "isolated"), (3, 9)]:
        assert nx.has_path(G, u, v, backend="apsp") == nx.has_path(G, u, v)
    for weight, method in itertools.product([None, "weight"], ["dijkstra", "bellman-ford"]):
        kw = dict(weight=weight, method=method)
        assert nx.shortest_path_length(G, 0, 5, **kw, backend="apsp") == \
            nx.shortest_path_length(G, 0, 5, **kw) if nx.has_path(G, 0, 5) else True
        check_lengths(nx.shortest_path_length(G, 0, **kw, backend="apsp"),
                      nx.shortest_path_length(G, 0, **kw))
        check_lengths(nx.shortest_path_length(G, target=2, **kw, backend="apsp"),
                      nx.shortest_path_length(G, target=2, **kw))
        want = dict(nx.shortest_path_length(G, **kw))
        got = dict(nx.shortest_path_length(G, **kw, backend="apsp"))
        for u in G:
            check_lengths(got[u], want[u])
        for target, path in nx.shortest_path(G, target=2, **kw, backend="apsp").items():
            check_path(G, path, target, 2, want[target][2], weight)
        for target, path in nx.shortest_path(G, 0, **kw, backend="apsp").items():
            check_path(G, path, 0, target, want[0][target], weight)
    with pytest.raises(ValueError):
        nx.shortest_path(G, 0, method="astar", backend="apsp")
    with pytest.raises(nx.NodeNotFound):
        nx.has_path(G, "absent", 0, backend="apsp")


@pytest.mark.parametrize("directed", [True, False])
def test_average_shortest_path_length(directed):
    G = nx.DiGraph(nx.cycle_graph(12)) if directed else nx.cycle_graph(12)
    rng = np.random.default_rng(3)
    for u, v, data in G.edges(data=True):
        data["weight"] = int(rng.integers(1, 9))
    for weight, method in [(None, None), ("weight", None), ("weight", "bellman-ford"),
                           ("weight", "floyd-warshall")]:
        got = nx.average_shortest_path_length(G, weight, method, backend="apsp")
        assert math.isclose(got, nx.average_shortest_path_length(G, weight, method))
    G.add_node("isolated")
    with pytest.raises(nx.NetworkXError):
        nx.average_shortest_path_length(G, backend="apsp")


def test_callable_weight_falls_back():
    """A weight function is NetworkX's to call: apsp declines it (can_run) and, with fallback
    on, NetworkX's own runs."""
    from apsp.nx import BackendInterface

    G = random_graph(9, True)
    assert not BackendInterface.can_run("single_source_dijkstra_path_length",
                                        (G, 0), {"weight": lambda u, v, d: 1})
    assert BackendInterface.can_run("single_source_dijkstra_path_length", (G, 0), {})


@pytest.mark.parametrize("kind", GRAPHS)
def test_floyd_warshall_predecessor_and_distance(kind):
    G = random_graph(10, negative=kind["directed"], **kind)
    pred, dist = nx.floyd_warshall_predecessor_and_distance(G, backend="apsp")
    want_pred, want_dist = nx.floyd_warshall_predecessor_and_distance(G)
    assert list(dist) == list(want_dist) and set(pred) == set(want_pred)
    for u in G:
        check_lengths(dict(dist[u]), want_dist[u])  # every pair, inf where none
        assert dist[u]["absent"] == math.inf
        assert set(pred.get(u, {})) == set(want_pred.get(u, {}))
        for v in set(pred.get(u, {})) - {u}:  # on a shortest path (ties may differ)
            p = pred[u][v]
            assert dist[u][p] + weight_of(G, p, v) == pytest.approx(dist[u][v], rel=1e-12)


def test_all_pairs_decline_at_the_call():
    """A graph apsp declines (negative weights for Dijkstra, int and float weights mixed) is
    declined when an all-pairs generator is made, where NetworkX's fallback catches it, and not
    during the iteration."""
    from apsp.nx import BackendInterface

    negative = random_graph(11, True, negative=True)
    mixed = random_graph(12, True)
    mixed.add_edge(0, 1, weight=0.5)
    for G, calls in ((negative, ("all_pairs_dijkstra", "all_pairs_dijkstra_path_length",
                                 "all_pairs_dijkstra_path")),
                     (mixed, ("all_pairs_dijkstra", "all_pairs_dijkstra_path_length",
                              "all_pairs_bellman_ford_path_length"))):
        for name in calls:
            with pytest.raises(NotImplementedError):
                getattr(BackendInterface, name)(G)
