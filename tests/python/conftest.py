"""Shared fixtures of the Python package's tests (tests/python/run.sh runs them against the
installed package, from outside the source tree).

`device` runs a test on apsp's pthread backend ("host") and on an OpenCL CPU device ("cpu",
PoCL) when there is one."""

import numpy as np
import pytest

import apsp

DEVICES = ["host"] + (["cpu"] if any(d["type"] == "cpu" for d in apsp.devices()) else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def random_weights(rng, n, density, low, high, dtype):
    """A dense n x n matrix of weights in [low, high) of the type, 0 (no edge) elsewhere."""
    if np.dtype(dtype).kind == "f":
        w = rng.uniform(low, high, (n, n))
    else:
        w = rng.integers(low, high, (n, n))
    w[rng.random((n, n)) >= density] = 0
    return w.astype(dtype)


def potentials(rng, w, spread):
    """Edge weights made negative in places by vertex potentials, w(i,j) + p(i) - p(j): no
    negative cycle (an edge that lands on 0 is no edge in dense input, for SciPy too)."""
    p = rng.integers(0, spread, w.shape[0]).astype(w.dtype)
    return np.where(w != 0, w + p[:, None] - p[None, :], 0).astype(w.dtype)
