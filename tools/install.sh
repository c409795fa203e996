#!/bin/bash
# Installs what a user runs and links against under the build's prefix (tools/setup.sh configures
# ~/.local): the `apsp` and `apsp-mpi` commands, the library, its headers and apsp.pc. Both
# commands are linked with the static library, so the installed ones need no RPATH and no
# LD_LIBRARY_PATH. The Python package (tag python-runtime) is left out: it is installed by pip
# (docs/wheel.md), which also puts `apsp` on the venv's PATH.
#   bash tools/install.sh BUILD [MESON-INSTALL-OPTION...]
#   e.g. --destdir DIR (tests/cli/test_install.py)
set -euo pipefail
build=$1
shift
meson install -C "$build" --quiet --tags bin,runtime,devel,man "$@"
