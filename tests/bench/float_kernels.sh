#!/bin/sh
# The pthread backend's micro-kernels beside their SIMD ceilings (docs/performance.md, "CPU
# kernels per type"), for a host of any size (issue 26: a 16-core AVX-512 host):
#
#   tests/bench/float_kernels.sh [BUILD_DIR] [V] [THREADS] [REPS] [ISA] [SCALING_V] [SCALING_THREADS]
#       defaults: build, 3000, every core, 3, best (avx512 where the CPU has it), 8000,
#       "1 2 4 8 16"
#
# Table 1, per type (int32, float32, float64): the kernel's G relax/s (bench-dtypes: REPS solves
# of a dense V-vertex graph, padded^3 relaxations, the float types by their own kernels; the
# median solve's rate and the best's), the ceiling probe's G relax/s on as many threads
# (tests/bench/ceiling: the best of 3 runs) and the share, best over best: other users of the
# machine can only lower either. "block alone" is tests/bench/block-kernels: the same kernel on
# three L2-resident blocks and nothing else (no rounds, phase 1 or matrix traffic), so the share
# splits in two: what the micro-kernel leaves, and what the solve around it costs. Table 2: the same kernels at V = SCALING_V on 1, 2, 4, ...
# threads (one solve each), G relax/s and the efficiency against THREADS x the one-thread rate.
# No thresholds; on a shared machine, run it twice.
set -eu
build=${1:-build}
v=${2:-3000}
threads=${3:-$(nproc)}
reps=${4:-3}
isa=${5:-best}
scaling_v=${6:-8000}
scaling_threads=${7:-"1 2 4 8 16"}
bench="$build/tests/bench/bench-dtypes"
ceiling="$build/tests/bench/ceiling"
blocks="$build/tests/bench/block-kernels"
probe_isa=$isa
if [ "$isa" = best ]; then
    probe_isa=auto
fi

# The probe's best rate of three runs, G relax/s.
probe() {
    best=0
    for run in 1 2 3; do
        rate=$("$ceiling" "$1" "$probe_isa" 100000000 "$2" | sed -n 's/.* \([0-9.]*\) G relax\/s.*/\1/p')
        best=$(awk -v a="$best" -v b="$rate" 'BEGIN { print (b > a ? b : a) }')
    done
    echo "$best"
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# V = $v, $threads threads, ISA $isa, kernels: median of $reps (padded^3 relaxations)"
printf '%-8s %14s %14s %14s %7s %14s %7s\n' type "kernel median" "kernel best" "probe best" share \
    "block alone" share
for type in int32 float32 float64; do
    # bench-dtypes' last four columns: median s, best s, G relax/s (V^3), G relax/s (padded^3).
    kernel=$("$bench" "$v" "$threads" "$reps" "$isa" "$type" |
        awk -v t="$type" '$1 == t { print $NF, $NF * $(NF - 3) / $(NF - 2) }')
    ceil=$(probe "$threads" "$type")
    alone=$("$blocks" "$threads" "$isa" 1 "$type" | awk -v t="$type" '$1 == t { print $4 }')
    echo "$kernel" | awk -v t="$type" -v c="$ceil" -v b="$alone" \
        '{ printf "%-8s %14.2f %14.2f %14.2f %6.0f%% %14.2f %6.0f%%\n", t, $1, $2, c, 100 * $2 / c, b, 100 * b / c }'
done

echo
echo "# thread scaling at V = $scaling_v, one solve each: G relax/s (efficiency: rate / (threads x one thread's))"
printf '%-8s' threads
for t in $scaling_threads; do printf ' %14s' "$t"; done
echo
for type in int32 float32 float64; do
    printf '%-8s' "$type"
    one=
    for t in $scaling_threads; do
        rate=$("$bench" "$scaling_v" "$t" 1 "$isa" "$type" | awk -v x="$type" '$1 == x { print $NF }')
        one=${one:-$(awk -v r="$rate" -v t="$t" 'BEGIN { print r / t }')}
        awk -v r="$rate" -v o="$one" -v t="$t" 'BEGIN { printf " %7.1f (%.2f)", r, r / (t * o) }'
    done
    echo
done
