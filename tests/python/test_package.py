"""The installed package: where it comes from, devices(), Solver, errors."""

import os

import numpy as np
import pytest

import apsp


def test_installed_not_source():
    here = os.path.realpath(os.environ.get("APSP_SOURCE_ROOT", "/nonexistent"))
    assert not os.path.realpath(apsp.__file__).startswith(here + os.sep)
    assert "site-packages" in apsp.__file__


def test_devices():
    listed = apsp.devices()
    host = [d for d in listed if d["type"] == "host"]
    assert len(host) == 1 and host[0]["backend"] == "cpu"
    assert [d["index"] for d in listed] == list(range(len(listed)))


def test_solver_keeps_its_device(device):
    solver = apsp.Solver(device=device)
    w = np.random.default_rng(4).integers(0, 9, (100, 100))
    first = solver.floyd_warshall(w)
    assert np.array_equal(solver.floyd_warshall(w), first)
    assert solver.last_report["program_builds"] == 0
    assert solver.last_report["backend"] == ("cpu" if device == "host" else "opencl")
    assert solver.floyd_warshall(np.zeros((0, 0))).shape == (0, 0)


def test_errors():
    with pytest.raises(apsp.DeviceError):
        apsp.Solver(device="no device is called this")
    with pytest.raises(ValueError):
        apsp.Solver(backend="quantum")
    with pytest.raises(ValueError, match="square"):
        apsp.floyd_warshall(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="dtype"):
        apsp.floyd_warshall(np.zeros((2, 2)), dtype=np.int8)
    with pytest.raises(ValueError):  # int32 distances would pass 2^30
        apsp.floyd_warshall(np.array([[0, 2**29], [2**29, 0]]) * 3, dtype=np.int32)


def test_close_and_release(device):
    w = np.random.default_rng(5).integers(0, 9, (150, 150)).astype(float)
    want = apsp.Solver(device="host").floyd_warshall(w)
    with apsp.Solver(device=device) as solver:
        assert np.array_equal(solver.floyd_warshall(w), want)
    with pytest.raises(apsp.Error, match="closed"):
        solver.floyd_warshall(w)
    with pytest.raises(apsp.Error, match="closed"):
        solver.solve_matrix(np.zeros((2, 2)))
    solver.close()  # twice: harmless
    # The module's kept solver goes, and the next call makes another with the same answer.
    assert np.array_equal(apsp.floyd_warshall(w, device=device), want)
    kept = apsp._solve.default_solver(device)
    apsp.release()
    with pytest.raises(apsp.Error, match="closed"):
        kept.floyd_warshall(w)
    assert apsp._solve.default_solver(device) is not kept
    assert np.array_equal(apsp.floyd_warshall(w, device=device), want)
