#!/usr/bin/env bash
# Runs the attention benchmark and the NumPy script side by side, then prints the ratios.
# Not a test. Usage: bench/run.sh [extra Google Benchmark flags]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
need=()
for p in libbenchmark-dev python3-numpy libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target attention_bench >/dev/null
out=$(mktemp -d)
build/attention_bench --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@"
/usr/bin/python3 bench/attention_numpy.py | tee "$out/numpy.jsonl"
/usr/bin/python3 bench/summarize.py "$out/bench.json" "$out/numpy.jsonl"
rm -rf "$out"
