#!/usr/bin/env bash
# The Papers tab under Xvfb (tests/gui_kit.sh): its checks run off the UI thread, the model checks
# on the Model tab's model, and reach the verdicts `poslab papers check --model` reaches (as many
# checks reproduced, of as many); the first check's figure is shown, and a click on another
# check's row shows that one's.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

# "reproduced/run" over the checks of a `papers check --json` file.
verdicts() {
  /usr/bin/python3 -c '
import json, sys
ids = {}
for r in json.load(open(sys.argv[1])):
    ids.setdefault(r["id"], []).append(r["pass"])
print(f"{sum(all(v) for v in ids.values())}/{len(ids)}")' "$1"
}
# With a model open the tab runs every check, the model's too (a check that cannot be made on this
# model is left out here and there), and reaches the verdicts of `papers check --model`.
model="${POSLAB_MODEL_REFERENCE:?}/gemma2"
"$poslab" papers check --model "$model" --json cli.json >/dev/null 2>&1 || true  # exit 1 when a check differs: a verdict
expected=$(verdicts cli.json)
gui_start "$poslab" --model "$model" --view papers --size 1400x1000
gui_wait_value "papers reproduced" "$expected" 180
gui_wait_value "papers figure" roformer-decay
gui_click "papers: alibi-slopes"
gui_wait_value "papers figure" alibi-slopes
echo "the Papers tab reproduced $expected checks with a model open, as poslab papers check --model does, and drew the chosen check's figure"
