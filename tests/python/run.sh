#!/bin/bash
# The Python package's tests against the installed package, as a user gets it: a fresh venv
# (Debian's numpy and scipy through --system-site-packages, NetworkX >= 3.2, pytest, mypy, tqdm,
# pandas and pyarrow from the package index), `pip install` of the source tree (meson-python
# builds in a temporary directory, so the source tree is left as it was), then pytest on a copy
# of tests/python/ run from outside the source tree.
#   tests/python/run.sh SOURCE_ROOT [PYTEST_ARGS...]
# Exit 77 (skipped) when no package index is reachable, unless CI is set.
set -euo pipefail
src=$(cd "${1:?usage: run.sh SOURCE_ROOT [PYTEST_ARGS...]}" && pwd)
shift

# Debian's interpreter, whose numpy and scipy the venv borrows; else the first python3.
python=python3
if /usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null; then
    python=/usr/bin/python3
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/apsp-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check --no-input)

# pandas and pyarrow (test_tables.py) of versions that run on the interpreter's NumPy: unpinned,
# pip puts NumPy 2 into the venv for pandas 3, which Debian's SciPy 1.10 cannot load, and
# pyarrow 26 needs NumPy 2 at import (its metadata does not say so; 20 runs on NumPy 1.24).
tables=(numpy pandas pyarrow)
if version=$("$python" -c 'import numpy; print(numpy.__version__)' 2>/dev/null); then
    tables=("numpy==$version" pandas pyarrow)
    case "$version" in 1.*) tables=("numpy==$version" pandas 'pyarrow<21') ;; esac
fi
# (mypy and tqdm: test_style.py's type check and progress bar)
if ! "${pip[@]}" install -q 'networkx>=3.2' pytest "${tables[@]}" scipy mypy tqdm \
    >"$work/deps.log" 2>&1; then
    if [ -z "${CI:-}" ] && grep -qiE 'connection|resolve|network|timed out' "$work/deps.log"; then
        echo "run.sh: no package index reachable: skipped"
        cat "$work/deps.log"
        exit 77
    fi
    cat "$work/deps.log"
    exit 1
fi
echo "run.sh: pip install $src"
"${pip[@]}" install -q --no-deps --no-cache-dir --config-settings=build-dir="$work/build" "$src"

mkdir "$work/tests"
cp "$src"/tests/python/*.py "$work/tests/"
cd "$work/tests"
export APSP_SOURCE_ROOT="$src" PYTHONDONTWRITEBYTECODE=1
"$work/venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$@"
