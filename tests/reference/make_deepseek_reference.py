#!/usr/bin/python3
"""Independent references for DeepSeek's multi-head latent attention (MLA) with decoupled RoPE.

Written from Hugging Face transformers' published definitions, NOT from PosLab's C++ code. Only
NumPy; every computation is in float64 from the weights exactly as stored (FP8 weights dequantized
block by block first).

  modeling_deepseek_v3 (DeepseekV3ForCausalLM) / modeling_deepseek_v2 (DeepseekV2ForCausalLM):
    Llama's pre-norm block; attention:
      q = q_b_proj(q_a_layernorm(q_a_proj(x)))   (q_lora_rank set: V3)   or   q = q_proj(x)   (V2-Lite)
      q viewed [T, H, qk_nope_head_dim + qk_rope_head_dim]: q_nope = the first nope dims, q_pe the rest
      kv_a_proj_with_mqa(x) = [compressed_kv (kv_lora_rank) | k_pe (qk_rope_head_dim)]: ONE k_pe,
        shared by every head (viewed [B, 1, T, rope] and expanded)
      kv_b_proj(kv_a_layernorm(compressed_kv)) viewed [T, H, nope + v_head_dim]: k_nope first, v after
      RoPE on q_pe and k_pe only. V3 (rope_interleave, default true): apply_rotary_pos_emb_interleave
        permutes x → view(d/2, 2).transpose → [x0, x2, x4, …, x1, x3, …], then rotate_half with
        cos/sin of cat(freqs, freqs): so pair i = dims (2i, 2i + 1) of q_pe / k_pe, frequency θ_i.
        V2: apply_rotary_emb, view_as_complex(x.reshape(d/2, 2)) × freqs_cis: the same pairs
        (2i, 2i + 1) at θ_i. (The original DeepSeek remote code of both permutes as V3 does.)
        rope_interleave false in V3 would pair (i, i + d/2): the case rope_style_half.
      cos and sin (or freqs_cis) × the YaRN attention factor get_mscale(f, mscale) /
        get_mscale(f, mscale_all_dim) when both are set (else get_mscale(f)), get_mscale(s, m) =
        0.1·m·ln(s) + 1 (1 for s <= 1); YaRN frequencies over dim = qk_rope_head_dim (config.head_dim =
        qk_rope_head_dim), correction range floor / ceil over original_max_position_embeddings.
      score = cat(q_nope, q_pe)·cat(k_nope, k_pe) × softmax_scale, softmax_scale = qk_head_dim^-0.5
        (qk_head_dim = nope + rope) × mscale², mscale = get_mscale(factor, mscale_all_dim), when
        rope_scaling has mscale_all_dim; causal mask; softmax; Σ weights × v; o_proj over H × v_head_dim.
      q_a_layernorm and kv_a_layernorm are RMSNorms built without eps: 1e-6 always.
    MLP: layers < first_k_dense_replace a Llama MLP (intermediate_size); the others MoE with
      shared_experts (a Llama MLP of width moe_intermediate_size × n_shared_experts) on every token.
      V3 (DeepseekV3TopkRouter, topk_method noaux_tc): scores = sigmoid(x·gateᵀ); for choosing,
        scores + e_score_correction_bias; group score = the sum of the two largest corrected scores
        of the group; the topk_group best groups kept; the rest masked to 0.0 (masked_fill); the top
        num_experts_per_tok of the result; weights = the UNCORRECTED sigmoid scores of the chosen,
        / (their sum + 1e-20) when norm_topk_prob, × routed_scaling_factor.
        The router runs in float32 (F.linear of x and the weight cast to float32).
      V2 (topk_method greedy): scores = softmax(x·gateᵀ) over all experts, the top k, × routed_scaling_factor
        (norm_topk_prob false: no renormalization; V2's HF class never renormalizes; DeepSeek's own
        V2 code scales only when it does not renormalize, the same thing when norm_topk_prob is false).
      V2's softmax_scale: HF's DeepseekV2Attention had qk_head_dim^-0.5 alone until transformers
        PR 47435 ("Fix yarn mscale_all_dim for DeepSeek v2") added the mscale² that DeepSeek's own code
        and V3 apply; this reference applies it (the case values change by up to 1.0 in the logits
        without it).
  integrations/finegrained_fp8.py (FP8Linear): weight F8_E4M3 [out, in] and weight_scale_inv F32
    [ceil(out/128), ceil(in/128)]; the dequantized weight is the E4M3 value × the scale_inv of its
    128 × 128 block (blocks at the bottom / right edge partial). E4M3FN: bias 7, subnormals for
    exponent 0 (m/8 · 2^-6), no infinities, S.1111.111 (0x7F, 0xFF) NaN, largest 448.

Usage:  /usr/bin/python3 tests/reference/make_deepseek_reference.py OUTDIR

Writes OUTDIR/<folder>/ (config.json, tokenizer.json, model.safetensors) and OUTDIR/<folder>.reference.json:

  deepseek_v3        DeepseekV3ForCausalLM, 3 layers (0 dense, 1-2 MoE: 16 experts in 4 groups of 4,
                     2 groups kept, top 2, 1 shared, norm_topk_prob, routed_scaling_factor 2.5),
                     q_lora_rank 48, YaRN ×4 over original 256 (mscale = mscale_all_dim = 1: cos/sin
                     factor 1, softmax_scale × 1.1386²), every Linear of the layers F8_E4M3 with
                     weight_scale_inv (hidden 160 and intermediate 144: full, right-partial,
                     bottom-partial and corner blocks; scale_inv (1 + m/8)·2^k, not powers of two),
                     quantization_config as DeepSeek-V3's; config.json as the Hub's (type "yarn", no
                     rope_interleave, no head_dim)
  deepseek_v3_bf16   the same numbers in BF16 (no quantization_config, no scale tensors, the
                     correction bias BF16) with config.json as transformers' save_pretrained writes it
                     (rope_scaling with type and rope_type, rope_interleave true, head_dim 8, qk_head_dim 24)
      cases: base, rope_off, rope_theta_1000, rope_style_half
  deepseek_v2_lite   DeepseekV2ForCausalLM, q_lora_rank null (q_proj), 8 experts, softmax greedy top 2,
                     2 shared experts, routed_scaling_factor 2, YaRN ×8 over original 128 with mscale 1
                     ≠ mscale_all_dim 0.707 (cos/sin factor 1.0531, softmax_scale × 1.1470²), BF16;
                     config.json as DeepSeek-V2-Lite's (type "yarn", no head_dim)
      cases: base, rope_off, rope_theta_1000, rope_style_half

  base             the model unchanged
  rope_off         q_pe and k_pe not rotated (and not × the YaRN cos/sin factor); softmax_scale
                   with mscale² kept
  rope_theta_1000  the same rope_scaling on base 1000 (the models' base is 10000)
  rope_style_half  RoPE pairs (i, i + d/2) (rotate_half without the interleave permutation), the
                   same frequencies and factor: what a reader of the wrong convention computes

Each case: "attention" [layer][head][T][T] (softmax weights, exactly 0 above the diagonal);
"score_content" and "score_position" [layer][head][T][T]: q_nope·k_nope × softmax_scale and
q_pe·k_pe × softmax_scale (after RoPE), their sum the score before the causal mask; on and below
the diagonal the plain finite numbers, ABOVE the diagonal (key after query) written as 0.0;
"logits" [T][V]; "loss"; "softmax_scale"; "experts" [layer][T] of [[expert, weight], …] largest
weight first ([] for a dense layer; the weights those the experts' outputs are multiplied by);
"expert_groups" (V3) [layer][T] the kept group indices, ascending ([] for a dense layer);
where RoPE is on, "inv_freq" [qk_rope_head_dim/2] and "attention_factor".

Self-checks: score_content + score_position equals HF's concatenated q·k × scale; the RoPE as a
complex product; rows sum to 1, masked keys exactly 0; every case differs from base; E4M3 bytes
decoded by hand (0x38 = 1, 0xC0 = -2, 0x7E = 448, 0x01 = 2^-9, 0x80 = -0) and the block dequant by
a loop; the FP8 and BF16 files read back to the same weights, the forward run from the files;
both routers against a second, differently written computation, and the MoE against HF's dense
all-experts form; the base case again in float32 (the same experts, logits within 1e-4); no routing
near-tie (every cut of every case: V3's group cut and expert cut, the chosen experts' corrected
scores above the 0.0 of masked groups, V2's top-k cut; margins in logit units > 0.05, see
MARGINS; seeds searched for it, and for routes that the group-limit mistakes change); the YaRN
ramp part kept, part scaled, part blended (and the frequencies as make_design_reference's
yarn_inv_freq computes them); the logits move when softmax_scale loses mscale², the YaRN factor is
dropped, the correction bias enters the weights, the group limit is dropped or the group score is
the max or the sum of all, norm_topk_prob or routed_scaling_factor is ignored, or FP8's scale_inv
is ignored or read per tensor.
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
import make_design_reference as md  # noqa: E402

T = mm.T
normal = mm.normal
FOLDERS = ["deepseek_v3", "deepseek_v3_bf16", "deepseek_v2_lite"]
BLOCK = 128  # quantization_config.weight_block_size [128, 128]
LORA_EPS = 1e-6  # q_a_layernorm / kv_a_layernorm: DeepseekV3RMSNorm(rank), the default eps
FP8_CONFIG = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [BLOCK, BLOCK]}
SPECIAL = "<｜begin▁of▁sentence｜>"
# safetensors' FP8: mm's writer looks dtypes up in this table (one byte each).
mm.NP_OF.setdefault("F8_E4M3", "u1")
RAW_NP = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "F8_E4M3": "u1", "U8": "u1"}
# Routing margins, every cut of every case, as 2δ where δ is the least change of the router logits
# (each moved by at most δ) that could change a choice: V2's logit gap at the top-k cut (as
# make_design_reference's GPT-OSS margin); V3's sigmoid has slope <= 1/4, so an expert-cut gap g of
# corrected scores counts 4g, a group-cut gap (sums of two) 2g, a chosen score's distance from the
# masked groups' 0.0 8g. No cut may be nearer than LOGIT_GAP.
MARGINS = []
LOGIT_GAP = 0.05


# ---- FP8 E4M3FN -----------------------------------------------------------------------------------


def e4m3_decode(codes):
    """E4M3FN bytes → float64: s.eeee.mmm, bias 7; e = 0: (m/8)·2^-6; else (1 + m/8)·2^(e − 7);
    0x7F and 0xFF NaN (no infinities)."""
    c = np.asarray(codes).astype(np.int64)
    e, m = (c >> 3) & 0xF, c & 0x7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1.0 + m / 8.0) * np.exp2(e - 7.0))
    mag = np.where((c & 0x7F) == 0x7F, np.nan, mag)
    return np.where(c & 0x80, -mag, mag)


E4M3_POSITIVE = e4m3_decode(np.arange(0x7F))  # codes 0x00 … 0x7E, increasing, 0 … 448


def e4m3_encode(x):
    """The nearest finite E4M3FN code (magnitudes above 448 clipped); never a NaN code."""
    x = np.asarray(x, dtype=np.float64)
    mag = np.minimum(np.abs(x), 448.0)
    hi = np.clip(np.searchsorted(E4M3_POSITIVE, mag), 1, 0x7E)
    lo = hi - 1
    code = np.where(mag - E4M3_POSITIVE[lo] <= E4M3_POSITIVE[hi] - mag, lo, hi)
    code = np.where((x < 0) & (code != 0), code | 0x80, code)
    return code.astype(np.uint8)


def block_scale_map(scale_inv, rows, cols):
    """[ceil(rows/128), ceil(cols/128)] → [rows, cols]: each weight's block scale."""
    return np.repeat(np.repeat(scale_inv, BLOCK, axis=0), BLOCK, axis=1)[:rows, :cols]


def fp8_dequant(codes, scale_inv):
    """FP8Linear's weight: E4M3 value × the scale_inv of its 128 × 128 block."""
    rows, cols = codes.shape
    assert scale_inv.shape == (-(-rows // BLOCK), -(-cols // BLOCK)), (codes.shape, scale_inv.shape)
    return e4m3_decode(codes) * block_scale_map(scale_inv.astype(np.float64), rows, cols)


def fp8_dequant_loop(codes, scale_inv):
    """Second computation: block by block, partial blocks cut at the edges."""
    out = np.empty(codes.shape)
    for bi in range(scale_inv.shape[0]):
        for bj in range(scale_inv.shape[1]):
            r, s = slice(bi * BLOCK, (bi + 1) * BLOCK), slice(bj * BLOCK, (bj + 1) * BLOCK)
            out[r, s] = e4m3_decode(codes[r, s]) * float(scale_inv[bi, bj])
    return out


def random_fp8(rs, shape, std):
    """A weight [out, in] of about N(0, std²) as FP8: scale_inv per block (1 + m/8)·2^k (4 significant
    bits, so that value × scale has at most 8 and is exact in BF16), bytes the nearest E4M3 code of
    weight / scale. Returns (codes, scale_inv float32, value float64)."""
    rows, cols = shape
    sr, sc = -(-rows // BLOCK), -(-cols // BLOCK)
    k = math.floor(math.log2(std)) - 4  # values around 16 in E4M3 units
    scale = ((8 + rs.randint(0, 8, size=(sr, sc))) / 8.0 * np.exp2(k + rs.randint(-1, 2, size=(sr, sc)))).astype(np.float32)
    full = block_scale_map(scale.astype(np.float64), rows, cols)
    codes = e4m3_encode(std * rs.standard_normal(shape) / full)
    value = fp8_dequant(codes, scale)
    raw, back = mm.stored(value, "BF16")
    assert np.array_equal(back, value), "an FP8 value × scale not exact in BF16"
    return codes, scale, value


def check_e4m3():
    """Bytes decoded by hand, the encoder's round trip, the dequant against the block loop."""
    want = {0x38: 1.0, 0xC0: -2.0, 0x7E: 448.0, 0xFE: -448.0, 0x01: 2.0 ** -9, 0x08: 2.0 ** -6, 0x07: 7 * 2.0 ** -9,
            0x3C: 1.5, 0x40: 2.0, 0x30: 0.5, 0x00: 0.0, 0x4B: 5.5}
    for code, value in want.items():
        assert e4m3_decode(np.uint8(code)) == value, (hex(code), e4m3_decode(np.uint8(code)), value)
    neg_zero = e4m3_decode(np.uint8(0x80))
    assert neg_zero == 0.0 and math.copysign(1.0, float(neg_zero)) < 0
    assert np.isnan(e4m3_decode(np.uint8(0x7F))) and np.isnan(e4m3_decode(np.uint8(0xFF)))
    assert np.sum(np.isnan(e4m3_decode(np.arange(256)))) == 2
    finite = [c for c in range(256) if c not in (0x7F, 0xFF, 0x80)]
    assert np.array_equal(e4m3_encode(e4m3_decode(np.array(finite))), np.array(finite, dtype=np.uint8))
    assert e4m3_encode(1e9) == 0x7E and e4m3_encode(-1e9) == 0xFE and e4m3_encode(1.0 + 1 / 32) == 0x38
    rs = np.random.RandomState(11)
    codes, scale, value = random_fp8(rs, (144, 160), 0.08)
    assert scale.shape == (2, 2) and not np.any(np.isin(codes, [0x7F, 0xFF]))
    assert np.array_equal(value, fp8_dequant_loop(codes, scale))
    # The corner block (rows 128…143, cols 128…159) reads scale [1, 1] only.
    assert value[140, 150] == e4m3_decode(codes[140, 150]) * float(scale[1, 1])
    assert value[5, 150] == e4m3_decode(codes[5, 150]) * float(scale[0, 1])


# ---- Weights: the two V3 files side by side -------------------------------------------------------


class Files:
    """Collects each tensor for the FP8 file and the BF16 file at once; returns the value."""

    def __init__(self):
        self.fp8, self.bf16 = [], []

    def linear(self, rs, name, shape, std):
        codes, scale, value = random_fp8(rs, shape, std)
        self.fp8 += [(name + ".weight", "F8_E4M3", codes), (name + ".weight_scale_inv", "F32", scale)]
        self.bf16.append((name + ".weight", "BF16", mm.stored(value, "BF16")[0]))
        return value

    def plain(self, name, x, fp8_dtype="BF16"):
        """A tensor FP8Linear leaves alone: BF16 in both (fp8_dtype F32: F32 in the FP8 file, as
        DeepSeek-V3 keeps e_score_correction_bias; the value BF16-exact so both files agree)."""
        raw, value = mm.stored(x, "BF16")
        self.bf16.append((name, "BF16", raw))
        self.fp8.append((name, fp8_dtype, value.astype(np.float32) if fp8_dtype == "F32" else raw))
        return value


class Single:
    """One BF16 file (V2-Lite), the same interface."""

    def __init__(self):
        self.st = mm.Store("BF16")

    def linear(self, rs, name, shape, std):
        return self.st.add(name + ".weight", normal(rs, shape, std))

    def plain(self, name, x, fp8_dtype="BF16"):
        return self.st.add(name, x)


def mla_weights(rs, f, c, V):
    """Random DeepSeek weights registered with f in HF's names; the values as a dict."""
    n, H, dn, dr, dv, R, I = c["hidden"], c["heads"], c["nope"], c["rope"], c["v"], c["kv_rank"], c["inter"]
    W = {"embed": f.plain("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(c["layers"]):
        pre, att = f"model.layers.{i}.", f"model.layers.{i}.self_attn."
        p = {"ln_in": f.plain(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0))}
        if c["q_rank"] is None:
            p["q"] = f.linear(rs, att + "q_proj", (H * (dn + dr), n), 0.1)
        else:
            p["q_a"] = f.linear(rs, att + "q_a_proj", (c["q_rank"], n), 0.08)
            p["q_a_ln"] = f.plain(att + "q_a_layernorm.weight", normal(rs, (c["q_rank"],), 0.1, 1.0))
            p["q_b"] = f.linear(rs, att + "q_b_proj", (H * (dn + dr), c["q_rank"]), 0.2)
        p["kv_a"] = f.linear(rs, att + "kv_a_proj_with_mqa", (R + dr, n), 0.09)
        p["kv_a_ln"] = f.plain(att + "kv_a_layernorm.weight", normal(rs, (R,), 0.1, 1.0))
        p["kv_b"] = f.linear(rs, att + "kv_b_proj", (H * (dn + dv), R), 0.25)
        p["o"] = f.linear(rs, att + "o_proj", (n, H * dv), 0.1)
        p["ln_post"] = f.plain(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))
        mlp = pre + "mlp."
        if i < c["dense"]:
            for key, shape in [("gate", (I, n)), ("up", (I, n)), ("down", (n, I))]:
                p[key] = f.linear(rs, mlp + key + "_proj", shape, 0.08)
        else:
            E, M = c["experts"], c["moe_inter"]
            p["router"] = f.plain(mlp + "gate.weight", normal(rs, (E, n), c["router_std"]))
            if c["scoring"] == "sigmoid":
                p["bias"] = f.plain(mlp + "gate.e_score_correction_bias", normal(rs, (E,), c["bias_std"], c["bias_mean"]),
                                    fp8_dtype="F32")
            p["experts"] = [{key: f.linear(rs, mlp + f"experts.{e}.{key}_proj", shape, std)
                             for key, shape, std in [("gate", (M, n), 0.1), ("up", (M, n), 0.1), ("down", (n, M), 0.15)]}
                            for e in range(E)]
            S = M * c["shared"]
            p["shared"] = {key: f.linear(rs, mlp + f"shared_experts.{key}_proj", shape, 0.1)
                           for key, shape in [("gate", (S, n)), ("up", (S, n)), ("down", (n, S))]}
        W["layers"].append(p)
    W["norm"] = f.plain("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = f.plain("lm_head.weight", normal(rs, (V, n), 0.1))
    return W


# ---- Reading the files back -----------------------------------------------------------------------


def read_raw(path):
    """{name: (dtype, raw array as stored)}: F8_E4M3 as uint8 codes, BF16 as uint16 bits."""
    with open(path, "rb") as fh:
        blob = fh.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    out = {}
    for name, info in header.items():
        if name != "__metadata__":
            b, e = info["data_offsets"]
            out[name] = (info["dtype"], np.frombuffer(data[b:e], dtype=RAW_NP[info["dtype"]]).reshape(info["shape"]))
    return out


def file_values(path, scales="blocks"):
    """{name: float64 value}: BF16 / F32 as is; an F8_E4M3 weight dequantized with its
    weight_scale_inv (scales "blocks"), or (for the sensitivity checks) "ignored" (the raw E4M3
    values) or "first" (block [0, 0]'s scale for the whole tensor)."""
    raw = read_raw(path)
    out = {}
    for name, (dtype, a) in raw.items():
        if name.endswith(".weight_scale_inv"):
            assert dtype == "F32" and raw[name[:-len("_scale_inv")]][0] == "F8_E4M3", name
            continue
        if dtype == "F8_E4M3":
            s = raw[name + "_scale_inv"][1].astype(np.float64)
            s = {"blocks": s, "ignored": np.ones_like(s), "first": np.full_like(s, s[0, 0])}[scales]
            out[name] = fp8_dequant(a, s)
        elif dtype == "BF16":
            out[name] = mm.bf16_bits_to_f32(a).astype(np.float64)
        else:
            out[name] = a.astype(np.float64)
    return out


def weights_from_values(vals, c):
    """The forward pass's dict from tensor values by HF's names (the inverse of mla_weights)."""
    g = vals.__getitem__
    W = {"embed": g("model.embed_tokens.weight"), "norm": g("model.norm.weight"), "lm_head": g("lm_head.weight"), "layers": []}
    for i in range(c["layers"]):
        pre, att, mlp = f"model.layers.{i}.", f"model.layers.{i}.self_attn.", f"model.layers.{i}.mlp."
        p = {"ln_in": g(pre + "input_layernorm.weight"), "ln_post": g(pre + "post_attention_layernorm.weight"),
             "kv_a": g(att + "kv_a_proj_with_mqa.weight"), "kv_a_ln": g(att + "kv_a_layernorm.weight"),
             "kv_b": g(att + "kv_b_proj.weight"), "o": g(att + "o_proj.weight")}
        if c["q_rank"] is None:
            p["q"] = g(att + "q_proj.weight")
        else:
            p.update(q_a=g(att + "q_a_proj.weight"), q_a_ln=g(att + "q_a_layernorm.weight"), q_b=g(att + "q_b_proj.weight"))
        if i < c["dense"]:
            p.update({key: g(mlp + key + "_proj.weight") for key in ("gate", "up", "down")})
        else:
            p["router"] = g(mlp + "gate.weight")
            if c["scoring"] == "sigmoid":
                p["bias"] = g(mlp + "gate.e_score_correction_bias")
            p["experts"] = [{key: g(mlp + f"experts.{e}.{key}_proj.weight") for key in ("gate", "up", "down")}
                            for e in range(c["experts"])]
            p["shared"] = {key: g(mlp + f"shared_experts.{key}_proj.weight") for key in ("gate", "up", "down")}
        W["layers"].append(p)
    return W


def same_weights(a, b, path=""):
    """Exactly equal nested dicts / lists of arrays."""
    if isinstance(a, dict):
        assert set(a) == set(b), path
        return all(same_weights(a[k], b[k], path + "." + k) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_weights(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
    assert np.array_equal(a, b), path
    return True


# ---- RoPE and YaRN ---------------------------------------------------------------------------------


def get_mscale(scale, mscale=1.0):
    """yarn_get_mscale / _compute_yarn_parameters.get_mscale."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def deepseek_yarn(base, dim, scaling, max_position_embeddings):
    """_compute_yarn_parameters as DeepSeek's configs drive it: factor = max_position_embeddings /
    original_max_position_embeddings (asserted equal to rope_scaling's factor, which the attention
    scale reads); attention factor get_mscale(f, mscale) / get_mscale(f, mscale_all_dim); the
    correction range floor / ceil (truncate). Returns (inv_freq [dim/2], attention factor, ramp)."""
    original = scaling["original_max_position_embeddings"]
    factor = max_position_embeddings / original
    assert factor == scaling["factor"], "max_position_embeddings must be factor × original here"
    mscale, mscale_all_dim = scaling.get("mscale"), scaling.get("mscale_all_dim")
    if mscale and mscale_all_dim:
        attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
    else:
        attention_factor = get_mscale(factor)
    beta_fast, beta_slow = scaling.get("beta_fast") or 32, scaling.get("beta_slow") or 1

    def correction_dim(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    keep = 1.0 - ramp  # inv_freq_extrapolation_factor
    inv = 1.0 / (factor * pos_freqs) * (1.0 - keep) + 1.0 / pos_freqs * keep
    return inv, attention_factor, ramp


def softmax_scale(c, scaling):
    """DeepseekV3Attention.scaling: qk_head_dim^-0.5, × mscale² when rope_scaling has mscale_all_dim."""
    scale = (c["nope"] + c["rope"]) ** -0.5
    if scaling is not None and scaling.get("mscale_all_dim"):
        scale *= get_mscale(scaling["factor"], scaling["mscale_all_dim"]) ** 2
    return scale


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def deepseek_rope(x, inv_freq, factor, style):
    """x [T, heads, d] at positions 0 … T−1. "interleaved": apply_rotary_pos_emb_interleave (the
    view(d/2, 2).transpose permutation, then rotate_half), returned in the permuted order as HF
    returns it (q and k alike, so dot products are those of pairs (2i, 2i + 1)); "half":
    apply_rotary_pos_emb (pairs (i, i + d/2)). cos / sin of cat(freqs, freqs) × factor."""
    freqs = np.outer(np.arange(x.shape[0], dtype=np.asarray(inv_freq).dtype), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = (np.cos(emb) * factor)[:, None, :], (np.sin(emb) * factor)[:, None, :]
    if style == "interleaved":
        d = x.shape[-1]
        x = x.reshape(x.shape[:-1] + (d // 2, 2)).swapaxes(-1, -2).reshape(x.shape)
    else:
        assert style == "half", style
    return x * cos + rotate_half(x) * sin


def complex_rope(x, inv_freq, factor, style="interleaved"):
    """Second computation, V2's apply_rotary_emb: view_as_complex of pairs (2i, 2i + 1) × freqs_cis
    (e^{i·p·θ_i} × factor), flattened back (the original, unpermuted order); style "half": the
    pairs (i, i + d/2) as complex numbers the same way."""
    h = x.shape[-1] // 2
    a, b = (x[..., 0::2], x[..., 1::2]) if style == "interleaved" else (x[..., :h], x[..., h:])
    z = (a + 1j * b) * (np.exp(1j * np.outer(np.arange(x.shape[0], dtype=np.float64), inv_freq)) * factor)[:, None, :]
    out = np.empty(x.shape)
    if style == "interleaved":
        out[..., 0::2], out[..., 1::2] = z.real, z.imag
    else:
        out[..., :h], out[..., h:] = z.real, z.imag
    return out


# ---- Forward ----------------------------------------------------------------------------------------


def mla_attention(p, h, c, rope, scale, check=False):
    """DeepseekV3Attention / DeepseekV2Attention (eager). rope: None or (inv_freq, factor, style).
    Returns (output [T, hidden], weights [H, T, T], score_content, score_position [H, T, T] with 0.0
    above the diagonal)."""
    n, H, dn, dr, dv, R = h.shape[0], c["heads"], c["nope"], c["rope"], c["v"], c["kv_rank"]
    if c["q_rank"] is None:
        q = mm.linear(h, p["q"])
    else:
        q = mm.linear(mm.rms_norm(mm.linear(h, p["q_a"]), p["q_a_ln"], LORA_EPS), p["q_b"])
    q = q.reshape(n, H, dn + dr)
    q_nope, q_pe = q[..., :dn], q[..., dn:]
    ckv = mm.linear(h, p["kv_a"])
    compressed, k_pe = ckv[:, :R], ckv[:, None, R:]  # k_pe [T, 1, rope]: one for every head
    kv = mm.linear(mm.rms_norm(compressed, p["kv_a_ln"], LORA_EPS), p["kv_b"]).reshape(n, H, dn + dv)
    k_nope, v = kv[..., :dn], kv[..., dn:]
    if rope is not None:
        inv, factor, style = rope
        q_rot, k_rot = deepseek_rope(q_pe, inv, factor, style), deepseek_rope(k_pe, inv, factor, style)
    else:
        q_rot, k_rot = q_pe, k_pe
    content = np.einsum("thd,shd->hts", q_nope, k_nope) * scale
    position = np.einsum("thd,sd->hts", q_rot, k_rot[:, 0]) * scale
    ok = mf.visible(n, None)
    s = np.where(ok[None], content + position, -np.inf)
    w = mm.softmax(s, axis=-1)
    out = np.einsum("hts,shd->thd", w, v).reshape(n, H * dv)
    if check:
        check_attention(q_nope, q_pe, k_nope, k_pe, rope, scale, content, position)
    upper = ~ok[None]
    return mm.linear(out, p["o"]), w, np.where(upper, 0.0, content), np.where(upper, 0.0, position)


def check_attention(q_nope, q_pe, k_nope, k_pe, rope, scale, content, position):
    """HF's form: query = cat(q_nope, q_rot), key = cat(k_nope, k_rot.expand(H)), q·k × scale equals
    content + position; interleaved RoPE equals the complex product (V2's apply_rotary_emb)."""
    H = q_nope.shape[1]
    if rope is not None:
        q_rot, k_rot = complex_rope(q_pe, *rope), complex_rope(k_pe, *rope)
    else:
        q_rot, k_rot = q_pe, k_pe
    query = np.concatenate([q_nope, q_rot], axis=-1)
    key = np.concatenate([k_nope, np.broadcast_to(k_rot, k_nope.shape[:2] + (k_rot.shape[-1],))], axis=-1)
    full = np.einsum("thd,shd->hts", query, key) * scale
    assert np.allclose(full, content + position, rtol=1e-12, atol=1e-12)
    assert H > 1 and np.ptp(position, axis=0).max() > 0  # heads differ in q_pe, share k_pe


def top_k(values, k, ranked, slope=1.0):
    """The k largest of values, largest first (no ties here); records the gap at the cut in
    logit-equivalent units: slope × (ranked[k-th] − ranked[(k+1)-th]), see LOGIT_GAP."""
    idx = np.argsort(-np.asarray(values), kind="stable")
    if len(values) > k:
        MARGINS.append(slope * float(ranked[idx[k - 1]] - ranked[idx[k]]))
    return idx[:k]


def check_margins(name):
    """No routing near-tie in any case (see MARGINS)."""
    assert MARGINS and min(MARGINS) > LOGIT_GAP, (name, min(MARGINS))
    print(f"  {name}: smallest routing margin {min(MARGINS):.4f} (logit units) over {len(MARGINS)} cuts")
    MARGINS.clear()


def route(h, p, c):
    """One token's routing. Returns (experts, weights, kept groups), experts in the order chosen."""
    logits = p["router"] @ h
    if c["scoring"] == "softmax":  # DeepseekV2Moe, topk_method greedy
        probs = mm.softmax(logits)
        idx = top_k(probs, c["top"], logits)
        return idx, probs[idx] * c["rsf"], []
    variant = c.get("route_variant")
    scores = md.sigmoid(logits)
    corrected = scores + p["bias"]  # scores_for_choice
    G = c["n_group"]
    per = len(scores) // G
    grouped = corrected.reshape(G, per)
    if variant == "group_max":
        group_scores = grouped.max(axis=1)
    elif variant == "group_sum_all":
        group_scores = grouped.sum(axis=1)
    else:
        group_scores = np.sort(grouped, axis=1)[:, -2:].sum(axis=1)  # topk(2).sum
    if variant == "no_group_limit":
        kept, masked = np.arange(G), corrected
    else:
        kept = top_k(group_scores, c["topk_group"], group_scores, 2.0)
        in_kept = np.isin(np.arange(len(scores)) // per, kept)
        masked = np.where(in_kept, corrected, 0.0)  # masked_fill(~score_mask, 0.0)
    idx = top_k(masked, c["top"], masked, 4.0)
    if variant != "no_group_limit":
        MARGINS.append(8.0 * float(np.min(masked[idx])))  # above the masked groups' 0.0
    w = (corrected if variant == "bias_in_weights" else scores)[idx]
    if c["norm_topk"] and variant != "no_norm":
        w = w / (w.sum() + 1e-20)
    if variant != "no_rsf":
        w = w * c["rsf"]
    return idx, w, sorted(int(g) for g in kept)


def moe(h, p, c):
    """DeepseekV3MoE / DeepseekV2Moe: the routed experts' outputs × their weights, plus the shared experts."""
    out = mm.llama_mlp(h, p["shared"])
    routes, groups = [], []
    for t in range(h.shape[0]):
        idx, w, kept = route(h[t], p, c)
        for e, wt in zip(idx, w):
            out[t] += wt * mm.llama_mlp(h[t], p["experts"][e])
        routes.append([[int(e), float(wt)] for wt, e in sorted(zip(w, idx), key=lambda z: -z[0])])
        groups.append(kept)
    return out, routes, groups


def forward(W, c, ids, rope, scale, trace=None):
    """DeepseekV3ForCausalLM / DeepseekV2ForCausalLM. Returns the case's arrays and routes."""
    eps = c["eps"]
    x = W["embed"][ids]
    attn, content, position, routes, groups = [], [], [], [], []
    for layer, p in enumerate(W["layers"]):
        o, w, sc, sp = mla_attention(p, mm.rms_norm(x, p["ln_in"], eps), c, rope, scale, check=trace is not None)
        attn.append(w)
        content.append(sc)
        position.append(sp)
        x = x + o
        h = mm.rms_norm(x, p["ln_post"], eps)
        if trace is not None:
            trace.append(h)
        if "experts" in p:
            m, r, g = moe(h, p, c)
        else:
            m, r, g = mm.llama_mlp(h, p), [], []
        routes.append(r)
        groups.append(g)
        x = x + m
    logits = mm.linear(mm.rms_norm(x, W["norm"], eps), W["lm_head"])
    return {"attention": np.array(attn), "score_content": np.array(content), "score_position": np.array(position),
            "logits": logits, "experts": routes, "groups": groups}


# ---- Second computations of the routing and the MoE -------------------------------------------------


def route_by_hand(h, p, c):
    """Routing written another way: Python lists and sorted(); V3's groups by their two best members
    picked with max and remove; V2 by logits (softmax is monotonic) and exp / sum by hand."""
    logits = [float(v) for v in p["router"] @ h]
    E, k = len(logits), c["top"]
    if c["scoring"] == "softmax":
        order = sorted(range(E), key=lambda e: -logits[e])[:k]
        z = sum(math.exp(v - max(logits)) for v in logits)
        return {e: math.exp(logits[e] - max(logits)) / z * c["rsf"] for e in order}
    score = [1.0 / (1.0 + math.exp(-v)) for v in logits]
    choice = [s + float(b) for s, b in zip(score, p["bias"])]
    per = E // c["n_group"]
    group_score = []
    for g in range(c["n_group"]):
        members = choice[g * per:(g + 1) * per]
        best = max(members)
        rest = list(members)
        rest.remove(best)
        group_score.append(best + max(rest))
    kept = sorted(range(c["n_group"]), key=lambda g: -group_score[g])[:c["topk_group"]]
    candidates = [e for e in range(E) if e // per in kept]
    chosen = sorted(candidates, key=lambda e: -choice[e])[:k]
    total = sum(score[e] for e in chosen)
    return {e: score[e] / total * c["rsf"] for e in chosen}


def moe_dense(h, p, c):
    """HF's batched form: a dense [T, E] weight matrix (0 off the chosen), every expert on every
    token, Σ_e weight[t, e]·expert_e(x_t), plus the shared experts."""
    E = c["experts"]
    dense = np.zeros((h.shape[0], E))
    for t in range(h.shape[0]):
        for e, w in route_by_hand(h[t], p, c).items():
            dense[t, e] = w
    ys = np.stack([mm.llama_mlp(h, p["experts"][e]) for e in range(E)])  # [E, T, hidden]
    return np.einsum("te,etn->tn", dense, ys) + mm.llama_mlp(h, p["shared"])


def check_moe(W, c, ids, rope, scale, base):
    """The MoE of every MoE layer against moe_dense, the routes against route_by_hand (same experts,
    weights to 1e-12), on the base case's MoE inputs; the forward is the base case's."""
    trace = []
    again = forward(W, c, ids, rope, scale, trace)
    assert np.array_equal(again["logits"], base["logits"])
    for layer, p in enumerate(W["layers"]):
        if "experts" not in p:
            continue
        h = trace[layer]
        direct, routes, _ = moe(h, p, c)
        assert np.allclose(direct, moe_dense(h, p, c), rtol=1e-12, atol=1e-12), layer
        for t in range(h.shape[0]):
            want = route_by_hand(h[t], p, c)
            got = {e: w for e, w in routes[t]}
            assert set(got) == set(want) and all(abs(got[e] - want[e]) < 1e-12 for e in got), (layer, t, got, want)


# ---- Cases --------------------------------------------------------------------------------------------


def run_cases(W, c, ids, theta, scaling, max_pos):
    """base, rope_off, rope_theta_1000, rope_style_half; all with the same softmax_scale."""
    d = c["rope"]
    inv, factor, _ = deepseek_yarn(theta, d, scaling, max_pos)
    inv1k, factor1k, _ = deepseek_yarn(1000.0, d, scaling, max_pos)
    scale = softmax_scale(c, scaling)
    specs = [("base", (inv, factor, "interleaved")), ("rope_off", None), ("rope_theta_1000", (inv1k, factor1k, "interleaved")),
             ("rope_style_half", (inv, factor, "half"))]
    cases = {}
    for name, rope in specs:
        r = forward(W, c, ids, rope, scale, trace=[])  # a trace: check_attention on every layer
        extra = {"softmax_scale": scale, "experts": r["experts"]}
        if c["scoring"] == "sigmoid":
            extra["expert_groups"] = r["groups"]
        if rope is not None:
            extra.update(inv_freq=rope[0], attention_factor=rope[1])
        cases[name] = mf.case_entry(r["attention"], r["logits"], ids, score_content=r["score_content"],
                                    score_position=r["score_position"], **extra)
    return cases, (inv, factor, "interleaved"), scale


def check_cases(name, cases):
    """As the siblings (rows sum to 1, masked exactly 0, visible > 0, cases differ from base), and
    the score split: finite, 0 above the diagonal, content + position reproducing the weights."""
    causal = mf.visible(T, None)
    md.check_design_cases(name, cases, {k: [causal] * cases[k]["attention"].shape[0] for k in cases})
    for cname, case in cases.items():
        sc, sp, a = case["score_content"], case["score_position"], case["attention"]
        assert np.all(np.isfinite(sc)) and np.all(np.isfinite(sp)), (name, cname)
        assert np.all(sc[..., ~causal] == 0.0) and np.all(sp[..., ~causal] == 0.0), (name, cname)
        s = np.where(causal, sc + sp, -np.inf)
        assert np.allclose(mm.softmax(s, axis=-1), a, rtol=0, atol=1e-14), (name, cname)
        if cname == "rope_off":
            assert "inv_freq" not in case
        share = np.abs(sp[..., causal]).mean() / np.abs(sc[..., causal]).mean()
        assert 0.1 < share < 10.0, (name, cname, "one part of the score negligible", share)
    assert not np.allclose(cases["base"]["score_position"], cases["rope_off"]["score_position"])
    assert np.array_equal(cases["base"]["score_content"][0], cases["rope_off"]["score_content"][0])


def check_float32(W, c, ids, rope, scale, base):
    """The base case again in float32 throughout (as a float32 reader of the files computes): the
    same experts everywhere, logits and weights within 1e-4."""
    def f32(x):
        if isinstance(x, dict):
            return {k: f32(v) for k, v in x.items()}
        return [f32(v) for v in x] if isinstance(x, list) else np.asarray(x, dtype=np.float32)
    r = forward(f32(W), c, ids, (rope[0].astype(np.float32), np.float32(rope[1]), rope[2]), np.float32(scale))
    MARGINS.clear()
    assert r["logits"].dtype == np.float32
    for layer in range(len(W["layers"])):
        for got, want in zip(r["experts"][layer], base["experts"][layer]):
            assert [e for e, _ in got] == [e for e, _ in want], (layer, got, want)
            assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(got, want))
    assert np.max(np.abs(r["logits"] - base["logits"])) < 1e-4
    assert np.max(np.abs(r["attention"] - base["attention"])) < 1e-4


def check_yarn(theta, d, scaling, max_pos):
    """A pair kept, one blended, one scaled; the frequencies as make_design_reference's
    yarn_inv_freq (truncate true) computes them; the factor per get_mscale."""
    inv, factor, ramp = deepseek_yarn(theta, d, scaling, max_pos)
    assert ramp[0] == 0.0 and ramp[-1] == 1.0 and np.any((ramp > 0) & (ramp < 1)), ramp
    other, _, other_ramp = md.yarn_inv_freq(theta, d, dict(scaling, truncate=True))
    assert np.allclose(inv, other, rtol=1e-15, atol=0) and np.array_equal(ramp, other_ramp)
    f = scaling["factor"]
    want = (0.1 * scaling["mscale"] * math.log(f) + 1) / (0.1 * scaling["mscale_all_dim"] * math.log(f) + 1)
    assert abs(factor - want) < 1e-15
    return inv, factor, ramp


def sensitivity(label, W, c, ids, rope, scale, scaling, base_logits, extra=()):
    """What a reader could get wrong changes the logits by more than 1e-3."""
    plain = (c["nope"] + c["rope"]) ** -0.5
    variants = [("no mscale²", W, c, rope, plain)]
    if rope[1] != 1.0:
        variants.append(("no YaRN cos/sin factor", W, c, (rope[0], 1.0, rope[2]), scale))
    if c["scoring"] == "sigmoid":
        for v in ["bias_in_weights", "no_group_limit", "group_max", "group_sum_all", "no_norm", "no_rsf"]:
            variants.append((v, W, dict(c, route_variant=v), rope, scale))
    else:
        variants.append(("no_rsf", W, dict(c, rsf=1.0), rope, scale))
    variants += list(extra)
    diffs = {}
    for name, w, c_, rope_, scale_ in variants:
        with np.errstate(over="ignore"):  # FP8 values without their scales: silu's exp overflows to 0
            logits = forward(w, c_, ids, rope_, scale_)["logits"]
        diffs[name] = float(np.max(np.abs(logits - base_logits)))
        assert diffs[name] > 1e-3, (label, name, diffs[name])
    MARGINS.clear()  # the variants' routes are not the reference's
    print(f"  {label}: max |Δ logits| if " + ", ".join(f"{k} {v:.3f}" for k, v in diffs.items()))


# ---- Folders -------------------------------------------------------------------------------------------


def v3_config(tok, V, c, theta, scaling, max_pos, fp8):
    """deepseek_v3: as deepseek-ai/DeepSeek-V3's config.json (sizes cut down, num_nextn_predict_layers
    0, no auto_map), with its quantization_config. deepseek_v3_bf16: as transformers 4.5x's
    save_pretrained writes a DeepseekV3Config (rope_type added beside type, factors as floats,
    head_dim = qk_rope_head_dim, qk_head_dim, rope_interleave), torch_dtype bfloat16."""
    config = {
        "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": tok.special_id, "eos_token_id": tok.special_id, "ep_size": 1,
        "first_k_dense_replace": c["dense"], "hidden_act": "silu", "hidden_size": c["hidden"], "initializer_range": 0.02,
        "intermediate_size": c["inter"], "kv_lora_rank": c["kv_rank"], "max_position_embeddings": max_pos,
        "model_type": "deepseek_v3", "moe_intermediate_size": c["moe_inter"], "moe_layer_freq": 1, "n_group": c["n_group"],
        "n_routed_experts": c["experts"], "n_shared_experts": c["shared"], "norm_topk_prob": c["norm_topk"],
        "num_attention_heads": c["heads"], "num_experts_per_tok": c["top"], "num_hidden_layers": c["layers"],
        "num_key_value_heads": c["heads"], "num_nextn_predict_layers": 0, "q_lora_rank": c["q_rank"],
        "qk_nope_head_dim": c["nope"], "qk_rope_head_dim": c["rope"], "rms_norm_eps": c["eps"], "rope_scaling": scaling,
        "rope_theta": theta, "routed_scaling_factor": c["rsf"], "scoring_func": "sigmoid", "seq_aux": True,
        "tie_word_embeddings": False, "topk_group": c["topk_group"], "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
        "transformers_version": "4.33.1", "use_cache": True, "v_head_dim": c["v"], "vocab_size": V,
    }
    if fp8:
        config["quantization_config"] = dict(FP8_CONFIG)
    else:
        saved = {k: (float(v) if k in ("beta_fast", "beta_slow", "factor") else v) for k, v in scaling.items()}
        saved["rope_type"] = saved["type"]
        config.update(rope_scaling=saved, rope_theta=float(theta), rope_interleave=True, head_dim=c["rope"],
                      qk_head_dim=c["nope"] + c["rope"], pretraining_tp=1, transformers_version="4.55.0")
    return dict(sorted(config.items()))


def v2_config(tok, V, c, theta, scaling, max_pos):
    """As deepseek-ai/DeepSeek-V2-Lite's config.json (sizes cut down, no auto_map)."""
    config = {
        "architectures": ["DeepseekV2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001, "bos_token_id": tok.special_id, "eos_token_id": tok.special_id,
        "first_k_dense_replace": c["dense"], "hidden_act": "silu", "hidden_size": c["hidden"], "initializer_range": 0.02,
        "intermediate_size": c["inter"], "kv_lora_rank": c["kv_rank"], "max_position_embeddings": max_pos,
        "model_type": "deepseek_v2", "moe_intermediate_size": c["moe_inter"], "moe_layer_freq": 1, "n_group": 1,
        "n_routed_experts": c["experts"], "n_shared_experts": c["shared"], "norm_topk_prob": False,
        "num_attention_heads": c["heads"], "num_experts_per_tok": c["top"], "num_hidden_layers": c["layers"],
        "num_key_value_heads": c["heads"], "pretraining_tp": 1, "q_lora_rank": None, "qk_nope_head_dim": c["nope"],
        "qk_rope_head_dim": c["rope"], "rms_norm_eps": c["eps"], "rope_scaling": scaling, "rope_theta": theta,
        "routed_scaling_factor": c["rsf"], "scoring_func": "softmax", "seq_aux": True, "tie_word_embeddings": False,
        "topk_group": 1, "topk_method": "greedy", "torch_dtype": "bfloat16", "transformers_version": "4.39.3",
        "use_cache": True, "v_head_dim": c["v"], "vocab_size": V,
    }
    return dict(sorted(config.items()))


def layer_infos(c, theta, scaling, rope, scale):
    return [mf.layer_info("rope", None, theta, c["rope"], rope_style="interleaved", attention="mla",
                          rope_scaling=scaling, attention_factor=rope[1], softmax_scale=scale,
                          mlp="dense" if i < c["dense"] else "moe") for i in range(c["layers"])]


V3 = {"hidden": 160, "heads": 4, "nope": 16, "rope": 8, "v": 12, "kv_rank": 32, "q_rank": 48, "layers": 3, "dense": 1,
      "inter": 144, "moe_inter": 24, "experts": 16, "shared": 1, "top": 2, "n_group": 4, "topk_group": 2, "norm_topk": True,
      "rsf": 2.5, "scoring": "sigmoid", "eps": 1e-6, "router_std": 0.25, "bias_std": 1.0, "bias_mean": 2.0}
V3_SCALING = {"beta_fast": 32, "beta_slow": 1, "factor": 4, "mscale": 1.0, "mscale_all_dim": 1.0,
              "original_max_position_embeddings": 256, "type": "yarn"}
V3_SEED, V3_IDS_SEED = 967, 171  # seeds without a routing near-tie (check_margins)

V2 = {"hidden": 160, "heads": 4, "nope": 16, "rope": 8, "v": 12, "kv_rank": 32, "q_rank": None, "layers": 3, "dense": 1,
      "inter": 64, "moe_inter": 24, "experts": 8, "shared": 2, "top": 2, "n_group": 1, "topk_group": 1, "norm_topk": False,
      "rsf": 2.0, "scoring": "softmax", "eps": 1e-6, "router_std": 0.3}
V2_SCALING = {"beta_fast": 32, "beta_slow": 1, "factor": 8, "mscale": 1.0, "mscale_all_dim": 0.707,
              "original_max_position_embeddings": 128, "type": "yarn"}
V2_SEED, V2_IDS_SEED = 10, 172  # seeds without a routing near-tie (check_margins)
THETA = 10000


def build_v3(out, seed=V3_SEED, ids_seed=V3_IDS_SEED, write=True):
    c, scaling = V3, V3_SCALING
    max_pos = scaling["factor"] * scaling["original_max_position_embeddings"]
    tok = mm.Tokenizer(special=SPECIAL, special_in_vocab=False, bos=True)
    V = mm.padded_vocab(tok.size)
    f = Files()
    W = mla_weights(np.random.RandomState(seed), f, c, V)
    ids = mm.random_ids(np.random.RandomState(ids_seed), tok.size, bos=tok.special_id)
    MARGINS.clear()
    if not write:  # the seed search: only the routing margins
        run_cases(W, c, ids, THETA, scaling, max_pos)
        gap = min(MARGINS)
        MARGINS.clear()
        return gap
    for name, fp8 in [("deepseek_v3", True), ("deepseek_v3_bf16", False)]:
        tensors = f.fp8 if fp8 else f.bf16
        mm.write_folder(os.path.join(out, name), v3_config(tok, V, c, THETA, scaling, max_pos, fp8), tok,
                        {"model.safetensors": tensors})
    # The files, read back: both give exactly the weights generated; the forward runs from the FP8 file.
    vals = {name: file_values(os.path.join(out, name, "model.safetensors")) for name in ["deepseek_v3", "deepseek_v3_bf16"]}
    assert set(vals["deepseek_v3"]) == set(vals["deepseek_v3_bf16"])
    W_fp8, W_bf16 = weights_from_values(vals["deepseek_v3"], c), weights_from_values(vals["deepseek_v3_bf16"], c)
    assert same_weights(W, W_fp8) and same_weights(W, W_bf16)
    check_fp8_file(os.path.join(out, "deepseek_v3", "model.safetensors"))
    cases, rope, scale = run_cases(W_fp8, c, ids, THETA, scaling, max_pos)
    check_cases("deepseek_v3", cases)
    check_margins("deepseek_v3")
    check_float32(W_fp8, c, ids, rope, scale, cases["base"])
    check_moe(W_fp8, c, ids, rope, scale, forward(W_fp8, c, ids, rope, scale))
    inv, factor, ramp = check_yarn(THETA, c["rope"], scaling, max_pos)
    assert factor == 1.0 and abs(scale - 24 ** -0.5 * (0.1 * math.log(4) + 1) ** 2) < 1e-15
    path = os.path.join(out, "deepseek_v3", "model.safetensors")
    extra = [(f"FP8 scale_inv {how}", weights_from_values(file_values(path, how), c), c, rope, scale)
             for how in ("ignored", "first")]
    sensitivity("deepseek_v3", W_fp8, c, ids, rope, scale, scaling, cases["base"]["logits"], extra)
    layers = layer_infos(c, THETA, scaling, rope, scale)
    for name in ["deepseek_v3", "deepseek_v3_bf16"]:
        mf.write_reference(out, name, ids, tok, layers, cases)
    print(f"deepseek_v3, deepseek_v3_bf16: base loss {cases['base']['loss']:.4f}, softmax_scale {scale:.6f}, "
          f"ramp {ramp.tolist()}, layer 1 position 0 experts {cases['base']['experts'][1][0]} "
          f"groups {cases['base']['expert_groups'][1][0]}")


def check_fp8_file(path):
    """Which tensors are FP8 (every Linear weight of the layers), the scale shapes, partial blocks,
    no NaN code, and a few weights decoded by hand from the bytes."""
    raw = read_raw(path)
    fp8 = {n for n, (d, _) in raw.items() if d == "F8_E4M3"}
    for name in fp8:
        codes, (dt, s) = raw[name][1], raw[name + "_scale_inv"]
        assert dt == "F32" and s.shape == (-(-codes.shape[0] // BLOCK), -(-codes.shape[1] // BLOCK)), name
        assert not np.any(np.isin(codes, [0x7F, 0xFF])), name
        assert np.array_equal(fp8_dequant(codes, s), fp8_dequant_loop(codes, s)), name
    linear = ("q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    assert fp8 == {n for n in raw if n.endswith(".weight") and n.split(".")[-2] in linear}
    assert raw["model.layers.1.mlp.gate.e_score_correction_bias"][0] == "F32"
    assert raw["model.layers.1.mlp.gate.weight"][0] == "BF16" and raw["lm_head.weight"][0] == "BF16"
    gate = "model.layers.0.mlp.gate_proj.weight"  # [144, 160]: all four kinds of block
    codes, s = raw[gate][1], raw[gate + "_scale_inv"][1]
    assert codes.shape == (144, 160) and s.shape == (2, 2)
    for r, col in [(0, 0), (127, 127), (128, 0), (0, 128), (143, 159), (130, 140)]:
        b = int(codes[r, col])
        sign, e, m = (-1.0 if b & 0x80 else 1.0), (b >> 3) & 15, b & 7
        v = sign * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
        assert fp8_dequant(codes, s)[r, col] == v * float(s[r // 128, col // 128])


def build_v2(out, seed=V2_SEED, ids_seed=V2_IDS_SEED, write=True):
    c, scaling = V2, V2_SCALING
    max_pos = scaling["factor"] * scaling["original_max_position_embeddings"]
    tok = mm.Tokenizer(special=SPECIAL, special_in_vocab=False, bos=True)
    V = mm.padded_vocab(tok.size)
    f = Single()
    W = mla_weights(np.random.RandomState(seed), f, c, V)
    ids = mm.random_ids(np.random.RandomState(ids_seed), tok.size, bos=tok.special_id)
    MARGINS.clear()
    if not write:
        run_cases(W, c, ids, THETA, scaling, max_pos)
        gap = min(MARGINS)
        MARGINS.clear()
        return gap
    folder = os.path.join(out, "deepseek_v2_lite")
    mm.write_folder(folder, v2_config(tok, V, c, THETA, scaling, max_pos), tok, {"model.safetensors": f.st.tensors})
    mm.check_roundtrip(os.path.join(folder, "model.safetensors"), f.st.tensors)
    W_file = weights_from_values(file_values(os.path.join(folder, "model.safetensors")), c)
    assert same_weights(W, W_file)
    assert all(d == "BF16" for d, _ in read_raw(os.path.join(folder, "model.safetensors")).values())
    cases, rope, scale = run_cases(W_file, c, ids, THETA, scaling, max_pos)
    check_cases("deepseek_v2_lite", cases)
    check_margins("deepseek_v2_lite")
    check_float32(W_file, c, ids, rope, scale, cases["base"])
    check_moe(W_file, c, ids, rope, scale, forward(W_file, c, ids, rope, scale))
    inv, factor, ramp = check_yarn(THETA, c["rope"], scaling, max_pos)
    assert factor > 1.01 and abs(scale - 24 ** -0.5 * (0.1 * 0.707 * math.log(8) + 1) ** 2) < 1e-15
    sensitivity("deepseek_v2_lite", W_file, c, ids, rope, scale, scaling, cases["base"]["logits"])
    mf.write_reference(out, "deepseek_v2_lite", ids, tok, layer_infos(c, THETA, scaling, rope, scale), cases)
    print(f"deepseek_v2_lite: base loss {cases['base']['loss']:.4f}, softmax_scale {scale:.6f}, attention factor "
          f"{factor:.6f}, ramp {ramp.tolist()}, layer 1 position 0 experts {cases['base']['experts'][1][0]}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_deepseek_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    check_e4m3()
    build_v3(out)
    build_v2(out)
    print(f"{out}: {', '.join(FOLDERS)}")


if __name__ == "__main__":
    main()
