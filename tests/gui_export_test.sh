#!/usr/bin/env bash
# Starts the GUI under Xvfb, presses Ctrl+E and Ctrl+D in its window with xdotool (real X key
# events, tests/gui_kit.sh), and checks that the GUI's export equals `poslab export attention` for the same state:
# the same PNG pixels and the same CSV.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"
state=(--sentence "May the force be with you." --causal --heads 4)

"$poslab" export attention "${state[@]}" --png cli.png --csv cli.csv >/dev/null

gui_start "$poslab" "${state[@]}" --size 1200x800
gui_key ctrl+e ctrl+d
gui_wait_file poslab-attention.png
gui_wait_file poslab-attention.csv
gui_wait_value busy no
gui_stop

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
