#!/bin/bash
# Thread scaling of the pthread backend with the host's own scaling beside it (issue 26), for a
# noisy host: ROUNDS rounds, each timing one solve per type on 1 thread and on THREADS threads
# and the ceiling probe (pure add-min in registers, no memory) on 1 and on THREADS threads, in
# that order, so that a neighbour's load falls on both counts alike. The efficiency is the rate
# at THREADS over THREADS x the rate at 1 thread of the same round; the probe's efficiency is
# what the cores give to any code, so apsp's own loss is the ratio of the two. From the
# repository root, with a build:
#   bash tests/bench/interleaved_scaling.sh [BUILD_DIR] [V] [THREADS] [ROUNDS] [TYPES]
#   (defaults: build 8000 every-core 3 "int32 float32")
set -euo pipefail
build=${1:-build}
v=${2:-8000}
threads=${3:-$(nproc)}
rounds=${4:-3}
types=${5:-"int32 float32"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tests/gen-graph" random "$v" $((v * 20)) 1 "$work/g.in"
: >"$work/results"
for r in $(seq "$rounds"); do
    for dtype in $types; do
        for t in 1 "$threads"; do
            "$build/src/apsp" --backend=cpu --threads="$t" --dtype="$dtype" --float-kernels -v \
                -q "$work/g.in" "$work/out.npy" 2>"$work/log"
            s=$(grep -o 'compute [0-9.]*' "$work/log" | awk '{print $2}')
            g=$("$build/tests/bench/ceiling" "$t" auto 50000000 "$dtype" |
                grep -o '[0-9.]* G relax/s' | awk '{print $1}')
            echo "$r $dtype $t $s $g" >>"$work/results"
        done
    done
done
python3 - "$work/results" "$v" "$threads" <<'PY'
import statistics as st
import sys

path, v, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {}
for r, dtype, t, s, g in (line.split() for line in open(path)):
    runs.setdefault((dtype, int(r)), {})[int(t)] = (v ** 3 / float(s) / 1e9, float(g))
print("V = %d; G relax/s = V^3 / compute s; efficiency = rate(%d) / (%d x rate(1)) per round"
      % (v, threads, threads))
print("| type | round | 1 thread | %d threads | efficiency | probe 1 | probe %d | probe efficiency"
      " | apsp / probe |" % (threads, threads))
print("|---|---|---|---|---|---|---|---|---|")
summary = {}
for (dtype, r), by in sorted(runs.items()):
    (a1, p1), (an, pn) = by[1], by[threads]
    e, pe = an / (threads * a1), pn / (threads * p1)
    summary.setdefault(dtype, []).append((e, pe))
    print("| %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f |" % (
        dtype, r, a1, an, e, p1, pn, pe, e / pe))
for dtype, es in summary.items():
    print("%s: median efficiency %.2f, the probe's %.2f" % (
        dtype, st.median(e for e, _ in es), st.median(pe for _, pe in es)))
PY
