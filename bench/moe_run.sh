#!/usr/bin/env bash
# A Qwen3-30B-A3B-shaped mixture of experts cut to 4 layers at real width (random BF16 weights,
# ~6.2 GB, written once by make_qwen3_moe.py): `poslab predict --top 1` on a fixed sentence of
# TOKENS tokens (one token per byte, no BOS) and the same forward in PyTorch (Debian's
# python3-torch, float32 weights, OpenBLAS; bench/moe_forward_torch.py, HF's
# Qwen3MoeSparseMoeBlock loop) on the ids that predict printed, the same thread count, in one run.
# First the check (the loss to 1e-3 relative, each position's top token, and layer 0's routed
# experts equal at >= 99% of the positions), then both times, PosLab's RssAnon and the ratio.
# Not a test. Usage: bench/moe_run.sh [MODEL_DIR (default /tmp/poslab-qwen3-moe)] [TOKENS (128)]
# Environment: THREADS (2), REPEAT (3 timed runs of each, alternating, after one warm-up each),
# LAYERS (4) and EXPERTS (128) for make_qwen3_moe.py when MODEL_DIR has no model yet, POSLAB (a
# poslab binary to time as it is; unset: build/poslab, built here first).
# PyTorch holds the weights as float32: ~12.4 GB of RSS for the 4-layer folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dir=${1:-/tmp/poslab-qwen3-moe}
tokens=${2:-128}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
source bench/install_missing.sh python3-numpy python3-torch libopenblas0-pthread
[ -f "$dir/model.safetensors" ] ||
  /usr/bin/python3 bench/make_qwen3_moe.py "$dir" --layers "${LAYERS:-4}" --experts "${EXPERTS:-128}"
if [ -n "${POSLAB:-}" ]; then
  poslab=$POSLAB
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j "$(nproc)" --target poslab >/dev/null
  poslab=build/poslab
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# TOKENS ASCII characters: exactly TOKENS tokens (Qwen adds no BOS).
sentence=$(/usr/bin/python3 -c '
import sys
base = "The quick brown fox jumps over the lazy dog, and five boxing wizards jump quickly at dawn. "
n = int(sys.argv[1])
print((base * (n // len(base) + 1))[:n])' "$tokens")
echo "load before: $(uptime)"
# The check's run (and the page cache's warm-up), then PyTorch's timed forwards, each after one
# timed `poslab predict` (--between): the two alternate, so both see the same moments of a shared
# machine.
predict=("$poslab" predict --model "$dir" --sentence "$sentence" --top 1)
first=$(OMP_NUM_THREADS=$threads /usr/bin/python3 bench/predict_timed.py --repeat 1 --out "$work/predict.json" -- "${predict[@]}")
between="OMP_NUM_THREADS=$threads /usr/bin/python3 bench/predict_timed.py --repeat 1 --warmup 0 --$(printf ' %q' "${predict[@]}")"
torch=$(/usr/bin/python3 bench/moe_forward_torch.py "$dir" --ids-file "$work/predict.json" --predict --threads "$threads" \
  --repeat "$repeat" --between "$between" --bf16-max-s 0 2>/dev/null)
echo "load after: $(uptime)"
/usr/bin/python3 - "$first" "$torch" "$work/predict.json" "$sentence" "$threads" <<'PY'
import json, statistics, sys
first, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
with open(sys.argv[3]) as f:
    pred = json.load(f)
sentence, threads = sys.argv[4], int(sys.argv[5])
ids = pred["ids"]
expected = list(sentence.encode())
print(f"tokens: {len(ids)} (tokenizer {'as expected' if ids == expected else 'DIFFERENT from one id per byte'}), threads {threads}")
rel = abs(pred["loss"] - t["loss"]) / abs(t["loss"])
top_p = [row[0]["id"] for row in pred["top"]]
same = sum(a == b for a, b in zip(top_p, t["top1_ids"]))
dp = max(abs(row[0]["p"] - q) for row, q in zip(pred["top"], t["top1_p"]))
# Layer 0's routing: the same set of experts at a position (the order among near-equal weights
# is not compared), and the largest weight difference where the sets agree.
ours, theirs = pred.get("experts", [[]])[0], t["layer0_experts"]
routed = sum(sorted(e for e, _ in a) == sorted(e for e, _ in b) for a, b in zip(ours, theirs))
dw = max((abs(dict(a)[e] - w) for a, b in zip(ours, theirs) if sorted(e for e, _ in a) == sorted(e for e, _ in b)
          for e, w in b), default=float("nan"))
ok = rel <= 1e-3 and same == len(ids) and len(ours) == len(ids) and routed >= 0.99 * len(ids)
print(f"check: loss PosLab {pred['loss']:.6f} vs PyTorch {t['loss']:.6f} (relative difference {rel:.2e}); "
      f"top-1 token equal at {same} of {len(ids)} positions; max |p difference| {dp:.2e}; layer 0's experts equal at "
      f"{routed} of {len(ids)} positions (max |weight difference| {dw:.2e}): {'AGREE' if ok else 'DISAGREE'}")
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
print(f"PyTorch time / PosLab time (PosLab's speed relative to PyTorch's), best of {len(tt)} each: "
      f"{min(tt) / min(wall):.2f}x for the whole PosLab process, {min(tt) / min(fwd):.2f}x forward against forward; "
      f"medians: {statistics.median(tt) / statistics.median(wall):.2f}x, {statistics.median(tt) / statistics.median(fwd):.2f}x; "
      f"per round (process): " + ", ".join(f"{x / w:.2f}x" for w, x in zip(wall, tt)))
print("json:", json.dumps({"poslab_first": first,
                           "torch": {k: v for k, v in t.items() if k not in ("top1_ids", "top1_p", "layer0_experts")},
                           "loss_rel_diff": rel, "top1_same": same, "max_p_diff": dp, "layer0_routed_same": routed,
                           "layer0_max_weight_diff": dw}))
PY
