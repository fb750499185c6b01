#!/usr/bin/env bash
# The GUI's exports under Xvfb, driven by real X key and mouse events (xdotool, tests/gui_kit.sh):
#   tests/gui_export_test.sh POSLAB [CASE]
#   hotkeys_match_the_cli (the default): Ctrl+E and Ctrl+D write what `poslab export attention`
#     writes for the same state: the same PNG pixels and the same CSV.
#   all_or_none: "PNG + SVG + CSV" where the PNG's path is a folder writes none of the three (the
#     SVG and CSV there before keep their bytes) and says why on the status line; once the PNG can
#     be written, all three are, and the status line names each.
set -euo pipefail
poslab=$(realpath "$1")
case_name=${2:-hotkeys_match_the_cli}
source "$(dirname "$(realpath "$0")")/gui_kit.sh"
state=(--sentence "May the force be with you." --causal --heads 4)

hotkeys_match_the_cli() {
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
}

status_has() { gui_value status | grep -qF -- "$1"; }

all_or_none() {
  "$poslab" export attention "${state[@]}" --png cli.png >/dev/null
  mkdir poslab-attention.png  # a folder where the PNG would go: that file cannot be written
  printf 'the SVG from before\n' >poslab-attention.svg
  printf 'the CSV from before\n' >poslab-attention.csv
  cp poslab-attention.svg svg.before
  cp poslab-attention.csv csv.before
  gui_start "$poslab" "${state[@]}" --size 1200x800
  gui_hover sentence  # the wheel turns the panel only once the window has seen the pointer come in
  gui_scroll_into_view "export: png svg csv"
  gui_click "export: png svg csv"
  gui_until 60 status_has "wrote none of poslab-attention.png, poslab-attention.svg and poslab-attention.csv" ||
    gui_fail "the status line does not say that none of the three was written: $(gui_value status)"
  status_has "is a folder" || gui_fail "the status line does not say why: $(gui_value status)"
  gui_wait_value "status kind" error
  gui_wait_value busy no
  cmp -s svg.before poslab-attention.svg || gui_fail "the SVG was replaced although the PNG could not be written"
  cmp -s csv.before poslab-attention.csv || gui_fail "the CSV was replaced although the PNG could not be written"
  [ -z "$(find . -maxdepth 2 -name '.poslab-*' -o -maxdepth 2 -name '.*.tmp*')" ] ||
    gui_fail "temporary files were left: $(find . -maxdepth 2 -name '.*')"
  echo "with the PNG's path a folder: $(gui_value status)"

  rmdir poslab-attention.png
  gui_click "export: png svg csv"
  gui_until 120 status_has "poslab-attention.csv (CSV)" ||
    gui_fail "the second export did not say it wrote the three files: $(gui_value status)"
  gui_wait_value "status kind" info
  local line
  line=$(gui_value status)
  [ "${line#wrote }" != "$line" ] || gui_fail "the status line \"$line\" does not begin with \"wrote\""
  for part in "poslab-attention.png (" "poslab-attention.svg (SVG), replacing the file of that name" \
    "poslab-attention.csv (CSV), replacing the file of that name"; do
    grep -qF -- "$part" <<<"$line" || gui_fail "the status line \"$line\" does not say \"$part\""
  done
  cmp -s cli.png poslab-attention.png || gui_fail "the PNG differs from poslab export's"
  grep -q '<svg' poslab-attention.svg || gui_fail "the SVG was not written"
  head -1 poslab-attention.csv | grep -q , || gui_fail "the CSV was not written"
  gui_stop
  echo "once the PNG could be written: $line"
}

"$case_name"
