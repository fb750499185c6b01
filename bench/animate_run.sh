#!/usr/bin/env bash
# Animation export benchmark (not a test): a 120-frame 1280×720 MP4 of the patterns view, the
# base swept from 100 to 10000 (`poslab export patterns --animate base … --size 1280x720 --mp4`),
# timed end to end: loading the embeddings, 120 figures drawn offscreen and read back, H.264
# encoding through libavcodec (libx264). Issue 14's target: ≤ 20 s on 2 cores.
# Usage: bench/animate_run.sh [poslab binary, default build/poslab] [runs, default 3]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
poslab=$(realpath "${1:-$root/build/poslab}")
runs=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for format in mp4 gif; do
  for run in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$poslab" export patterns --encoding sinusoidal --animate base --from 100 --to 10000 --frames 120 --fps 24 \
      --size 1280x720 "--$format" "$out/patterns.$format" >/dev/null 2>"$out/log"
    end=$(date +%s.%N)
    bytes=$(stat -c %s "$out/patterns.$format")
    awk -v f="$format" -v r="$run" -v s="$start" -v e="$end" -v b="$bytes" \
      'BEGIN { t = e - s; printf "%s run %d: %.2f s, %.1f frames/s, %.2f MB\n", f, r, t, 120 / t, b / 1e6 }'
  done
done
