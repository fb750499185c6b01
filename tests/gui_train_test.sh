#!/usr/bin/env bash
# The Train tab under Xvfb with real clicks and keys (xdotool): untick every encoding but RoPE,
# set 40 steps, press Train; the model is trained off the UI thread (the window keeps drawing
# frames meanwhile), saved under $XDG_DATA_HOME/poslab/trained, measured, and Ctrl+D exports the
# extrapolation table the tab shows: RoPE as trained and with PI, NTK, dynamic and YaRN; then
# "Open in the attention view" shows a trained model's last layer in the Attention tab.
set -euo pipefail
poslab=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"

cat > drive.sh <<'INNER'
set -eu
"$@" &
pid=$!
window=$(timeout 60 xdotool search --sync --limit 1 --name '^PosLab$')
sleep 2
xdotool windowfocus --sync "$window"
click() { xdotool mousemove --window "$window" "$1" "$2"; sleep 0.2; xdotool click --window "$window" 1; sleep 0.3; }
# The tab's controls at 1600×1000 (the controls panel is 410 px wide): the encodings' checkboxes,
# then the steps field.
for x in 503 569 667 812 872; do click "$x" 78; done   # none, sinusoidal, learned, alibi, t5 off
click 434 130                                          # steps
xdotool key --window "$window" ctrl+a
xdotool type --window "$window" --delay 80 "40"
xdotool key --window "$window" Return
sleep 0.3
click 434 182                                          # Train
for _ in $(seq 1 600); do
  [ -f data/poslab/trained/run-seed1/copy-rope/config.json ] && break
  sleep 0.1
done
click 1000 400                                         # off any text field, so Ctrl+D is a hotkey
# Ctrl+D until the table is the new job's (the shipped models' table is shown until it is measured).
for _ in $(seq 1 90); do
  rm -f poslab-extrapolation.csv
  xdotool key --window "$window" ctrl+d
  sleep 1
  [ -s poslab-extrapolation.csv ] && ! grep -q '^alibi' poslab-extrapolation.csv && break
done
# Open in the attention view: the first trained model (the shipped copy-none) in the Attention tab.
click 981 227
for _ in $(seq 1 30); do
  xdotool key --window "$window" ctrl+d
  sleep 1
  [ -s poslab-attention.csv ] && break
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
INNER
xvfb-run -a -s '-screen 0 1700x1100x24' bash drive.sh "$poslab" --view extrapolation --size 1600x1000 \
  --frame-log frames.csv >/dev/null 2>&1 || true

fail() { echo "FAIL: $*"; exit 1; }
[ -f data/poslab/trained/run-seed1/copy-rope/model.safetensors ] || fail "pressing Train saved no model under \$XDG_DATA_HOME"
[ ! -e data/poslab/trained/run-seed1/copy-alibi ] || fail "an unticked encoding was trained"
[ -s poslab-extrapolation.csv ] || fail "Ctrl+D in the Train tab wrote no table"
head -1 poslab-extrapolation.csv | grep -qx 'model,encoding,scaling,train_length,length,tokens,loss,accuracy' ||
  fail "the table's header is $(head -1 poslab-extrapolation.csv)"
curves=$(awk -F, 'NR > 1 { print $1 "/" $3 }' poslab-extrapolation.csv | sort -u | tr '\n' ' ')
[ "$curves" = "rope/dynamic rope/linear rope/none rope/ntk rope/yarn " ] || fail "the tab measured: $curves"
[ -s poslab-attention.csv ] || fail "Open in the attention view showed no model's attention (no attention CSV)"
head -1 poslab-attention.csv | grep -qx 'head,query,key,query_token,key_token,score,weight' ||
  fail "attention CSV: $(head -1 poslab-attention.csv)"
heads=$(awk -F, 'NR > 1 { print $1 }' poslab-attention.csv | sort -u | wc -l)
[ "$heads" -eq 4 ] || fail "the opened model should show its 4 heads, not $heads"
frames=$(($(wc -l < frames.csv) - 1))
[ "$frames" -gt 100 ] || fail "only $frames frames were drawn while it trained and measured"
echo "trained RoPE from the Train tab, measured 5 curves, $frames frames drawn meanwhile"
