#!/usr/bin/python3
"""Reference timing: the GPT-OSS forward pass (GptOssForCausalLM) in plain PyTorch ops, on a folder
from make_gpt_oss.py.

    /usr/bin/python3 bench/gpt_oss_forward_torch.py DIR --tokens 128 --threads 2 [--repeat 3] [--bf16-max-s 0]
    /usr/bin/python3 bench/gpt_oss_forward_torch.py DIR --ids-file PREDICT.json --predict [--threads 2] [--between CMD]

The options, the timing and the printed JSON are model_forward_torch.py's (this script registers a
gpt_oss forward and its own loader there and runs its main): ids (arange(T) * 7919) % vocab unless
--ids-file, one warm-up and --repeat timed float32 forwards under torch.no_grad() with
torch.set_num_threads(threads), forward_s_min / median / all, logits_checksum (the sum of the last
position's first 16 logits, as bench/model_bench prints), rss_peak_mb, and with --predict the loss
and each position's top-1 as `poslab predict --top 1`. Pass --bf16-max-s 0 to skip
model_forward_torch's bfloat16 forward (bench/gpt_oss_run.sh does).

Loading: the BF16 tensors read through a NumPy memmap as float32 (model_forward_torch.load_f32);
the MXFP4 experts dequantized to float32 once, expert by expert, as transformers'
integrations/mxfp4.py convert_moe_packed_tensors does (E2M1 codes through the 16-value table, the
LOW nibble of a byte first, torch.ldexp by scale − 127, then [E, out, in] transposed to the
[E, in, out] that GptOssExperts multiplies by): mlp.experts.gate_up_proj [E, hidden, 2I] and
mlp.experts.down_proj [E, I, hidden]. load_s includes it; "dequant_s" is that part alone. A folder
that already holds the dequantized BF16 gate_up_proj / down_proj (as save_pretrained writes one)
loads as it is. Float32 experts: 4 bytes per parameter (6.4 GB for the 2-layer GPT-OSS-20B cut,
~11.3 GB of RSS with the embeddings and lm_head).

The model follows Hugging Face's modeling_gpt_oss: embeddings; per layer GptOssRMSNorm (float32,
w × the normalized row, cast back), q/k/v projections with biases, RoPE on half-split pairs
(_apply_rotary_emb: x1·cos − x2·sin, x2·cos + x1·sin) with YaRN's inv_freq
(_compute_yarn_parameters in float32; "truncate": false keeps the correction range fractional) and
cos and sin × the attention factor 0.1·ln(factor) + 1; eager_attention_forward with the learned
sinks: scores × head_dim^-0.5 plus the mask (causal; on sliding_attention layers key j visible
from query i iff i − j < sliding_window), one sink logit per head appended to each row, the row's
max subtracted, softmax, the sink column dropped; o_proj with bias, residual; then
post_attention_layernorm and GptOssMLP: GptOssTopKRouter (logits = x·Wᵀ + b, torch.topk of
num_experts_per_tok, softmax over those k only, scattered into router_scores [T, E]) and
GptOssExperts' CPU branch: a one-hot mask of the choices, and for each expert that got a token
(expert_hit) its rows gathered, gate_up = x @ gate_up_proj[e] + bias, gate = gate_up[..., ::2] and
up = gate_up[..., 1::2] (interleaved), gate clamped above at 7, up to ±7, glu = gate ·
sigmoid(1.702 · gate), out = ((up + 1) · glu) @ down_proj[e] + bias, × the token's router score,
index_add_ into the output; residual. Final norm and the untied lm_head.

Besides model_forward_torch's fields, the printed JSON object has "dequant_s", "layer0_experts"
(for each position, layer 0's routed experts with their weights, [[expert, weight], ...] in
torch.topk's order, the form of `poslab predict`'s "experts"[0]) and "routing" (per layer: the
experts hit, the distinct sets of k chosen, the most tokens on one expert, the smallest router
logit gap at the top-k cut, and how many gate values passed 7 and up values ±7 of how many),
recorded on the first float32 forward. Prints one JSON object on stdout; progress goes to stderr.
"""
import json
import math
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the bench scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_forward_torch as mft  # noqa: E402  (parses the command line, sets the thread variables)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# integrations/mxfp4.py FP4_VALUES: E2M1 by code 0 … 15.
FP4_VALUES = [+0.0, +0.5, +1.0, +1.5, +2.0, +3.0, +4.0, +6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
SWIGLU_ALPHA, SWIGLU_LIMIT = 1.702, 7.0  # GptOssExperts' alpha and limit (config swiglu_limit is 7.0 too)


# ---------------------------------------------------------------- loading

def u8_memmap(path, data_start, entry):
    if entry["dtype"] != "U8":
        raise ValueError(f"expected U8, got {entry['dtype']}")
    b, _ = entry["data_offsets"]
    return np.memmap(path, dtype=np.uint8, mode="r", offset=data_start + b, shape=tuple(entry["shape"]))


def dequantize_mxfp4(path, data_start, blocks_entry, scales_entry):
    """convert_moe_packed_tensors in float32, one expert at a time: blocks [E, rows, G, 16] and scales
    [E, rows, G] -> [E, G·32, rows] (the input dimension first, contiguous)."""
    blocks = u8_memmap(path, data_start, blocks_entry)
    scales = u8_memmap(path, data_start, scales_entry)
    E, rows, G, B = blocks.shape
    if scales.shape != (E, rows, G):
        raise ValueError(f"scales {scales.shape} do not match blocks {blocks.shape}")
    lut = torch.tensor(FP4_VALUES, dtype=torch.float32)
    out = torch.empty((E, G * B * 2, rows), dtype=torch.float32)
    for e in range(E):
        blk = torch.from_numpy(np.array(blocks[e])).reshape(rows * G, B)
        exp = torch.from_numpy(np.array(scales[e]).astype(np.int32) - 127).reshape(rows * G, 1)
        sub = torch.empty((rows * G, B * 2), dtype=torch.float32)
        sub[:, 0::2] = lut[(blk & 0x0F).long()]
        sub[:, 1::2] = lut[(blk >> 4).long()]
        sub = torch.ldexp(sub, exp)
        out[e].copy_(sub.view(rows, G * B * 2).t())
        del blk, exp, sub
    del blocks, scales  # unmaps
    return out


def load_gpt_oss(d):
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    path = os.path.join(d, "model.safetensors")
    data_start, header = mft.read_header(path)
    weights = {}
    for name, entry in header.items():
        if entry["dtype"] != "U8":
            weights[name] = mft.load_f32(path, data_start, entry)
    t0 = time.perf_counter()
    for name, entry in header.items():
        if name.endswith("_blocks"):
            base = name[:-len("_blocks")]
            weights[base] = dequantize_mxfp4(path, data_start, entry, header[base + "_scales"])
    mft.REPORT["dequant_s"] = time.perf_counter() - t0
    cfg["_stored_dtype"] = header["model.embed_tokens.weight"]["dtype"]
    if "lm_head.weight" not in weights:  # tied
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"]
    mft.log(f"MXFP4 experts dequantized to float32 in {mft.REPORT['dequant_s']:.1f} s")
    return cfg, weights


# ---------------------------------------------------------------- model

def rope_parameters(cfg, head_dim):
    """(inv_freq [head_dim/2] float32, attention factor): the default RoPE, or
    _compute_yarn_parameters."""
    base = float(cfg["rope_theta"])
    pos_freqs = base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).to(torch.float) / head_dim)
    rs = cfg.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type", "default"))
    if kind == "default":
        return 1.0 / pos_freqs, 1.0
    if kind != "yarn":
        raise ValueError(f"rope_scaling {kind} is not written here")
    factor = rs["factor"]
    original = rs.get("original_max_position_embeddings") or cfg["max_position_embeddings"]
    attention_factor = rs.get("attention_factor")
    if attention_factor is None:
        attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    beta_fast, beta_slow = rs.get("beta_fast") or 32, rs.get("beta_slow") or 1

    def correction_dim(rotations):
        return (head_dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if rs.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, head_dim - 1)
    if low == high:
        high += 0.001  # HF: prevent singularity
    ramp = torch.clamp((torch.arange(head_dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    extrapolation_factor = 1 - ramp
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrapolation_factor) + (1.0 / pos_freqs) * extrapolation_factor
    return inv_freq, attention_factor


def rms_norm(x, w, eps):
    """GptOssRMSNorm: in float32, w × x / sqrt(mean(x²) + eps), back to x's dtype."""
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (w * h).to(x.dtype)


def apply_rotary(x, cos, sin):
    """_apply_rotary_emb: the first and second halves of each head as the pairs."""
    first, second = torch.chunk(x, 2, dim=-1)
    return torch.cat((first * cos - second * sin, second * cos + first * sin), dim=-1)


def router(cfg, W, p, h):
    """GptOssTopKRouter: (router_scores [T, E] zero off the top k, router_indices [T, k], logits)."""
    logits = F.linear(h, W[p + "mlp.router.weight"], W[p + "mlp.router.bias"])
    top_value, top_idx = torch.topk(logits, cfg["num_experts_per_tok"], dim=-1)
    top_value = F.softmax(top_value, dim=1, dtype=top_value.dtype)
    return torch.zeros_like(logits).scatter_(1, top_idx, top_value), top_idx, logits


def experts(W, p, h, router_indices, routing_weights, stats=None):
    """GptOssExperts.forward's CPU branch: only the experts some token chose, each on its tokens."""
    q = p + "mlp.experts."
    gate_up_proj, gate_up_bias = W[q + "gate_up_proj"], W[q + "gate_up_proj_bias"]
    down_proj, down_bias = W[q + "down_proj"], W[q + "down_proj_bias"]
    out = torch.zeros_like(h)
    expert_mask = F.one_hot(router_indices, num_classes=routing_weights.shape[1]).permute(2, 1, 0)
    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
    for e in expert_hit[:, 0].tolist():
        _, token_idx = torch.where(expert_mask[e])
        x = h[token_idx]
        gate_up = x @ gate_up_proj[e] + gate_up_bias[e]
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]
        if stats is not None:
            stats["gate"] += int((gate > SWIGLU_LIMIT).sum())
            stats["up"] += int((up.abs() > SWIGLU_LIMIT).sum())
            stats["values"] += gate.numel()
        gate = gate.clamp(min=None, max=SWIGLU_LIMIT)
        up = up.clamp(min=-SWIGLU_LIMIT, max=SWIGLU_LIMIT)
        glu = gate * torch.sigmoid(gate * SWIGLU_ALPHA)
        y = ((up + 1) * glu) @ down_proj[e] + down_bias[e]
        y = y * routing_weights[token_idx, e, None]
        out.index_add_(0, token_idx, y.to(h.dtype))
    return out


def routing_summary(cfg, idx, logits, stats):
    k = cfg["num_experts_per_tok"]
    counts = torch.bincount(idx.reshape(-1), minlength=cfg["num_local_experts"])
    ordered = torch.sort(logits, dim=-1, descending=True).values
    gap = (ordered[:, k - 1] - ordered[:, k]).min().item() if logits.shape[1] > k else None
    return {"experts_hit": int((counts > 0).sum()), "distinct_sets": len({tuple(sorted(r)) for r in idx.tolist()}),
            "max_tokens_on_one_expert": int(counts.max()), "min_topk_gap": gap,
            "gate_above_limit": stats["gate"], "up_beyond_limit": stats["up"], "of": stats["values"]}


def gpt_oss_forward(cfg, W, ids, layers=None):
    """GptOssForCausalLM's logits [T, vocab] for token ids [T] (positions 0..T-1)."""
    dtype = W["model.embed_tokens.weight"].dtype
    T = ids.shape[0]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // nh
    eps = cfg["rms_norm_eps"]
    inv_freq, attention_scaling = rope_parameters(cfg, hd)
    freqs = torch.arange(T, dtype=torch.float32)[:, None] * inv_freq[None, :]  # [T, hd/2]
    cos, sin = (freqs.cos() * attention_scaling).to(dtype), (freqs.sin() * attention_scaling).to(dtype)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    zero, neg = torch.tensor(0.0), torch.tensor(float("-inf"))
    n_layers = cfg["num_hidden_layers"]
    types = cfg.get("layer_types") or ["sliding_attention" if l % 2 == 0 else "full_attention" for l in range(n_layers)]
    window = cfg.get("sliding_window")
    masks = {"full_attention": torch.where(j <= i, zero, neg),
             "sliding_attention": torch.where((j <= i) & (i - j < window), zero, neg) if window else None}
    scale = hd ** -0.5
    record = dtype == torch.float32 and "routing" not in mft.REPORT
    routing = []

    x = F.embedding(ids, W["model.embed_tokens.weight"])
    for l in range(n_layers if layers is None else layers):
        p = f"model.layers.{l}."
        h = rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = F.linear(h, W[p + "self_attn.q_proj.weight"], W[p + "self_attn.q_proj.bias"]).view(T, nh, hd).transpose(0, 1)
        k = F.linear(h, W[p + "self_attn.k_proj.weight"], W[p + "self_attn.k_proj.bias"]).view(T, nkv, hd).transpose(0, 1)
        v = F.linear(h, W[p + "self_attn.v_proj.weight"], W[p + "self_attn.v_proj.bias"]).view(T, nkv, hd).transpose(0, 1)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        # GQA: query head j reads kv head j // (nh / nkv) (repeat_kv).
        k = k.repeat_interleave(nh // nkv, dim=0)
        v = v.repeat_interleave(nh // nkv, dim=0)
        mask = masks[types[l]] if masks.get(types[l]) is not None else masks["full_attention"]
        s = torch.matmul(q, k.transpose(1, 2)) * scale + mask.to(q.dtype)
        sinks = W[p + "self_attn.sinks"].to(s.dtype).reshape(nh, 1, 1).expand(nh, T, 1)
        combined = torch.cat([s, sinks], dim=-1)
        combined = combined - combined.max(dim=-1, keepdim=True).values
        probs = F.softmax(combined, dim=-1, dtype=combined.dtype)
        a = probs[..., :-1]  # the sink dropped
        o = torch.matmul(a, v).transpose(0, 1).reshape(T, nh * hd)
        x = x + F.linear(o, W[p + "self_attn.o_proj.weight"], W[p + "self_attn.o_proj.bias"])
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        scores, idx, logits = router(cfg, W, p, h)
        stats = {"gate": 0, "up": 0, "values": 0} if record else None
        x = x + experts(W, p, h, idx, scores, stats)
        if record:
            routing.append(routing_summary(cfg, idx, logits, stats))
            if l == 0:
                mft.REPORT["layer0_experts"] = [[[e, float(row[e])] for e in es]
                                                for es, row in zip(idx.tolist(), scores.float())]
    if record and layers is None:
        mft.REPORT["routing"] = routing
    if layers is not None:
        return x
    x = rms_norm(x, W["model.norm.weight"], eps)
    return F.linear(x, W["lm_head.weight"])


mft.FORWARDS["gpt_oss"] = gpt_oss_forward
mft.load_model = load_gpt_oss  # model_forward_torch.main calls it by this name

if __name__ == "__main__":
    mft.main()
