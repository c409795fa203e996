#!/bin/bash
# Two apsp builds' phase-3 micro-kernels side by side, for kernel work on a shared machine:
# one generated graph, REPS rounds, each round running every APSP binary with every ISA on
# THREADS threads and then the ceiling probe of each ISA with as many threads, so that noise
# from other users falls on all of them alike. Checks that every output is byte-identical.
#   bash tests/bench/ab_kernels.sh [-v V] [-r REPS] [-t THREADS] [-i "avx2 avx512"] APSP...
#   (defaults: V = 3000, 7 rounds, 1 thread; the probe and gen-graph come from build/)
# Prints, per binary and ISA, the median and best G relax/s (V^3 over apsp's compute seconds)
# and the median as a share of the median ceiling of the same rounds.
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
trap 'rm -rf "$work"' EXIT
"$build/tests/gen-graph" random "$V" $((V * 20)) 1 "$work/g.in"
# Copies, so that a rebuild during the run cannot mix two versions.
bins=()
for b in "$@"; do
    bins+=("$work/bin${#bins[@]}")
    cp "$b" "${bins[-1]}"
done
cp "$build/tests/bench/ceiling" "$work/ceiling"

: >"$work/results"
for r in $(seq "$reps"); do
    for n in "${!bins[@]}"; do
        for isa in $isas; do
            APSP_CPU_ISA=$isa "${bins[$n]}" --backend=cpu --threads="$threads" -v -q \
                "$work/g.in" "$work/out" 2>"$work/log"
            s=$(grep -o 'compute [0-9.]*' "$work/log" | awk '{print $2}')
            echo "$n $isa $s" >>"$work/results"
            sum=$(sha256sum <"$work/out")
            [ -f "$work/sum" ] || echo "$sum" >"$work/sum"
            [ "$sum" = "$(cat "$work/sum")" ] || { echo "MISMATCH: $n $isa" >&2; exit 1; }
        done
    done
    for isa in $isas; do
        g=$("$work/ceiling" "$threads" "$isa" "${iterations[$isa]}" |
            grep -o '[0-9.]* G relax/s' | awk '{print $1}')
        echo "ceiling $isa $g" >>"$work/results"
    done
done

names=$(printf '%s\n' "$@")
python3 - "$work/results" "$V" "$reps" "$threads" "$names" <<'EOF'
import statistics as st
import sys

path, v, reps, threads, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
names = names.splitlines()
runs, ceil = {}, {}
for line in open(path):
    who, isa, x = line.split()
    if who == "ceiling":
        ceil.setdefault(isa, []).append(float(x))
    else:
        runs.setdefault((int(who), isa), []).append(v ** 3 / float(x) / 1e9)
print("V = %d, %s rounds, %s thread(s); G relax/s = V^3 / compute s; outputs identical" % (
    v, reps, threads))
print("| apsp | ISA | median G relax/s | best | ceiling (median) | % of ceiling |")
print("|---|---|---|---|---|---|")
for (n, isa), rates in sorted(runs.items()):
    c = st.median(ceil[isa])
    m = st.median(rates)
    print("| %s | %s | %.2f | %.2f | %.2f | %.0f |" % (names[n], isa, m, max(rates), c,
                                                     100 * m / c))
EOF
