#!/usr/bin/env bash
# The Papers tab under Xvfb (tests/gui_kit.sh): its checks run off the UI thread and reach the
# verdicts `poslab papers check` reaches (as many checks reproduced, of as many); the first
# check's figure is shown, and a click on another check's row shows that one's.
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
"$poslab" papers check --json cli.json >/dev/null || true  # exit 1 when a check differs: a verdict, not a failure
expected=$(verdicts cli.json)
gui_start "$poslab" --view papers --size 1400x1000
gui_wait_value papers done 120
gui_has_value "papers reproduced" "$expected" || gui_fail "the tab says $(gui_value "papers reproduced") reproduced, the command line $expected"
gui_wait_value "papers figure" roformer-decay
gui_click "papers: alibi-slopes"
gui_wait_value "papers figure" alibi-slopes
gui_stop
# With a model open, the model checks run on it too: the tab reaches the command line's verdicts
# with --model (a check that cannot be made on this model is left out of both).
model="${POSLAB_MODEL_REFERENCE:?}/gemma2"
"$poslab" papers check --model "$model" --json cli-model.json >/dev/null 2>&1 || true
with_model=$(verdicts cli-model.json)
gui_start "$poslab" --model "$model" --view papers --size 1400x1000
gui_wait_value papers done 120
gui_has_value "papers reproduced" "$with_model" || gui_fail "with a model the tab says $(gui_value "papers reproduced"), the command line $with_model"
echo "the Papers tab reproduced $expected checks ($with_model with a model open), as poslab papers check does, and drew the chosen check's figure"
