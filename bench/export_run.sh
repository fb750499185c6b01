#!/usr/bin/env bash
# Time and peak resident memory of long-context exports (issue 15's targets), measured with
# /usr/bin/time -v, for one binary or a "before" and an "after" binary side by side in one run:
#   - `export attention --csv` at 2048 tokens, 4 heads (target ≤ 3 s, ≤ 500 MB);
#   - `export attention --png` at 5000 tokens (target ≤ 400 MB).
# Each binary runs with its default --backend, then with --backend cpu. Not a test.
# Usage: bench/export_run.sh AFTER_BINARY [BEFORE_BINARY]
set -euo pipefail
after=${1:?usage: bench/export_run.sh AFTER_BINARY [BEFORE_BINARY]}
before=${2:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sentence() { /usr/bin/python3 -c "
w = 'the dog chased another cat across a green field'.split()
print(' '.join(w[k % 9] for k in range($1)))"; }
s2048=$(sentence 2048)
s5000=$(sentence 5000)

# One measurement: label, binary, then the export's arguments. Prints seconds and MB.
measure() {
  local label=$1 binary=$2
  shift 2
  if ! /usr/bin/time -v "$binary" export attention "$@" >"$out/stdout" 2>"$out/time"; then
    echo "FAILED: $label"; tail -5 "$out/time"; return 1
  fi
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$out/time")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/time")
  printf '| %-44s | %8.2f | %7s |\n' "$label" "$wall" "$rss"
}

echo "| run | wall s | peak MB |"
echo "|---|---:|---:|"
for which in before after; do
  binary=$([ "$which" = before ] && echo "$before" || echo "$after")
  [ -n "$binary" ] || continue
  measure "$which: CSV, 2048 tokens, 4 heads" "$binary" --heads 4 --sentence "$s2048" --csv "$out/a.csv"
  measure "$which: CSV, 2048 tokens, 4 heads, --backend cpu" "$binary" --backend cpu --heads 4 --sentence "$s2048" --csv "$out/a.csv"
  measure "$which: PNG, 5000 tokens" "$binary" --sentence "$s5000" --png "$out/a.png"
  measure "$which: PNG, 5000 tokens, --backend cpu" "$binary" --backend cpu --sentence "$s5000" --png "$out/a.png"
done
