#!/usr/bin/env bash
# Issue 15 under Xvfb (tests/gui_kit.sh): (1) a long sentence's attention is computed off the UI
# thread — frames keep being drawn while the run is in flight (the probe's frame number advances
# while it shows computing = yes), and the app says which path computes and why, also for a
# forced --backend gpu; (2) so is a slow view's figure (the probe's drawing = yes); (3) the
# heatmap zooms about the mouse with the wheel (real xdotool events), pans with a drag, and a
# double click shows every cell again. No timing is asserted: frames are counted, and every step
# waits for what the probe shows.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"
words() { /usr/bin/python3 -c "
w = 'the dog chased another cat across a green field'.split()
print(' '.join(w[k % 9] for k in range($1)))"; }

# Runs PosLab until it exits by itself (--frames N --screenshot: N frames after the work is done)
# and checks that it drew at least 3 frames while the probe showed KEY = yes.
drew_while() {
  local key=$1 what=$2; shift 2
  gui_launch "$poslab" "$@"
  gui_watch "$key" 400  # a limit for a loaded machine, not a timing
  echo "frames drawn while $what: $gui_watched"
  [ "$gui_status" = 0 ] || gui_fail "PosLab exited with status $gui_status"
  [ "$gui_watched" -ge 3 ] || gui_fail "the window did not draw while $what"
}

# (1) 4000 tokens on the CPU path: long enough on any machine to outlast a few frames.
drew_while computing "the attention was computed" --size 1200x800 --backend cpu --sentence "$(words 4000)" \
  --frames 3 --screenshot shot.png
grep -q "poslab: attention: CPU (Eigen): --backend cpu" gui.log || gui_fail "the backend was not said"
[ -s shot.png ] || gui_fail "no screenshot after the run"

# The forced GPU path too: the shaders run on the GPU thread (its own context), not the UI's.
drew_while computing "the GPU path computed" --size 1200x800 --backend gpu --sentence "$(words 1500)" \
  --frames 3 --screenshot gpu.png
grep -q "poslab: attention: GPU compute shaders" gui.log || gui_fail "the GPU path was not taken"
grep -q "GPU path unavailable" gui.log && gui_fail "no GPU thread"

# (2) The Bias tab at 4096 tokens with T5: the figure (two 4096 × 4096 tables, a bucket lookup
# per cell) is built off the UI thread: frames keep being drawn while it is, and the screenshot,
# taken once it is done, shows it filling the panel's width.
drew_while drawing "the bias figure was built" --size 1200x800 --bias t5 --view bias --sentence "$(words 4096)" \
  --frames 2 --screenshot bias.png
layout=$(grep "^layout: view bias" gui.log || true)
echo "$layout"
fig_width=$(echo "$layout" | sed -nE 's/.*, figure ([0-9]+),[0-9]+,([0-9]+),.*/\2 \1/p' | awk '{ print $1 - $2 }')
[ "${fig_width:-0}" -ge 400 ] || gui_fail "the screenshot shows no bias figure"

# (3) Wheel, drag, double click on the heatmap of 60 tokens, the mouse in the middle of its cells.
heatmap_rows() { gui_value heatmap | sed -nE 's/^queries ([0-9]+)–([0-9]+),.*/\2 \1/p' | awk '{ print $1 - $2 + 1 }'; }
has_rows() { [ "$(heatmap_rows)" = "$1" ]; }
heatmap_is_not() { [ "$(gui_value heatmap)" != "$1" ]; }
gui_start "$poslab" --size 1200x800 --causal --sentence "$(words 60)"
gui_wait_value heatmap "all 60 × 60 cells"
gui_hover "heatmap: cells"
# One notch at a time, each seen before the next (notches within one frame would zoom as one):
# each keeps 0.8 of the cells, rounded: 60, 48, 38, 30, 24, 19, 15.
for rows in 48 38 30 24 19 15; do
  xdotool click --window "$gui_window" 4
  gui_until 30 has_rows "$rows" || gui_fail "expected $rows rows after a wheel notch; the heatmap shows $(gui_value heatmap)"
done
zoom=$(gui_value heatmap)
echo "after six wheel notches: $zoom"
grep -q "poslab: heatmap: $zoom" gui.log || gui_fail "the zoom was not said on stderr"
# Drag the cells 150 px to the right and down, a step a frame: the window moves up and left.
read -r x0 y0 x1 y1 <<<"$(gui_item "heatmap: cells")"
cx=$(((x0 + x1) / 2)) cy=$(((y0 + y1) / 2))
xdotool mousedown --window "$gui_window" 1
gui_frames 2
for step in 1 2 3 4 5; do
  xdotool mousemove --window "$gui_window" $((cx + 30 * step)) $((cy + 30 * step))
  gui_frames 2
done
xdotool mouseup --window "$gui_window" 1
gui_until 30 heatmap_is_not "$zoom" || gui_fail "the drag did not move the heatmap"
gui_frames 2
pan=$(gui_value heatmap)
echo "after the drag: $pan"
first() { echo "$1" | sed -E 's/.*queries ([0-9]+)–[0-9]+, keys ([0-9]+)–.*/\1 \2/'; }
read -r r0 c0 <<<"$(first "$zoom")"
read -r r1 c1 <<<"$(first "$pan")"
[ "$r1" -lt "$r0" ] && [ "$c1" -lt "$c0" ] || gui_fail "the drag did not pan up and left ($r0,$c0 → $r1,$c1)"
# A double click: its two clicks must reach two frames within ImGui's 0.3 s. On a loaded machine
# both may come in one frame (ImGui 1.86 then sees one click), so the pair is sent again.
gui_hover "heatmap: cells"
for _ in 1 2 3 4 5; do
  xdotool click --repeat 2 --delay 80 --window "$gui_window" 1
  gui_frames 3
  [ "$(gui_value heatmap)" = "all 60 × 60 cells" ] && break
done
gui_wait_value heatmap "all 60 × 60 cells" 1
grep "poslab: heatmap:" gui.log | tail -1 | grep -q "all 60 × 60 cells" || gui_fail "the reset was not said on stderr"
gui_stop
echo "wheel zoomed, drag panned, double click reset"
