#!/usr/bin/env bash
# The tour under Xvfb with real key presses (xdotool, tests/gui_kit.sh): → → ← lands on step 2,
# and Ctrl+E there writes the same pixels as `poslab export tour --step 2`.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

"$poslab" export tour --step 2 --png cli.png >/dev/null
gui_start "$poslab" --view tour --size 1280x800
gui_wait_value "tour step" 1
gui_key Right Right Left
gui_wait_value "tour step" 2
gui_key ctrl+e
gui_wait_file poslab-tour-2.png
gui_wait_value "status kind" info
cmp -s cli.png poslab-tour-2.png || gui_fail "the GUI's step 2 differs from poslab export tour --step 2"
echo "→ → ← reached step 2, and its export equals poslab export tour --step 2"
