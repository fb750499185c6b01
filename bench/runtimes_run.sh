#!/usr/bin/env bash
# PosLab's forward pass against the CPU runtimes people use, in one interleaved run, on a
# Llama-3.2-1B-shaped folder of random BF16 weights: PyTorch (float32 and bfloat16), ONNX Runtime
# (float32, through onnxruntime-node) and llama.cpp (F32, BF16 and Q8_0 GGUF files, through
# node-llama-cpp's prebuilt CPU binary), all on the same token ids and thread count. Not a test.
#
# Usage: bench/runtimes_run.sh [MODEL_DIR]
#   MODEL_DIR  default /tmp/poslab-llama1b (16 layers), or /tmp/poslab-llama1b-<N>l with LAYERS=N;
#              written once by bench/make_llama1b.py (2.5 GB and a few minutes at 16 layers)
# Environment:
#   LAYERS=N           layers of a folder that has to be made (default 16; 2 for a quick run)
#   TOKENS="64 256 1024"  sequence lengths T        ROUNDS=3   rounds per T       THREADS=2
#   ART=DIR            where the ONNX and GGUF files go (default MODEL_DIR-runtimes; ~15 GB at 16 layers)
#   OUT=/tmp/runtimes_result   writes OUT.md and OUT.json
#   BF16_MAX_S=60      PyTorch's bfloat16 forward is skipped when projected above this many seconds
#
# Steps, each skipped when its output is newer than its inputs:
#   1. the model folder (make_llama1b.py);
#   2. ART/onnx/model.onnx + model.onnx.data: model_forward_torch's forward exported by
#      runtimes_onnx.py with Debian's PyTorch 1.13 (float32, all positions' logits, dynamic T);
#   3. ART/gguf/model-{F32,BF16,Q8_0}.gguf, written by runtimes_gguf.py (NumPy only);
#   4. bench/node/node_modules: npm ci of bench/node's lock (onnxruntime-node, node-llama-cpp);
#   5. build/model_bench (cmake, as model_run.sh builds it);
#   6. ART/reference-<T...>.json: PyTorch's float32 logits summarized for the checks;
#   7. bench/runtimes_bench.py: the interleaved rounds, the tables and the checks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

layers=${LAYERS:-16}
if [ -n "${LAYERS:-}" ] && [ "$layers" != 16 ]; then default_dir=/tmp/poslab-llama1b-${layers}l; else default_dir=/tmp/poslab-llama1b; fi
dir=${1:-$default_dir}
tokens=${TOKENS:-64 256 1024}
rounds=${ROUNDS:-3}
threads=${THREADS:-2}
art=${ART:-$dir-runtimes}
out=${OUT:-/tmp/runtimes_result}
py=/usr/bin/python3

# A target is stale when it is missing or older than any of the files it is made from.
stale() {
  local target=$1; shift
  [ -e "$target" ] || return 0
  local dep
  for dep in "$@"; do [ "$dep" -nt "$target" ] && return 0; done
  return 1
}

source bench/install_missing.sh python3-numpy python3-torch python3-onnx libopenblas0-pthread
# node-llama-cpp 3 needs Node.js 20 or later; Debian 12's own nodejs is 18, so a machine without a
# newer one gets Debian's packages and then stops here with the reason.
command -v node >/dev/null && command -v npm >/dev/null || source bench/install_missing.sh nodejs npm
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "runtimes_run.sh: node-llama-cpp needs Node.js >= 20, this machine has $(node --version)" >&2
  exit 1
fi

# 1. The model folder. An existing folder is used as it is, but not one of another depth than asked.
if [ ! -f "$dir/model.safetensors" ]; then
  echo "== writing $dir ($layers layers) with make_llama1b.py" >&2
  $py bench/make_llama1b.py "$dir" --layers "$layers" >&2
elif [ -n "${LAYERS:-}" ]; then
  have=$($py -c 'import json, sys; print(json.load(open(sys.argv[1]))["num_hidden_layers"])' "$dir/config.json")
  [ "$have" = "$layers" ] || { echo "runtimes_run.sh: $dir has $have layers, LAYERS=$layers" >&2; exit 1; }
fi
model=$dir/model.safetensors
mkdir -p "$art"

# The artifacts take ~6 GB (ONNX), 5 + 2.5 + 1.3 GB (GGUF) at 16 layers: say so before filling the disk.
avail_gb=$(df -BG --output=avail "$art" | tail -1 | tr -dc 0-9)
if [ "$avail_gb" -lt 20 ]; then echo "runtimes_run.sh: warning: only ${avail_gb} GB free where $art is" >&2; fi

# 2. ONNX (the export needs the float32 model in memory twice over at times: ~10 GB at 16 layers).
if stale "$art/onnx/model.onnx.data" "$model" bench/runtimes_onnx.py bench/model_forward_torch.py; then
  echo "== exporting ONNX to $art/onnx" >&2
  rm -rf "$art/onnx"
  $py bench/runtimes_onnx.py "$dir" "$art/onnx" --threads "$threads" 2> >(grep -v -e TracerWarning -e '^  ' >&2)
fi

# 3. GGUF.
if stale "$art/gguf/model-Q8_0.gguf" "$model" bench/runtimes_gguf.py; then
  echo "== writing GGUF files to $art/gguf" >&2
  rm -rf "$art/gguf"
  $py bench/runtimes_gguf.py "$dir" "$art/gguf"
fi

# 4. npm packages. Their prebuilt CPU binaries ship inside the npm packages; both postinstall
# scripts would only fetch more (onnxruntime-node: CUDA libraries; node-llama-cpp: a source build
# when no prebuilt binary fits), so they are not run, and the two packages' own switches say the
# same should a newer npm run them anyway. --omit=optional leaves out node-llama-cpp's CUDA and
# Vulkan builds (its linux-x64 CPU build is a direct dependency in bench/node/package.json).
export NODE_LLAMA_CPP_SKIP_DOWNLOAD=true ONNXRUNTIME_NODE_INSTALL=skip
if stale bench/node/node_modules/.package-lock.json bench/node/package-lock.json; then
  echo "== npm ci in bench/node" >&2
  (cd bench/node && npm ci --omit=optional --ignore-scripts --no-audit --no-fund >&2)
fi

# 5. PosLab. Its compiler and libraries are setup.sh's to install: on a machine where the
# configure step fails for want of them, setup.sh installs them (and builds everything once).
if ! cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null 2>&1; then
  ./setup.sh build >&2
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j "$(nproc)" --target model_bench >/dev/null

# 6. The reference for the checks (untimed), per set of T.
ref=$art/reference-${tokens// /-}.json
if stale "$ref" "$model" bench/runtimes_reference.py bench/model_forward_torch.py; then
  echo "== PyTorch reference logits for T = $tokens" >&2
  $py bench/runtimes_reference.py "$dir" --tokens "$tokens" --threads "$threads" > "$ref.tmp"
  mv "$ref.tmp" "$ref"
fi

# 7. The interleaved rounds.
$py bench/runtimes_bench.py --dir "$dir" --art "$art" --reference "$ref" --tokens "$tokens" --rounds "$rounds" \
  --threads "$threads" --out "$out" --bf16-max-s "${BF16_MAX_S:-60}"
