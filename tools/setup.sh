#!/bin/bash
# The whole set-up on a fresh Debian or Ubuntu machine: installs what is missing, builds apsp
# in ./build, solves the bundled example graph, and installs `apsp` into ~/.local/bin (a prefix
# the user owns: no sudo). Safe to run again.
#   bash tools/setup.sh            (APSP_WERROR=1 turns warnings into errors, as CI does;
#                                   APSP_PREFIX=DIR installs under DIR instead of ~/.local)
set -euo pipefail
cd "$(dirname "$0")/.."

# clang-14 and libclc-14 (libclc's amdgcn bitcode): the suite's AMD compile check
# (tests/amd/compile.py), which fails instead of skipping in CI.
# python3-numpy, -scipy, -networkx: the independent oracles of tests/cli/test_scipy.py.
# python3-pytest: the harness of the Python tests (tests/support/harness.py).
# python3-sparse: pydata/sparse arrays, which the Python package takes as SciPy does
# (tests/python/test_scipy.py's test_pydata_sparse).
# Open MPI: apsp-mpi and its tests.
# zlib1g-dev, libzstd-dev, libbz2-dev: gzip, zstd and bzip2 inputs (each optional at build).
# man-db, bash-completion: `man apsp` and the completions that meson install puts beside bin/.
bash tools/install-packages.sh build-essential meson ninja-build pkg-config python3 \
    ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo oclgrind clang-14 libclc-14 \
    python3-numpy python3-scipy python3-networkx python3-sparse python3-pytest \
    libopenmpi-dev openmpi-bin python3-venv python3-pip python3-dev zlib1g-dev libzstd-dev \
    libbz2-dev man-db bash-completion

werror=false
[ "${APSP_WERROR:-0}" = 1 ] && werror=true
prefix=${APSP_PREFIX:-$HOME/.local}
if [ -d build ]; then
    meson configure build --prefix="$prefix" -Dwerror=$werror -Dopencl=enabled >/dev/null
else
    meson setup build --prefix="$prefix" -Dwerror=$werror -Dopencl=enabled
fi
ninja -C build
bash tools/install.sh build
echo "setup: installed apsp in $prefix/bin; solving testcases/example.in with it"
"$prefix/bin/apsp" -v testcases/example.in build/example.out
cmp build/example.out testcases/example.out && echo "setup: build/example.out matches testcases/example.out"

# Debian's and Ubuntu's ~/.profile put ~/.local/bin on PATH at login once the folder exists; until
# then (or for another prefix) the user adds it.
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "setup: $prefix/bin is not on your PATH: run  export PATH=\"$prefix/bin:\$PATH\"  (and add it to ~/.profile)" ;;
esac
# man-db takes PREFIX/share/man for each PREFIX/bin on PATH (manpath(5)), so `man apsp` needs no
# MANPATH; bash-completion loads ~/.local/share/bash-completion/completions/apsp by itself; zsh
# reads only the folders on its fpath.
echo "setup: man apsp (and man apsp-mpi) once $prefix/bin is on PATH: man-db then finds $prefix/share/man"
if [ "$prefix" = "$HOME/.local" ]; then
    echo "setup: bash completes apsp's options in new shells (bash-completion loads $prefix/share/bash-completion/completions/apsp)"
else
    echo "setup: bash completion: source $prefix/share/bash-completion/completions/apsp in ~/.bashrc"
fi
echo "setup: zsh completion: put  fpath=($prefix/share/zsh/site-functions \$fpath)  before compinit in ~/.zshrc"
