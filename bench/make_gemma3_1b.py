#!/usr/bin/python3
"""Writes a Hugging Face-format Gemma-3-1B-shaped folder with random BF16 weights.

    /usr/bin/python3 bench/make_gemma3_1b.py OUTDIR [--layers N] [--seed S] [--rope-scaling linear|none]

OUTDIR gets config.json (Gemma3ForCausalLM, model_type gemma3_text, Gemma 3 1B's sizes: 26 layers,
hidden 1152, 4 query heads of 256 and 1 key-value head, MLP 6912, vocabulary 262,144, every sixth
layer global, window 512, local base 10,000, global base 1,000,000, query_pre_attn_scalar 256,
gelu_pytorch_tanh, tied embeddings, no soft-capping), tokenizer.json and model.safetensors with
HF tensor names (four norms per layer, q_norm and k_norm; no lm_head.weight). Linear weights,
embeddings and the norms' stored w (used as 1 + w) are all normal(0, 0.02): the residual stream
stays at a few units and the logits near ±1, finite everywhere. ~2.0 GB, written streaming
through make_llama1b.write_safetensors (every tensor its own random stream, so the first N
layers of a --layers N model equal those of the full model).

--rope-scaling: "linear" (the default, the bench's setting: the global layers' frequencies / 8,
as the 4B, 12B and 27B checkpoints have it) or "none" (rope_scaling null, as the published 1B
config.json has it). Only config.json differs.

tokenizer.json is a byte-level BPE without merges: Gemma's special tokens <pad> 0, <eos> 1,
<bos> 2, <unk> 3, then one token per byte (ids 4 … 259), and a template that puts <bos> first.
A sentence of n ASCII characters is therefore exactly n + 1 tokens, id = 4 + byte.
"""
import argparse
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_llama1b import write_safetensors  # noqa: E402

HIDDEN = 1152
INTERMEDIATE = 6912
HEADS = 4
KV_HEADS = 1
HEAD_DIM = 256
VOCAB = 262144
WINDOW = 512
PATTERN = 6
SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>"]
FIRST_BYTE_ID = len(SPECIALS)


def layer_types(layers):
    # Layer i is global iff (i + 1) % 6 == 0 (transformers' Gemma3TextConfig default).
    return ["full_attention" if (i + 1) % PATTERN == 0 else "sliding_attention" for i in range(layers)]


def config(layers, rope_scaling):
    return {
        "architectures": ["Gemma3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_logit_softcapping": None,
        "bos_token_id": 2,
        "cache_implementation": "hybrid",
        "eos_token_id": [1, 106],
        "final_logit_softcapping": None,
        "head_dim": HEAD_DIM,
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_types": layer_types(layers),
        "max_position_embeddings": 32768,
        "model_type": "gemma3_text",
        "num_attention_heads": HEADS,
        "num_hidden_layers": layers,
        "num_key_value_heads": KV_HEADS,
        "pad_token_id": 0,
        "query_pre_attn_scalar": 256,
        "rms_norm_eps": 1e-06,
        "rope_local_base_freq": 10000,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0} if rope_scaling == "linear" else None,
        "rope_theta": 1000000,
        "sliding_window": WINDOW,
        "sliding_window_pattern": PATTERN,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.53.0",
        "use_cache": True,
        "vocab_size": VOCAB,
    }


def tensor_list(layers):
    """(name, shape, centre) in file order; every weight is normal(0, 0.02) + centre (all 0 here:
    Gemma's norms store w and multiply by 1 + w)."""
    out = [("model.embed_tokens.weight", (VOCAB, HIDDEN), 0.0)]
    q_out, kv_out = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (HIDDEN,), 0.0),
            (p + "self_attn.q_proj.weight", (q_out, HIDDEN), 0.0),
            (p + "self_attn.k_proj.weight", (kv_out, HIDDEN), 0.0),
            (p + "self_attn.v_proj.weight", (kv_out, HIDDEN), 0.0),
            (p + "self_attn.q_norm.weight", (HEAD_DIM,), 0.0),
            (p + "self_attn.k_norm.weight", (HEAD_DIM,), 0.0),
            (p + "self_attn.o_proj.weight", (HIDDEN, q_out), 0.0),
            (p + "post_attention_layernorm.weight", (HIDDEN,), 0.0),
            (p + "pre_feedforward_layernorm.weight", (HIDDEN,), 0.0),
            (p + "mlp.gate_proj.weight", (INTERMEDIATE, HIDDEN), 0.0),
            (p + "mlp.up_proj.weight", (INTERMEDIATE, HIDDEN), 0.0),
            (p + "mlp.down_proj.weight", (HIDDEN, INTERMEDIATE), 0.0),
            (p + "post_feedforward_layernorm.weight", (HIDDEN,), 0.0),
        ]
    out.append(("model.norm.weight", (HIDDEN,), 0.0))
    return out


def bytes_to_unicode_chars():
    """GPT-2's byte-level alphabet: byte b's character (printable bytes stand for themselves)."""
    printable = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    out, extra = [], 256
    for b in range(256):
        if b in printable:
            out.append(chr(b))
        else:
            out.append(chr(extra))
            extra += 1
    return out


def tokenizer():
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for b, u in enumerate(bytes_to_unicode_chars()):
        vocab[u] = FIRST_BYTE_ID + b
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in enumerate(SPECIALS)]
    bos = {"SpecialToken": {"id": "<bos>", "type_id": 0}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}},
        },
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }


def encode(text):
    """The ids tokenizer.json gives an ASCII/UTF-8 text: <bos>, then one id per byte."""
    return [2] + [FIRST_BYTE_ID + b for b in text.encode("utf-8")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--layers", type=int, default=26)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--rope-scaling", choices=("linear", "none"), default="linear")
    args = ap.parse_args()
    if args.layers < 1:
        sys.exit("--layers must be >= 1")

    os.makedirs(args.outdir, exist_ok=True)
    for name, obj in (("config.json", config(args.layers, args.rope_scaling)), ("tokenizer.json", tokenizer())):
        with open(os.path.join(args.outdir, name), "w") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")

    start = time.perf_counter()
    path = os.path.join(args.outdir, "model.safetensors")
    tensors = tensor_list(args.layers)
    params = write_safetensors(path, tensors, args.seed)
    print(json.dumps({"path": path, "layers": args.layers, "tensors": len(tensors), "params": params,
                      "bytes": os.path.getsize(path), "seconds": round(time.perf_counter() - start, 2)}))


if __name__ == "__main__":
    main()
