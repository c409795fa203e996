#!/bin/bash
# apsp on one and on every GPU of the machine, side by side in one run, beside the course's
# two-GPU scheme (tests/gpu/fw_cuda2.cu). From the repository root on a machine with two or more
# NVIDIA GPUs, with .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/multi.sh [STEPS] [SIZES...]
# STEPS (comma-separated, default check,time):
#   check  V=2000 at round depths 16-128 and V=5000: -d gpus byte-identical to -d gpu (cmp)
#   time   at each size (default 40000 60000): the kernels on 1 GPU and on all GPUs (tests/gpu/
#          bench, median of REPS, default 3; checksums compared), the course scheme on 2 GPUs
#          (up to V = COURSE_MAX, default 60000; 0 in the table where not run),
#          and the apsp command end to end (-v, /dev/shm; outputs compared with cmp) unless
#          E2E=0
# The table comes last.
set -uo pipefail
steps=${1:-check,time}
shift || true
sizes=${*:-40000 60000}
reps=${REPS:-3}
out=${OUT:-/tmp/apsp-multi}
work=/dev/shm/apsp-multi
build=/tmp/build-multi
root=$(pwd)
mkdir -p "$out" "$work"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { [[ ",$steps," == *",$1,"* ]]; }

source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log
build_for_anchors "$build"
build_bench "$root" "$build" /tmp/bench
nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o /tmp/fw_cuda2 "$root/tests/gpu/fw_cuda2.cu" || exit 1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
gpus=$(wc -l <"$out/gpus.txt")
$apsp --list-devices | grep '^[0-9]'

graph() { # V -> the anchors' graph with E = 20 V, seed 1
    local f="$work/g$1.in"
    [ -f "$f" ] || /tmp/anchor_graph "$1" $(($1 * 20)) 1 "$f"
    echo "$f"
}

same() { cmp -s "$1" "$2" && echo identical || echo DIFFERENT; }

if has check; then
    g=$(graph 2000)
    $apsp --backend=cpu "$g" "$work/cpu.out"
    for tile in 16 32 64 128; do
        $apsp -d gpu --tile=$tile "$g" "$work/one.out" && $apsp -d gpus --tile=$tile "$g" "$work/all.out"
        note "CHECK V=2000 tile=$tile vs pthread: -d gpu $(same "$work/cpu.out" "$work/one.out"), -d gpus $(same "$work/cpu.out" "$work/all.out")"
    done
    g=$(graph 5000)
    $apsp -d gpu "$g" "$work/one.out" && $apsp -v -d gpus "$g" "$work/all.out" 2>"$out/check.err"
    /tmp/fw_cuda2 "$g" "$work/course.out" >/dev/null
    note "CHECK V=5000 vs the course scheme: -d gpu $(same "$work/course.out" "$work/one.out"), -d gpus $(same "$work/course.out" "$work/all.out")"
    note "CHECK $(head -1 "$out/check.err")"
    rm -f "$work"/*.out
fi

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

if has time; then
    for V in $sizes; do
        g=$(graph "$V")
        for which in gpu gpus; do
            APSP_DEVICE=$which /tmp/bench "$V" $((V * 20)) 1 "$reps" 0 2>&1 |
                tee "$out/bench-$which-$V.log" | grep '^BENCH'
        done
        : >"$out/course-$V.log"
        [ "$V" -le "${COURSE_MAX:-60000}" ] && /tmp/fw_cuda2 "$g" | tee "$out/course-$V.log"
        if [ "${E2E:-1}" = 1 ]; then
            for which in gpu gpus; do
                (TIMEFORMAT='wall %R s' && time $apsp -v -d $which "$g" "$work/$which.out") \
                    2>"$out/e2e-$which-$V.log"
                grep '^apsp: read\|^wall' "$out/e2e-$which-$V.log"
            done
            cmp -s "$work/gpu.out" "$work/gpus.out" && e2e=identical || e2e=DIFFERENT
            rm -f "$work"/*.out
        else
            e2e=skipped
        fi
        echo "$e2e" >"$out/e2e-cmp-$V.txt"
    done
    note "$(printf 'TIME %-7s %-10s %-10s %-8s %-6s %-10s %-9s %-10s %-10s %s' V 1gpu_s ${gpus}gpu_s speedup eff T/s_all course2_s x_course e2e_1_s e2e_all_s outputs)"
    for V in $sizes; do
        one=$(sed -n 's/^rep [0-9]*: .*compute \([0-9.]*\) s.*/\1/p' "$out/bench-gpu-$V.log" | median)
        all=$(sed -n 's/^rep [0-9]*: .*compute \([0-9.]*\) s.*/\1/p' "$out/bench-gpus-$V.log" | median)
        sums=$(cat "$out/bench-gpu-$V.log" "$out/bench-gpus-$V.log" "$out/course-$V.log" |
            sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' | sort -u | wc -l)
        course=$(sed -n 's/.*kernels_s=\([0-9.]*\).*/\1/p' "$out/course-$V.log")
        course=${course:-0}
        e1=$(sed -n 's/^wall \([0-9.]*\) s/\1/p' "$out/e2e-gpu-$V.log" 2>/dev/null)
        ea=$(sed -n 's/^wall \([0-9.]*\) s/\1/p' "$out/e2e-gpus-$V.log" 2>/dev/null)
        note "$(awk -v v="$V" -v o="$one" -v a="$all" -v g="$gpus" -v c="$course" -v e1="${e1:--}" \
            -v ea="${ea:--}" -v s="checksums $([ "$sums" = 1 ] && echo same || echo DIFFER), e2e $(cat "$out/e2e-cmp-$V.txt")" \
            'BEGIN { printf "TIME %-7s %-10.3f %-10.3f %-8.3f %-6.3f %-10.2f %-9.3f %-10.2f %-10s %-10s %s",
                     v, o, a, o / a, o / a / g, v * v * v / a / 1e12, c, c / a, e1, ea, s }')"
    done
    for f in "$out"/e2e-gpus-*.log; do note "E2E $(basename "$f" .log): $(grep '^apsp: backend' "$f" | cut -c1-200)"; done
fi
rm -rf "$work"
echo
echo "==== summary ($summary)"
cat "$summary"
