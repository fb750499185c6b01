#!/usr/bin/env bash
# A GPT-OSS-20B-shaped mixture of experts cut to 2 layers at real width (random weights, BF16 but
# the experts, which are MXFP4 as the published files store them; ~3.27 GB, written once by
# make_gpt_oss.py): PosLab's forward pass (bench's model_bench: T fixed ids, (t · 7919) % vocab,
# the logits kept) and the same forward in PyTorch (Debian's python3-torch, float32 weights with
# the experts dequantized once at load, OpenBLAS; bench/gpt_oss_forward_torch.py, HF's
# GptOssExperts CPU loop over the experts hit) on the same ids and thread count, in one run. First
# the check (the logits checksums, the sum of the last position's first 16 logits, to 1e-3
# relative), then both times, PosLab's RssAnon and the ratio.
# Not a test. Usage: bench/gpt_oss_run.sh [MODEL_DIR (default /tmp/poslab-gpt-oss-20b-2l)] [TOKENS (128)]
# Environment: THREADS (2), REPEAT (3 timed forwards of each, alternating; each PosLab one in its
# own process after a warm-up forward there, PyTorch's after one warm-up in all), LAYERS (2) for
# make_gpt_oss.py when MODEL_DIR has no model yet, MODEL_BENCH (a model_bench binary to time as it
# is; unset: build/model_bench, built here first).
# PyTorch holds the weights as float32, the experts dequantized: ~11.3 GB of RSS for this folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dir=${1:-/tmp/poslab-gpt-oss-20b-2l}
tokens=${2:-128}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
source bench/install_missing.sh python3-numpy python3-torch libopenblas0-pthread
[ -f "$dir/model.safetensors" ] || /usr/bin/python3 bench/make_gpt_oss.py "$dir" --layers "${LAYERS:-2}"
if [ -n "${MODEL_BENCH:-}" ]; then
  bench=$MODEL_BENCH
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j "$(nproc)" --target model_bench >/dev/null
  bench=build/model_bench
fi
echo "load before: $(uptime)"
# The check's run (and the page cache's warm-up), then PyTorch's timed forwards, each after one
# timed PosLab forward (--between: a model_bench process, its warm-up forward and one timed): the
# two alternate, so both see the same moments of a shared machine.
first=$(OMP_NUM_THREADS=$threads "$bench" "$dir" --tokens "$tokens" --repeat 1)
between="OMP_NUM_THREADS=$threads$(printf ' %q' "$bench" "$dir" --tokens "$tokens" --repeat 1 --warmup 1)"
torch=$(/usr/bin/python3 bench/gpt_oss_forward_torch.py "$dir" --tokens "$tokens" --threads "$threads" \
  --repeat "$repeat" --between "$between" --bf16-max-s 0)
echo "load after: $(uptime)"
/usr/bin/python3 - "$first" "$torch" "$threads" <<'PY'
import json, statistics, sys
first, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
threads = int(sys.argv[3])
runs = t["between"]
print(f"tokens: {t['tokens']} (ids (t * 7919) % vocab), threads {threads}")
pc, tc = first["logits_checksum"], t["logits_checksum"]
rel = abs(pc - tc) / max(abs(tc), 1.0)
steady = max(abs(r["logits_checksum"] - pc) for r in runs)  # PosLab's own runs alike
ok = rel <= 1e-3 and steady <= 1e-4 * max(abs(pc), 1.0)
print(f"check: logits checksum PosLab {pc:.5f} vs PyTorch {tc:.5f} (relative difference {rel:.2e}; PosLab's runs "
      f"apart by at most {steady:.1e}): {'AGREE' if ok else 'DISAGREE'}")
for l, r in enumerate(t.get("routing", [])):
    print(f"layer {l} routing (PyTorch): {r['experts_hit']} experts hit, {r['distinct_sets']} distinct top-k sets, "
          f"at most {r['max_tokens_on_one_expert']} tokens on one expert, smallest top-k logit gap {r['min_topk_gap'] or 0:.2e}; "
          f"gate above 7: {r['gate_above_limit']}, up beyond ±7: {r['up_beyond_limit']} of {r['of']}")
fwd = [r["forward_s_min"] for r in runs]
tt = t["forward_s_all"]
rss = max([first["rss_anon_peak_mb"]] + [r["rss_anon_peak_mb"] for r in runs])
print("rounds (PosLab forward / PyTorch forward, s): " + "; ".join(f"{f:.3f} / {x:.3f}" for f, x in zip(fwd, tt)))
print(f"PosLab: forward {min(fwd):.3f} s (median {statistics.median(fwd):.3f}), open {first['open_s']:.3f} s; "
      f"RssAnon peak {rss:.0f} MB")
print(f"PyTorch: forward {min(tt):.3f} s (median {statistics.median(tt):.3f}); load {t['load_s']:.1f} s, of which "
      f"the MXFP4 experts' dequantization {t['dequant_s']:.1f} s (not timed with the forward); RSS peak {t['rss_peak_mb']:.0f} MB")
print(f"PosLab speed / PyTorch speed (PyTorch time / PosLab time), best of {len(tt)} each: {min(tt) / min(fwd):.2f}x; "
      f"medians: {statistics.median(tt) / statistics.median(fwd):.2f}x; per round: "
      + ", ".join(f"{x / f:.2f}x" for f, x in zip(fwd, tt)))
print("json:", json.dumps({"poslab_first": first,
                           "torch": {k: v for k, v in t.items() if k != "layer0_experts"},
                           "checksum_rel_diff": rel, "agree": ok}))
PY
