#!/usr/bin/env bash
# A Llama-3.2-1B-shaped model (random BF16 weights, ~2.5 GB, written once by make_llama1b.py):
# PosLab's forward pass and the same forward in PyTorch (Debian's python3-torch, float32 weights,
# OpenBLAS), both on the same token ids and thread count, in one run; prints both and the ratio.
# Not a test. Usage: bench/model_run.sh [MODEL_DIR (default /tmp/poslab-llama1b)] [TOKENS (64)]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dir=${1:-/tmp/poslab-llama1b}
tokens=${2:-64}
threads=${THREADS:-2}
source bench/install_missing.sh python3-numpy python3-torch libopenblas0-pthread
[ -f "$dir/model.safetensors" ] || /usr/bin/python3 bench/make_llama1b.py "$dir"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target model_bench >/dev/null
poslab=$(OMP_NUM_THREADS=$threads build/model_bench "$dir" --tokens "$tokens" --repeat 3)
echo "poslab:  $poslab"
# PyTorch as shipped (the environment's OpenBLAS settings), then with OpenBLAS free to pick its
# own kernels (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for that command alone).
torch=$(/usr/bin/python3 bench/model_forward_torch.py "$dir" --tokens "$tokens" --threads "$threads" --repeat 3 2>/dev/null)
echo "pytorch: $torch"
torch_free=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/model_forward_torch.py "$dir" --tokens "$tokens" --threads "$threads" --repeat 3 --bf16-max-s 0 2>/dev/null)
echo "pytorch (OpenBLAS's own kernels): $torch_free"
/usr/bin/python3 - "$poslab" "$torch" "$torch_free" <<'PY'
import json, sys
p, t, tf = (json.loads(a) for a in sys.argv[1:4])
print(f"PosLab forward {p['forward_s_min']:.3f} s (median {p['forward_s_median']:.3f}), RssAnon peak {p['rss_anon_peak_mb']:.0f} MB")
for name, r in (("PyTorch", t), ("PyTorch, OpenBLAS's own kernels", tf)):
    print(f"{name}: {r['forward_s_min']:.3f} s (median {r['forward_s_median']:.3f}), RSS peak {r['rss_peak_mb']:.0f} MB;"
          f" PosLab speed / PyTorch speed = {r['forward_s_min'] / p['forward_s_min']:.2f}x;"
          f" logits checksum {p['logits_checksum']:.4f} vs {r['logits_checksum']:.4f}")
PY
