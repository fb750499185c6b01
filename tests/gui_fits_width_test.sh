#!/usr/bin/env bash
# At 150 % UI scale in a narrow window (900 × 700), the Tour, Model and Train tabs fit the panel's
# width: their rows of controls wrap and their long lines break, so the panel never scrolls
# sideways. The window reports how far its content runs past the panel ("view: sideways scroll",
# in screen units); it must be 0 and stay 0 over later frames.
set -euo pipefail
poslab=$(realpath "$1")
models=$(realpath "$2")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

frame_past() { [ "$(gui_value frame)" -gt "$1" ]; }

fits() {
  local view=$1; shift
  gui_start "$poslab" --view "$view" --size 900x700 --ui-scale 1.5 "$@"
  gui_wait_value tab "$view" 60
  gui_wait_value "view: sideways scroll" 0 30
  # Not a first frame's 0: still 0 ten frames on (ImGui measures content a frame late).
  local frame
  frame=$(gui_value frame)
  gui_until 30 frame_past $((frame + 10)) || gui_fail "the window stopped drawing"
  [ "$(gui_value "view: sideways scroll")" = 0 ] ||
    gui_fail "$view: the panel scrolls sideways by $(gui_value "view: sideways scroll") at 150 %"
  echo "$view fits 900 × 700 at 150 %"
  gui_stop
}

fits tour
fits train
fits model --model "$models/llama" --layer 0
