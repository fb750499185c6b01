#!/usr/bin/env bash
# Runs the attention benchmark and the NumPy script side by side, then prints the ratios.
# Not a test. Usage: bench/run.sh [extra Google Benchmark flags]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source bench/install_missing.sh libbenchmark-dev python3-numpy libopenblas0-pthread
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target attention_bench >/dev/null
out=$(mktemp -d)
build/attention_bench --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@"
/usr/bin/python3 bench/attention_numpy.py | tee "$out/numpy.jsonl"
/usr/bin/python3 bench/summarize.py "$out/bench.json" "$out/numpy.jsonl"
rm -rf "$out"
