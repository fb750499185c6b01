#!/usr/bin/env bash
# Issue 24 in the window (tests/gui_kit.sh's real clicks under Xvfb): T5's three attentions — a
# click on *cross* shows the decoder's rows against the sentence's columns, a new target typed
# in the box reruns the decoder, a head clicked in the cross-attention's grid (the Model tab shows
# the three grids together) opens it — and BERT's fill-mask answers the blank the sentence holds.
#   tests/gui_encoder_test.sh POSLAB MODEL_REFERENCE_DIR
set -euo pipefail
poslab=$(realpath "$1")
models=$(realpath "$2")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

# T5: the sentence is 12 tokens with </s>; "Ein Hund im Park." is 6 with </s>, so the decoder reads 7.
gui_start "$poslab" --size 1440x900 --model "$models/t5" --layer 0 --view model \
  --sentence "The dog chased another dog in the park." --target "Ein Hund im Park."
gui_wait_value "model shown" "encoder 12x12" 120
gui_value design | grep -q "^T5: " || gui_fail "the design line does not name T5: $(gui_value design)"
gui_click "model stack: cross"
gui_wait_value "model shown" "cross 7x12" 120
gui_click "model stack: decoder"
gui_wait_value "model shown" "decoder 7x7" 120
echo "T5: encoder 12×12, cross-attention 7×12 and decoder 7×7, each by a click"
# Another target, typed: the decoder reads its start token and the new target's tokens.
gui_click "model target"
gui_key ctrl+a
gui_type "Der Hund jagte einen anderen Hund im Park."
gui_key Return
gui_wait_value "model shown" "decoder 13x13" 120
gui_value state | grep -q '"target": "Der Hund jagte einen anderen Hund im Park."' || gui_fail "the target typed is not in the state: $(gui_value state)"
echo "a typed target reruns the decoder: 13 tokens"
# The Model tab shows the encoder's, the decoder's and the cross-attention's heads together; a head
# of another stack than the shown one opens that stack's attention.
gui_scroll_into_view "cross head 1"
gui_click "cross head 1"
gui_wait_value tab attention
gui_until 60 bash -c "grep \$'^value\tattention shows\t' '$gui_probe' | grep -q ' · cross layer 0 · '" ||
  gui_fail "a head of the cross-attention's grid did not open the cross-attention: $(gui_value 'attention shows')"
gui_click "tab: Model"
gui_wait_value "model shown" "cross 13x12" 120
echo "the three grids: a cross-attention head clicked opens the cross-attention"
gui_stop

gui_start "$poslab" --size 1440x900 --model "$models/bert" --layer 0 --view model --sentence "The dog sat on the [MASK] in the park."
gui_wait_value "fill-mask blanks" 1 120
gui_wait_value "model shown" "encoder 12x12" 60
gui_stop
echo "BERT: one blank filled, the encoder's 12 × 12 attention shown"
