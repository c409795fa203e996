#!/bin/bash
# The binary wheel on a GPU machine that reaches no package index (issue 29; docs/wheel.md):
# installs the wheel made by tools/build-wheel.sh (carried) into a fresh venv over a Python that
# has NumPy and SciPy, shows what the bundled OpenCL loader finds, checks a small solve on the
# device, and times a float32 solve through the Python call.
#   bash tests/gpu/wheel.sh WHEEL [V] [DEVICE]       (V = 20000, DEVICE = gpu)
# Run from the repository root. PYTHON: the interpreter (default /opt/torch/.venv/bin/python3,
# else python3); WHOLE_V: see the end; REPS: timed
# calls (3). Prints the commands' output, then a table: the median of REPS calls of
# apsp.Solver(device=DEVICE).floyd_warshall on a dense random float32 graph (E = 20 V, weights
# uniform in (0, 1000]), after one untimed call that opens the device, and V^3 / seconds. A
# small V and DEVICE=cpu run it on PoCL.
#
# NVIDIA's driver package registers its OpenCL library in /etc/OpenCL/vendors; a driver mounted
# into a container may not be registered (the GPU machine of 2026-11-25 had libnvidia-opencl.so.1
# and only PoCL's .icd). Then this script names the library in a vendors folder of its own
# beside the registered ones (OCL_ICD_VENDORS, which the bundled loader reads) and says so: the
# wheel cannot find a driver that nothing registered.
set -euo pipefail
root=$(pwd)
wheel=$(realpath "${1:?usage: tests/gpu/wheel.sh WHEEL [V] [DEVICE]}")
v=${2:-20000}
device=${3:-gpu}
python=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$python" ] || python=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/apsp-gpu-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel"
# --system-site-packages reaches the base interpreter's packages, not those of a venv that
# PYTHON may be (/opt/torch/.venv is one): a .pth file adds PYTHON's own, after the venv's
# (written after the install, so that pip does not take an apsp of PYTHON's for this one).
site_packages='import sysconfig; print(sysconfig.get_path("purelib")); print(sysconfig.get_path("platlib"))'
venv_site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$python" -c "$site_packages" >"$venv_site/python-packages.pth"
registered="/etc/OpenCL/vendors"
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    library=$(find /usr/lib /usr/lib64 /usr/local/nvidia -name 'libnvidia-opencl.so.1' \
        2>/dev/null | head -1 || true)
    if [ -n "$library" ]; then
        mkdir "$work/vendors"
        cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null || true
        echo "$library" >"$work/vendors/nvidia.icd"
        export OCL_ICD_VENDORS="$work/vendors"
        registered="NVIDIA's not in /etc/OpenCL/vendors: OCL_ICD_VENDORS adds $library"
    fi
fi
cd "$work"
export PATH="$work/venv/bin:$PATH"
for command in "apsp --version" "apsp --list-devices"; do
    echo "\$ $command"
    $command
done
echo "\$ python -c 'import apsp; print(apsp.devices())'"
python -c 'import apsp; print(apsp.devices())'

python - "$v" "$device" "${REPS:-3}" "$(basename "$wheel")" "$registered" <<'PY'
import statistics, sys, time
import numpy as np
import scipy.sparse.csgraph as cs
import apsp

v, device, reps, wheel, registered = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), *sys.argv[4:]
rng = np.random.default_rng(1)


def graph(n):
    g = np.zeros((n, n), dtype=np.float32)
    e = 20 * n
    g[rng.integers(0, n, e), rng.integers(0, n, e)] = rng.uniform(1e-3, 1000, e).astype(np.float32)
    return g


def loaded_opencl():
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libOpenCL" in line}
    return ", ".join(sorted(paths)) or "none"


# Correctness on the device first: SciPy's distances (float32: within 1e-5), and the bits of the
# pthread backend at the same round depth (128), as tests/gpu/python.sh checks.
small = graph(1000)
on_device = apsp.Solver(device=device, tile=128).floyd_warshall(small)
on_host = apsp.Solver(backend="cpu").floyd_warshall(small)
assert np.allclose(on_device, cs.floyd_warshall(small), rtol=1e-5), "differs from SciPy"
assert np.array_equal(on_device.view(np.uint32), on_host.view(np.uint32)), "differs from host"

solver = apsp.Solver(device=device)
g = graph(v)
solver.floyd_warshall(graph(512))  # opens the device, builds the program
seconds = []
for _ in range(reps):
    start = time.perf_counter()
    solver.floyd_warshall(g)
    seconds.append(time.perf_counter() - start)
median = statistics.median(seconds)
r = solver.last_report
rows = [
    ("wheel", wheel),
    ("python", sys.version.split()[0] + ", numpy " + np.__version__),
    ("OpenCL drivers registered", registered),
    ("OpenCL loader in the process", loaded_opencl()),
    ("device", "%s (%s backend)" % (r["device"], r["backend"])),
    ("V = 1000 float32 on it", "SciPy's distances; the pthread backend's bits"),
    ("V", "%d float32, E = 20 V" % v),
    ("calls (s)", " ".join("%.3f" % s for s in seconds)),
    ("median (s)", "%.3f" % median),
    ("relax/s (V^3 / median)", "%.3g" % (v**3 / median)),
    ("last call: compute (s)", "%.3f" % r["compute_seconds"]),
]
width = max(len(name) for name, _ in rows)
print()
for name, value in rows:
    print("| %-*s | %s |" % (width, name, value))
PY

# WHOLE_V=N: also whole-number floats from Python through the same wheel (issue 26): an int32
# array, a float64 array of the same whole weights (the int32 kernels) and the float64 kernels
# (float_kernels=True) at V = N, interleaved, medians of 3 (tests/bench/whole_floats.py).
if [ -n "${WHOLE_V:-}" ]; then
    echo
    python "$root/tests/bench/whole_floats.py" --n "$WHOLE_V" --runs 3 --device "$device"
fi
