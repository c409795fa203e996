#!/bin/bash
# The whole set-up on a fresh Debian or Ubuntu machine: installs what is missing, builds apsp
# in ./build, and solves the bundled example graph. Safe to run again.
#   bash tools/setup.sh            (APSP_WERROR=1 turns warnings into errors, as CI does)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential meson ninja-build pkg-config python3
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

werror=false
[ "${APSP_WERROR:-0}" = 1 ] && werror=true
if [ -d build ]; then
    meson configure build -Dwerror=$werror -Dopencl=enabled >/dev/null
else
    meson setup build -Dwerror=$werror -Dopencl=enabled
fi
ninja -C build

echo "setup: solving testcases/example.in"
build/src/apsp -v testcases/example.in build/example.out
cmp build/example.out testcases/example.out && echo "setup: build/example.out matches testcases/example.out"
