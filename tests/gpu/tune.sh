#!/bin/bash
# Searches a grid of kernel parameters on the current OpenCL device and prints the best entry to
# add to param_table in src/opencl/params.c.
#   bash tests/gpu/tune.sh [V] [REPS] [GRID_FILE]
# V (default 20000) is the size of the anchors' random graph (E = 20 V, seed 1); REPS (default 3)
# solves per entry, the median compute time counts. Each line of GRID_FILE (default: the grid
# below) is `TILE PARAMS [BUILD_OPTIONS...]` with PARAMS as in $APSP_KERNEL_PARAMS ("-" for
# none). Every result's checksum must equal the first entry's: a differing one is marked WRONG
# and never chosen. Needs tests/gpu/bench built ($BENCH, default /tmp/build-gpu/bench: run.sh
# builds it). Writes the full log to ${OUT:-/tmp/apsp-gpu}/tune.log; the last lines printed are
# the table and the best entry. $APSP_DEVICE selects the device. The default grid varies one or two
# parameters around the NVIDIA table entry; tests/gpu/NOTES.md has the grids run so far.
set -uo pipefail
V=${1:-20000}
reps=${2:-3}
grid_file=${3:-}
bench=${BENCH:-/tmp/build-gpu/bench}
out=${OUT:-/tmp/apsp-gpu}
mkdir -p "$out"
log="$out/tune.log"
: >"$log"

default_grid() {
    cat <<'EOF'
128 -
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=4
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=2
128 K_CHUNK=8,PREFETCH=1
128 K_CHUNK=8,PREFETCH=1,K_UNROLL=4
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=8,GROUP_ROWS=8
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=8,THREAD_COLS=4
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=8,THREAD_ROWS=4
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=8,THREAD_ROWS=4,THREAD_COLS=4
128 K_CHUNK=32,PREFETCH=1,K_UNROLL=8,THREAD_ROWS=4,THREAD_COLS=4
128 K_CHUNK=32,PREFETCH=0,K_UNROLL=8,THREAD_ROWS=4,THREAD_COLS=4
128 K_CHUNK=16,PREFETCH=1,K_UNROLL=8,PIVOT_ITEMS=32
64 K_CHUNK=16,PREFETCH=1,K_UNROLL=8
128 K_CHUNK=16,PREFETCH=0,K_UNROLL=8
128 PIVOT_SPLIT=1
128 PIVOT_SPLIT=2
EOF
}

if [ -n "$grid_file" ]; then grid=$(grep -v '^ *#' "$grid_file"); else grid=$(default_grid); fi

results=()
reference=""
while read -r tile params options; do
    [ -n "$tile" ] || continue
    [ "$params" = "-" ] && params=""
    echo "== tile=$tile params=${params:--} options=${options:--}" >>"$log"
    line=$(APSP_KERNEL_PARAMS="$params" APSP_BUILD_OPTIONS="${options:-}" \
        "$bench" "$V" $((V * 20)) 1 "$reps" "$tile" 2>&1 | tee -a "$log" | grep '^BENCH\|bench:' |
        tail -1)
    if [[ $line == BENCH* ]]; then
        t=$(sed -n 's/.*compute_median=\([0-9.]*\).*/\1/p' <<<"$line")
        rate=$(sed -n 's/.*Trelax_V=\([0-9.]*\).*/\1/p' <<<"$line")
        sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<<"$line")
        [ -n "$reference" ] || reference=$sum
        verdict=ok
        [ "$sum" = "$reference" ] || verdict=WRONG
        results+=("$t $rate $verdict $tile ${params:--} ${options:--}")
    else
        results+=("9999 0 FAILED $tile ${params:--} ${options:--} (${line:-no output})")
    fi
done <<<"$grid"

echo
echo "tune: V=$V, $reps solves per entry, median compute seconds (T relax/s counts V^3)"
printf '%-9s %-7s %-7s %-5s %-45s %s\n' seconds T/s check tile params options
printf '%s\n' "${results[@]}" | sort -n | tee -a "$log" |
    awk '{ printf "%-9s %-7s %-7s %-5s %-45s %s\n", $1, $2, $3, $4, $5, $6 }'
best=$(printf '%s\n' "${results[@]}" | awk '$3 == "ok"' | sort -n | head -1)
if [ -n "$best" ]; then
    read -r _ _ _ tile params options <<<"$best"
    echo "best: tile=$tile params=$params options=$options"
    [ "$params" = - ] && params=""
    [ "$options" = - ] && options=""
    printf 'TUNED_TILE=%q\nTUNED_PARAMS=%q\nTUNED_OPTIONS=%q\n' "$tile" "$params" "$options" \
        >"$out/tuned.env"
fi
