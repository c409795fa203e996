#!/bin/bash
# Whole-number floats through the integer kernels on the GPU (issue 26; docs/design/whole.md,
# "Whole-number floats"): tests/bench/whole_floats.py on a dense V-vertex graph of whole weights
# as an int32 array, as a float64 array (the int32 kernels) and with float_kernels=True (the float
# path), medians of RUNS interleaved calls, then where each call's time went (last_report:
# convert, copy_in, whole, set-up, upload, compute, download, release, copy_out, output, other).
# From the repository root on a GPU machine:
#   bash tests/gpu/whole.sh [V] [RUNS] [DEVICE]       (V = 20000, RUNS = 3, DEVICE = gpu)
# A small V and DEVICE=cpu run it on PoCL. PYTHON: the interpreter with NumPy (default
# /opt/torch/.venv/bin/python3, else python3); BUILD: the build directory (/tmp/build-whole).
# The extension is built for the Python that runs Meson: PYTHON itself when it has Meson, else
# the system's Meson (a venv over the system's Python has its version; the extension's limited
# API serves 3.11 and later once Meson >= 1.3 builds it).
set -euo pipefail
v=${1:-20000}
runs=${2:-3}
device=${3:-gpu}
root=$(pwd)
python=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$python" ] || python=python3
build=${BUILD:-/tmp/build-whole}
log=$(mktemp "${TMPDIR:-/tmp}/apsp-whole-build.XXXXXX")
trap 'rm -f "$log"' EXIT

MESON=(meson)
"$python" -c 'import mesonbuild' 2>/dev/null && MESON=("$python" -m mesonbuild.mesonmain)
source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$log
build_apsp "$root" "$build" -Dpython=enabled -Dmpi=disabled -Dtests=false

# The package as tests/bench/whole_floats.py runs it from a build: src/python/apsp/'s files and
# the extension from the build, side by side in a folder of its own on PYTHONPATH.
package="$build/whole-package/apsp"
mkdir -p "$package"
ln -sf "$root"/src/python/apsp/*.py "$package/"
ln -sf "$(find "$build/src/python" -maxdepth 1 -name '_core*.so' | head -1)" "$package/"
echo "\$ $python tests/bench/whole_floats.py --n $v --runs $runs --device $device"
cd "$build"
PYTHONPATH="$build/whole-package" "$python" "$root/tests/bench/whole_floats.py" --n "$v" \
    --runs "$runs" --device "$device"
