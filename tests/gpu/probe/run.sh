#!/bin/bash
# Each element type's kernels beside its ceiling probe, in one run on one GPU (issue 26): builds
# apsp's static library, tests/gpu/bench, the OpenCL probe (probe.c, probe.cl) and the CUDA one
# (probe.cu, when nvcc is there); runs the probes; counts fw_phase3's instructions in the SASS of
# the float32 program; then times tests/gpu/bench (median of REPS solves at V) for each line of
# the grid, `DTYPE PARAMS [BUILD_OPTIONS]` (PARAMS as $APSP_KERNEL_PARAMS, "-" for the tuning
# table's), checks that every line of one type gives that type's checksum (all four types solve
# the same integral graph, so all checksums must be equal), and prints a table: relax/s, the
# probes of the same type and form (operands from local memory as the kernel has them, and in
# registers), and the kernel's share of each. From the repository root on a GPU machine,
# with .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/probe/run.sh [V] [GRID_FILE]
set -uo pipefail
v=${1:-20000}
grid_file=${2:-}
reps=${REPS:-3}
root=$(pwd)
build=${BUILD:-/tmp/build-gpu}
out=${OUT:-/tmp/apsp-probe}
mkdir -p "$out"
export APSP_DEVICE=${APSP_DEVICE:-gpu}

default_grid() {
    cat <<'GRID'
int32 -
float32 -
float32 - -DFLOAT_FMIN=0
float64 -
float64 - -DFLOAT_FMIN=0
int64 -
GRID
}

[ -d "$build" ] || meson setup "$build" -Dopencl=enabled -Dwerror=false -Dmpi=disabled \
    -Dpython=disabled >"$out/build.log" 2>&1
ninja -C "$build" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I"$root/include" -I"$root/src/cli" -o "$build/bench" \
    "$root/tests/gpu/bench.c" "$root/src/cli/env_options.c" "$build/src/libapsp.a" \
    -lOpenCL -lpthread -lm -ldl || exit 1
gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -o "$build/probe" "$root/tests/gpu/probe/probe.c" \
    -lOpenCL || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader |
    tee "$out/gpu.txt"

echo "== probes"
"$build/probe" "$root/tests/gpu/probe/probe.cl" 5 | tee "$out/probes.txt"
if command -v nvcc >/dev/null; then
    nvcc -O3 -std=c++17 -arch=sm_90 -o "$build/probe-cuda" "$root/tests/gpu/probe/probe.cu" &&
        "$build/probe-cuda" | tee -a "$out/probes.txt"
fi

echo "== SASS of fw_phase3, float32 (tuning table's parameters)"
APSP_DUMP_PROGRAM="$out/fw-float32.ptx" "$build/src/apsp" --backend=opencl --device=gpu \
    --dtype=float32 -q "$root/testcases/example.in" "$out/isa.out" >/dev/null 2>&1
if command -v ptxas >/dev/null && [ -s "$out/fw-float32.ptx" ]; then
    tr -d '\000' <"$out/fw-float32.ptx" >"$out/fw.ptx"
    ptxas -arch=sm_90 -v "$out/fw.ptx" -o "$out/fw.cubin" >"$out/ptxas.log" 2>&1
    cuobjdump -sass "$out/fw.cubin" >"$out/fw.sass" 2>&1
    awk '/Function : fw_phase3/{f=1; next} /Function : /{f=0} f' "$out/fw.sass" >"$out/phase3.sass"
    for op in FADD FMNMX FSETP FSEL LDS STS LDG BAR; do
        printf '%s=%s ' "$op" "$(grep -c "[[:space:]]$op[. ]" "$out/phase3.sass")"
    done
    echo
    grep -A1 "fw_phase3" "$out/ptxas.log" | grep -o "Used [0-9]* registers" | head -1
fi

echo "== float kernels on the GPU against the oracles, bit for bit (test-opencl-dtypes)"
for tile in 16 32 64 128; do
    "$build/tests/opencl/test-opencl-dtypes" --device=gpu --tile=$tile --sizes=1,65,129,300 \
        >"$out/dtypes-$tile.log" 2>&1
    echo "tile $tile: exit $? ($(tail -1 "$out/dtypes-$tile.log"))" | tee -a "$out/checks.txt"
done

echo "== kernels, V = $v, median of $reps"
if [ -n "$grid_file" ]; then grid=$(grep -v '^ *#' "$grid_file"); else grid=$(default_grid); fi
declare -A checksum_of
table=()
while read -r dtype params options; do
    [ -n "$dtype" ] || continue
    [ "$params" = "-" ] && params=""
    line=$(APSP_KERNEL_PARAMS="$params" APSP_BUILD_OPTIONS="${options:-}" \
        "$build/bench" "$v" $((v * 20)) 1 "$reps" 0 "$dtype" 2>&1 |
        tee -a "$out/bench.log" | grep '^BENCH\|bench:' | tail -1)
    rate=$(sed -n 's/.*Trelax_V=\([0-9.]*\).*/\1/p' <<<"$line")
    sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<<"$line")
    verdict=ok
    [ -n "$sum" ] || verdict="FAILED: $line"
    reference=${checksum_of[all]:-$sum}
    checksum_of[all]=$reference
    [ -z "$sum" ] || [ "$sum" = "$reference" ] || verdict="WRONG checksum $sum"
    # The form the kernel computes (cl/fw.cl, FLOAT_FMIN): fmin for float32, compare and
    # select for float64, unless the build options say otherwise.
    case "$dtype" in
    float32) form=fmin; [[ "${options:-}" == *FLOAT_FMIN=0* ]] && form=select ;;
    float64) form=select; [[ "${options:-}" == *FLOAT_FMIN=1* ]] && form=fmin ;;
    *) form=min ;;
    esac
    probe_of() {
        grep "api=opencl .*dtype=$dtype form=$form operands=$1 m=8 " "$out/probes.txt" |
            sed -n 's/.*Trelax=\([0-9.]*\).*/\1/p'
    }
    local_probe=$(probe_of local)
    register_probe=$(probe_of registers)
    share() { awk -v r="${rate:-0}" -v p="${1:-0}" 'BEGIN { if (p > 0) printf "%.0f%%", 100 * r / p; else print "-" }'; }
    table+=("$(printf '%-8s %-6s %-44s %-16s %6s %6s %5s %6s %5s %s' "$dtype" "$form" \
        "${params:--}" "${options:--}" "${rate:--}" "${local_probe:--}" "$(share "$local_probe")" \
        "${register_probe:--}" "$(share "$register_probe")" "$verdict")")
done <<<"$grid"

echo
cat "$out/gpu.txt" "$out/checks.txt"
grep PROBE "$out/probes.txt" | sed 's/device="[^"]*" //'
printf '%-8s %-6s %-44s %-16s %6s %6s %5s %6s %5s %s\n' dtype form params options "T/s" local share \
    regs share verdict
printf '%s\n' "${table[@]}" | tee "$out/table.txt"
