#!/usr/bin/env bash
# The Train tab under Xvfb with real clicks and keys (xdotool, tests/gui_kit.sh): untick every
# encoding but RoPE, set 40 steps, press Train; the model is trained off the UI thread (the window
# keeps drawing frames meanwhile: the probe's frame number advances while it shows the job
# running), saved under $XDG_DATA_HOME/poslab/trained, measured, and Ctrl+D exports the
# extrapolation table the tab shows: RoPE as trained and with PI, NTK, dynamic and YaRN; then
# "Open in the attention view" shows a trained model's last layer in the Attention tab.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"
export XDG_DATA_HOME="$work/data"

gui_start "$poslab" --view extrapolation --size 1600x1000
for encoding in none sinusoidal learned alibi t5; do gui_click "train: $encoding"; done
gui_click "train: steps" 0.1 0.5  # the text field, left of the group's − and + buttons
gui_key ctrl+a
gui_type 40
gui_key Return  # the field lets go of the keyboard: Ctrl+D is a hotkey again
gui_wait_value "train job" "rope · 40 steps"
gui_click "train: train"
# Frames drawn while the job runs, read off the probe's frame numbers until it is done.
first=""
job_over() {
  local frame shown
  frame=$(gui_value frame) shown=$(gui_value train)
  if [ "$shown" = running ]; then first=${first:-$frame} last=$frame; fi
  [ -n "$first" ] && [ "$shown" != running ]
}
gui_until 200 job_over || gui_fail "the training job did not run and end"
gui_wait_value train done
frames=$((last - first + 1))
[ -f data/poslab/trained/run-seed1/copy-rope/model.safetensors ] || gui_fail "pressing Train saved no model under \$XDG_DATA_HOME"
[ ! -e data/poslab/trained/run-seed1/copy-alibi ] || gui_fail "an unticked encoding was trained"

# The job is done and measured: the tab shows its table.
gui_key ctrl+d
gui_wait_file poslab-extrapolation.csv
gui_wait_value busy no
head -1 poslab-extrapolation.csv | grep -qx 'model,encoding,scaling,train_length,length,tokens,loss,accuracy' ||
  gui_fail "the table's header is $(head -1 poslab-extrapolation.csv)"
curves=$(awk -F, 'NR > 1 { print $1 "/" $3 }' poslab-extrapolation.csv | sort -u | tr '\n' ' ')
[ "$curves" = "rope/dynamic rope/linear rope/none rope/ntk rope/yarn " ] || gui_fail "the tab measured: $curves"

# Open in the attention view: the first trained model (the shipped copy-none) in the Attention tab.
gui_click "train: open in the attention view"
gui_wait_value tab attention
gui_wait_value busy no
gui_key ctrl+d
gui_wait_file poslab-attention.csv
gui_wait_value busy no
gui_stop
head -1 poslab-attention.csv | grep -qx 'head,query,key,query_token,key_token,score,weight' ||
  gui_fail "attention CSV: $(head -1 poslab-attention.csv)"
heads=$(awk -F, 'NR > 1 { print $1 }' poslab-attention.csv | sort -u | wc -l)
[ "$heads" -eq 4 ] || gui_fail "the opened model should show its 4 heads, not $heads"
[ "$frames" -ge 10 ] || gui_fail "only $frames frames were drawn while it trained and measured"
echo "trained RoPE from the Train tab, measured 5 curves, $frames frames drawn meanwhile"
