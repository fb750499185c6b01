#!/usr/bin/python3
"""Writes a Hugging Face-format Llama-3.2-1B-shaped folder with random BF16 weights.

    /usr/bin/python3 bench/make_llama1b.py OUTDIR [--layers N] [--seed S]

OUTDIR gets config.json (LlamaForCausalLM, Llama 3.2 1B hyper-parameters) and model.safetensors
with HF tensor names (embeddings tied, so no lm_head.weight). Linear weights and embeddings are
normal(0, 0.02); RMSNorm weights are 1 + normal(0, 0.02). The file is written streaming, one
chunk of one tensor at a time, so memory stays at a few tens of MB however big the model is.
Every tensor has its own random stream (seeded from (seed, tensor index)), so the first N
layers of a --layers N model equal those of the full model.
"""
import argparse
import json
import os
import struct
import sys
import time

import numpy as np

HIDDEN = 2048
INTERMEDIATE = 8192
HEADS = 32
KV_HEADS = 8
HEAD_DIM = 64
VOCAB = 128256
CHUNK = 1 << 22  # float32 elements generated per step (16 MB)


def config(layers):
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 128000,
        "eos_token_id": 128001,
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": 131072,
        "mlp_bias": False,
        "num_attention_heads": HEADS,
        "num_hidden_layers": layers,
        "num_key_value_heads": KV_HEADS,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-5,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 32.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": VOCAB,
    }


def tensor_list(layers):
    """(name, shape, is_norm) in file order."""
    out = [("model.embed_tokens.weight", (VOCAB, HIDDEN), False)]
    q_out, kv_out = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (HIDDEN,), True),
            (p + "self_attn.q_proj.weight", (q_out, HIDDEN), False),
            (p + "self_attn.k_proj.weight", (kv_out, HIDDEN), False),
            (p + "self_attn.v_proj.weight", (kv_out, HIDDEN), False),
            (p + "self_attn.o_proj.weight", (HIDDEN, q_out), False),
            (p + "post_attention_layernorm.weight", (HIDDEN,), True),
            (p + "mlp.gate_proj.weight", (INTERMEDIATE, HIDDEN), False),
            (p + "mlp.up_proj.weight", (INTERMEDIATE, HIDDEN), False),
            (p + "mlp.down_proj.weight", (HIDDEN, INTERMEDIATE), False),
        ]
    out.append(("model.norm.weight", (HIDDEN,), True))
    return out


def f32_to_bf16_bits(x):
    """Round-to-nearest-even float32 -> bfloat16 bit patterns (uint16). No NaNs occur here."""
    u = x.view(np.uint32)
    u += np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return (u >> np.uint32(16)).astype("<u2")


def write_safetensors(path, tensors, seed):
    """Writes `tensors` [(name, shape, offset[, std])] as BF16 normal(0, std) + offset, streaming
    (std 0.02 when not given).

    Tensor k's values come from its own stream, seeded from (seed, k). Returns the parameter
    count. bench/make_gemma3_1b.py and bench/make_qwen3_moe.py write their models through this too."""
    header, offset = {}, 0
    for name, shape, *_ in tensors:
        nbytes = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    header["__metadata__"] = {"format": "pt"}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * (-len(hbytes) % 8)

    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for index, (name, shape, centre, *std) in enumerate(tensors):
            rng = np.random.default_rng([seed, index])
            remaining = int(np.prod(shape))
            while remaining:
                n = min(CHUNK, remaining)
                x = rng.standard_normal(n, dtype=np.float32)
                x *= np.float32(std[0] if std else 0.02)
                if centre:
                    x += np.float32(centre)
                f.write(f32_to_bf16_bits(x).tobytes())
                remaining -= n
            del x
        data_end = f.tell() - 8 - len(hbytes)
    assert data_end == offset, (data_end, offset)
    os.replace(tmp, path)
    return offset // 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    if args.layers < 1:
        sys.exit("--layers must be >= 1")

    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "config.json"), "w") as f:
        json.dump(config(args.layers), f, indent=2)
        f.write("\n")

    start = time.perf_counter()
    path = os.path.join(args.outdir, "model.safetensors")
    # RMSNorm weights are 1 + normal(0, 0.02): centre 1.0.
    tensors = [(name, shape, 1.0 if is_norm else 0.0) for name, shape, is_norm in tensor_list(args.layers)]
    params = write_safetensors(path, tensors, args.seed)
    print(json.dumps({"path": path, "layers": args.layers, "tensors": len(tensors), "params": params,
                      "bytes": os.path.getsize(path), "seconds": round(time.perf_counter() - start, 2)}))


if __name__ == "__main__":
    main()
