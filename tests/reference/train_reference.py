#!/usr/bin/python3
"""PyTorch reference for PosLab's training engine (tests/core_train_reference_test.cpp).

Written from the definitions (docs/FORMULAS.md; Hugging Face Llama's block), not from PosLab's
C++. For every case folder under ROOT it reads case.json (model sizes, positional encoding,
optimizer settings and 50 batches) and init.safetensors (the initial weights, Llama's names), and
writes
  grads.safetensors  the gradient of the step-0 batch's loss for every tensor (before clipping)
  losses.json        {"losses": [...]} the loss of each of the 50 AdamW steps (before its update)

The model: tied embeddings (+ a learned table or the sinusoid), per layer pre-norm RMSNorm,
multi-head causal attention with RoPE (rotate-half, partial rotary, p-RoPE), ALiBi or T5 biases,
a SwiGLU MLP, a final RMSNorm; the loss is the mean cross-entropy over the masked predictions.
Run with Debian's /usr/bin/python3 and python3-torch: train_reference.py ROOT
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_safetensors import write_safetensors  # noqa: E402


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", name
        begin, end = info["data_offsets"]
        array = np.frombuffer(body[begin:end], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.tensor(array.copy())
    return tensors


# --- Positions, from the papers' definitions -------------------------------------------------

def sinusoid(T, d):
    """PE(p, 2i) = sin(p·θᵢ), PE(p, 2i+1) = cos(p·θᵢ), θᵢ = 10000^(−2i/d), in float64."""
    p = np.arange(T, dtype=np.float64)[:, None]
    i = np.arange(d)[None, :] // 2
    angle = p * np.power(10000.0, -2.0 * i / d)
    pe = np.where(np.arange(d)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))
    return torch.tensor(pe, dtype=torch.float32)


def rope_cos_sin(T, head_dim, base, partial, fraction):
    """Hugging Face's rotate-half tables for the rotary width r = ⌊head_dim·partial⌋ rounded down to
    even: inv_freq = base^(−2i/r); p-RoPE leaves the slowest (1 − fraction) of the pairs at θ = 0."""
    r = int(head_dim * partial) // 2 * 2
    pairs = r // 2
    inv_freq = np.power(base, -np.arange(0, r, 2, dtype=np.float64) / r)
    rotating = int(math.floor(fraction * pairs + 0.5))
    inv_freq[rotating:] = 0.0
    freqs = np.outer(np.arange(T, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=1)
    return r, torch.tensor(np.cos(emb), dtype=torch.float32), torch.tensor(np.sin(emb), dtype=torch.float32)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rope(x, r, cos, sin):
    rot, rest = x[..., :r], x[..., r:]
    return torch.cat([rot * cos + rotate_half(rot) * sin, rest], dim=-1)


def alibi_slopes(n):
    """Press et al.: 2^(−8(h+1)/n) for a power of two n; otherwise the largest power of two below,
    then every other slope of twice that."""
    def power_of_two(m):
        return [2.0 ** (-8.0 * (h + 1) / m) for h in range(m)]
    if n & (n - 1) == 0:
        return power_of_two(n)
    c = 2 ** int(math.floor(math.log2(n)))
    return power_of_two(c) + power_of_two(2 * c)[0::2][: n - c]


def t5_causal_buckets(T, num_buckets, max_distance):
    """T5's relative_position_bucket for relative position j − i, unidirectional: n = max(i − j, 0),
    exact below num_buckets/2, then logarithmic up to max_distance, capped at the last bucket."""
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    n = torch.clamp(i - j, min=0)
    max_exact = num_buckets // 2
    safe = torch.clamp(n, min=1).float()
    large = max_exact + (torch.log(safe / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.clamp(large, max=num_buckets - 1)
    return torch.where(n < max_exact, n, large)


# --- The model --------------------------------------------------------------------------------

def rmsnorm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def loss_of(P, m, ids, targets, mask, tables):
    B, T = ids.shape
    d, H = m["width"], m["heads"]
    dh = d // H
    eps = m["rms_norm_eps"]
    x = P["model.embed_tokens.weight"][ids]
    if m["positions"] == "learned":
        x = x + P["model.embed_positions.weight"][:T]
    if m["positions"] == "sinusoidal":
        x = x + tables["sinusoid"]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    bias = torch.zeros(H, T, T)
    if m["positions"] == "alibi":
        distance = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).clamp(min=0).float()
        bias = -torch.tensor(alibi_slopes(H))[:, None, None].float() * distance
    if m["positions"] == "t5":
        bias = P["model.relative_attention_bias.weight"][tables["buckets"]].permute(2, 0, 1)
    for l in range(m["layers"]):
        at = f"model.layers.{l}."
        h = rmsnorm(x, P[at + "input_layernorm.weight"], eps)
        q = (h @ P[at + "self_attn.q_proj.weight"].T).view(B, T, H, dh).transpose(1, 2)
        k = (h @ P[at + "self_attn.k_proj.weight"].T).view(B, T, H, dh).transpose(1, 2)
        v = (h @ P[at + "self_attn.v_proj.weight"].T).view(B, T, H, dh).transpose(1, 2)
        if m["positions"] == "rope":
            r, cos, sin = tables["rope"]
            q, k = apply_rope(q, r, cos, sin), apply_rope(k, r, cos, sin)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh) + bias
        scores = scores.masked_fill(~causal, float("-inf"))
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, d)
        x = x + ctx @ P[at + "self_attn.o_proj.weight"].T
        h = rmsnorm(x, P[at + "post_attention_layernorm.weight"], eps)
        gate = h @ P[at + "mlp.gate_proj.weight"].T
        up = h @ P[at + "mlp.up_proj.weight"].T
        x = x + (torch.nn.functional.silu(gate) * up) @ P[at + "mlp.down_proj.weight"].T
    logits = rmsnorm(x, P["model.norm.weight"], eps) @ P["model.embed_tokens.weight"].T
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, targets[..., None])[..., 0]
    return -(picked * mask).sum() / mask.sum()


def schedule(o, step):
    """Linear warm-up to the peak, then cosine down to min_lr_ratio·peak at the last step."""
    peak, warmup, steps = o["lr"], o["warmup"], o["steps"]
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(max((step - warmup) / max(1, steps - 1 - warmup), 0.0), 1.0)
    low = o["min_lr_ratio"] * peak
    return low + 0.5 * (peak - low) * (1 + math.cos(math.pi * progress))


def run_case(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    m, o = case["model"], case["optimizer"]
    P = read_safetensors(os.path.join(folder, "init.safetensors"))
    for t in P.values():
        t.requires_grad_(True)
    batches = []
    for b in case["batches"]:
        shape = (b["sequences"], b["tokens"])
        batches.append((torch.tensor(b["ids"]).view(shape), torch.tensor(b["targets"]).view(shape),
                        torch.tensor(b["mask"], dtype=torch.float32).view(shape)))
    T = batches[0][0].shape[1]
    tables = {"sinusoid": sinusoid(T, m["width"]),
              "rope": rope_cos_sin(T, m["width"] // m["heads"], m["rope_theta"], m["partial_rotary_factor"],
                                   m["rope_fraction"]),
              "buckets": t5_causal_buckets(T, m["t5_buckets"], m["t5_max_distance"])}

    # Step 0's gradient, before any clipping.
    loss = loss_of(P, m, *batches[0], tables)
    loss.backward()
    write_safetensors(os.path.join(folder, "grads.safetensors"), {n: t.grad for n, t in P.items()})
    for t in P.values():
        t.grad = None

    # AdamW with decoupled weight decay on the matrices and tables (not on the norms, not on T5's
    # biases), the schedule as a multiplier of the peak rate, global-norm clipping.
    decay = [t for n, t in P.items() if t.dim() == 2 and "relative_attention_bias" not in n]
    no_decay = [t for n, t in P.items() if not (t.dim() == 2 and "relative_attention_bias" not in n)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"])
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: schedule(o, s) / o["lr"])
    losses = []
    for batch in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_of(P, m, *batch, tables)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), o["clip"])
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    with open(os.path.join(folder, "losses.json"), "w") as f:
        json.dump({"losses": losses}, f)


def main():
    torch.set_num_threads(1)
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if os.path.isfile(os.path.join(folder, "case.json")):
            run_case(folder)


if __name__ == "__main__":
    main()
