#!/usr/bin/env bash
# Issue 22: no std::bad_alloc reaches the user; the GUI keeps its previous state and says why. Under
# Xvfb with real clicks (tests/gui_kit.sh): a 225-token sentence with one head under
# --memory-limit 8M computes; 50 heads would need about 42 MB, so the choice is refused. The
# window keeps drawing and keeps showing the one-head results, says above the view and on the
# status line how much the run would need, the limit and where it comes from, and what lowers it
# (fewer heads, a shorter sentence, or --memory-limit), and the whole message can be read where
# the status line cuts it. Two heads fit again: they are computed and the message goes.
#   tests/gui_memory_test.sh POSLAB
set -euo pipefail
poslab=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

kept_says_why() { [ -n "$(gui_value "kept results")" ]; }
must_say() { grep -qF -- "$2" <<<"$1" || gui_fail "the message does not say \"$2\": $1"; }

words=$(/usr/bin/python3 -c "print(' '.join(['the dog chased another cat across a green field'] * 25))")
gui_start "$poslab" --size 1280x800 --sentence "$words" --heads 1 --memory-limit 8M
gui_wait_value results "225 tokens · 1 head"
[ "$(gui_value "status kind")" != error ] || gui_fail "one head is refused already: $(gui_value status)"
heatmap=$(gui_value heatmap)

gui_click heads
gui_click "heads: 50"
gui_until 120 kept_says_why || gui_fail "50 heads over the budget: the window does not say that it keeps the results from before"
why=$(gui_value "kept results")
must_say "$why" "attention over 100-dimensional embeddings for 225 tokens would need 41.9 MB"
must_say "$why" "more than the memory limit of 8.39 MB (--memory-limit 8M)"
must_say "$why" "use fewer heads or a shorter sentence, or raise --memory-limit"
[ "$(gui_value status)" = "$why" ] || gui_fail "the status line says \"$(gui_value status)\", not \"$why\""
gui_wait_value "status kind" error
# The previous state: the one-head results, drawn as before, in a window that goes on drawing;
# the panel keeps the reader's choice of 50 heads.
gui_frames 5
gui_wait_value results "225 tokens · 1 head"
[ "$(gui_value heatmap)" = "$heatmap" ] || gui_fail "the heatmap shows \"$(gui_value heatmap)\", before \"$heatmap\""
gui_value state | grep -q '"heads": *50' || gui_fail "the panel lost the choice of 50 heads: $(gui_value state)"
gui_hover "status line" 0.5 0.5
gui_wait_value "status tooltip" shown 10
echo "50 heads refused: $why"

gui_click heads
gui_click "heads: 2"
gui_wait_value results "225 tokens · 2 heads" 120
gui_wait_value "kept results" ""
gui_wait_value "status kind" none
gui_stop
echo "2 heads fit the budget again: computed, and the refusal's message is gone"
