#!/usr/bin/python3
"""Writes a Hugging Face-format GPT-OSS-20B-shaped folder (a mixture of experts with MXFP4 experts)
with random weights, cut to a few layers.

    /usr/bin/python3 bench/make_gpt_oss.py [OUTDIR (/tmp/poslab-gpt-oss-20b-2l)] [--layers N (2)] [--small] [--seed S]

OUTDIR gets config.json (GptOssForCausalLM, model_type gpt_oss, openai/gpt-oss-20b's config.json with
num_hidden_layers 24 -> N: hidden 2880, 64 query heads and 8 key-value heads of 64, attention
biases and learned sinks, layer_types alternating sliding_attention (window 128) and
full_attention, 32 experts of intermediate_size 2880 with the top 4 (softmax over the 4), the
SwiGLU limit 7, rope_theta 150,000 with YaRN (factor 32, beta_fast 32, beta_slow 1, original 4096,
truncate false), max_position_embeddings 131,072, untied lm_head, vocabulary 201,088, and the
Hub files' quantization_config: quant_method mxfp4, every module but the experts not converted),
tokenizer.json and model.safetensors with HF tensor names: model.embed_tokens.weight; per layer
input_layernorm, self_attn.{q,k,v,o}_proj.{weight,bias}, self_attn.sinks [heads],
post_attention_layernorm, mlp.router.{weight [E, hidden], bias [E]} and the experts as the
published files store them: mlp.experts.gate_up_proj_blocks U8 [E, 2I, hidden/32, 16] (two E2M1
codes a byte, the even input in the low nibble; rows interleaved gate, up, gate, up, ...),
gate_up_proj_scales U8 [E, 2I, hidden/32] (×2^(s − 127) per 32 inputs), gate_up_proj_bias BF16
[E, 2I], down_proj_blocks U8 [E, hidden, I/32, 16], down_proj_scales U8 [E, hidden, I/32],
down_proj_bias BF16 [E, hidden]; then model.norm.weight and lm_head.weight. Everything but the
experts' blocks and scales is BF16.

--small writes the same design at toy sizes for checking against (hidden 64, 4 heads and 2
key-value heads of 16, 4 experts of 64 with the top 2, vocabulary 1,000, window 4, YaRN's
original_max_position_embeddings 256, so that with head_dim 16 one pair keeps its frequency, two
are blended and the rest divided by 32). At 2 layers of the real width: 2.80 G parameters, of
which the experts' 1.59 G take 4.25 bits each (0.85 GB) and the untied embeddings and lm_head
1.16 GB each: 3,270,266,624 bytes of tensors (~3.27 GB). The small folder: ~0.36 MB.

Weights (std = a / sqrt(fan_in), so the same a gives the same activations at any width; the
normalized rows have unit RMS): embeddings normal(0, 1); RMSNorm weights (GPT-OSS multiplies by
w) 1 + normal(0, 0.1); q, k, v, o a = 1 and biases normal(0, 0.1), so scores (× YaRN's attention
factor 1.35 on both q and k) have a spread of ~1.8, against sinks normal(0, 1.5); the router
a = 1.5 and bias normal(0, 0.3), so that tokens choose different experts and the top-k weights are
neither uniform nor one expert's; the experts' E2M1 codes uniform (RMS 2.93) with scale exponents
e0 − 1, e0, e0 + 1 drawn per block of 32, e0 chosen so that gate_up (+ bias normal(0, 1)) has a
spread of ~3 to 4 (the clamp at 7 hit now and then: on the small folder ~5% of gate values above 7
and ~9% of up values beyond ±7) and down's output ~1 (+ bias normal(0, 0.1)); lm_head a = 2. The residual stream stays at a few units, logits ~±2.
Written streaming, chunk by chunk (no tensor held whole), every tensor from its own random stream
seeded from (seed, its index), so the first N layers of a --layers N model equal those of a
deeper one of the same shape.

tokenizer.json is a byte-level BPE without merges: one token per byte (id = byte), o200k_harmony's
named special tokens at their ids (<|startoftext|> 199998, <|endoftext|> 199999, <|return|>
200002, <|constrain|> 200003, <|channel|> 200005, <|start|> 200006, <|end|> 200007, <|message|>
200008, <|call|> 200012; with --small at 256 + (id − 199998)) and a ByteLevel post-processor (no
BOS). A sentence of n ASCII characters is n tokens.
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_llama1b import CHUNK, f32_to_bf16_bits  # noqa: E402
from make_qwen3_moe import tokenizer as byte_level_tokenizer  # noqa: E402

FULL = {"hidden": 2880, "heads": 64, "kv_heads": 8, "head_dim": 64, "experts": 32, "top": 4, "inter": 2880,
        "vocab": 201088, "window": 128, "original": 4096}
SMALL = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "experts": 4, "top": 2, "inter": 64,
         "vocab": 1000, "window": 4, "original": 256}
ROPE_THETA = 150000.0
YARN_FACTOR = 32.0
SWIGLU_LIMIT = 7.0
FP4_RMS = math.sqrt(sum(v * v for v in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)) / 8)  # uniform codes: 2.93
GATE_UP_SPREAD = 3.0  # the std of x·gate_up before its bias, x of unit RMS
GLU_RMS = 5.0  # roughly the RMS of (up + 1)·glu at that spread
SPECIALS = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|return|>": 200002, "<|constrain|>": 200003,
            "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}


def specials(s):
    return SPECIALS if s is FULL else {k: 256 + v - 199998 for k, v in SPECIALS.items()}


def config(s, layers):
    sp = specials(s)
    return {
        "architectures": ["GptOssForCausalLM"],
        "attention_bias": True,
        "attention_dropout": 0.0,
        "eos_token_id": sp["<|return|>"],
        "experts_per_token": s["top"],
        "head_dim": s["head_dim"],
        "hidden_act": "silu",
        "hidden_size": s["hidden"],
        "initial_context_length": s["original"],
        "initializer_range": 0.02,
        "intermediate_size": s["inter"],
        "layer_types": ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)],
        "max_position_embeddings": int(YARN_FACTOR * s["original"]),
        "model_type": "gpt_oss",
        "num_attention_heads": s["heads"],
        "num_experts_per_tok": s["top"],
        "num_hidden_layers": layers,
        "num_key_value_heads": s["kv_heads"],
        "num_local_experts": s["experts"],
        "output_router_logits": False,
        "pad_token_id": sp["<|endoftext|>"],
        "quantization_config": {
            "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens",
                                       "lm_head"],
            "quant_method": "mxfp4"},
        "rms_norm_eps": 1e-05,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": YARN_FACTOR,
                         "original_max_position_embeddings": s["original"], "rope_type": "yarn", "truncate": False},
        "rope_theta": ROPE_THETA,
        "router_aux_loss_coef": 0.9,
        "sliding_window": s["window"],
        "swiglu_limit": SWIGLU_LIMIT,
        "tie_word_embeddings": False,
        "transformers_version": "4.55.0.dev0",
        "use_cache": True,
        "vocab_size": s["vocab"],
    }


def exponents(fan_in, target):
    """Scale exponents around the one that gives outputs of std `target` from inputs of unit RMS."""
    e0 = round(math.log2(target / (FP4_RMS * math.sqrt(fan_in))))
    return [e0 - 1, e0, e0 + 1]


def tensor_list(s, layers):
    """(name, dtype, shape, kind) in file order. kind: ("normal", centre, std) for BF16 normal(0, std) +
    centre; ("codes",) for U8 bytes of two uniform E2M1 codes; ("scales", exponents) for U8 127 + one
    of the exponents, uniformly."""
    n, H, G, d, E, I, V = (s[k] for k in ("hidden", "heads", "kv_heads", "head_dim", "experts", "inter", "vocab"))

    def lin(a, fan_in):
        return ("normal", 0.0, a / math.sqrt(fan_in))

    norm, bias = ("normal", 1.0, 0.1), ("normal", 0.0, 0.1)
    out = [("model.embed_tokens.weight", "BF16", (V, n), ("normal", 0.0, 1.0))]
    gu_exp = exponents(n, GATE_UP_SPREAD)
    dn_exp = exponents(I, 1.0 / GLU_RMS)
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [(p + "input_layernorm.weight", "BF16", (n,), norm)]
        for proj, rows in (("q", H * d), ("k", G * d), ("v", G * d)):
            out += [(p + f"self_attn.{proj}_proj.weight", "BF16", (rows, n), lin(1.0, n)),
                    (p + f"self_attn.{proj}_proj.bias", "BF16", (rows,), bias)]
        out += [(p + "self_attn.o_proj.weight", "BF16", (n, H * d), lin(1.0, H * d)),
                (p + "self_attn.o_proj.bias", "BF16", (n,), bias),
                (p + "self_attn.sinks", "BF16", (H,), ("normal", 0.0, 1.5)),
                (p + "post_attention_layernorm.weight", "BF16", (n,), norm),
                (p + "mlp.router.weight", "BF16", (E, n), lin(1.5, n)),
                (p + "mlp.router.bias", "BF16", (E,), ("normal", 0.0, 0.3))]
        q = p + "mlp.experts."
        out += [(q + "gate_up_proj_blocks", "U8", (E, 2 * I, n // 32, 16), ("codes",)),
                (q + "gate_up_proj_scales", "U8", (E, 2 * I, n // 32), ("scales", gu_exp)),
                (q + "gate_up_proj_bias", "BF16", (E, 2 * I), ("normal", 0.0, 1.0)),
                (q + "down_proj_blocks", "U8", (E, n, I // 32, 16), ("codes",)),
                (q + "down_proj_scales", "U8", (E, n, I // 32), ("scales", dn_exp)),
                (q + "down_proj_bias", "BF16", (E, n), ("normal", 0.0, 0.1))]
    out += [("model.norm.weight", "BF16", (n,), norm),
            ("lm_head.weight", "BF16", (V, n), lin(2.0, n))]
    return out


def write_safetensors(path, tensors, seed):
    """Writes `tensors` [(name, dtype, shape, kind)] streaming, CHUNK values at a time. Returns the
    parameter count (an MXFP4 weight's values: two per block byte; scales not counted)."""
    header, offset, params = {}, 0, 0
    for name, dtype, shape, kind in tensors:
        count = int(np.prod(shape))
        nbytes = count * (2 if dtype == "BF16" else 1)
        assert dtype != "BF16" or offset % 2 == 0, (name, "BF16 data at an odd offset")
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
        params += count * 2 if kind[0] == "codes" else (0 if kind[0] == "scales" else count)
    header["__metadata__"] = {"format": "pt"}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * (-len(hbytes) % 8)

    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for index, (name, dtype, shape, kind) in enumerate(tensors):
            rng = np.random.default_rng([seed, index])
            remaining = int(np.prod(shape))
            while remaining:
                k = min(CHUNK, remaining)
                if kind[0] == "normal":
                    x = rng.standard_normal(k, dtype=np.float32)
                    x *= np.float32(kind[2])
                    if kind[1]:
                        x += np.float32(kind[1])
                    f.write(f32_to_bf16_bits(x).tobytes())
                elif kind[0] == "codes":
                    f.write(rng.integers(0, 256, size=k, dtype=np.uint8).tobytes())
                else:
                    f.write((127 + rng.choice(np.array(kind[1], dtype=np.int64), size=k)).astype(np.uint8).tobytes())
                remaining -= k
        data_end = f.tell() - 8 - len(hbytes)
    assert data_end == offset, (data_end, offset)
    os.replace(tmp, path)
    return params


def tokenizer(s):
    sp = specials(s)
    assert max(sp.values()) < s["vocab"]
    return byte_level_tokenizer(sp)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--small", action="store_true", help="toy sizes, for checking against")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    if args.layers < 1:
        sys.exit("--layers must be >= 1")
    s = SMALL if args.small else FULL
    outdir = args.outdir or ("/tmp/poslab-gpt-oss-small" if args.small else "/tmp/poslab-gpt-oss-20b-2l")

    os.makedirs(outdir, exist_ok=True)
    for name, obj in (("config.json", config(s, args.layers)), ("tokenizer.json", tokenizer(s))):
        with open(os.path.join(outdir, name), "w") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")

    start = time.perf_counter()
    path = os.path.join(outdir, "model.safetensors")
    tensors = tensor_list(s, args.layers)
    params = write_safetensors(path, tensors, args.seed)
    print(json.dumps({"path": path, "layers": args.layers, "small": args.small, "tensors": len(tensors),
                      "params": params, "bytes": os.path.getsize(path),
                      "seconds": round(time.perf_counter() - start, 2)}))


if __name__ == "__main__":
    main()
