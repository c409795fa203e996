#!/bin/bash
# Chosen sources on the GPU (issues 27 and 38): the device's batched Bellman-Ford
# (src/opencl/sssp.c, cl/sssp.cl) against the pthread Dijkstra in the same invocation, on the
# grid road proxy (tests/bench/grid_graph.py: SIDE x SIDE, 4 neighbours, seed 1; SOURCES spread
# evenly), one table per case of CASES (default all seven, in this order):
#   int32  weights 1-1000: int32 rows (issue 27: the GPU >= 10x the pthread run's compute);
#   int64  weights 1-100000: int64 rows by the path bound (issue 38: compute >= 10x, whole
#          run >= 5x);
#   real   fractional weights in (0, 1000] (a text edge list): float64 rows (compute >= 10x);
#   pred   int32's graph with --predecessors (written to a file in /dev/shm for both, removed
#          after each timed run as OUTPUT is: no run pays for freeing the last one's pages): the
#          GPU's whole run against int32's GPU whole run (issue 38: <= 1.3x) is printed at the end.
#   arcs   int32's grid with 20 long arcs of 2,000,000 both ways, as motorways are: (V - 1) max w
#          passes 2^31 but the sum of the V - 1 largest weights does not, so the rows stay int32
#          and the search stays on the device (issue 38.1); the run's log says the rows' type.
#   geo    a random geometric road-like graph of SIDE^2 vertices (tests/bench/geometric_graph.py:
#          3 nearest neighbours, weights in metres; needs SciPy: PYTHON names a python3 that has
#          it, default python3), the same sources;
#   geo-arcs  the same with 200 motorways of 20-100 km both ways: int32 rows by the path bound.
# and, named in CASES only (CASES=johnson):
#   johnson weights 1-500 moved by potentials in [0, 500) (negative weights, no negative cycle;
#          int32 rows): --method=johnson on both, the GPU's potentials by its Bellman-Ford and
#          its batched method over the reweighted edges (src/sssp/on_device_johnson.c) against
#          the pthread Johnson (issue 38.2).
# Rows are compared with cmp (identical expected in every case: float64 sums as the device's,
# docs/usage.md); the predecessors too, where a vertex with two shortest paths may differ (the
# device takes the least tail, Dijkstra the last to lower it: both shortest-path trees).
# From the repository root on a GPU machine whose OpenCL loader and NVIDIA ICD are set up:
#   bash tests/gpu/sssp.sh [SIDE] [SOURCES]          (default 1000 1000)
#   CASES="int64 real" bash tests/gpu/sssp.sh         (some of the cases)
# DEVICE: the -d SPEC of the GPU, by type or name, never an index (default gpu). THREADS: the
# pthread run's threads (default 16). REPS: runs of each, interleaved (default 3). BUILD, OUT:
# the build and results folders. Each timed run writes its S x V rows to /dev/null; one run of
# each writes them to files that cmp compares. The table: compute seconds (--stats-json's
# compute_s: the solve, rows handed to the writer included, their writing not), the whole
# command's seconds, the ratio of the medians, and the GPU run's parts (upload, rounds, kernels,
# download) from a run with APSP_PROFILE=1 (kernel times are summed per launch, which waits
# for each: that run is not in the table).
# AUTO (default 1): each case also runs REPS times as a user would, with neither -d nor --method
# (--threads only), and its row says which engine auto picked and how its whole run compares
# with the faster of the two engines' (issue 38.4: auto within 10 % of the faster); AUTO=0 skips.
# SINK=file: the timed and profiled runs write their rows to a file in /dev/shm (removed after
# each run) instead of /dev/null, so that the whole run counts the write and the output's
# preparation beside the rounds (issue 37.4, APSP_OVERLAP; "hidden" in the parts).
# BASE_BUILD: a second build folder whose GPU run is interleaved with these, compared with cmp
# and given its own row and parts, to time two forms of the kernels from one tree, e.g. the
# per-append form of cl/sssp.cl (src/opencl/sssp_setup.c: SSSP_APPEND_LOCAL):
#   meson setup /tmp/build-sssp-base -Dopencl=enabled -Dc_args=-DSSSP_APPEND_LOCAL=0
#   BASE_BUILD=/tmp/build-sssp-base bash tests/gpu/sssp.sh
# or the int64 case's compare-and-swap loop against atom_min (cl/sssp.cl: SSSP_FORCE_CAS):
#   meson setup /tmp/build-sssp-cas -Dopencl=enabled -Dc_args=-DSSSP_FORCE_CAS=1
#   BASE_BUILD=/tmp/build-sssp-cas CASES=int64 bash tests/gpu/sssp.sh
set -uo pipefail
side=${1:-1000}
count=${2:-1000}
device=${DEVICE:-gpu}
threads=${THREADS:-16}
reps=${REPS:-3}
out=${OUT:-/tmp/apsp-sssp}
build=${BUILD:-/tmp/build-sssp}
work=/dev/shm/apsp-sssp
mkdir -p "$out" "$work"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

source "$(dirname "$0")/preamble.sh"
BUILD_LOG=$out/build.log NINJA_TARGETS=src/apsp
build_apsp "$(pwd)" "$build"
apsp=$build/src/apsp
base_apsp=
if [ -n "${BASE_BUILD:-}" ]; then
    # (set up by hand with its own -Dc_args, above: built as it is, not set up again)
    ninja -C "$BASE_BUILD" src/apsp >>"$out/build.log" 2>&1 || build_failed "$out/build.log" 30
    base_apsp=$BASE_BUILD/src/apsp
fi
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
note "host: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
sources=$work/sources$side-$count.txt

cpu_args=(--backend=cpu --threads="$threads" --method=dijkstra)
gpu_args=(-d "$device" --method=bellman-ford)
sink=${SINK:-null}
target() { if [ "$sink" = file ]; then echo "$work/timed.out"; else echo /dev/null; fi; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | tail -1; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
note "grid ${side}x$side, S = $count, rows to $(target), tree $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# One run: its compute_s and whole seconds appended to $out/NAME.times; the log kept. RUN_APSP:
# the command, if not this build's.
run() {
    local name=$1 target=$2
    shift 2
    local log=$out/$name.log start end
    start=$(date +%s.%N)
    "${RUN_APSP:-$apsp}" -q -v --stats-json --output-format=npy "$@" "${more[@]}" \
        --sources=@"$sources" "$graph" "$target" 2>"$log" || { cat "$log" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$(field compute_s "$log") $(awk "BEGIN {print $end - $start}")" >>"$out/$name.times"
}

# One case: its graph, the timed runs interleaved, the outputs compared, the table.
one_case() {
    local case=$1 graph=$2
    shift 2
    more=("$@")
    note "== case $case: $(basename "$graph") $*"
    : >"$out/$case-cpu.times"
    : >"$out/$case-gpu.times"
    : >"$out/$case-base.times"
    : >"$out/$case-auto.times"
    auto() { [ "${AUTO:-1}" != 1 ] || run "$@" --threads="$threads"; }
    base() { [ -z "$base_apsp" ] || RUN_APSP=$base_apsp run "$@"; }
    run $case-gpu-warm /dev/null "${gpu_args[@]}" # the program built once, into the kernel cache
    base $case-base-warm /dev/null "${gpu_args[@]}"
    for i in $(seq "$reps"); do
        run $case-cpu "$(target)" "${cpu_args[@]}"
        rm -f "$work/timed.out" "$work/pred-run.pred"
        run $case-gpu "$(target)" "${gpu_args[@]}"
        rm -f "$work/timed.out" "$work/pred-run.pred"
        base $case-base "$(target)" "${gpu_args[@]}"
        rm -f "$work/timed.out" "$work/pred-run.pred"
        auto $case-auto "$(target)"
        rm -f "$work/timed.out" "$work/pred-run.pred"
    done
    grep '^apsp: method' "$out/$case-gpu.log" | tee -a "$summary"
    note "rows: $(field kernels "$out/$case-gpu.log"), GPU run's backend: $(field backend "$out/$case-gpu.log")"
    run $case-cpu-file "$work/$case-cpu.out" "${cpu_args[@]}"
    [ ! -f "$work/pred-run.pred" ] || mv "$work/pred-run.pred" "$work/pred-cpu.pred"
    run $case-gpu-file "$work/$case-gpu.out" "${gpu_args[@]}"
    [ ! -f "$work/pred-run.pred" ] || mv "$work/pred-run.pred" "$work/pred-gpu.pred"
    if cmp "$work/$case-cpu.out" "$work/$case-gpu.out"; then
        note "output: identical ($(stat -c %s "$work/$case-gpu.out") bytes)"
    else
        note "output: DIFFERENT"
    fi
    if [ -n "$base_apsp" ]; then
        base $case-base-file "$work/$case-base.out" "${gpu_args[@]}"
        if cmp "$work/$case-cpu.out" "$work/$case-base.out"; then
            note "BASE_BUILD output: identical"
        else
            note "BASE_BUILD output: DIFFERENT"
        fi
    fi
    rm -f "$work/$case-cpu.out" "$work/$case-gpu.out" "$work/$case-base.out"
    APSP_PROFILE=1 run $case-gpu-profile "$(target)" "${gpu_args[@]}"
    rm -f "$work/timed.out" "$work/pred-run.pred"
    APSP_PROFILE=1 base $case-base-profile "$(target)" "${gpu_args[@]}"
    rm -f "$work/timed.out" "$work/pred-run.pred"

    cpu_c=$(cut -d' ' -f1 "$out/$case-cpu.times" | median)
    cpu_w=$(cut -d' ' -f2 "$out/$case-cpu.times" | median)
    gpu_c=$(cut -d' ' -f1 "$out/$case-gpu.times" | median)
    gpu_w=$(cut -d' ' -f2 "$out/$case-gpu.times" | median)
    {
        printf '%-34s %10s %10s   %s\n' run compute_s whole_s "runs (compute)"
        printf '%-34s %10.3f %10.3f   %s\n' "pthread ${cpu_args[2]#--method=}, $threads threads" \
            "$cpu_c" "$cpu_w" "$(cut -d' ' -f1 "$out/$case-cpu.times" | tr '\n' ' ')"
        printf '%-34s %10.3f %10.3f   %s\n' "GPU ${gpu_args[2]#--method=} ($device)" \
            "$gpu_c" "$gpu_w" "$(cut -d' ' -f1 "$out/$case-gpu.times" | tr '\n' ' ')"
        if [ -n "$base_apsp" ]; then
            printf '%-34s %10.3f %10.3f   %s\n' "GPU, BASE_BUILD" \
                "$(cut -d' ' -f1 "$out/$case-base.times" | median)" \
                "$(cut -d' ' -f2 "$out/$case-base.times" | median)" \
                "$(cut -d' ' -f1 "$out/$case-base.times" | tr '\n' ' ')"
        fi
        awk -v a="$cpu_c" -v b="$gpu_c" -v c="$cpu_w" -v d="$gpu_w" \
            'BEGIN {printf "ratio (pthread / GPU)               %9.2fx %9.2fx\n", a / b, c / d}'
        if [ -s "$out/$case-auto.times" ]; then
            auto_w=$(cut -d' ' -f2 "$out/$case-auto.times" | median)
            printf '%-34s %10.3f %10.3f   %s\n' \
                "auto: $(field backend "$out/$case-auto.log") $(field method "$out/$case-auto.log")" \
                "$(cut -d' ' -f1 "$out/$case-auto.times" | median)" "$auto_w" \
                "$(cut -d' ' -f1 "$out/$case-auto.times" | tr '\n' ' ')"
            awk -v a="$auto_w" -v c="$cpu_w" -v g="$gpu_w" 'BEGIN {
                best = c < g ? c : g
                printf "auto whole / the faster engine'"'"'s whole: %.2fx (%s)\n", a / best,
                    a <= 1.1 * best ? "within 10 %" : "NOT within 10 %" }'
        fi
        echo "GPU parts (APSP_PROFILE=1 run): $(sed -n 's/.*"choice":"\([^"]*\)".*/\1/p' \
            "$out/$case-gpu-profile.log" | tail -1)"
        [ -z "$base_apsp" ] || echo "BASE_BUILD parts: $(sed -n 's/.*"choice":"\([^"]*\)".*/\1/p' \
            "$out/$case-base-profile.log" | tail -1)"
    } | tee -a "$summary"
    if [ "$case" = pred ]; then
        cmp -s "$work/pred-cpu.pred" "$work/pred-gpu.pred" && note "predecessors: identical" ||
            note "predecessors: differ where a vertex has two shortest paths (both trees)"
    fi
    rm -f "$work"/pred-*.pred
    echo "$gpu_w" >"$out/$case.gpu_whole"
}

grid=$work/grid$side.hw3
rm -f "$out"/*.gpu_whole
for case in ${CASES:-int32 int64 real pred arcs geo geo-arcs}; do
    case $case in
    int32) python3 tests/bench/grid_graph.py "$side" "$count" "$grid" "$sources" || exit 1
        one_case int32 "$grid" ;;
    int64) python3 tests/bench/grid_graph.py "$side" "$count" "$work/grid$side-wide.hw3" \
        "$sources" --max-weight=100000 || exit 1
        one_case int64 "$work/grid$side-wide.hw3" ;;
    real) python3 tests/bench/grid_graph.py "$side" "$count" "$work/grid$side-real.txt" \
        "$sources" --real || exit 1
        one_case real "$work/grid$side-real.txt" ;;
    pred) python3 tests/bench/grid_graph.py "$side" "$count" "$grid" "$sources" || exit 1
        one_case pred "$grid" --predecessors="$work/pred-run.pred" ;;
    arcs) python3 tests/bench/grid_graph.py "$side" "$count" "$work/grid$side-arcs.hw3" \
        "$sources" --long-arcs=20,2000000 || exit 1
        one_case arcs "$work/grid$side-arcs.hw3" ;;
    geo) "${PYTHON:-python3}" tests/bench/geometric_graph.py $((side * side)) "$count" \
        "$work/geo$side.hw3" "$sources" || exit 1
        one_case geo "$work/geo$side.hw3" ;;
    geo-arcs) "${PYTHON:-python3}" tests/bench/geometric_graph.py $((side * side)) "$count" \
        "$work/geo$side-arcs.hw3" "$sources" --long-arcs=200 || exit 1
        one_case geo-arcs "$work/geo$side-arcs.hw3" ;;
    johnson) python3 tests/bench/grid_graph.py "$side" "$count" "$work/grid$side-neg.hw3" \
        "$sources" --max-weight=500 --potentials=500 || exit 1
        cpu_args[2]=--method=johnson gpu_args[2]=--method=johnson
        one_case johnson "$work/grid$side-neg.hw3"
        cpu_args[2]=--method=dijkstra gpu_args[2]=--method=bellman-ford ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
    esac
done
if [ -f "$out/pred.gpu_whole" ] && [ -f "$out/int32.gpu_whole" ]; then
    awk -v p="$(cat "$out/pred.gpu_whole")" -v n="$(cat "$out/int32.gpu_whole")" \
        'BEGIN {printf "GPU whole run with --predecessors / without: %.2fx\n", p / n}' |
        tee -a "$summary"
fi
