#!/bin/bash
# Installs whichever of the named Debian packages are missing (with sudo unless root).
#   bash tools/install-packages.sh PACKAGE...
# Another apt or dpkg (unattended-upgrades on a fresh machine, often) holds the package lock for
# minutes: apt waits for it up to APSP_APT_LOCK_WAIT seconds (default 600), then this says what
# to do instead of apt's own message.
set -euo pipefail
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
wait_lock=(-o "DPkg::Lock::Timeout=${APSP_APT_LOCK_WAIT:-600}")
apt_failed() {
    echo "install-packages: apt-get $1 failed (exit $2). If another apt or dpkg holds the lock" \
        "(ps -C apt,apt-get,dpkg,unattended-upgr), wait for it and run this again, or set" \
        "APSP_APT_LOCK_WAIT=SECONDS to wait longer; else install by hand: ${missing[*]}" >&2
    exit "$2"
}
# apt waits for dpkg's lock itself, but not for the package lists' (`update`): retried here.
deadline=$(($(date +%s) + ${APSP_APT_LOCK_WAIT:-600}))
until $sudo apt-get "${wait_lock[@]}" update -qq; do
    status=$?
    [ "$(date +%s)" -lt "$deadline" ] || apt_failed update $status
    echo "install-packages: apt-get update failed (exit $status); trying again in 10 s" >&2
    sleep 10
done
DEBIAN_FRONTEND=noninteractive $sudo apt-get "${wait_lock[@]}" install -y -qq \
    --no-install-recommends "${missing[@]}" || apt_failed install $?
