#!/bin/bash
# The element types on the GPU (issues 15 and 16): tests/gpu/bench at V for int32, int64, float32
# and float64 on the same graph (the anchors' random graph, E = 20 V, integral weights 0-1000, so
# every type's result converts to the same int32 checksum), medians of REPS solves, in one run.
# From the repository root on a GPU machine, with .gpu/ carried
# (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/dtypes.sh [V]
# V: default 20000. REPS: default 3. APSP_DEVICE selects the device (default: the first GPU).
set -euo pipefail
v=${1:-20000}
reps=${REPS:-3}
root=$(pwd)
build=${BUILD:-/tmp/build-gpu}
out=${OUT:-/tmp/apsp-dtypes}
mkdir -p "$out"
source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log
build_apsp "$root" "$build" -Dmpi=disabled
build_bench "$root" "$build" "$build/bench"
export APSP_DEVICE=${APSP_DEVICE:-gpu}
for dtype in int32 int64 float32 float64; do
    "$build/bench" "$v" $((v * 20)) 1 "$reps" 0 "$dtype" >"$out/$dtype.log" 2>&1 ||
        { cat "$out/$dtype.log"; exit 1; }
    grep '^BENCH' "$out/$dtype.log"
done
