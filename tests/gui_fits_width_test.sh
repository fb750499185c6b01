#!/usr/bin/env bash
# At 150 % UI scale in a narrow window (900 × 700), the Tour, Model and Train tabs fit the panel's
# width: their rows of controls wrap and their long lines break, so the panel never scrolls
# sideways. The window reports how far its content runs past the panel ("view: sideways scroll",
# in screen units); it must be 0 and stay 0 over later frames. And every tab stays reachable.
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

# Every tab lies inside the window at 150 % (they narrow rather than scroll out of the bar), and
# a click on the last one opens it: at 1280 × 800 the bar used to end at "RoPE image".
gui_start "$poslab" --size 1280x800 --ui-scale 1.5
width=$(xdotool getwindowgeometry --shell "$gui_window" | awk -F= '$1 == "WIDTH" { print $2 }')
for tab in Attention Tour Model Train; do
  read -r x0 _ x1 _ <<<"$(gui_item "tab: $tab")"
  [ -n "${x1:-}" ] && awk -v a="$x0" -v b="$x1" -v w="$width" 'BEGIN { exit !(a >= 0 && b <= w && b > a) }' ||
    gui_fail "the tab $tab is not inside the 1280-pixel window at 150 % ($x0 … $x1)"
done
gui_click "tab: Train"
gui_wait_value tab train 60
echo "every tab is in the bar at 150 % in 1280 × 800, and a click opens the last one"
gui_stop
