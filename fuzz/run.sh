#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, in the sanitized build folder build-san:
# tests/sanitized_build.sh) and runs each on its seed corpus (the committed test files of its
# format plus fuzz/seeds): a fixed seed, a fixed number of inputs and one thread (OpenMP's parallel
# parsing off), so that the same source gives the same run on every machine (a crash is never a
# coin toss in CI), with a time limit as a backstop. A crash, a sanitizer report or a leak fails
# the run and leaves the input in build-san/fuzz/crashes/. For a longer, random search:
#   OMP_NUM_THREADS=1 build-san/fuzz/fuzz_NAME build-san/fuzz/corpus/NAME -max_total_time=600
# Usage: fuzz/run.sh [seconds per target at most, default $POSLAB_FUZZ_SECONDS or 10] [inputs, default 100000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-${POSLAB_FUZZ_SECONDS:-10}}
runs=${2:-100000}
tests/sanitized_build.sh fuzzers
export OMP_NUM_THREADS=1
mkdir -p build-san/fuzz/crashes
# The whole-folder target's seeds: small trained folders (one per kind of positions), each packed
# as config.json, a zero byte, model.safetensors. Made by the main build's poslab, seeded, so every
# run starts from the same bytes.
mkdir -p build-san/fuzz/seeds/model_folder
for encoding in rope alibi t5 learned; do
  seed_dir=build-san/fuzz/seeds/model-$encoding
  if [ ! -f "$seed_dir/model.safetensors" ]; then
    rm -rf "$seed_dir"
    build/poslab train --encoding "$encoding" --steps 1 --width 32 --heads 2 --layers 1 --mlp 32 --vocab 4 \
      --train-length 4 --seed 1 --out "$seed_dir" >"build-san/fuzz/seed-$encoding.log" 2>&1 ||
      { echo "FAIL: could not make the $encoding seed model:"; cat "build-san/fuzz/seed-$encoding.log"; exit 1; }
  fi
  { cat "$seed_dir/config.json"; printf '\0'; cat "$seed_dir/model.safetensors"; } > "build-san/fuzz/seeds/model_folder/$encoding"
done
declare -A seeds=(
  [text_embeddings]="tests/data/*.txt tests/data/formats/*.txt"
  [word2vec_binary]="tests/data/formats/*.bin"
  [npy]="tests/data/*.npy tests/data/formats/*.npy"
  [safetensors]="tests/data/formats/*.safetensors"
  [tokenizer]="fuzz/seeds/tokenizer/*.json"
  [session]="fuzz/seeds/session/*.json"
  [model_folder]="build-san/fuzz/seeds/model_folder/*"
)
failed=0
for name in text_embeddings word2vec_binary npy safetensors tokenizer session model_folder; do
  corpus=build-san/fuzz/corpus/$name
  rm -rf "$corpus"  # the committed seeds only, so every run starts from the same place
  mkdir -p "$corpus"
  # shellcheck disable=SC2086  # the globs are meant to expand
  cp ${seeds[$name]} "$corpus/" 2>/dev/null || true
  if build-san/fuzz/fuzz_$name "$corpus" -seed=1 -runs="$runs" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="build-san/fuzz/crashes/$name-" -print_final_stats=1 > "build-san/fuzz/$name.log" 2>&1; then
    echo "fuzz_$name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "build-san/fuzz/$name.log" | grep -o '[0-9]*$') inputs (at most $runs in ${seconds}s), no crash"
  else
    echo "FAIL: fuzz_$name found a crash (input in build-san/fuzz/crashes/, log build-san/fuzz/$name.log):"
    tail -n 30 "build-san/fuzz/$name.log"
    failed=1
  fi
done
exit $failed
