#!/bin/bash
# The source distribution (docs/wheel.md): `tools/build-wheel.sh --sdist` makes it from the
# committed tree; pip builds a wheel of it twice, with OpenCL as found (here: present) and with
# -Dopencl=disabled, as on a machine without the OpenCL headers and loader. The first's command
# and extension link the ICD loader and the second's do not; the second, installed into a venv
# (the system's numpy and scipy), lists only the host device even where an OpenCL platform is
# registered, and solves as SciPy does.
#   tests/python/sdist.sh SOURCE_ROOT
set -euo pipefail
src=$(cd "${1:?usage: sdist.sh SOURCE_ROOT}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/apsp-sdist-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash "$src/tools/build-wheel.sh" --sdist "$work/sdist"
sdist=("$work"/sdist/apsp-*.tar.gz)
# The build tools of build-wheel.sh's venv, meson and ninja included, without build isolation.
export PATH="$src/.venv-wheel/bin:$PATH"
build() { # OUTDIR [PIP_ARGS...]
    local dir=$1
    shift
    python -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
        --wheel-dir "$dir" "$@" "${sdist[0]}"
    python -m zipfile -e "$dir"/apsp-*.whl "$dir/files"
}
links_opencl() { # DIR: whether the command and the extension both need libOpenCL.so.1
    local file count=0
    for file in "$1"/files/apsp-*.data/scripts/apsp "$1"/files/apsp/_core*.so; do
        [[ $(readelf -d "$file") == *"(NEEDED)"*"[libOpenCL"* ]] && count=$((count + 1))
    done
    echo "$count"
}
build "$work/present"
build "$work/absent" -Csetup-args=-Dopencl=disabled
[ "$(links_opencl "$work/present")" = 2 ] && [ "$(links_opencl "$work/absent")" = 0 ] || {
    echo "sdist.sh: the OpenCL build should link libOpenCL.so.1 and the other not" >&2
    exit 1
}
echo "sdist.sh: $(basename "${sdist[0]}") builds with OpenCL and without"

python=python3
if /usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null; then
    python=/usr/bin/python3
fi
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps \
    "$work"/absent/apsp-*.whl
"$work/venv/bin/apsp" --list-devices >"$work/devices.txt"
grep -q '(cpu backend)$' "$work/devices.txt" && ! grep -q '(opencl backend)$' "$work/devices.txt"
cd "$work"
"$work/venv/bin/python" -c '
import apsp, numpy as np, scipy.sparse.csgraph as cs
assert [d["backend"] for d in apsp.devices()] == ["cpu"], apsp.devices()
w = np.random.default_rng(2).integers(0, 9, (200, 200)).astype(np.float64)
assert np.array_equal(apsp.floyd_warshall(w), cs.floyd_warshall(w))
print("sdist.sh: without OpenCL: the host device only, distances as SciPy")'
