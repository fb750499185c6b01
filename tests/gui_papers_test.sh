#!/usr/bin/env bash
# The Papers tab under Xvfb (tests/gui_kit.sh): its checks run off the UI thread and reach the
# verdicts `poslab papers check` reaches (as many checks reproduced, of as many); the first
# check's figure is shown, and a click on another check's row shows that one's.
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

"$poslab" papers check --json cli.json >/dev/null || true  # exit 1 when a check differs: a verdict, not a failure
expected=$(/usr/bin/python3 -c '
import json
ids = {}
for r in json.load(open("cli.json")):
    ids.setdefault(r["id"], []).append(r["pass"])
print(f"{sum(all(v) for v in ids.values())}/{len(ids)}")')
gui_start "$poslab" --view papers --size 1400x1000
gui_wait_value papers done 120
gui_has_value "papers reproduced" "$expected" || gui_fail "the tab says $(gui_value "papers reproduced") reproduced, the command line $expected"
gui_wait_value "papers figure" roformer-decay
gui_click "papers: alibi-slopes"
gui_wait_value "papers figure" alibi-slopes
echo "the Papers tab reproduced $expected checks, as poslab papers check does, and drew the chosen check's figure"
