#!/bin/bash
# End to end against the kernels (docs/performance.md, "End to end"): for each case, the whole
# run's wall time beside the compute it reports (--stats-json compute_s), the host's
# whole-number decision (whole_s) and the output's preparation hidden behind the rounds
# (overlapped_s: "-" for a tree without it), for another tree and this one, ROUNDS rounds
# interleaved, the medians printed last with whole/compute and whether the outputs are
# byte-identical. From the
# repository root on an NVIDIA machine, with .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/e2e.sh OTHER_SOURCE_DIR
# OTHER_SOURCE_DIR: e.g. a `git archive` of the older commit unpacked. V (20000), ROUNDS (3) and
# WORK (/dev/shm/apsp-e2e, where graphs and outputs go) and DEVICE (gpu: -d's SPEC) may be set.
# The cases, an edge list of 20 V random arcs (fixed seed) into a .npy (and one hw3 .out):
#   int32        whole weights 0-1000, --dtype=int32: the reference (.npy and hw3)
#   float64      the same file, --dtype=float64 (whole weights: the int32 kernels)
#   float32      the same file, --dtype=float32
#   float32-frac weights with two decimals, --dtype=float32 (the float kernels)
#   int64        the whole file, --dtype=int64 (the int64 kernels)
#   float64-frac the fractional file, --dtype=float64 (the float64 kernels)
# (int64 and the float kernels' cases: the matrix made on the device from the edges since
# issue 37.2's typed graph path; on the host, uploaded whole, before it.)
# No thresholds: it prints the figures.
set -euo pipefail
other=$1
root=$(pwd)
V=${V:-20000}
rounds=${ROUNDS:-3}
work=${WORK:-/dev/shm/apsp-e2e}
device=${DEVICE:-gpu}
out=${OUT:-/tmp/apsp-e2e}
mkdir -p "$work" "$out"

source "$(dirname "$0")/preamble.sh"
NINJA_TARGETS=src/apsp
build_apsp "$other" /tmp/e2e-other -Dpython=disabled -Dtests=false
build_apsp "$root" /tmp/e2e-this -Dpython=disabled -Dtests=false
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt" || true

python3 - "$V" "$work" <<'PY'
import random, sys
v, work = int(sys.argv[1]), sys.argv[2]
for name, frac in (("whole", False), ("frac", True)):
    rng = random.Random(7)
    with open("%s/%s.txt" % (work, name), "w") as f:
        for _ in range(20 * v):
            a, b = rng.randrange(v), rng.randrange(v)
            w = rng.randint(1, 100000) / 100 if frac else rng.randint(0, 1000)
            f.write("%d %d %s\n" % (a, b, w))
PY

# CASES (DTYPE:GRAPH:EXT ...) may name fewer: int64 and float64's kernels take 5-10x int32's time.
all="int32:whole:npy int32:whole:out float64:whole:npy float32:whole:npy float32:frac:npy"
cases=${CASES:-$all int64:whole:npy float64:frac:npy}
: >"$out/runs.txt"
for r in $(seq "$rounds"); do
    for c in $cases; do
        dtype=${c%%:*} rest=${c#*:}
        graph=${rest%%:*} ext=${rest#*:}
        for which in other this; do
            start=$(date +%s%N)
            json=$(/tmp/e2e-$which/src/apsp -d "$device" --dtype="$dtype" --stats-json \
                "$work/$graph.txt" "$work/$which-$dtype-$graph.$ext" 2>&1 | tail -1)
            wall=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.4f", ns / 1e9 }')
            echo "$which $dtype-$graph.$ext wall=$wall $json" | tee -a "$out/runs.txt" | cut -c1-160
        done
    done
done

med() { # WHICH CASE FIELD
    grep "^$1 $2 " "$out/runs.txt" | sed -n "s/.*\"$3\": *\([0-9.e-]*\).*/\1/p; s/.* $3=\([0-9.]*\) .*/\1/p" |
        sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
echo
printf '%-18s %-6s %-9s %-10s %-9s %-10s %-12s %-12s %s\n' case tree wall_s compute_s wall/comp whole_s whole/comp overlapped_s output
for c in $cases; do
    dtype=${c%%:*} rest=${c#*:}
    graph=${rest%%:*} ext=${rest#*:}
    name=$dtype-$graph.$ext
    same=$(cmp -s "$work/other-$name" "$work/this-$name" && echo identical || echo DIFFER)
    for which in other this; do
        w=$(med "$which" "$name" wall) k=$(med "$which" "$name" compute_s)
        h=$(med "$which" "$name" whole_s) o=$(med "$which" "$name" overlapped_s)
        awk -v c="$name" -v t="$which" -v w="$w" -v k="$k" -v h="$h" -v o="${o:--}" -v s="$same" \
            'BEGIN { printf "%-18s %-6s %-9.3f %-10.3f %-9.2f %-10.4f %-12.2f %-12s %s\n", c, t, w, k, w / k, h, 100 * h / k, o, s }'
    done
done
echo "(whole/comp in %; wall_s includes reading the edge list and writing the output to $work)"
