#!/bin/bash
# Streaming from host memory on one GPU (docs/design/opencl.md, "Streaming from host memory"):
# the in-core solve against the streamed one under --device-memory caps, same graph, same run,
# outputs compared. From the repository root on a GPU machine, with
# .gpu/ carried (tests/gpu/NOTES.md, ".gpu/"):
#   source .gpu/opencl-env.sh && bash tests/gpu/stream.sh [SIZES...]
# SIZES: default 20000 40000.
# CAPS: the caps as fractions of the matrix (4 V^2 bytes), default "1/4"; e.g. CAPS="1/3 1/5".
# DEVICE: the -d SPEC, default gpu (DEVICE=0 tries the script on PoCL with small SIZES).
# REPS: runs per row, default 3; the table shows medians (compute: the solve's compute time from
#   --stats-json, the whole streamed solve after the first gathering pass; total: the command's
#   wall time). ratio = streamed relax/s over in-core relax/s.
# Then one profiled streamed run per size (APSP_PROFILE=1): each engine's busy time, the overlap
# and the first blocks' timeline, in $OUT/profile-V.log.
set -uo pipefail
sizes=${*:-20000 40000}
caps=${CAPS:-1/4}
reps=${REPS:-3}
device=${DEVICE:-gpu}
out=${OUT:-/tmp/apsp-stream}
work=/dev/shm/apsp-stream
build=${BUILD:-/tmp/build-stream}
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
$apsp --list-devices | grep '^[0-9]'

graph() { # V -> the anchors' graph with E = 20 V, seed 1
    local f="$work/g$1.in"
    [ -f "$f" ] || /tmp/anchor_graph "$1" $(($1 * 20)) 1 "$f"
    echo "$f"
}

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
calc() { awk "BEGIN {printf \"%.6f\", $1}"; } # awk: bc may be missing
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | tail -1; }

# run NAME V GRAPH ARGS...: REPS runs into $out/NAME-V-i.json; prints "compute total" medians.
run() {
    local name=$1 v=$2 g=$3 i
    shift 3
    for i in $(seq "$reps"); do
        local log="$out/$name-$v-$i.log"
        local start end
        # A fresh OUTPUT each run: replacing the last run's file would add its pages' release
        # (seconds for tens of GB on tmpfs) to the commit of this one.
        rm -f "$work/$name.out"
        start=$(date +%s.%N)
        $apsp -d "$device" --stats-json "$@" "$g" "$work/$name.out" 2>"$log" || { cat "$log" >&2; return 1; }
        end=$(date +%s.%N)
        echo "$(field compute_s "$log") $(calc "$end - $start")" >>"$out/$name-$v.times"
    done
    local c t
    c=$(cut -d' ' -f1 "$out/$name-$v.times" | median)
    t=$(cut -d' ' -f2 "$out/$name-$v.times" | median)
    echo "$c $t"
}

printf '%-7s %-8s %6s %7s %9s %9s %10s %6s %8s %s\n' V mode K blocks compute_s total_s \
    G_relax/s ratio bus_GB/s output | tee -a "$summary"
for V in $sizes; do
    g=$(graph "$V")
    rm -f "$out"/*-"$V".times
    bytes=$((V * V * 4))
    read -r c t < <(run incore "$V" "$g") || continue
    padded=$(field padded "$out/incore-$V-1.log")
    relax=$(calc "$padded^3 / $c / 1e9")
    streamed=$(field streamed "$out/incore-$V-1.log")
    printf '%-7s %-8s %6s %7s %9.3f %9.3f %10.1f %6s %8s %s\n' "$V" in-core - - "$c" "$t" \
        "$relax" 1.00 - "streamed=$streamed" | tee -a "$summary"
    for cap in $caps; do
        name="cap$(echo "$cap" | tr / _)"
        limit=$(awk "BEGIN {printf \"%d\", $bytes * $cap}")
        read -r sc st < <(run "$name" "$V" "$g" --device-memory="$limit") || continue
        log="$out/$name-$V-1.log"
        srelax=$(calc "$padded^3 / $sc / 1e9")
        moved=$(calc "($(field stream_bytes_up "$log") + $(field stream_bytes_down "$log")) / $sc / 1e9")
        same=$(cmp -s "$work/incore.out" "$work/$name.out" && echo identical || echo DIFFERENT)
        printf '%-7s %-8s %6s %7s %9.3f %9.3f %10.1f %6.2f %8.1f %s\n' "$V" "$cap" \
            "$(field stream_pivots "$log")" "$(field stream_blocks "$log")" "$sc" "$st" \
            "$srelax" "$(calc "$srelax / $relax")" "$moved" "$same" | tee -a "$summary"
        [ "$(field streamed "$log")" = true ] || note "  $V $cap: did NOT stream"
    done
    first=$(echo "$caps" | cut -d' ' -f1)
    APSP_PROFILE=1 $apsp -d "$device" -v --device-memory="$(awk "BEGIN {printf \"%d\", $bytes * $first}")" "$g" \
        "$work/profiled.out" 2>"$out/profile-$V.log"
    grep 'stream profile\|streamed from' "$out/profile-$V.log" | sed "s/^/  V=$V: /" | tee -a "$summary"
    rm -f "$work"/*.out
done
note "logs in $out"
