#!/usr/bin/env bash
# Issue 25 in the window, with real input (xdotool under Xvfb) against the small Hub of
# tests/hub/fake_hub.py: tests/gui_hub_test.sh POSLAB MODELS FAKE_HUB.
#  1. The model box fetches a model by name on a worker: the progress bar shows while the window
#     keeps drawing, Cancel stops it (nothing opens, no blob under its final name).
#  2. Get again resumes and opens the model; the cached models are listed.
#  3. Positions across training: the size is said first, nothing moves before "Download and run",
#     then the figure over the revisions, which exports as `poslab export training` writes it.
set -euo pipefail
poslab=$(realpath "$1")
models=$(realpath "$2")
fake_hub=$(realpath "$3")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

hub_pid=""
trap '[ -n "$hub_pid" ] && kill "$hub_pid" 2>/dev/null; gui_cleanup' EXIT
commit=$(/usr/bin/python3 "$fake_hub" publish "$work/root" tiny-org/tiny-llama "$models/llama" --tag step10)
/usr/bin/python3 "$fake_hub" publish "$work/root" tiny-org/tiny-llama "$models/llama" --tag step20 >/dev/null
# 10 kB/s: the 156 kB of weights take long enough to watch the bar and press Cancel.
/usr/bin/python3 "$fake_hub" serve "$work/root" --ports "$work/ports" --log "$work/requests.log" --rate 10000 &
hub_pid=$!
gui_until 60 test -s "$work/ports" || gui_fail "the fake Hub did not start"
read -r hub_port _ <"$work/ports"
export HF_ENDPOINT="http://127.0.0.1:$hub_port" HF_HUB_CACHE="$work/cache"
unset HF_TOKEN HF_HOME HF_HUB_OFFLINE
repo="$work/cache/models--tiny-org--tiny-llama"

sentence="the dog chased the cat and the dog ran"
gui_start "$poslab" --size 1440x900 --view model --sentence "$sentence"
gui_click "model: hub name"
gui_type "tiny-org/tiny-llama"
gui_click "model: hub get"
gui_wait_value "hub state" downloading 60
frame=$(gui_value frame)
gui_frames 10  # the window draws on while the bytes come
gui_click "model: hub cancel"
gui_wait_value "hub state" error 60
case "$(gui_value "hub error")" in *cancelled*) ;; *) gui_fail "Cancel did not say so: $(gui_value "hub error")" ;; esac
[ ! -e "$repo/snapshots/$commit/model.safetensors" ] || gui_fail "a cancelled download was linked into the snapshot"
for blob in "$repo"/blobs/*; do
  [ -e "$blob" ] || continue
  [ "$(stat -c %s "$blob")" -lt 100000 ] || case "$blob" in *.incomplete) ;; *) gui_fail "a partial blob under its final name: $blob" ;; esac
done
echo "Cancel stopped the download after frame $frame; the weights stayed .incomplete"

gui_click "model: hub get"
gui_wait_value "hub state" done 240
gui_wait_value model "$commit" 120
grep -q '"range": "bytes=' "$work/requests.log" || gui_fail "the second Get did not resume with a Range request"
echo "Get again resumed with a Range request and opened the model"

# (Its entries are not clicked: the popup lies over the heads grid, whose probe items would
# claim the mouse. A click on the box closes it again.)
requests=$(wc -l <"$work/requests.log")
gui_click "model: cached"
gui_wait_item "model: cached tiny-org/tiny-llama@main" 30
gui_click "model: cached"
[ "$(wc -l <"$work/requests.log")" = "$requests" ] || gui_fail "listing the cached models made a request"
echo "the cached models are listed, with no request"

gui_scroll_into_view "model: training"
gui_click "model: training"
gui_wait_item "training: revisions" 30
gui_click "training: revisions"
gui_type "step10,step20"
gui_click "training: size"
gui_wait_value "training stage" consent 120
[ "$(gui_value "training size")" = "0 B" ] || gui_fail "the revisions are cached: nothing to download, not $(gui_value "training size")"
gui_click "training: consent"
gui_wait_value "training stage" shown 240
gui_wait_value "training rows" 2 30
gui_wait_item "training: figure" 30
# Drawn at its own size (seam 7: shrunk to the panel, its labels were about 7 pixels high).
gui_wait_value "training: figure scale" 1.00 30
echo "the training view said the size, waited for consent, and drew two revisions at their own size"
# Its Export button writes what `poslab export training` writes.
gui_click "training: export"
gui_until 60 bash -c "grep -q \$'^value\tstatus\twrote .*poslab-training.csv (CSV)' '$gui_probe'" ||
  gui_fail "the training view's export did not say it wrote its files: $(gui_value status)"
"$poslab" export training --model tiny-org/tiny-llama --revisions step10,step20 --layer 0 --sentence "$sentence" \
  --csv cli-training.csv >/dev/null 2>&1 || gui_fail "poslab export training failed"
cmp -s cli-training.csv poslab-training.csv || gui_fail "the GUI's training CSV differs from poslab export training's"
[ -s poslab-training.png ] || gui_fail "the training view's PNG was not written"
echo "the training view exports its PNG and the CSV poslab export training writes"
gui_stop
