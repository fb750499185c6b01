#!/usr/bin/python3
"""Independent references for two newer designs: GPT-OSS and Llama 4 (text).

Written from Hugging Face transformers' published definitions, NOT from PosLab's C++ code. Only
NumPy; every computation is in float64 from the weights exactly as stored.

  modeling_gpt_oss (GptOssForCausalLM): Llama's pre-norm block; q/k/v/o projections with biases;
    RoPE on half-split pairs (_apply_rotary_emb: chunk(2) into first and second halves) with cos
    and sin × the RoPE attention factor; layer_types alternating sliding_attention (window W:
    query i sees key j iff 0 <= i - j < W) and full_attention; learned sinks (eager_attention_forward:
    one logit per head appended to every query row, softmax over the keys and the sink, the sink
    column dropped, so a row sums to 1 - the sink's share); scale head_dim^-0.5. GptOssTopKRouter:
    logits = x·Wᵀ + b, the top num_experts_per_tok, softmax over those k only. GptOssExperts:
    gate_up = x @ gate_up_proj[e] + gate_up_proj_bias[e] ([E, hidden, 2·I], in × out), gate =
    gate_up[..., ::2] and up = gate_up[..., 1::2] (interleaved), gate = min(gate, 7), up =
    clip(up, -7, 7), out = ((up + 1) · gate·sigmoid(1.702·gate)) @ down_proj[e] + down_proj_bias[e].
    The limit is the literal 7.0 of GptOssExperts (swiglu_limit in the config is 7.0 too, so a reader
    taking either gets the same numbers).
  modeling_rope_utils._compute_yarn_parameters: with "truncate": false the correction range is
    not floored / ceiled; the attention factor 0.1·ln(factor) + 1.
  integrations/mxfp4.py (FP4_VALUES, convert_moe_packed_tensors): E2M1 codes by the 16-entry
    table, the LOW nibble of a byte first, one scale byte s per 32 inputs meaning ×2^(s − 127);
    the dequantized [E, out, in] transposed to [E, in, out].
  modeling_llama4 (Llama4ForCausalLM, Llama4ForConditionalGeneration): pre-norm block, no biases;
    no_rope_layers[i] = 1: the layer uses RoPE on INTERLEAVED pairs (view_as_complex of
    reshape(..., -1, 2)) with the llama3 frequencies, then (use_qk_norm) Llama4TextL2Norm on q
    and k: x·rsqrt(mean(x²) + rms_norm_eps), no weight; and chunked attention (masking_utils
    chunked_overlay: causal and i // C == j // C, C = attention_chunk_size; layer_types
    "chunked_attention"). no_rope_layers[i] = 0: NoPE, plain causal ("full_attention") and, when
    attn_temperature_tuning, q at position p × (log1p(floor((p + 1) / floor_scale))·attn_scale + 1).
    Scale head_dim^-0.5 everywhere. Layers in moe_layers: Llama4TextMoe (router x·Wᵀ, no bias, top
    num_experts_per_tok, sigmoid of the chosen logits; the expert's input is x × its score;
    gate_up_proj [E, hidden, 2·I] split by chunk(2): gate first half, up second; down_proj
    [E, I, hidden]; plus shared_expert, a Llama MLP of width intermediate_size on the unscaled x);
    other layers a Llama MLP of width intermediate_size_mlp.

Usage:  /usr/bin/python3 tests/reference/make_design_reference.py OUTDIR

Writes OUTDIR/<folder>/ (config.json, tokenizer.json, model.safetensors) and OUTDIR/<folder>.reference.json:

  gpt_oss       GptOssForCausalLM  2 layers (0 sliding, window 4; 1 full), 4 experts, top 2, experts
                MXFP4 (U8 *_blocks / *_scales, BF16 biases), quantization_config as the Hub files
  gpt_oss_bf16  (the same numbers as transformers saves a dequantized model: experts.gate_up_proj
                [E, hidden, 2·I], experts.down_proj [E, I, hidden], BF16, no quantization_config)
      cases: base, rope_off (no rotation and no YaRN factor), rope_theta_10000 (the same YaRN
      scaling on base 10000), sinks_off (plain softmax), window_none (every layer full causal)
  llama4        Llama4ForCausalLM  4 layers, no_rope_layers [1, 1, 1, 0], chunk 4, moe_layers [1, 3]
                (4 experts, top 1, shared expert), layers 0 and 2 dense
  llama4_mm     (the same numbers in Llama4ForConditionalGeneration: text_config, tensors
                language_model.model.* and language_model.lm_head.weight, and vision tensors of
                shapes no text model has)
      cases: base, rope_off (no RoPE and no temperature tuning; chunks, qk norms, scale kept),
      rope_theta_10000, chunk_none (every layer plain causal), chunk_2 (chunk 2 on the RoPE layers)

Each case adds "experts" (per layer, per position, [[expert, weight], …], largest first: GPT-OSS's
softmax weights, Llama 4's sigmoid scores; [] for a dense layer); GPT-OSS's add "sink" ([layer]
[head][T]: the sink's share of each query row, 0 in sinks_off) and, where RoPE is on, "inv_freq" and
"attention_factor"; Llama 4's add "inv_freq" where RoPE is on and "temperature_scales" [T] where the
temperature tuning is. "layers" per layer: GPT-OSS rope (half), its window, sinks, rope_scaling and
attention_factor; Llama 4 rope (interleaved, chunk, qk_norm, rope_scaling) or none (temperature
{floor_scale, attn_scale}).

Self-checks: rows (+ the sink's share) sum to 1, masked keys exactly 0, visible keys > 0, every case
differs from base; the MXFP4 decode by hand, and the two GPT-OSS files decoded against each other;
the sink attention against a loop over raw scores; both MoEs against HF's batched all-experts form;
no router near-tie (gap > 0.05 at the top-k cut in every case); the SwiGLU clamp hit on both sides;
the YaRN ramp part kept, part scaled, part blended; and the logits move when the YaRN factor,
truncate, the clamp, the gate/up interleave, the temperature, the qk norm or the pair layout is
taken away.
"""
import json
import math
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402
import make_family_reference as mf  # noqa: E402

T = mm.T
normal = mm.normal
FOLDERS = ["gpt_oss", "gpt_oss_bf16", "llama4", "llama4_mm", "bad_mxfp4_scales", "bad_mxfp4_dtype"]
# safetensors' unsigned bytes: mm's writer looks dtypes up in this table (MXFP4 blocks and scales).
mm.NP_OF.setdefault("U8", "u1")

# integrations/mxfp4.py FP4_VALUES: E2M1 by code 0 … 15.
FP4_VALUES = [+0.0, +0.5, +1.0, +1.5, +2.0, +3.0, +4.0, +6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
SWIGLU_LIMIT, SWIGLU_ALPHA = 7.0, 1.702
MARGINS = []  # router logit gaps at the top-k cut, every case


# ---- Shared pieces ------------------------------------------------------------------------------


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def top_k(row, k):
    """The k largest entries, largest first (torch.topk's order; no ties here). Records the gap
    between the k-th and the next, so that a near-tie (a float32 reader might choose otherwise) fails."""
    idx = np.argsort(-row, kind="stable")
    if len(row) > k:
        MARGINS.append(float(row[idx[k - 1]] - row[idx[k]]))
    return idx[:k]


def chunk_visible(n, chunk):
    """[n, n] bool: causal, and (chunked) query and key in the same chunk of `chunk` positions."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    ok = j <= i
    return ok if chunk is None else ok & (i // chunk == j // chunk)


def masked_attention(q, k, v, scale, ok, sinks=None):
    """Eager attention with the mask ok [T, T]; sinks [H] (GPT-OSS): one more logit per head in
    every row's softmax, dropped afterwards. q [T, H, d]; k, v [T, G, d], head h reads kv head h // (H/G).
    Returns (output [T, H·d], weights [H, T, T] exactly 0 where masked, sink share [H, T])."""
    Tq, H, d = q.shape
    rep = H // k.shape[1]
    kh, vh = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    s = np.where(ok[None], np.einsum("thd,shd->hts", q, kh) * scale, -np.inf)
    if sinks is None:
        w, share = mm.softmax(s, axis=-1), np.zeros((H, Tq))
    else:
        column = np.broadcast_to(np.asarray(sinks, dtype=np.float64)[:, None, None], (H, Tq, 1))
        full = mm.softmax(np.concatenate([s, column], axis=-1), axis=-1)
        w, share = full[..., :-1], full[..., -1]
    return np.einsum("hts,shd->thd", w, vh).reshape(Tq, H * d), w, share


def yarn_inv_freq(base, dim, scaling):
    """_compute_yarn_parameters: (inv_freq, attention factor, ramp per pair: 0 = the original
    frequency kept, 1 = divided by factor). truncate false: the correction dims stay fractional."""
    factor, original = scaling["factor"], scaling["original_max_position_embeddings"]
    beta_fast, beta_slow = scaling.get("beta_fast") or 32, scaling.get("beta_slow") or 1

    def correction_dim(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if scaling.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # HF: prevent singularity
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    extrapolation = 1.0 - ramp
    inv = 1.0 / (factor * pos_freqs) * ramp + 1.0 / pos_freqs * extrapolation
    attention_factor = scaling.get("attention_factor") or (0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0)
    return inv, attention_factor, ramp


def check_margins(name):
    """No router near-tie in any case: the chosen experts hold in float32 and BF16 activations too."""
    assert MARGINS and min(MARGINS) > 0.05, (name, min(MARGINS))
    print(f"  {name}: smallest router gap at the top-k cut {min(MARGINS):.4f} over {len(MARGINS)} choices")
    MARGINS.clear()


def check_design_cases(name, cases, visibles):
    """Each row's weights + the sink's share sum to 1, masked keys exactly 0, visible keys > 0
    (visibles[case][layer]: the mask the case used), and every case differs from base."""
    for cname, c in cases.items():
        a = c["attention"]
        share = c.get("sink", np.zeros(a.shape[:-1]))
        assert np.all(np.abs(a.sum(axis=-1) + share - 1.0) < 1e-12), (name, cname)
        for layer, ok in enumerate(visibles[cname]):
            assert np.all(a[layer][:, ~ok] == 0.0), (name, cname, layer, "masked key not 0")
            assert np.all(a[layer][:, ok] > 0.0), (name, cname, layer, "visible key 0")
        assert np.all(np.isfinite(c["logits"])) and math.isfinite(c["loss"]), (name, cname)
        if cname != "base":
            diff = np.max(np.abs(c["logits"] - cases["base"]["logits"]))
            assert diff > 1e-3, (name, cname, "no different from base", diff)


# ---- GPT-OSS: MXFP4 ------------------------------------------------------------------------------


def random_mxfp4(rs, E, rows, cols, exponents):
    """Random MXFP4 for a weight [E, rows (out), cols (in)]: blocks U8 [E, rows, cols/32, 16], two
    codes a byte (the even input in the low nibble), and scales U8 [E, rows, cols/32], 127 + an
    exponent drawn from `exponents`. Every value is exact in BF16."""
    codes = rs.randint(0, 16, size=(E, rows, cols)).astype(np.uint8)
    blocks = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8).reshape(E, rows, cols // 32, 16)
    scales = (127 + rs.choice(exponents, size=(E, rows, cols // 32))).astype(np.uint8)
    return blocks, scales


def mxfp4_decode(blocks, scales):
    """convert_moe_packed_tensors: [E, rows, G, 16] bytes and [E, rows, G] scales → [E, cols, rows]
    (the input dimension first, as GptOssExperts uses it)."""
    lut = np.array(FP4_VALUES, dtype=np.float64)
    vals = np.empty(blocks.shape[:-1] + (32,), dtype=np.float64)
    vals[..., 0::2] = lut[blocks & 0x0F]
    vals[..., 1::2] = lut[blocks >> 4]
    vals = vals * np.exp2(scales.astype(np.int64) - 127)[..., None]
    E, rows, G = scales.shape
    return vals.reshape(E, rows, G * 32).transpose(0, 2, 1)


def check_mxfp4():
    """A second computation of the decode, by hand: byte 0x7A = codes 0xA (−1.0, first) and 0x7
    (+6.0); scale 125 = ×2^−2."""
    blocks = np.zeros((1, 1, 1, 16), dtype=np.uint8)
    blocks[0, 0, 0, 1] = 0x7A
    got = mxfp4_decode(blocks, np.full((1, 1, 1), 125, dtype=np.uint8))[0, :, 0]
    assert got[2] == -0.25 and got[3] == 1.5 and np.all(got[[0, 1] + list(range(4, 32))] == 0.0), got
    rs = np.random.RandomState(5)
    b, s = random_mxfp4(rs, 2, 3, 64, [-3, -1])
    w = mxfp4_decode(b, s)  # [E, 64 in, 3 out]
    for e, o, i in [(1, 2, 37), (0, 1, 0), (1, 0, 63)]:
        byte, shift = b[e, o, i // 32, (i % 32) // 2], 4 * (i % 2)
        want = FP4_VALUES[(int(byte) >> shift) & 15] * 2.0 ** (int(s[e, o, i // 32]) - 127)
        assert w[e, i, o] == want, (e, o, i)


# ---- GPT-OSS: weights and forward ----------------------------------------------------------------


def gpt_oss_attention_weights(rs, st, pre, c):
    n, H, G, d = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
    p = {"ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0))}
    # Small q and k (YaRN's factor multiplies both), so that scores are of the sinks' size.
    for proj, rows, std in [("q", H * d, 0.12), ("k", G * d, 0.12), ("v", G * d, 0.1)]:
        p[proj] = st.add(pre + f"self_attn.{proj}_proj.weight", normal(rs, (rows, n), std))
        p[proj + "_b"] = st.add(pre + f"self_attn.{proj}_proj.bias", normal(rs, (rows,), 0.1))
    p["o"] = st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1))
    p["o_b"] = st.add(pre + "self_attn.o_proj.bias", normal(rs, (n,), 0.1))
    # A spread of sink logits, so that the sink's share differs from head to head.
    p["sinks"] = st.add(pre + "self_attn.sinks", normal(rs, (H,), 1.5))
    return p


def gpt_oss_experts(rs, c):
    """One layer's experts: the MXFP4 bytes and the BF16 biases (raw and values). Scales chosen
    so that gate_up (with its bias) passes the SwiGLU limit 7 now and then."""
    n, I, E = c["hidden"], c["inter"], c["experts"]
    gu_blocks, gu_scales = random_mxfp4(rs, E, 2 * I, n, [-5, -4, -3])
    dn_blocks, dn_scales = random_mxfp4(rs, E, n, I, [-7, -6, -5])
    gu_bias_raw, gu_bias = mm.stored(normal(rs, (E, 2 * I), 2.5), "BF16")
    dn_bias_raw, dn_bias = mm.stored(normal(rs, (E, n), 0.1), "BF16")
    return {"gu_blocks": gu_blocks, "gu_scales": gu_scales, "dn_blocks": dn_blocks, "dn_scales": dn_scales,
            "gu_bias_raw": gu_bias_raw, "dn_bias_raw": dn_bias_raw, "gate_up_b": gu_bias, "down_b": dn_bias,
            "gate_up": mxfp4_decode(gu_blocks, gu_scales), "down": mxfp4_decode(dn_blocks, dn_scales)}


def gpt_oss_weights(rs, c, V):
    st = mm.Store("BF16")
    n, E = c["hidden"], c["experts"]
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(c["layers"]):
        pre = f"model.layers.{i}."
        p = gpt_oss_attention_weights(rs, st, pre, c)
        p["ln_post"] = st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))
        p["router"] = st.add(pre + "mlp.router.weight", normal(rs, (E, n), 0.12))
        p["router_b"] = st.add(pre + "mlp.router.bias", normal(rs, (E,), 0.3))
        p["experts"] = gpt_oss_experts(rs, c)
        W["layers"].append(p)
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    return st, W


def gpt_oss_expert_tensors(W, mxfp4):
    """The experts as the Hub's files hold them (mxfp4) or as a dequantized save_pretrained does."""
    out = []
    for i, p in enumerate(W["layers"]):
        pre, ex = f"model.layers.{i}.mlp.experts.", p["experts"]
        if mxfp4:
            out += [(pre + "gate_up_proj_blocks", "U8", ex["gu_blocks"]), (pre + "gate_up_proj_scales", "U8", ex["gu_scales"]),
                    (pre + "down_proj_blocks", "U8", ex["dn_blocks"]), (pre + "down_proj_scales", "U8", ex["dn_scales"])]
        else:
            for key, name in [("gate_up", "gate_up_proj"), ("down", "down_proj")]:
                raw, value = mm.stored(ex[key].astype(np.float32), "BF16")
                assert np.array_equal(value, ex[key]), "an MXFP4 value not exact in BF16"
                out.append((pre + name, "BF16", raw))
        out += [(pre + "gate_up_proj_bias", "BF16", ex["gu_bias_raw"]), (pre + "down_proj_bias", "BF16", ex["dn_bias_raw"])]
    return out


def gpt_oss_expert(x, ex, e, limit):
    """GptOssExperts for one token and expert e; also the count of clamped gate and up values."""
    gate_up = x @ ex["gate_up"][e] + ex["gate_up_b"][e]
    gate, up = gate_up[0::2], gate_up[1::2]
    clamped = (int(np.sum(gate > limit)), int(np.sum(np.abs(up) > limit)))
    gate = np.minimum(gate, limit)
    up = np.clip(up, -limit, limit)
    glu = gate * sigmoid(gate * SWIGLU_ALPHA)
    return ((up + 1.0) * glu) @ ex["down"][e] + ex["down_b"][e], clamped


def gpt_oss_moe(h, p, c, stats):
    """GptOssMLP: router logits with bias, the top k (largest first), softmax over those k."""
    logits = mm.linear(h, p["router"], p["router_b"])
    out, routes = np.zeros_like(h), []
    for t in range(h.shape[0]):
        idx = top_k(logits[t], c["top"])
        weights = mm.softmax(logits[t, idx])
        routes.append([[int(e), float(w)] for e, w in zip(idx, weights)])
        for e, w in zip(idx, weights):
            y, clamped = gpt_oss_expert(h[t], p["experts"], e, c["limit"])
            out[t] += w * y
            stats["gate"] += clamped[0]
            stats["up"] += clamped[1]
            stats["values"] += len(p["experts"]["gate_up_b"][e]) // 2
    return out, routes


def gpt_oss_forward(W, c, ids, rope, windows, sinks_on, trace=None):
    """GptOssForCausalLM. rope: None (no RoPE) or (inv_freq, attention factor); windows: per layer.
    Returns (attention, logits, sink shares, routes); trace (a dict) gets the MLP inputs and clamp counts."""
    H, G, d, eps, n = c["heads"], c["kv_heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    x = W["embed"][ids]
    attn, shares, routes, stats = [], [], [], {"gate": 0, "up": 0, "values": 0}
    for layer, p in enumerate(W["layers"]):
        h = mm.rms_norm(x, p["ln_in"], eps)
        q = mm.linear(h, p["q"], p["q_b"]).reshape(n, H, d)
        k = mm.linear(h, p["k"], p["k_b"]).reshape(n, G, d)
        v = mm.linear(h, p["v"], p["v_b"]).reshape(n, G, d)
        if rope is not None:
            q, k = mf.rope(q, rope[0], pos, "half", scale=rope[1]), mf.rope(k, rope[0], pos, "half", scale=rope[1])
        out, w, share = masked_attention(q, k, v, d ** -0.5, mf.visible(n, windows[layer]),
                                         p["sinks"] if sinks_on else None)
        attn.append(w)
        shares.append(share)
        x = x + mm.linear(out, p["o"], p["o_b"])
        h = mm.rms_norm(x, p["ln_post"], eps)
        if trace is not None:
            trace.setdefault("mlp_in", []).append(h)
        m, r = gpt_oss_moe(h, p, c, stats)
        routes.append(r)
        x = x + m
    if trace is not None:
        trace["clamped"] = stats
    return np.array(attn), mm.linear(mm.rms_norm(x, W["norm"], eps), W["lm_head"]), np.array(shares), routes


# ---- GPT-OSS: second computations ---------------------------------------------------------------


def gpt_oss_moe_dense(h, p, top):
    """GptOssExperts' batched inference form: every expert on every token, weighted by the dense
    router_scores (zero off the top k), summed; gate/up split by reshaping to pairs."""
    ex = p["experts"]
    logits = mm.linear(h, p["router"], p["router_b"])
    scores = np.zeros_like(logits)
    for t in range(h.shape[0]):
        idx = np.argsort(-logits[t])[:top]
        e_x = np.exp(logits[t, idx] - logits[t, idx].max())
        scores[t, idx] = e_x / e_x.sum()
    gate_up = np.einsum("tn,enk->etk", h, ex["gate_up"]) + ex["gate_up_b"][:, None, :]
    pairs = gate_up.reshape(gate_up.shape[0], gate_up.shape[1], -1, 2)
    gate, up = np.minimum(pairs[..., 0], SWIGLU_LIMIT), np.clip(pairs[..., 1], -SWIGLU_LIMIT, SWIGLU_LIMIT)
    y = np.einsum("eti,ein->etn", (up + 1.0) * gate * sigmoid(SWIGLU_ALPHA * gate), ex["down"]) + ex["down_b"][:, None, :]
    return np.einsum("te,etn->tn", scores, y)


def gpt_oss_checks(W, c, ids, rope, windows, cases):
    """The sink share as 1 − the row sum, spread across heads; the MoE by the batched form; the
    clamp hit on both sides."""
    trace = {}
    attn, _, shares, _ = gpt_oss_forward(W, c, ids, rope, windows, True, trace)
    assert np.allclose(shares, cases["base"]["sink"], rtol=0, atol=0)
    assert np.all(np.abs(shares - (1.0 - attn.sum(axis=-1))) < 1e-12)
    for layer, p in enumerate(W["layers"]):
        assert np.all(shares[layer] > 0.0)
        h = trace["mlp_in"][layer]
        direct, _ = gpt_oss_moe(h, p, c, {"gate": 0, "up": 0, "values": 0})
        assert np.allclose(direct, gpt_oss_moe_dense(h, p, c["top"]), rtol=1e-12, atol=1e-12)
    head_means = shares.mean(axis=-1)
    assert np.ptp(head_means) > 0.2 and 0.05 < head_means.mean() < 0.8, ("sink shares all alike", head_means)
    stats = trace["clamped"]
    assert 0 < stats["gate"] < stats["values"] and 0 < stats["up"] < stats["values"], stats
    return stats


def check_sink_attention():
    """masked_attention with sinks against a loop over raw scores: share = e^sink / (e^sink + Σ_visible e^s_j),
    weight_j = e^s_j / (the same sum), output = Σ_j weight_j·v_j; GQA head h reads kv head h // 2."""
    rs = np.random.RandomState(7)
    q, k, v = rs.standard_normal((6, 4, 8)), rs.standard_normal((6, 2, 8)), rs.standard_normal((6, 2, 8))
    sinks, ok = rs.standard_normal(4) * 2.0, mf.visible(6, 3)
    out, w, share = masked_attention(q, k, v, 0.3, ok, sinks)
    for h in range(4):
        for i in range(6):
            keys = [j for j in range(6) if ok[i, j]]
            e = {j: math.exp(0.3 * float(q[i, h] @ k[j, h // 2])) for j in keys}
            z = math.exp(sinks[h]) + sum(e.values())
            assert abs(share[h, i] - math.exp(sinks[h]) / z) < 1e-14
            assert all(abs(w[h, i, j] - (e[j] / z if j in e else 0.0)) < 1e-14 for j in range(6))
            want = sum(e[j] / z * v[j, h // 2] for j in keys)
            assert np.allclose(out[i, h * 8:(h + 1) * 8], want, rtol=0, atol=1e-14)


# ---- GPT-OSS: folders and cases ------------------------------------------------------------------


def gpt_oss_config(tok, V, c, types, scaling, theta, mxfp4):
    """As openai/gpt-oss-20b's config.json (sizes cut down); the BF16 folder as transformers saves
    the model dequantized (no quantization_config, torch_dtype bfloat16)."""
    config = {
        "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
        "eos_token_id": tok.special_id, "experts_per_token": c["top"], "head_dim": c["head_dim"], "hidden_act": "silu",
        "hidden_size": c["hidden"], "initial_context_length": scaling["original_max_position_embeddings"],
        "initializer_range": 0.02, "intermediate_size": c["inter"], "layer_types": types,
        "max_position_embeddings": int(scaling["factor"] * scaling["original_max_position_embeddings"]),
        "model_type": "gpt_oss", "num_attention_heads": c["heads"], "num_experts_per_tok": c["top"],
        "num_hidden_layers": c["layers"], "num_key_value_heads": c["kv_heads"], "num_local_experts": c["experts"],
        "output_router_logits": False, "pad_token_id": tok.special_id, "rms_norm_eps": c["eps"], "rope_scaling": scaling,
        "rope_theta": theta, "router_aux_loss_coef": 0.9, "sliding_window": c["window"], "swiglu_limit": SWIGLU_LIMIT,
        "tie_word_embeddings": False, "transformers_version": "4.55.0.dev0", "use_cache": True, "vocab_size": V,
    }
    if mxfp4:
        config["quantization_config"] = {
            "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"],
            "quant_method": "mxfp4"}
    else:
        config["torch_dtype"] = "bfloat16"
    return dict(sorted(config.items()))


def gpt_oss_cases(W, c, ids, theta, scaling, sliding):
    """The five cases; returns (cases, masks per case and layer, base rope)."""
    d = c["head_dim"]
    windows = [c["window"] if s else None for s in sliding]
    inv, factor, _ = yarn_inv_freq(theta, d, scaling)
    inv10k, _, _ = yarn_inv_freq(10000.0, d, scaling)
    specs = [("base", (inv, factor), windows, True), ("rope_off", None, windows, True),
             ("rope_theta_10000", (inv10k, factor), windows, True), ("sinks_off", (inv, factor), windows, False),
             ("window_none", (inv, factor), [None] * len(windows), True)]
    cases, visibles = {}, {}
    for name, rope, wins, sinks_on in specs:
        attn, logits, shares, routes = gpt_oss_forward(W, c, ids, rope, wins, sinks_on)
        extra = {} if rope is None else {"inv_freq": rope[0], "attention_factor": rope[1]}
        cases[name] = mf.case_entry(attn, logits, ids, sink=shares, experts=routes, **extra)
        visibles[name] = [mf.visible(T, w) for w in wins]
    return cases, visibles, (inv, factor), windows


def build_gpt_oss(out):
    rs = np.random.RandomState(90)  # a seed whose routers have no near-tie (check_margins)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 32, "experts": 4, "top": 2, "layers": 2,
         "eps": 1e-5, "window": 4, "limit": SWIGLU_LIMIT}
    theta = 150000.0
    # original 256 with head_dim 16: correction dims 0.16 and 2.49, two pairs between kept and scaled.
    scaling = {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 256,
               "rope_type": "yarn", "truncate": False}
    types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(c["layers"])]
    st, W = gpt_oss_weights(rs, c, V)
    for name, mxfp4 in [("gpt_oss", True), ("gpt_oss_bf16", False)]:
        tensors = st.tensors + gpt_oss_expert_tensors(W, mxfp4)
        folder = os.path.join(out, name)
        mm.write_folder(folder, gpt_oss_config(tok, V, c, types, scaling, theta, mxfp4), tok, {"model.safetensors": tensors})
        mm.check_roundtrip(os.path.join(folder, "model.safetensors"), tensors)
    check_gpt_oss_folders(out, W)
    ids = mm.random_ids(np.random.RandomState(161), tok.size)
    MARGINS.clear()
    cases, visibles, rope, windows = gpt_oss_cases(W, c, ids, theta, scaling, [t == "sliding_attention" for t in types])
    check_design_cases("gpt_oss", cases, visibles)
    check_margins("gpt_oss")
    assert np.all(cases["sinks_off"]["sink"] == 0.0)
    stats = gpt_oss_checks(W, c, ids, rope, windows, cases)
    check_yarn(theta, c["head_dim"], scaling)
    gpt_oss_sensitivity(W, c, ids, theta, scaling, windows, cases["base"]["logits"])
    layers = [mf.layer_info("rope", w, theta, c["head_dim"], rope_style="half", sinks=True, rope_scaling=scaling,
                            attention_factor=rope[1]) for w in windows]
    for name in ["gpt_oss", "gpt_oss_bf16"]:
        mf.write_reference(out, name, ids, tok, layers, cases)
    s = cases["base"]["sink"]
    print(f"gpt_oss, gpt_oss_bf16: base loss {cases['base']['loss']:.4f}, sink share {s.min():.3f}…{s.max():.3f}, "
          f"clamped gate {stats['gate']} / up {stats['up']} of {stats['values']}, "
          f"layer 0 position 0 experts {cases['base']['experts'][0][0]}")


def gpt_oss_sensitivity(W, c, ids, theta, scaling, windows, base_logits):
    """What a reader could get wrong changes the logits: the YaRN attention factor left out, the
    correction range truncated, the SwiGLU clamp left out, the interleaved gate/up read as halves."""
    inv, factor, _ = yarn_inv_freq(theta, c["head_dim"], scaling)
    inv_truncated, _, _ = yarn_inv_freq(theta, c["head_dim"], dict(scaling, truncate=True))
    variants = {"no YaRN factor": (W, dict(c), (inv, 1.0)), "truncate": (W, dict(c), (inv_truncated, factor)),
                "no clamp": (W, dict(c, limit=np.inf), (inv, factor)), "gate/up halves": (halves(W), dict(c), (inv, factor))}
    diffs = {}
    for name, (w, c_, rope) in variants.items():
        logits = gpt_oss_forward(w, c_, ids, rope, windows, True)[1]
        diffs[name] = float(np.max(np.abs(logits - base_logits)))
        assert diffs[name] > 1e-3, (name, diffs[name])
    print("  gpt_oss: max |Δ logits| if " + ", ".join(f"{k} {v:.3f}" for k, v in diffs.items()))


def halves(W):
    """A copy of W whose experts read gate_up as [gate | up] halves (Llama 4's split), not interleaved."""
    out = dict(W, layers=[])
    for p in W["layers"]:
        ex = dict(p["experts"])
        I = ex["gate_up"].shape[2] // 2
        for key in ("gate_up", "gate_up_b"):
            order = np.stack([np.arange(I), np.arange(I, 2 * I)], axis=-1).reshape(-1)  # 0, I, 1, I+1, …
            ex[key] = np.take(ex[key], order, axis=-1)
        out["layers"].append(dict(p, experts=ex))
    return out


def check_gpt_oss_folders(out, W):
    """The two folders as files: gpt_oss's blocks and scales, decoded, equal gpt_oss_bf16's experts
    and the values the reference computes with."""
    q = mm.read_safetensors(os.path.join(out, "gpt_oss", "model.safetensors"))
    b = mm.read_safetensors(os.path.join(out, "gpt_oss_bf16", "model.safetensors"))
    for i, p in enumerate(W["layers"]):
        pre = f"model.layers.{i}.mlp.experts."
        for key, name in [("gate_up", "gate_up_proj"), ("down", "down_proj")]:
            got = mxfp4_decode(q[pre + name + "_blocks"].astype(np.uint8), q[pre + name + "_scales"].astype(np.uint8))
            assert np.array_equal(got, b[pre + name]) and np.array_equal(got, p["experts"][key]), (i, name)
            assert np.array_equal(q[pre + name + "_bias"], b[pre + name + "_bias"])


def check_yarn(theta, d, scaling):
    """The ramp mixes (neither all kept nor all scaled, some pairs between), and truncate matters."""
    inv, factor, ramp = yarn_inv_freq(theta, d, scaling)
    assert ramp[0] == 0.0 and ramp[-1] == 1.0 and np.sum((ramp > 0) & (ramp < 1)) >= 2, ramp
    assert abs(factor - (0.1 * math.log(32.0) + 1.0)) < 1e-15
    base = mm.rope_default_inv_freq(theta, d)
    assert inv[0] == base[0] and np.allclose(inv[-1], base[-1] / 32.0, rtol=1e-15)
    truncated, _, _ = yarn_inv_freq(theta, d, dict(scaling, truncate=True))
    assert np.max(np.abs(truncated - inv) / inv) > 1e-3, "truncate changes nothing here"


# ---- Llama 4 -------------------------------------------------------------------------------------


def l2_norm(x, eps):
    """Llama4TextL2Norm: x·rsqrt(mean(x²) + eps) over the head dimension, no weight."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


def temperature_scales(n, floor_scale, attn_scale):
    """Per position p: log1p(floor((p + 1) / floor_scale))·attn_scale + 1."""
    return np.log1p(np.floor((np.arange(n) + 1.0) / floor_scale)) * attn_scale + 1.0


def llama4_moe(h, p, c):
    """Llama4TextMoe: the top k by router logit, sigmoid scores; each chosen expert reads x × score;
    gate_up chunk(2) (gate first half); plus the shared expert on x."""
    logits = mm.linear(h, p["router"])
    out, routes, I = mm.llama_mlp(h, p["shared"]), [], c["inter"]
    for t in range(h.shape[0]):
        idx = top_k(logits[t], c["top"])
        scores = sigmoid(logits[t, idx])
        routes.append([[int(e), float(s)] for e, s in zip(idx, scores)])
        for e, s in zip(idx, scores):
            gate_up = (h[t] * s) @ p["gate_up"][e]
            out[t] += (mm.silu(gate_up[:I]) * gate_up[I:]) @ p["down"][e]
    return out, routes


def llama4_moe_dense(h, p, c):
    """Second computation, Llama4TextMoe's own form: scores −inf off the top k before the sigmoid
    (so 0), every expert run on x × its score, the outputs summed, the shared expert added."""
    logits = mm.linear(h, p["router"])
    masked = np.full_like(logits, -np.inf)
    for t in range(h.shape[0]):
        idx = np.argsort(-logits[t])[:c["top"]]
        masked[t, idx] = logits[t, idx]
    scores = sigmoid(masked)
    routed_in = scores.T[:, :, None] * h[None]  # [E, T, hidden]
    gate_up = np.einsum("etn,enk->etk", routed_in, p["gate_up"])
    gate, up = np.split(gate_up, 2, axis=-1)
    return mm.llama_mlp(h, p["shared"]) + np.einsum("eti,ein->tn", up * mm.silu(gate), p["down"])


def llama4_attention(p, h, c, layer, inv_freq, chunk, temperature):
    """Llama4TextAttention: RoPE layers rotate (interleaved pairs), then L2-normalize q and k, and
    attend within chunks; NoPE layers scale q by the temperature and attend causally."""
    H, G, d, n = c["heads"], c["kv_heads"], c["head_dim"], h.shape[0]
    q, k = mm.linear(h, p["q"]).reshape(n, H, d), mm.linear(h, p["k"]).reshape(n, G, d)
    v = mm.linear(h, p["v"]).reshape(n, G, d)
    use_rope = c["no_rope_layers"][layer] == 1
    if use_rope:
        if inv_freq is not None:
            pos = np.arange(n)
            style = c.get("rope_style", "interleaved")
            q, k = mf.rope(q, inv_freq, pos, style), mf.rope(k, inv_freq, pos, style)
        if c["qk_norm"]:
            q, k = l2_norm(q, c["eps"]), l2_norm(k, c["eps"])
    elif temperature:
        q = q * temperature_scales(n, c["floor_scale"], c["attn_scale"])[:, None, None]
    out, w, _ = masked_attention(q, k, v, d ** -0.5, chunk_visible(n, chunk if use_rope else None))
    return mm.linear(out, p["o"]), w


def llama4_forward(W, c, ids, inv_freq, chunk, temperature, trace=None):
    """Llama4ForCausalLM. inv_freq None: no RoPE on any layer; chunk None: no chunks."""
    eps = c["eps"]
    x = W["embed"][ids]
    attn, routes = [], []
    for layer, p in enumerate(W["layers"]):
        o, w = llama4_attention(p, mm.rms_norm(x, p["ln_in"], eps), c, layer, inv_freq, chunk, temperature)
        attn.append(w)
        x = x + o
        h = mm.rms_norm(x, p["ln_post"], eps)
        if trace is not None:
            trace.append(h)
        if "router" in p:
            m, r = llama4_moe(h, p, c)
        else:
            m, r = mm.llama_mlp(h, p), []
        routes.append(r)
        x = x + m
    return np.array(attn), mm.linear(mm.rms_norm(x, W["norm"], eps), W["lm_head"]), routes


def llama4_layer_weights(rs, st, pre, c, moe):
    n, H, G, d, I, E = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["inter"], c["experts"]
    p = {"ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
         # Small q and k: the NoPE layer has no L2 norm to bound its scores (the RoPE layers' have).
         "q": st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), 0.1)),
         "k": st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), 0.1)),
         "v": st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.1)),
         "o": st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1)),
         "ln_post": st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))}
    ff = pre + "feed_forward."
    if not moe:
        for key, shape in [("gate", (c["inter_mlp"], n)), ("up", (c["inter_mlp"], n)), ("down", (n, c["inter_mlp"]))]:
            p[key] = st.add(ff + f"{key}_proj.weight", normal(rs, shape, 0.1))
        return p
    p["router"] = st.add(ff + "router.weight", normal(rs, (E, n), 0.1))
    p["gate_up"] = st.add(ff + "experts.gate_up_proj", normal(rs, (E, n, 2 * I), 0.2))
    p["down"] = st.add(ff + "experts.down_proj", normal(rs, (E, I, n), 0.2))
    p["shared"] = {key: st.add(ff + f"shared_expert.{key}_proj.weight", normal(rs, shape, 0.1))
                   for key, shape in [("gate", (I, n)), ("up", (I, n)), ("down", (n, I))]}
    return p


def llama4_weights(rs, c, V):
    st = mm.Store("BF16")
    n = c["hidden"]
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(c["layers"]):
        W["layers"].append(llama4_layer_weights(rs, st, f"model.layers.{i}.", c, i in c["moe_layers"]))
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    return st, W


def llama4_text_config(tok, V, c, theta, scaling):
    """As meta-llama/Llama-4-Scout-17B-16E's text_config (sizes cut down; moe_layers and the
    interleave step as Maverick's, every second layer)."""
    return {
        "attention_bias": False, "attention_chunk_size": c["chunk"], "attention_dropout": 0.0,
        "attn_scale": c["attn_scale"], "attn_temperature_tuning": True, "bos_token_id": tok.special_id,
        "eos_token_id": [tok.special_id], "floor_scale": c["floor_scale"], "head_dim": c["head_dim"], "hidden_act": "silu",
        "hidden_size": c["hidden"], "initializer_range": 0.02, "interleave_moe_layer_step": 2,
        "intermediate_size": c["inter"], "intermediate_size_mlp": c["inter_mlp"], "max_position_embeddings": 4096,
        "model_type": "llama4_text", "moe_layers": c["moe_layers"], "no_rope_layers": c["no_rope_layers"],
        "num_attention_heads": c["heads"], "num_experts_per_tok": c["top"], "num_hidden_layers": c["layers"],
        "num_key_value_heads": c["kv_heads"], "num_local_experts": c["experts"], "output_router_logits": False,
        "pad_token_id": tok.special_id, "rms_norm_eps": c["eps"], "rope_scaling": scaling, "rope_theta": theta,
        "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0, "torch_dtype": "bfloat16", "use_cache": True,
        "use_qk_norm": c["qk_norm"], "vocab_size": V,
    }


def write_llama4_folders(out, tok, V, c, theta, scaling, st):
    """llama4: Llama4ForCausalLM as transformers 4.5x saves it (with layer_types). llama4_mm: the
    wrapper as the Hub's Scout files (text_config with attn_temperature_tuning 4, truthy as Scout's
    is; no layer_types; language_model.* names; vision tensors)."""
    text = llama4_text_config(tok, V, c, theta, scaling)
    types = ["chunked_attention" if r else "full_attention" for r in c["no_rope_layers"]]
    causal = dict(text, architectures=["Llama4ForCausalLM"], layer_types=types, tie_word_embeddings=False)
    mm.write_folder(os.path.join(out, "llama4"), dict(sorted(causal.items())), tok, {"model.safetensors": st.tensors})
    mm.check_roundtrip(os.path.join(out, "llama4", "model.safetensors"), st.tensors)
    wrapper = {
        "architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 3, "eoi_token_index": 4,
        "image_token_index": 5, "model_type": "llama4", "text_config": dict(text, attn_temperature_tuning=4),
        "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
        "vision_config": {"hidden_size": 7, "image_size": 4, "model_type": "llama4_vision_model", "num_channels": 3,
                          "num_hidden_layers": 1, "patch_size": 2, "vision_output_dim": 5}}
    renamed = [("language_model." + name, dt, raw) for name, dt, raw in st.tensors]
    vision = [(name, "BF16", mm.stored(normal(np.random.RandomState(9), shape, 0.1), "BF16")[0])
              for name, shape in [("vision_model.patch_embedding.linear.weight", (7, 12)),
                                  ("multi_modal_projector.linear_1.weight", (c["hidden"], 5))]]
    mm.write_folder(os.path.join(out, "llama4_mm"), wrapper, tok, {"model.safetensors": vision + renamed})
    mm.check_roundtrip(os.path.join(out, "llama4_mm", "model.safetensors"), vision + renamed)


def llama4_cases(W, c, ids, theta, scaling):
    d, rope_layers = c["head_dim"], [r == 1 for r in c["no_rope_layers"]]
    inv, kinds = mm.rope_llama3_inv_freq(mm.rope_default_inv_freq(theta, d), scaling)
    assert {"kept", "scaled", "blended"} <= set(kinds), kinds
    inv10k, _ = mm.rope_llama3_inv_freq(mm.rope_default_inv_freq(10000.0, d), scaling)
    specs = [("base", inv, c["chunk"], True), ("rope_off", None, c["chunk"], False),
             ("rope_theta_10000", inv10k, c["chunk"], True), ("chunk_none", inv, None, True), ("chunk_2", inv, 2, True)]
    cases, visibles = {}, {}
    for name, inv_, chunk, temperature in specs:
        attn, logits, routes = llama4_forward(W, c, ids, inv_, chunk, temperature)
        extra = {} if inv_ is None else {"inv_freq": inv_}
        if temperature:
            extra["temperature_scales"] = temperature_scales(T, c["floor_scale"], c["attn_scale"])
        cases[name] = mf.case_entry(attn, logits, ids, experts=routes, **extra)
        visibles[name] = [chunk_visible(T, chunk if r else None) for r in rope_layers]
    return cases, visibles, inv, kinds


def llama4_checks(W, c, ids, inv, cases):
    """Second computations: the MoE in Llama4TextMoe's dense form; the temperature at p = 3 and 11 by
    hand; q/k rows of unit mean square after the L2 norm; chunk 4 lets query 5 see keys 4 and 5."""
    trace = []
    llama4_forward(W, c, ids, inv, c["chunk"], True, trace)
    for layer, p in enumerate(W["layers"]):
        if "router" in p:
            direct, _ = llama4_moe(trace[layer], p, c)
            assert np.allclose(direct, llama4_moe_dense(trace[layer], p, c), rtol=1e-12, atol=1e-12)
    s = temperature_scales(T, 4, 0.5)
    assert s[2] == 1.0 and abs(s[3] - (1 + 0.5 * math.log(2))) < 1e-15 and abs(s[11] - (1 + 0.5 * math.log(4))) < 1e-15
    x = np.random.RandomState(3).standard_normal((5, 2, 16)) * 3.0
    assert np.allclose(np.mean(l2_norm(x, 0.0) ** 2, axis=-1), 1.0, rtol=1e-12)
    assert [j for j in range(T) if chunk_visible(T, 4)[5, j]] == [4, 5]
    nope = c["no_rope_layers"].index(0)
    assert np.array_equal(cases["chunk_none"]["attention"][nope] > 0, cases["base"]["attention"][nope] > 0)
    llama4_sensitivity(W, c, ids, inv, cases["base"]["logits"])


def llama4_sensitivity(W, c, ids, inv, base_logits):
    """What a reader could get wrong changes the logits: temperature tuning or the qk L2 norm left out,
    the pairs rotated as halves instead of interleaved."""
    diffs = {}
    for name, c_, temperature in [("no temperature", c, False), ("no qk norm", dict(c, qk_norm=False), True),
                                  ("half pairs", dict(c, rope_style="half"), True)]:
        logits = llama4_forward(W, c_, ids, inv, c["chunk"], temperature)[1]
        diffs[name] = float(np.max(np.abs(logits - base_logits)))
        assert diffs[name] > 1e-3, (name, diffs[name])
    print("  llama4: max |Δ logits| if " + ", ".join(f"{k} {v:.3f}" for k, v in diffs.items()))


def build_llama4(out):
    rs = np.random.RandomState(154)  # a seed whose routers have no near-tie (check_margins)
    tok = mm.Tokenizer(special="<|begin_of_text|>", special_in_vocab=False, bos=True)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 32, "inter_mlp": 96, "experts": 4, "top": 1,
         "layers": 4, "eps": 1e-5, "no_rope_layers": [1, 1, 1, 0], "moe_layers": [1, 3], "chunk": 4, "qk_norm": True,
         "floor_scale": 4, "attn_scale": 0.5}
    theta = 500000.0
    # original 64 with head_dim 16: pair 0 kept, pair 1 blended, pairs 2… scaled.
    scaling = {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 64,
               "rope_type": "llama3"}
    st, W = llama4_weights(rs, c, V)
    write_llama4_folders(out, tok, V, c, theta, scaling, st)
    ids = mm.random_ids(np.random.RandomState(162), tok.size, bos=tok.special_id)
    MARGINS.clear()
    cases, visibles, inv, kinds = llama4_cases(W, c, ids, theta, scaling)
    check_design_cases("llama4", cases, visibles)
    check_margins("llama4")
    llama4_checks(W, c, ids, inv, cases)
    temperature = {"floor_scale": c["floor_scale"], "attn_scale": c["attn_scale"]}
    layers = [mf.layer_info("rope", None, theta, c["head_dim"], rope_style="interleaved", chunk=c["chunk"],
                            qk_norm=c["qk_norm"], temperature=None, rope_scaling=scaling) if r else
              mf.layer_info("none", None, None, None, chunk=None, qk_norm=False, temperature=temperature)
              for r in c["no_rope_layers"]]
    for name in ["llama4", "llama4_mm"]:
        mf.write_reference(out, name, ids, tok, layers, cases)
    print(f"llama4, llama4_mm: base loss {cases['base']['loss']:.4f}, llama3 pairs {kinds}, "
          f"layer 1 position 0 experts {cases['base']['experts'][1][0]}")


def write_bad_mxfp4(out):
    """Two copies of gpt_oss whose files lie: layer 0's gate_up scales one block short, and its
    down blocks stored as I8 (not U8). A reader must refuse each naming the tensor."""
    import make_wrapper_reference as mw  # noqa: E402 (the raw safetensors reader and writer)
    src = os.path.join(out, "gpt_oss")
    header, data = mw.read_raw_safetensors(os.path.join(src, "model.safetensors"))
    for name, change in [("bad_mxfp4_scales", "model.layers.0.mlp.experts.gate_up_proj_scales"),
                         ("bad_mxfp4_dtype", "model.layers.0.mlp.experts.down_proj_blocks")]:
        dst = os.path.join(out, name)
        shutil.copytree(src, dst)
        bad = json.loads(json.dumps(header))
        if name == "bad_mxfp4_scales":
            shape = bad[change]["shape"]
            shape[-1] -= 1
            begin = bad[change]["data_offsets"][0]
            bad[change]["data_offsets"][1] = begin + int(np.prod(shape))
        else:
            bad[change]["dtype"] = "I8"
        mw.write_raw_safetensors(os.path.join(dst, "model.safetensors"), bad, data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_design_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    check_mxfp4()
    check_sink_attention()
    build_gpt_oss(out)
    build_llama4(out)
    write_bad_mxfp4(out)
    print(f"{out}: {', '.join(FOLDERS)}")


if __name__ == "__main__":
    main()
