# The build steps that the tests/gpu scripts share (sourced, not run:
# `source "$(dirname "$0")/preamble.sh"`): a source tree built with OpenCL, the bench of
# tests/gpu/bench.c against a build's static library, and tests/gpu/anchor_graph. Each step logs
# to $BUILD_LOG (default DIR.log) and, when it fails, shows the log's end and exits 1.
#   build_apsp SRC DIR [MESON_OPTION...]   DIR set up from SRC (-Dopencl=enabled -Dwerror=false
#                                          and the options; `meson configure` where DIR is set
#                                          up already), then ninja builds $NINJA_TARGETS (all)
#   build_bench SRC DIR BENCH              BENCH from SRC's bench.c and DIR/src/libapsp.a
#   build_anchor_graph                     /tmp/anchor_graph from this tree's anchor_graph.c
#   build_for_anchors DIR [MESON_OPTION...]
#                                          this tree built in DIR, `apsp` set to its command,
#                                          and /tmp/anchor_graph: how the scripts that time apsp
#                                          on the anchors' graphs start
# MESON (an array, default `meson`) is the command that sets up: whole.sh names another Python's.
# Every function works on any machine with OpenCL headers and a loader (PoCL too), so that a
# change here can be checked before it reaches the GPU host.

gpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ -n "${MESON+set}" ] || MESON=(meson)

build_failed() { # LOG LINES
    tail -"$2" "$1"
    exit 1
}

build_apsp() { # SRC DIR [MESON_OPTION...]
    local src=$1 dir=$2
    shift 2
    local log=${BUILD_LOG:-$dir.log}
    local options=(-Dopencl=enabled -Dwerror=false "$@")
    if [ -f "$dir/build.ninja" ]; then
        "${MESON[@]}" configure "$dir" "${options[@]}" >"$log" 2>&1
    else
        "${MESON[@]}" setup "$dir" "$src" "${options[@]}" >"$log" 2>&1
    fi || build_failed "$log" 30
    # shellcheck disable=SC2086 # NINJA_TARGETS: a list of targets, empty for all
    ninja -C "$dir" ${NINJA_TARGETS:-} >>"$log" 2>&1 || build_failed "$log" 40
}

build_bench() { # SRC DIR BENCH
    local src=$1 dir=$2 bench=$3
    local log=${BUILD_LOG:-$dir.log}
    local extra=()
    # (env_options.c: the bench reads APSP_DEVICE and the kernel options as the command does;
    # an older tree has none)
    [ -f "$src/src/cli/env_options.c" ] && extra=(-I"$src/src/cli" "$src/src/cli/env_options.c")
    # The static library's own dependencies (zlib, zstd, bzip2 where the build found them), as
    # its pkg-config file lists them; none for a tree that writes no such file.
    local private=()
    if [ -f "$dir/meson-private/apsp.pc" ]; then
        read -ra private < <(PKG_CONFIG_PATH="$dir/meson-private" pkg-config --static --libs apsp |
            tr ' ' '\n' | grep -v -e '^-lapsp$' -e '^-L' | tr '\n' ' ') || true
    fi
    gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I"$src/include" "${extra[@]}" -o "$bench" \
        "$src/tests/gpu/bench.c" "$dir/src/libapsp.a" "${private[@]}" -lOpenCL -lpthread -lm \
        -ldl >>"$log" 2>&1 || build_failed "$log" 30
}

build_anchor_graph() {
    gcc -O2 -o /tmp/anchor_graph "$gpu_root/tests/gpu/anchor_graph.c" || exit 1
}

build_for_anchors() { # DIR [MESON_OPTION...]
    build_apsp "$gpu_root" "$@"
    apsp=$1/src/apsp
    build_anchor_graph
}
