#!/usr/bin/env bash
# The tour under Xvfb with real key presses (xdotool): → → ← lands on step 2, and Ctrl+E there
# writes the same pixels as `poslab export tour --step 2`.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$poslab" export tour --step 2 --png cli.png >/dev/null

cat > drive.sh <<'INNER'
set -eu
"$@" &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 1
xdotool windowfocus --sync "$window"
for key in Right Right Left; do
  xdotool key --window "$window" "$key"
  sleep 0.4
done
xdotool key --window "$window" ctrl+e
for _ in $(seq 1 100); do
  [ -s poslab-tour-2.png ] && break
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1400x900x24' bash drive.sh "$poslab" --view tour --size 1280x800 >/dev/null 2>&1 || true

if [ ! -s poslab-tour-2.png ]; then
  echo "FAIL: after → → ← and Ctrl+E the GUI wrote no poslab-tour-2.png:"; ls; exit 1
fi
cmp -s cli.png poslab-tour-2.png || { echo "FAIL: the GUI's step 2 differs from poslab export tour --step 2"; exit 1; }
echo "→ → ← reached step 2, and its export equals poslab export tour --step 2"
