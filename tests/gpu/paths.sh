#!/bin/bash
# The predecessor derivation (src/paths/, --predecessors) against the GPU solve: issue 15's
# target is the derivation under 10% of the solve's time at V = 20000, E = 20 V. From the
# repository root on a GPU machine, with .gpu/ carried
# (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/paths.sh [SIZES...]
# SIZES: default 20000. DEVICE: the -d SPEC, default gpu. REPS: runs per size, default 3 (the
# table shows medians). THREADS: --threads for the derivation, default all cores.
# Each run: apsp -v --stats-json -d gpu --predecessors=PRED.npy GRAPH OUT on the anchors' graph
# (tests/gpu/anchor_graph.c, seed 1); compute_s is the GPU solve, predecessors_s the derivation
# (on the device since the gpu-paths branch: its kernels and the download of the V x V
# predecessors; `where` says device or host), both from --stats-json. The first run's
# predecessors are checked for validity (every chain an edge path of the graph, its weights
# summing to the distance) on 20 sources when NumPy is there. One more run per size with
# APSP_PROFILE=1 prints the derivation's parts (src/opencl/predecessors.c): its kernels' and
# reads' device times, the host copy into the caller's rows, the wait for the reads, the setup;
# that run's times are not in the table (the profile slows the solve).
set -uo pipefail
sizes=${*:-20000}
reps=${REPS:-3}
device=${DEVICE:-gpu}
out=${OUT:-/tmp/apsp-paths}
work=/dev/shm/apsp-paths
build=${BUILD:-/tmp/build-paths}
root=$(pwd)
mkdir -p "$out" "$work"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log
build_for_anchors "$build"
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader |
    tee "$out/gpus.txt"
note "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
py=
for p in python3 /usr/bin/python3; do
    $p -c 'import numpy' 2>/dev/null && py=$p && break
done
[ -n "$py" ] || note "no Python with NumPy: the predecessors are not checked"
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads="$THREADS")

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
calc() { awk "BEGIN {printf \"%.6f\", $1}"; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | tail -1; }

printf '%-7s %9s %9s %15s %9s %-7s %s\n' V E compute_s predecessors_s share where total_s |
    tee -a "$summary"
for V in $sizes; do
    g=$work/g$V.in
    [ -f "$g" ] || /tmp/anchor_graph "$V" $((V * 20)) 1 "$g" || exit 1
    : >"$out/$V.times"
    for i in $(seq "$reps"); do
        log=$out/run-$V-$i.log
        start=$(date +%s.%N)
        $apsp -v --stats-json -d "$device" "${threads[@]}" --predecessors="$work/pred.npy" \
            "$g" "$work/dist.npy" 2>"$log" || { cat "$log" >&2; exit 1; }
        end=$(date +%s.%N)
        echo "$(field compute_s "$log") $(field predecessors_s "$log") $(calc "$end - $start")" \
            "$(field predecessors_on_device "$log")" >>"$out/$V.times"
        grep '^apsp: predecessors' "$log"
        if [ "$i" = 1 ] && [ -n "$py" ]; then
            $py - "$g" "$work/dist.npy" "$work/pred.npy" <<'EOF' | tee -a "$summary"
import sys
import numpy as np
raw = np.fromfile(sys.argv[1], dtype="<i4")
v, e = int(raw[0]), int(raw[1])
t = raw[2:2 + 3 * e].reshape(e, 3)
best = {}
for a, b, w in t.tolist():
    if a != b and w < best.get((a, b), 1 << 40):
        best[(a, b)] = w
d = np.load(sys.argv[2], mmap_mode="r")
p = np.load(sys.argv[3], mmap_mode="r")
bad = 0
for i in np.random.default_rng(1).choice(v, size=min(20, v), replace=False).tolist():
    di, pi = np.asarray(d[i]), np.asarray(p[i])
    for j in range(v):
        if j == i or di[j] >= 1073741823:
            bad += pi[j] != -9999
            continue
        at, total, steps = j, 0, 0
        while at != i and steps <= v:
            k = int(pi[at])
            if (k, at) not in best:
                break
            total += best[(k, at)]
            at, steps = k, steps + 1
        bad += at != i or total != di[j]
print("  V=%d: predecessors of 20 sources checked against the graph: %d wrong" % (v, bad))
EOF
        fi
    done
    log=$out/run-$V-profile.log
    APSP_PROFILE=1 $apsp -v --stats-json -d "$device" "${threads[@]}" \
        --predecessors="$work/pred.npy" "$g" "$work/dist.npy" 2>"$log" || { cat "$log" >&2; exit 1; }
    grep -E '^apsp: (paths on|predecessors)' "$log" | sed 's/^/  profile: /' | tee -a "$summary"
    c=$(cut -d' ' -f1 "$out/$V.times" | median)
    p=$(cut -d' ' -f2 "$out/$V.times" | median)
    t=$(cut -d' ' -f3 "$out/$V.times" | median)
    where=$(cut -d' ' -f4 "$out/$V.times" | sort -u | sed 's/true/device/; s/false/host/' |
        paste -sd/)
    printf '%-7s %9s %9.3f %15.3f %8.1f%% %-7s %.3f\n' "$V" $((V * 20)) "$c" "$p" \
        "$(calc "100 * $p / $c")" "$where" "$t" | tee -a "$summary"
    rm -f "$work"/*.npy
done
note "target (issue 15): predecessors_s under 10% of compute_s at V = 20000"
note "logs in $out"
