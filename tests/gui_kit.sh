# The GUI test kit, sourced by the tests/gui_*_test.sh scripts: a private X server (Xvfb), PosLab
# started in it with --probe, and real mouse and keyboard input (xdotool) aimed at the controls
# where the probe says they are. Every wait is for a condition the probe reports, never a fixed
# time, so a test passes the same on a loaded machine (only the time-outs, generous, are times).
#
#   source tests/gui_kit.sh            # sets up $work (a temporary folder, the current one) and
#                                      # $XDG_CONFIG_HOME inside it; cleans up on exit
#   gui_launch POSLAB ARGS...          # PosLab started, its first frame drawn (no more: to watch
#                                      # the first computation, or a run that ends by itself)
#   gui_start POSLAB ARGS...           # the window, its first load and computation done
#   gui_hover NAME [FX FY]             # the mouse over NAME (at fractions FX, FY of its width and
#                                      # height; the middle by default), once the window sees it
#   gui_click NAME [FX FY]             # a left click there; returns once the window drew it
#   gui_key KEYS...                    # key presses (xdotool names: Right, ctrl+e, …), each
#                                      # held until the window has drawn a frame with it down
#                                      # (the display has no key autorepeat)
#   gui_frames [N]                     # until the window has drawn N more frames
#   gui_type TEXT                      # typed text
#   gui_wait_value KEY VALUE [SECONDS] # until the probe shows KEY = VALUE
#   gui_value KEY                      # the probe's value now
#   gui_wait_item NAME [SECONDS]       # until the control NAME is drawn
#   gui_scroll_into_view NAME          # the wheel over its panel until NAME lies in the window
#   gui_wait_file PATH [SECONDS]       # until PATH exists and is not empty
#   gui_watch KEY [SECONDS]            # until PosLab exits by itself; $gui_watched: how many frames
#                                      # it drew while the probe showed KEY = yes (at least: read
#                                      # off the frame numbers, so a slow poll misses none between)
#   gui_exited                         # true once PosLab has exited by itself ($gui_status)
#   gui_stop                           # closes the window as its close button would, and waits
#   gui_fail MESSAGE                   # prints MESSAGE, the probe and the log, and exits 1
set -euo pipefail

work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
gui_pid=""
xvfb_pid=""
gui_window=""
gui_probe="$work/probe.tsv"

gui_cleanup() {
  [ -n "$gui_pid" ] && kill "$gui_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap gui_cleanup EXIT
cd "$work"

gui_fail() {
  echo "FAIL: $*"
  echo "--- probe:"; cat "$gui_probe" 2>/dev/null || true
  echo "--- log:"; tail -20 "$work/gui.log" 2>/dev/null || true
  exit 1
}

# How much slower than an idle machine this one runs now: the load per core, at least 1. Every
# time-out is multiplied by it, so that a test beside other work (ctest's jobs, a build, stress-ng
# at four times the cores) waits as long as the work takes there, and only a hang fails it.
gui_slowness=$(awk -v cores="$(nproc)" '{ f = int($1 / cores + 0.999); print (f < 1 ? 1 : f) }' /proc/loadavg)

# Polls `$@` (a command, run anew each time: pass a function, not an expanded value) every
# 0.05 s until it succeeds or SECONDS (times the machine's slowness) pass.
gui_until() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds * gui_slowness))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# A display of our own: Xvfb picks a free number and writes it to the descriptor we give it.
gui_display() {
  [ -n "$xvfb_pid" ] && return 0
  local size=${GUI_SCREEN:-1600x1000x24}
  # -noreset: X resources set with xrdb (Xft.dpi) stay when xrdb disconnects.
  Xvfb -displayfd 3 -screen 0 "$size" -nolisten tcp -noreset 3>"$work/display" 2>"$work/xvfb.log" &
  xvfb_pid=$!
  gui_until 30 test -s "$work/display" || gui_fail "Xvfb did not start: $(cat "$work/xvfb.log")"
  export DISPLAY=":$(head -1 "$work/display")"
  # No key autorepeat: gui_key holds a key down for two frames, which on a loaded machine can
  # outlast the server's repeat delay (660 ms), and PosLab takes a repeated → as more steps.
  xset r off
}

gui_launch() {
  local poslab=$1; shift
  gui_display
  rm -f "$gui_probe"
  "$poslab" --probe "$gui_probe" "$@" >"$work/gui.log" 2>&1 &
  gui_pid=$!
  gui_until 60 test -s "$gui_probe" || gui_fail "the window never drew a frame"
}

gui_start() {
  gui_launch "$@"
  gui_window=$(timeout 60 xdotool search --sync --limit 1 --pid "$gui_pid" --name '^PosLab$')
  xdotool windowfocus --sync "$gui_window" 2>/dev/null || true
  # The first load and computation done, so that the controls stay where the probe says.
  gui_wait_value busy no 120
}

gui_value() { awk -F'\t' -v k="$1" '$1 == "value" && $2 == k { print $3; exit }' "$gui_probe" 2>/dev/null; }
gui_has_value() { [ "$(gui_value "$1")" = "$2" ]; }
gui_wait_value() {
  gui_until "${3:-60}" gui_has_value "$1" "$2" || gui_fail "waited for $1 = \"$2\"; it is \"$(gui_value "$1")\""
}
gui_item() { awk -F'\t' -v n="$1" '$1 == "item" && $2 == n { print $3, $4, $5, $6; exit }' "$gui_probe" 2>/dev/null; }
# True when NAME is drawn and takes clicks (not disabled while a job runs).
gui_item_enabled() { awk -F'\t' -v n="$1" '$1 == "item" && $2 == n { found = 1; on = $7 != "disabled"; exit } END { exit !(found && on) }' "$gui_probe" 2>/dev/null; }
gui_has_item() { [ -n "$(gui_item "$1")" ]; }
gui_wait_item() { gui_until "${2:-60}" gui_has_item "$1" || gui_fail "the control \"$1\" was never drawn"; }

# Moves the mouse over NAME (at fractions FX, FY of its rectangle) and waits until the window
# sees it there. ImGui's GLFW backend (1.86) reads the mouse only while the window has the focus
# or the pointer has entered it, so when the window does not see the mouse the focus is given
# again and the pointer comes in from outside.
gui_hover() {
  gui_wait_item "$1"
  gui_until 120 gui_item_enabled "$1" || gui_fail "\"$1\" stays disabled"
  local fx=${2:-0.5} fy=${3:-0.5} x0 y0 x1 y1 try
  for try in 1 2 3 4 5 6; do
    # Where the control is now: the layout moves when text above it appears (a load, a result).
    read -r x0 y0 x1 y1 <<<"$(gui_item "$1")"
    [ "$y1" -le "$(gui_window_height)" ] || gui_fail "\"$1\" lies below the window: gui_scroll_into_view first"
    xdotool windowfocus --sync "$gui_window" 2>/dev/null || true
    # From outside the window (the far corner of the screen) in: GLFW hears the pointer enter.
    [ "$try" = 1 ] || gui_pointer_outside
    xdotool mousemove --window "$gui_window" \
      $(awk -v a="$x0" -v b="$x1" -v c="$y0" -v d="$y1" -v fx="$fx" -v fy="$fy" \
        'BEGIN { printf "%d %d", a + fx * (b - a), c + fy * (d - c) }')
    gui_until 5 gui_has_value hovered "$1" && return 0
  done
  gui_fail "the mouse is over \"$1\" but the window does not see it"
}

# The pointer to the screen's far corner, outside the window, and a frame drawn without it.
gui_pointer_outside() {
  local w h
  read -r w h <<<"$(xdotool getdisplaygeometry)"
  xdotool mousemove $((w - 1)) $((h - 1))
  gui_frames 1
}

# A click, then two frames: ImGui 1.86 reads the mouse's position once a frame, so a click still
# unread when the mouse moves on (the next gui_click) would land where the mouse went. The click
# counts once the window has seen the press on NAME (the probe's presses and pressed): a press the
# window never saw is sent again (one it saw would toggle twice), and one that reached another
# control, because the layout moved between the hover and the press, fails the test by name
# instead of as a wrong value later.
gui_presses_above() { [ "$(gui_value presses)" -gt "$1" ]; }
gui_click() {
  local before try
  for try in 1 2 3; do
    gui_hover "$@"
    before=$(gui_value presses)
    xdotool click --window "$gui_window" 1
    gui_until 10 gui_presses_above "${before:-0}" && break
    [ "$try" -lt 3 ] || gui_fail "the window never saw the click on \"$1\""
  done
  [ "$(gui_value pressed)" = "$1" ] || gui_fail "the click meant for \"$1\" reached \"$(gui_value pressed)\""
  gui_frames 2
}

# The window's height in pixels.
gui_window_height() { xdotool getwindowgeometry --shell "$gui_window" | awk -F= '$1 == "HEIGHT" { print $2 }'; }

# Turns the mouse wheel over the middle of the control's column until the control NAME lies
# inside the window (a panel taller than the window scrolls).
gui_scroll_into_view() {
  gui_wait_item "$1"
  local x0 y0 x1 y1 height try
  height=$(gui_window_height)
  for try in $(seq 1 60); do
    read -r x0 y0 x1 y1 <<<"$(gui_item "$1")"
    if [ "$y0" -ge 0 ] && [ "$y1" -le "$((height - 40))" ]; then return 0; fi
    xdotool mousemove --window "$gui_window" $(((x0 + x1) / 2)) $((height / 2))
    # Down while it ends in the window's last 40 pixels too (the status bar lies over them, and a
    # click there reaches the bar, not the control): else a control just above that band would be
    # scrolled up and down again for ever.
    if [ "$y1" -gt "$((height - 40))" ]; then xdotool click --window "$gui_window" 5; else xdotool click --window "$gui_window" 4; fi
    gui_frames 2
  done
  gui_fail "could not scroll \"$1\" into the window"
}

# Waits until the window has drawn N more frames (default 2).
gui_frame_at_least() { local f; f=$(gui_value frame); [ "${f:-0}" -ge "$1" ]; }
gui_frames() {
  local from
  from=$(gui_value frame)
  gui_until 30 gui_frame_at_least "$((${from:-0} + ${1:-2}))" || gui_fail "the window stopped drawing"
}
# Each key is held down until the window has drawn a frame with it down: ImGui 1.86 reads keys
# once a frame, so a press and release between two frames would be lost in a text field.
gui_key() {
  for k in "$@"; do
    xdotool keydown --window "$gui_window" "$k"
    gui_frames 2
    xdotool keyup --window "$gui_window" "$k"
    gui_frames 1
  done
}
gui_type() { xdotool type --window "$gui_window" --delay 20 "$1"; }
gui_wait_file() { gui_until "${2:-60}" test -s "$1" || gui_fail "no file $1"; }

# Until PosLab exits by itself (at most SECONDS, 120 by default); sets gui_watched to how many
# frames it drew while the probe showed KEY = yes (not echoed: gui_exited must reap PosLab in
# this shell, not in a $(…) subshell), counted from the first to the last frame number seen with it. Each
# look reads one rewrite of the probe (it is replaced whole), so the number and value agree.
gui_watch() {
  local key=$1 deadline=$((SECONDS + ${2:-120})) first="" last="" frame shown
  until gui_exited; do
    [ "$SECONDS" -lt "$deadline" ] || gui_fail "PosLab did not exit by itself"
    read -r frame shown <<<"$(awk -F'\t' -v k="$key" '$1 == "value" && $2 == "frame" { f = $3 }
      $1 == "value" && $2 == k { v = $3 } END { print f + 0, v }' "$gui_probe" 2>/dev/null)"
    if [ "$shown" = yes ]; then
      first=${first:-$frame}
      last=$frame
    fi
    sleep 0.05  # the poll's period, as in gui_until: the wait is for the exit
  done
  gui_watched=0
  [ -z "$first" ] || gui_watched=$((last - first + 1))
}

# True once PosLab has exited by itself (its exit status is then in $gui_status).
gui_exited() {
  kill -0 "$gui_pid" 2>/dev/null && return 1
  gui_status=0
  wait "$gui_pid" || gui_status=$?
  gui_pid=""
}

gui_stop() {
  [ -n "$gui_pid" ] || return 0
  kill -TERM "$gui_pid" 2>/dev/null || true
  wait "$gui_pid" 2>/dev/null || true
  gui_pid=""
}
