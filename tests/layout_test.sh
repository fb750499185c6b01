#!/usr/bin/env bash
# The walls between PosLab's libraries, checked on the includes themselves (docs/ARCHITECTURE.md):
#   base ← tokenizer, core ← hub, gpu ← plot ← figures ← cli, gui ← app; figures ← python (the module)
# A file of a library includes only its own headers and those of the libraries below it; outside
# src/tokenizer only the tokenizer's public header (tokenizer/tokenizer.hpp) is included (its
# tests excepted); inside core, encodings, attention, formats and model include nothing above
# them. A link error catches most wrong includes (each library links only what it needs), but
# not one of a header-only piece: this does.
#   tests/layout_test.sh SOURCE_DIR
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The libraries each library may include (its own first).
declare -A allowed=(
  [base]="base"
  [tokenizer]="tokenizer base"
  [core]="core tokenizer base"
  [hub]="hub core tokenizer base"
  [gpu]="gpu core tokenizer base"
  [plot]="plot gpu core tokenizer base"
  [figures]="figures plot gpu hub core tokenizer base"
  [cli]="cli figures plot gpu hub core tokenizer base"
  [gui]="gui figures plot gpu hub core tokenizer base"
  [python]="python figures plot gpu hub core tokenizer base"
)
libraries=" ${!allowed[*]} "

# Every quoted include of ours: FILE:LINE:PATH.
includes() { grep -rnoE '^#include "[a-z_]+/[^"]+"' "$@" | sed -E 's/#include "([^"]+)"/\1/'; }

for lib in "${!allowed[@]}"; do
  [ -d "src/$lib" ] || { fail "src/$lib is missing"; continue; }
  while IFS=: read -r file line path; do
    top=${path%%/*}
    [[ $libraries == *" $top "* ]] || continue  # glad/, imgui's backends, …
    [[ " ${allowed[$lib]} " == *" $top "* ]] || fail "$file:$line: $lib includes $path ($top is not below $lib)"
  done < <(includes "src/$lib")
done

# The tokenizer's steps are its own: elsewhere only tokenizer/tokenizer.hpp.
while IFS=: read -r file line path; do
  case $file in src/tokenizer/* | tests/tokenizer_*_test.cpp) continue ;; esac
  [ "$path" = tokenizer/tokenizer.hpp ] || fail "$file:$line: includes $path, a step private to src/tokenizer"
done < <(includes src tests fuzz bench app | grep -E ':tokenizer/')

# Inside core, the lower rooms include nothing above them.
check_room() {  # ROOM FORBIDDEN-PREFIX...
  local room=$1
  shift
  while IFS=: read -r file line path; do
    for bad in "$@"; do
      if [[ $path == "$bad"* ]]; then fail "$file:$line: core/$room includes $path"; fi
    done
  done < <(includes "src/core/$room")
}
above_encodings=(core/state.hpp core/options core/session core/workspace core/export_data core/attention/ core/formats/ core/model/ core/train/ core/tour/ core/animate/ core/papers/)
check_room encodings "${above_encodings[@]}"
check_room attention core/export_data core/options core/session core/workspace core/model/ core/train/ core/tour/ core/animate/ core/papers/
# Left (issue 30): formats.cpp reads the families' embedding tensor names from model/architecture.hpp.
check_room formats core/export_data core/options core/session core/workspace core/model/transformer core/model/checkpoint \
  core/model/forward core/model/model_ core/train/ core/tour/ core/animate/ core/attention/ core/papers/
check_room model core/export_data core/options core/session core/workspace core/train/ core/tour/ core/animate/ core/papers/
while IFS=: read -r file line path; do
  fail "$file:$line: state includes $path, a room above it"
done < <(includes src/core/state.hpp | sed 's|^|src/core/state.hpp:|' | grep -E ':core/(model|train|attention|formats)/' || true)

# The Hub's code knows no front end: it names no tab or window.
while read -r hit; do
  fail "the Hub names a front end: $hit"
done < <(grep -rnE '"[^"]*\b(tab|window|box)\b[^"]*"' src/hub || true)

if [ "$failures" -ne 0 ]; then exit 1; fi
echo "layout: every include points down"
