#!/usr/bin/env bash
# The GUI's Export animation dialog under Xvfb, with real clicks (xdotool, tests/gui_kit.sh): in the trajectory view,
# Export animation… then Export writes poslab-trajectory-positions.mp4 while the window keeps
# drawing, and the file is byte for byte the one `poslab export trajectory --animate positions
# --from 2 --to 64 --frames 63 --fps 24 --mp4` writes (the dialog's defaults for that view).
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

gui_start "$poslab" --view trajectory --size 1440x900 --ui-scale 1
# The play bar's "Export animation…" button, then the dialog's Export.
gui_click "export animation"
before=$(gui_value frame)
gui_click "export animation: export"
gui_wait_file poslab-trajectory-positions.mp4 300
gui_wait_value "animation message kind" info 300
# Frames drawn from the click to the export's message: a handful if the UI thread had encoded the
# 63 frames itself, dozens when the window kept drawing (counted, not timed: a frame may well
# take a second on a loaded machine).
drawn=$(($(gui_value frame) - before))
gui_stop

[ -s poslab-trajectory-positions.mp4 ] || { echo "FAIL: the GUI wrote no MP4"; cat "$work/gui.log"; exit 1; }
if ls -A | grep -q '\.partial-'; then echo "FAIL: a temporary file was left behind"; exit 1; fi
"$poslab" export trajectory --animate positions --from 2 --to 64 --frames 63 --fps 24 --mp4 cli.mp4 >/dev/null 2>&1
cmp -s poslab-trajectory-positions.mp4 cli.mp4 || { echo "FAIL: the GUI's MP4 differs from the command line's"; exit 1; }
[ "$drawn" -ge 10 ] || { echo "FAIL: the window drew only $drawn frames while it exported"; exit 1; }
echo "the GUI's MP4 is the command line's, byte for byte; $drawn frames drawn while exporting"
