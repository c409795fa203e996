#!/bin/bash
# The binary wheel as a user without a compiler gets it (docs/wheel.md): tools/build-wheel.sh
# builds it into a wheelhouse, which `pip download` fills with numpy, scipy, networkx, pytest,
# mypy, tqdm, pandas and pyarrow wheels; a fresh venv (no system packages) installs from that
# wheelhouse alone, binaries only, with no C compiler on PATH; then the installed apsp command
# (its version, the example's bytes, the pthread backend when no OpenCL platform is registered)
# and the Python suite of tests/python/ from outside the source tree; then a fresh venv of each CPython here
# (Debian's, pyenv's 3.9 and later) installs the same wheel and runs a smoke test.
#   tests/python/wheel.sh SOURCE_ROOT [PYTEST_ARGS...]
# Exit 77 (skipped) when no package index is reachable, unless CI is set.
set -euo pipefail
src=$(cd "${1:?usage: wheel.sh SOURCE_ROOT [PYTEST_ARGS...]}" && pwd)
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/apsp-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
wheelhouse="$work/wheelhouse"

bash "$src/tools/build-wheel.sh" "$wheelhouse"
python3 -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check --no-input)
# (mypy and tqdm: test_style.py's type check and progress bar; pandas and pyarrow: test_tables.py)
if ! "${pip[@]}" download -q --only-binary=:all: --dest "$wheelhouse" numpy scipy \
    'networkx>=3.2' pytest mypy tqdm pandas pyarrow >"$work/download.log" 2>&1; then
    if [ -z "${CI:-}" ] && grep -qiE 'connection|resolve|network|timed out' "$work/download.log"; then
        echo "wheel.sh: no package index reachable: skipped"
        cat "$work/download.log"
        exit 77
    fi
    cat "$work/download.log"
    exit 1
fi

# A PATH without a C compiler: the venv's bin and links to every other program of the system.
mkdir "$work/bin"
for program in /usr/local/bin/* /usr/bin/* /bin/*; do
    name=$(basename "$program")
    case "$name" in
    cc | c89 | c99 | cpp | c++ | gcc* | g++* | clang* | tcc | *-gcc* | *-g++* | *-cpp*) continue ;;
    esac
    [ -e "$work/bin/$name" ] || ln -s "$program" "$work/bin/$name"
done
export PATH="$work/venv/bin:$work/bin"
for compiler in cc gcc clang c99; do
    if command -v "$compiler" >/dev/null; then
        echo "wheel.sh: $compiler is still on PATH" >&2
        exit 1
    fi
done

"${pip[@]}" install -q --only-binary=:all: --no-index --find-links "$wheelhouse" apsp numpy scipy \
    'networkx>=3.2' pytest mypy tqdm pandas pyarrow
echo "wheel.sh: installed $(basename "$wheelhouse"/apsp-*.whl)"

# The command from the venv's bin: its version, and the example's bytes.
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$src/meson.build")
[ "$(apsp --version)" = "apsp $version" ] || {
    echo "wheel.sh: apsp --version says '$(apsp --version)', not 'apsp $version'" >&2
    exit 1
}
apsp "$src/testcases/example.in" "$work/example.out"
cmp "$work/example.out" "$src/testcases/example.out"

# No OpenCL platform registered (an empty vendors directory): the command and the package run
# on the pthread backend, -v says why once, and the distances are SciPy's. (The command's graph
# is padded to V = 2000 and solved on one thread: auto asks OpenCL only for a graph the pthread
# backend would take over 0.1 s on, and it reads the graph before it chooses.)
mkdir "$work/no-vendors"
OCL_ICD_VENDORS="$work/no-vendors" python - "$work" <<'PY'
import subprocess, sys
import numpy as np, scipy.sparse.csgraph as cs
import apsp
work = sys.argv[1]
assert [d["type"] for d in apsp.devices()] == ["host"], apsp.devices()
rng = np.random.default_rng(1)
w = rng.integers(1, 100, (1000, 1000)) * (rng.random((1000, 1000)) < 0.01)
assert np.array_equal(apsp.floyd_warshall(w), cs.floyd_warshall(w))
with open(work + "/g.txt", "w") as f:
    f.writelines("%d %d %d\n" % (i, j, w[i, j]) for i, j in zip(*np.nonzero(w)))
run = subprocess.run(["apsp", "-v", "--threads=1", "--vertices=2000", work + "/g.txt",
                      work + "/d.npy"], stderr=subprocess.PIPE, text=True)
assert run.returncode == 0, run.stderr
assert run.stderr.startswith("apsp: backend cpu "), run.stderr
assert run.stderr.count("found no platform") == 1, run.stderr
d = np.load(work + "/d.npy")
expected = np.full((2000, 2000), np.inf)
expected[:1000, :1000] = cs.floyd_warshall(w)
np.fill_diagonal(expected, 0)
assert np.array_equal(np.where(d == apsp.INF32, np.inf, d), expected)
print("wheel.sh: no OpenCL platform: apsp and the package on the pthread backend, SciPy's answer")
PY

# A registered platform that cannot start is named by --list-devices, as from a source build
# (the CLI finds the bundled loader, which auditwheel renamed).
mkdir "$work/bad-vendor"
echo /nonexistent/libOpenCL-driver.so >"$work/bad-vendor/bad.icd"
OCL_ICD_VENDORS="$work/bad-vendor" apsp --list-devices >"$work/bad-vendor.txt"
grep -q '^not listed: OpenCL platform /nonexistent/libOpenCL-driver.so .* did not start' \
    "$work/bad-vendor.txt"

# Every CPython this machine has (Debian's, pyenv's 3.9 and later): a fresh venv each that installs
# the wheel, binaries only (NumPy and SciPy from the package index where it has them for that
# version), then the smoke test below and the command's bytes on the example.
smoke=$(cat <<'PY'
import numpy as np, apsp
inf = np.inf
w = np.array([[0, 1, inf, 7], [inf, 0, 2, inf], [4, inf, 0, 1], [inf, inf, inf, 0]])
want = np.array([[0, 1, 3, 4], [6, 0, 2, 3], [4, 5, 0, 1], [inf, inf, inf, 0]])  # by hand
assert np.array_equal(apsp.floyd_warshall(w), want)
assert np.array_equal(apsp.floyd_warshall(np.asfortranarray(w, np.float32)), want)
try:
    import scipy.sparse, scipy.sparse.csgraph as cs
except ImportError:
    cs = None
if cs:
    rng = np.random.default_rng(2)
    g = rng.integers(1, 50, (300, 300)) * (rng.random((300, 300)) < 0.02)
    assert np.array_equal(apsp.floyd_warshall(g), cs.floyd_warshall(g))
    assert np.array_equal(apsp.floyd_warshall(scipy.sparse.csr_matrix(g)), cs.floyd_warshall(g))
    rows = [0, 5]
    assert np.array_equal(apsp.shortest_path(g, indices=rows), cs.shortest_path(g, indices=rows))
print("with SciPy" if cs else "without SciPy: the hand-computed answer only")
PY
)
versions=0
for interpreter in /usr/bin/python3 "$HOME"/.pyenv/versions/3.*/bin/python3; do
    [ -x "$interpreter" ] || continue
    "$interpreter" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || continue
    version=$("$interpreter" -c 'import platform; print(platform.python_version())')
    [ "$interpreter" = /usr/bin/python3 ] && version="$version-system"
    venv="$work/venv-$version"
    "$interpreter" -m venv "$venv"
    vpip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input -q)
    wheel=("$wheelhouse"/apsp-*.whl) # the file itself: the index's "apsp", if any, is another
    "${vpip[@]}" install --only-binary=:all: "${wheel[0]}" scipy ||
        "${vpip[@]}" install --only-binary=:all: "${wheel[0]}"
    echo "wheel.sh: Python $version: $("$venv/bin/python" -c "$smoke")"
    "$venv/bin/apsp" "$src/testcases/example.in" "$work/example-$version.out"
    cmp "$work/example-$version.out" "$src/testcases/example.out"
    versions=$((versions + 1))
done
echo "wheel.sh: the wheel installed and passed in $versions CPythons besides the venv's $(python -V)"

mkdir "$work/tests"
cp "$src"/tests/python/*.py "$work/tests/"
cd "$work/tests"
export APSP_SOURCE_ROOT="$src" PYTHONDONTWRITEBYTECODE=1
python -m pytest -p no:cacheprovider -q -rs "$@"
