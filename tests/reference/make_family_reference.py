#!/usr/bin/python3
"""Independent reference forward passes for more Hugging Face decoder families.

Written from Hugging Face transformers' published model definitions (modeling_gpt_neox,
modeling_gptj, modeling_bloom, modeling_opt, modeling_qwen3, modeling_mistral, modeling_gemma2,
modeling_gemma3, modeling_phi3, modeling_smollm3, masking_utils and modeling_rope_utils), NOT
from PosLab's C++ code. Only NumPy is used; every computation is in float64 from the weights
exactly as stored. The file formats, tokenizer, norms, RoPE helpers and the reference JSON
layout are those of make_model_reference.py, imported from beside this file.

Usage:  /usr/bin/python3 tests/reference/make_family_reference.py OUTDIR

Writes (deterministically; a fixed legacy NumPy RandomState seed per folder) one folder per
family as save_pretrained lays it out (config.json, tokenizer.json, model.safetensors) and
OUTDIR/<folder>.reference.json = {"ids", "tokenizer_size", "texts", "layers", "cases": {case:
{"attention" [layer][head][T][T] after softmax, "logits" [T][V], "loss", ...}}}; "layers" says
per layer what the UI should show: positions (rope | none | alibi | learned), window, rope_base,
rotary_dim (and the RoPE pairing or scaling where it has one). T = 12 tokens.

  folder       class                 cases
  neox         GPTNeoXForCausalLM    base, positions_off, rope_theta_10000, rotary_dim_8
  gptj         GPTJForCausalLM       base, positions_off, rope_style_half
  bloom        BloomForCausalLM      base (+ "alibi_slopes"), positions_off, alibi_scale_0.5
  opt          OPTForCausalLM        base, positions_off, position_shift_3
  qwen3        Qwen3ForCausalLM      base, positions_off, rope_theta_10000
  mistral      MistralForCausalLM    base, window_none, window_6
  gemma2       Gemma2ForCausalLM     base, positions_off, window_none, window_6
  gemma3       Gemma3ForCausalLM     base, positions_off, window_none, local_base_1000,
                                     rope_theta_10000
  gemma3_v5    (gemma3 as transformers 5 saves it: rope_parameters per layer type, bases 500 and
               50000, linear ×4; no rope_theta, rope_local_base_freq or rope_scaling)  same cases
  phi3         Phi3ForCausalLM       base, positions_off, rope_factors_short, rope_factors_long
  phi3_short   (phi3, longer original length: the short factors)  base, rope_factors_long
  smollm3      SmolLM3ForCausalLM    base, positions_off, rope_theta_10000

Case meanings: base = the model unchanged; positions_off = its positions removed whatever they
are (no RoPE on any layer, ALiBi bias zero, the learned table's contribution zero);
rope_theta_10000 = the RoPE base (the global one for dual-base models) 10000; window_none = no
sliding window anywhere; window_N = every windowed layer's window N; position_shift_3 = every
position index + 3. A sliding window W lets query i see key j iff 0 <= i - j < W
(masking_utils.sliding_window_overlay: kv_idx > q_idx - W; the same in the 4.4x cache-position
masks and Gemma 2's tril(diagonal=-W); only the legacy AttentionMaskConverter._make_causal_mask,
tril(diagonal=-W-1), let W + 1 keys through).

config.json is what transformers 4.x save_pretrained writes (rope_theta / rope_scaling), except
gemma3_v5's, which is 5.x's (rope_parameters); keys equal to both PretrainedConfig's and the class's default are left out as
save_pretrained's diff leaves them out (so no tie_word_embeddings for the tied BLOOM, OPT and
Gemma folders, as on their Hub checkpoints).
"""
import math
import os
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402

T = mm.T
normal = mm.normal
linear = mm.linear

FOLDERS = ["neox", "gptj", "bloom", "opt", "qwen3", "mistral", "gemma2", "gemma3", "gemma3_v5", "phi3", "phi3_short", "smollm3"]
TORCH_DTYPE = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}

# --------------------------------------------------------------------------------------------
# Shared pieces (float64)
# --------------------------------------------------------------------------------------------


def gelu_exact(x):
    """nn.GELU() / ACT2FN["gelu"]: 0.5·x·(1 + erf(x/√2))."""
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def bloom_gelu(x):
    """modeling_bloom.bloom_gelu_forward, with its rounded constant 0.79788456."""
    return x * 0.5 * (1.0 + np.tanh(0.79788456 * x * (1.0 + 0.044715 * x * x)))


def relu(x):
    return np.maximum(x, 0.0)


def gemma_norm(x, w, eps):
    """Gemma2RMSNorm / Gemma3RMSNorm: x / sqrt(mean(x²) + eps) · (1 + w)."""
    return mm.rms_norm(x, 1.0 + w, eps)


def rope(x, inv_freq, positions, style="half", scale=1.0):
    """RoPE on the first 2·len(inv_freq) dims of each head of x [T, heads, d]; the rest pass.
    style "half": HF's rotate_half (pair i = dims i, i + r/2), cos and sin × scale (longrope's
    attention factor); "interleaved": GPT-J's rotate_every_two (pair i = dims 2i, 2i + 1)."""
    r = 2 * len(inv_freq)
    xr, xp = x[..., :r], x[..., r:]
    if style == "half":
        cos, sin = mm.rope_cos_sin(inv_freq, positions)
        xr = mm.apply_rope_half(xr, cos * scale, sin * scale)
    else:
        assert style == "interleaved" and scale == 1.0
        xr = mm.apply_rope_interleaved(xr, inv_freq, positions)
    return np.concatenate([xr, xp], axis=-1)


def attention(q, k, v, scale, window=None, bias=None, softcap=None):
    """Eager attention as HF writes it: scores = q·k·scale, soft-capped (cap·tanh(s/cap)), plus
    a bias [H, T, T], then the causal (and sliding-window) mask, softmax over keys.
    q [T, H, d]; k, v [T, G, d], query head h reads kv head h // (H/G).
    Returns (output [T, H·d], weights [H, T, T], exactly 0 where masked)."""
    Tq, H, d = q.shape
    rep = H // k.shape[1]
    kh, vh = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    s = np.einsum("thd,shd->hts", q, kh) * scale
    if softcap is not None:
        s = softcap * np.tanh(s / softcap)
    if bias is not None:
        s = s + bias
    s = np.where(visible(Tq, window)[None], s, -np.inf)
    w = mm.softmax(s, axis=-1)
    return np.einsum("hts,shd->thd", w, vh).reshape(Tq, H * d), w


def visible(n, window):
    """[n, n] bool: key j visible from query i (causal, and i − j < window when windowed)."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    ok = j <= i
    return ok if window is None else ok & (i - j < window)


def alibi_slopes_hf(H):
    """modeling_bloom.build_alibi_tensor's slopes: for the largest power of two p ≤ H,
    (2^(−8/p))^(1…p); then the first H − p odd powers of 2^(−8/(2p))."""
    p = 2 ** int(math.floor(math.log2(H)))
    base = 2.0 ** (-(2.0 ** -(math.log2(p) - 3)))
    slopes = [base ** k for k in range(1, p + 1)]
    if p != H:
        extra = 2.0 ** (-(2.0 ** -(math.log2(2 * p) - 3)))
        slopes += [extra ** k for k in range(1, 1 + 2 * min(p, H - p), 2)]
    return np.array(slopes)


def longrope(cfg, factors_set=None):
    """modeling_rope_utils._compute_longrope_parameters plus the dynamic update: the long factors
    when the sequence (max position + 1) is longer than original_max_position_embeddings, else
    the short ones; attention factor sqrt(1 + ln(s)/ln(original)), s = max / original.
    factors_set forces "short" or "long". Returns (inv_freq, attention factor, set used)."""
    sc = cfg["rope_scaling"]
    d = cfg["hidden_size"] // cfg["num_attention_heads"]
    dim = int(d * cfg["partial_rotary_factor"])
    original = cfg["original_max_position_embeddings"]
    s = cfg["max_position_embeddings"] / original
    factor = 1.0 if s <= 1.0 else math.sqrt(1.0 + math.log(s) / math.log(original))
    chosen = factors_set or ("long" if T > original else "short")
    ext = np.array(sc[chosen + "_factor"], dtype=np.float64)
    inv = 1.0 / (ext * cfg["rope_theta"] ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    return inv, factor, chosen


def case_entry(attn, logits, ids, **extra):
    case = {"attention": attn, "logits": logits, "loss": mm.causal_lm_loss(logits, ids)}
    case.update(extra)  # inv_freq etc. as float arrays; position_rows stays a list of ints
    return case


def layer_info(positions, window=None, rope_base=None, rotary_dim=None, **extra):
    info = {"positions": positions, "window": window, "rope_base": rope_base, "rotary_dim": rotary_dim}
    info.update(extra)
    return info


def write_reference(out, name, ids, tok, layers, cases):
    """make_model_reference.write_reference's file with the "layers" list added."""
    texts = {t: tok.encode(t) for t in mm.TEXTS}
    mm.write_text(os.path.join(out, name + ".reference.json"),
                  mm.to_json({"ids": ids, "tokenizer_size": tok.size, "texts": texts, "layers": layers, "cases": cases}))


def save(out, name, config, tok, st):
    folder = os.path.join(out, name)
    mm.write_folder(folder, config, tok, {"model.safetensors": st.tensors})
    mm.check_roundtrip(os.path.join(folder, "model.safetensors"), st.tensors)


# --------------------------------------------------------------------------------------------
# Self-checks: each case against its own rules, and a few cross-checks by a second computation
# --------------------------------------------------------------------------------------------


def check_cases(name, cases, windows, same_as_base=()):
    """Rows sum to 1, masked keys exactly 0, visible keys > 0 (windows[case][layer]: the window
    the case used), and every case differs from base unless listed in same_as_base."""
    for cname, c in cases.items():
        a = c["attention"]
        assert np.all(np.abs(a.sum(axis=-1) - 1.0) < 1e-12), (name, cname)
        for l, win in enumerate(windows[cname]):
            ok = visible(T, win)
            assert np.all(a[l][:, ~ok] == 0.0), (name, cname, l, "masked key not 0")
            assert np.all(a[l][:, ok] > 0.0), (name, cname, l, "visible key 0")
        assert np.all(np.isfinite(c["logits"])) and math.isfinite(c["loss"]), (name, cname)
        if cname != "base":
            diff = np.max(np.abs(c["logits"] - cases["base"]["logits"]))
            if cname in same_as_base:
                assert diff == 0.0 and np.array_equal(a, cases["base"]["attention"]), (name, cname)
            else:
                assert diff > 1e-3, (name, cname, "no different from base", diff)


def self_checks():
    rs = np.random.RandomState(99)
    x = rs.standard_normal((T, 3, 16))
    pos = np.arange(T) + 0.0
    inv = mm.rope_default_inv_freq(100.0, 8)  # 4 pairs on the first 8 of 16 dims
    # Interleaved pairs (2i, 2i+1) as complex numbers times e^{i·p·θ_i}.
    z = (x[..., 0:8:2] + 1j * x[..., 1:8:2]) * np.exp(1j * np.outer(pos, inv))[:, None, :]
    got = rope(x, inv, pos, "interleaved")
    assert np.allclose(got[..., 0:8:2], z.real, atol=1e-12) and np.allclose(got[..., 1:8:2], z.imag, atol=1e-12)
    assert np.array_equal(got[..., 8:], x[..., 8:])
    # rotate_half pairs (i, i+4) likewise, and the attention factor scales the rotated dims only.
    z = (x[..., 0:4] + 1j * x[..., 4:8]) * np.exp(1j * np.outer(pos, inv))[:, None, :]
    got = rope(x, inv, pos, "half", scale=1.5)
    assert np.allclose(got[..., 0:4], 1.5 * z.real, atol=1e-12) and np.allclose(got[..., 4:8], 1.5 * z.imag, atol=1e-12)
    assert np.array_equal(got[..., 8:], x[..., 8:])
    # RoPE scores depend on the offset only: shifting every position changes nothing.
    q, k = rope(x, inv, pos, "half"), rope(x, inv, pos + 5, "half")
    q5 = rope(x, inv, pos + 5, "half")
    assert np.allclose(np.einsum("thd,shd->hts", q, rope(x, inv, pos, "half")),
                       np.einsum("thd,shd->hts", q5, k), atol=1e-10)
    # ALiBi slopes: 8 heads → 1/2^1 … 1/2^8 (Press et al.), 6 heads → HF's interleaved extra slopes.
    assert np.allclose(alibi_slopes_hf(8), [2.0 ** -h for h in range(1, 9)], rtol=0, atol=1e-15)
    assert np.allclose(alibi_slopes_hf(8), mm.alibi_slopes(8), rtol=0, atol=1e-15)
    assert np.allclose(alibi_slopes_hf(6), [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125], rtol=0, atol=1e-15)
    assert np.allclose(alibi_slopes_hf(16)[:2], [2 ** -0.5, 2 ** -1.0])
    # Sliding window 4: query 7 sees keys 4..7.
    assert [j for j in range(T) if visible(T, 4)[7, j]] == [4, 5, 6, 7]


# --------------------------------------------------------------------------------------------
# 1. GPT-NeoX (Pythia): fused per-head [q, k, v], partial rotate-half RoPE, parallel residual
# --------------------------------------------------------------------------------------------


def neox_forward(W, c, ids, inv_freq):
    """GPTNeoXForCausalLM. inv_freq None: no RoPE; its length sets the rotated dims (2·len)."""
    H, d, eps, n = c["heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    x = W["embed"][ids]
    attn = []
    for p in W["layers"]:
        h = mm.layer_norm(x, p["ln1_w"], p["ln1_b"], eps)
        qkv = linear(h, p["qkv_w"], p["qkv_b"]).reshape(n, H, 3 * d)  # HF: view(..., H, 3·d)
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        if inv_freq is not None:
            q, k = rope(q, inv_freq, pos), rope(k, inv_freq, pos)
        out, w = attention(q, k, v, d ** -0.5)
        attn.append(w)
        mlp_in = mm.layer_norm(x, p["ln2_w"], p["ln2_b"], eps)
        mlp = linear(gelu_exact(linear(mlp_in, p["fc1_w"], p["fc1_b"])), p["fc2_w"], p["fc2_b"])
        x = x + linear(out, p["dense_w"], p["dense_b"]) + mlp  # use_parallel_residual
    x = mm.layer_norm(x, W["ln_f_w"], W["ln_f_b"], eps)
    return np.array(attn), linear(x, W["embed_out"])


def build_neox(out):
    rs = np.random.RandomState(31)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=True, bos=False)
    V = mm.padded_vocab(tok.size)
    n, H, d, L, I, eps, base, pct = 64, 4, 16, 2, 256, 1e-5, 1000.0, 0.25
    st = mm.Store("F16")
    W = {"embed": st.add("gpt_neox.embed_in.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(L):
        pre = f"gpt_neox.layers.{i}."
        p = {"ln1_w": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
             "ln1_b": st.add(pre + "input_layernorm.bias", normal(rs, (n,), 0.1)),
             "ln2_w": st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
             "ln2_b": st.add(pre + "post_attention_layernorm.bias", normal(rs, (n,), 0.1))}
        q, k, v = normal(rs, (H, d, n), 0.25), normal(rs, (H, d, n), 0.25), normal(rs, (H, d, n), 0.1)
        fused = np.stack([q, k, v], axis=1).reshape(3 * n, n)  # rows: head 0 [q k v], head 1 [q k v], …
        p["qkv_w"] = st.add(pre + "attention.query_key_value.weight", fused)
        p["qkv_b"] = st.add(pre + "attention.query_key_value.bias", normal(rs, (3 * n,), 0.1))
        p["dense_w"] = st.add(pre + "attention.dense.weight", normal(rs, (n, n), 0.1))
        p["dense_b"] = st.add(pre + "attention.dense.bias", normal(rs, (n,), 0.1))
        p["fc1_w"] = st.add(pre + "mlp.dense_h_to_4h.weight", normal(rs, (I, n), 0.1))
        p["fc1_b"] = st.add(pre + "mlp.dense_h_to_4h.bias", normal(rs, (I,), 0.1))
        p["fc2_w"] = st.add(pre + "mlp.dense_4h_to_h.weight", normal(rs, (n, I), 0.1))
        p["fc2_b"] = st.add(pre + "mlp.dense_4h_to_h.bias", normal(rs, (n,), 0.1))
        W["layers"].append(p)
    W["ln_f_w"] = st.add("gpt_neox.final_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["ln_f_b"] = st.add("gpt_neox.final_layer_norm.bias", normal(rs, (n,), 0.1))
    W["embed_out"] = st.add("embed_out.weight", normal(rs, (V, n), 0.1))
    # transformers 4.x save_pretrained: Pythia's rotary_pct / rotary_emb_base and their aliases
    # partial_rotary_factor / rope_theta (GPTNeoXConfig sets both); the Hub's Pythia files carry
    # only rotary_pct and rotary_emb_base.
    config = {
        "architectures": ["GPTNeoXForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
        "bos_token_id": tok.special_id, "classifier_dropout": 0.1, "eos_token_id": tok.special_id,
        "hidden_act": "gelu", "hidden_dropout": 0.0, "hidden_size": n, "initializer_range": 0.02,
        "intermediate_size": I, "layer_norm_eps": eps, "max_position_embeddings": 2048, "model_type": "gpt_neox",
        "num_attention_heads": H, "num_hidden_layers": L, "partial_rotary_factor": pct, "rope_scaling": None,
        "rope_theta": base, "rotary_emb_base": base, "rotary_pct": pct, "tie_word_embeddings": False,
        "torch_dtype": "float16", "use_cache": True, "use_parallel_residual": True, "vocab_size": V,
    }
    save(out, "neox", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(131), tok.size)
    c = {"heads": H, "head_dim": d, "eps": eps}
    rd = int(d * pct)
    specs = {"base": mm.rope_default_inv_freq(base, rd), "positions_off": None,
             "rope_theta_10000": mm.rope_default_inv_freq(10000.0, rd),
             "rotary_dim_8": mm.rope_default_inv_freq(base, 8)}  # HF: inv_freq over the rotated dims
    cases = {}
    for name, inv in specs.items():
        attn, logits = neox_forward(W, c, ids, inv)
        cases[name] = case_entry(attn, logits, ids, **({} if inv is None else {"inv_freq": inv}))
    check_cases("neox", cases, {k: [None] * L for k in cases})
    layers = [layer_info("rope", None, base, rd, rope_style="half") for _ in range(L)]
    write_reference(out, "neox", ids, tok, layers, cases)
    return ids, tok, cases, "F16"


# --------------------------------------------------------------------------------------------
# 2. GPT-J: interleaved RoPE on the first rotary_dim dims, attention and MLP in parallel
# --------------------------------------------------------------------------------------------


def gptj_forward(W, c, ids, style):
    """GPTJForCausalLM. style: "interleaved" (GPT-J), "half" (Llama's pairing), None (no RoPE).
    GPT-J's base is fixed at 10000 (create_sinusoidal_positions), over rotary_dim dims."""
    H, d, eps, n = c["heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    inv = mm.rope_default_inv_freq(10000.0, c["rotary_dim"])
    x = W["wte"][ids]
    attn = []
    for p in W["layers"]:
        h = mm.layer_norm(x, p["ln_w"], p["ln_b"], eps)
        q, k, v = (linear(h, p[m]).reshape(n, H, d) for m in ("q", "k", "v"))
        if style is not None:
            q, k = rope(q, inv, pos, style), rope(k, inv, pos, style)
        out, w = attention(q, k, v, 1.0 / math.sqrt(d))
        attn.append(w)
        mlp = linear(mm.gelu_new(linear(h, p["fc_in_w"], p["fc_in_b"])), p["fc_out_w"], p["fc_out_b"])
        x = x + linear(out, p["o"]) + mlp  # one ln_1 feeds both
    x = mm.layer_norm(x, W["ln_f_w"], W["ln_f_b"], eps)
    return np.array(attn), linear(x, W["lm_head_w"], W["lm_head_b"])


def build_gptj(out):
    rs = np.random.RandomState(32)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=True, bos=False)
    V = mm.padded_vocab(tok.size)
    n, H, d, L, rd, eps = 64, 4, 16, 2, 8, 1e-5
    st = mm.Store("F32")
    W = {"wte": st.add("transformer.wte.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(L):
        pre = f"transformer.h.{i}."
        p = {"ln_w": st.add(pre + "ln_1.weight", normal(rs, (n,), 0.1, 1.0)),
             "ln_b": st.add(pre + "ln_1.bias", normal(rs, (n,), 0.1)),
             "k": st.add(pre + "attn.k_proj.weight", normal(rs, (n, n), 0.25)),
             "v": st.add(pre + "attn.v_proj.weight", normal(rs, (n, n), 0.1)),
             "q": st.add(pre + "attn.q_proj.weight", normal(rs, (n, n), 0.25)),
             "o": st.add(pre + "attn.out_proj.weight", normal(rs, (n, n), 0.1)),
             "fc_in_w": st.add(pre + "mlp.fc_in.weight", normal(rs, (4 * n, n), 0.1)),
             "fc_in_b": st.add(pre + "mlp.fc_in.bias", normal(rs, (4 * n,), 0.1)),
             "fc_out_w": st.add(pre + "mlp.fc_out.weight", normal(rs, (n, 4 * n), 0.1)),
             "fc_out_b": st.add(pre + "mlp.fc_out.bias", normal(rs, (n,), 0.1))}
        W["layers"].append(p)
    W["ln_f_w"] = st.add("transformer.ln_f.weight", normal(rs, (n,), 0.1, 1.0))
    W["ln_f_b"] = st.add("transformer.ln_f.bias", normal(rs, (n,), 0.1))
    W["lm_head_w"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    W["lm_head_b"] = st.add("lm_head.bias", normal(rs, (V,), 0.1))
    config = {
        "activation_function": "gelu_new", "architectures": ["GPTJForCausalLM"], "attn_pdrop": 0.0,
        "bos_token_id": tok.special_id, "embd_pdrop": 0.0, "eos_token_id": tok.special_id,
        "initializer_range": 0.02, "layer_norm_epsilon": eps, "model_type": "gptj", "n_embd": n, "n_head": H,
        "n_inner": None, "n_layer": L, "n_positions": 2048, "resid_pdrop": 0.0, "rotary_dim": rd,
        "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True, "vocab_size": V,
    }
    save(out, "gptj", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(132), tok.size)
    c = {"heads": H, "head_dim": d, "eps": eps, "rotary_dim": rd}
    inv = mm.rope_default_inv_freq(10000.0, rd)
    cases = {}
    for name, style in [("base", "interleaved"), ("positions_off", None), ("rope_style_half", "half")]:
        attn, logits = gptj_forward(W, c, ids, style)
        cases[name] = case_entry(attn, logits, ids, **({} if style is None else {"inv_freq": inv}))
    check_cases("gptj", cases, {k: [None] * L for k in cases})
    layers = [layer_info("rope", None, 10000.0, rd, rope_style="interleaved") for _ in range(L)]
    write_reference(out, "gptj", ids, tok, layers, cases)
    return ids, tok, cases, "F32"


# --------------------------------------------------------------------------------------------
# 3. BLOOM: ALiBi (HF's slopes for any head count), embedding LayerNorm, tied head
# --------------------------------------------------------------------------------------------


def bloom_forward(W, c, ids, slopes):
    """BloomForCausalLM. build_alibi_tensor adds slope_h · j (the key's position) to every
    query's scores: softmax-equal to −slope_h · (i − j)."""
    H, d, eps, n = c["heads"], c["head_dim"], c["eps"], len(ids)
    bias = np.broadcast_to(slopes[:, None, None] * np.arange(n)[None, None, :], (H, n, n))
    x = mm.layer_norm(W["embed"][ids], W["emb_ln_w"], W["emb_ln_b"], eps)
    attn = []
    for p in W["layers"]:
        h = mm.layer_norm(x, p["ln1_w"], p["ln1_b"], eps)
        qkv = linear(h, p["qkv_w"], p["qkv_b"]).reshape(n, H, 3, d)  # HF: view(..., H, 3, d)
        out, w = attention(qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], 1.0 / math.sqrt(d), bias=bias)
        attn.append(w)
        x = x + linear(out, p["dense_w"], p["dense_b"])
        h = mm.layer_norm(x, p["ln2_w"], p["ln2_b"], eps)
        x = x + linear(bloom_gelu(linear(h, p["fc1_w"], p["fc1_b"])), p["fc2_w"], p["fc2_b"])
    x = mm.layer_norm(x, W["ln_f_w"], W["ln_f_b"], eps)
    return np.array(attn), linear(x, W["embed"])


def build_bloom(out):
    rs = np.random.RandomState(33)
    tok = mm.Tokenizer(special="</s>", special_in_vocab=True, bos=False)
    V = mm.padded_vocab(tok.size)
    n, H, d, L, eps = 48, 6, 8, 2, 1e-5
    st = mm.Store("BF16")
    W = {"embed": st.add("transformer.word_embeddings.weight", normal(rs, (V, n), 1.0)),
         "emb_ln_w": st.add("transformer.word_embeddings_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
         "emb_ln_b": st.add("transformer.word_embeddings_layernorm.bias", normal(rs, (n,), 0.1)), "layers": []}
    for i in range(L):
        pre = f"transformer.h.{i}."
        p = {"ln1_w": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
             "ln1_b": st.add(pre + "input_layernorm.bias", normal(rs, (n,), 0.1))}
        q, k, v = normal(rs, (H, d, n), 0.35), normal(rs, (H, d, n), 0.35), normal(rs, (H, d, n), 0.1)
        p["qkv_w"] = st.add(pre + "self_attention.query_key_value.weight", np.stack([q, k, v], axis=1).reshape(3 * n, n))
        p["qkv_b"] = st.add(pre + "self_attention.query_key_value.bias", normal(rs, (3 * n,), 0.1))
        p["dense_w"] = st.add(pre + "self_attention.dense.weight", normal(rs, (n, n), 0.1))
        p["dense_b"] = st.add(pre + "self_attention.dense.bias", normal(rs, (n,), 0.1))
        p["ln2_w"] = st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))
        p["ln2_b"] = st.add(pre + "post_attention_layernorm.bias", normal(rs, (n,), 0.1))
        p["fc1_w"] = st.add(pre + "mlp.dense_h_to_4h.weight", normal(rs, (4 * n, n), 0.1))
        p["fc1_b"] = st.add(pre + "mlp.dense_h_to_4h.bias", normal(rs, (4 * n,), 0.1))
        p["fc2_w"] = st.add(pre + "mlp.dense_4h_to_h.weight", normal(rs, (n, 4 * n), 0.1))
        p["fc2_b"] = st.add(pre + "mlp.dense_4h_to_h.bias", normal(rs, (n,), 0.1))
        W["layers"].append(p)
    W["ln_f_w"] = st.add("transformer.ln_f.weight", normal(rs, (n,), 0.1, 1.0))
    W["ln_f_b"] = st.add("transformer.ln_f.bias", normal(rs, (n,), 0.1))
    # As bigscience/bloom-560m's config.json: n_layer / n_head, no tie_word_embeddings key
    # (tied is both PretrainedConfig's and BloomConfig's default, so save_pretrained drops it).
    config = {
        "apply_residual_connection_post_layernorm": False, "architectures": ["BloomForCausalLM"],
        "attention_dropout": 0.0, "attention_softmax_in_fp32": True, "bias_dropout_fusion": True,
        "bos_token_id": tok.special_id, "eos_token_id": tok.special_id, "hidden_dropout": 0.0, "hidden_size": n,
        "initializer_range": 0.02, "layer_norm_epsilon": eps, "masked_softmax_fusion": True, "model_type": "bloom",
        "n_head": H, "n_inner": None, "n_layer": L, "offset_alibi": 100, "pretraining_tp": 1,
        "skip_bias_add": True, "skip_bias_add_qkv": False, "slow_but_exact": False, "torch_dtype": "bfloat16",
        "use_cache": True, "vocab_size": V,
    }
    save(out, "bloom", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(133), tok.size)
    c = {"heads": H, "head_dim": d, "eps": eps}
    slopes = alibi_slopes_hf(H)
    cases = {}
    for name, m in [("base", slopes), ("positions_off", 0.0 * slopes), ("alibi_scale_0.5", 0.5 * slopes)]:
        attn, logits = bloom_forward(W, c, ids, m)
        cases[name] = case_entry(attn, logits, ids, **({"alibi_slopes": slopes} if name == "base" else {}))
    # Second computation: the relative form −m·(i − j) gives the same weights.
    rel = -slopes[:, None, None] * (np.arange(T)[:, None] - np.arange(T)[None, :])[None]
    h = mm.layer_norm(mm.layer_norm(W["embed"][ids], W["emb_ln_w"], W["emb_ln_b"], eps),
                      W["layers"][0]["ln1_w"], W["layers"][0]["ln1_b"], eps)
    qkv = linear(h, W["layers"][0]["qkv_w"], W["layers"][0]["qkv_b"]).reshape(T, H, 3, d)
    _, w_rel = attention(qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], 1.0 / math.sqrt(d), bias=rel)
    assert np.allclose(w_rel, cases["base"]["attention"][0], rtol=0, atol=1e-12)
    check_cases("bloom", cases, {k: [None] * L for k in cases})
    layers = [layer_info("alibi") for _ in range(L)]
    write_reference(out, "bloom", ids, tok, layers, cases)
    return ids, tok, cases, "BF16"


# --------------------------------------------------------------------------------------------
# 4. OPT: learned absolute positions with HF's offset of 2, pre-LayerNorm, ReLU, tied head
# --------------------------------------------------------------------------------------------


def opt_forward(W, c, ids, pos_rows):
    """OPTForCausalLM (do_layer_norm_before). pos_rows: the embed_positions rows added (position
    p reads row p + 2), or None for no positions."""
    H, d, eps, n = c["heads"], c["head_dim"], 1e-5, len(ids)
    x = W["embed"][ids] + (0.0 if pos_rows is None else W["pos"][pos_rows])
    attn = []
    for p in W["layers"]:
        h = mm.layer_norm(x, p["ln1_w"], p["ln1_b"], eps)
        q, k, v = (linear(h, p[m + "_w"], p[m + "_b"]).reshape(n, H, d) for m in ("q", "k", "v"))
        out, w = attention(q, k, v, d ** -0.5)  # HF scales q_proj's output (bias included)
        attn.append(w)
        x = x + linear(out, p["o_w"], p["o_b"])
        h = mm.layer_norm(x, p["ln2_w"], p["ln2_b"], eps)
        x = x + linear(relu(linear(h, p["fc1_w"], p["fc1_b"])), p["fc2_w"], p["fc2_b"])
    x = mm.layer_norm(x, W["ln_f_w"], W["ln_f_b"], eps)
    return np.array(attn), linear(x, W["embed"])


def build_opt(out):
    rs = np.random.RandomState(34)
    tok = mm.Tokenizer(special="</s>", special_in_vocab=True, bos=True)  # OPT prepends </s>
    V = mm.padded_vocab(tok.size)
    n, H, d, L, F, P = 48, 4, 12, 2, 128, 16
    st = mm.Store("F16")
    W = {"embed": st.add("model.decoder.embed_tokens.weight", normal(rs, (V, n), 1.0)),
         "pos": st.add("model.decoder.embed_positions.weight", normal(rs, (P + 2, n), 0.8)), "layers": []}
    for i in range(L):
        pre = f"model.decoder.layers.{i}."
        p = {}
        for m, std in [("k", 0.25), ("v", 0.1), ("q", 0.25), ("out", 0.1)]:
            key = "o" if m == "out" else m
            p[key + "_w"] = st.add(pre + f"self_attn.{m}_proj.weight", normal(rs, (n, n), std))
            p[key + "_b"] = st.add(pre + f"self_attn.{m}_proj.bias", normal(rs, (n,), 0.1))
        p["ln1_w"] = st.add(pre + "self_attn_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
        p["ln1_b"] = st.add(pre + "self_attn_layer_norm.bias", normal(rs, (n,), 0.1))
        p["fc1_w"] = st.add(pre + "fc1.weight", normal(rs, (F, n), 0.1))
        p["fc1_b"] = st.add(pre + "fc1.bias", normal(rs, (F,), 0.1))
        p["fc2_w"] = st.add(pre + "fc2.weight", normal(rs, (n, F), 0.1))
        p["fc2_b"] = st.add(pre + "fc2.bias", normal(rs, (n,), 0.1))
        p["ln2_w"] = st.add(pre + "final_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
        p["ln2_b"] = st.add(pre + "final_layer_norm.bias", normal(rs, (n,), 0.1))
        W["layers"].append(p)
    W["ln_f_w"] = st.add("model.decoder.final_layer_norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["ln_f_b"] = st.add("model.decoder.final_layer_norm.bias", normal(rs, (n,), 0.1))
    # As facebook/opt-125m's config.json (pad 1 as there; no epsilon key: nn.LayerNorm's 1e-5;
    # tied by default, so no tie_word_embeddings key).
    config = {
        "_remove_final_layer_norm": False, "activation_dropout": 0.0, "activation_function": "relu",
        "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0, "bos_token_id": tok.special_id,
        "do_layer_norm_before": True, "dropout": 0.1, "enable_bias": True, "eos_token_id": tok.special_id,
        "ffn_dim": F, "hidden_size": n, "init_std": 0.02, "layer_norm_elementwise_affine": True, "layerdrop": 0.0,
        "max_position_embeddings": P, "model_type": "opt", "num_attention_heads": H, "num_hidden_layers": L,
        "pad_token_id": 1, "prefix": "</s>", "torch_dtype": "float16", "use_cache": True, "vocab_size": V,
        "word_embed_proj_dim": n,
    }
    save(out, "opt", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(134), tok.size, bos=tok.special_id)
    c = {"heads": H, "head_dim": d}
    rows = np.arange(T) + 2
    cases = {}
    for name, r in [("base", rows), ("positions_off", None), ("position_shift_3", rows + 3)]:
        attn, logits = opt_forward(W, c, ids, r)
        cases[name] = case_entry(attn, logits, ids, **({} if r is None else {"position_rows": [int(v) for v in r]}))
    check_cases("opt", cases, {k: [None] * L for k in cases})
    write_reference(out, "opt", ids, tok, [layer_info("learned") for _ in range(L)], cases)
    return ids, tok, cases, "F16"


# --------------------------------------------------------------------------------------------
# 5–10. The RMSNorm decoders: Qwen3, Mistral, Gemma 2, Gemma 3, Phi-3, SmolLM3
# --------------------------------------------------------------------------------------------


def rms_decoder_forward(W, o, ids, specs, shift=0):
    """Llama's block with the families' changes, from o:
      norm "rms" (w·x̂) | "gemma" ((1 + w)·x̂); qk_norm None | "rms" | "gemma" (per head, over
      head_dim, before RoPE); sandwich (Gemma: norms after attention and around the MLP);
      embed_scale (Gemma: × sqrt(hidden)); scale (the score factor); attn_softcap and
      final_softcap; act "silu" | "gelu_tanh"; fused qkv / gate_up (Phi-3) when present.
    specs[layer] = {"rope": None | (inv_freq, attention factor), "window": None | W}."""
    H, G, d, eps, n = o["heads"], o["kv_heads"], o["head_dim"], o["eps"], len(ids)
    pos = np.arange(n) + shift
    norm = (lambda x, w: gemma_norm(x, w, eps)) if o["norm"] == "gemma" else (lambda x, w: mm.rms_norm(x, w, eps))
    qk_norm = {"gemma": lambda x, w: gemma_norm(x, w, eps), "rms": lambda x, w: mm.rms_norm(x, w, eps)}.get(o["qk_norm"])
    act = mm.silu if o["act"] == "silu" else mm.gelu_new  # gelu_pytorch_tanh ≡ gelu_new
    x = W["embed"][ids] * o.get("embed_scale", 1.0)
    attn = []
    for p, spec in zip(W["layers"], specs):
        h = norm(x, p["ln_in"])
        if "qkv" in p:  # Phi-3: rows q (H·d), then k (G·d), then v (G·d)
            qkv = linear(h, p["qkv"])
            q, k, v = qkv[:, :H * d], qkv[:, H * d:(H + G) * d], qkv[:, (H + G) * d:]
        else:
            q, k, v = linear(h, p["q"]), linear(h, p["k"]), linear(h, p["v"])
        q, k, v = q.reshape(n, H, d), k.reshape(n, G, d), v.reshape(n, G, d)
        if qk_norm is not None:
            q, k = qk_norm(q, p["q_norm"]), qk_norm(k, p["k_norm"])
        if spec["rope"] is not None:
            inv, factor = spec["rope"]
            q, k = rope(q, inv, pos, "half", factor), rope(k, inv, pos, "half", factor)
        out, w = attention(q, k, v, o["scale"], window=spec["window"], softcap=o.get("attn_softcap"))
        attn.append(w)
        a = linear(out, p["o"])
        if o.get("sandwich"):
            x = x + norm(a, p["ln_post_attn"])
            h = norm(x, p["ln_pre_ff"])
        else:
            x = x + a
            h = norm(x, p["ln_post"])
        if "gate_up" in p:  # Phi-3: gate rows, then up rows
            gu = linear(h, p["gate_up"])
            m = linear(act(gu[:, :gu.shape[1] // 2]) * gu[:, gu.shape[1] // 2:], p["down"])
        else:
            m = linear(act(linear(h, p["gate"])) * linear(h, p["up"]), p["down"])
        x = x + (norm(m, p["ln_post_ff"]) if o.get("sandwich") else m)
    logits = linear(norm(x, W["norm"]), W["lm_head"])
    if o.get("final_softcap") is not None:
        logits = o["final_softcap"] * np.tanh(logits / o["final_softcap"])
    return np.array(attn), logits


def run_cases(name, W, o, ids, case_specs, same_as_base=(), extras=None):
    """case_specs: {case: [per-layer spec]} → checked reference cases."""
    cases = {}
    for cname, specs in case_specs.items():
        attn, logits = rms_decoder_forward(W, o, ids, specs)
        cases[cname] = case_entry(attn, logits, ids, **((extras or {}).get(cname, {})))
    check_cases(name, cases, {k: [s["window"] for s in v] for k, v in case_specs.items()}, same_as_base)
    return cases


def rope_specs(inv_freqs, windows, factor=1.0):
    """Per-layer specs from per-layer inv_freq (None: no RoPE) and windows."""
    return [{"rope": None if f is None else (f, factor), "window": w} for f, w in zip(inv_freqs, windows)]


def gemma_weights(rs, st, c, V, qk_norm):
    """Gemma 2 / 3 weights: norms stored as w of (1 + w), four per layer; tied head."""
    n, H, G, d, I = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["inter"]
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(c["layers"]):
        pre = f"model.layers.{i}."
        p = {"q": st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), c["qk_std"])),
             "k": st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), c["qk_std"])),
             "v": st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.1)),
             "o": st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1))}
        if qk_norm:
            p["q_norm"] = st.add(pre + "self_attn.q_norm.weight", normal(rs, (d,), 0.2, 1.0))
            p["k_norm"] = st.add(pre + "self_attn.k_norm.weight", normal(rs, (d,), 0.2, 1.0))
        p["gate"] = st.add(pre + "mlp.gate_proj.weight", normal(rs, (I, n), 0.1))
        p["up"] = st.add(pre + "mlp.up_proj.weight", normal(rs, (I, n), 0.1))
        p["down"] = st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1))
        for key, nm in [("ln_in", "input_layernorm"), ("ln_post_attn", "post_attention_layernorm"),
                        ("ln_pre_ff", "pre_feedforward_layernorm"), ("ln_post_ff", "post_feedforward_layernorm")]:
            p[key] = st.add(pre + nm + ".weight", normal(rs, (n,), 0.1))
        W["layers"].append(p)
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1))
    W["lm_head"] = W["embed"]
    return W


def build_qwen3(out):
    rs = np.random.RandomState(35)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False, merges_as_pairs=True)
    V = mm.padded_vocab(tok.size)
    # head_dim 16 with hidden 32 and 4 heads: q_proj is 64 × 32, as only an explicit head_dim says.
    c = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 64, "layers": 2, "eps": 1e-6, "qk_std": 0.2}
    st = mm.Store("BF16")
    W = mm.llama_like_weights(rs, st, c, V, prefix_bias=False, tied=True)
    for i, p in enumerate(W["layers"]):
        p["q_norm"] = st.add(f"model.layers.{i}.self_attn.q_norm.weight", normal(rs, (16,), 0.3, 1.5))
        p["k_norm"] = st.add(f"model.layers.{i}.self_attn.k_norm.weight", normal(rs, (16,), 0.3, 1.5))
    theta = 1000000.0
    config = {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": tok.special_id, "eos_token_id": tok.special_id, "head_dim": 16, "hidden_act": "silu",
        "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64, "layer_types": ["full_attention"] * 2,
        "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 4,
        "num_hidden_layers": 2, "num_key_value_heads": 2, "rms_norm_eps": 1e-6, "rope_scaling": None,
        "rope_theta": theta, "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
        "use_cache": True, "use_sliding_window": False, "vocab_size": V,
    }
    save(out, "qwen3", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(135), tok.size)
    o = {"heads": 4, "kv_heads": 2, "head_dim": 16, "eps": 1e-6, "norm": "rms", "qk_norm": "rms",
         "scale": 16 ** -0.5, "act": "silu"}
    inv, inv10k = mm.rope_default_inv_freq(theta, 16), mm.rope_default_inv_freq(10000.0, 16)
    cases = run_cases("qwen3", W, o, ids, {
        "base": rope_specs([inv] * 2, [None] * 2), "positions_off": rope_specs([None] * 2, [None] * 2),
        "rope_theta_10000": rope_specs([inv10k] * 2, [None] * 2)},
        extras={"base": {"inv_freq": inv}, "rope_theta_10000": {"inv_freq": inv10k}})
    write_reference(out, "qwen3", ids, tok, [layer_info("rope", None, theta, 16, rope_style="half")] * 2, cases)
    return ids, tok, cases, "BF16"


def build_mistral(out):
    rs = np.random.RandomState(36)
    tok = mm.Tokenizer(special="<s>", special_in_vocab=True, bos=True)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 8, "inter": 64, "layers": 2, "eps": 1e-5, "qk_std": 0.35}
    st = mm.Store("BF16")
    W = mm.llama_like_weights(rs, st, c, V, prefix_bias=False, tied=False)
    theta, win = 10000.0, 4
    config = {
        "architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": tok.special_id,
        "eos_token_id": tok.special_id, "head_dim": 8, "hidden_act": "silu", "hidden_size": 32,
        "initializer_range": 0.02, "intermediate_size": 64, "max_position_embeddings": 32768,
        "model_type": "mistral", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5, "rope_theta": theta, "sliding_window": win, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": V,
    }
    save(out, "mistral", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(136), tok.size, bos=tok.special_id)
    o = {"heads": 4, "kv_heads": 2, "head_dim": 8, "eps": 1e-5, "norm": "rms", "qk_norm": None,
         "scale": 8 ** -0.5, "act": "silu"}
    inv = mm.rope_default_inv_freq(theta, 8)
    cases = run_cases("mistral", W, o, ids, {
        "base": rope_specs([inv] * 2, [win] * 2), "window_none": rope_specs([inv] * 2, [None] * 2),
        "window_6": rope_specs([inv] * 2, [6] * 2)},
        extras={k: {"inv_freq": inv} for k in ["base", "window_none", "window_6"]})
    write_reference(out, "mistral", ids, tok, [layer_info("rope", win, theta, 8, rope_style="half")] * 2, cases)
    return ids, tok, cases, "BF16"


def build_gemma2(out):
    rs = np.random.RandomState(37)
    tok = mm.Tokenizer(special="<bos>", special_in_vocab=True, bos=True)
    V = mm.padded_vocab(tok.size)
    # hidden 64: the embedding normalizer sqrt(64) = 8 is exact in every dtype (HF casts it to
    # the hidden states' dtype, which rounds sqrt(hidden) in bfloat16 for most sizes).
    c = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 96, "layers": 4, "qk_std": 0.25}
    st = mm.Store("F32")
    W = gemma_weights(rs, st, c, V, qk_norm=False)
    theta, win, qpas = 10000.0, 4, 24
    types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(4)]  # 0, 2 sliding
    config = {
        "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0, "bos_token_id": tok.special_id, "cache_implementation": "hybrid",
        "eos_token_id": tok.special_id, "final_logit_softcapping": 30.0, "head_dim": 16,
        "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64,
        "initializer_range": 0.02, "intermediate_size": 96, "layer_types": types, "max_position_embeddings": 8192,
        "model_type": "gemma2", "num_attention_heads": 4, "num_hidden_layers": 4, "num_key_value_heads": 2,
        "pad_token_id": 0, "query_pre_attn_scalar": qpas, "rms_norm_eps": 1e-6, "rope_theta": theta,
        "sliding_window": win, "torch_dtype": "float32", "use_cache": True, "vocab_size": V,
    }
    save(out, "gemma2", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(137), tok.size, bos=tok.special_id)
    o = {"heads": 4, "kv_heads": 2, "head_dim": 16, "eps": 1e-6, "norm": "gemma", "qk_norm": None, "sandwich": True,
         "embed_scale": math.sqrt(64), "scale": qpas ** -0.5, "attn_softcap": 50.0, "final_softcap": 30.0,
         "act": "gelu_tanh"}
    inv = mm.rope_default_inv_freq(theta, 16)
    sliding = [t == "sliding_attention" for t in types]
    wins = lambda w: [w if s else None for s in sliding]  # noqa: E731
    cases = run_cases("gemma2", W, o, ids, {
        "base": rope_specs([inv] * 4, wins(win)), "positions_off": rope_specs([None] * 4, wins(win)),
        "window_none": rope_specs([inv] * 4, [None] * 4), "window_6": rope_specs([inv] * 4, wins(6))},
        extras={k: {"inv_freq": inv} for k in ["base", "window_none", "window_6"]})
    # Soft-capping matters here: without it the base logits would differ.
    o_nocap = dict(o, attn_softcap=None, final_softcap=None)
    assert np.max(np.abs(rms_decoder_forward(W, o_nocap, ids, rope_specs([inv] * 4, wins(win)))[1]
                         - cases["base"]["logits"])) > 1e-2
    layers = [layer_info("rope", win if s else None, theta, 16, rope_style="half") for s in sliding]
    write_reference(out, "gemma2", ids, tok, layers, cases)
    return ids, tok, cases, "F32"


def gemma3_folder(out, name, v5, local_base, global_base, factor, seed):
    """Gemma 3 as transformers 4.x saves it (rope_theta, rope_local_base_freq, rope_scaling) or, with
    v5, as 5.x does (rope_parameters with one entry per layer type and none of the old keys)."""
    rs = np.random.RandomState(seed)
    tok = mm.Tokenizer(special="<bos>", special_in_vocab=True, bos=True)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 64, "heads": 4, "kv_heads": 1, "head_dim": 16, "inter": 96, "layers": 6, "qk_std": 0.2}
    st = mm.Store("BF16")
    W = gemma_weights(rs, st, c, V, qk_norm=True)
    win, qpas, pattern = 4, 32, 3
    types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(6)]  # 2, 5 global
    config = {
        "architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attn_logit_softcapping": None, "bos_token_id": tok.special_id, "cache_implementation": "hybrid",
        "eos_token_id": tok.special_id, "final_logit_softcapping": None, "head_dim": 16,
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64, "initializer_range": 0.02,
        "intermediate_size": 96, "layer_types": types, "max_position_embeddings": 32768, "model_type": "gemma3_text",
        "num_attention_heads": 4, "num_hidden_layers": 6, "num_key_value_heads": 1, "pad_token_id": 0,
        "query_pre_attn_scalar": qpas, "rms_norm_eps": 1e-6, "sliding_window": win, "sliding_window_pattern": pattern, "torch_dtype": "bfloat16",
        "use_bidirectional_attention": False, "use_cache": True, "vocab_size": V,
    }
    if v5:
        config["rope_parameters"] = {"full_attention": {"rope_type": "linear", "factor": factor, "rope_theta": global_base},
                                     "sliding_attention": {"rope_type": "default", "rope_theta": local_base}}
    else:
        config.update({"rope_local_base_freq": local_base, "rope_scaling": {"factor": factor, "rope_type": "linear"},
                       "rope_theta": global_base})
    save(out, name, config, tok, st)
    ids = mm.random_ids(np.random.RandomState(seed + 100), tok.size, bos=tok.special_id)
    o = {"heads": 4, "kv_heads": 1, "head_dim": 16, "eps": 1e-6, "norm": "gemma", "qk_norm": "gemma",
         "sandwich": True, "embed_scale": math.sqrt(64), "scale": qpas ** -0.5, "act": "gelu_tanh"}
    sliding = [t == "sliding_attention" for t in types]
    default = lambda b: mm.rope_default_inv_freq(b, 16)  # noqa: E731
    glob = lambda b: mm.rope_linear_inv_freq(default(b), factor)  # noqa: E731  global layers: linear ×1/8

    def specs(local_inv, global_inv, window):
        return rope_specs([local_inv if s else global_inv for s in sliding], [window if s else None for s in sliding])

    loc, gl = default(local_base), glob(global_base)
    freq = lambda lo, g: {"inv_freq_local": lo, "inv_freq_global": g}  # noqa: E731
    cases = run_cases(name, W, o, ids, {
        "base": specs(loc, gl, win), "positions_off": specs(None, None, win), "window_none": specs(loc, gl, None),
        "local_base_1000": specs(default(1000.0), gl, win), "rope_theta_10000": specs(loc, glob(10000.0), win)},
        extras={"base": freq(loc, gl), "window_none": freq(loc, gl), "local_base_1000": freq(default(1000.0), gl),
                "rope_theta_10000": freq(loc, glob(10000.0))})
    layers = [layer_info("rope", win, local_base, 16, rope_style="half") if s else
              layer_info("rope", None, global_base, 16, rope_style="half",
                         rope_scaling={"rope_type": "linear", "factor": factor})
              for s in sliding]
    write_reference(out, name, ids, tok, layers, cases)
    return name, ids, tok, cases, "BF16"


def build_gemma3(out):
    return [gemma3_folder(out, "gemma3", False, 10000.0, 1000000.0, 8.0, 38),
            gemma3_folder(out, "gemma3_v5", True, 500.0, 50000.0, 4.0, 39)]


PHI3_SHORT = [1.0, 1.25, 2.5, 4.0]   # rotary_dim / 2 = 4 factors, distinct, exact in float32
PHI3_LONG = [1.5, 3.0, 6.5, 12.0]


def phi3_weights(rs, st, V):
    n, H, G, d, I = 64, 4, 2, 16, 96
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(2):
        pre = f"model.layers.{i}."
        qkv = np.concatenate([normal(rs, (H * d, n), 0.3), normal(rs, (G * d, n), 0.3), normal(rs, (G * d, n), 0.1)])
        W["layers"].append({
            "ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
            "qkv": st.add(pre + "self_attn.qkv_proj.weight", qkv),
            "o": st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1)),
            "ln_post": st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
            "gate_up": st.add(pre + "mlp.gate_up_proj.weight", normal(rs, (2 * I, n), 0.1)),
            "down": st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1))})
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    return W


def build_phi3(out):
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False)  # Phi-4-mini: no BOS added
    V = mm.padded_vocab(tok.size)
    ids = mm.random_ids(np.random.RandomState(139), tok.size)
    o = {"heads": 4, "kv_heads": 2, "head_dim": 16, "eps": 1e-5, "norm": "rms", "qk_norm": None,
         "scale": 16 ** -0.5, "act": "silu"}
    results = []
    for name, original, longest, case_names in [
            ("phi3", 8, 32, ["base", "positions_off", "rope_factors_short", "rope_factors_long"]),
            ("phi3_short", 16, 64, ["base", "rope_factors_long"])]:
        st = mm.Store("BF16")
        W = phi3_weights(np.random.RandomState(39), st, V)  # the same weights in both folders
        config = {
            "architectures": ["Phi3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": tok.special_id, "embd_pdrop": 0.0, "eos_token_id": tok.special_id, "hidden_act": "silu",
            "hidden_size": 64, "initializer_range": 0.02, "intermediate_size": 96,
            "max_position_embeddings": longest, "model_type": "phi3", "num_attention_heads": 4,
            "num_hidden_layers": 2, "num_key_value_heads": 2, "original_max_position_embeddings": original,
            "pad_token_id": tok.special_id, "partial_rotary_factor": 0.5, "resid_pdrop": 0.0, "rms_norm_eps": 1e-5,
            "rope_scaling": {"long_factor": PHI3_LONG, "short_factor": PHI3_SHORT, "type": "longrope"},
            "rope_theta": 10000.0, "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
            "use_cache": True, "vocab_size": V,
        }
        save(out, name, config, tok, st)
        inv, factor, chosen = longrope(config)
        forced = {"base": None, "positions_off": None, "rope_factors_short": "short", "rope_factors_long": "long"}
        case_specs, extras = {}, {}
        for cname in case_names:
            if cname == "positions_off":
                case_specs[cname] = rope_specs([None] * 2, [None] * 2)
                continue
            f_inv, f_factor, f_set = longrope(config, forced[cname])
            assert f_factor == factor  # forcing a set leaves the attention factor as it is
            case_specs[cname] = rope_specs([f_inv] * 2, [None] * 2, f_factor)
            extras[cname] = {"inv_freq": f_inv, "attention_factor": f_factor, "rope_factors": f_set}
        want = 1.0 + math.log(longest / original) / math.log(original)
        assert abs(factor - math.sqrt(want)) < 1e-15
        same = ("rope_factors_long",) if chosen == "long" else ()
        cases = run_cases(name, W, o, ids, case_specs, same_as_base=same, extras=extras)
        assert chosen == ("long" if name == "phi3" else "short")
        layers = [layer_info("rope", None, 10000.0, 8, rope_style="half", rope_scaling="longrope",
                             rope_factors=chosen, attention_factor=factor)] * 2
        write_reference(out, name, ids, tok, layers, cases)
        results.append((name, ids, tok, cases, "BF16"))
    return results


def build_smollm3(out):
    rs = np.random.RandomState(40)
    tok = mm.Tokenizer(special="<|end_of_text|>", special_in_vocab=False, bos=False)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 8, "inter": 64, "layers": 4, "eps": 1e-6, "qk_std": 0.35}
    st = mm.Store("BF16")
    W = mm.llama_like_weights(rs, st, c, V, prefix_bias=False, tied=True)
    theta, interval = 5000000.0, 4
    no_rope = [int((i + 1) % interval != 0) for i in range(4)]  # HF: 1 = RoPE, 0 = NoPE → [1, 1, 1, 0]
    assert no_rope == [1, 1, 1, 0]
    config = {
        "architectures": ["SmolLM3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": None, "eos_token_id": tok.special_id, "hidden_act": "silu", "hidden_size": 32,
        "initializer_range": 0.02, "intermediate_size": 64, "layer_types": ["full_attention"] * 4,
        "max_position_embeddings": 65536, "max_window_layers": 28, "mlp_bias": False, "model_type": "smollm3",
        "no_rope_layer_interval": interval, "no_rope_layers": no_rope, "num_attention_heads": 4,
        "num_hidden_layers": 4, "num_key_value_heads": 2, "pad_token_id": tok.special_id, "pretraining_tp": 2,
        "rms_norm_eps": 1e-6, "rope_scaling": None, "rope_theta": theta, "sliding_window": None,
        "tie_word_embeddings": True, "torch_dtype": "bfloat16", "use_cache": False, "use_sliding_window": False,
        "vocab_size": V,
    }
    save(out, "smollm3", config, tok, st)
    ids = mm.random_ids(np.random.RandomState(140), tok.size)
    o = {"heads": 4, "kv_heads": 2, "head_dim": 8, "eps": 1e-6, "norm": "rms", "qk_norm": None,
         "scale": 8 ** -0.5, "act": "silu"}
    inv, inv10k = mm.rope_default_inv_freq(theta, 8), mm.rope_default_inv_freq(10000.0, 8)
    on = lambda f: [f if r else None for r in no_rope]  # noqa: E731
    cases = run_cases("smollm3", W, o, ids, {
        "base": rope_specs(on(inv), [None] * 4), "positions_off": rope_specs([None] * 4, [None] * 4),
        "rope_theta_10000": rope_specs(on(inv10k), [None] * 4)},
        extras={"base": {"inv_freq": inv}, "rope_theta_10000": {"inv_freq": inv10k}})
    # The NoPE layer is NoPE in every case: its input differs only through the layers before it.
    layers = [layer_info("rope", None, theta, 8, rope_style="half") if r else layer_info("none") for r in no_rope]
    write_reference(out, "smollm3", ids, tok, layers, cases)
    return ids, tok, cases, "BF16"


# --------------------------------------------------------------------------------------------


def summary(name, dtype, ids, tok, cases):
    a = cases["base"]["attention"][:, :, 3:, :]
    mx = a.max(axis=-1).mean()
    uniform = np.mean(1.0 / (np.arange(3, T) + 1.0))
    L, H = cases["base"]["attention"].shape[:2]
    V = cases["base"]["logits"].shape[1]
    print(f"{name}: {dtype}, {L} layers × {H} heads, vocab {V} (tokenizer {tok.size}), ids {ids[:4]}…; "
          f"base loss {cases['base']['loss']:.4f}, max attention weight per query {mx:.3f} (uniform {uniform:.3f}); "
          f"cases {', '.join(cases)}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_family_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    start = time.time()
    self_checks()
    for build in [build_neox, build_gptj, build_bloom, build_opt, build_qwen3, build_mistral, build_gemma2,
                  build_gemma3, build_phi3, build_smollm3]:
        result = build(out)
        for name, ids, tok, cases, dtype in (result if isinstance(result, list) else [(build.__name__[6:],) + result]):
            summary(name, dtype, ids, tok, cases)
    print(f"{out}: {len(FOLDERS)} folders in {time.time() - start:.2f} s")


if __name__ == "__main__":
    main()
