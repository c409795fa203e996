"""Ctrl-C: SIGINT to a process in the middle of a long solve ends it with KeyboardInterrupt,
quickly, on the pthread backend and an OpenCL device; the GIL is released meanwhile."""

import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import DEVICES

import apsp

SCRIPT = """
import sys, time, numpy as np, apsp
n = int(sys.argv[2])
w = np.random.default_rng(1).integers(1, 100, (n, n)).astype(np.int32)
solver = apsp.Solver(device=sys.argv[1], threads=2)
solver.floyd_warshall(w[:200, :200])  # device and kernels ready
print("solving", flush=True)
start = time.monotonic()
try:
    solver.floyd_warshall(w)
except KeyboardInterrupt:
    print("interrupted after %.2f s" % (time.monotonic() - start), flush=True)
    solver.floyd_warshall(w[:300, :300])  # the solver still works
    print("solver fine", flush=True)
    raise
print("finished", flush=True)
"""


@pytest.mark.parametrize("device", DEVICES)
def test_sigint_stops_the_solve(device):
    # Several seconds of work on 2 cores for either device (PoCL's CPU device solves V = 3000
    # in half a second on two idle Zen 4 cores: too short to be sure the signal comes first).
    n = 6000
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, device, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "solving"
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        proc.kill()
    assert "finished" not in out, "the solve ended before the signal: make it longer"
    assert "interrupted" in out and "solver fine" in out, (out, err)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert waited < 5, f"{waited:.1f} s from SIGINT to exit"


def test_gil_released():
    """Another thread runs Python code while a solve is in progress."""
    w = np.random.default_rng(2).integers(1, 100, (1500, 1500)).astype(np.int32)
    solver = apsp.Solver(device="host")
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    thread = threading.Thread(target=tick)
    solver.floyd_warshall(w[:100, :100])
    thread.start()
    start = time.monotonic()
    solver.floyd_warshall(w)
    end = time.monotonic()
    done.set()
    thread.join()
    during = [t for t in ticks if start < t < end]
    assert end - start < 0.05 or len(during) >= 3, (end - start, len(during))
