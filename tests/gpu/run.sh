#!/bin/bash
# On an NVIDIA GPU machine (see docs/performance.md): builds apsp, checks its outputs against the
# pthread backend and the reference CUDA program, and times it beside the reference schemes.
# From the repository root, after `bash ../shared/gpu/prepare.sh` here and with .gpu carried:
#   source .gpu/opencl-env.sh && bash tests/gpu/run.sh [check|time|all] [SIZES...]
# Writes logs under ${OUT:-/tmp/apsp-gpu}.
set -uo pipefail
mode=${1:-all}
shift || true
sizes=${*:-20000 40000}
out=${OUT:-/tmp/apsp-gpu}
mkdir -p "$out"
work=/dev/shm/apsp-gpu
mkdir -p "$work"
root=$(pwd)

log() { echo "== $*"; }

build() {
    meson setup /tmp/build-gpu -Dopencl=enabled -Dwerror=false >"$out/meson.log" 2>&1 ||
        { cat "$out/meson.log"; exit 1; }
    ninja -C /tmp/build-gpu >>"$out/meson.log" 2>&1 || { tail -40 "$out/meson.log"; exit 1; }
    gcc -O2 -o /tmp/anchor_graph "$root/tests/gpu/anchor_graph.c"
    nvcc -O3 -arch=sm_90 -o /tmp/fw_cuda "$root/.gpu/anchors/fw_cuda.cu"
}

apsp=/tmp/build-gpu/src/apsp

graph() { # V -> path of the anchors' graph with E = 20 V, seed 1
    local f="$work/g$1.in"
    [ -f "$f" ] || /tmp/anchor_graph "$1" $(($1 * 20)) 1 "$f"
    echo "$f"
}

check() {
    log "devices"
    $apsp --list-devices
    local g
    g=$(graph 2000)
    $apsp --backend=cpu "$g" "$work/cpu2000.out"
    for tile in "" 16 32 64 128; do
        if $apsp --backend=opencl ${tile:+--tile=$tile} -v "$g" "$work/ocl2000.out" 2>"$work/err"; then
            cmp -s "$work/cpu2000.out" "$work/ocl2000.out" && r=identical || r=DIFFERENT
        else
            r="failed: $(tail -1 "$work/err")"
        fi
        echo "CHECK V=2000 opencl tile=${tile:-default} vs pthread: $r"
    done
    for V in 5000 10000; do
        g=$(graph $V)
        /tmp/fw_cuda $V $((V * 20)) 1 "$work/cuda$V.out" | tee -a "$out/check.log"
        $apsp --backend=opencl -v "$g" "$work/ocl$V.out"
        cmp -s "$work/cuda$V.out" "$work/ocl$V.out" && r=identical || r=DIFFERENT
        echo "CHECK V=$V opencl vs reference CUDA program: $r"
        rm -f "$work/cuda$V.out" "$work/ocl$V.out"
    done
}

# Median of apsp's kernel seconds over 3 runs, with its -v breakdown of the last.
time_apsp() {
    local V=$1 g
    g=$(graph "$V")
    for rep in 1 2 3; do
        $apsp --backend=opencl -v "$g" "$work/out$V.bin" 2>&1 | tee -a "$out/apsp$V.log" | tail -1
    done
    rm -f "$work/out$V.bin"
}

if [ "$mode" = check ] || [ "$mode" = all ]; then build; check 2>&1 | tee "$out/check.log"; fi
if [ "$mode" = time ] || [ "$mode" = all ]; then
    [ -x $apsp ] || build
    log "reference schemes and ceiling (anchors.sh)"
    bash "$root/.gpu/anchors.sh" $sizes 2>&1 | tee "$out/anchors.log"
    for V in $sizes; do
        log "apsp V=$V"
        time_apsp "$V"
    done 2>&1 | tee "$out/apsp.log"
fi
