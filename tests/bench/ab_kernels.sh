#!/bin/bash
# Two apsp builds' phase-3 micro-kernels side by side, for kernel work on a shared machine:
# one generated graph, REPS rounds, each round running every APSP binary with every ISA on
# THREADS threads and then the ceiling probe of each ISA with as many threads, so that noise
# from other users falls on all of them alike. Checks that every output is byte-identical.
#   bash tests/bench/ab_kernels.sh [-v V] [-r REPS] [-t THREADS] [-i "avx2 avx512"] APSP...
#   (defaults: V = 3000, 7 rounds, 1 thread; the probe and gen-graph come from build/)
# Prints, per binary and ISA, the median and best G relax/s (V^3 over apsp's compute seconds)
# and the median as a share of the median ceiling of the same rounds: over all runs, and again
# over the runs that had their cores to themselves (CPU seconds over wall seconds at least 0.95
# per thread), the fairer comparison when others load the machine.
set -euo pipefail
V=3000 reps=7 threads=1 isas="avx2 avx512" build=build
while getopts v:r:t:i:b: o; do
    case $o in
    v) V=$OPTARG ;;
    r) reps=$OPTARG ;;
    t) threads=$OPTARG ;;
    i) isas=$OPTARG ;;
    b) build=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,9p' "$0"; exit 2; }
declare -A iterations=([avx2]=200000000 [avx512]=50000000)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
"$build/tests/gen-graph" random "$V" $((V * 20)) 1 "$work/g.in"
# Copies, so that a rebuild during the run cannot mix two versions.
bins=()
for b in "$@"; do
    bins+=("$work/bin${#bins[@]}")
    cp "$b" "${bins[-1]}"
done
cp "$build/tests/bench/ceiling" "$work/ceiling"

# `time` of a command, as "wall user sys", appended to $work/times; its stderr to $work/log.
TIMEFORMAT='%R %U %S'
timed() {
    { time "$@" 2>>"$work/log"; } 2>>"$work/times"
}
cpu_share() { tail -1 "$work/times" | awk '{printf "%.3f", ($1 > 0 ? ($2 + $3) / $1 : 0)}'; }

: >"$work/results"
for r in $(seq "$reps"); do
    for n in "${!bins[@]}"; do
        for isa in $isas; do
            : >"$work/log"
            APSP_CPU_ISA=$isa timed "${bins[$n]}" --backend=cpu --threads="$threads" -v -q \
                "$work/g.in" "$work/out"
            s=$(grep -o 'compute [0-9.]*' "$work/log" | awk '{print $2}')
            echo "$r $n $isa $s $(cpu_share)" >>"$work/results"
            sum=$(sha256sum <"$work/out")
            [ -f "$work/sum" ] || echo "$sum" >"$work/sum"
            [ "$sum" = "$(cat "$work/sum")" ] || { echo "MISMATCH: $n $isa" >&2; exit 1; }
        done
    done
    for isa in $isas; do
        timed "$work/ceiling" "$threads" "$isa" "${iterations[$isa]}" >"$work/probe"
        g=$(grep -o '[0-9.]* G relax/s' "$work/probe" | awk '{print $1}')
        echo "$r ceiling $isa $g $(cpu_share)" >>"$work/results"
    done
done

names=$(printf '%s\n' "$@")
python3 - "$work/results" "$V" "$reps" "$threads" "$names" <<'EOF'
import statistics as st
import sys

path, v, reps = sys.argv[1], int(sys.argv[2]), sys.argv[3]
threads, names = int(sys.argv[4]), sys.argv[5].splitlines()
rows = [line.split() for line in open(path)]
# A run is undisturbed when it had its threads' cores all along: cpu/wall >= 0.95 x threads.
quiet = [row for row in rows if float(row[4]) >= 0.95 * threads]


def table(chosen, title):
    runs, ceil = {}, {}
    for r, who, isa, x, cpu in chosen:
        if who == "ceiling":
            ceil.setdefault(isa, []).append(float(x))
        else:
            runs.setdefault((int(who), isa), []).append(v ** 3 / float(x) / 1e9)
    print("\n%s: %d of %d runs" % (title, len(chosen), len(rows)))
    if not runs or any(isa not in ceil for (n, isa) in runs):
        return
    print("| apsp | ISA | runs | median G relax/s | best | ceiling (median) | % of ceiling |")
    print("|---|---|---|---|---|---|---|")
    for (n, isa), rates in sorted(runs.items()):
        c = st.median(ceil[isa])
        m = st.median(rates)
        print("| %s | %s | %d | %.2f | %.2f | %.2f | %.0f |" % (
            names[n], isa, len(rates), m, max(rates), c, 100 * m / c))


print("V = %d, %s rounds, %d thread(s); G relax/s = V^3 / compute s; outputs identical" % (
    v, reps, threads))
table(rows, "all runs")
table(quiet, "undisturbed runs (cpu/wall >= 0.95 per thread), ceiling likewise")
EOF
