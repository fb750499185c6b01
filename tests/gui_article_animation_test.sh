#!/usr/bin/env bash
# Seed 000's animations in one click (xdotool under Xvfb, tests/gui_kit.sh): on tour step 5 the
# button "Play the article's animation" brings the trajectory view to the front in the step's
# state (binary positions) and plays it; Ctrl+E then exports the trajectory view, not the tour's
# slide.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

gui_start "$poslab" --view tour --size 1440x900 --ui-scale 1
gui_wait_value "tour step" 1
gui_key Right Right Right Right
gui_wait_value "tour step" 5
gui_click "tour: play the article's animation"
gui_wait_value tab trajectory
gui_until 30 grep -q 'playing "Binary position as the index runs" (tour step 5): trajectory, positions from 2 to 64' \
  "$work/gui.log" || gui_fail "the tour's button did not start the article's animation"
gui_key ctrl+e
gui_wait_file poslab-trajectory.png
[ ! -e poslab-tour-5.png ] || gui_fail "the tour stayed in front"
echo "tour step 5's button plays the binary animation in the trajectory view"
