#!/usr/bin/env bash
# Frame times of the GUI at long sentences (not a test): each view's tab opened on a sentence of
# N tokens under Xvfb, with --frame-log. Reports the longest frame after the first two (the first
# bakes fonts and makes the context), and how many frames were drawn while the attention computed
# (computing column) or the view's figure was built (drawing column), both off the UI thread.
# Give two binaries to compare them side by side in one run (an older build, say).
# Usage: bench/frame_times.sh [tokens, default 4096] [poslab binary …, default build/poslab]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tokens=${1:-4096}
shift || true
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=("$root/build/poslab")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sentence=$(/usr/bin/python3 -c "
w = 'the dog chased a cat across the garden while another dog watched'.split()
print(' '.join(w[k % len(w)] for k in range($tokens)))")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| binary | view | backend | frames | longest (ms) | over 250 ms | drawn while computing | drawn while building the figure |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
run() {  # binary view backend [extra options]
  local bin=$1 view=$2 backend=$3
  shift 3
  xvfb-run -a -s '-screen 0 1400x900x24' "$bin" --size 1280x800 --backend "$backend" --view "$view" \
    --sentence "$sentence" "$@" --frame-log "$out/f.csv" --frames 10 --screenshot "$out/s.png" >/dev/null 2>&1 || true
  awk -F, -v b="$label" -v v="$view" -v k="$backend" '
    NR > 3 { n++; if ($2 > m) m = $2; if ($2 > 250) slow++; if ($5 == 1) c++; if (NF >= 6 && $6 == 1) d++ }
    END { printf "| %s | %s | %s | %d | %.0f | %d | %d | %d |\n", b, v, k, n, m, slow, c, d }' "$out/f.csv"
}
for bin in "${binaries[@]}"; do
  label=$bin  # as given
  bin=$(realpath "$bin")
  run "$bin" attention auto
  run "$bin" attention gpu
  run "$bin" bias auto --bias t5
  for view in patterns trajectory magnitude frequencies distance tour; do run "$bin" "$view" auto; done
done
