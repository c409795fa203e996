#!/bin/bash
# End to end (docs/performance.md): the apsp command from an edge list to the output file, step
# by step, beside the write floor of this machine measured in the same run.
#
#   bash tests/bench/end_to_end.sh BUILD DIR "SIZES" [APSP OPTIONS...]
#
# BUILD is a build directory (apsp, tests/gen-graph, tests/bench/write_floor); DIR holds the
# files (/dev/shm for the file system's best case); each V of SIZES gets a random graph with
# E = 20 V. Per V: one run with an empty kernel cache, then RUNS (default 3) warm runs, whose
# medians the table shows; the write floor of 4 V^2 bytes in DIR (tests/bench/write_floor.c);
# the peak resident memory of the last run as a share of the 4 V^2-byte matrix. No thresholds.
set -euo pipefail
build=$1 dir=$2 sizes=$3
shift 3
runs=${RUNS:-3}
apsp=$build/src/apsp
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
table=$(mktemp)
printf '| V | read | setup (cold) | setup | upload | compute | download | release | write | close | other | total | wall | write floor | total - compute - floor | peak RSS / 4V^2 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n' >"$table"

# The median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# FIELD of the JSON lines in FILE, median.
field() { grep -o "\"$1\":[0-9.e+-]*" "$2" | cut -d: -f2 | median; }

for V in $sizes; do
    graph=$dir/e2e-$V.in out=$dir/e2e-$V.out stats=$(mktemp)
    [ -f "$graph" ] || "$build/tests/gen-graph" random "$V" $((20 * V)) 1 "$graph"
    rm -rf "${cache:?}"/*
    "$apsp" --kernel-cache="$cache" --stats-json "$@" "$graph" "$out" 2>"$stats.cold"
    for _ in $(seq "$runs"); do
        /usr/bin/time -f 'rss_kib %M wall %e' "$apsp" --kernel-cache="$cache" --stats-json "$@" \
            "$graph" "$out" 2>>"$stats"
    done
    rm -f "$out"
    floor=$("$build/tests/bench/write_floor" "$dir" $((4 * V * V)) "${FLOOR_RUNS:-3}" | tee /dev/stderr |
        awk '/^floor/ {print $2}')
    rss=$(grep '^rss_kib' "$stats" | tail -1 | cut -d' ' -f2)
    wall=$(grep '^rss_kib' "$stats" | cut -d' ' -f4 | median)
    awk -v V="$V" -v floor="$floor" -v rss="$rss" \
        -v read="$(field read_s "$stats")" -v cold="$(field setup_s "$stats.cold")" \
        -v setup="$(field setup_s "$stats")" -v up="$(field upload_s "$stats")" \
        -v comp="$(field compute_s "$stats")" -v down="$(field download_s "$stats")" \
        -v write="$(field write_s "$stats")" -v total="$(field total_s "$stats")" \
        -v release="$(field release_s "$stats")" -v closing="$(field close_s "$stats")" \
        -v other="$(field other_s "$stats")" -v wall="$wall" \
        'BEGIN {printf "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f%% |\n",
            V, read, cold, setup, up, comp, down, release, write, closing, other, total, wall, floor, total - comp - floor,
            100 * rss * 1024 / (4 * V * V)}' >>"$table"
    grep -o '"backend":"[^"]*","device":"[^"]*"' "$stats" | head -1 >&2
    rm -f "$stats" "$stats.cold"
done
echo "end to end: $(date -u +%F), files in $dir, ${runs} warm runs (medians), options: $*"
cat "$table"
rm -f "$table"
