#!/usr/bin/env bash
# The build (and so the Debian package made from it) runs on any x86-64: poslab under QEMU's user
# mode as a plain x86-64 processor (-cpu qemu64: SSE2, no AVX), where one AVX instruction outside
# the kernels chosen at start-up ends it with SIGILL (a build for AVX2 does so at once). There its
# products run on the baseline kernels, and its answers equal this CPU's to rounding:
#   1. `poslab info` says the products run on x86-64 (SSE2);
#   2. the default attention (CPU, Eigen) as CSV: every value within 1e-5 of the native run's;
#   3. a shipped trained model's predictions (`predict`, its linear layers, norms and softmax): the
#      same top tokens, probabilities within 1e-4, the loss and perplexity within 1e-4 relative.
#   tests/portable_test.sh POSLAB SOURCE_DIR       exit 77: no qemu-x86_64 here (skipped)
set -euo pipefail
poslab=$(realpath "$1")
source_dir=$(realpath "$2")
command -v qemu-x86_64 >/dev/null || { echo "skipped: qemu-x86_64 is not installed (Debian's qemu-user)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
any_x86() { qemu-x86_64 -cpu qemu64 "$poslab" "$@"; }

info=$(any_x86 info 2>&1) || { echo "FAIL: poslab info does not run on a plain x86-64: $info"; exit 1; }
grep -q '^cpu .*products on x86-64 (SSE2)' <<<"$info" || { echo "FAIL: info does not say SSE2: $(grep '^cpu' <<<"$info")"; exit 1; }
echo "info on a plain x86-64: $(grep '^cpu' <<<"$info" | sed 's/  */ /g')"

any_x86 export attention --backend cpu --csv any.csv >/dev/null 2>&1 || { echo "FAIL: export attention does not run on a plain x86-64"; exit 1; }
"$poslab" export attention --backend cpu --csv native.csv >/dev/null 2>&1
# Two CSVs of the same shape, numbers within `tolerance` of each other, text cells equal.
compare_csv() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
a, b, tol = list(csv.reader(open(sys.argv[1]))), list(csv.reader(open(sys.argv[2]))), float(sys.argv[3])
assert len(a) == len(b) and len(a) > 1, f"rows: {len(a)} and {len(b)}"
worst = 0.0
for ra, rb in zip(a, b):
    assert len(ra) == len(rb), f"a row of {len(ra)} and one of {len(rb)} cells"
    for x, y in zip(ra, rb):
        try:
            worst = max(worst, abs(float(x) - float(y)))
        except ValueError:
            assert x == y, f"{x!r} and {y!r}"
assert worst <= tol, f"values differ by {worst:g} (at most {tol:g})"
print(f"{len(a) - 1} rows, values within {worst:.2g}")
PY
}
echo "attention CSV: $(compare_csv any.csv native.csv 1e-5)"

model="$source_dir/assets/trained/copy-rope"
sentence="dcbapomn|dcbapom"  # the copy task: the half after | repeats the first
any_x86 predict --model "$model" --sentence "$sentence" --top 3 >any.json 2>/dev/null || { echo "FAIL: predict does not run on a plain x86-64"; exit 1; }
"$poslab" predict --model "$model" --sentence "$sentence" --top 3 >native.json 2>/dev/null
/usr/bin/python3 - any.json native.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def numbers(x, path=""):
    if isinstance(x, dict):
        for k in sorted(x): yield from numbers(x[k], f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x): yield from numbers(v, f"{path}[{i}]")
    else:
        yield path, x
na, nb = list(numbers(a)), list(numbers(b))
assert [p for p, _ in na] == [p for p, _ in nb], "the two predictions differ in shape"
worst = 0.0
for (p, x), (_, y) in zip(na, nb):
    if isinstance(x, float) or isinstance(y, float):  # relative past 1: the perplexity is e^loss
        worst = max(worst, abs(x - y) / max(1.0, abs(x), abs(y)))
    else:
        assert x == y, f"{p}: {x!r} and {y!r}"
assert worst <= 1e-4, f"probabilities or loss differ by {worst:g}"
print(f"predict: the same tokens, numbers within {worst:.2g}")
PY
echo "portable OK"
