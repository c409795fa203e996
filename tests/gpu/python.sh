#!/bin/bash
# The Python package on the GPU (issue 16's target: V = 20000 float32 at >= 5 T relax/s through
# the Python call). From the repository root on a GPU machine, with .gpu/ carried
# (tests/gpu/NOTES.md, ".gpu/"; its wheels/ holds meson-python and its dependencies, fetched here
# with `pip download --no-deps meson-python pyproject-metadata packaging meson`: the GPU machine
# reaches no package index):
#   source .gpu/opencl-env.sh && bash tests/gpu/python.sh [V]
# Installs the package into the machine's Python (it needs NumPy there), then times
# apsp.Solver(device="gpu").floyd_warshall on a dense random float32 graph (E = 20 V, weights
# uniform in (0, 1000], SciPy's dense meaning: 0 is no edge): the median of REPS calls after one
# untimed call, V^3 / seconds, and the last call's split (Solver.last_report's parts); and checks
# a V = 2000 float32 solve on the GPU bit-identical to the pthread backend's at the same round
# depth (128).
set -euo pipefail
v=${1:-20000}
reps=${REPS:-3}
python=${PYTHON:-python3}
"$python" -m pip install -q --no-index --find-links .gpu/wheels meson-python meson >/dev/null
"$python" -m pip install -q --no-index --no-build-isolation --no-deps \
    --config-settings=build-dir=/tmp/apsp-pybuild . >/tmp/apsp-pip.log 2>&1 ||
    { tail -30 /tmp/apsp-pip.log; exit 1; }
cd /tmp
"$python" - "$v" "$reps" <<'PY'
import statistics, sys, time
import numpy as np
import apsp

v, reps = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(1)

def graph(n, dtype):
    g = np.zeros((n, n), dtype=dtype)
    e = 20 * n
    g[rng.integers(0, n, e), rng.integers(0, n, e)] = rng.uniform(1e-3, 1000, e).astype(dtype)
    return g

small = graph(2000, np.float32)
gpu_small = apsp.Solver(device="gpu", tile=128).floyd_warshall(small)
cpu_small = apsp.Solver(backend="cpu").floyd_warshall(small)
print("V=2000 float32: GPU (tile 128) and pthread results bit-identical:",
      np.array_equal(gpu_small.view(np.uint32), cpu_small.view(np.uint32)))

solver = apsp.Solver(device="gpu")
g = graph(v, np.float32)
solver.floyd_warshall(graph(512, np.float32))  # opens the device, builds the program
seconds = []
for _ in range(reps):
    start = time.perf_counter()
    d = solver.floyd_warshall(g)
    seconds.append(time.perf_counter() - start)
median = statistics.median(seconds)
print("PYTHON V=%d float32 device=%s calls=%s median=%.3f s T_relax_per_s=%.2f"
      % (v, [x["name"] for x in apsp.devices() if x.get("type") == "gpu"][:1],
         " ".join("%.3f" % s for s in seconds), median, v ** 3 / median / 1e12))
# Where the last call's time went: the package's NumPy work (convert, output; 0 on the dense fast
# path), the copies into and out of the padded matrix on the host's cores, and the library's
# setup, upload, compute and download.
r = solver.last_report
parts = ["convert", "copy_in", "setup", "upload", "compute", "download", "copy_out", "output"]
print("PYTHON_SPLIT V=%d last call %.3f s: %s" % (v, seconds[-1], " ".join(
    "%s=%.3f" % (p, r.get(p + "_seconds", float("nan"))) for p in parts)))
PY
