#!/usr/bin/env bash
# The rope-image view under Xvfb: a real mouse click (xdotool) on a patch near the top-left corner
# of the axial panel picks that patch, and Ctrl+D exports scores whose maximum is at that patch.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > drive.sh <<'INNER'
set -eu
"$@" &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 1
xdotool windowfocus --sync "$window"
# Inside the first patch of the left panel at 1280×800 (default 14 × 14 grid, under the view's
# play bar and its own controls): cells start near (472, 157) and are about 20 px wide.
xdotool mousemove --window "$window" 481 166
sleep 0.3
xdotool click --window "$window" 1
sleep 0.5
xdotool key --window "$window" ctrl+d
for _ in $(seq 1 100); do
  [ -s poslab-rope-image.csv ] && break
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1400x900x24' bash drive.sh "$poslab" --view rope-image --size 1280x800 >/dev/null 2>&1 || true

[ -s poslab-rope-image.csv ] || { echo "FAIL: Ctrl+D in the rope-image view wrote no CSV"; exit 1; }
best=$(awk -F, 'NR > 1 && $1 == "axial" { if (!seen || $4 > max) { max = $4; at = $2 "," $3; seen = 1 } } END { print at }' poslab-rope-image.csv)
case "$best" in
  0,0 | 0,1 | 1,0 | 1,1) echo "clicking the top-left patch picked it: scores peak at ($best)" ;;
  *) echo "FAIL: after clicking the top-left patch the scores peak at ($best), not there"; exit 1 ;;
esac
