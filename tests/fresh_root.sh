#!/usr/bin/env bash
# A fresh Debian root (debootstrap, minbase) of this machine's own release, from its own mirror:
# the package test installs the .deb into one. `./setup.sh test` makes it in the background while
# the project builds (the download is network time the compilers do not need), into
# build/fresh-root; tests/package_test.sh copies that one when it is complete, and otherwise calls
# this script itself.
#   tests/fresh_root.sh DIR     exit 0: DIR holds the root and DIR/.complete; 2: it cannot be made
#                               here (not root, no debootstrap, no mirror), the reason on stdout
set -euo pipefail
dir=$1
[ "$(id -u)" -eq 0 ] || { echo "needs root (debootstrap, chroot, mount)"; exit 2; }
command -v debootstrap >/dev/null || { echo "debootstrap is not installed"; exit 2; }
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(apt-cache policy | grep -oE 'https?://[^ ]+' | grep -v security | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
rm -rf "$dir"
mkdir -p "$dir"
debootstrap --variant=minbase "$suite" "$dir" "$mirror" >"$dir.log" 2>&1 ||
  { echo "debootstrap $suite from $mirror failed: $(tail -1 "$dir.log")"; exit 2; }
# The package lists too, so that installing the .deb only downloads what it needs.
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
chroot "$dir" apt-get update -qq >>"$dir.log" 2>&1 || { echo "apt-get update failed in the root: $(tail -1 "$dir.log")"; exit 2; }
touch "$dir/.complete"
echo "a fresh $suite root from $mirror in $dir"
