#!/usr/bin/env bash
# The two SentencePiece models the Unigram tokenizer tests read (tokenizer_reference_test.sh turns
# them into tokenizer.json files with tests/reference/spm_to_tokenizer_json.py). No T5 or Flan-T5
# spiece.model can be fetched here, so these are trained with Debian's spm_train the way T5's was:
# a unigram model, SentencePiece's default nmt_nfkc normalization (its precompiled_charsmap is the
# one T5's tokenizer.json carries), <pad> 0, </s> 1, <unk> 2, no <s>. The second model has byte
# fallback and no normalization rule. The corpus is the licence texts every Debian system has,
# plus a few lines in other scripts so that accented and non-Latin pieces exist. Kept in git, since
# another SentencePiece version may train other pieces:
#   apt-get install sentencepiece && tests/data/sentencepiece/make_models.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat /usr/share/common-licenses/{Apache-2.0,GPL-3,LGPL-3,MPL-2.0,GFDL-1.3,Artistic,BSD} > "$work/corpus.txt"
for _ in $(seq 40); do
  cat >> "$work/corpus.txt" <<'TEXT'
Le café de la gare est fermé. Das Straßenfest beginnt um acht Uhr. El niño comió piñas.
Ångström, naïve, résumé, façade, coöperate. Ελληνικά και Русский язык.
東京は日本の首都です。位置エンコーディング。自注意力机制。
TEXT
done
spm_train --input="$work/corpus.txt" --model_prefix="$work/t5_like" --model_type=unigram --vocab_size=2000 \
  --pad_id=0 --eos_id=1 --unk_id=2 --bos_id=-1 --num_threads=1 --seed_sentencepiece_size=100000 >/dev/null 2>&1
spm_train --input="$work/corpus.txt" --model_prefix="$work/unigram_bytes" --model_type=unigram --vocab_size=600 \
  --pad_id=0 --eos_id=1 --unk_id=2 --bos_id=-1 --byte_fallback=true --normalization_rule_name=identity \
  --num_threads=1 --seed_sentencepiece_size=100000 >/dev/null 2>&1
cp "$work/t5_like.model" "$work/unigram_bytes.model" "$here/"
