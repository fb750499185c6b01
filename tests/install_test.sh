#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, as a person or a distribution installs PosLab:
#   1. the tree: bin/poslab, share/poslab/ (the default embeddings), the desktop entry, the icon
#      as SVG and as PNG at each size, the manual page;
#   2. the installed binary runs with the source tree out of sight and finds its data under its
#      prefix (in a mount namespace where the source tree is an empty folder, where the test may
#      make one; else from a copy of the tree at another prefix); POSLAB_ASSETS still overrides;
#   3. the desktop entry passes desktop-file-validate, and its Exec line opens the window;
#   4. the manual page renders with man -l without a warning and names every option of --help.
#   tests/install_test.sh BUILD_DIR SOURCE_DIR PNG_PROBE
set -euo pipefail
build=$(realpath "$1")
source_dir=$(realpath "$2")
probe=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
export HOME="$work/home" XDG_CONFIG_HOME="$work/config"
mkdir -p "$HOME"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

cmake --install "$build" --prefix "$prefix" >/dev/null

# --- 1. The tree --------------------------------------------------------------------------------
for f in bin/poslab share/poslab/glove-wink-100d-10k.txt share/poslab/sample_sentences.txt \
  share/applications/poslab.desktop share/icons/hicolor/scalable/apps/poslab.svg share/man/man1/poslab.1; do
  [ -s "$prefix/$f" ] || fail "$f is not installed"
done
[ -x "$prefix/bin/poslab" ] || fail "bin/poslab is not executable"
icons=0
for png in "$prefix"/share/icons/hicolor/*x*/apps/poslab.png; do
  expected=$(basename "$(dirname "$(dirname "$png")")")  # 48x48
  size=$("$probe" size "$png" | tr ' ' x)
  [ "$size" = "$expected" ] || fail "${png#"$prefix"/} is $size"
  icons=$((icons + 1))
done
[ "$icons" -ge 6 ] || fail "only $icons PNG icon sizes are installed"
echo "installed: bin/poslab, share/poslab, the desktop entry, the SVG icon and $icons PNG sizes, the manual page"
# The Python module (when this build has one), installed beside them, reads the data of its prefix.
if [ -d "$build/python/poslab" ]; then
  module="$prefix/lib/python3/dist-packages"
  PYTHONPATH="$module" /usr/bin/python3 -c '
import os, sys, poslab
assert os.environ["POSLAB_ASSETS"] == os.path.join(sys.argv[1], "share", "poslab"), os.environ["POSLAB_ASSETS"]
assert poslab.attention("the cat sat").weights.shape[1:] == (3, 3)' "$prefix" ||
    fail "the installed Python module does not run from $module"
  echo "installed: the Python module in lib/python3/dist-packages/poslab"
fi

# --- 2. The installed binary finds its data under its prefix -----------------------------------
# `poslab info` names the embeddings file it read: it must lie under the prefix, and an export must
# work, with nothing of the source tree (or the build folder inside it) to fall back on.
check_data() {  # PREFIX: runs PREFIX/bin/poslab
  local p=$1 out
  out=$(cd "$work" && "$p/bin/poslab" info) || { echo "poslab info failed: $out"; return 1; }
  grep -q "^source *$p/share/poslab/glove-wink-100d-10k.txt" <<<"$out" || { echo "it read: $out"; return 1; }
  (cd "$work" && "$p/bin/poslab" export attention --png "$work/installed.png" >/dev/null) || return 1
}
export -f check_data
export work
if unshare --mount --propagation private true 2>/dev/null; then
  unshare --mount --propagation private bash -c '
    mount -t tmpfs -o size=1m poslab-source-hidden "$1" &&
      [ ! -e "$1/assets" ] && check_data "$2"' _ "$source_dir" "$prefix" ||
    fail "the installed binary does not run with the source tree hidden"
  echo "the installed binary runs with the source tree hidden ($source_dir an empty folder), its data from $prefix/share/poslab"
else
  # No mount namespace here: the tree must be relocatable, so copy it elsewhere and run it there.
  cp -a "$prefix" "$work/moved"
  check_data "$work/moved" || fail "a copy of the installed tree does not find its data"
  echo "the installed tree runs from another prefix too ($work/moved), its data from there"
fi
mkdir -p "$work/other-assets"
cp "$prefix/share/poslab/glove-wink-100d-10k.txt" "$work/other-assets/"
POSLAB_ASSETS="$work/other-assets" "$prefix/bin/poslab" info | grep -q "^source *$work/other-assets/" ||
  fail "POSLAB_ASSETS does not override the installed data"

# --- 3. The desktop entry ------------------------------------------------------------------------
desktop="$prefix/share/applications/poslab.desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate rejects poslab.desktop"
grep -qx 'Icon=poslab' "$desktop" || fail "the desktop entry does not name the installed icon"
exec_line=$(sed -n 's/^Exec=//p' "$desktop")
# What a menu does: run the Exec line (the binary found on PATH); a window named PosLab appears.
cat >"$work/menu.sh" <<'INNER'
set -u
$1 &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
class=$(xprop -id "$window" WM_CLASS)
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "window $window: $class"
[ "$class" = 'WM_CLASS(STRING) = "poslab", "poslab"' ]
INNER
if PATH="$prefix/bin:$PATH" xvfb-run -a -s '-screen 0 1600x1000x24' bash "$work/menu.sh" "$exec_line" >"$work/menu.log" 2>&1; then
  echo "the desktop entry validates; its Exec line ($exec_line) opens the window, whose class matches StartupWMClass"
else
  fail "the desktop entry's Exec line ($exec_line) opens no PosLab window of class poslab: $(cat "$work/menu.log")"
fi

# --- 4. The manual page (in the C locale, where groff has the fewest glyphs) ----------------------
man_text=$(LC_ALL=C MANWIDTH=100 man --warnings -l "$prefix/share/man/man1/poslab.1" 2>"$work/man-warnings") ||
  fail "man -l cannot render poslab.1"
[ ! -s "$work/man-warnings" ] || fail "man -l warns: $(cat "$work/man-warnings")"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS "STATE OPTIONS" ENVIRONMENT FILES; do
  grep -q "^$section" <<<"$man_text" || fail "the manual page has no $section section"
done
missing=()
for option in $("$prefix/bin/poslab" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
  grep -q -- "$option" <<<"$man_text" || missing+=("$option")
done
[ ${#missing[@]} -eq 0 ] || fail "the manual page lacks ${missing[*]}"
echo "the manual page renders without warnings and names all $("$prefix/bin/poslab" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | wc -l) options of --help"

# --- 5. What it writes: only under the XDG config folder --------------------------------------
# Started as the menu starts it (a plain `poslab`, which remembers the session), a load added to
# the recent files, then closed by SIGTERM as when the session ends: the last session, the recent
# files and nothing else, in $XDG_CONFIG_HOME/poslab, else ~/.config/poslab.
cat >"$work/session.sh" <<'INNER'
set -u
cd "$1"
poslab &
pid=$!
timeout 60 xdotool search --sync --limit 1 --name '^PosLab$' >/dev/null
sleep 1
kill -TERM "$pid"
wait "$pid"
INNER
written() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }
for xdg in "" "$work/xdg-config"; do
  rm -rf "$work/run-home" "$work/run-cwd" "$work/xdg-config"
  mkdir -p "$work/run-home" "$work/run-cwd"
  HOME="$work/run-home" XDG_CONFIG_HOME="$xdg" PATH="$prefix/bin:$PATH" \
    xvfb-run -a -s '-screen 0 1600x1000x24' bash "$work/session.sh" "$work/run-cwd" >"$work/session.log" 2>&1 ||
    fail "poslab did not close cleanly on SIGTERM: $(tail -3 "$work/session.log")"
  HOME="$work/run-home" XDG_CONFIG_HOME="$xdg" xvfb-run -a -s '-screen 0 1600x1000x24' "$prefix/bin/poslab" \
    --load "$prefix/share/poslab/glove-wink-100d-10k.txt" --frames 2 --screenshot "$work/shot.png" >/dev/null 2>&1 ||
    fail "poslab --load … --screenshot failed"
  if [ -z "$xdg" ]; then
    expected="./.config/poslab/last-session.json ./.config/poslab/recent.txt "
    [ "$(written "$work/run-home")" = "$expected" ] || fail "in HOME it wrote: $(written "$work/run-home")"
  else
    expected="./poslab/last-session.json ./poslab/recent.txt "
    [ "$(written "$xdg")" = "$expected" ] || fail "in XDG_CONFIG_HOME it wrote: $(written "$xdg")"
    [ -z "$(written "$work/run-home")" ] || fail "with XDG_CONFIG_HOME set it still wrote in HOME: $(written "$work/run-home")"
  fi
  [ -z "$(written "$work/run-cwd")" ] || fail "it wrote in its working folder: $(written "$work/run-cwd")"
done
echo "it writes the last session and the recent files in \$XDG_CONFIG_HOME/poslab (else ~/.config/poslab), nothing else"

[ "$failures" -eq 0 ] || exit 1
echo "install tree OK"
