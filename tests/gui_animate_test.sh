#!/usr/bin/env bash
# The GUI's Export animation dialog under Xvfb, with real clicks (xdotool): in the trajectory view,
# Export animation… then Export writes poslab-trajectory-positions.mp4 while the window keeps
# drawing, and the file is byte for byte the one `poslab export trajectory --animate positions
# --from 2 --to 64 --frames 63 --fps 24 --mp4` writes (the dialog's defaults for that view).
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
# At 1440×900 and UI scale 1: the play bar's "Export animation…" button, then the dialog's Export.
xdotool mousemove --window "$window" 1345 52
sleep 0.3
xdotool click --window "$window" 1
sleep 0.5
xdotool mousemove --window "$window" 583 535
sleep 0.3
xdotool click --window "$window" 1
for _ in $(seq 1 1200); do
  [ -s poslab-trajectory-positions.mp4 ] && break
  sleep 0.1
done
sleep 0.5
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1500x950x24' bash drive.sh "$poslab" --view trajectory --size 1440x900 --ui-scale 1 \
  --frame-log frames.csv >gui.log 2>&1 || true

[ -s poslab-trajectory-positions.mp4 ] || { echo "FAIL: the GUI wrote no MP4"; cat gui.log; exit 1; }
if ls -A | grep -q '\.partial-'; then echo "FAIL: a temporary file was left behind"; exit 1; fi
"$poslab" export trajectory --animate positions --from 2 --to 64 --frames 63 --fps 24 --mp4 cli.mp4 >/dev/null 2>&1
cmp -s poslab-trajectory-positions.mp4 cli.mp4 || { echo "FAIL: the GUI's MP4 differs from the command line's"; exit 1; }
# The window kept drawing while it exported: no frame took a second.
slowest=$(awk -F, 'NR > 10 && $2 > max { max = $2 } END { printf "%d", max }' frames.csv)
[ "$slowest" -lt 1000 ] || { echo "FAIL: a frame took $slowest ms while exporting"; exit 1; }
echo "the GUI's MP4 is the command line's, byte for byte; slowest frame while exporting: $slowest ms"
