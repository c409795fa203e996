#!/bin/bash
# Memcheck over the pthread backend, the reader, the library API and the CLI: any invalid access,
# use of uninitialised memory, bad free, or definitely/indirectly lost block fails the run.
#
#   bash tests/valgrind/run.sh
#
# Builds build-valgrind (gcc, -O2 -g, -Dopencl=disabled: the OpenCL runtime is not what this
# checks, and PoCL's JIT under Memcheck would take far longer) if it does not exist, and only the
# six programs it runs. APSP_VALGRIND_BUILD overrides the directory. Memcheck's own exit code
# is 99 here, not 1, so that its reports are told apart from the programs' exit codes (apsp uses
# 1 to 6). About 20 s on two cores, plus the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${APSP_VALGRIND_BUILD:-build-valgrind}
VG_ERROR=99

if ! command -v valgrind >/dev/null; then
    echo "valgrind: not installed (Debian/Ubuntu: apt-get install valgrind)" >&2
    exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dopencl=disabled -Dbuildtype=debugoptimized -Dwerror=true
fi
ninja -C "$build" src/apsp tests/backends/test-backends tests/reader/test-reader \
    tests/api/test-api tests/reader/test-formats tests/random/test-random

logs=$build/valgrind
rm -rf "$logs"
mkdir -p "$logs/out"
# The tests' temporary directories go here too, so nothing is left in /tmp on a failure.
export TMPDIR=$PWD/$logs/out
# A missing device must not turn into a failure: only the pthread backend exists in this build.
unset APSP_TEST_REQUIRE_DEVICE APSP_DEVICE APSP_CPU_ISA

failures=0
runs=0
start_all=$SECONDS

# vg NAME EXPECTED_EXIT COMMAND...: runs COMMAND under Memcheck (one log per process, forks
# included); fails on a Memcheck error or an exit code other than EXPECTED_EXIT.
vg() {
    local name=$1 expected=$2
    shift 2
    local start=$SECONDS rc=0
    runs=$((runs + 1))
    valgrind --tool=memcheck --error-exitcode=$VG_ERROR --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --num-callers=30 --log-file="$logs/$name.%p.log" "$@" >"$logs/$name.stdout" 2>&1 ||
        rc=$?
    local reports
    reports=$(grep -h -E 'ERROR SUMMARY: [1-9]' "$logs/$name".*.log || true)
    if [ "$rc" -eq "$expected" ] && [ -z "$reports" ]; then
        printf 'valgrind: %-28s ok (%d s)\n' "$name" $((SECONDS - start))
        return 0
    fi
    failures=$((failures + 1))
    printf 'valgrind: %-28s FAILED: exit %d, expected %d (%d s)\n' "$name" "$rc" "$expected" \
        $((SECONDS - start))
    tail -n 20 "$logs/$name.stdout"
    for log in "$logs/$name".*.log; do
        if grep -q -E 'ERROR SUMMARY: [1-9]' "$log"; then
            echo "--- $log"
            grep -v -E '^==[0-9]+== *$' "$log" | head -n 80
        fi
    done
}

be=$build/tests/backends/test-backends
vg backends-threads-3 0 "$be" --backend=cpu --threads=3 --sizes=1,2,63,65,129,200,333
vg backends-threads-1 0 "$be" --backend=cpu --threads=1 --sizes=64,130 --shapes=random,chain,dups
APSP_CPU_ISA=portable vg backends-portable 0 "$be" --backend=cpu --threads=2 --sizes=3,70 \
    --shapes=random,zeros
vg random 0 "$build/tests/random/test-random" --graphs=30
vg reader 0 "$build/tests/reader/test-reader"
vg api 0 "$build/tests/api/test-api"
vg formats 0 "$build/tests/reader/test-formats"

apsp=$build/src/apsp
out=$logs/out
for case in example v1-empty v5-dups v65-disconnected v130-chain v200-dups; do
    vg "cli-$case" 0 "$apsp" --backend=cpu --threads=2 "testcases/$case.in" "$out/$case.out"
    if [ -f "$out/$case.out" ] && ! cmp -s "$out/$case.out" "testcases/$case.out"; then
        echo "valgrind: cli-$case: the output differs from testcases/$case.out"
        failures=$((failures + 1))
    fi
done
# The error paths free what they allocated too.
head -c 20 testcases/v5-dups.in >"$out/truncated.in"
vg cli-truncated-input 3 "$apsp" "$out/truncated.in" "$out/truncated.out"
vg cli-missing-output-dir 4 "$apsp" --backend=cpu testcases/example.in "$out/no/such/dir/x.out"
vg cli-bad-option 2 "$apsp" --threads=zero testcases/example.in "$out/bad.out"
# The text formats, through the command: an edge list both ways to .npy, a refused line.
printf '# x\n0 1 3\n1 2 4\n' >"$out/g.txt"
vg cli-edgelist 0 "$apsp" --backend=cpu --undirected "$out/g.txt" "$out/g.npy"
printf '0 1 3\n1 2\n' >"$out/bad.txt"
vg cli-edgelist-refused 3 "$apsp" --backend=cpu "$out/bad.txt" "$out/bad.npy"
vg cli-help 0 "$apsp" --help
vg cli-list-devices 0 "$apsp" --list-devices

echo "valgrind: $runs runs, $failures failed, $((SECONDS - start_all)) s; logs in $logs"
[ "$failures" -eq 0 ]
