#!/usr/bin/python3
"""Reference timing: the Qwen3-MoE forward pass (Qwen3MoeForCausalLM) in plain PyTorch ops, on a
folder from make_qwen3_moe.py.

    /usr/bin/python3 bench/moe_forward_torch.py DIR --ids-file PREDICT.json --predict [--threads 2] [--repeat 3] [--between CMD]

The options, the loading and the timing are model_forward_torch.py's (this script registers a
qwen3_moe forward there and runs its main): config.json and model.safetensors read through a
NumPy memmap, BF16 -> float32 as uint16 << 16, float32 torch tensors built before the clock
starts; each timed run is the forward plus, with --predict, the loss and each position's top-1
(as `poslab predict --top 1`), under torch.no_grad() with torch.set_num_threads(threads);
--between runs the PosLab side before each timed forward, interleaved run by run. Pass
--bf16-max-s 0 to skip model_forward_torch's bfloat16 forward (bench/moe_run.sh does).

Besides model_forward_torch's fields, the printed JSON object has "layer0_experts": for each
position, layer 0's routed experts with their weights after renormalization, [[expert, weight],
...] in torch.topk's order (most weight first), the form of `poslab predict`'s "experts"[0]
(recorded on the first float32 forward, outside the timings' concern: every run routes alike).

The model follows Hugging Face's modeling_qwen3_moe: embeddings; per layer Qwen3MoeRMSNorm
(computed in float32, w × the normalized row cast back), q/k/v projections, q_norm and k_norm
(RMSNorm over each head's 128) before rotate-half RoPE (rope_theta, no scaling), grouped-query
causal attention with scale 1/sqrt(head_dim) and a float32 softmax, o_proj, residual; then
post_attention_layernorm and, on a sparse layer (not in mlp_only_layers, (l + 1) %
decoder_sparse_step == 0), Qwen3MoeSparseMoeBlock as HF writes it: router logits = gate(h),
softmax in float32, topk(num_experts_per_tok), renormalized to sum 1 when norm_topk_prob, cast to
h's dtype; a one-hot mask of the choices; for each expert that got a token (expert_hit), its rows
gathered, down(silu(gate(x)) * up(x)) × their weights, index_add_ into the output; residual. A
dense layer runs the Qwen3MoeMLP of intermediate_size. Final norm and the untied lm_head. Experts
are one tensor each (mlp.experts.E.{gate,up,down}_proj.weight) or stacked as transformers 5
stores them (mlp.experts.gate_up_proj [E, 2I, H], gate's rows first, and mlp.experts.down_proj
[E, H, I]).

Float32 weights: ~4 bytes per parameter of RSS (12.4 GB for the 4-layer, 128-expert folder).
Prints one JSON object on stdout; progress goes to stderr.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_forward_torch as mft  # noqa: E402  (parses the command line, sets the thread variables)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def sparse_layers(cfg):
    """Which layers are a mixture (Qwen3MoeDecoderLayer's rule)."""
    only = set(cfg.get("mlp_only_layers") or [])
    step = cfg.get("decoder_sparse_step", 1)
    return [l not in only and cfg["num_experts"] > 0 and (l + 1) % step == 0 for l in range(cfg["num_hidden_layers"])]


def expert_weights(W, p, e):
    """Expert e's (gate, up, down) matrices: its own tensors, or views into the stacked ones."""
    q = f"{p}mlp.experts."
    if q + "gate_up_proj" in W:
        gate, up = W[q + "gate_up_proj"][e].chunk(2, dim=0)
        return gate, up, W[q + "down_proj"][e]
    q += f"{e}."
    return W[q + "gate_proj.weight"], W[q + "up_proj.weight"], W[q + "down_proj.weight"]


def sparse_moe_block(cfg, W, p, h):
    """Qwen3MoeSparseMoeBlock.forward on h [T, hidden]: (output, selected experts, their weights)."""
    E, k = cfg["num_experts"], cfg["num_experts_per_tok"]
    router_logits = F.linear(h, W[p + "mlp.gate.weight"])
    routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
    routing_weights, selected_experts = torch.topk(routing_weights, k, dim=-1)
    if cfg.get("norm_topk_prob", False):
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
    routing_weights = routing_weights.to(h.dtype)
    out = torch.zeros_like(h)
    # expert_mask[e, j, t]: token t's j-th choice is expert e.
    expert_mask = F.one_hot(selected_experts, num_classes=E).permute(2, 1, 0)
    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
    for e in expert_hit[:, 0].tolist():
        idx, top_x = torch.where(expert_mask[e])
        gate, up, down = expert_weights(W, p, e)
        x = h[top_x]
        y = F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down)
        y = y * routing_weights[top_x, idx, None]
        out.index_add_(0, top_x, y.to(h.dtype))
    return out, selected_experts, routing_weights


def qwen3_moe_forward(cfg, W, ids, layers=None):
    """Qwen3MoeForCausalLM's logits [T, vocab] for token ids [T] (positions 0..T-1)."""
    dtype = W["model.embed_tokens.weight"].dtype
    T = ids.shape[0]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // nh
    eps = cfg["rms_norm_eps"]
    rs = cfg.get("rope_scaling") or {}
    if rs.get("rope_type", rs.get("type", "default")) != "default":
        raise ValueError("rope_scaling is not written here")
    cos, sin = mft.rope_cos_sin(cfg["rope_theta"], hd, T, dtype)
    mask = torch.full((T, T), float("-inf"), dtype=torch.float32).triu(1)
    scale = hd ** -0.5
    sparse = sparse_layers(cfg)

    x = F.embedding(ids, W["model.embed_tokens.weight"])
    for l in range(cfg["num_hidden_layers"] if layers is None else layers):
        p = f"model.layers.{l}."
        h = mft.rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = mft.rms_norm(F.linear(h, W[p + "self_attn.q_proj.weight"]).view(T, nh, hd), W[p + "self_attn.q_norm.weight"], eps)
        k = mft.rms_norm(F.linear(h, W[p + "self_attn.k_proj.weight"]).view(T, nkv, hd), W[p + "self_attn.k_norm.weight"], eps)
        v = F.linear(h, W[p + "self_attn.v_proj.weight"]).view(T, nkv, hd)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q = q * cos + mft.rotate_half(q) * sin
        k = k * cos + mft.rotate_half(k) * sin
        # GQA: query head j reads kv head j // (nh / nkv).
        k = k.repeat_interleave(nh // nkv, dim=0)
        v = v.repeat_interleave(nh // nkv, dim=0)
        s = torch.matmul(q, k.transpose(1, 2)) * scale + mask.to(q.dtype)
        a = torch.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(a, v).transpose(0, 1).reshape(T, nh * hd)
        x = x + F.linear(o, W[p + "self_attn.o_proj.weight"])
        h = mft.rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        if sparse[l]:
            m, chosen, weights = sparse_moe_block(cfg, W, p, h)
            if l == 0 and h.dtype == torch.float32 and "layer0_experts" not in mft.REPORT:
                mft.REPORT["layer0_experts"] = [[[e, w] for e, w in zip(es, ws)]
                                                for es, ws in zip(chosen.tolist(), weights.float().tolist())]
        else:
            m = F.linear(F.silu(F.linear(h, W[p + "mlp.gate_proj.weight"])) * F.linear(h, W[p + "mlp.up_proj.weight"]),
                         W[p + "mlp.down_proj.weight"])
        x = x + m
    if layers is not None:
        return x
    x = mft.rms_norm(x, W["model.norm.weight"], eps)
    return F.linear(x, W["lm_head.weight"])


mft.FORWARDS["qwen3_moe"] = qwen3_moe_forward

if __name__ == "__main__":
    mft.main()
