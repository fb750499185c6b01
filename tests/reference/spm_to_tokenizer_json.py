#!/usr/bin/env python3
"""A SentencePiece model (.model) as the tokenizer.json Hugging Face's converter writes for it.

    spm_to_tokenizer_json.py MODEL STYLE OUT

STYLE is the layout of a real family's file:
  t5       T5 (2020): normalizer Precompiled; pre-tokenizer WhitespaceSplit then Metaspace with
           add_prefix_space; </s> appended by TemplateProcessing; 100 <extra_id_N> sentinels
           appended to the vocabulary (<extra_id_99> first) as special added tokens.
  flan_t5  Flan-T5 as converted today: normalizer Precompiled then Replace(" {2,}" -> " ");
           pre-tokenizer Metaspace with prepend_scheme "always" and split; the rest as t5.
  bytes    a byte-fallback Unigram without a charsmap: Replace(" {2,}" -> " "), Metaspace, </s>,
           decoder Replace/ByteFallback/Fuse/Strip as Llama-style SentencePiece files have it.
The .model file is a protobuf (sentencepiece_model.proto): read here with no protobuf library,
since Debian's python3-sentencepiece leaves out sentencepiece_model_pb2. Fields used:
ModelProto 1 = pieces {1 piece, 2 score (float), 3 type}, 3 = normalizer_spec {2 precompiled_charsmap}.
Piece types: 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte.
"""
import base64
import json
import struct
import sys


def fields(data):
    """(number, wire type, value) of each field of one protobuf message."""
    at = 0
    while at < len(data):
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at:at + length], at + length
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"wire type {wire} is not read here")
        yield number, wire, value


def varint(data, at):
    value, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def read_model(path):
    data = open(path, "rb").read()
    pieces, charsmap = [], b""
    for number, _, value in fields(data):
        if number == 1:
            piece = {"type": 1}
            for n, _, v in fields(value):
                if n == 1:
                    piece["piece"] = v.decode("utf-8")
                elif n == 2:
                    piece["score"] = struct.unpack("<f", v)[0]
                elif n == 3:
                    piece["type"] = v
            pieces.append(piece)
        elif number == 3:
            for n, _, v in fields(value):
                if n == 2:
                    charsmap = v
    return pieces, charsmap


def added(content, id):
    return {"id": id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def tokenizer_json(pieces, charsmap, style):
    vocab = [[p["piece"], p.get("score", 0.0)] for p in pieces]
    unk_id = next(i for i, p in enumerate(pieces) if p["type"] == 2)
    specials = [added(p["piece"], i) for i, p in enumerate(pieces) if p["type"] in (2, 3)]
    eos = next(i for i, p in enumerate(pieces) if p["piece"] == "</s>")
    if style in ("t5", "flan_t5"):
        for i in range(99, -1, -1):
            specials.append(added(f"<extra_id_{i}>", len(vocab)))
            vocab.append([f"<extra_id_{i}>", 0.0])
    precompiled = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")}
    spaces = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    if style == "t5":
        normalizer = precompiled
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}]}
        decoder = {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}
    else:
        normalizer = {"type": "Sequence", "normalizers": ([precompiled] if style == "flan_t5" else []) + [spaces]}
        pre = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
        decoder = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
        if style == "bytes":
            decoder = {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
                {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    eos_template = {"SpecialToken": {"id": "</s>", "type_id": 0}}
    post = {"type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, eos_template],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, eos_template, {"Sequence": {"id": "B", "type_id": 0}}, eos_template],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": specials,
            "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": post, "decoder": decoder,
            "model": {"type": "Unigram", "unk_id": unk_id, "vocab": vocab, "byte_fallback": style == "bytes"}}


def main():
    path, style, out = sys.argv[1:4]
    pieces, charsmap = read_model(path)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(pieces, charsmap, style), f, ensure_ascii=False)


if __name__ == "__main__":
    main()
