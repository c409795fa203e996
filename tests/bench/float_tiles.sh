#!/bin/bash
# The AVX-512 float micro-kernels' register tiles compared on this host (issue 26: the 2 x 8
# tile was chosen on Zen 4 and never measured on Intel). A tile is ROWSxVECS: rows of A
# broadcast and zmm vectors of B per k-step, ROWS x VECS accumulators (src/cpu/kernels_x86.c,
# the float and double blocks on __m512). One apsp build per tile (a copy of the tree with both
# float blocks' ROWS and VECS changed; VECS must divide 8), then ROUNDS rounds, each running
# every build on float32 and float64 (--float-kernels, a dense graph of V vertices) and the
# ceiling probe of each type on as many threads, so that others' load falls on all alike.
# Outputs must be byte-identical across tiles. From the repository root:
#   bash tests/bench/float_tiles.sh [V] [THREADS] [ROUNDS] [TILE...]
#   (defaults: 3000, every core, 3, 2x8 3x8 4x4 6x4 1x8)
set -euo pipefail
v=${1:-3000}
threads=${2:-$(nproc)}
rounds=${3:-3}
shift 3 || shift $#
tiles=("$@")
[ ${#tiles[@]} -gt 0 ] || tiles=(2x8 3x8 4x4 6x4 1x8)
root=$(pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
base="$work/build-base"
[ -d "$base" ] || meson setup "$base" "$root" -Dopencl=disabled -Dmpi=disabled \
    -Dpython=disabled >"$work/setup.log"
ninja -C "$base" tests/gen-graph tests/bench/ceiling >>"$work/build.log"
"$base/tests/gen-graph" random "$v" $((v * v / 4)) 1 "$work/g.in"

for t in "${tiles[@]}"; do
    rows=${t%x*} vecs=${t#*x}
    copy="$work/tree-$t"
    rm -rf "$copy" "$work/build-$t" && mkdir -p "$copy"
    cp -r "$root"/{meson.build,meson_options.txt,src,include,cl,subprojects} "$copy"/
    perl -0pi -e "s/#define ROWS \\d+\\n#define VECS \\d+\\n(#define CELL (?:double|float)\\n#define VEC __m512d?\\n)/#define ROWS $rows\\n#define VECS $vecs\\n\$1/g" \
        "$copy/src/cpu/kernels_x86.c"
    [ "$(grep -c "#define ROWS $rows\$" "$copy/src/cpu/kernels_x86.c")" -ge 2 ] ||
        { echo "tile $t: could not set the float blocks' ROWS" >&2; exit 1; }
    meson setup "$work/build-$t" "$copy" -Dopencl=disabled -Dmpi=disabled -Dpython=disabled \
        -Dtests=false >>"$work/setup.log"
    ninja -C "$work/build-$t" src/apsp >>"$work/build.log"
done

: >"$work/results"
rm -f "$work"/sum-* # a WORK kept from an earlier run holds another graph's sums
for r in $(seq "$rounds"); do
    for dtype in float32 float64; do
        for t in "${tiles[@]}"; do
            "$work/build-$t/src/apsp" --backend=cpu --threads="$threads" --dtype="$dtype" \
                --float-kernels -v -q "$work/g.in" "$work/out.npy" 2>"$work/log"
            s=$(grep -o 'compute [0-9.]*' "$work/log" | awk '{print $2}')
            echo "$r $dtype $t $s" >>"$work/results"
            sum=$(sha256sum <"$work/out.npy")
            [ -f "$work/sum-$dtype" ] || echo "$sum" >"$work/sum-$dtype"
            [ "$sum" = "$(cat "$work/sum-$dtype")" ] || { echo "MISMATCH: $dtype $t" >&2; exit 1; }
        done
        g=$("$base/tests/bench/ceiling" "$threads" avx512 50000000 "$dtype" |
            grep -o '[0-9.]* G relax/s' | awk '{print $1}')
        echo "$r $dtype probe $g" >>"$work/results"
    done
done

python3 - "$work/results" "$v" "$threads" "$rounds" <<'PY'
import statistics as st
import sys

path, v, threads, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rates, probe = {}, {}
for r, dtype, who, x in (line.split() for line in open(path)):
    if who == "probe":
        probe.setdefault(dtype, []).append(float(x))
    else:
        rates.setdefault((dtype, who), []).append(v ** 3 / float(x) / 1e9)
print("V = %d, %s threads, %s rounds; G relax/s = V^3 / compute s; outputs identical" % (
    v, threads, rounds))
print("| type | tile | median G relax/s | best | probe median | % of probe (median) |")
print("|---|---|---|---|---|---|")
for (dtype, tile), r in sorted(rates.items()):
    p = st.median(probe[dtype])
    print("| %s | %s | %.1f | %.1f | %.1f | %.0f |" % (
        dtype, tile, st.median(r), max(r), p, 100 * st.median(r) / p))
PY
