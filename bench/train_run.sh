#!/usr/bin/env bash
# Training throughput, PosLab's engine beside PyTorch (Debian's python3-torch) on the same model,
# batch shape and thread count, in one run; prints both and the ratio per encoding. Not a test.
# Builds the train_bench target in $BUILD (default build).
# Usage: bench/train_run.sh [ENCODING …] (default: rope alibi t5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD:-build}
threads=${THREADS:-2}
source bench/install_missing.sh python3-torch
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target train_bench >/dev/null
encodings=("$@")
[ ${#encodings[@]} -gt 0 ] || encodings=(rope alibi t5)
# PyTorch twice: as shipped (OpenBLAS's own threads inside PyTorch's), and with OpenBLAS on one
# thread under PyTorch's N (on a busy machine the first oversubscribes badly). The ratio is taken
# against the faster of the two.
for e in "${encodings[@]}"; do
  poslab=$(OMP_NUM_THREADS=$threads "$build/train_bench" --encoding "$e")
  torch=$(/usr/bin/python3 bench/train_torch.py --encoding "$e" --threads "$threads" --steps 30)
  torch_one=$(OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/train_torch.py --encoding "$e" --threads "$threads" --steps 30)
  /usr/bin/python3 - "$e" "$poslab" "$torch" "$torch_one" <<'PY'
import json, sys
e, p, t, t1 = sys.argv[1], *(json.loads(a) for a in sys.argv[2:5])
best = max(t["tokens_per_s"], t1["tokens_per_s"])
print(f"{e:10s} PosLab {p['tokens_per_s']:7.0f} tokens/s ({p['step_ms_median']:.1f} ms/step) | {t['engine']} "
      f"{t['tokens_per_s']:7.0f} tokens/s ({t['step_ms_median']:.1f} ms), with OpenBLAS on 1 thread "
      f"{t1['tokens_per_s']:7.0f} ({t1['step_ms_median']:.1f} ms) | PosLab / best PyTorch {p['tokens_per_s'] / best:.2f}x"
      f" ({p['threads']} threads, {p['tokens_per_step']} tokens/step)")
PY
done
