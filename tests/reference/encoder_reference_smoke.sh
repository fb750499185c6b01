#!/usr/bin/env bash
# make_encoder_reference.py is deterministic: two runs into fresh folders write the same bytes
# (folders, safetensors, tokenizer.json, reference JSON), so a C++ test's expectations never
# move under it. Also checks every reference JSON parses and stays under 1 MB. Not a ctest test;
# run it by hand after changing the script:  bash tests/reference/encoder_reference_smoke.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/make_encoder_reference.py" "$tmp/a" >/dev/null
/usr/bin/python3 "$here/make_encoder_reference.py" "$tmp/b" >/dev/null
diff -r "$tmp/a" "$tmp/b"
for f in "$tmp"/a/*.reference.json; do
  /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"
  size=$(stat -c %s "$f")
  if [ "$size" -ge 1000000 ]; then echo "$f: $size bytes, over 1 MB" >&2; exit 1; fi
done
echo "encoder reference: two runs byte-identical ($(find "$tmp/a" -type f | wc -l) files)"
