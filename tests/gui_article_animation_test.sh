#!/usr/bin/env bash
# Seed 000's animations in one click (xdotool under Xvfb): on tour step 5 the button "Play the
# article's animation" brings the trajectory view to the front in the step's state (binary
# positions) and plays it; Ctrl+E then exports the trajectory view, not the tour's slide.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export XDG_CONFIG_HOME="$work/config"

cat > drive.sh <<'INNER'
set -eu
"$@" &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 1
xdotool windowfocus --sync "$window"
xdotool mousemove --window "$window" 1000 800
for _ in 1 2 3 4; do
  xdotool key --window "$window" Right
  sleep 0.3
done
# The button, at the top left of the tour's panel (1440×900, UI scale 1).
xdotool mousemove --window "$window" 622 52
sleep 0.3
xdotool click --window "$window" 1
sleep 1.5
xdotool mousemove --window "$window" 1000 800
xdotool key --window "$window" ctrl+e
for _ in $(seq 1 100); do
  [ -s poslab-trajectory.png ] && break
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1500x950x24' bash drive.sh "$poslab" --view tour --size 1440x900 --ui-scale 1 >gui.log 2>&1 || true

grep -q 'playing "Binary position as the index runs" (tour step 5): trajectory, positions from 2 to 64' gui.log ||
  { echo "FAIL: the tour's button did not start the article's animation:"; cat gui.log; exit 1; }
[ -s poslab-trajectory.png ] || { echo "FAIL: Ctrl+E after the click exported no trajectory view:"; ls; exit 1; }
[ ! -e poslab-tour.png ] || { echo "FAIL: the tour stayed in front"; exit 1; }
echo "tour step 5's button plays the binary animation in the trajectory view"
