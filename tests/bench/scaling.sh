#!/bin/bash
# Thread scaling of the pthread backend beside the course CPU scheme, the SIMD ceiling and PoCL,
# on one generated graph: medians of REPS runs of each thread count.
#   bash tests/bench/scaling.sh [BUILD_DIR] [V] [THREADS...]   (defaults: build 6000 1 2 4 8 16)
# Prints a markdown table: threads, compute seconds, G relax/s (V^3), speed-up over one thread,
# share of the ceiling probe at the same thread count.
set -euo pipefail
build=${1:-build}
V=${2:-6000}
shift 2 || true
threads=${*:-1 2 4 8 16}
reps=${REPS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tests/gen-graph" random "$V" $((V * 20)) 1 "$work/g.in"

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
compute_s() { grep -o 'compute [0-9.]*' | awk '{print $2}'; }
rate() { awk -v v="$V" -v s="$1" 'BEGIN {printf "%.1f", v * v * v / s / 1e9}'; }

echo "| program | threads | compute s (median of $reps) | G relax/s | speed-up | % of ceiling |"
echo "|---|---|---|---|---|---|"
one=""
for t in $threads; do
    s=$(for r in $(seq "$reps"); do
        "$build/src/apsp" --backend=cpu --threads="$t" -v "$work/g.in" "$work/out" 2>&1 | compute_s
    done | median)
    [ -n "$one" ] || one=$s
    ceil=$("$build/tests/bench/ceiling" "$t" auto | grep -o '[0-9.]* G relax/s' | head -1 | awk '{print $1}')
    g=$(rate "$s")
    echo "| apsp cpu | $t | $s | $g | $(awk -v a="$one" -v b="$s" 'BEGIN {printf "%.2f", a / b}') | $(awk -v g="$g" -v c="$ceil" 'BEGIN {printf "%.0f", 100 * g / c}') (ceiling $ceil) |"
done
last=${threads##* }
cmp_out() { cmp -s "$work/out" "$work/ref" && echo same || echo DIFFERENT; }
cp "$work/out" "$work/ref"
s=$("$build/tests/bench/course_cpu" "$last" "$work/g.in" "$work/out" | compute_s)
echo "| course CPU scheme | $last | $s | $(rate "$s") | | output $(cmp_out) |"
if "$build/src/apsp" --backend=opencl --device=cpu -q "$work/g.in" "$work/out" 2>/dev/null; then
    s=$(for r in $(seq "$reps"); do
        "$build/src/apsp" --backend=opencl --device=cpu -v "$work/g.in" "$work/out" 2>&1 | compute_s
    done | median)
    echo "| apsp on PoCL | all | $s | $(rate "$s") | | output $(cmp_out) |"
fi
