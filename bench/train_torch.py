#!/usr/bin/python3
"""Training throughput of the same model in PyTorch (Debian's python3-torch, CPU): the model of
tests/reference/train_reference.py (written from the definitions) with the sizes of
bench/train_bench.cpp's defaults, forward + backward + clipping + AdamW per step on copy-shaped
batches (T = 2·length, the second half counted), after a few untimed steps. Prints one JSON line.
Not a test. Usage: train_torch.py [--encoding rope] [--threads 2] [--steps 100] …
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
import train_reference as ref  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--encoding", default="rope")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--mlp", type=int, default=0)
    p.add_argument("--length", type=int, default=32)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--symbols", type=int, default=16)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--warmup-steps", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    d, V, T = a.width, a.symbols + 1, 2 * a.length
    F = a.mlp or 4 * d
    m = {"width": d, "heads": a.heads, "layers": a.layers, "positions": a.encoding, "rms_norm_eps": 1e-5}
    shapes = {"model.embed_tokens.weight": (V, d), "model.norm.weight": (d,)}
    if a.encoding == "learned":
        shapes["model.embed_positions.weight"] = (T, d)
    if a.encoding == "t5":
        shapes["model.relative_attention_bias.weight"] = (32, a.heads)
    for l in range(a.layers):
        at = f"model.layers.{l}."
        shapes.update({at + "input_layernorm.weight": (d,), at + "post_attention_layernorm.weight": (d,),
                       at + "self_attn.q_proj.weight": (d, d), at + "self_attn.k_proj.weight": (d, d),
                       at + "self_attn.v_proj.weight": (d, d), at + "self_attn.o_proj.weight": (d, d),
                       at + "mlp.gate_proj.weight": (F, d), at + "mlp.up_proj.weight": (F, d),
                       at + "mlp.down_proj.weight": (d, F)})
    P = {n: (torch.randn(s) * 0.02 if len(s) == 2 else torch.ones(s)).requires_grad_(True) for n, s in shapes.items()}
    tables = {"sinusoid": ref.sinusoid(T, d), "rope": ref.rope_cos_sin(T, d // a.heads, 10000.0, 1.0, 1.0),
              "buckets": ref.t5_causal_buckets(T, 32, 128)}
    optimizer = torch.optim.AdamW(list(P.values()), lr=1e-3, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.1)
    mask = torch.zeros(a.batch, T)
    mask[:, a.length:] = 1.0
    times = []
    for step in range(a.steps + a.warmup_steps):
        ids = torch.randint(0, V, (a.batch, T))
        targets = torch.randint(0, V, (a.batch, T))
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = ref.loss_of(P, m, ids, targets, mask, tables)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(P.values()), 1.0)
        optimizer.step()
        if step >= a.warmup_steps:
            times.append(time.perf_counter() - start)
    times.sort()
    tokens = a.batch * T
    print(json.dumps({"engine": "pytorch " + torch.__version__, "threads": a.threads, "tokens_per_step": tokens,
                      "step_ms_median": 1000 * times[len(times) // 2], "tokens_per_s": tokens * len(times) / sum(times)}))


if __name__ == "__main__":
    main()
