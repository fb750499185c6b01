#!/usr/bin/env bash
# The Debian package, as `cpack -G DEB` makes it from the build folder:
#   1. its name is poslab_VERSION_ARCH.deb and its control file lists the Debian runtime packages
#      PosLab needs: the shared libraries' packages (computed by dpkg-shlibdeps) and the fonts;
#   2. it holds the binary, the data, the desktop entry, the icons and the manual page under /usr;
#   3. its dependencies are enough: every library the binary loads, the fonts it opens and Mesa's
#      drivers belong to packages that installing it pulls in (the dependency closure, from apt);
#   4. where the test can (root, debootstrap, a Debian mirror): installed with apt into a fresh
#      Debian root made here, `poslab` runs there — an export with the same pixels as the build's,
#      and the window (from the desktop entry's Exec line) on this machine's Xvfb.
# POSLAB_FRESH_ROOT=0 skips 4.
#   tests/package_test.sh BUILD_DIR PNG_PROBE
set -euo pipefail
build=$(realpath "$1")
probe=$(realpath "$2")
work=$(mktemp -d)
xvfb_pid=
cleanup() {
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  # Every mount inside the work folder (the root's /proc, the X socket, any debootstrap left),
  # deepest first, before the folder is removed: rm must never reach through into them.
  awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" || true; done
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# --- 1. The package and its control file --------------------------------------------------------
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
version=$("$build/poslab" --version | sed 's/^poslab //')
arch=$(dpkg --print-architecture)
deb="$work/out/poslab_${version}_${arch}.deb"
[ -s "$deb" ] || { echo "FAIL: no $(basename "$deb"); cpack made: $(ls "$work/out")"; exit 1; }
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = poslab ] || fail "Package is $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version is $(field Version)"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture is $(field Architecture)"
depends=$(field Depends)
echo "$(basename "$deb"): Depends: $depends"
# Names only, one a line (versions and alternatives dropped).
dependencies=$(tr ',' '\n' <<<"$depends" | sed -E 's/\|.*//; s/\(.*\)//; s/ //g' | grep -v '^$')
for needed in libc6 libstdc++6 libglfw3 libegl1 libgomp1 libpcre2-8-0 libicu72 libstb0 fonts-dejavu-core fonts-noto-cjk libcurl4 ca-certificates; do
  grep -qx "$needed" <<<"$dependencies" || fail "Depends lacks $needed"
done

# --- 2. Its contents ----------------------------------------------------------------------------
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/poslab ./usr/share/poslab/glove-wink-100d-10k.txt ./usr/share/applications/poslab.desktop \
  ./usr/share/icons/hicolor/scalable/apps/poslab.svg ./usr/share/icons/hicolor/48x48/apps/poslab.png \
  ./usr/share/man/man1/poslab.1; do
  grep -qx -- "$f" <<<"$contents" || fail "the package lacks ${f#.}"
done
# The Python module, when this build has one (its interpreter and NumPy are only recommended).
if [ -d "$build/python/poslab" ]; then
  for f in ./usr/lib/python3/dist-packages/poslab/__init__.py; do
    grep -qx -- "$f" <<<"$contents" || fail "the package lacks ${f#.}"
  done
  grep -q '^./usr/lib/python3/dist-packages/poslab/_poslab\..*\.so$' <<<"$contents" || fail "the package lacks the compiled module"
fi
echo "contents: $(grep -vc '/$' <<<"$contents") files under /usr: the binary, share/poslab, the desktop entry, icons, man page"

# --- 3. The dependencies are enough -------------------------------------------------------------
dpkg-deb -x "$deb" "$work/root"
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
  --no-enhances $dependencies | grep -v '^ ' | grep -v '^<' | sort -u)
needed_files=$(ldd "$work/root/usr/bin/poslab" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
# Opened at run time, where ldd cannot see them: the fonts (by path) and Mesa's GL, EGL and DRI drivers.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
needed_files+=$'\n'"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
/usr/lib/$multiarch/libGLX_mesa.so.0
/usr/lib/$multiarch/libEGL_mesa.so.0
/usr/lib/$multiarch/dri/swrast_dri.so"
# Each file's owner from one dpkg -S over every spelling of every path (with and without Debian's
# merged /usr): a call a path took about 100 s in all here, each call reading dpkg's whole database.
candidates() { printf '%s\n' "$1" "$(realpath "$1")" "${1#/usr}" "/usr$1"; }
declare -A owner_of
while IFS= read -r line; do
  case $line in "diversion by"*) continue ;; esac
  package=${line%%:*}  # "libc6:amd64: /lib/…" → libc6; "a, b: /path" → a
  package=${package%%,*}
  path=${line#*: }
  [ -n "${owner_of[$path]:-}" ] || owner_of[$path]=$package
done < <(for f in $needed_files; do candidates "$f"; done | sort -u | xargs dpkg -S 2>/dev/null || true)
owner() {  # the package that installed FILE, or ?
  local path
  for path in $(candidates "$1"); do
    [ -z "${owner_of[$path]:-}" ] || { echo "${owner_of[$path]}"; return 0; }
  done
  echo "?"
}
for f in $needed_files; do
  p=$(owner "$f")
  if [ "$p" = "?" ]; then fail "no package owns $f"; continue; fi
  grep -qx "$p" <<<"$closure" || fail "$f comes from $p, which installing poslab does not pull in"
done
echo "every library, font and driver poslab loads comes with its dependencies ($(wc -l <<<"$closure") packages in their closure)"

# --- 4. Installed into a fresh Debian root ------------------------------------------------------
fresh_root() {
  [ "${POSLAB_FRESH_ROOT:-1}" != 0 ] || { echo "skipped: POSLAB_FRESH_ROOT=0"; return 2; }
  [ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (chroot, mount)"; return 2; }
  local root="$work/fresh" made
  # The root ./setup.sh test made while the project built (copied, so that it stays fresh for a
  # rerun), where it is complete and from today (its package lists must still match the mirror);
  # otherwise one made here.
  if [ -n "$(find "$build/fresh-root/.complete" -mmin -720 2>/dev/null)" ]; then
    cp -a "$build/fresh-root" "$root"
    echo "a fresh root from $build/fresh-root"
  else
    made=$("$(dirname "${BASH_SOURCE[0]}")/fresh_root.sh" "$root") || { echo "skipped: $made"; return 2; }
    echo "$made"
  fi
  mount -t proc proc "$root/proc" || { echo "skipped: cannot mount /proc in the root (no privilege here)"; return 2; }
  cp "$deb" "$root/tmp/"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  chroot "$root" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb")" \
    >"$work/apt.log" 2>&1 || { echo "FAIL: apt cannot install the package: $(tail -5 "$work/apt.log")"; return 1; }
  echo "apt installed $(basename "$deb") into the fresh root ($(chroot "$root" dpkg-query -W | wc -l) packages)"
  chroot "$root" sh -c 'cd /tmp && poslab --version && poslab info | head -1 && poslab export attention --png /tmp/a.png' \
    || { echo "FAIL: poslab does not run in the fresh root"; return 1; }
  "$build/poslab" export attention --png "$work/build.png" >/dev/null
  cmp -s "$root/tmp/a.png" "$work/build.png" || { echo "FAIL: the installed poslab's export differs from the build's"; return 1; }
  echo "the packaged poslab finds /usr/share/poslab and exports the build's own pixels"
  # The window, started as the menu would, drawing on an Xvfb of this machine.
  local display exec_line
  exec_line=$(sed -n 's/^Exec=//p' "$root/usr/share/applications/poslab.desktop")
  Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$work/display" >/dev/null 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 1 50); do [ -s "$work/display" ] && break; sleep 0.1; done
  display=:$(head -1 "$work/display")
  mkdir -p "$root/tmp/.X11-unix"
  mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix" || { echo "FAIL: cannot share the X socket with the root"; return 1; }
  chroot "$root" env DISPLAY="$display" HOME=/tmp/home sh -c "cd /tmp && $exec_line --size 1280x800 --frames 3 --screenshot /tmp/gui.png" \
    >"$work/gui.log" 2>&1 || { echo "FAIL: the window did not open in the fresh root: $(tail -3 "$work/gui.log")"; return 1; }
  [ "$("$probe" size "$root/tmp/gui.png")" = "1280 800" ] || { echo "FAIL: no 1280 × 800 screenshot from the fresh root"; return 1; }
  echo "the desktop entry's Exec line ($exec_line) opens the window in the fresh root"
}
set +e
fresh_root >"$work/fresh.log" 2>&1
status=$?
set -e
sed 's/^/fresh root: /' "$work/fresh.log"
[ "$status" -ne 1 ] || failures=$((failures + 1))

[ "$failures" -eq 0 ] || exit 1
echo "package OK"
