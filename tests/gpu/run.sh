#!/bin/bash
# On an NVIDIA GPU machine (see docs/performance.md, "## GPU"): builds apsp, checks its outputs
# against the pthread backend and the reference CUDA program, and times it beside the reference
# schemes in the same run. From the repository root, with .gpu/ carried
# (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/run.sh [STEPS] [SIZES...]
# STEPS: comma-separated, run in this order: tune, check, isa, profile, time, e2e; or `all`.
#   tune   tests/gpu/tune.sh at V=20000 (${TUNE_V}, grid file ${GRID}); the later steps then use
#          the best entry found, through $APSP_KERNEL_PARAMS and $APSP_BUILD_OPTIONS
#   check  V=2000 opencl (tiles 16 to 128) vs pthread; V=5000 and 10000 (${CHECK_SIZES}) vs
#          fw_cuda's output, cmp
#   isa    registers and spills per kernel (-cl-nv-verbose), the PTX, and the count of VIADDMNMX
#          in the SASS that ptxas makes of it
#   profile  device time of each step of the rounds ($APSP_PROFILE=1) at SIZES
#   time   anchors.sh (ceiling probes, fw_cuda, fw_ocl) and apsp's kernels (tests/gpu/bench,
#          median of 3) at SIZES (default 20000 40000), checksums compared with fw_cuda's
#   e2e    the apsp command at the largest size on /dev/shm, -v breakdown
# Logs go under ${OUT:-/tmp/apsp-gpu}; the summary table is printed last.
set -uo pipefail
steps=${1:-all}
shift || true
sizes=${*:-20000 40000}
[ "$steps" = all ] && steps=tune,check,isa,profile,time,e2e
out=${OUT:-/tmp/apsp-gpu}
mkdir -p "$out"
work=/dev/shm/apsp-gpu
mkdir -p "$work"
root=$(pwd)
source "$(dirname "$0")/preamble.sh"
build=/tmp/build-gpu
apsp=$build/src/apsp
bench=$build/bench
summary=$out/summary.txt
: >"$summary"
has() { [[ ",$steps," == *",$1,"* ]]; }
log() { echo "== $*"; }
note() { echo "$*" | tee -a "$summary"; }

build() {
    log "build"
    BUILD_LOG=$out/build.log
    build_for_anchors "$build"
    build_bench "$root" "$build" "$bench"
    nvcc -O3 -arch=sm_90 -o /tmp/fw_cuda "$root/.gpu/anchors/fw_cuda.cu" || exit 1
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv | tee "$out/gpu.txt"
}

# apsp with the tuned parameters, if any: tuned_apsp [--tile=N] ARGS... (--tile wins over the
# tuned round depth).
tuned_apsp() {
    local tile=${TUNED_TILE:+--tile=$TUNED_TILE}
    [[ ${1:-} == --tile=* ]] && { tile=$1; shift; }
    APSP_KERNEL_PARAMS="${TUNED_PARAMS:-}" APSP_BUILD_OPTIONS="${TUNED_OPTIONS:-}" \
        $apsp --backend=opencl $tile "$@"
}

graph() { # V -> path of the anchors' graph with E = 20 V, seed 1
    local f="$work/g$1.in"
    [ -f "$f" ] || /tmp/anchor_graph "$1" $(($1 * 20)) 1 "$f"
    echo "$f"
}

check() {
    log "devices"
    $apsp --list-devices
    local g r
    g=$(graph 2000)
    $apsp --backend=cpu "$g" "$work/cpu2000.out"
    for tile in "" 16 32 64 128; do
        if tuned_apsp ${tile:+--tile=$tile} -v "$g" "$work/ocl2000.out" 2>"$work/err"; then
            cmp -s "$work/cpu2000.out" "$work/ocl2000.out" && r=identical || r=DIFFERENT
        else
            r="failed: $(tail -1 "$work/err")"
        fi
        note "CHECK V=2000 opencl tile=${tile:-default} vs pthread: $r"
    done
    for V in ${CHECK_SIZES:-5000 10000}; do
        g=$(graph $V)
        /tmp/fw_cuda $V $((V * 20)) 1 "$work/cuda$V.out"
        tuned_apsp -v "$g" "$work/ocl$V.out"
        cmp -s "$work/cuda$V.out" "$work/ocl$V.out" && r=identical || r=DIFFERENT
        note "CHECK V=$V opencl (tuned or default) vs reference CUDA program: $r"
        rm -f "$work/cuda$V.out" "$work/ocl$V.out"
    done
}

isa() {
    local g
    g=$(graph 300)
    APSP_SHOW_BUILD=1 APSP_DUMP_PROGRAM="$out/fw.ptx" \
        TUNED_OPTIONS="-cl-nv-verbose ${TUNED_OPTIONS:-}" tuned_apsp "$g" "$work/isa.out" 2>&1 |
        tee "$out/isa.log"
    if command -v ptxas >/dev/null && [ -s "$out/fw.ptx" ]; then
        tr -d '\000' <"$out/fw.ptx" >/tmp/fw.ptx # the binary ends in NULs
        ptxas -arch=sm_90 -v /tmp/fw.ptx -o /tmp/fw.cubin 2>&1 | tee -a "$out/isa.log"
        cuobjdump -sass /tmp/fw.cubin >/tmp/fw.sass 2>&1
        note "ISA: VIADDMNMX in fw_phase3 SASS: $(awk '/Function : fw_phase3/{f=1} /Function : /{if($0 !~ /fw_phase3/) f=0} f' /tmp/fw.sass | grep -c VIADDMNMX), LDS.128: $(awk '/Function : fw_phase3/{f=1} /Function : /{if($0 !~ /fw_phase3/) f=0} f' /tmp/fw.sass | grep -c 'LDS.128'), local (LDL/STL): $(grep -c 'LDL\|STL' /tmp/fw.sass)"
    fi
    grep -i "registers\|spill\|stack" "$out/isa.log" | sed 's/^/ISA: /' | tee -a "$summary"
}

profile() {
    for V in $sizes; do
        log "profile V=$V"
        APSP_PROFILE=1 APSP_KERNEL_PARAMS="${TUNED_PARAMS:-}" \
            APSP_BUILD_OPTIONS="${TUNED_OPTIONS:-}" $bench "$V" $((V * 20)) 1 1 "${TUNED_TILE:-0}" \
            2>&1 | tee -a "$out/profile.log"
        note "PROFILE V=$V: $(grep 'profile, device seconds' "$out/profile.log" | tail -1 | sed 's/^[a-z]*: //')"
        note "PROFILE V=$V: $(grep '^rep 1' "$out/profile.log" | tail -1)"
    done
}

# apsp's kernels at V, median of 3, with the tuned parameters when there are any.
time_apsp() {
    APSP_KERNEL_PARAMS="${TUNED_PARAMS:-}" APSP_BUILD_OPTIONS="${TUNED_OPTIONS:-}" \
        $bench "$1" $(($1 * 20)) 1 3 "${TUNED_TILE:-0}" 2>&1 | tee -a "$out/bench.log"
}

timing() {
    log "reference schemes and ceilings (anchors.sh)"
    bash "${ANCHORS:-$root/.gpu/anchors.sh}" $sizes 2>&1 | tee "$out/anchors.log"
    for V in $sizes; do
        log "apsp V=$V"
        time_apsp "$V"
    done
    local cuda ocl ceiling
    # The ceiling: the best of the CUDA probe's runs (plain min(c, a + b) and the DPX intrinsic).
    ceiling=$(sed -n 's/.*: .* \([0-9.]*\) Trelax\/s.*/\1/p' "$out/anchors.log" | sort -g | tail -1)
    note "TIME ceiling (CUDA probe, best of plain and dpx): ${ceiling:-?} T relax/s; CUDA probe" \
        "runs: $(sed -n 's/.* \([a-z]*\): .* \([0-9.]*\) Trelax\/s.*/\1 \2/p' "$out/anchors.log" |
            tr '\n' ' ')"
    note "TIME OpenCL probe runs: $(sed -n 's/.*min(c,a+b): .*, \([0-9.]*\) T relax\/s.*/\1/p' \
        "$out/anchors.log" | tr '\n' ' ')"
    note "$(printf 'TIME %-6s %-9s %-7s %-9s %-9s %-7s %-7s %-7s %s' V apsp_s T/s fw_cuda_s fw_ocl_s x_cuda x_ocl ceiling% checksum)"
    for V in $sizes; do
        local line a t sum csum
        line=$(grep "^BENCH V=$V " "$out/bench.log" | tail -1)
        a=$(sed -n 's/.*compute_median=\([0-9.]*\).*/\1/p' <<<"$line")
        sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<<"$line")
        cuda=$(grep "^V=$V " "$out/anchors.log" | sed -n 's/.*kernels=\([0-9.]*\)ms.*/\1/p' | head -1)
        csum=$(grep "^V=$V " "$out/anchors.log" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' | head -1)
        ocl=$(grep "\] V=$V " "$out/anchors.log" | sed -n 's/.*kernels=\([0-9.]*\)ms.*/\1/p' | head -1)
        t=$(awk -v v="$V" -v a="$a" 'BEGIN { if (a > 0) printf "%.2f", v * v * v / a / 1e12 }')
        note "$(awk -v v="$V" -v a="$a" -v c="$cuda" -v o="$ocl" -v t="$t" -v p="${ceiling:-0}" \
            -v s="$([ "$sum" = "$csum" ] && echo "same as fw_cuda" || echo "DIFFERS ($sum vs $csum)")" \
            'BEGIN { printf "TIME %-6s %-9.3f %-7s %-9.3f %-9.3f %-7.2f %-7.2f %-8.0f %s",
                     v, a, t, c / 1000, o / 1000, (a > 0 ? c / 1000 / a : 0),
                     (a > 0 ? o / 1000 / a : 0), (p > 0 ? 100 * t / p : 0), s }')"
    done
}

e2e() {
    local V g
    V=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
    g=$(graph "$V")
    log "apsp command, V=$V, /dev/shm"
    local TIMEFORMAT="wall %R s"
    for rep in 1 2; do
        { time tuned_apsp -v "$g" "$work/e2e.out"; } 2>&1 | tee -a "$out/e2e.log"
        rm -f "$work/e2e.out"
    done
    note "E2E V=$V: $(grep '^apsp: read' "$out/e2e.log" | tail -1 | sed 's/^apsp: //')"
    note "E2E V=$V: $(grep '^wall' "$out/e2e.log" | tail -1)"
}

build 2>&1 | tee -a "$out/run.log"
if has tune; then
    BENCH=$bench bash "$root/tests/gpu/tune.sh" "${TUNE_V:-20000}" 3 ${GRID:-} 2>&1 | tee -a "$out/run.log"
    if [ -f "$out/tuned.env" ]; then
        . "$out/tuned.env"
        export TUNED_TILE TUNED_PARAMS TUNED_OPTIONS
        note "TUNED: tile=$TUNED_TILE params='$TUNED_PARAMS' options='$TUNED_OPTIONS'"
        grep '^[0-9]' "$out/tune.log" | sed 's/^/TUNE /' >>"$summary"
    fi
fi
if has check; then check 2>&1 | tee -a "$out/run.log"; fi
if has isa; then isa 2>&1 | tee -a "$out/run.log" | tail -5; fi
if has profile; then profile 2>&1 | tee -a "$out/run.log"; fi
if has time; then timing 2>&1 | tee -a "$out/run.log"; fi
if has e2e; then e2e 2>&1 | tee -a "$out/run.log"; fi
rm -rf "$work"
echo
echo "==== summary ($out/summary.txt)"
cat "$summary"
