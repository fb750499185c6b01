#!/usr/bin/python3
"""Independent references for Gemma 4's text model (dense with per-layer inputs and KV sharing, and MoE).

Written from Hugging Face transformers' published definitions, NOT from PosLab's C++ code. Only
NumPy; every computation is in float64 from the weights exactly as stored (BF16 values).

  modeling_gemma4 (Gemma4ForCausalLM, Gemma4TextModel, Gemma4ForConditionalGeneration):
    Gemma4RMSNorm: y = x·(mean(x²) + eps)^-½ · weight (the weight itself, NOT Gemma 3's 1 + weight);
      with_scale=False (v_norm, the router's norm): no weight.
    Gemma4TextScaledWordEmbedding: embed_tokens(ids) × sqrt(hidden_size) cast to the weight's dtype
      (BF16: sqrt(32) = 5.65685… becomes 5.65625); embed_tokens_per_layer likewise × sqrt(P).
    layer_types: "sliding_attention" layers have head_dim, num_key_value_heads and a window W (query i
      sees key j iff 0 <= i - j < W); "full_attention" layers have global_head_dim and, when
      attention_k_eq_v, num_global_key_value_heads (else num_key_value_heads), causal.
    Gemma4TextRotaryEmbedding: per layer type, rope_parameters[type]. Sliding: "default" over head_dim.
      Full: _compute_proportional_rope_parameters with head_dim_key "global_head_dim": D = global_head_dim,
      k = int(partial_rotary_factor · D // 2) pairs with θ_i = theta^(-2i/D), the other D/2 - k pairs
      θ = 0 (they turn by nothing), ÷ factor (1 here). cos/sin of cat(freqs, freqs), rotate_half: pair i
      = dims (i, i + D/2) over the WHOLE head (not the first 2k dims, as NeoX's partial rotary would).
    Gemma4TextAttention: q = q_norm(q_proj(h)) then RoPE; k = k_norm(k_proj(h)) then RoPE; v = v_proj(h),
      or on a full layer with attention_k_eq_v (no v_proj) the raw k_proj output (before k_norm); then
      v_norm (no weight). scaling 1.0 (no 1/√d), no soft-cap on the scores, GQA repeat_kv, o_proj.
      KV sharing: first = num_hidden_layers - num_kv_shared_layers; a layer l >= first > 0 has no
      k_proj / v_proj / k_norm / v_norm and uses the keys (normed, rotated) and values (normed) of the
      last layer before first of its own layer type (store_full_length_kv); its q is its own.
    Gemma4TextMLP: down(gelu_tanh(gate(x)) · up(x)); intermediate_size × 2 on the KV-shared layers when
      use_double_wide_mlp.
    Gemma4TextDecoderLayer: x = r + post_attention_layernorm(attn(input_layernorm(r)));
      r = x; m = mlp(pre_feedforward_layernorm(r)); with enable_moe_block
      m = post_feedforward_layernorm_1(m) + post_feedforward_layernorm_2(experts(pre_feedforward_layernorm_2(r)))
      routed by the router on r; x = r + post_feedforward_layernorm(m); with hidden_size_per_layer_input:
      x = x + post_per_layer_input_norm(per_layer_projection(gelu_tanh(per_layer_input_gate(x)) · ple[l]));
      finally x × layer_scalar (a stored [1] buffer per layer).
    Gemma4TextRouter: n = RMSNorm_noweight(r) · scale · hidden^-½; softmax(n·projᵀ) over all experts; the
      top top_k_experts (torch.topk: largest probability first); renormalized to sum 1; × per_expert_scale.
    Gemma4TextExperts: gate_up_proj [E, 2·I, hidden] (out × in; gate the first I rows, up the next I),
      down_proj [E, hidden, I]; gelu_tanh(gate)·up.
    Per-layer inputs: tok = embed_tokens_per_layer(ids) × bf16(sqrt(P)) as [T, L, P];
      proj = per_layer_projection_norm(per_layer_model_projection(inputs_embeds) × hidden^-½) as [T, L, P];
      ple = (proj + tok) × 2^-½, layer l reading ple[:, l, :].
    Head: norm, lm_head tied to embed_tokens (no embed scale), logits soft-capped c·tanh(logits / c).
    Gemma4ForConditionalGeneration: text_config, tensors model.language_model.*, no lm_head (tied);
      for text-only ids the same numbers.

Usage:  /usr/bin/python3 tests/reference/make_gemma4_reference.py OUTDIR

Writes OUTDIR/<folder>/ (config.json, tokenizer.json, model.safetensors) and OUTDIR/<folder>.reference.json:

  gemma4       Gemma4ForCausalLM, 5 layers [S, S, F, S, F] (S sliding, window 3, head 8, 2 kv heads;
               F full, head 16, partial_rotary_factor 0.25: 2 of 8 pairs turn), per-layer inputs P = 4,
               num_kv_shared_layers 2 (layer 3 reads layer 1's keys and values, layer 4 layer 2's),
               double-wide MLP (48) on layers 3 and 4, layer_scalar ≠ 1, final soft-cap 30
  gemma4_moe   Gemma4ForCausalLM like gemma-4-26B-A4B: 4 layers [S, F, S, F], attention_k_eq_v (full
               layers: 1 kv head, no v_proj, v from k_proj), MLP 16 + 4 experts of 8, top 2, no
               per-layer inputs, no KV sharing
      cases: base, rope_off (no rotation on any layer), rope_theta_10000 (the full layers' base 10000,
      still proportional with the same 2 turning pairs), local_base_1000 (the sliding layers' base),
      rotary_dim_8 (the full layers turn 4 pairs of their 16-wide heads: θ_i = theta^(-2i/16), i < 4,
      pairs (i, i + 8)), window_none (sliding layers plain causal)
  gemma4_mm    gemma4's numbers as Gemma4ForConditionalGeneration (text_config, model.language_model.*,
               vision tensors of shapes no text model has)   cases: base, rope_off

Each case: "attention" [layer][head][T][T]; "logits" [T][V] (soft-capped); "loss"; "frequency_usage"
[layer][head][D_layer/2] (make_model_reference's definition: mean over t of ‖q_{t,h,i}‖·‖k_{t,g(h),i}‖,
pair i = dims (i, i + D/2), with q and k after q_norm / k_norm, k the source layer's on a KV-shared
layer; 4 pairs on sliding layers, 8 on full ones); "inv_freq_local" [4] and "inv_freq_global" [8]
where RoPE is on; gemma4_moe's add "experts" [layer][T] of [[expert, weight], …] in torch.topk's order
(largest router probability first), the weights renormalized and × per_expert_scale: so at some
positions the second listed weight is the larger (per_expert_scale reorders; checked to happen).

Self-checks: rows sum to 1, masked keys exactly 0, visible keys > 0, every case differs from base; the
proportional inv_freq has exactly k non-zero entries and rotates dims (i, i + D/2), i < k, only; the
KV-shared layers' keys and values are their source layer's, and their attention is their own queries
against them; the MoE against HF's all-experts form; no router near-tie (logit gap > 0.05 at the top-k
cut in every case); and the logits move when
layer_scalar, the per-layer inputs, v_norm, the k_eq_v value path (v taken after k_norm or after RoPE),
the double-wide MLP (half width), the soft-cap, the router's input (normed), per_expert_scale or the
scaling (1/√d) is changed; the BF16 embed scale's effect is printed (it is near the test's noise).
"""
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
linear = mm.linear
FOLDERS = ["gemma4", "gemma4_moe", "gemma4_mm"]
EPS = 1e-6
SOFTCAP = 30.0
SLIDING, FULL = "sliding_attention", "full_attention"
ROPE_PARAMETERS = {FULL: {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
                   SLIDING: {"rope_type": "default", "rope_theta": 10000.0}}
ORDER_GAPS = []  # final expert weights: first − second (in torch.topk's order), every position of every case

GEMMA4 = {"hidden": 32, "types": [SLIDING, SLIDING, FULL, SLIDING, FULL], "heads": 4, "kv_heads": 2, "head_dim": 8,
          "global_head_dim": 16, "k_eq_v": False, "global_kv_heads": None, "window": 3, "inter": 24,
          "double_wide": True, "kv_shared": 2, "ple": 4, "moe": False}
GEMMA4_MOE = {"hidden": 32, "types": [SLIDING, FULL, SLIDING, FULL], "heads": 4, "kv_heads": 2, "head_dim": 8,
              "global_head_dim": 16, "k_eq_v": True, "global_kv_heads": 1, "window": 3, "inter": 16,
              "double_wide": False, "kv_shared": 0, "ple": 0, "moe": True, "experts": 4, "top": 2, "moe_inter": 8,
              "router_std": 3.0}
GEMMA4_SEED, GEMMA4_IDS_SEED = 41, 141
MOE_SEED, MOE_IDS_SEED = 73, 142  # seeds whose routers have no near-tie (check_margins)


# ---- Pieces ------------------------------------------------------------------------------------------


def norm(x, w=None):
    """Gemma4RMSNorm: x·(mean(x²) + eps)^-½, × w when it has one (with_scale)."""
    y = x * np.power(np.mean(x * x, axis=-1, keepdims=True) + EPS, -0.5)
    return y if w is None else y * w


def bf16_scale(value):
    """A Python float as torch.tensor(value) (float32) cast to the weight's dtype, BF16."""
    return float(mm.stored(np.float32(value), "BF16")[1])


def proportional_inv_freq(theta, D, fraction):
    """_compute_proportional_rope_parameters: k = int(fraction·D // 2) pairs θ_i = theta^(-2i/D), then
    D/2 − k zeros. Returns (inv_freq [D/2], k)."""
    k = int(fraction * D // 2)
    inv = np.zeros(D // 2)
    inv[:k] = theta ** (-np.arange(0, 2 * k, 2, dtype=np.float64) / D)
    return inv, k


def kv_source(c, l):
    """The layer whose keys and values layer l uses: itself, or (KV-shared, l >= first > 0) the last layer
    before first of l's layer type."""
    first = len(c["types"]) - c["kv_shared"]
    if not (l >= first > 0):
        return l
    prev = c["types"][:first]
    return len(prev) - 1 - prev[::-1].index(c["types"][l])


def geometry(c, l):
    """(sliding, head width, kv heads, MLP width) of layer l."""
    sliding = c["types"][l] == SLIDING
    d = c["head_dim"] if sliding else c["global_head_dim"]
    G = c["global_kv_heads"] if (c["k_eq_v"] and not sliding) else c["kv_heads"]
    first = len(c["types"]) - c["kv_shared"]
    I = c["inter"] * (2 if c["double_wide"] and l >= first > 0 else 1)
    return sliding, d, G, I


# ---- Weights -------------------------------------------------------------------------------------------


def weights(rs, c, V, prefix="model."):
    """Random BF16 weights in Gemma4ForCausalLM's names (prefix "model."); returns (Store, values)."""
    st = mm.Store("BF16")
    n, H, L, P = c["hidden"], c["heads"], len(c["types"]), c["ple"]
    W = {"embed": st.add(prefix + "embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    if P:
        W["ple_embed"] = st.add(prefix + "embed_tokens_per_layer.weight", normal(rs, (V, L * P), 1.0))
        W["ple_model_proj"] = st.add(prefix + "per_layer_model_projection.weight", normal(rs, (L * P, n), 0.2))
        W["ple_proj_norm"] = st.add(prefix + "per_layer_projection_norm.weight", normal(rs, (P,), 0.1, 1.0))
    for l in range(L):
        pre = f"{prefix}layers.{l}."
        sliding, d, G, I = geometry(c, l)
        p = {"ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
             "q": st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), 0.2)),
             "q_norm": st.add(pre + "self_attn.q_norm.weight", normal(rs, (d,), 0.15, 0.7))}
        if kv_source(c, l) == l:
            p["k"] = st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), 0.2))
            p["k_norm"] = st.add(pre + "self_attn.k_norm.weight", normal(rs, (d,), 0.15, 0.7))
            if sliding or not c["k_eq_v"]:
                p["v"] = st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.2))
        p["o"] = st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1))
        for key, name in [("ln_post_attn", "post_attention_layernorm"), ("ln_pre_ff", "pre_feedforward_layernorm"),
                          ("ln_post_ff", "post_feedforward_layernorm")]:
            p[key] = st.add(pre + name + ".weight", normal(rs, (n,), 0.1, 1.0))
        p["gate"] = st.add(pre + "mlp.gate_proj.weight", normal(rs, (I, n), 0.2))
        p["up"] = st.add(pre + "mlp.up_proj.weight", normal(rs, (I, n), 0.2))
        p["down"] = st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1))
        if c["moe"]:
            E, Im = c["experts"], c["moe_inter"]
            p["router"] = st.add(pre + "router.proj.weight", normal(rs, (E, n), c["router_std"]))
            p["router_scale"] = st.add(pre + "router.scale", normal(rs, (n,), 0.2, 1.0))
            p["expert_scale"] = st.add(pre + "router.per_expert_scale", rs.uniform(0.6, 1.4, size=E).astype(np.float32))
            p["gate_up"] = st.add(pre + "experts.gate_up_proj", normal(rs, (E, 2 * Im, n), 0.2))
            p["experts_down"] = st.add(pre + "experts.down_proj", normal(rs, (E, n, Im), 0.2))
            for key, name in [("ln_post_ff1", "post_feedforward_layernorm_1"), ("ln_post_ff2", "post_feedforward_layernorm_2"),
                              ("ln_pre_ff2", "pre_feedforward_layernorm_2")]:
                p[key] = st.add(pre + name + ".weight", normal(rs, (n,), 0.1, 1.0))
        if P:
            p["ple_gate"] = st.add(pre + "per_layer_input_gate.weight", normal(rs, (P, n), 0.1))
            p["ple_proj"] = st.add(pre + "per_layer_projection.weight", normal(rs, (n, P), 0.2))
            p["ple_post_norm"] = st.add(pre + "post_per_layer_input_norm.weight", normal(rs, (n,), 0.1, 1.0))
        p["layer_scalar"] = st.add(pre + "layer_scalar", rs.uniform(0.5, 1.5, size=1).astype(np.float32))
        W["layers"].append(p)
    # A final norm of about 0.5: logits of a few units, where the soft-cap bends them by a few percent.
    W["norm"] = st.add(prefix + "norm.weight", normal(rs, (n,), 0.05, 0.5))
    return st, W


# ---- Forward -------------------------------------------------------------------------------------------


def route(r, p, c, variant):
    """Gemma4TextRouter on the residual r [T, hidden]: per position the chosen experts (torch.topk's
    order) and their final weights."""
    h = norm(r, p["ln_pre_ff"]) if "router on normed" in variant else r
    scores = linear(norm(h) * p["router_scale"] * c["hidden"] ** -0.5, p["router"])
    probs = mm.softmax(scores, axis=-1)
    out = []
    for t in range(r.shape[0]):
        idx = md.top_k(scores[t], c["top"])  # records the logit gap at the cut
        w = probs[t, idx] / probs[t, idx].sum()
        if "no per_expert_scale" not in variant:
            w = w * p["expert_scale"][idx]
        ORDER_GAPS.append(float(np.min(w[:-1] - w[1:])))
        out.append((idx, w))
    return out


def experts(x, p, routes, Im):
    """Gemma4TextExperts: for each chosen expert, down(gelu_tanh(gate)·up) × its weight."""
    y = np.zeros_like(x)
    for t, (idx, w) in enumerate(routes):
        for e, wt in zip(idx, w):
            gate_up = p["gate_up"][e] @ x[t]
            y[t] += wt * (p["experts_down"][e] @ (mm.gelu_new(gate_up[:Im]) * gate_up[Im:]))
    return y


def experts_dense(x, p, routes, Im):
    """Second computation: every expert on every token, batched, weighted by a dense [T, E] matrix
    zero off the chosen ones."""
    dense = np.zeros((x.shape[0], p["gate_up"].shape[0]))
    for t, (idx, w) in enumerate(routes):
        dense[t, idx] = w
    gate_up = np.einsum("ekn,tn->etk", p["gate_up"], x)
    act = mm.gelu_new(gate_up[..., :Im]) * gate_up[..., Im:]
    return np.einsum("te,etn->tn", dense, np.einsum("eni,eti->etn", p["experts_down"], act))


def forward(W, c, ids, spec, variant=(), trace=None):
    """Gemma4ForCausalLM. spec: {"inv": {layer type: inv_freq or None (no RoPE)}, "window": W or None}.
    variant: the changes of the sensitivity checks. Returns (attention, logits, frequency usage,
    experts); trace (a dict) gets per layer q, k, v and the MoE inputs."""
    n, H, L, P = len(ids), c["heads"], len(c["types"]), c["ple"]
    pos = np.arange(n)
    scale = math.sqrt(c["hidden"]) if "exact embed scale" in variant else bf16_scale(math.sqrt(c["hidden"]))
    x = W["embed"][ids] * scale
    if P:
        tok = (W["ple_embed"][ids] * bf16_scale(math.sqrt(P))).reshape(n, L, P)
        proj = norm((linear(x, W["ple_model_proj"]) * c["hidden"] ** -0.5).reshape(n, L, P), W["ple_proj_norm"])
        ple = (proj + tok) * 2.0 ** -0.5
    kv, attn, usage, routes_all = {}, [], [], []
    for l, p in enumerate(W["layers"]):
        sliding, d, G, I = geometry(c, l)
        inv = spec["inv"][c["types"][l]]
        h = norm(x, p["ln_in"])
        q = norm(linear(h, p["q"]).reshape(n, H, d), p["q_norm"])
        if kv_source(c, l) == l:
            raw = linear(h, p["k"]).reshape(n, G, d)
            k = norm(raw, p["k_norm"])
            k_rot = k if inv is None else mf.rope(k, inv, pos)
            if "v" in p:
                v = linear(h, p["v"]).reshape(n, G, d)
            else:  # attention_k_eq_v: the raw k_proj output (the variants: a reader's wrong taps)
                v = k if "v after k_norm" in variant else k_rot if "v after rope" in variant else raw
            kv[l] = (k, k_rot, v if "no v_norm" in variant else norm(v))
        k, k_rot, v = kv[kv_source(c, l)]
        q_rot = q if inv is None else mf.rope(q, inv, pos)
        usage.append(mm.frequency_usage(q, k))
        ok = mf.visible(n, spec["window"] if sliding else None)
        out, w, _ = md.masked_attention(q_rot, k_rot, v, d ** -0.5 if "scale 1/sqrt(d)" in variant else 1.0, ok)
        attn.append(w)
        if trace is not None:
            trace.setdefault("q", []).append(q_rot)
            trace.setdefault("k", []).append(k_rot)
            trace.setdefault("v", []).append(v)
        x = x + norm(linear(out, p["o"]), p["ln_post_attn"])
        r = x
        if "single-wide MLP" in variant:
            I = c["inter"]
        hf = norm(r, p["ln_pre_ff"])
        m = linear(mm.gelu_new(linear(hf, p["gate"][:I])) * linear(hf, p["up"][:I]), p["down"][:, :I])
        if c["moe"]:
            routes = route(r, p, c, variant)
            x2 = norm(r, p["ln_pre_ff2"])
            if trace is not None:
                trace.setdefault("moe", []).append((x2, routes))
            m = norm(m, p["ln_post_ff1"]) + norm(experts(x2, p, routes, c["moe_inter"]), p["ln_post_ff2"])
            routes_all.append([[[int(e), float(wt)] for e, wt in zip(idx, w_)] for idx, w_ in routes])
        x = r + norm(m, p["ln_post_ff"])
        if P and "no per-layer inputs" not in variant:
            g = mm.gelu_new(linear(x, p["ple_gate"])) * ple[:, l, :]
            x = x + norm(linear(g, p["ple_proj"]), p["ple_post_norm"])
        if "no layer_scalar" not in variant:
            x = x * p["layer_scalar"][0]
    logits = linear(norm(x, W["norm"]), W["embed"])
    if "no soft-cap" not in variant:
        logits = SOFTCAP * np.tanh(logits / SOFTCAP)
    return np.array(attn), logits, usage, routes_all


# ---- Cases ---------------------------------------------------------------------------------------------


def case_specs(c):
    """The six cases: (name, spec). Full layers: proportional over global_head_dim; sliding: default."""
    loc, glob = ROPE_PARAMETERS[SLIDING]["rope_theta"], ROPE_PARAMETERS[FULL]["rope_theta"]
    frac, D, d = ROPE_PARAMETERS[FULL]["partial_rotary_factor"], c["global_head_dim"], c["head_dim"]

    def spec(local_inv, global_inv, window=c["window"]):
        return {"inv": {SLIDING: local_inv, FULL: global_inv}, "window": window}

    base_loc, base_glob = mm.rope_default_inv_freq(loc, d), proportional_inv_freq(glob, D, frac)[0]
    return [("base", spec(base_loc, base_glob)), ("rope_off", spec(None, None)),
            ("rope_theta_10000", spec(base_loc, proportional_inv_freq(10000.0, D, frac)[0])),
            ("local_base_1000", spec(mm.rope_default_inv_freq(1000.0, d), base_glob)),
            ("rotary_dim_8", spec(base_loc, proportional_inv_freq(glob, D, 8 / D)[0])),
            ("window_none", spec(base_loc, base_glob, None))]


def run_cases(W, c, ids):
    cases, visibles = {}, {}
    for name, spec in case_specs(c):
        attn, logits, usage, routes = forward(W, c, ids, spec)
        extra = {"frequency_usage": [u.tolist() for u in usage]}
        if spec["inv"][SLIDING] is not None:
            extra.update(inv_freq_local=spec["inv"][SLIDING], inv_freq_global=spec["inv"][FULL])
        if c["moe"]:
            extra["experts"] = routes
        cases[name] = mf.case_entry(attn, logits, ids, **extra)
        visibles[name] = [mf.visible(T, spec["window"] if t == SLIDING else None) for t in c["types"]]
    return cases, visibles


def check_rope(c):
    """The proportional frequencies: k non-zero, rotating dims (i, i + D/2) for i < k only; the sliding
    layers' default frequencies over head_dim; the window."""
    D = c["global_head_dim"]
    for theta, frac, k in [(1000000.0, 0.25, 2), (10000.0, 0.25, 2), (1000000.0, 0.5, 4)]:
        inv, got = proportional_inv_freq(theta, D, frac)
        assert got == k and len(inv) == D // 2 and np.count_nonzero(inv) == k, (theta, frac, inv)
        assert np.allclose(inv[:k], [theta ** (-2.0 * i / D) for i in range(k)], rtol=1e-15, atol=0)
        x = np.random.RandomState(4).standard_normal((3, 2, D))
        y = mf.rope(x, inv, np.array([0.0, 5.0, 9.0]))
        turned = sorted(list(range(k)) + [i + D // 2 for i in range(k)])
        still = [j for j in range(D) if j not in turned]
        assert np.array_equal(y[..., still], x[..., still]) and np.all(np.abs(y[1:, :, turned] - x[1:, :, turned]) > 0)
        # Pair i as a complex number (x_i + i·x_{i+D/2}) × e^{i·p·θ_i}.
        z = (x[..., :k] + 1j * x[..., D // 2:D // 2 + k]) * np.exp(1j * np.outer([0.0, 5.0, 9.0], inv[:k]))[:, None, :]
        assert np.allclose(y[..., :k], z.real, atol=1e-12) and np.allclose(y[..., D // 2:D // 2 + k], z.imag, atol=1e-12)
    assert [j for j in range(T) if mf.visible(T, 3)[7, j]] == [5, 6, 7]
    assert bf16_scale(math.sqrt(32)) == 5.65625 and bf16_scale(2.0) == 2.0


def check_kv_sharing(W, c, ids, cases):
    """Each KV-shared layer's keys and values are its source's; its attention is its own queries
    against them (a second computation from the trace)."""
    trace = {}
    spec = dict(case_specs(c))["base"]
    forward(W, c, ids, spec, trace=trace)
    pairs = [(l, kv_source(c, l)) for l in range(len(c["types"])) if kv_source(c, l) != l]
    assert pairs == ([(3, 1), (4, 2)] if c["kv_shared"] else []), pairs
    for l, src in pairs:
        assert np.array_equal(trace["k"][l], trace["k"][src]) and np.array_equal(trace["v"][l], trace["v"][src])
        assert "k" not in W["layers"][l] and "v" not in W["layers"][l] and "k_norm" not in W["layers"][l]
        sliding, d, G, _ = geometry(c, l)
        kh = np.repeat(trace["k"][src], c["heads"] // G, axis=1)
        s = np.where(mf.visible(T, spec["window"] if sliding else None)[None],
                     np.einsum("thd,shd->hts", trace["q"][l], kh), -np.inf)
        assert np.allclose(mm.softmax(s, axis=-1), cases["base"]["attention"][l], rtol=0, atol=1e-14)
        assert np.max(np.abs(cases["base"]["attention"][l] - cases["base"]["attention"][src])) > 1e-3
    # v_norm: every value vector of unit mean square (up to eps).
    for v in trace["v"]:
        assert np.allclose(np.mean(v * v, axis=-1), 1.0, rtol=0, atol=1e-4)
    return trace


def check_moe(W, c, ids):
    """The experts' loop against HF's batched all-experts form."""
    trace = {}
    forward(W, c, ids, dict(case_specs(c))["base"], trace=trace)
    for l, (x2, routes) in enumerate(trace["moe"]):
        assert np.allclose(experts(x2, W["layers"][l], routes, c["moe_inter"]),
                           experts_dense(x2, W["layers"][l], routes, c["moe_inter"]), rtol=1e-12, atol=1e-12)


def sensitivity(label, W, c, ids, base_logits, variants):
    """What a reader could get wrong moves the logits by more than 1e-3 (relative to the largest logit,
    the test's measure: more than 10× its 1e-4); the exact embed scale is printed, not asserted."""
    spec = dict(case_specs(c))["base"]
    biggest = np.max(np.abs(base_logits))
    diffs = {}
    for v in variants + ["exact embed scale"]:
        logits = forward(W, c, ids, spec, variant=(v,))[1]
        diffs[v] = float(np.max(np.abs(logits - base_logits)) / biggest)
        if v != "exact embed scale":
            assert diffs[v] > 1e-3, (label, v, diffs[v])
    md.MARGINS.clear()
    ORDER_GAPS.clear()
    print(f"  {label}: max |Δ logits| / max |logit| if " + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items()))
    return diffs


# ---- Folders -------------------------------------------------------------------------------------------


def text_config(tok, V, c):
    """Gemma4TextConfig as transformers 5 writes it (gemma-4-E2B's keys; sizes cut down)."""
    L = len(c["types"])
    config = {
        "architectures": ["Gemma4ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "attention_k_eq_v": c["k_eq_v"], "bos_token_id": tok.special_id, "dtype": "bfloat16",
        "enable_moe_block": c["moe"], "eos_token_id": tok.special_id, "final_logit_softcapping": SOFTCAP,
        "global_head_dim": c["global_head_dim"], "head_dim": c["head_dim"], "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": c["hidden"], "hidden_size_per_layer_input": c["ple"], "initializer_range": 0.02,
        "intermediate_size": c["inter"], "layer_types": c["types"], "max_position_embeddings": 131072,
        "model_type": "gemma4_text", "moe_intermediate_size": c.get("moe_inter"), "num_attention_heads": c["heads"],
        "num_experts": c.get("experts"), "num_global_key_value_heads": c["global_kv_heads"], "num_hidden_layers": L,
        "num_key_value_heads": c["kv_heads"], "num_kv_shared_layers": c["kv_shared"], "pad_token_id": 0,
        "rms_norm_eps": EPS, "rope_parameters": ROPE_PARAMETERS, "sliding_window": c["window"],
        "tie_word_embeddings": True, "top_k_experts": c.get("top"), "transformers_version": "5.5.0",
        "use_bidirectional_attention": None, "use_cache": True, "use_double_wide_mlp": c["double_wide"],
        "vocab_size": V, "vocab_size_per_layer_input": V,
    }
    return dict(sorted(config.items()))


def write_mm(out, tok, V, c, st, ids):
    """gemma4_mm: Gemma4ForConditionalGeneration's config and names. The multimodal token ids are the
    padded vocabulary's unused rows (never in ids or the texts)."""
    text = {k: v for k, v in text_config(tok, V, c).items() if k not in ("architectures", "dtype", "transformers_version")}
    specials = dict(zip(["audio_token_id", "boa_token_id", "boi_token_id", "eoa_token_index", "eoi_token_id",
                         "image_token_id", "video_token_id"], range(tok.size, V)))
    used = set(ids) | {i for t in mm.TEXTS for i in tok.encode(t)}
    assert len(specials) == 7 and not used & set(specials.values()), specials
    config = dict({"architectures": ["Gemma4ForConditionalGeneration"], "audio_config": None, "dtype": "bfloat16",
                   "initializer_range": 0.02, "model_type": "gemma4", "text_config": text, "tie_word_embeddings": True,
                   "transformers_version": "5.5.0",
                   "vision_config": {"head_dim": 7, "hidden_size": 7, "intermediate_size": 9, "model_type": "gemma4_vision",
                                     "num_attention_heads": 1, "num_hidden_layers": 1, "num_key_value_heads": 1,
                                     "patch_size": 2, "pooling_kernel_size": 1, "position_embedding_size": 5}},
                  **specials)
    renamed = [("model.language_model." + name[len("model."):], dt, raw) for name, dt, raw in st.tensors]
    vision = [(name, "BF16", mm.stored(normal(np.random.RandomState(9), shape, 0.1), "BF16")[0])
              for name, shape in [("model.vision_tower.patch_embedder.input_proj.weight", (7, 12)),
                                  ("model.vision_tower.patch_embedder.position_embedding_table", (2, 5, 7)),
                                  ("model.embed_vision.embedding_projection.weight", (c["hidden"], 7))]]
    folder = os.path.join(out, "gemma4_mm")
    mm.write_folder(folder, dict(sorted(config.items())), tok, {"model.safetensors": vision + renamed})
    mm.check_roundtrip(os.path.join(folder, "model.safetensors"), vision + renamed)


def layer_infos(c):
    D, frac = c["global_head_dim"], ROPE_PARAMETERS[FULL]["partial_rotary_factor"]
    out = []
    for l, t in enumerate(c["types"]):
        sliding, d, G, I = geometry(c, l)
        src = kv_source(c, l)
        common = {"rope_style": "half", "head_dim": d, "kv_heads": G, "kv_shared_from": None if src == l else src,
                  "mlp_width": I, "scaling": 1.0}
        if sliding:
            out.append(mf.layer_info("rope", c["window"], ROPE_PARAMETERS[SLIDING]["rope_theta"], d, **common))
        else:
            k = proportional_inv_freq(1.0, D, frac)[1]
            out.append(mf.layer_info("rope", None, ROPE_PARAMETERS[FULL]["rope_theta"], 2 * k, rope_type="proportional",
                                     partial_rotary_factor=frac, **common))
    return out


def build(out, name, c, seed, ids_seed, write=True):
    tok = mm.Tokenizer(special="<bos>", special_in_vocab=True, bos=True)
    V = mm.padded_vocab(tok.size)
    st, W = weights(np.random.RandomState(seed), c, V)
    ids = mm.random_ids(np.random.RandomState(ids_seed), tok.size, bos=tok.special_id)
    md.MARGINS.clear()
    ORDER_GAPS.clear()
    if not write:  # a seed search: only the routing margins
        run_cases(W, c, ids)
        result = (min(md.MARGINS), min(ORDER_GAPS))
        md.MARGINS.clear()
        ORDER_GAPS.clear()
        return result
    folder = os.path.join(out, name)
    mm.write_folder(folder, text_config(tok, V, c), tok, {"model.safetensors": st.tensors})
    mm.check_roundtrip(os.path.join(folder, "model.safetensors"), st.tensors)
    cases, visibles = run_cases(W, c, ids)
    md.check_design_cases(name, cases, visibles)
    for cname, case in cases.items():
        assert [len(u[0]) for u in case["frequency_usage"]] == [geometry(c, l)[1] // 2 for l in range(len(c["types"]))]
    if c["moe"]:
        md.check_margins(name)
        swapped = sum(g < 0 for g in ORDER_GAPS)
        assert swapped > 0, "per_expert_scale never reorders the weights: the listing order goes untested"
        print(f"  {name}: per_expert_scale makes the second expert's weight the larger at {swapped} of "
              f"{len(ORDER_GAPS)} positions (listed in torch.topk's order all the same)")
        ORDER_GAPS.clear()
        check_moe(W, c, ids)
    check_kv_sharing(W, c, ids, cases)
    variants = ["no layer_scalar", "no v_norm", "no soft-cap", "scale 1/sqrt(d)"]
    if c["ple"]:
        variants.append("no per-layer inputs")
    if c["double_wide"]:
        variants.append("single-wide MLP")
    if c["k_eq_v"]:
        variants += ["v after k_norm", "v after rope"]
    if c["moe"]:
        variants += ["router on normed", "no per_expert_scale"]
    sensitivity(name, W, c, ids, cases["base"]["logits"], variants)
    layers = layer_infos(c)
    mf.write_reference(out, name, ids, tok, layers, cases)
    if name == "gemma4":
        write_mm(out, tok, V, c, st, ids)
        mf.write_reference(out, "gemma4_mm", ids, tok, layers, {k: cases[k] for k in ["base", "rope_off"]})
    a = cases["base"]["attention"][:, :, 3:, :]
    print(f"{name}: ids {ids}; base loss {cases['base']['loss']:.4f}, max attention weight per query "
          f"{a.max(axis=-1).mean():.3f}; cases {', '.join(cases)}"
          + (f"; layer 1 position 0 experts {cases['base']['experts'][1][0]}" if c["moe"] else ""))
    return cases


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_gemma4_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    check_rope(GEMMA4)
    build(out, "gemma4", GEMMA4, GEMMA4_SEED, GEMMA4_IDS_SEED)
    build(out, "gemma4_moe", GEMMA4_MOE, MOE_SEED, MOE_IDS_SEED)
    print(f"{out}: {', '.join(FOLDERS)}")


if __name__ == "__main__":
    main()
