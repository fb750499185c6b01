#!/usr/bin/python3
"""Independent BF16 reference for PosLab's `--precision bf16`: Hugging Face's LlamaForCausalLM as it
runs when loaded in BF16 (torch_dtype=torch.bfloat16), in PyTorch (Debian's python3-torch).

Written from Hugging Face transformers' modeling_llama (LlamaRMSNorm, LlamaRotaryEmbedding,
apply_rotary_pos_emb, LlamaMLP, LlamaDecoderLayer) and the safetensors format, NOT from PosLab's
C++ code. Every tensor between two operations is BF16, as in Hugging Face's forward:
  - a matrix product sums in float32 and rounds its result to BF16 once (what PyTorch's BF16
    kernels do; written here as float32 products cast back, so that the reference does not depend
    on which kernel this CPU gets);
  - RMSNorm computes in float32, casts the normed x to BF16, then multiplies by the BF16 weight;
  - RoPE's cos and sin are computed in float32 and cast to BF16, then q·cos + rotate_half(q)·sin
    on BF16 tensors (each product and the sum rounded);
  - attention as PyTorch's scaled_dot_product_attention computes it on BF16 inputs on the CPU:
    scores and softmax in float32, the weights rounded to BF16 before they weigh the values, the
    context rounded to BF16;
  - silu(gate) is computed in float32 and rounded once, as PyTorch 2's CPU kernels compute it for
    BF16 (Debian 12's PyTorch 1.13 still chains BF16 operations inside it, an exp and a division
    each rounded, which no current Hugging Face forward sees);
  - silu(gate) · up, the residual sums and the logits are BF16 tensors.
The same forward with float32 tensors gives PyTorch's float32 logits, for the size of BF16's own
error.

Usage:  /usr/bin/python3 tests/reference/make_bf16_reference.py OUTDIR

Writes OUTDIR/llama_bf16/ (config.json, model.safetensors: a 4-layer Llama with grouped-query
attention and an untied head, random BF16 weights from a fixed torch seed) and
OUTDIR/llama_bf16.reference.json: {"ids", "logits_bf16", "logits_f32", "loss_bf16", "loss_f32",
"spread_mean" (the mean |logit| difference of the BF16 forward with float64 sums), "weights_layer": L,
"weights_bf16": heads × T × T of layer L, "layer_outputs_bf16": each layer's output, T × hidden}.
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_safetensors import write_safetensors  # noqa: E402

T = 64
CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 512,
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 4,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "hidden_act": "silu",
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0,
    "attention_bias": False,
    "mlp_bias": False,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
WEIGHTS_LAYER = 2


def make_weights(gen):
    c = CONFIG
    H, F, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    dq = c["num_attention_heads"] * c["head_dim"]
    dkv = c["num_key_value_heads"] * c["head_dim"]

    def normal(shape, std):
        return (torch.randn(shape, generator=gen) * std).to(torch.bfloat16)

    def norm_weight():
        return (1.0 + 0.1 * torch.randn(H, generator=gen)).to(torch.bfloat16)

    w = {"model.embed_tokens.weight": normal((V, H), 1.0)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm_weight()
        # Queries and keys large enough that the softmax is far from uniform (scores of a few units).
        w[p + "self_attn.q_proj.weight"] = normal((dq, H), 0.12)
        w[p + "self_attn.k_proj.weight"] = normal((dkv, H), 0.12)
        w[p + "self_attn.v_proj.weight"] = normal((dkv, H), 0.08)
        w[p + "self_attn.o_proj.weight"] = normal((H, dq), 0.08)
        w[p + "post_attention_layernorm.weight"] = norm_weight()
        w[p + "mlp.gate_proj.weight"] = normal((F, H), 0.08)
        w[p + "mlp.up_proj.weight"] = normal((F, H), 0.08)
        w[p + "mlp.down_proj.weight"] = normal((H, F), 0.06)
    w["model.norm.weight"] = norm_weight()
    w["lm_head.weight"] = normal((V, H), 0.1)
    return w


def forward(w, ids, dt, sums=torch.float32):
    """Logits (float32, T × V), layer WEIGHTS_LAYER's attention weights (heads × T × T) and every
    layer's output with every activation held in dtype dt (torch.bfloat16, or torch.float32 for the
    float forward); the products summed in `sums`."""
    c = CONFIG
    heads, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps = c["rms_norm_eps"]
    W = {k: v.to(dt) for k, v in w.items()}

    def linear(x, weight):  # float32 sums, one rounding to dt
        return (x.to(sums) @ weight.to(sums).t()).to(dt)

    def rms_norm(x, weight):  # LlamaRMSNorm
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        return weight * xf.to(dt)

    n = len(ids)
    inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.arange(n).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(dt), emb.sin().to(dt)

    def rotate_half(x):
        return torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)

    def rope(x):  # (heads, T, hd)
        return (x * cos) + (rotate_half(x) * sin)

    causal = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
    x = W["model.embed_tokens.weight"][torch.tensor(ids)]
    kept, layers = None, []
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, W[p + "input_layernorm.weight"])
        q = linear(h, W[p + "self_attn.q_proj.weight"]).view(n, heads, hd).transpose(0, 1)
        k = linear(h, W[p + "self_attn.k_proj.weight"]).view(n, kv, hd).transpose(0, 1)
        v = linear(h, W[p + "self_attn.v_proj.weight"]).view(n, kv, hd).transpose(0, 1)
        q, k = rope(q), rope(k)
        k = k.repeat_interleave(heads // kv, dim=0)
        v = v.repeat_interleave(heads // kv, dim=0)
        scores = (q.float() @ k.float().transpose(1, 2)) * (1.0 / math.sqrt(hd)) + causal
        weights = torch.softmax(scores, dim=-1).to(dt)
        if i == WEIGHTS_LAYER:
            kept = weights.float()
        context = (weights.float() @ v.float()).to(dt)
        context = context.transpose(0, 1).reshape(n, heads * hd)
        x = x + linear(context, W[p + "self_attn.o_proj.weight"])
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"])
        gate = torch.nn.functional.silu(linear(h, W[p + "mlp.gate_proj.weight"]).float()).to(dt)
        x = x + linear(gate * linear(h, W[p + "mlp.up_proj.weight"]), W[p + "mlp.down_proj.weight"])
        layers.append(x.float())
    logits = linear(rms_norm(x, W["model.norm.weight"]), W["lm_head.weight"]).float()
    return logits, kept, layers


def mean_loss(logits, ids):
    lp = torch.log_softmax(logits.double(), dim=-1)
    return float(-sum(lp[t, ids[t + 1]] for t in range(len(ids) - 1)) / (len(ids) - 1))


def rows(t):
    return [[float(v) for v in r] for r in t.tolist()]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    folder = os.path.join(out, "llama_bf16")
    os.makedirs(folder, exist_ok=True)
    gen = torch.Generator().manual_seed(20261129)
    w = make_weights(gen)
    ids = torch.randint(0, CONFIG["vocab_size"], (T,), generator=gen).tolist()
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
    write_safetensors(os.path.join(folder, "model.safetensors"), w)
    with torch.no_grad():
        bf16, weights, layers = forward(w, ids, torch.bfloat16)
        f32, _, _ = forward(w, ids, torch.float32)
        # The same BF16 forward with its products summed in float64: rounded to BF16 they differ
        # from the float32 sums' only where a sum lies at a rounding boundary, and those few
        # differences grow from layer to layer. How far apart two faithful BF16 forwards lie.
        f64_sums, _, _ = forward(w, ids, torch.bfloat16, torch.float64)
    ref = {
        "ids": ids,
        "loss_bf16": mean_loss(bf16, ids),
        "loss_f32": mean_loss(f32, ids),
        "spread_mean": float((f64_sums - bf16).abs().mean()),
        "weights_layer": WEIGHTS_LAYER,
        "logits_bf16": rows(bf16),
        "logits_f32": rows(f32),
        "weights_bf16": [rows(h) for h in weights],
        "layer_outputs_bf16": [rows(x) for x in layers],
    }
    with open(os.path.join(out, "llama_bf16.reference.json"), "w") as f:
        json.dump(ref, f)
    gap = float((bf16 - f32).abs().max())
    print(f"llama_bf16: T = {T}, max |logit bf16 - f32| = {gap:.4g}, loss bf16 {ref['loss_bf16']:.6f}, f32 {ref['loss_f32']:.6f}")


if __name__ == "__main__":
    main()
