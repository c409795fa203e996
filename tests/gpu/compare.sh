#!/bin/bash
# The kernels of another tree and of this one, timed side by side in one run: for each size,
# ROUNDS rounds of (other tree's bench, this tree's bench), each bench the median of 3 solves;
# the table gives the median over the rounds and the ratio, and whether the outputs' checksums
# agree. For "speed unchanged" claims after a refactor. From the repository root on an NVIDIA
# machine, with .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/compare.sh OTHER_SOURCE_DIR [SIZES...]
# OTHER_SOURCE_DIR: e.g. a `git archive` of the older commit unpacked. Its tests/gpu/bench.c is
# built against its own library.
set -euo pipefail
other=$1
shift
sizes=${*:-20000 40000}
rounds=${ROUNDS:-3}
root=$(pwd)
out=${OUT:-/tmp/apsp-compare}
mkdir -p "$out"
source "$(dirname "$0")/preamble.sh"

# (each tree's bench.c against its own library)
build_apsp "$other" /tmp/build-other
build_bench "$other" /tmp/build-other /tmp/bench-other
build_apsp "$root" /tmp/build-this
build_bench "$root" /tmp/build-this /tmp/bench-this
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"

: >"$out/runs.txt"
for V in $sizes; do
    for r in $(seq "$rounds"); do
        for which in other this; do
            line=$(/tmp/bench-$which "$V" $((V * 20)) 1 3 0 | grep '^BENCH')
            echo "$which $line" | tee -a "$out/runs.txt"
        done
    done
done

echo
printf '%-6s %-12s %-12s %-8s %-10s %s\n' V other_s this_s ratio this_T/s checksums
for V in $sizes; do
    med() { grep "^$1 BENCH V=$V " "$out/runs.txt" | sed -n 's/.*compute_median=\([0-9.]*\).*/\1/p' |
        sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    o=$(med other) t=$(med this)
    sums=$(grep " BENCH V=$V " "$out/runs.txt" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' | sort -u | wc -l)
    awk -v v="$V" -v o="$o" -v t="$t" -v s="$([ "$sums" = 1 ] && echo identical || echo DIFFER)" \
        'BEGIN { printf "%-6s %-12.4f %-12.4f %-8.3f %-10.2f %s\n", v, o, t, t / o, v*v*v/t/1e12, s }'
done
