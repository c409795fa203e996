#!/bin/bash
# The README's full test command on a GPU machine, as a user with a GPU workstation runs it:
# every suite that CI runs (`meson test --setup=full`), with the GPU and PoCL's CPU device both
# present and all of the machine's cores. Run from the repository root after the OpenCL loader
# is set up (on the lent NVIDIA machines: `source .gpu/opencl-env.sh` first):
#   bash tests/gpu/suite.sh [BUILD_DIR [MESON_TEST_ARGS...]]     (default build-gpu-suite)
# MESON_TEST_ARGS (`--suite opencl`, `--no-suite opencl`) split the suite over two calls of the
# lent machine's 10 minutes; with none it is the README's command exactly.
# Prints the machine, the devices apsp sees, meson's summary and the failures' logs; the whole
# test log is left in BUILD_DIR/meson-logs/testlog.txt (and copied to $OUT when that is set).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu-suite}
shift || true

echo "suite.sh: $(nproc) cores; $(nvidia-smi -L 2>/dev/null | head -4 | tr '\n' ' ')"
source tests/gpu/preamble.sh
BUILD_LOG=$build.build.log
build_apsp . "$build"
"$build/src/apsp" --list-devices

start=$(date +%s)
meson test -C "$build" --setup=full --print-errorlogs "$@" >"$build.test.log" 2>&1
status=$?
[ -n "${OUT:-}" ] && cp "$build"/meson-logs/testlog*.txt "$OUT/" # testlog-full.txt: the setup's
grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$build.test.log"
echo "suite.sh: meson test exit $status after $(($(date +%s) - start)) s"
sed -n '/^Ok:/,$p' "$build.test.log"
exit $status
