#!/bin/bash
# apsp-mpi's write against apsp's, side by side on one graph (issue 37.3): for each directory,
# REPS rounds of, interleaved,
#   OLD/src/mpi/apsp-mpi -v --backend=cpu (mpirun -np NP): an older build (before 2026-11-28's
#                        evening, pwrite; before that MPI-IO, whose ROMIO-tuned run this script
#                        had then: docs/distributed.md)
#   NEW/src/mpi/apsp-mpi the same with this build
#   NEW/src/apsp -v --backend=cpu --threads=NP
# each output compared with apsp's (cmp), and prints the median and range of apsp-mpi's "write"
# (the band exchange, the writes, sync and commit) and of apsp's "write" + "close" (its commit).
# From the repository root:
#   bash tests/bench/mpi_write.sh OLD_BUILD NEW_BUILD V REPS DIR...
# e.g. bash tests/bench/mpi_write.sh /tmp/old/build build 8000 5 /dev/shm/w /var/tmp/w
set -euo pipefail
old=$1 new=$2 v=$3 reps=$4
shift 4
np=${NP:-2}
graph=$(mktemp /dev/shm/mpi-write-XXXXXX.in)
trap 'rm -f "$graph"' EXIT
"$new/tests/gen-graph" random "$v" $((20 * v)) 1 "$graph"
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$np" "$@"; }

# The seconds of apsp-mpi's write, or apsp's write + close, from a -v log on stdin.
mpi_write() { sed -n 's/.*, write \([0-9.]*\) s, total.*/\1/p'; }
apsp_write() { sed -n 's/.*, write \([0-9.]*\) s, close \([0-9.]*\) s.*/\1 \2/p' | awk '{print $1 + $2}'; }
median() { sort -n | awk '{a[NR] = $1} END {printf "%.3f (%.3f-%.3f)", a[int((NR + 1) / 2)], a[1], a[NR]}'; }

for dir in "$@"; do
    mkdir -p "$dir"
    : >"$dir/old.t"
    : >"$dir/new.t"
    : >"$dir/apsp.t"
    for ((r = 0; r < reps; r++)); do
        "$new/src/apsp" -v --backend=cpu --threads="$np" "$graph" "$dir/apsp.out" 2>&1 |
            apsp_write >>"$dir/apsp.t"
        mpi "$old/src/mpi/apsp-mpi" -v --backend=cpu "$graph" "$dir/old.out" 2>&1 |
            mpi_write >>"$dir/old.t"
        mpi "$new/src/mpi/apsp-mpi" -v --backend=cpu "$graph" "$dir/new.out" 2>&1 |
            mpi_write >>"$dir/new.t"
        for o in old new; do
            cmp "$dir/apsp.out" "$dir/$o.out" || { echo "$o: not apsp's bytes" >&2; exit 1; }
        done
    done
    echo "$dir, V = $v, $np ranks, $reps runs each; median (range), s:"
    echo "  apsp-mpi OLD  write $(median <"$dir/old.t")"
    echo "  apsp-mpi NEW  write $(median <"$dir/new.t")"
    echo "  apsp          write + close $(median <"$dir/apsp.t")"
    rm -f "$dir"/{old,new,apsp}.{t,out}
done
