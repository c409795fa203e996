#!/bin/bash
# Many small graphs on the GPU (issue 42.3's targets: >= 5x the 16-thread batch, >= 20x a
# batched PyTorch k-loop on the same GPU, results identical). From the repository root on a GPU
# machine, with .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"; its wheels/ holds meson-python and
# meson for the build):
#   source .gpu/opencl-env.sh && bash tests/gpu/batch.sh [GRAPHS]
# Installs the package into PYTHON (default /opt/torch/.venv/bin/python3, whose NumPy, SciPy and
# CUDA PyTorch the comparison needs; else python3), then runs tests/bench/batch_graphs.py on
# GRAPHS (default 1,000,000) molecule-sized graphs (5-60 vertices, E = 1.1 V, undirected,
# unweighted), int32 and float32: apsp's device batch (packed; and padded, the form the k-loop
# gives), the 16-thread pthread batch and PyTorch's k-loop on the GPU over the padded
# (B, Vmax, Vmax) batch (graphormer-pyg's), each from host arrays to host arrays, medians of RUNS
# (default 3) after a warm-up; the library's line of where the device's time went; a table last.
# Estimated (not yet run on the GPU): 2-4 minutes at 10^6 graphs with the build, some 60 GB of
# host memory at the peak (the padded arrays: 14.4 GB each); GRAPHS=500000 halves both. THREADS: the pthread batch's threads (16). TORCH_CHUNK: graphs per padded tensor.
set -euo pipefail
graphs=${1:-1000000}
runs=${RUNS:-3}
root=$(pwd)
source "$(dirname "$0")/preamble.sh"
python=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$python" ] || python=python3
log=${BUILD_LOG:-/tmp/apsp-batch-pip.log}
"$python" -m pip install -q --no-index --find-links .gpu/wheels meson-python meson >"$log" 2>&1 ||
    build_failed "$log" 30
"$python" -m pip install -q --no-index --no-build-isolation --no-deps \
    --config-settings=build-dir="${PYBUILD:-/tmp/apsp-pybuild}" . >>"$log" 2>&1 || build_failed "$log" 40
cd /tmp # (the installed package, not the source tree's files)
torch_device=${TORCH_DEVICE:-cuda}
"$python" -c 'import sys, torch
print("torch", torch.__version__, "on", torch.cuda.get_device_name(0)
      if sys.argv[1].startswith("cuda") else sys.argv[1])' "$torch_device"
"$python" "$root/tests/bench/batch_graphs.py" --backend=opencl --device="${DEVICE:-gpu}" \
    --threads="${THREADS:-16}" --graphs "$graphs" --runs "$runs" --dtypes int32,float32 \
    --torch --torch-device "$torch_device" --torch-chunk "${TORCH_CHUNK:-100000}"
