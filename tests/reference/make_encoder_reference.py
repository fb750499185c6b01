#!/usr/bin/python3
"""Independent reference forward passes for Hugging Face encoders and encoder–decoders.

Written from Hugging Face transformers' published model definitions (modeling_bert:
BertForMaskedLM; modeling_modernbert 4.4x: ModernBertForMaskedLM; modeling_t5:
T5ForConditionalGeneration) and the tokenizers library's file format, NOT from PosLab's C++
code. Only NumPy is used; every computation is in float64 from the weights exactly as stored
(all F32 here, as on the Hub). The file formats, norms, RoPE helpers and the JSON writer are
make_model_reference.py's, imported from beside this file.

Usage:  /usr/bin/python3 tests/reference/make_encoder_reference.py OUTDIR

Writes (deterministically; a fixed legacy NumPy RandomState seed per folder) one folder per
model as save_pretrained lays it out (config.json with transformers 4.x keys, tokenizer.json,
model.safetensors) and OUTDIR/<folder>.reference.json.

  folder      class                        tokenizer.json                    cases
  bert        BertForMaskedLM              WordPiece (BertNormalizer,        base, positions_off
              (bert-base-uncased's names:   BertPreTokenizer, "##",
              LayerNorm.gamma/.beta, the    [CLS] $A [SEP])
              pooler and NSP head present,
              no cls.predictions.decoder.*)
  bert_saved  the same weights and reference under the names transformers 4.x save_pretrained
              writes for BertForMaskedLM (.weight/.bias, no pooler, no NSP head)
  modernbert  ModernBertForMaskedLM        byte-level BPE, NFC, [CLS] $A     base, positions_off,
                                           [SEP], [MASK] with lstrip         window_none, window_8,
                                                                             local_base_1000,
                                                                             rope_theta_10000
  t5          T5ForConditionalGeneration   Unigram, Metaspace in the 2020    base, positions_off,
              v1.0: relu, tied lm_head      form (add_prefix_space), $A </s>  target_2
              with the d_model^-0.5 rescale,
              16 buckets / distance 20; the unused
              decoder.block.0.layer.1.EncDecAttention
              .relative_attention_bias.weight that
              t5-small's file carries
  flan_t5     T5ForConditionalGeneration   Unigram, Metaspace in the         base, positions_off,
              gated-gelu (gelu_new), untied  tokenizers >= 0.14 form            target_2
              lm_head, no rescale, 32 / 128  (prepend_scheme "always",
                                             split true)

Sizes (T = 12 encoder tokens in every folder): bert hidden 32, 4 heads × 8, 2 layers, vocab 31;
modernbert hidden 48, 3 heads × 16, 4 layers (0 and 3 global, 1 and 2 local), local_attention 4,
vocab 320 of which the tokenizer uses 301; t5 d_model 32, 4 heads × d_kv 16 (inner width 64, not
d_model), 2 encoder and 3 decoder layers; flan_t5 d_model 32, 4 heads × 8, 3 encoder and 2
decoder layers; both T5 vocabularies 80, of which the tokenizer uses 70. The MLM input is
"The dog sat on the [MASK] in the park." (ModernBERT's [MASK] strips the space on its left, so
the token before it is "Ġthe" and none is " [MASK]"); T5 reads "The dog chased another dog in
the park." with the targets "Der Hund jagte einen anderen Hund im Park." (T_dec 12) and, in
target_2, "Ein Hund im Park." (T_dec 6).

Case meanings: base = the model unchanged; positions_off = its positions removed (BERT: the
position table's contribution zero, the token-type row stays; ModernBERT: no rotation on any
layer; T5: the buckets' bias zero in both stacks — cross-attention has none anyway);
window_none = no sliding window on any layer; window_N = every local layer's window N in
local_attention's units; local_base_1000 = the local layers' RoPE base 1000; rope_theta_10000 =
the global layers' RoPE base 10000; target_2 = the same encoder input with a second target.

ModernBERT's window (modeling_modernbert._update_attention_mask and flash-attn's window_size =
(local_attention // 2, local_attention // 2)): on a local layer query i sees key j iff
|i − j| <= local_attention // 2 — so local_attention = 4 lets a query see 5 keys (2 each side and
itself) and window_N means |i − j| <= N // 2. A layer is global iff layer_id %
global_attn_every_n_layers == 0 (layer 0 always). Global layers rotate with global_rope_theta,
local ones with local_rope_theta. Scores are scaled by head_dim^-0.5.

T5: scores are NOT scaled by 1/sqrt(d_kv). The position bias is computed once per stack by its
first block (the only one with relative_attention_bias) and added in every block of that stack;
bucket(query i, key j) is _relative_position_bucket(j − i), bidirectional in the encoder,
causal in the decoder (docs/FORMULAS.md, "T5 relative buckets"; the logarithm in float32 as HF
computes it — no (query, key) pair here lies within 1e-4 of a bucket edge, so float64 gives the
same buckets, which the script asserts). The decoder reads decoder_start_token_id (= pad = 0)
then the target's tokens; labels = the target's tokens then </s> (id 1), so the decoder input is
labels shifted right and T_dec = len(target tokens) + 1; loss = mean over the T_dec rows of the
cross-entropy of logits[i] against labels[i]. Tied (t5): logits = (x · d_model^-0.5) · shared^T;
untied (flan_t5): logits = x · lm_head^T. T5LayerNorm: x / sqrt(mean(x²) + eps) · w.

Precision: the reference is float64 throughout. HF's code keeps a few steps in float32 even in a
float64 model — T5LayerNorm's variance, T5's and ModernBERT's eager softmax, ModernBERT's cos/sin —
which moves the logits here by up to about 1e-5 (check_encoder_reference_torch.py --hf-casts);
the PyTorch transcription without those casts agrees with this file to about 1e-13.

JSON layout of OUTDIR/<folder>.reference.json (numbers are float64 printed to 9 significant
digits; T = encoder tokens, T_dec = decoder tokens, L / L_dec = encoder / decoder layers, H =
heads, V = config vocab_size, B = relative_attention_num_buckets):
  "family"          "bert" | "modernbert" | "t5"
  "text"            the base case's encoder sentence
  "ids", "tokens"   its ids (the tokenizer's full output, specials included) and token strings
  "tokenizer_size"  the number of ids the tokenizer can produce (V may be larger, padded)
  "texts"           {sentence: ids} for more sentences, each as tokenizer.json encodes it
                    (post-processor included) — for the C++ tokenizer test
  "layers"          per encoder layer: {"positions": "learned" | "rope" | "relative",
                    "attention": "global" | "local", "window": local_attention or null,
                    "window_radius": max |i − j| seen or null, "rope_base", "rotary_dim"};
                    T5 adds "bias_from_layer": 0 (the block whose table every block uses) and
                    "bidirectional"
  MLM folders:      "mask_token_id"
  T5 folders:       "decoder_layers" (as "layers"), "relative_attention_num_buckets",
                    "relative_attention_max_distance", "relative_attention_bias":
                    {"encoder": [B][H], "decoder": [B][H]} (the learned tables as stored, row =
                    bucket, column = head)
  "cases": {case: {
      "text", "ids", "tokens"     the encoder input of this case
      "attention"       [L][H][T][T]  encoder self-attention weights after softmax (row = query)
      "logits"          MLM: [T][V] at every encoder position; T5: [T_dec][V] decoder logits
      "top5"            [T or T_dec][5] ids of the 5 largest logits, largest first (MLM: the
                        prediction for position i itself; T5: the token after decoder position i);
                        over all V ids as HF's logits are, yet always ids below tokenizer_size
                        (the padded ids' logits are kept low, as training leaves them: their output
                        rows × 0.05, and ModernBERT's decoder.bias − 8 there); consecutive logits of
                        the top 6 differ by more than 1e-4
      "loss"            MLM: null; T5: the mean cross-entropy above
    MLM folders:
      "mask_positions"  [positions of [MASK] in ids]
    ModernBERT:
      "window_radius"   [L] per layer max |i − j| (null: unwindowed)
      "inv_freq_global", "inv_freq_local"   [head_dim/2] (absent in positions_off)
    T5:
      "target", "target_ids"     the target sentence and its tokens without </s>
      "labels"          target_ids + [1]
      "decoder_ids", "decoder_tokens"   [0] + target_ids
      "decoder_attention" [L_dec][H][T_dec][T_dec]  causal self-attention weights
      "cross_attention"   [L_dec][H][T_dec][T]      rows decoder positions, columns encoder
      "buckets": {"encoder": [T][T], "decoder": [T_dec][T_dec]}  bucket(i, j) of each (query i,
                        key j) pair; the same in every case (positions_off zeroes the bias, not
                        the buckets)
  }}
"""
import math
import os
import shutil
import sys
import time
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402
import make_family_reference as mf  # noqa: E402

normal = mm.normal
linear = mm.linear
gelu = mf.gelu_exact  # ACT2FN["gelu"]: nn.functional.gelu, the erf form

FOLDERS = ["bert", "bert_saved", "modernbert", "t5", "flan_t5"]


def special_token(i, content, lstrip=False):
    """An added_tokens entry as tokenizers writes it."""
    return {"id": i, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": False, "special": True}


def template(first, last, ids):
    """TemplateProcessing: single = [first] $A [last], pair = [first] $A [last] $B:1 [last]:1
    (first None: T5's $A </s>)."""
    def spec(t, type_id):
        return {"SpecialToken": {"id": t, "type_id": type_id}}

    def seq(s, type_id):
        return {"Sequence": {"id": s, "type_id": type_id}}

    head = [spec(first, 0)] if first else []
    single = head + [seq("A", 0), spec(last, 0)]
    pair = head + [seq("A", 0), spec(last, 0), seq("B", 1), spec(last, 1)]
    tokens = sorted({t for t in (first, last) if t})
    return {"type": "TemplateProcessing", "single": single, "pair": pair,
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in tokens}}


def split_added(text, specials, lstrip=()):
    """Cut text at the added tokens (longest first), as tokenizers' AddedVocabulary does before
    normalizing: [(segment, special or None)]. A token in lstrip eats the whitespace on its left."""
    out, i, start = [], 0, 0
    names = sorted(specials, key=len, reverse=True)
    while i < len(text):
        hit = next((s for s in names if text.startswith(s, i)), None)
        if hit is None:
            i += 1
            continue
        seg = text[start:i]
        if hit in lstrip:
            seg = seg.rstrip()
        if seg:
            out.append((seg, None))
        out.append((hit, hit))
        i += len(hit)
        start = i
    if text[start:]:
        out.append((text[start:], None))
    return out


# --------------------------------------------------------------------------------------------
# Tokenizers built for the tests (each in the exact tokenizer.json format of its real model)
# --------------------------------------------------------------------------------------------

# WordPiece, lowercase. ids as bert-base-uncased orders them: [PAD] first, [unused…] rows, then
# [UNK] [CLS] [SEP] [MASK], then punctuation and words. No single letters, so a word the pieces
# cannot cover becomes [UNK] whole.
BERT_SPECIALS = ["[PAD]", "[unused0]", "[unused1]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_WORDS = ["!", "'", ",", ".", "a", "and", "another", "at", "cafe", "cat", "chase", "dog", "in",
              "mat", "on", "park", "ran", "run", "s", "sat", "the", "##d", "##ning", "##s"]
BERT_TEXT = "The dog sat on the [MASK] in the park."
BERT_TEXTS = [BERT_TEXT, "The dog chased another dog", "The cat sat on the mat.",
              "A dog and a cat ran in the park.", "Dogs chased the Café's cats!", "A zebra ran.",
              "[MASK] dogs, running at the\tPARK"]


class WordPieceTokenizer:
    """BertNormalizer (clean_text, handle_chinese_chars, strip_accents null → follows lowercase,
    lowercase) → BertPreTokenizer (whitespace dropped, each punctuation character its own
    word) → WordPiece (greedy longest match, "##" continuations, a word that fails is [UNK])
    → TemplateProcessing [CLS] $A [SEP]. Written for the ASCII-plus-accents texts above."""

    def __init__(self):
        self.vocab = {t: i for i, t in enumerate(BERT_SPECIALS + BERT_WORDS)}
        self.size = len(self.vocab)
        self.added = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

    @staticmethod
    def normalize(s):
        s = "".join(" " if c.isspace() else c for c in s if not unicodedata.category(c).startswith("C") or c in "\t\n\r")
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
        return s.lower()

    @staticmethod
    def pre_tokenize(s):
        words, cur = [], ""
        for c in s:
            punct = (33 <= ord(c) <= 47 or 58 <= ord(c) <= 64 or 91 <= ord(c) <= 96 or 123 <= ord(c) <= 126
                     or unicodedata.category(c).startswith("P"))
            if c.isspace() or punct:
                if cur:
                    words.append(cur)
                cur = ""
                if punct:
                    words.append(c)
            else:
                cur += c
        return words + ([cur] if cur else [])

    def wordpiece(self, word):
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                sub = ("##" if start else "") + word[start:end]
                if sub in self.vocab:
                    break
                end -= 1
            if end == start:
                return ["[UNK]"]
            pieces.append(("##" if start else "") + word[start:end])
            start = end
        return pieces

    def tokens(self, text):
        out = ["[CLS]"]
        for seg, special in split_added(text, self.added):
            if special:
                out.append(special)
                continue
            for w in self.pre_tokenize(self.normalize(seg)):
                out += self.wordpiece(w)
        return out + ["[SEP]"]

    def encode(self, text):
        return [self.vocab[t] for t in self.tokens(text)]

    def json(self):
        return {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [special_token(self.vocab[t], t) for t in self.added],
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": template("[CLS]", "[SEP]", self.vocab),
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": self.vocab},
        }


# ModernBERT: make_model_reference's byte-level BPE (GPT-2's bytes, the same merges) with
# ModernBERT's specials after the merged tokens, in its order, [MASK] stripping the whitespace
# on its left (so "the [MASK]" gives "Ġthe", [MASK]: no "Ġ" before the mask).
MB_SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
MB_TEXT = "The dog sat on the [MASK] in the park."
MB_TEXTS = [MB_TEXT] + mm.TEXTS + ["[MASK] dog and a cat", "The cat sat on the  [MASK]."]


class ModernBertTokenizer(mm.Tokenizer):
    def __init__(self):
        super().__init__()
        base = len(self.vocab)
        self.special_ids = {t: base + i for i, t in enumerate(MB_SPECIALS)}
        self.size = base + len(MB_SPECIALS)
        self.names = {i: t for t, i in self.vocab.items()}
        self.names.update({i: t for t, i in self.special_ids.items()})

    def encode(self, text):
        ids = [self.special_ids["[CLS]"]]
        for seg, special in split_added(text, MB_SPECIALS, lstrip=("[MASK]",)):
            if special:
                ids.append(self.special_ids[special])
            else:
                ids += super().encode(unicodedata.normalize("NFC", seg))
        return ids + [self.special_ids["[SEP]"]]

    def json(self):
        j = super().json()
        vocab = dict(self.vocab)
        vocab.update(self.special_ids)  # as in GPT-NeoX-style files, the specials are in the vocab too
        j["added_tokens"] = [special_token(i, t, lstrip=(t == "[MASK]")) for t, i in self.special_ids.items()]
        j["normalizer"] = {"type": "NFC"}
        j["post_processor"] = template("[CLS]", "[SEP]", self.special_ids)
        j["model"]["vocab"] = vocab
        return j


# T5: a Unigram vocabulary whose scores make the best segmentation differ from the greedy
# longest match ("▁another" → "▁an" "other", not "▁anot" "her"; "▁chased" → "▁chas" "ed", not
# "▁chase" "d").
# Every character of the texts is a piece, so nothing is <unk>. Ids as T5's: <pad> </s> <unk>,
# the pieces by falling score, then the sentinels <extra_id_2> … <extra_id_0>.
T5_PIECES = [
    ("▁", -2.0), ("▁the", -2.5), (".", -2.6), ("▁dog", -3.0), ("▁The", -3.1), ("▁Hund", -3.2),
    ("▁in", -3.3), ("▁and", -3.4), ("▁an", -3.5), ("▁im", -3.6), ("▁park", -3.7), ("▁Park", -3.8),
    ("ed", -3.9), ("▁a", -4.0), ("▁Der", -4.1), ("▁Ein", -4.2), ("▁einen", -4.3), ("other", -4.5),
    ("▁cat", -4.6), ("▁sat", -4.7), ("▁on", -4.8), ("▁mat", -4.9), ("▁ran", -5.0), ("▁chase", -5.1),
    ("d", -5.2), ("te", -5.3), ("eren", -5.4), ("▁jag", -5.5), ("▁A", -5.6), ("her", -5.7),
    ("▁ja", -5.8), ("gte", -5.9), ("en", -6.0), ("▁chas", -6.2), ("▁anot", -6.5), ("▁ano", -6.6),
    ("ther", -6.7), ("▁ander", -6.8), (",", -7.0),
]
T5_CHARS = "ADEHPTabcdeghijklmnoprstuw"
T5_EXTRA_IDS = 3
T5_TEXT = "The dog chased another dog in the park."
T5_TARGETS = {"base": "Der Hund jagte einen anderen Hund im Park.", "target_2": "Ein Hund im Park."}
T5_TEXTS = [T5_TEXT] + mm.TEXTS + list(T5_TARGETS.values()) + ["  The dog\tran,  another cat sat. "]


class UnigramTokenizer:
    """WhitespaceSplit → Metaspace ("▁" before each word) → Unigram Viterbi (the segmentation
    with the largest sum of scores) → TemplateProcessing $A </s>. No normalizer (T5's files have
    a Precompiled nmt_nfkc one; the texts here are ASCII, which it leaves alone)."""

    def __init__(self, metaspace_form):
        pieces = list(T5_PIECES)
        chars = [c for c in T5_CHARS if c not in {p for p, _ in pieces}]
        pieces += [(c, -9.0 - 0.01 * i) for i, c in enumerate(chars)]
        pieces.sort(key=lambda p: -p[1])  # sentencepiece orders by score; sort is stable
        self.pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + pieces
        self.pieces += [(f"<extra_id_{i}>", 0.0) for i in range(T5_EXTRA_IDS - 1, -1, -1)]
        self.ids = {p: i for i, (p, _) in enumerate(self.pieces)}
        self.score = {p: s for p, s in pieces}
        assert len(self.ids) == len(self.pieces), "duplicate piece"
        self.size = len(self.pieces)
        self.metaspace_form = metaspace_form

    def viterbi(self, word):
        """Best (score, pieces) over all segmentations of word into pieces; unique by design."""
        n = len(word)
        best = [(-math.inf, None)] * (n + 1)
        best[0] = (0.0, [])
        for end in range(1, n + 1):
            for start in range(end):
                p = word[start:end]
                if p in self.score and best[start][1] is not None:
                    s = best[start][0] + self.score[p]
                    assert s != best[end][0], ("tie", word)
                    if s > best[end][0]:
                        best[end] = (s, best[start][1] + [p])
        assert best[n][1] is not None, ("uncoverable", word)
        return best[n][1]

    def tokens(self, text):
        out = []
        for word in text.split():
            out += self.viterbi("▁" + word)
        return out + ["</s>"]

    def encode(self, text):
        return [self.ids[t] for t in self.tokens(text)]

    def pieces_of(self, text):
        """The target's tokens without the template's </s>."""
        return self.encode(text)[:-1]

    def json(self):
        if self.metaspace_form == "2020":  # t5-small's file
            meta = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
        else:  # tokenizers >= 0.14
            meta = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
        added = [special_token(self.ids[t], t) for t in ["<pad>", "</s>", "<unk>"]]
        added += [special_token(self.ids[f"<extra_id_{i}>"], f"<extra_id_{i}>") for i in range(T5_EXTRA_IDS - 1, -1, -1)]
        model = {"type": "Unigram", "unk_id": 2, "vocab": [[p, s] for p, s in self.pieces]}
        if self.metaspace_form != "2020":
            model["byte_fallback"] = False
        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, meta]},
            "post_processor": template(None, "</s>", self.ids),
            "decoder": dict(meta),
            "model": model,
        }


# --------------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------------


def layer_norm_nb(x, w, eps):
    """nn.LayerNorm(bias=False): ModernBERT's norms (norm_bias false)."""
    return mm.layer_norm(x, w, 0.0, eps)


def attend(q, k, v, scale, bias=None, visible=None):
    """Eager attention: q [Tq, H, d], k, v [Tk, H, d]; scores q·k·scale (+ bias [H, Tq, Tk]),
    keys where visible [Tq, Tk] is False get weight exactly 0. Returns (out [Tq, H·d], weights)."""
    s = np.einsum("thd,shd->hts", q, k) * scale
    if bias is not None:
        s = s + bias
    if visible is not None:
        s = np.where(visible[None], s, -np.inf)
    w = mm.softmax(s, axis=-1)
    return np.einsum("hts,shd->thd", w, v).reshape(q.shape[0], -1), w


def top5(logits, used):
    """Ids of the 5 largest logits per row, largest first; asserts a clear order (a float32
    engine must find the same five in the same order) and ids the tokenizer can spell."""
    order = np.argsort(-logits, axis=-1, kind="stable")[:, :6]
    vals = np.take_along_axis(logits, order, axis=-1)
    gaps = vals[:, :-1] - vals[:, 1:]
    assert gaps.min() > 1e-4, ("top-5 too close to call", gaps.min())
    assert order[:, :5].max() < used, "a padded id in the top 5"
    return [[int(v) for v in row[:5]] for row in order]


def cross_entropy(logits, labels):
    """Mean over rows of −log softmax(logits[i])[labels[i]] (CrossEntropyLoss, mean)."""
    m = np.max(logits, axis=-1, keepdims=True)
    logz = (m + np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True)))[:, 0]
    return float(np.mean([logz[i] - logits[i, t] for i, t in enumerate(labels)]))


def write_reference(out, name, top, cases):
    data = dict(top)
    data["cases"] = cases
    mm.write_text(os.path.join(out, name + ".reference.json"), mm.to_json(data))


def check_attention(name, cname, a, visible=None):
    """Rows sum to 1; masked keys exactly 0; visible keys > 0."""
    assert np.all(np.abs(a.sum(axis=-1) - 1.0) < 1e-12), (name, cname)
    if visible is not None:
        assert np.all(a[..., ~visible] == 0.0) and np.all(a[..., visible] > 0.0), (name, cname)


def differs(name, cases, key="logits", same=()):
    for cname, c in cases.items():
        if cname == "base":
            continue
        if c[key].shape != cases["base"][key].shape:
            continue
        d = np.max(np.abs(c[key] - cases["base"][key]))
        assert (d == 0.0) if cname in same else (d > 1e-3), (name, cname, d)


# --------------------------------------------------------------------------------------------
# 1. BERT: learned absolute positions + token type, post-LN, bidirectional, tied MLM decoder
# --------------------------------------------------------------------------------------------


def bert_forward(W, c, ids, pos_table):
    """BertForMaskedLM. pos_table: the position rows added (position p reads row p)."""
    H, d, eps, n = c["heads"], c["head_dim"], c["eps"], len(ids)
    # BertEmbeddings: word + position (arange) + token_type (all 0), LayerNorm.
    x = W["word"][ids] + pos_table[:n] + W["type"][0]
    x = mm.layer_norm(x, W["emb_ln_w"], W["emb_ln_b"], eps)
    attn = []
    for p in W["layers"]:
        q, k, v = (linear(x, p[m + "_w"], p[m + "_b"]).reshape(n, H, d) for m in ("q", "k", "v"))
        ctx, w = attend(q, k, v, 1.0 / math.sqrt(d))  # BertSelfAttention: / sqrt(head size)
        attn.append(w)
        a = mm.layer_norm(linear(ctx, p["ao_w"], p["ao_b"]) + x, p["ao_ln_w"], p["ao_ln_b"], eps)  # BertSelfOutput
        i = gelu(linear(a, p["i_w"], p["i_b"]))  # BertIntermediate
        x = mm.layer_norm(linear(i, p["o_w"], p["o_b"]) + a, p["o_ln_w"], p["o_ln_b"], eps)  # BertOutput
    # BertLMPredictionHead: transform (dense, gelu, LayerNorm), decoder = word embeddings + bias.
    h = mm.layer_norm(gelu(linear(x, W["t_w"], W["t_b"])), W["t_ln_w"], W["t_ln_b"], eps)
    return np.array(attn), h @ W["word"].T + W["cls_bias"]


# (key in W, name in bert-base-uncased's file, name in a save_pretrained file)
def bert_names(L):
    names = [("word", "bert.embeddings.word_embeddings.weight"), ("pos", "bert.embeddings.position_embeddings.weight"),
             ("type", "bert.embeddings.token_type_embeddings.weight"),
             ("emb_ln_w", "bert.embeddings.LayerNorm.gamma"), ("emb_ln_b", "bert.embeddings.LayerNorm.beta")]
    for i in range(L):
        pre = f"bert.encoder.layer.{i}."
        for key, sub in [("q", "attention.self.query"), ("k", "attention.self.key"), ("v", "attention.self.value"),
                         ("ao", "attention.output.dense"), ("i", "intermediate.dense"), ("o", "output.dense")]:
            names += [(f"{i}.{key}_w", pre + sub + ".weight"), (f"{i}.{key}_b", pre + sub + ".bias")]
        for key, sub in [("ao_ln", "attention.output.LayerNorm"), ("o_ln", "output.LayerNorm")]:
            names += [(f"{i}.{key}_w", pre + sub + ".gamma"), (f"{i}.{key}_b", pre + sub + ".beta")]
    names += [("pooler_w", "bert.pooler.dense.weight"), ("pooler_b", "bert.pooler.dense.bias"),
              ("cls_bias", "cls.predictions.bias"),
              ("t_w", "cls.predictions.transform.dense.weight"), ("t_b", "cls.predictions.transform.dense.bias"),
              ("t_ln_w", "cls.predictions.transform.LayerNorm.gamma"),
              ("t_ln_b", "cls.predictions.transform.LayerNorm.beta"),
              ("nsp_w", "cls.seq_relationship.weight"), ("nsp_b", "cls.seq_relationship.bias")]
    return names


def saved_name(name):
    """What transformers 4.x save_pretrained writes: LayerNorm.gamma/.beta renamed at load
    (PreTrainedModel._fix_key) to .weight/.bias."""
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


def build_bert(out):
    rs = np.random.RandomState(51)
    tok = WordPieceTokenizer()
    V, n, H, d, I, L, P, eps = tok.size, 32, 4, 8, 64, 2, 64, 1e-12
    shapes = {"word": (V, n), "pos": (P, n), "type": (2, n), "pooler_w": (n, n), "pooler_b": (n,),
              "cls_bias": (V,), "t_w": (n, n), "t_b": (n,), "nsp_w": (2, n), "nsp_b": (2,)}
    raw = {}
    for key, name in bert_names(L):
        k = key.split(".")[-1]
        if k.endswith("_ln_w") or k == "emb_ln_w" or k == "t_ln_w":
            raw[key] = normal(rs, (n,), 0.1, 1.0)
        elif k.endswith("_ln_b") or k == "emb_ln_b" or k == "t_ln_b":
            raw[key] = normal(rs, (n,), 0.1)
        elif key in shapes:
            std = {"word": 1.0, "pos": 0.8, "type": 0.5, "cls_bias": 0.5}.get(key, 0.2)
            raw[key] = normal(rs, shapes[key], std)
        else:
            m = k[:-2]
            rows, cols = {"q": (n, n), "k": (n, n), "v": (n, n), "ao": (n, n), "i": (I, n), "o": (n, I)}[m]
            std = {"q": 0.3, "k": 0.3}.get(m, 0.15)
            raw[key] = normal(rs, (rows, cols) if k.endswith("_w") else (rows,), std if k.endswith("_w") else 0.1)
    # bert-base-uncased's config.json keys (written by transformers 4.6: "gradient_checkpointing",
    # no "torch_dtype"; the pooler and NSP head sit in its file although BertForMaskedLM does not
    # read them); a 4.x save_pretrained of BertForMaskedLM writes the second set.
    common = {
        "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": n, "initializer_range": 0.02, "intermediate_size": I,
        "layer_norm_eps": eps, "max_position_embeddings": P, "model_type": "bert", "num_attention_heads": H,
        "num_hidden_layers": L, "pad_token_id": 0, "position_embedding_type": "absolute", "type_vocab_size": 2,
        "use_cache": True, "vocab_size": V,
    }
    configs = {"bert": dict(common, gradient_checkpointing=False),
               "bert_saved": dict(common, classifier_dropout=None, torch_dtype="float32")}
    vals = {}
    for folder, saved in [("bert", False), ("bert_saved", True)]:
        st = mm.Store("F32")
        for key, name in bert_names(L):
            if saved and key in ("pooler_w", "pooler_b", "nsp_w", "nsp_b"):
                continue  # BertForMaskedLM has neither
            vals[key] = st.add(saved_name(name) if saved else name, raw[key])
        mf.save(out, folder, dict(sorted(configs[folder].items())), tok, st)
    W = {k: vals[k] for k in ("word", "pos", "type", "emb_ln_w", "emb_ln_b", "cls_bias", "t_w", "t_b", "t_ln_w", "t_ln_b")}
    W["layers"] = [{k.split(".")[1]: v for k, v in vals.items() if k.startswith(f"{i}.")} for i in range(L)]
    c = {"heads": H, "head_dim": d, "eps": eps}
    ids, tokens = tok.encode(BERT_TEXT), tok.tokens(BERT_TEXT)
    assert len(ids) == 12, tokens
    cases = {}
    for cname, table in [("base", W["pos"]), ("positions_off", np.zeros_like(W["pos"]))]:
        attn, logits = bert_forward(W, c, ids, table)
        check_attention("bert", cname, attn)
        cases[cname] = {"text": BERT_TEXT, "ids": ids, "tokens": tokens, "attention": attn, "logits": logits,
                        "top5": top5(logits, tok.size), "loss": None,
                        "mask_positions": [i for i, t in enumerate(ids) if t == tok.vocab["[MASK]"]]}
    differs("bert", cases)
    # Without positions BERT is permutation-equivariant: swapping two words swaps their rows.
    perm = list(range(len(ids)))
    perm[2], perm[7] = perm[7], perm[2]
    _, l2 = bert_forward(W, c, [ids[i] for i in perm], np.zeros_like(W["pos"]))
    assert np.allclose(l2, cases["positions_off"]["logits"][perm], rtol=0, atol=1e-10)
    assert not np.allclose(bert_forward(W, c, [ids[i] for i in perm], W["pos"])[1], cases["base"]["logits"][perm], atol=1e-3)
    top = {"family": "bert", "text": BERT_TEXT, "ids": ids, "tokens": tokens, "tokenizer_size": tok.size,
           "texts": {t: tok.encode(t) for t in BERT_TEXTS}, "mask_token_id": tok.vocab["[MASK]"],
           "layers": [{"positions": "learned", "attention": "global", "window": None, "window_radius": None,
                       "rope_base": None, "rotary_dim": None} for _ in range(L)]}
    for folder in ("bert", "bert_saved"):
        write_reference(out, folder, top, cases)
    return [(folder, tok, ids, cases) for folder in ("bert", "bert_saved")]


# --------------------------------------------------------------------------------------------
# 2. ModernBERT: global / local RoPE bases, |i − j| <= local_attention // 2, GeGLU, no biases
# --------------------------------------------------------------------------------------------


def modernbert_forward(W, c, ids, specs):
    """ModernBertForMaskedLM. specs[layer] = {"inv_freq": array or None, "radius": int or None}."""
    H, d, eps, n = c["heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    dist = np.abs(pos[:, None] - pos[None, :])
    x = layer_norm_nb(W["embed"][ids], W["emb_norm"], eps)  # ModernBertEmbeddings: tok_embeddings, norm
    attn = []
    for l, (p, spec) in enumerate(zip(W["layers"], specs)):
        h = x if l == 0 else layer_norm_nb(x, p["attn_norm"], eps)  # attn_norm is Identity on layer 0
        qkv = linear(h, p["Wqkv"]).reshape(n, 3, H, d)  # HF: view(bs, -1, 3, nheads, head_dim)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
        if spec["inv_freq"] is not None:
            cos, sin = mm.rope_cos_sin(spec["inv_freq"], pos)
            q, k = mm.apply_rope_half(q, cos, sin), mm.apply_rope_half(k, cos, sin)
        vis = None if spec["radius"] is None else dist <= spec["radius"]
        out, w = attend(q, k, v, d ** -0.5, visible=vis)
        attn.append(w)
        x = x + linear(out, p["attn_Wo"])
        inp, gate = np.split(linear(layer_norm_nb(x, p["mlp_norm"], eps), p["Wi"]), 2, axis=-1)  # chunk(2)
        x = x + linear(gelu(inp) * gate, p["mlp_Wo"])
    x = layer_norm_nb(x, W["final_norm"], eps)
    h = layer_norm_nb(gelu(linear(x, W["head_dense"])), W["head_norm"], eps)  # ModernBertPredictionHead
    return np.array(attn), linear(h, W["embed"], W["decoder_bias"])


def build_modernbert(out):
    rs = np.random.RandomState(52)
    tok = ModernBertTokenizer()
    V = (tok.size + 63) // 64 * 64  # ModernBERT-base: 50368 = 787 · 64
    n, H, d, I, L, eps = 48, 3, 16, 64, 4, 1e-5
    every, local, g_theta, l_theta = 3, 4, 160000.0, 10000.0
    st = mm.Store("F32")
    embed = normal(rs, (V, n), 1.0)
    embed[tok.size:] *= 0.05  # padded ids: never a target in training, so their logits sit low
    W = {"embed": st.add("model.embeddings.tok_embeddings.weight", embed),
         "emb_norm": st.add("model.embeddings.norm.weight", normal(rs, (n,), 0.1, 1.0)), "layers": []}
    for i in range(L):
        pre = f"model.layers.{i}."
        p = {}
        if i > 0:
            p["attn_norm"] = st.add(pre + "attn_norm.weight", normal(rs, (n,), 0.1, 1.0))
        qkv = np.concatenate([normal(rs, (n, n), 0.25), normal(rs, (n, n), 0.25), normal(rs, (n, n), 0.15)])
        p["Wqkv"] = st.add(pre + "attn.Wqkv.weight", qkv)
        p["attn_Wo"] = st.add(pre + "attn.Wo.weight", normal(rs, (n, n), 0.15))
        p["mlp_norm"] = st.add(pre + "mlp_norm.weight", normal(rs, (n,), 0.1, 1.0))
        p["Wi"] = st.add(pre + "mlp.Wi.weight", normal(rs, (2 * I, n), 0.15))
        p["mlp_Wo"] = st.add(pre + "mlp.Wo.weight", normal(rs, (n, I), 0.15))
        W["layers"].append(p)
    W["final_norm"] = st.add("model.final_norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["head_dense"] = st.add("head.dense.weight", normal(rs, (n, n), 0.2))
    W["head_norm"] = st.add("head.norm.weight", normal(rs, (n,), 0.1, 1.0))
    bias = normal(rs, (V,), 0.5)
    bias[tok.size:] -= 8.0
    W["decoder_bias"] = st.add("decoder.bias", bias)  # decoder.weight is tied: not saved
    s = tok.special_ids
    # answerdotai/ModernBERT-base's config.json keys (transformers 4.4x: global_rope_theta,
    # local_rope_theta, global_attn_every_n_layers — not 5.x's layer_types / rope_parameters).
    config = {
        "architectures": ["ModernBertForMaskedLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": s["[CLS]"], "classifier_activation": "gelu", "classifier_bias": False,
        "classifier_dropout": 0.0, "classifier_pooling": "mean", "cls_token_id": s["[CLS]"], "decoder_bias": True,
        "deterministic_flash_attn": False, "embedding_dropout": 0.0, "eos_token_id": s["[SEP]"],
        "global_attn_every_n_layers": every, "global_rope_theta": g_theta, "gradient_checkpointing": False,
        "hidden_activation": "gelu", "hidden_size": n, "initializer_cutoff_factor": 2.0, "initializer_range": 0.02,
        "intermediate_size": I, "layer_norm_eps": eps, "local_attention": local, "local_rope_theta": l_theta,
        "max_position_embeddings": 8192, "mlp_bias": False, "mlp_dropout": 0.0, "model_type": "modernbert",
        "norm_bias": False, "norm_eps": eps, "num_attention_heads": H, "num_hidden_layers": L,
        "pad_token_id": s["[PAD]"], "position_embedding_type": "absolute", "sep_token_id": s["[SEP]"],
        "tie_word_embeddings": True, "torch_dtype": "float32", "vocab_size": V,
    }
    mf.save(out, "modernbert", config, tok, st)
    c = {"heads": H, "head_dim": d, "eps": eps}
    ids = tok.encode(MB_TEXT)
    tokens = [tok.names[i] for i in ids]
    assert len(ids) == 12, tokens
    is_global = [i % every == 0 for i in range(L)]
    assert is_global == [True, False, False, True]
    inv = lambda b: mm.rope_default_inv_freq(b, d)  # noqa: E731

    def specs(g, lo, radius):
        return [{"inv_freq": g if gl else lo, "radius": None if gl else radius} for gl in is_global]

    case_specs = {
        "base": (inv(g_theta), inv(l_theta), local // 2),
        "positions_off": (None, None, local // 2),
        "window_none": (inv(g_theta), inv(l_theta), None),
        "window_8": (inv(g_theta), inv(l_theta), 8 // 2),
        "local_base_1000": (inv(g_theta), inv(1000.0), local // 2),
        "rope_theta_10000": (inv(10000.0), inv(l_theta), local // 2),
    }
    cases = {}
    for cname, (g, lo, radius) in case_specs.items():
        sp = specs(g, lo, radius)
        attn, logits = modernbert_forward(W, c, ids, sp)
        dist = np.abs(np.arange(12)[:, None] - np.arange(12)[None, :])
        for l, spec in enumerate(sp):
            check_attention("modernbert", cname, attn[l], None if spec["radius"] is None else dist <= spec["radius"])
        case = {"text": MB_TEXT, "ids": ids, "tokens": tokens, "attention": attn, "logits": logits,
                "top5": top5(logits, tok.size), "loss": None,
                "mask_positions": [i for i, t in enumerate(ids) if t == s["[MASK]"]],
                "window_radius": [spec["radius"] for spec in sp]}
        if g is not None:
            case["inv_freq_global"], case["inv_freq_local"] = g, lo
        cases[cname] = case
    differs("modernbert", cases)
    assert cases["base"]["mask_positions"] == [6] and tokens[5] == "Ġthe"  # lstrip ate the space
    layers = [{"positions": "rope", "attention": "global" if gl else "local", "window": None if gl else local,
               "window_radius": None if gl else local // 2, "rope_base": g_theta if gl else l_theta, "rotary_dim": d}
              for gl in is_global]
    top = {"family": "modernbert", "text": MB_TEXT, "ids": ids, "tokens": tokens, "tokenizer_size": tok.size,
           "texts": {t: tok.encode(t) for t in MB_TEXTS}, "mask_token_id": s["[MASK]"], "layers": layers}
    write_reference(out, "modernbert", top, cases)
    return [("modernbert", tok, ids, cases)]


# --------------------------------------------------------------------------------------------
# 3. T5 / Flan-T5: relative buckets per stack, RMS norm, unscaled scores, cross-attention
# --------------------------------------------------------------------------------------------


def t5_bucket(rel, bidirectional, num_buckets, max_distance, dtype=np.float64):
    """T5Attention._relative_position_bucket for one relative position rel = key − query. The
    logarithm's arithmetic in dtype (HF: float32). Returns (bucket, distance of the log
    expression from the integer it was truncated to, or None when n is exact)."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if rel > 0 else 0
        n = abs(rel)
    else:
        n = max(-rel, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n, None
    f = dtype
    val = np.log(f(n) / f(max_exact)) / f(math.log(max_distance / max_exact)) * f(num_buckets - max_exact)
    large = max_exact + int(val)  # .to(torch.long) truncates
    margin = None if n == max_exact else abs(float(val) - round(float(val)))  # ln 1 = 0 exactly
    return bucket + min(large, num_buckets - 1), margin


def t5_buckets(Tq, Tk, bidirectional, nb, md):
    """[Tq, Tk] buckets of (query i, key j) = bucket(j − i), checked float32 = float64."""
    out = np.zeros((Tq, Tk), dtype=np.int64)
    for i in range(Tq):
        for j in range(Tk):
            b32, m = t5_bucket(j - i, bidirectional, nb, md, np.float32)
            b64, _ = t5_bucket(j - i, bidirectional, nb, md, np.float64)
            assert b32 == b64 and (m is None or m > 1e-4), (i, j, b32, b64, m)
            out[i, j] = b32
    return out


def rms(x, w, eps):
    """T5LayerNorm: no mean, no bias."""
    return mm.rms_norm(x, w, eps)


def t5_ff(h, p, gated):
    if gated:  # T5DenseGatedActDense: act(wi_0 h) · wi_1 h → wo, act = gelu_new
        return linear(mm.gelu_new(linear(h, p["wi_0"])) * linear(h, p["wi_1"]), p["wo"])
    return linear(mf.relu(linear(h, p["wi"])), p["wo"])  # T5DenseActDense, relu


def t5_forward(W, c, enc_ids, dec_ids, positions_on):
    """T5ForConditionalGeneration. Returns (encoder attention, decoder self-attention,
    cross-attention, logits [T_dec][V])."""
    H, dk, eps, nb, md = c["heads"], c["d_kv"], c["eps"], c["buckets"], c["max_distance"]
    Te, Td = len(enc_ids), len(dec_ids)

    def bias(table, Tq, bidirectional):
        if not positions_on:
            return np.zeros((H, Tq, Tq))
        return np.transpose(table[t5_buckets(Tq, Tq, bidirectional, nb, md)], (2, 0, 1))  # [H, Tq, Tk]

    def proj(x, p, m, rows):
        return linear(x, p[m]).reshape(rows, H, dk)

    # Encoder: bidirectional; the first block's bias is shared by the stack.
    x = W["shared"][enc_ids]
    b = bias(W["enc_rel"], Te, True)
    enc_attn = []
    for p in W["enc"]:
        h = rms(x, p["ln_sa"], eps)
        out, w = attend(proj(h, p, "q", Te), proj(h, p, "k", Te), proj(h, p, "v", Te), 1.0, bias=b)
        enc_attn.append(w)
        x = x + linear(out, p["o"])
        x = x + t5_ff(rms(x, p["ln_ff"], eps), p, c["gated"])
    enc = rms(x, W["enc_final"], eps)
    # Decoder: causal self-attention with its own bias table, then cross-attention (no bias).
    x = W["shared"][dec_ids]
    b = bias(W["dec_rel"], Td, False)
    causal = np.tril(np.ones((Td, Td), dtype=bool))
    dec_attn, cross = [], []
    for p in W["dec"]:
        h = rms(x, p["ln_sa"], eps)
        out, w = attend(proj(h, p, "q", Td), proj(h, p, "k", Td), proj(h, p, "v", Td), 1.0, bias=b, visible=causal)
        dec_attn.append(w)
        x = x + linear(out, p["o"])
        h = rms(x, p["ln_ca"], eps)
        out, w = attend(proj(h, p, "cq", Td), proj(enc, p, "ck", Te), proj(enc, p, "cv", Te), 1.0)
        cross.append(w)
        x = x + linear(out, p["co"])
        x = x + t5_ff(rms(x, p["ln_ff"], eps), p, c["gated"])
    x = rms(x, W["dec_final"], eps)
    if c["tied"]:
        logits = (x * c["d_model"] ** -0.5) @ W["shared"].T
    else:
        logits = x @ W["lm_head"].T
    return np.array(enc_attn), np.array(dec_attn), np.array(cross), logits


def t5_weights(rs, st, c, V, used, legacy_cross_bias):
    """Random T5 weights under t5-small's / flan-t5-small's names. The output rows of the ids
    past the tokenizer's (used) are small, so their logits stay near 0, below the top 5, as
    training leaves the padded rows of a real checkpoint."""
    n, H, dk, F, nb = c["d_model"], c["heads"], c["d_kv"], c["d_ff"], c["buckets"]
    inner = H * dk
    shared = normal(rs, (V, n), 1.0)
    if c["tied"]:
        shared[used:] *= 0.05
    W = {"shared": st.add("shared.weight", shared), "enc": [], "dec": []}

    def attention(pre, p, q, k, v, o, rel_name=None):
        p[q] = st.add(pre + "q.weight", normal(rs, (inner, n), 0.15))
        p[k] = st.add(pre + "k.weight", normal(rs, (inner, n), 0.15))
        p[v] = st.add(pre + "v.weight", normal(rs, (inner, n), 0.2))
        p[o] = st.add(pre + "o.weight", normal(rs, (n, inner), 0.15))
        if rel_name:
            W[rel_name] = st.add(pre + "relative_attention_bias.weight", normal(rs, (nb, H), 1.5))

    def ff(pre, p):
        if c["gated"]:
            p["wi_0"] = st.add(pre + "DenseReluDense.wi_0.weight", normal(rs, (F, n), 0.2))
            p["wi_1"] = st.add(pre + "DenseReluDense.wi_1.weight", normal(rs, (F, n), 0.2))
        else:
            p["wi"] = st.add(pre + "DenseReluDense.wi.weight", normal(rs, (F, n), 0.2))
        p["wo"] = st.add(pre + "DenseReluDense.wo.weight", normal(rs, (n, F), 0.15))
        p["ln_ff"] = st.add(pre + "layer_norm.weight", normal(rs, (n,), 0.1, 1.0))

    for i in range(c["layers"]):
        pre, p = f"encoder.block.{i}.", {}
        attention(pre + "layer.0.SelfAttention.", p, "q", "k", "v", "o", "enc_rel" if i == 0 else None)
        p["ln_sa"] = st.add(pre + "layer.0.layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
        ff(pre + "layer.1.", p)
        W["enc"].append(p)
    W["enc_final"] = st.add("encoder.final_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
    for i in range(c["decoder_layers"]):
        pre, p = f"decoder.block.{i}.", {}
        attention(pre + "layer.0.SelfAttention.", p, "q", "k", "v", "o", "dec_rel" if i == 0 else None)
        p["ln_sa"] = st.add(pre + "layer.0.layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
        attention(pre + "layer.1.EncDecAttention.", p, "cq", "ck", "cv", "co")
        if i == 0 and legacy_cross_bias:
            # In t5-small's file, unused: T5ForConditionalGeneration lists it in
            # _keys_to_ignore_on_load_unexpected; cross-attention has no position bias.
            st.add(pre + "layer.1.EncDecAttention.relative_attention_bias.weight", normal(rs, (nb, H), 5.0))
        p["ln_ca"] = st.add(pre + "layer.1.layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
        ff(pre + "layer.2.", p)
        W["dec"].append(p)
    W["dec_final"] = st.add("decoder.final_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
    if not c["tied"]:
        lm_head = normal(rs, (V, n), 0.3)
        lm_head[used:] *= 0.05
        W["lm_head"] = st.add("lm_head.weight", lm_head)
    return W


# Two of the task_specific_params t5-small's and flan-t5-small's configs carry (a nested object
# that a config reader must step over).
T5_TASKS = {
    "summarization": {"early_stopping": True, "length_penalty": 2.0, "max_length": 200, "min_length": 30,
                      "no_repeat_ngram_size": 3, "num_beams": 4, "prefix": "summarize: "},
    "translation_en_to_de": {"early_stopping": True, "max_length": 300, "num_beams": 4,
                             "prefix": "translate English to German: "},
}

T5_VARIANTS = {
    # t5-small style: relu, tied with the rescale; buckets 16 / distance 20 so that T = 12 reaches
    # the logarithmic buckets in both stacks (encoder |j − i| >= 4, decoder i − j >= 8).
    "t5": {"seed": 56, "d_model": 32, "heads": 4, "d_kv": 16, "d_ff": 64, "layers": 2, "decoder_layers": 3,
           "buckets": 16, "max_distance": 20, "gated": False, "tied": True, "metaspace": "2020"},
    # flan-t5-small style: gated-gelu, untied, T5's default 32 / 128 buckets.
    "flan_t5": {"seed": 54, "d_model": 32, "heads": 4, "d_kv": 8, "d_ff": 48, "layers": 3, "decoder_layers": 2,
                "buckets": 32, "max_distance": 128, "gated": True, "tied": False, "metaspace": "2022"},
}


def build_t5(out, name):
    v = T5_VARIANTS[name]
    rs = np.random.RandomState(v["seed"])
    tok = UnigramTokenizer(v["metaspace"])
    V = (tok.size + 16) // 16 * 16  # larger than the tokenizer, as t5-small's 32128 > 32100
    c = dict(v, eps=1e-6)
    st = mm.Store("F32")
    W = t5_weights(rs, st, c, V, tok.size, legacy_cross_bias=(name == "t5"))
    config = {
        "architectures": ["T5ForConditionalGeneration"], "classifier_dropout": 0.0, "d_ff": v["d_ff"],
        "d_kv": v["d_kv"], "d_model": v["d_model"], "decoder_start_token_id": 0,
        "dense_act_fn": "gelu_new" if v["gated"] else "relu", "dropout_rate": 0.1, "eos_token_id": 1,
        "feed_forward_proj": "gated-gelu" if v["gated"] else "relu", "initializer_factor": 1.0,
        "is_encoder_decoder": True, "is_gated_act": v["gated"], "layer_norm_epsilon": 1e-6, "model_type": "t5",
        "n_positions": 512, "num_decoder_layers": v["decoder_layers"], "num_heads": v["heads"],
        "num_layers": v["layers"], "output_past": True, "pad_token_id": 0,
        "relative_attention_max_distance": v["max_distance"], "relative_attention_num_buckets": v["buckets"],
        "task_specific_params": T5_TASKS, "torch_dtype": "float32", "use_cache": True, "vocab_size": V,
    }
    if not v["tied"]:
        config["tie_word_embeddings"] = False  # flan-t5's config says so; t5-small's leaves the default
    mf.save(out, name, dict(sorted(config.items())), tok, st)
    enc_ids, enc_tokens = tok.encode(T5_TEXT), tok.tokens(T5_TEXT)
    assert len(enc_ids) == 12, enc_tokens
    cases = {}
    for cname, target, on in [("base", T5_TARGETS["base"], True), ("positions_off", T5_TARGETS["base"], False),
                              ("target_2", T5_TARGETS["target_2"], True)]:
        target_ids = tok.pieces_of(target)
        labels = target_ids + [1]
        dec_ids = [0] + target_ids  # _shift_right(labels) with decoder_start_token_id 0
        enc_attn, dec_attn, cross, logits = t5_forward(W, c, enc_ids, dec_ids, on)
        Td = len(dec_ids)
        check_attention(name, cname, enc_attn)
        check_attention(name, cname, dec_attn, np.tril(np.ones((Td, Td), dtype=bool)))
        check_attention(name, cname, cross)
        cases[cname] = {
            "text": T5_TEXT, "ids": enc_ids, "tokens": enc_tokens, "target": target, "target_ids": target_ids,
            "labels": labels, "decoder_ids": dec_ids, "decoder_tokens": [tok.pieces[i][0] for i in dec_ids],
            "attention": enc_attn, "decoder_attention": dec_attn, "cross_attention": cross, "logits": logits,
            "top5": top5(logits, tok.size), "loss": cross_entropy(logits, labels),
            "buckets": {"encoder": t5_buckets(12, 12, True, v["buckets"], v["max_distance"]),
                        "decoder": t5_buckets(Td, Td, False, v["buckets"], v["max_distance"])},
        }
    differs(name, cases)
    assert len(cases["base"]["decoder_ids"]) == 12, cases["base"]["decoder_tokens"]
    # The buckets reach the logarithmic range where the variant is built to (t5: both stacks).
    if name == "t5":
        assert cases["base"]["buckets"]["encoder"].max() == 14 and cases["base"]["buckets"]["decoder"].max() == 10
    # The two stacks' tables both matter: each alone changes the logits.
    for keep in ("enc_rel", "dec_rel"):
        W2 = dict(W, **{("dec_rel" if keep == "enc_rel" else "enc_rel"): np.zeros_like(W["enc_rel"])})
        l2 = t5_forward(W2, c, enc_ids, cases["base"]["decoder_ids"], True)[3]
        assert np.max(np.abs(l2 - cases["base"]["logits"])) > 1e-3, keep
    layer = {"positions": "relative", "attention": "global", "window": None, "window_radius": None,
             "rope_base": None, "rotary_dim": None, "bias_from_layer": 0}
    top = {"family": "t5", "text": T5_TEXT, "ids": enc_ids, "tokens": enc_tokens, "tokenizer_size": tok.size,
           "texts": {t: tok.encode(t) for t in T5_TEXTS},
           "layers": [dict(layer, bidirectional=True) for _ in range(v["layers"])],
           "decoder_layers": [dict(layer, bidirectional=False) for _ in range(v["decoder_layers"])],
           "relative_attention_num_buckets": v["buckets"], "relative_attention_max_distance": v["max_distance"],
           "relative_attention_bias": {"encoder": W["enc_rel"], "decoder": W["dec_rel"]}}
    write_reference(out, name, top, cases)
    return [(name, tok, enc_ids, cases)]


# --------------------------------------------------------------------------------------------
# Self-checks of the pieces against values worked out by hand
# --------------------------------------------------------------------------------------------


def self_checks():
    # Buckets (docs/FORMULAS.md): T5's defaults, bidirectional 32 / 128: |n| < 8 exact, keys
    # after the query in the upper half; causal: future keys all in bucket 0.
    b = lambda r, bi, nb=32, md=128: t5_bucket(r, bi, nb, md, np.float32)[0]  # noqa: E731
    assert [b(r, True) for r in (0, -1, 1, -7, 7, -8, 8, -12, -16, -128, -1000)] == [0, 1, 17, 7, 23, 8, 24, 9, 10, 15, 15]
    assert [b(r, False) for r in (0, 3, -1, -15, -16, -32, -200)] == [0, 0, 1, 15, 16, 21, 31]
    # Exactly on an edge (16 = 8 · 2: ln 2 / ln 16 · 8 = 2): bucket 8 + 2 in float32 as in float64.
    assert b(-16, True) == 10
    # WordPiece: accents stripped with lowercase; "##" continuations; an uncoverable word is [UNK].
    wp = WordPieceTokenizer()
    assert wp.tokens("Dogs chased the Café's cats!") == ["[CLS]", "dog", "##s", "chase", "##d", "the", "cafe", "'",
                                                         "s", "cat", "##s", "!", "[SEP]"]
    assert wp.tokens("A zebra ran.") == ["[CLS]", "a", "[UNK]", "ran", ".", "[SEP]"]
    assert wp.tokens("[MASK] dogs, running") == ["[CLS]", "[MASK]", "dog", "##s", ",", "run", "##ning", "[SEP]"]
    # Unigram: Viterbi beats the greedy longest match.
    ug = UnigramTokenizer("2020")
    assert ug.tokens("another chased")[:-1] == ["▁an", "other", "▁chas", "ed"]
    assert ug.tokens("jagte anderen")[:-1] == ["▁jag", "te", "▁and", "eren"]
    # ModernBERT: [MASK] strips the whitespace on its left, not on its right.
    mt = ModernBertTokenizer()
    assert split_added("on the  [MASK] in", MB_SPECIALS, ("[MASK]",)) == [("on the", None), ("[MASK]", "[MASK]"), (" in", None)]
    assert mt.encode("the [MASK]")[1:-1] == mt.encode("the[MASK]")[1:-1]


def summary(name, tok, ids, cases):
    base = cases["base"]
    a = base["attention"]
    extra = f", loss {base['loss']:.4f}, T_dec {len(base['decoder_ids'])}" if base["loss"] is not None else ""
    print(f"{name}: {a.shape[0]} encoder layers × {a.shape[1]} heads, V {base['logits'].shape[1]} "
          f"(tokenizer {tok.size}), T {len(ids)}{extra}; mean max attention weight {a.max(axis=-1).mean():.3f}; "
          f"cases {', '.join(cases)}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_encoder_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    start = time.time()
    self_checks()
    for build in [build_bert, build_modernbert, lambda o: build_t5(o, "t5"), lambda o: build_t5(o, "flan_t5")]:
        for name, tok, ids, cases in build(out):
            summary(name, tok, ids, cases)
    print(f"{out}: {len(FOLDERS)} folders in {time.time() - start:.2f} s")


if __name__ == "__main__":
    main()
