#!/usr/bin/env bash
# Starts the GUI under Xvfb, presses Ctrl+E and Ctrl+D in its window with xdotool (real X key
# events), and checks that the GUI's export equals `poslab export attention` for the same state:
# the same PNG pixels and the same CSV.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
state=(--sentence "May the force be with you." --causal --heads 4)

"$poslab" export attention "${state[@]}" --png cli.png --csv cli.csv >/dev/null

cat > drive.sh <<'INNER'
set -eu
"$@" &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 1   # let the first frames compute and draw
xdotool windowfocus --sync "$window"
xdotool key --window "$window" ctrl+e
xdotool key --window "$window" ctrl+d
for _ in $(seq 1 100); do
  [ -s poslab-attention.png ] && [ -s poslab-attention.csv ] && break
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1400x900x24' bash drive.sh "$poslab" "${state[@]}" --size 1200x800 >/dev/null 2>&1 || true

[ -s poslab-attention.png ] || { echo "FAIL: Ctrl+E in the GUI wrote no PNG"; exit 1; }
[ -s poslab-attention.csv ] || { echo "FAIL: Ctrl+D in the GUI wrote no CSV"; exit 1; }
if ! cmp -s cli.png poslab-attention.png; then
  echo "FAIL: the GUI's PNG differs from poslab export's"
  exit 1
fi
if ! cmp -s cli.csv poslab-attention.csv; then
  # The GUI computes on its own GL context: allow only float-level differences.
  paste -d, cli.csv poslab-attention.csv | awk -F, 'NR > 1 { d = $6 - $13; if (d < 0) d = -d; w = $7 - $14; if (w < 0) w = -w;
    if (($6 != $13 && d > 1e-4) || w > 1e-4) { bad = 1; print "FAIL: row " NR ": " $0 } } END { exit bad }'
fi
echo "GUI export (Ctrl+E, Ctrl+D) matches poslab export: PNG identical, CSV equal"
