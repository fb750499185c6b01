#!/usr/bin/env bash
# The seams a new user found between two features, each replayed with real mouse and keyboard
# input (xdotool) under Xvfb: tests/gui_seams_test.sh POSLAB CASE [MODELS]. Every case failed
# before its fix. The window reports what it shows through --probe (tests/gui_kit.sh).
set -euo pipefail
poslab=$(realpath "$1")
case_name=$2
models=${3:+$(realpath "$3")}
png_probe=${4:+$(realpath "$4")}
source "$(dirname "$(realpath "$0")")/gui_kit.sh"

state_now() { gui_value state; }
state_is() { [ "$(state_now)" = "$1" ]; }
value_not_empty() { [ -n "$(gui_value "$1")" ]; }
# The state's settings KEY… as the probe's session JSON has them, one line: "rope none".
state_of() {
  state_now | /usr/bin/python3 -c 'import json, sys; s = json.load(sys.stdin)["state"]; print(*(int(v) if isinstance(v, float) and v.is_integer() else v for v in (s[k] for k in sys.argv[1:])))' "$@"
}

# 1. Entering and leaving the tour gives back exactly the state from before: the sentence, the
#    causal mask, the encoding; the tour does not start again by itself; entered again, it starts at 1.
tour_leave_restores_the_state() {
  gui_start "$poslab" --size 1280x800 --sentence "the cat sat on the mat" --causal --encoding sinusoidal
  gui_wait_value tab attention
  local before
  before=$(state_now)
  gui_click "tab: Tour"
  gui_wait_value "tour step" 1
  gui_key Right Right
  gui_wait_value "tour step" 3
  [ "$(state_now)" != "$before" ] || gui_fail "the tour's steps did not change the state"
  gui_click "tour: leave"
  gui_wait_value tab attention
  gui_until 10 state_is "$before" || gui_fail "leaving the tour did not give the state back"
  # Still the reader's after a while: the tour has not taken the state over again.
  gui_click "tab: Dog"
  gui_wait_value tab dog
  [ "$(state_now)" = "$before" ] || gui_fail "the tour took the state over again after it was left"
  gui_click "tab: Tour"
  gui_wait_value "tour step" 1
  gui_click "tour: leave"
  gui_wait_value tab dog
  gui_until 10 state_is "$before" || gui_fail "the second leave did not give the state back"
  echo "the tour gives the reader's state back, and starts at step 1 when entered again"
}

# Whether the tour's figures, as the probe says they were drawn ("tour panel P", "tour panel P
# area K", "tour text P ROLE: TEXT"; P "-": the slide's own words), keep out of each other's way:
# no text of one figure on another figure's plotting area or text, nor outside its own figure; in
# one figure no two of its titles, subtitles, captions, axis labels, tick labels and legend entries
# on each other, nor on its plotting area. Needs at least MIN_PANELS placed figures and a text of
# each ROLE given, so that a probe that says nothing cannot pass.
tour_layout_is_clear() {
  local what=$1 min_panels=$2; shift 2
  /usr/bin/python3 - "$gui_probe" "$what" "$min_panels" "$@" <<'PY' || gui_fail "$what: the tour's figures overlap (above)"
import re, sys
from collections import defaultdict
probe, what, min_panels, roles = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
panels, areas, texts = {}, defaultdict(list), []
for line in open(probe, encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if f[0] != "item" or not f[1].startswith("tour "):
        continue
    box = tuple(float(v) for v in f[2:6])
    if m := re.fullmatch(r"tour panel (\d+|-)", f[1]):
        panels[m[1]] = box
    elif m := re.fullmatch(r"tour panel (\d+|-) area \d+", f[1]):
        areas[m[1]].append(box)
    elif m := re.fullmatch(r"tour text (\d+|-) ([^:]*): (.*)", f[1]):
        texts.append((m[1], m[2], m[3], box))
def overlap(a, b):  # more than a pixel both ways: the probe rounds each edge to a pixel
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1
def name(t):
    return f'figure {t[0]} {t[1] or "text"} "{t[2]}" at {",".join("%g" % v for v in t[3])}'
def inside(a, b):  # a within b, give or take the probe's rounding
    return a[0] >= b[0] - 1 and a[1] >= b[1] - 1 and a[2] <= b[2] + 1 and a[3] <= b[3] + 1
bad = []
for i, t in enumerate(texts):
    for other, boxes in areas.items():
        if other != t[0] or t[1]:  # words inside a plot (a point's label) are the plot's own
            bad += [f"{name(t)} lies on figure {other}'s plotting area {b}" for b in boxes if overlap(t[3], b)]
    if t[0] in panels and not inside(t[3], panels[t[0]]):
        bad.append(f"{name(t)} runs out of its figure {panels[t[0]]}")
    for u in texts[i + 1:]:
        if not overlap(t[3], u[3]):
            continue
        if u[0] != t[0]:
            bad.append(f"{name(t)} overlaps {name(u)}")
        elif t[1] and u[1]:
            bad.append(f"{name(t)} and {name(u)} run together")
shown = {r for _, r, _, _ in texts}
if len(panels) < min_panels:
    bad.append(f"the probe names {len(panels)} figures, not at least {min_panels}")
bad += [f"no {r} was drawn" for r in roles if r not in shown]
for b in bad:
    print(f"{what}: {b}")
ticks = sum(r in ("x tick", "y tick") for _, r, _, _ in texts)
print(f"{what}: {len(panels)} figures, {len(texts)} texts ({ticks} tick labels), {len(bad)} overlaps or gaps")
sys.exit(1 if bad else 0)
PY
}

# 6. The tour's figures keep apart in a small window at 150 %: step 10's subtitles and caption
#    stay off the next plot's axis label, step 5's x tick labels off each other.
tour_figures_keep_apart() {
  gui_start "$poslab" --view tour --step 10 --size 900x600 --ui-scale 1.5
  gui_wait_value "tour step" 10
  gui_wait_value busy no 120
  tour_layout_is_clear "step 10" 3 subtitle caption "x label" "y label" "x tick"
  gui_key Left Left Left Left Left
  gui_wait_value "tour step" 5
  gui_wait_value busy no 120
  tour_layout_is_clear "step 5" 3 subtitle "x label" "x tick" "y tick"
  echo "the tour's figures keep apart at 900 × 600 and 150 %, at step 10 and step 5"
}

# 7f. Tour step 5's paths are drawn large enough to read in a 1440 × 900 window (they were 100
#     points square, fitted with the step-length plot into what the slide's words leave).
tour_step_5_plots_are_readable() {
  gui_start "$poslab" --view tour --step 5 --size 1440x900
  gui_wait_value "tour step" 5
  gui_wait_value busy no 120
  local small
  small=$(awk -F'\t' '$1 == "item" && $2 ~ /^tour panel [0-9]+ area / && ($5 - $3 < 200 || $6 - $4 < 150) { print $2 ": " $5 - $3 " × " $6 - $4 }' "$gui_probe")
  [ -n "$(gui_item "tour panel 0 area 0")" ] || gui_fail "the probe names no plotting area of step 5"
  [ -z "$small" ] || gui_fail "step 5's plots are small: $small"
  echo "step 5's plotting areas: $(awk -F'\t' '$1 == "item" && $2 ~ /^tour panel [0-9]+ area / { printf "%s × %s  ", $5 - $3, $6 - $4 }' "$gui_probe")"
}

# 7. Two clicks on the same spot of Next move two steps, also across a step that offers the
#    article's animation (the button must not move under the mouse, nor start the animation).
tour_next_stays_under_the_mouse() {
  gui_start "$poslab" --size 1280x800 --view tour
  gui_wait_value "tour step" 1
  gui_key Right
  gui_wait_value "tour step" 2
  gui_click "tour: next"
  gui_wait_value "tour step" 3
  gui_wait_item "tour: play the article's animation"
  xdotool click --window "$gui_window" 1  # the mouse has not moved
  gui_wait_value "tour step" 4
  [ "$(gui_value tab)" = tour ] || gui_fail "the second click left the tour"
  echo "Next stays where it is: two clicks in one place went from step 2 to step 4"
}

# 8. The play bar names the value in use, not its first frame's, and its label leaves the view
#    once paused.
play_bar_shows_the_value_in_use() {
  gui_start "$poslab" --size 1280x800 --head 1
  gui_wait_value "play bar" "head = 1"
  gui_click "tab: Patterns"
  gui_wait_value "play bar" "base = 10000"
  gui_click "play bar: play"
  gui_until 30 value_not_empty "value on view" || gui_fail "playing shows no value on the view"
  gui_click "play bar: play"  # now Pause
  gui_wait_value "value on view" ""
  echo "the play bar says head = 1 and base = 10000, and its label goes when paused"
}

# 5. The tour's "Play the article's animation" gives the tour step its state back when the
#    animation stops (its tab left): step 5 shows "dog" again, over its own positions, and the
#    play bar names the positions in use, not the frame the animation stopped at.
article_animation_gives_the_step_back() {
  gui_start "$poslab" --size 1440x900 --view tour --step 5
  gui_wait_value "tour step" 5
  gui_wait_value busy no 120
  local before
  before=$(state_now)
  gui_click "tour: play the article's animation"
  gui_wait_value tab trajectory
  gui_until 30 value_not_empty "value on view" || gui_fail "the article's animation does not play"
  gui_until 30 bash -c "grep -q \$'^value\tvalue on view\t.*positions = \(1[0-9]\|[2-9][0-9]\)' '$gui_probe'" ||
    gui_fail "the animation did not reach 10 positions"
  gui_click "play bar: play"  # Pause: the frame stays while the tab is shown
  gui_wait_value "value on view" ""
  [ "$(gui_value "play bar")" = "positions = $(state_of positions)" ] ||
    gui_fail "paused, the play bar says $(gui_value "play bar") with $(state_of positions) positions in use"
  gui_click "tab: Tour"
  gui_wait_value tab tour
  gui_until 10 state_is "$before" || gui_fail "the tour's step 5 did not get its state back: token $(state_of token), $(state_of positions) positions"
  gui_click "tab: Trajectory"
  gui_wait_value tab trajectory
  gui_wait_value "play bar" "positions = $(state_of positions)"
  echo "step 5 has its token and positions back; the play bar says $(gui_value "play bar")"
}

# 4 and 5. The head range follows the head count; the animation file is named after the tab shown,
#    and "wrote …" is not an error.
animation_follows_the_view() {
  gui_start "$poslab" --size 1440x900
  gui_wait_value "play bar range" "0 → 4, 5 frames"
  gui_click heads
  gui_click "heads: 2"
  gui_wait_value "play bar range" "0 → 1, 2 frames"
  gui_click "tab: Shift"
  gui_wait_value tab shift
  gui_click "export animation"
  gui_wait_value "export path" "poslab-shift-shift-k.mp4"
  gui_click "export animation: export"
  gui_wait_file poslab-shift-shift-k.mp4 120
  gui_wait_value "animation message kind" info
  echo "the head range followed 2 heads; the Shift tab's animation is poslab-shift-shift-k.mp4, reported as written"
}

# 9. One word repeated, RoPE on: the outputs are identical because every token is the same.
dog_line_names_the_true_reason() {
  gui_start "$poslab" --size 1280x800 --encoding rope
  gui_click sentence
  gui_key ctrl+a
  gui_type "dog dog dog"
  gui_until 60 bash -c "grep -q 'every token is the same word' '$gui_probe'" ||
    gui_fail "the dog line does not say that every token is the same"
  echo "the dog line says the tokens are all the same word"
}

# 10. The bottom bar's progress text is never cut ("mputing … 10%"): a sentence long enough that
#     its attention takes a while, and while the bar shows, its whole text lies inside it.
progress_text_is_whole() {
  local words
  words=$(/usr/bin/python3 -c "print(' '.join(['the dog chased another cat across a green field'] * 450))")
  gui_launch "$poslab" --size 900x700 --backend cpu --sentence "$words"
  gui_wait_value "computing text fits" yes 120
  echo "the progress text lies whole inside its bar: $(gui_value computing)"
}

# 11. An empty sentence has no tokens.
empty_sentence_has_no_tokens() {
  gui_start "$poslab" --size 1280x800
  gui_wait_value tokens 5
  gui_click sentence
  gui_key ctrl+a BackSpace
  gui_wait_value tokens none
  echo "an empty sentence shows no tokens"
}

# 3. A head clicked in the unchanged model's grid opens that model's head, and one in the changed
#    model's grid that one's.
model_head_click_opens_its_own_model() {
  gui_start "$poslab" --size 1440x900 --model "$models/qwen2" --layer 0 --encoding none --view model
  gui_wait_item "changed head 1" 120
  gui_click "head 1"
  gui_wait_value tab attention
  gui_until 60 bash -c "grep -q \$'^value\tattention shows\t.* · unchanged · ' '$gui_probe'" ||
    gui_fail "the unchanged model's head opened another model's"
  gui_click "tab: Model"
  gui_scroll_into_view "changed head 1"  # the model box (issue 25) moved the grid's second row lower
  gui_click "changed head 1"
  gui_wait_value tab attention
  gui_until 60 bash -c "grep \$'^value\tattention shows\t' '$gui_probe' | grep -v ' · unchanged · ' | grep -q 'positions off'" ||
    gui_fail "the changed model's head did not open the changed model"
  echo "each grid's head opens its own model in the Attention tab"
}

# --view opens every tab the registry has, the Model and Train tabs and the tour included, and a
# view drawn inside a tab opens that tab.
view_option_opens_every_tab() {
  local view tab
  for pair in model:model train:train tour:tour heads:model extrapolation:train bias:bias; do
    view=${pair%%:*} tab=${pair##*:}
    gui_start "$poslab" --size 1280x800 --view "$view"
    gui_wait_value tab "$tab"
    gui_stop
  done
  echo "--view opened the Model, Train and Tour tabs, and heads and extrapolation in theirs"
}

# The Train tab's "Open in the attention view" opens the Attention tab on the model's layer.
train_open_shows_the_attention_tab() {
  gui_start "$poslab" --size 1440x900 --view train
  gui_click "train: open in the attention view"
  gui_wait_value tab attention
  gui_until 120 bash -c "grep -q \$'^value\tattention shows\t' '$gui_probe'" ||
    gui_fail "the Attention tab does not show the trained model's layer"
  echo "Open in the attention view opened the Attention tab on the model"
}

# An export over a file of the same name says that it replaced it.
export_says_when_it_replaces_a_file() {
  gui_start "$poslab" --size 1280x800
  gui_wait_value busy no
  gui_key ctrl+d
  gui_wait_value status "wrote poslab-attention.csv (CSV)"
  gui_key ctrl+d
  gui_wait_value status "wrote poslab-attention.csv (CSV), replacing the file of that name"
  echo "the second export said it replaced the first"
}

# F1 and the bottom bar's button open and close the shortcuts; Ctrl+Q quits and remembers the
# session.
shortcuts_window_and_quit_key() {
  gui_start "$poslab" --size 1280x800
  gui_wait_value shortcuts closed
  gui_key F1
  gui_wait_value shortcuts open
  gui_click "shortcuts button"
  gui_wait_value shortcuts closed
  xdotool key --window "$gui_window" ctrl+q  # no frame to wait for: the window goes
  gui_until 30 gui_exited || gui_fail "Ctrl+Q did not close the window"
  echo "F1 and the Keys button show the shortcuts; Ctrl+Q quits"
}

# The Model tab opens a model of its own: a shipped one picked from its list runs at once.
model_tab_opens_a_shipped_model() {
  gui_start "$poslab" --size 1440x900 --view model
  gui_click "model: pick"
  gui_click "model: shipped copy-rope"
  gui_wait_value model copy-rope 120
  gui_wait_item "head 0" 120
  echo "the Model tab opened the shipped copy-rope model and shows its heads"
}

# 1a. A model opened after an ALiBi model (BLOOM: the explorer's bias set to ALiBi, its encoding
#     to none) starts with its own positions on, not "RoPE off" left over from the model before.
model_opened_after_alibi_keeps_its_positions() {
  gui_start "$poslab" --size 1440x900 --model "$models/bloom" --layer 0 --view model
  gui_wait_value model bloom 120
  gui_wait_value "model positions" on 120
  # BLOOM's positions are a relative bias: no shift is offered (it would change nothing).
  ! gui_has_item "model: position shift" || gui_fail "BLOOM's Model tab offers a position shift"
  gui_click "model: folder"
  gui_type "$models/qwen2"
  gui_key Return  # Enter in the folder box opens it, as the Open button does
  gui_wait_value model qwen2 120
  gui_wait_value busy no 120
  [ "$(gui_value "model positions")" = on ] || gui_fail "qwen2 opened after BLOOM has its positions $(gui_value "model positions")"
  gui_wait_item "model: position shift" 60
  echo "Qwen2 opened after BLOOM starts with its RoPE on"
}

# 4. Export all views writes what each tab shows: with a model's layer in the Attention tab, the
#    model's attention (not the explorer's random weights), and the Model tab's heads and frequency
#    usage beside the other views, each as `poslab export VIEW --model DIR --layer 0` writes it.
export_all_writes_what_the_tabs_show() {
  gui_start "$poslab" --size 1440x900 --model "$models/qwen2" --layer 0 --view attention
  gui_until 120 bash -c "grep -q \$'^value\tattention shows\t' '$gui_probe'" ||
    gui_fail "the Attention tab does not show the model's layer"
  gui_wait_value busy no 120
  gui_scroll_into_view "export: all views"
  gui_click "export: all views"
  # The files are moved into place together, the model's last.
  gui_wait_file poslab-figures/frequency-usage.csv 120
  gui_wait_value busy no 120
  local view
  for view in attention heads frequency-usage; do
    "$poslab" export "$view" --model "$models/qwen2" --layer 0 --csv "cli-$view.csv" >/dev/null 2>&1 ||
      gui_fail "export $view --model failed"
    cmp -s "cli-$view.csv" "poslab-figures/$view.csv" || gui_fail "Export all views wrote another $view than the tab shows"
    [ -s "poslab-figures/$view.png" ] && [ -s "poslab-figures/$view.svg" ] || gui_fail "no $view.png or .svg"
  done
  [ -s poslab-figures/trajectory.csv ] || gui_fail "the explorer's views are missing"
  echo "Export all views wrote the model's attention, heads and frequency usage as the tabs show them"
}

# 1c. A model's run settings are its own: opening BLOOM (ALiBi) in the Model tab leaves the
#     explorer's encoding and bias as they were, in the Model tab and in the Attention tab showing
#     the model's layer, whose explorer controls say that the model runs its own.
model_settings_leave_the_explorer_alone() {
  gui_start "$poslab" --size 1440x900 --view model --encoding sinusoidal --bias none
  gui_wait_value tab model
  local before
  before=$(state_of encoding bias)
  [ "$before" = "sinusoidal none" ] || gui_fail "the explorer starts with $before"
  gui_click "model: folder"
  gui_type "$models/bloom"
  gui_key Return
  gui_wait_value model bloom 120
  gui_wait_value "model positions" on 120
  gui_wait_value busy no 120
  [ "$(state_of encoding bias)" = "$before" ] || gui_fail "opening BLOOM set the explorer's encoding and bias to $(state_of encoding bias)"
  gui_click "tab: Attention"
  gui_wait_value tab attention
  gui_until 120 value_not_empty "attention shows" || gui_fail "the Attention tab does not show BLOOM's layer"
  gui_wait_value "explorer settings" "the model's own"
  [ "$(state_of encoding bias)" = "$before" ] || gui_fail "the Attention tab on BLOOM's layer shows the explorer with $(state_of encoding bias)"
  gui_click "tab: Model"
  gui_wait_value "model positions" on
  echo "BLOOM runs with its ALiBi on; the explorer keeps sinusoidal, no bias"
}

# 1d. The Model tab sets its model's context scaling (the left panel's no longer reaches the
#     model), and the explorer's stays as it was.
model_scaling_is_the_models() {
  gui_start "$poslab" --size 1440x900 --view model --model "$models/qwen2" --layer 0
  gui_wait_value model qwen2 120
  gui_wait_value busy no 120
  gui_wait_value "model scaling" none
  gui_click "model: context scaling"
  gui_click "context scaling"
  gui_click "context scaling: linear (position interpolation)"
  gui_wait_value "model scaling" "linear ×1"
  gui_wait_value busy no 120
  [ "$(state_of rope-scaling)" = none ] || gui_fail "the Model tab's scaling set the explorer's to $(state_of rope-scaling)"
  echo "Qwen2 runs with linear scaling; the explorer keeps none"
}

# 7a. Enter in the embeddings path box loads it, as the Load button does.
embeddings_enter_loads() {
  gui_start "$poslab" --size 1440x900
  gui_click "embeddings path"
  gui_key ctrl+a
  gui_type "$models/qwen2"
  gui_key Return
  gui_wait_value status "loaded $models/qwen2 with its config.json" 120
  [ "$(state_of embeddings)" = "$models/qwen2" ] || gui_fail "the state's embeddings are $(state_of embeddings)"
  echo "Enter in the path box loaded $models/qwen2"
}

# 7b. A folder the Model tab cannot open says why in the tab, not only on the status line.
model_tab_shows_its_errors() {
  gui_start "$poslab" --size 1440x900 --view model
  gui_click "model: folder"
  gui_type "$work/no-such-model"
  gui_key Return
  gui_until 60 bash -c "grep -q \$'^value\tmodel error\t.*no-such-model' '$gui_probe'" ||
    gui_fail "the Model tab does not say why the folder did not open"
  gui_wait_item "model: error"
  [ "$(gui_value "status kind")" = error ] || gui_fail "the status line no longer says it"
  echo "the Model tab says: $(gui_value "model error")"
}

# 7c. Train with the seed of a run already saved asks before replacing it, and says what it holds.
train_asks_before_replacing_a_run() {
  export XDG_DATA_HOME="$work/data"
  gui_start "$poslab" --view train --size 1600x1000
  for encoding in none sinusoidal learned alibi t5; do gui_click "train: $encoding"; done
  gui_click "train: steps" 0.1 0.5
  gui_key ctrl+a
  gui_type 5
  gui_key Return
  gui_wait_value "train job" "rope · 5 steps"
  gui_wait_value "train replaces" ""
  gui_click "train: train"
  gui_wait_value train done 200
  local model=data/poslab/trained/run-seed1/copy-rope/model.safetensors first
  first=$(stat -c %i "$model" 2>/dev/null || true)
  [ -n "$first" ] || gui_fail "the first run saved no model"
  gui_wait_value "train replaces" "copy-rope (finished, 5 steps)"
  gui_click "train: train"
  gui_wait_value "train asks" yes
  [ "$(gui_value train)" = done ] || gui_fail "Train started over the saved run without asking"
  gui_click "train: keep"
  gui_wait_value "train asks" no
  [ "$(stat -c %i "$model")" = "$first" ] || gui_fail "Keep it replaced the run"
  gui_click "train: train"
  gui_wait_value "train asks" yes
  gui_click "train: replace"
  # A new file in its place (saved before the run is measured, which the test need not wait for).
  gui_until 200 bash -c "[ \"\$(stat -c %i '$model')\" != '$first' ]" || gui_fail "Replace it did not train again"
  echo "Train asked before replacing run-seed1 (copy-rope, 5 steps), kept it once, replaced it when asked"
}

# 7d. Pop-ups are opaque: the heads list, open over the Attention section's controls, is one
#     colour beside its entries' text, whatever lies under it.
popups_are_opaque() {
  gui_start "$poslab" --size 1440x900
  gui_click heads
  gui_wait_item "heads: 2"
  gui_key ctrl+shift+s
  gui_wait_file poslab-window.png
  local x0 y0 x1 y1 top
  read -r x0 top x1 y1 <<<"$(gui_item "heads: 1")"
  read -r x0 y0 x1 y1 <<<"$(gui_item "heads: 4")"
  local colours
  colours=$("$png_probe" colours poslab-window.png $((x1 - 14)) "$top" $((x1 - 4)) "$y1")
  [ "$colours" = 1 ] || gui_fail "the heads list shows $colours colours beside its entries: what lies under it shows through"
  echo "the heads list is one colour beside its text: opaque"
}

# 7e. T5 without a target says why its decoder's grids are 1 × 1 and what a target is for;
#     a target typed puts the hint away.
t5_without_a_target_says_why() {
  gui_start "$poslab" --size 1440x900 --model "$models/t5" --layer 0 --view model --sentence "The dog chased another dog in the park."
  gui_wait_value "model shown" "encoder 12x12" 120
  gui_until 10 value_not_empty "model target hint" || gui_fail "T5 without a target shows no hint"
  gui_click "model stack: decoder"
  gui_wait_value "model shown" "decoder 1x1" 120
  gui_click "model target"
  gui_type "Ein Hund im Park."
  gui_key Return
  gui_wait_value "model shown" "decoder 7x7" 120
  gui_wait_value "model target hint" ""
  echo "T5 without a target said why; with one the decoder reads 7 tokens"
}

# 1b. A mixture of experts shows, for the layer shown, the experts each position is routed to (one
#     row per token: the sentence's, as predict --json counts them), and a Qwen-VL model's M-RoPE
#     header opens its figure of which pairs turn by t, h and w.
experts_table_and_mrope_header() {
  local sentence="the dog sat"
  local tokens
  tokens=$("$poslab" predict --model "$models/qwen3_moe" --sentence "$sentence" 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)["experts"][0]))')
  [ "$tokens" -gt 0 ] || gui_fail "predict --json routes no position of layer 0"
  gui_start "$poslab" --size 1440x900 --model "$models/qwen3_moe" --sentence "$sentence" --layer 0 --view model
  gui_wait_value busy no 120
  gui_wait_value "model experts" "$tokens" 120
  echo "the Model tab lists the experts of layer 0 for all $tokens positions"
  gui_stop
  gui_start "$poslab" --size 1440x900 --model "$models/qwen2_5_vl" --view model
  gui_wait_value busy no 120
  gui_scroll_into_view "model: mrope header"
  gui_click "model: mrope header"
  gui_wait_item "model: mrope" 120
  echo "the M-RoPE header of Qwen2.5-VL opens its figure"
}

# 2. Opening "RoPE frequency usage" leaves the heads grid as it was (the two figures used to share
#    one texture cache, and the usage heatmap was painted over head 0 and head 1). The window is
#    saved with Ctrl+Shift+S before and after (scrolled back to the same place), and head 0's and
#    head 1's thumbnails compared.
frequency_usage_leaves_the_heads_alone() {
  gui_start "$poslab" --size 1440x900 --model "$models/qwen2" --layer 0 --view model
  gui_wait_item "head 1" 120
  gui_wait_value busy no 120
  local top
  top=$(gui_item "head 0")
  gui_key ctrl+shift+s
  gui_wait_file poslab-window.png
  mv poslab-window.png before.png
  gui_scroll_into_view "model: frequency usage"
  gui_click "model: frequency usage"
  gui_wait_item "model: frequency usage figure"
  # Back to the top, where the first picture was taken.
  local tries=0
  while [ "$(gui_item "head 0")" != "$top" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 60 ] || gui_fail "head 0 is at $(gui_item "head 0") now, at $top before"
    xdotool mousemove --window "$gui_window" 720 450 click --window "$gui_window" 4
    gui_frames 2
  done
  gui_frames 3
  gui_key ctrl+shift+s
  gui_wait_file poslab-window.png
  local x0 y0 x1 y1 head
  for head in 0 1; do
    read -r x0 y0 x1 y1 <<<"$(gui_item "head $head")"
    "$png_probe" crop-equal before.png poslab-window.png "$x0" "$y0" "$x1" "$y1" ||
      gui_fail "head $head's thumbnail changed when the frequency usage opened"
  done
  echo "the heads grid is the same before and after the frequency usage opens"
}

"$case_name"
