#!/usr/bin/env bash
# The rope-image view under Xvfb: a real mouse click (xdotool, tests/gui_kit.sh) on the top-left
# patch of the axial panel picks that patch, and Ctrl+D exports scores whose maximum is at that
# patch. The patch is aimed at where the probe says the panel's cells lie.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

state_has() { gui_value state | grep -q "$1"; }

gui_start "$poslab" --view rope-image --size 1280x800
# The middle of the first patch of the left (axial) panel's grid, W × H patches.
read -r grid_w grid_h <<<"$(gui_value state | sed -nE 's/.*"image-grid": "([0-9]+)x([0-9]+)".*/\1 \2/p')"
[ -n "${grid_w:-}" ] || gui_fail "the state shows no image grid"
state_has '"patch": "0,0"' && gui_fail "the patch is (0, 0) before the click: the click would prove nothing"
gui_click "rope image: patches 0" "$(awk -v n="$grid_w" 'BEGIN { print 0.5 / n }')" "$(awk -v n="$grid_h" 'BEGIN { print 0.5 / n }')"
gui_until 30 state_has '"patch": "0,0"' || gui_fail "clicking the top-left patch did not pick it"
gui_wait_value busy no
gui_key ctrl+d
gui_wait_file poslab-rope-image.csv
gui_wait_value busy no
gui_stop

best=$(awk -F, 'NR > 1 && $1 == "axial" { if (!seen || $4 > max) { max = $4; at = $2 "," $3; seen = 1 } } END { print at }' poslab-rope-image.csv)
case "$best" in
  0,0 | 0,1 | 1,0 | 1,1) echo "clicking the top-left patch picked it: scores peak at ($best)" ;;
  *) echo "FAIL: after clicking the top-left patch the scores peak at ($best), not there"; exit 1 ;;
esac
