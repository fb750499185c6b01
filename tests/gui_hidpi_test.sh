#!/usr/bin/env bash
# The GUI on a HiDPI screen, under Xvfb with `Xft.dpi: 192` in the X resources (GLFW then reports a
# content scale of 2, as on a HiDPI laptop) beside the same at 96 dpi:
#   1. text is twice as tall: the attention figure's title and the interface's "Attention" tab,
#      measured in the screenshots;
#   2. no figure overflows its panel, at 800 × 600 and 2560 × 1440, for every view (the tour's
#      slide is a page that scrolls down: for it, the width); 1440 × 900, between them, is part 1's;
#   3. --ui-scale and the settings file override the monitor's scale;
#   4. exports keep their own size: Ctrl+E in a HiDPI window writes the PNG `poslab export` does.
# The GUI prints where the view's panel and figure lie after each --screenshot ("layout: …"); the
# test checks those numbers against the screenshot's pixels too.
#   tests/gui_hidpi_test.sh POSLAB PNG_PROBE
set -euo pipefail
poslab=$(realpath "$1")
probe=$(realpath "$2")
# Parts 3 and 4 drive one window at a time through the kit, on its Xvfb (2600 × 1500: room for a
# 2560 × 1440 window); parts 1 and 2 start their own with xvfb-run.
export GUI_SCREEN=2600x1500x24
source "$(dirname "$(realpath "$0")")/gui_kit.sh"
export HOME="$work/home"  # no settings of the machine's user (the kit's $XDG_CONFIG_HOME neither)
mkdir -p "$HOME"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Runs poslab under a fresh Xvfb whose X resources say DPI dots per inch. -noreset keeps the
# resources after xrdb disconnects (else the server resets with its last client).
at_dpi() {
  local dpi=$1
  shift
  xvfb-run -a -s "-screen 0 2600x1500x24 -noreset" bash -c \
    'echo "Xft.dpi: $0" | xrdb -nocpp -merge && exec "$@"' "$dpi" "$poslab" "$@" 2>&1
}

# "layout: view V, S px/pt (monitor M), panel X0,Y0,X1,Y1, figure X0,Y0,X1,Y1, zoom Z" → fields.
layout_of() { grep '^layout:' | sed -E 's/.*view ([^,]+), ([0-9.]+) px\/pt \(monitor ([0-9.]+)\), panel ([0-9,]+), figure ([0-9,]+), zoom ([0-9.]+)/\1 \2 \3 \4 \5 \6/; s/,/ /g'; }

# --- 1. Text twice as tall ------------------------------------------------------------------
declare -A title_h tab_h
for dpi in 96 192; do
  out=$(at_dpi "$dpi" --size 1440x900 --frames 4 --screenshot "shot-$dpi.png")
  read -r view scale monitor px0 py0 px1 py1 fx0 fy0 fx1 fy1 zoom <<<"$(layout_of <<<"$out")" || {
    echo "FAIL: no layout line at $dpi dpi: $out"
    exit 1
  }
  s=${scale%.*}
  echo "$dpi dpi: $scale px/pt (GLFW's content scale $monitor), panel $px0,$py0-$px1,$py1, figure $fx0,$fy0-$fx1,$fy1"
  expected=$((dpi / 96))
  [ "$s" = "$expected" ] || fail "at $dpi dpi the UI scale is $scale, not $expected"
  # The figure's title: 16 points at (14, 14) points from the figure's corner, the subtitle 6 points
  # below it; the box holds the title's ink only.
  read -r top bottom <<<"$("$probe" ink "shot-$dpi.png" "$fx0" $((fy0 + 6 * s)) $((fx0 + 320 * s)) $((fy0 + 34 * s)) dark)"
  title_h[$dpi]=$((bottom - top + 1))
  # The first tab's label, "Attention", white on the tab at the panel's top-left corner.
  read -r top bottom <<<"$("$probe" ink "shot-$dpi.png" "$px0" "$py0" $((px0 + 60 * s)) $((py0 + 24 * s)) light)"
  tab_h[$dpi]=$((bottom - top + 1))
  echo "  the figure's title is ${title_h[$dpi]} px tall, the \"Attention\" tab's label ${tab_h[$dpi]} px"
done
twice() { awk -v a="$1" -v b="$2" 'BEGIN { r = b / a; exit !(r >= 1.8 && r <= 2.2) }'; }
twice "${title_h[96]}" "${title_h[192]}" || fail "the title is ${title_h[96]} px at 96 dpi and ${title_h[192]} px at 192 dpi"
twice "${tab_h[96]}" "${tab_h[192]}" || fail "the tab label is ${tab_h[96]} px at 96 dpi and ${tab_h[192]} px at 192 dpi"

# --- 2. Every figure inside its panel, at the smallest and largest sizes and both scales -------
# (Each figure is laid out from its panel's size; the size between, 1440 × 900, is part 1's. A
# third size here added 22 windows, a minute of the test run. At 96 dpi a 2560 × 1440 window is
# the roomiest case of all, where nothing overflowed in any run: 96 dpi takes the small size only.)
views=(attention dog patterns trajectory magnitude shift rope2d rope-image bias frequencies tour)
for dpi in 96 192; do
  sizes=(800x600 2560x1440)
  [ "$dpi" = 192 ] || sizes=(800x600)
  for size in "${sizes[@]}"; do
    for view in "${views[@]}"; do
      shot="$view-$dpi-$size.png"
      out=$(at_dpi "$dpi" --size "$size" --view "$view" --frames 4 --screenshot "$shot")
      line=$(layout_of <<<"$out")
      read -r shown scale monitor px0 py0 px1 py1 fx0 fy0 fx1 fy1 zoom <<<"$line" || true
      if [ -z "$line" ] || [ "$shown" != "$view" ]; then
        fail "$view at $size, $dpi dpi: no layout of this view in: $out"
        continue
      fi
      where="$view at $size, $dpi dpi: figure $fx0,$fy0-$fx1,$fy1 in panel $px0,$py0-$px1,$py1"
      if [ "$fx0" -lt "$px0" ] || [ "$fy0" -lt "$py0" ] || [ "$fx1" -gt "$px1" ]; then fail "$where: wider than its panel"; fi
      if [ "$view" != tour ] && [ "$fy1" -gt "$py1" ]; then fail "$where: taller than its panel"; fi
      # It fills the panel one way at least (the attention heatmap leaves room for its text).
      awk -v fw=$((fx1 - fx0)) -v fh=$((fy1 - fy0)) -v pw=$((px1 - px0)) -v ph=$((py1 - fy0)) \
        'BEGIN { exit !(fw >= 0.8 * pw || fh >= 0.8 * ph) }' || fail "$where: does not fill its panel"
      # The numbers are the screenshot's: the figure's white margin just inside its right edge,
      # the panel's dark background just outside.
      read -r r g b <<<"$("$probe" pixel "$shot" $((fx1 - 2)) $(((fy0 + fy1) / 2 < py1 ? (fy0 + fy1) / 2 : py1 - 2)))"
      [ "$r" -gt 240 ] && [ "$g" -gt 240 ] && [ "$b" -gt 240 ] || fail "$where: no white figure margin at its right edge ($r $g $b)"
      if [ $((fx1 + 2)) -lt "$px1" ]; then
        read -r r g b <<<"$("$probe" pixel "$shot" $((fx1 + 2)) $(((fy0 + fy1) / 2 < py1 ? (fy0 + fy1) / 2 : py1 - 2)))"
        [ "$r" -lt 80 ] && [ "$g" -lt 80 ] && [ "$b" -lt 80 ] || fail "$where: the figure goes on past its reported edge ($r $g $b)"
      fi
      printf '  %-11s %s dpi %-9s figure %4d × %-4d in panel %4d × %-4d zoom %s\n' "$view" "$dpi" "$size" \
        $((fx1 - fx0)) $((fy1 - fy0)) $((px1 - px0)) $((py1 - py0)) "$zoom"
    done
  done
done

# --- 3. The UI scale menu, the settings file and --ui-scale override the monitor --------------
# A real click on the menu in the bottom bar (at 96 dpi), then on its "200%": the window is drawn
# again at 2 px/pt at once, and the choice is saved in settings.json.
gui_display  # the kit's X server, started now so that xrdb can set its resources
echo "Xft.dpi: 96" | xrdb -nocpp -merge
gui_start "$poslab" --size 1280x800
gui_click "ui scale"
gui_click "ui scale: 200%"
gui_wait_file "$XDG_CONFIG_HOME/poslab/settings.json"
gui_stop
saved=$(tr -d ' \n' <"$XDG_CONFIG_HOME/poslab/settings.json" 2>/dev/null || true)
[ "$saved" = '{"ui_scale":2.0}' ] || fail "choosing 200% in the UI scale menu saved \"$saved\""
scale=$(at_dpi 96 --size 1280x800 --frames 3 --screenshot s.png | layout_of | cut -d' ' -f2)
[ "$scale" = 2.00 ] || fail "after choosing 200% in the menu a new window is drawn at $scale px/pt"
echo "the UI scale menu's 200% is saved ($saved) and a 96-dpi window then draws at $scale px/pt"
echo '{"ui_scale": 1.5}' >"$XDG_CONFIG_HOME/poslab/settings.json"
scale=$(at_dpi 192 --size 1440x900 --frames 3 --screenshot s.png | layout_of | cut -d' ' -f2)
[ "$scale" = 1.50 ] || fail "the setting ui_scale 1.5 gave $scale px/pt"
scale=$(at_dpi 192 --size 1440x900 --frames 3 --ui-scale 1.25 --screenshot s.png | layout_of | cut -d' ' -f2)
[ "$scale" = 1.25 ] || fail "--ui-scale 1.25 gave $scale px/pt"
echo '{"ui_scale": "huge"}' >"$XDG_CONFIG_HOME/poslab/settings.json"
out=$(at_dpi 192 --size 1440x900 --frames 3 --screenshot s.png)
grep -q 'settings.json: ui_scale must be' <<<"$out" || fail "a bad settings file is not reported: $out"
[ "$(layout_of <<<"$out" | cut -d' ' -f2)" = 2.00 ] || fail "a bad settings file does not fall back to the monitor's scale"
rm "$XDG_CONFIG_HOME/poslab/settings.json"
"$poslab" --ui-scale 9 >/dev/null 2>&1 && fail "--ui-scale 9 is accepted"

# --- 4. Exports keep their size: Ctrl+E in a HiDPI window ------------------------------------
state=(--sentence "May the force be with you." --causal --heads 4)
"$poslab" export attention "${state[@]}" --png cli.png >/dev/null
# The kit's display, now at 192 dpi: GLFW reads Xft.dpi when PosLab starts.
echo "Xft.dpi: 192" | xrdb -nocpp -merge
gui_start "$poslab" "${state[@]}" --size 2560x1440
gui_key ctrl+e
gui_wait_file poslab-attention.png
gui_wait_value busy no
gui_stop
if [ ! -s poslab-attention.png ]; then
  fail "Ctrl+E in the HiDPI window wrote no PNG"
elif ! cmp -s cli.png poslab-attention.png; then
  fail "the HiDPI window's export ($("$probe" size poslab-attention.png)) differs from poslab export's ($("$probe" size cli.png))"
else
  echo "Ctrl+E at 2 px/pt in a 2560 × 1440 window writes poslab export's PNG ($("$probe" size cli.png | sed 's/ / × /'))"
fi

[ "$failures" -eq 0 ] || exit 1
echo "HiDPI: text twice as tall (title ${title_h[96]} → ${title_h[192]} px, tab ${tab_h[96]} → ${tab_h[192]} px), every figure inside its panel"
