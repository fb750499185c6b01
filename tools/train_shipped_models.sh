#!/usr/bin/env bash
# Rebuilds the pre-trained models PosLab ships in assets/trained: one per positional encoding on
# the copy task, each with `poslab train`'s defaults (2 layers, width 64, 4 heads, 16 symbols,
# training length 32, 1,500 steps of 32 sequences, seed 1), then their length-extrapolation table
# (1x to 16x the training length, RoPE also with each scaling at inference) and its figure.
# A seed gives the same weights on one core or two, so the folders are rebuilt bit for bit by the
# same build. Then the length-generalization models of `poslab papers check nope-length`
# (Kazemnejad et al. 2023's setting, scaled down): NoPE, T5, ALiBi, RoPE and learned on copy and
# reverse, every length from 1 to 8 trained at once (--min-length 1), 4,000 steps, in
# assets/trained/length/TASK-ENCODING.
# Usage: tools/train_shipped_models.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
poslab=$build/poslab
[ -x "$poslab" ] || { echo "no $poslab: build first (./setup.sh build)" >&2; exit 1; }
out=$root/assets/trained
mkdir -p "$out"
encodings=(none sinusoidal learned rope alibi t5)
folders=()
for e in "${encodings[@]}"; do
  /usr/bin/time -f "$e: %e s" "$poslab" train --task copy --encoding "$e" --seed 1 --out "$out/copy-$e" --log "$out/copy-$e.log.csv"
  folders+=("$out/copy-$e")
done
models=$(IFS=,; echo "${folders[*]}")
"$poslab" export extrapolation --models "$models" --task copy --lengths 32,64,128,256,512 \
  --csv "$out/extrapolation.csv" --png "$root/docs/extrapolation-copy.png"
mkdir -p "$out/length"
for task in copy reverse; do
  for e in none t5 alibi rope learned; do
    /usr/bin/time -f "$task-$e: %e s" "$poslab" train --task "$task" --encoding "$e" --train-length 8 --min-length 1 \
      --steps 4000 --seed 1 --out "$out/length/$task-$e"
  done
done
du -sh "$out"
