#!/usr/bin/env bash
# A Gemma-3-1B-shaped model (random BF16 weights, ~2.0 GB, written once by make_gemma3_1b.py):
# `poslab predict --top 1` on a fixed sentence of TOKENS tokens (<bos> + one token per byte) and
# the same forward in PyTorch (Debian's python3-torch, float32 weights, OpenBLAS) on the ids that
# predict printed, the same thread count, in one run. First the check (the loss to ~1e-3 relative
# and each position's top token), then both times, PosLab's RssAnon and the ratios.
# Not a test. Usage: bench/gemma3_run.sh [MODEL_DIR (default /tmp/poslab-gemma3-1b)] [TOKENS (128)]
# Environment: THREADS (2), REPEAT (5 timed runs of each, alternating, after one warm-up each), BF16_MAX_S (0: no
# PyTorch bfloat16 forward; > 0 runs one when projected under that many seconds).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dir=${1:-/tmp/poslab-gemma3-1b}
tokens=${2:-128}
threads=${THREADS:-2}
repeat=${REPEAT:-5}
source bench/install_missing.sh python3-numpy python3-torch libopenblas0-pthread
[ -f "$dir/model.safetensors" ] || /usr/bin/python3 bench/make_gemma3_1b.py "$dir"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target poslab >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# TOKENS - 1 ASCII characters: with <bos>, exactly TOKENS tokens.
sentence=$(/usr/bin/python3 -c '
import sys
base = "The quick brown fox jumps over the lazy dog, and five boxing wizards jump quickly at dawn. "
n = int(sys.argv[1]) - 1
print((base * (n // len(base) + 1))[:n])' "$tokens")
# The check's run (and the page cache's warm-up), then PyTorch's timed forwards, each after one
# timed `poslab predict` (--between): the two alternate, so both see the same moments of a shared
# machine.
predict=(build/poslab predict --model "$dir" --sentence "$sentence" --top 1)
what="poslab predict"
if ! err=$(OMP_NUM_THREADS=$threads "${predict[@]}" 2>&1 >/dev/null); then
  # Until `--model DIR` accepts heads narrower than the width (Gemma 3 1B: 4 × 256 = 1024 < 1152),
  # the same forward call as predict's (run_model), through bench's model_bench.
  echo "poslab predict cannot run this folder: ${err}" >&2
  echo "measuring predict's own call (run_model on the sentence, top 1) through build/model_bench --sentence instead" >&2
  cmake --build build -j "$(nproc)" --target model_bench >/dev/null
  predict=(build/model_bench "$dir" --sentence "$sentence" --top 1 --repeat 1 --warmup 0)
  what="model_bench --sentence (run_model, predict's forward call)"
fi
first=$(OMP_NUM_THREADS=$threads /usr/bin/python3 bench/predict_timed.py --repeat 1 --out "$work/predict.json" -- "${predict[@]}")
between="OMP_NUM_THREADS=$threads /usr/bin/python3 bench/predict_timed.py --repeat 1 --warmup 0 --$(printf ' %q' "${predict[@]}")"
torch=$(/usr/bin/python3 bench/model_forward_torch.py "$dir" --ids-file "$work/predict.json" --predict --threads "$threads" \
  --repeat "$repeat" --between "$between" --bf16-max-s "${BF16_MAX_S:-0}" 2>/dev/null)
/usr/bin/python3 - "$first" "$torch" "$work/predict.json" "$sentence" "$threads" "$what" <<'PY'
import json, statistics, sys
first, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
with open(sys.argv[3]) as f:
    pred = json.load(f)
sentence, threads, what = sys.argv[4], int(sys.argv[5]), sys.argv[6]
print(f"PosLab side: {what}")
ids = pred["ids"]
expected = [2] + [4 + b for b in sentence.encode()]
print(f"tokens: {len(ids)} (tokenizer {'as expected' if ids == expected else 'DIFFERENT from <bos> + bytes'}), threads {threads}")
rel = abs(pred["loss"] - t["loss"]) / abs(t["loss"])
top_p = [row[0]["id"] for row in pred["top"]]
same = sum(a == b for a, b in zip(top_p, t["top1_ids"]))
dp = max(abs(row[0]["p"] - q) for row, q in zip(pred["top"], t["top1_p"]))
ok = rel <= 1e-3 and same == len(ids)
print(f"check: loss PosLab {pred['loss']:.6f} vs PyTorch {t['loss']:.6f} (relative difference {rel:.2e}); "
      f"top-1 token equal at {same} of {len(ids)} positions; max |p difference| {dp:.2e}: {'AGREE' if ok else 'DISAGREE'}")
runs = t["between"]
wall = [r["wall_s_min"] for r in runs]
fwd = [r["forward_s_min"] for r in runs]
rss = max([first["rss_anon_peak_mb"]] + [r["rss_anon_peak_mb"] for r in runs])
tt = t["forward_s_all"]
print("rounds (PosLab process / its forward / PyTorch forward + loss + top-1, s): " +
      "; ".join(f"{w:.2f} / {f:.2f} / {x:.2f}" for w, f, x in zip(wall, fwd, tt)))
print(f"PosLab: process {min(wall):.3f} s (median {statistics.median(wall):.3f}), its forward "
      f"{min(fwd):.3f} s (median {statistics.median(fwd):.3f}); RssAnon peak {rss:.0f} MB")
print(f"PyTorch forward + loss + top-1: {min(tt):.3f} s (median {statistics.median(tt):.3f}); RSS peak {t['rss_peak_mb']:.0f} MB")
print(f"PosLab speed / PyTorch speed, best of {len(tt)} each: {min(tt) / min(wall):.2f}x for the whole PosLab process, "
      f"{min(tt) / min(fwd):.2f}x forward against forward; medians: {statistics.median(tt) / statistics.median(wall):.2f}x, "
      f"{statistics.median(tt) / statistics.median(fwd):.2f}x")
if t.get("forward_bf16_s"):
    print(f"PyTorch bfloat16 forward (one run): {t['forward_bf16_s']:.3f} s")
print("json:", json.dumps({"poslab_first": first, "torch": {k: v for k, v in t.items() if k not in ("top1_ids", "top1_p")},
                           "loss_rel_diff": rel, "top1_same": same, "max_p_diff": dp}))
PY
