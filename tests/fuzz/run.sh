#!/bin/bash
# Fuzzes every reader and the kernel cache's file parser with libFuzzer, ASan and UBSan for SECONDS
# in all (default 60, shared equally by the five): hw3 (tests/fuzz/fuzz_hw3.c, checks in
# hw3_check.c), DIMACS, Matrix Market and edge lists (fuzz_text.c, one harness each, checks in
# text_check.c), cache files (fuzz_cache_file.c, checks in cache_check.c); then prints, for each,
# the executions, coverage and corpus size.
#
#   bash tests/fuzz/run.sh [SECONDS]
#
# Configures build-fuzz (clang, -Dfuzzing=true -Dopencl=disabled) if it does not exist and
# builds only the harnesses. Each corpus grows in build-fuzz/fuzz/NAME/corpus across runs; the
# seeds (tests/fuzz/make_seeds.py and testcases/*.in for hw3, make_text_seeds.py for the text
# readers, make_cache_seeds.py for cache files) and tests/fuzz/regressions/ (hw3) and
# regressions/FORMAT/ (FORMAT: dimacs, mtx, edgelist, cache-file) are read, never written. A crash is
# saved under build-fuzz/fuzz/NAME/crashes/ and makes this script fail: copy it to
# tests/fuzz/regressions/ (hw3) or regressions/FORMAT/ (with a name saying what it is), fix the
# bug, and the normal suite replays it from then on. APSP_FUZZ_BUILD overrides the build directory; APSP_WERROR=1 adds
# -Dwerror=true to a new one. Needs clang and its runtime (Debian 12: apt-get install clang
# libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=${APSP_FUZZ_BUILD:-build-fuzz}

werror=false
[ "${APSP_WERROR:-0}" = 1 ] && werror=true
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzzing=true -Db_lundef=false -Dopencl=disabled \
        -Dbuildtype=debugoptimized -Dwerror=$werror
fi
ninja -C "$build" tests/fuzz/fuzz-hw3 tests/fuzz/fuzz-dimacs tests/fuzz/fuzz-mtx \
    tests/fuzz/fuzz-edgelist tests/fuzz/fuzz-cache-file

share=$((seconds / 5))
[ "$share" -ge 1 ] || share=1
failed=0

# fuzz_one NAME SEEDS REGRESSIONS: one harness for `share` seconds.
fuzz_one() {
    local name=$1 seeds=$2 regressions=$3
    local work=$build/fuzz/$name
    local crashes
    crashes=$work/crashes/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$work/corpus" "$crashes"
    local log=$work/fuzz.log
    echo "fuzz $name: $share s, log in $log"
    local rc=0
    UBSAN_OPTIONS=print_stacktrace=1 "$build/tests/fuzz/fuzz-$name" \
        -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$share" \
        -dict="tests/fuzz/$name.dict" -use_value_profile=1 -print_final_stats=1 \
        -artifact_prefix="$crashes/" \
        "$work/corpus" "$seeds" "$regressions" >"$log" 2>&1 || rc=$?

    # The last status line: "#N DONE cov: C ft: F corp: K/SIZE lim: L exec/s: R rss: M".
    local status edges execs rate cov ft corp
    status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    edges=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" |
        head -n 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$status")
    echo "fuzz $name: ${execs:-?} executions in $share s (${rate:-?}/s)"
    echo "fuzz $name: coverage ${cov:-?} of ${edges:-?} instrumented edges (library and harness)," \
        "${ft:-?} features"
    echo "fuzz $name: corpus ${corp:-?} (inputs/bytes kept in memory); $(find "$work/corpus" \
        -type f | wc -l) files in $work/corpus"

    local found
    found=$(find "$crashes" -type f | wc -l)
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "fuzz $name: FAILED (libFuzzer exit $rc); the end of $log:"
        grep -v -E '^#[0-9]+ +(NEW|REDUCE|pulse)' "$log" | tail -n 40
        echo "fuzz $name: $found input(s) saved in $crashes:"
        find "$crashes" -type f -exec ls -l {} +
        echo "fuzz $name: replay one with $build/tests/fuzz/fuzz-$name FILE; keep it as a" \
            "regression in $regressions"
        failed=1
        return
    fi
    rmdir "$crashes" 2>/dev/null || true
    echo "fuzz $name: no crash"
}

seeds=$build/fuzz/seeds
rm -rf "$seeds"
python3 tests/fuzz/make_seeds.py "$seeds/hw3"
cp testcases/*.in "$seeds/hw3/"
python3 tests/fuzz/make_text_seeds.py "$seeds"
python3 tests/fuzz/make_cache_seeds.py "$seeds/cache-file"

fuzz_one hw3 "$seeds/hw3" tests/fuzz/regressions
for name in dimacs mtx edgelist cache-file; do
    fuzz_one "$name" "$seeds/$name" "tests/fuzz/regressions/$name"
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: no crash in any reader or in the cache file parser"
