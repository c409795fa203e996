#!/bin/bash
# The kernels' negative form on the GPU (docs/performance.md, "Negative weights"): the same
# graph solved as it is and with one edge made negative (which switches the build to
# -DNEGATIVE=1), medians of REPS runs, then a negative-weight result compared with the pthread
# backend's. From the repository root on a GPU machine, with .gpu/ carried
# (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/negative.sh [V]
# V: default 20000 (E = 20 V, the anchors' graph). DEVICE: the -d SPEC, default gpu.
# REPS: runs per row, default 3. CHECK_V: the size compared with --backend=cpu, default 2000.
set -uo pipefail
v=${1:-20000}
reps=${REPS:-3}
device=${DEVICE:-gpu}
check_v=${CHECK_V:-2000}
out=${OUT:-/tmp/apsp-negative}
work=/dev/shm/apsp-negative
build=${BUILD:-/tmp/build-negative}
root=$(pwd)
mkdir -p "$out" "$work"

source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log
build_for_anchors "$build"
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"

# negate IN OUT: the same hw3 graph with its first edge that is no self-loop weighing -1.
negate() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = 8
while struct.unpack_from("<2i", b, at)[0] == struct.unpack_from("<2i", b, at)[1]:
    at += 12
s, d, _ = struct.unpack_from("<3i", b, at)
struct.pack_into("<3i", b, at, s, d, -1)
open(sys.argv[2], "wb").write(b)
EOF
}

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | tail -1; }

# time NAME GRAPH: the median compute seconds of REPS runs (a warm-up run builds the program).
time_runs() {
    local name=$1 g=$2 i
    $apsp -d "$device" "$g" /dev/null 2>"$out/$name-warmup.log" || { cat "$out/$name-warmup.log"; return 1; }
    : >"$out/$name.times"
    for i in $(seq "$reps"); do
        $apsp -d "$device" --stats-json "$g" /dev/null 2>"$out/$name-$i.log" ||
            { cat "$out/$name-$i.log" >&2; return 1; }
        field compute_s "$out/$name-$i.log" >>"$out/$name.times"
    done
    median <"$out/$name.times"
}

plain=$work/g$v.in negative=$work/n$v.in
[ -f "$plain" ] || /tmp/anchor_graph "$v" $((v * 20)) 1 "$plain"
negate "$plain" "$negative"
t_plain=$(time_runs plain "$plain") || exit 1
t_negative=$(time_runs negative "$negative") || exit 1
awk -v v="$v" -v p="$t_plain" -v n="$t_negative" 'BEGIN {
    printf "V=%d compute (median of %s): add-min %.3f s, negative form %.3f s, ratio %.3f\n",
        v, ENVIRON["REPS"] ? ENVIRON["REPS"] : 3, p, n, n / p }' | tee "$out/summary.txt"

small=$work/n$check_v.in
/tmp/anchor_graph "$check_v" $((check_v * 20)) 2 "$work/g$check_v.in" && negate "$work/g$check_v.in" "$small"
$apsp -d "$device" "$small" "$work/gpu.out" && $apsp --backend=cpu "$small" "$work/cpu.out" &&
    cmp "$work/gpu.out" "$work/cpu.out" &&
    echo "CHECK V=$check_v negative weights: -d $device equals --backend=cpu" | tee -a "$out/summary.txt" ||
    { echo "CHECK V=$check_v negative weights: FAILED" | tee -a "$out/summary.txt"; exit 1; }
