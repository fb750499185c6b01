#!/usr/bin/env bash
# Issue 15 under Xvfb: (1) a long sentence's attention is computed off the UI thread — frames keep
# being drawn while the run is in flight (--frame-log's computing column), and the app says which
# path computes and why, also for a forced --backend gpu; (2) so is a slow view's figure (the drawing column); (3) the heatmap zooms about the mouse with the wheel (real xdotool events),
# pans with a drag, and a double click shows every cell again. No timing is asserted: frames are
# counted, as in gui_async_load_test.sh.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
words() { /usr/bin/python3 -c "
w = 'the dog chased another cat across a green field'.split()
print(' '.join(w[k % 9] for k in range($1)))"; }

# (1) 4000 tokens on the CPU path: long enough on any machine to outlast a few frames.
xvfb-run -a -s '-screen 0 1400x900x24' "$poslab" --size 1200x800 --backend cpu --sentence "$(words 4000)" \
  --frame-log frames.csv --frames 3 --screenshot shot.png >out.txt 2>&1 || { cat out.txt; exit 1; }
during=$(awk -F, 'NR > 1 && $5 == 1' frames.csv | wc -l)
echo "frames drawn while the attention was computed: $during"
[ "$during" -ge 3 ] || { echo "FAIL: the window did not draw while computing"; cat frames.csv | head; exit 1; }
grep -q "poslab: attention: CPU (Eigen): --backend cpu" out.txt || { echo "FAIL: the backend was not said"; cat out.txt; exit 1; }
[ -s shot.png ] || { echo "FAIL: no screenshot after the run"; exit 1; }

# The forced GPU path too: the shaders run on the GPU thread (its own context), not the UI's.
xvfb-run -a -s '-screen 0 1400x900x24' "$poslab" --size 1200x800 --backend gpu --sentence "$(words 1500)" \
  --frame-log gpu-frames.csv --frames 3 --screenshot gpu.png >gpu-out.txt 2>&1 || { cat gpu-out.txt; exit 1; }
during=$(awk -F, 'NR > 1 && $5 == 1' gpu-frames.csv | wc -l)
echo "frames drawn while the GPU path computed: $during"
[ "$during" -ge 3 ] || { echo "FAIL: the window did not draw while the GPU computed"; head gpu-frames.csv; exit 1; }
grep -q "poslab: attention: GPU compute shaders" gpu-out.txt || { echo "FAIL: the GPU path was not taken"; cat gpu-out.txt; exit 1; }
grep -q "GPU path unavailable" gpu-out.txt && { echo "FAIL: no GPU thread"; cat gpu-out.txt; exit 1; }

# (2) The Bias tab at 4096 tokens with T5: the figure (two 4096 × 4096 tables, a bucket lookup
# per cell) is built off the UI thread: frames keep being drawn while it is (the drawing column),
# and the screenshot, taken once it is done, shows it filling the panel's width.
xvfb-run -a -s '-screen 0 1400x900x24' "$poslab" --size 1200x800 --bias t5 --view bias --sentence "$(words 4096)" \
  --frame-log bias-frames.csv --frames 2 --screenshot bias.png >bias-out.txt 2>&1 || { cat bias-out.txt; exit 1; }
drawing=$(awk -F, 'NR > 1 && $6 == 1' bias-frames.csv | wc -l)
echo "frames drawn while the bias figure was built: $drawing"
[ "$drawing" -ge 3 ] || { echo "FAIL: the window did not draw while the bias figure was built"; head bias-frames.csv; exit 1; }
layout=$(grep "^layout: view bias" bias-out.txt || true)
echo "$layout"
fig_width=$(echo "$layout" | sed -nE 's/.*, figure ([0-9]+),[0-9]+,([0-9]+),.*/\2 \1/p' | awk '{ print $1 - $2 }')
[ "${fig_width:-0}" -ge 400 ] || { echo "FAIL: the screenshot shows no bias figure"; cat bias-out.txt; exit 1; }

# (3) Wheel, drag, double click on the heatmap of 60 tokens.
cat > drive.sh <<'INNER'
set -eu
"$@" 2>err.txt &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 2
xdotool windowfocus --sync "$window"
xdotool mousemove --window "$window" 760 330
sleep 0.5
for _ in 1 2 3 4 5 6; do xdotool click --window "$window" 4; sleep 0.25; done
sleep 0.5
cp err.txt zoomed.txt
# Drag the cells 150 px to the right and down: the window moves up and left.
xdotool mousedown --window "$window" 1; sleep 0.1
for step in 1 2 3 4 5; do xdotool mousemove --window "$window" $((760 + 30 * step)) $((330 + 30 * step)); sleep 0.1; done
xdotool mouseup --window "$window" 1
sleep 0.5
cp err.txt panned.txt
xdotool click --repeat 2 --delay 80 --window "$window" 1
sleep 0.8
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1400x900x24' bash drive.sh "$poslab" --size 1200x800 --causal --sentence "$(words 60)" >/dev/null 2>&1 || true
[ -s zoomed.txt ] || { echo "FAIL: the app did not run"; exit 1; }
zoom=$(grep "poslab: heatmap: queries" zoomed.txt | tail -1 || true)
echo "after six wheel notches: ${zoom:-none}"
# Each notch keeps 0.8 of the cells, rounded: 60, 48, 38, 30, 24, 19, 15 — "queries A–B, keys C–D
# of 60 × 60" with B − A + 1 = 15.
rows=$(echo "$zoom" | sed -E 's/.*queries ([0-9]+)–([0-9]+), keys ([0-9]+)–([0-9]+) of 60 × 60/\2 \1/' | awk '{ print $1 - $2 + 1 }')
[ "${rows:-0}" -eq 15 ] || { echo "FAIL: expected 15 rows after the wheel, got '${rows:-}'"; cat zoomed.txt; exit 1; }
pan=$(grep "poslab: heatmap: queries" panned.txt | tail -1)
echo "after the drag: $pan"
first() { echo "$1" | sed -E 's/.*queries ([0-9]+)–[0-9]+, keys ([0-9]+)–.*/\1 \2/'; }
read -r r0 c0 <<<"$(first "$zoom")"
read -r r1 c1 <<<"$(first "$pan")"
[ "$r1" -lt "$r0" ] && [ "$c1" -lt "$c0" ] || { echo "FAIL: the drag did not pan up and left ($r0,$c0 → $r1,$c1)"; exit 1; }
tail -1 err.txt | grep -q "poslab: heatmap: all 60 × 60 cells" || { echo "FAIL: the double click did not show every cell"; tail -3 err.txt; exit 1; }
echo "wheel zoomed, drag panned, double click reset"
