"""apsp.from_pandas and apsp.from_arrow against NetworkX's all_pairs_dijkstra_path_length (and
Bellman-Ford's for negative weights) on random graphs with named vertices: string labels and
int64 ids past 2^31, directed and not, repeated edges, limit= (pairs within it, exactly),
sources=, the Arrow table equal to the DataFrame, and bad input refused by the column's name.
pandas and pyarrow come from run.sh's venv; elsewhere the module is skipped (not under CI)."""
import os

import networkx as nx
import numpy as np
import pytest

import apsp

try:
    import pandas as pd
    import pyarrow as pa
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("pandas or pyarrow is not installed", allow_module_level=True)


def random_edges(rng, n, m, labels, integer=True, low=1):
    """A DataFrame of m edges between n labelled vertices (repeats and self-loops included)."""
    names = {
        "str": np.array([f"stop {k} 'é'" for k in range(n)], dtype=object),
        "osm": (np.int64(1) << 33) + rng.permutation(n).astype(np.int64) * 7919,
    }[labels]
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(low, 30, m) if integer else rng.uniform(low, 30, m)
    return pd.DataFrame({"from": names[u], "to": names[v], "len": w})


def oracle(df, directed, weight="len", negative=False):
    """{(source, target): distance} of NetworkX, least weight kept of repeated edges."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(pd.concat([df["from"], df["to"]]).unique())
    for a, b, w in zip(df["from"], df["to"], df[weight]):
        if a != b and (not g.has_edge(a, b) or w < g[a][b]["weight"]):
            g.add_edge(a, b, weight=w)
    if negative:
        found = nx.all_pairs_bellman_ford_path_length(g)
    else:
        found = nx.all_pairs_dijkstra_path_length(g)
    return {(s, t): d for s, row in found for t, d in row.items()}


def pairs(table):
    if isinstance(table, pa.Table):
        table = table.to_pandas()
    assert list(table.columns) == ["source", "target", "distance"]
    return dict(zip(zip(table["source"], table["target"]), table["distance"]))


def long(df, **kw):
    return apsp.from_pandas(df, source="from", target="to", weight="len", **kw)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("labels,integer", [("str", True), ("osm", True), ("str", False)])
def test_equal_to_networkx(directed, labels, integer):
    rng = np.random.default_rng(40 + directed + 3 * integer)
    df = random_edges(rng, 60, 150, labels, integer)
    want = oracle(df, directed)
    table = long(df, directed=directed)
    assert len(table) == len(want)  # (no pair twice)
    got = pairs(table)
    assert got.keys() == want.keys()
    for key, d in want.items():
        assert got[key] == pytest.approx(d, rel=1e-12)
    if labels == "osm":  # the ids as the caller's type, past 2^31
        assert table["source"].dtype == np.int64 and table["source"].min() > 2**31
    arrow = apsp.from_arrow(pa.Table.from_pandas(df, preserve_index=False), "from", "to", "len",
                            directed=directed)
    assert arrow.to_pandas().equals(table)


@pytest.mark.parametrize("directed", [True, False])
def test_limit_keeps_exactly_the_pairs_within(directed):
    rng = np.random.default_rng(7)
    df = random_edges(rng, 50, 120, "str")
    want = oracle(df, directed)
    for limit in (0, 5, 12, 13.5, 40):
        got = pairs(long(df, directed=directed, limit=limit))
        assert got == {k: d for k, d in want.items() if d <= limit}, limit
        assert pairs(apsp.from_arrow(pa.Table.from_pandas(df), "from", "to", "len",
                                     directed=directed, limit=limit)) == got


def test_sources_restrict_the_rows():
    rng = np.random.default_rng(8)
    df = random_edges(rng, 40, 90, "osm")
    want = oracle(df, True)
    chosen = [df["to"].iloc[3], df["from"].iloc[0]]
    table = long(df, sources=chosen, limit=20)
    assert list(pd.unique(table["source"])) == chosen  # (in the order given)
    assert pairs(table) == {k: d for k, d in want.items() if k[0] in chosen and d <= 20}
    one = long(df, sources=chosen[0])
    assert pairs(one) == {k: d for k, d in want.items() if k[0] == chosen[0]}
    arrow = apsp.from_arrow(pa.Table.from_pandas(df), "from", "to", "len", sources=chosen,
                            limit=20)
    assert arrow.to_pandas().equals(table)
    assert len(long(df, sources=[])) == 0


def test_blocks_of_sources(monkeypatch):
    """The sources solved a few rows at a time give the same table as all at once."""
    from apsp import _tables

    rng = np.random.default_rng(9)
    df = random_edges(rng, 30, 80, "str", integer=False)
    whole = long(df)
    monkeypatch.setattr(_tables, "BLOCK_ENTRIES", 70)  # (2 rows of 30 per block)
    assert long(df).equals(whole)


def test_unweighted_and_negative():
    df = pd.DataFrame({"from": ["a", "b", "c", "a"], "to": ["b", "c", "d", "d"],
                       "len": [2, -1, 3, 5]})
    assert pairs(long(df)) == oracle(df, True, negative=True)
    hops = apsp.from_pandas(df, "from", "to", weight=None)
    assert pairs(hops)[("a", "d")] == 1 and pairs(hops)[("a", "c")] == 2
    with pytest.raises(apsp.NegativeCycleError):
        long(df, directed=False)  # (an undirected negative edge is a negative cycle)


def test_nullable_and_chunked_columns():
    df = pd.DataFrame({"from": pd.array(["x", "y"], dtype="string"),
                       "to": pd.array(["y", "z"], dtype="string"),
                       "len": pd.array([1, 2], dtype="Int64")})
    assert pairs(long(df)) == {("x", "x"): 0, ("x", "y"): 1, ("x", "z"): 3, ("y", "y"): 0,
                               ("y", "z"): 2, ("z", "z"): 0}
    table = pa.concat_tables([pa.Table.from_pandas(df[:1]), pa.Table.from_pandas(df[1:])])
    assert table.column("from").num_chunks == 2
    assert pairs(apsp.from_arrow(table, "from", "to", "len")) == pairs(long(df))
    categories = df.astype({"from": "category", "to": "category"})
    assert pairs(long(categories)) == pairs(long(df))
    assert pairs(apsp.from_arrow(pa.Table.from_pandas(categories), "from", "to", "len")) == \
        pairs(long(df))


@pytest.mark.parametrize("make", ["pandas", "arrow"])
def test_bad_input_named(make):
    good = {"from": ["a", "b"], "to": ["b", "c"], "len": [1.0, 2.0]}

    def call(columns, **kw):
        if make == "pandas":
            return apsp.from_pandas(pd.DataFrame(columns), "from", "to", "len", **kw)
        return apsp.from_arrow(pa.table(columns), "from", "to", "len", **kw)

    with pytest.raises(ValueError, match="'len'"):
        call({"from": good["from"], "to": good["to"], "weight": good["len"]})
    with pytest.raises(ValueError, match="'to'"):
        call({"from": good["from"], "dest": good["to"], "len": good["len"]})
    with pytest.raises(ValueError, match="weight column 'len'.*NaN|weight column 'len'.*missing"):
        call(dict(good, len=[1.0, np.nan]))
    with pytest.raises(ValueError, match="weight column 'len' is not numeric"):
        call(dict(good, len=["1", "2"]))
    with pytest.raises(ValueError, match="column 'from' has a missing label"):
        call(dict(good, **{"from": ["a", None]}))
    with pytest.raises(ValueError, match="limit"):
        call(good, limit=-1)
    with pytest.raises(ValueError, match="sources: 'q'"):
        call(good, sources=["a", "q"])
