#!/bin/sh
# The pthread backend's rate per element type beside SciPy's floyd_warshall, in one run
# (issue 16's target: V = 3000 dense float64 >= 25x SciPy on this 2-core machine):
#
#   tests/bench/dtypes.sh [BUILD_DIR] [V] [THREADS] [REPS]    (defaults build, 3000, 2, 3)
#
# bench-dtypes prints median compute seconds and G relax/s per type; SciPy (Debian's, through
# /usr/bin/python3) is timed once on a dense random float64 graph of the same V, and the ratio
# of the float64 rate to SciPy's is printed last. No thresholds.
set -eu
build=${1:-build}
v=${2:-3000}
threads=${3:-2}
reps=${4:-3}
out=$("$build/tests/bench/bench-dtypes" "$v" "$threads" "$reps")
printf '%s\n' "$out"
scipy=$(/usr/bin/python3 - "$v" <<'PY'
import sys, time
import numpy as np
from scipy.sparse.csgraph import floyd_warshall
v = int(sys.argv[1])
g = np.random.default_rng(2024).integers(1, 1001, size=(v, v)).astype(np.float64)
np.fill_diagonal(g, 0)
t0 = time.perf_counter()
floyd_warshall(g, directed=True)
print(time.perf_counter() - t0)
PY
)
f64=$(printf '%s\n' "$out" | awk '$1 == "float64" { print $(NF - 1) }')
awk -v v="$v" -v s="$scipy" -v r="$f64" 'BEGIN {
    rate = v * v * v / s / 1e9
    printf "scipy    %6d %7d %-26s %9.3f %9s %11.2f\n", v, 1, "floyd_warshall", s, "", rate
    printf "float64 over SciPy: %.1fx\n", r / rate }'
