#!/usr/bin/python3
"""Independent references for OLMo 2 and the multimodal wrappers' language models.

Written from Hugging Face transformers' published definitions (modeling_olmo2: no norm before the
attention or the MLP, an RMSNorm after each, added to x after the norm; q_norm and k_norm RMSNorms
over the whole q and k projections before RoPE. modeling_gemma3 / modeling_mistral3 /
modeling_qwen2_5_vl / modeling_qwen3_vl: the ...ForConditionalGeneration classes run their text
model on text exactly as the text-only class does; M-RoPE's three position ids are all
arange(T) for text, so every section rotates by the same positions as 1-D RoPE), NOT from
PosLab's C++ code. Only NumPy.

Usage:  /usr/bin/python3 tests/reference/make_wrapper_reference.py OUTDIR

Writes, beside make_model_reference.py's files, one folder per case with OUTDIR/<folder>.reference.json:

  olmo2          Olmo2ForCausalLM                       base, rope_off, rope_theta_10000
  olmo3          Olmo3ForCausalLM                       base, rope_off, rope_theta_10000, window_none (layer_types
                                                        with 3 sliding layers of 4, linear ×4 on the full layer only)
  gemma3_mm      Gemma3ForConditionalGeneration         gemma3_v5's model in text_config (rope_parameters per layer
                                                        type), tensors named model.language_model.* (transformers ≥ 4.52)
  mistral3       Mistral3ForConditionalGeneration       the mistral folder's model, tensors named language_model.model.*
                                                        and language_model.lm_head.* (transformers < 4.52)
  qwen2_5_vl     Qwen2_5_VLForConditionalGeneration     a Qwen2-style model with its keys at the top level (older files),
                                                        rope_scaling {"type": "mrope", "mrope_section"}, text tensors
                                                        model.layers.*, the vision tower under visual.*
  qwen2_5_vl_v5  (the same weights as transformers 5 saves them: text_config with rope_parameters and
                 mrope_section, tensors model.language_model.*)
  qwen3_vl       Qwen3VLForConditionalGeneration        the qwen3 folder's model, interleaved M-RoPE (mrope_interleaved)

Each wrapper folder also holds vision tensors of shapes no text model has: a reader that touched
them would fail.

And the mixtures of experts (modeling_qwen3_moe, modeling_mixtral: router logits = x·Wᵀ, softmax
over every expert in float, the top num_experts_per_tok, renormalized when norm_topk_prob (Mixtral:
always), the chosen experts' gated MLPs weighted and summed; Qwen3-MoE's layers in mlp_only_layers,
or not a multiple of decoder_sparse_step, keep a dense MLP):

  qwen3_moe        Qwen3MoeForCausalLM   3 layers (layer 1 dense), 4 experts, top 2, experts one tensor each
  qwen3_moe_fused  (the same weights as transformers 5 stacks them: experts.gate_up_proj, experts.down_proj;
                   rope_parameters)
  mixtral          MixtralForCausalLM    2 layers, 4 experts, top 2, block_sparse_moe.experts.N.w1/w2/w3
  mixtral_window   (the same with sliding_window 4)
Their references add "experts": per case, per layer, per position, [[expert, weight], …].
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402
import make_family_reference as mf  # noqa: E402

FOLDERS = ["olmo2", "olmo3", "gemma3_mm", "mistral3", "qwen2_5_vl", "qwen2_5_vl_v5", "qwen3_vl", "qwen3_moe", "qwen3_moe_fused",
           "mixtral", "mixtral_window"]
normal = mm.normal


# ---- OLMo 2 ----------------------------------------------------------------------------------


def olmo2_forward(W, c, ids, inv_freq, windows=None):
    """Olmo2ForCausalLM: x += post_attention_layernorm(attn(x)); x += post_feedforward_layernorm(mlp(x));
    q = q_norm(q_proj(x)) and k = k_norm(k_proj(x)) over the whole projection, then RoPE (rotate-half).
    inv_freq: one for every layer, or a list of one per layer (OLMo 3); windows: one per layer (OLMo 3)."""
    H, G, d, eps, n = c["heads"], c["kv_heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    x = W["embed"][ids]
    attn = []
    for layer, p in enumerate(W["layers"]):
        inv = inv_freq[layer] if isinstance(inv_freq, list) else inv_freq
        window = windows[layer] if windows else None
        q = mm.rms_norm(mm.linear(x, p["q"]), p["q_norm"], eps).reshape(n, H, d)
        k = mm.rms_norm(mm.linear(x, p["k"]), p["k_norm"], eps).reshape(n, G, d)
        v = mm.linear(x, p["v"]).reshape(n, G, d)
        if inv is not None:
            q, k = mf.rope(q, inv, pos), mf.rope(k, inv, pos)
        out, w = mf.attention(q, k, v, d ** -0.5, window=window)
        attn.append(w)
        x = x + mm.rms_norm(mm.linear(out, p["o"]), p["ln_post_attn"], eps)
        m = mm.linear(mm.silu(mm.linear(x, p["gate"])) * mm.linear(x, p["up"]), p["down"])
        x = x + mm.rms_norm(m, p["ln_post_ff"], eps)
    return np.array(attn), mm.linear(mm.rms_norm(x, W["norm"], eps), W["lm_head"])


def olmo_weights(rs, V, n, H, G, d, I, L):
    """An OLMo 2 / OLMo 3 model's tensors, named as the Hub files name them."""
    st = mm.Store("F32")
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(L):
        pre = f"model.layers.{i}."
        W["layers"].append({
            "q": st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), 0.3)),
            "k": st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), 0.3)),
            "v": st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.1)),
            "o": st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1)),
            "q_norm": st.add(pre + "self_attn.q_norm.weight", normal(rs, (H * d,), 0.3, 1.5)),
            "k_norm": st.add(pre + "self_attn.k_norm.weight", normal(rs, (G * d,), 0.3, 1.5)),
            "ln_post_attn": st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
            "gate": st.add(pre + "mlp.gate_proj.weight", normal(rs, (I, n), 0.1)),
            "up": st.add(pre + "mlp.up_proj.weight", normal(rs, (I, n), 0.1)),
            "down": st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1)),
            "ln_post_ff": st.add(pre + "post_feedforward_layernorm.weight", normal(rs, (n,), 0.1, 1.0))})
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    return st, W


def build_olmo2(out):
    rs = np.random.RandomState(51)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=True, bos=False)
    V = mm.padded_vocab(tok.size)
    n, H, G, d, I, L, eps, theta = 32, 4, 2, 8, 64, 2, 1e-6, 500000.0
    st, W = olmo_weights(rs, V, n, H, G, d, I, L)
    # As allenai/OLMo-2-0425-1B's config.json (sizes cut down).
    config = {
        "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "eos_token_id": tok.special_id, "pad_token_id": tok.special_id, "hidden_act": "silu", "hidden_size": n,
        "initializer_range": 0.02, "intermediate_size": I, "max_position_embeddings": 4096, "model_type": "olmo2",
        "num_attention_heads": H, "num_hidden_layers": L, "num_key_value_heads": G, "rms_norm_eps": eps,
        "rope_scaling": None, "rope_theta": theta, "tie_word_embeddings": False, "torch_dtype": "float32",
        "use_cache": True, "vocab_size": V,
    }
    mm.write_folder(os.path.join(out, "olmo2"), config, tok, {"model.safetensors": st.tensors})
    ids = mm.random_ids(np.random.RandomState(151), tok.size)
    c = {"heads": H, "kv_heads": G, "head_dim": d, "eps": eps}
    cases = {}
    for name, inv in [("base", mm.rope_default_inv_freq(theta, d)), ("rope_off", None),
                      ("rope_theta_10000", mm.rope_default_inv_freq(10000.0, d))]:
        attn, logits = olmo2_forward(W, c, ids, inv)
        cases[name] = mf.case_entry(attn, logits, ids)
    mf.check_cases("olmo2", cases, {k: [None] * L for k in cases})
    mf.write_reference(out, "olmo2", ids, tok, [mf.layer_info("rope", None, theta, d, rope_style="half")] * L, cases)
    print(f"olmo2: base loss {cases['base']['loss']:.4f}")


def build_olmo3(out):
    """Olmo3ForCausalLM: OLMo 2 with layer_types (three sliding layers of four, window 3 here) and
    the config's RoPE scaling (linear ×4 here) on the full-attention layers only: the sliding layers
    rotate by rope_theta unscaled (transformers' per-layer-type Olmo3RotaryEmbedding, OLMo-core)."""
    rs = np.random.RandomState(53)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=True, bos=False)
    V = mm.padded_vocab(tok.size)
    n, H, G, d, I, L, eps, theta, window, factor = 32, 4, 2, 8, 64, 4, 1e-6, 500000.0, 3, 4.0
    st, W = olmo_weights(rs, V, n, H, G, d, I, L)
    types = ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]
    # As allenai/Olmo-3-1025-7B's config.json (sizes cut down, a linear scaling in place of its YaRN).
    config = {
        "architectures": ["Olmo3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "eos_token_id": tok.special_id, "pad_token_id": tok.special_id, "hidden_act": "silu", "hidden_size": n,
        "initializer_range": 0.02, "intermediate_size": I, "layer_types": types, "max_position_embeddings": 65536,
        "model_type": "olmo3", "num_attention_heads": H, "num_hidden_layers": L, "num_key_value_heads": G,
        "rms_norm_eps": eps, "rope_scaling": {"rope_type": "linear", "factor": factor}, "rope_theta": theta,
        "sliding_window": window, "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True,
        "vocab_size": V,
    }
    mm.write_folder(os.path.join(out, "olmo3"), config, tok, {"model.safetensors": st.tensors})
    ids = mm.random_ids(np.random.RandomState(153), tok.size)
    c = {"heads": H, "kv_heads": G, "head_dim": d, "eps": eps}
    sliding = [t == "sliding_attention" for t in types]

    def per_layer(base):
        inv = mm.rope_default_inv_freq(base, d)
        return [inv if s else mm.rope_linear_inv_freq(inv, factor) for s in sliding]

    windows = [window if s else None for s in sliding]
    cases, case_windows = {}, {}
    for name, inv, wins in [("base", per_layer(theta), windows), ("rope_off", None, windows),
                            ("rope_theta_10000", per_layer(10000.0), windows), ("window_none", per_layer(theta), None)]:
        attn, logits = olmo2_forward(W, c, ids, inv, wins)
        cases[name] = mf.case_entry(attn, logits, ids)
        case_windows[name] = wins or [None] * L
    mf.check_cases("olmo3", cases, case_windows)
    layers = [mf.layer_info("rope", window if s else None, theta, d, rope_style="half") for s in sliding]
    mf.write_reference(out, "olmo3", ids, tok, layers, cases)
    print(f"olmo3: base loss {cases['base']['loss']:.4f}")


# ---- Wrappers --------------------------------------------------------------------------------


def read_raw_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    return json.loads(blob[8:8 + n].decode("utf-8")), blob[8 + n:]


def write_raw_safetensors(path, header, data):
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        f.write(data)


def rewrap(src_dir, dst_dir, config, rename, vision):
    """The text model's folder as a wrapper's: config.json replaced, every tensor renamed by
    rename(name), and vision tensors (name → shape, F32 zeros) appended."""
    os.makedirs(dst_dir, exist_ok=True)
    header, data = read_raw_safetensors(os.path.join(src_dir, "model.safetensors"))
    out = {}
    for name, info in header.items():
        out[name if name == "__metadata__" else rename(name)] = info
    extra = bytearray()
    for name, shape in vision.items():
        size = 4 * int(np.prod(shape))
        out[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [len(data) + len(extra), len(data) + len(extra) + size]}
        extra += bytes(size)
    write_raw_safetensors(os.path.join(dst_dir, "model.safetensors"), out, bytes(data) + bytes(extra))
    shutil.copy(os.path.join(src_dir, "tokenizer.json"), os.path.join(dst_dir, "tokenizer.json"))
    mm.write_text(os.path.join(dst_dir, "config.json"), json.dumps(config, indent=2))


def text_config(src_dir, model_type, **changes):
    with open(os.path.join(src_dir, "config.json")) as f:
        c = json.load(f)
    c.pop("architectures", None)
    c["model_type"] = model_type
    c.update(changes)
    return c


def copy_reference(tmp, src, out, dst):
    shutil.copy(os.path.join(tmp, src + ".reference.json"), os.path.join(out, dst + ".reference.json"))


def v5_names(name):
    """transformers ≥ 4.52: model.language_model.* for the text model, lm_head.* at the top."""
    return "model.language_model." + name[len("model."):] if name.startswith("model.") else name


def old_names(name):
    """transformers < 4.52: language_model.model.* and language_model.lm_head.*."""
    return "language_model." + name


def build_wrappers(out, tmp):
    mf.build_gemma3(tmp)
    mf.build_mistral(tmp)
    mf.build_qwen3(tmp)
    vision_v5 = {"model.vision_tower.vision_model.embeddings.patch_embedding.weight": (7, 3, 2, 2),
                 "model.multi_modal_projector.mm_input_projection_weight": (5, 3)}
    rewrap(os.path.join(tmp, "gemma3_v5"), os.path.join(out, "gemma3_mm"), {
        "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
        "text_config": text_config(os.path.join(tmp, "gemma3_v5"), "gemma3_text"),
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 7}, "mm_tokens_per_image": 4,
        "image_token_index": 3, "transformers_version": "5.0.0"}, v5_names, vision_v5)
    copy_reference(tmp, "gemma3_v5", out, "gemma3_mm")
    rewrap(os.path.join(tmp, "mistral"), os.path.join(out, "mistral3"), {
        "architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
        "text_config": text_config(os.path.join(tmp, "mistral"), "mistral"),
        "vision_config": {"model_type": "pixtral", "hidden_size": 7}, "image_token_index": 3,
        "spatial_merge_size": 2}, old_names,
        {"vision_tower.transformer.layers.0.attention.q_proj.weight": (7, 3), "multi_modal_projector.linear_1.weight": (5, 7)})
    copy_reference(tmp, "mistral", out, "mistral3")
    # Qwen3-VL: interleaved M-RoPE over the 8 pairs of a 16-wide head.
    rewrap(os.path.join(tmp, "qwen3"), os.path.join(out, "qwen3_vl"), {
        "architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
        "text_config": text_config(os.path.join(tmp, "qwen3"), "qwen3_vl_text", rope_scaling={
            "rope_type": "default", "mrope_section": [4, 2, 2], "mrope_interleaved": True}),
        "vision_config": {"model_type": "qwen3_vl", "hidden_size": 7}, "image_token_id": 3}, v5_names,
        {"model.visual.patch_embed.proj.weight": (7, 3, 2, 2, 2)})
    copy_reference(tmp, "qwen3", out, "qwen3_vl")


def build_qwen2_5_vl(out):
    rs = np.random.RandomState(52)
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False, merges_as_pairs=True)
    V = mm.padded_vocab(tok.size)
    cfg = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 96, "layers": 2, "eps": 1e-6, "qk_std": 0.2}
    st = mm.Store("BF16")
    W = mm.llama_like_weights(rs, st, cfg, V, prefix_bias=True, tied=False)
    theta, section = 1000000.0, [2, 3, 3]  # 8 pairs: t on 2, h on 3, w on 3
    text = {
        "attention_dropout": 0.0, "bos_token_id": tok.special_id, "eos_token_id": tok.special_id, "hidden_act": "silu",
        "hidden_size": 64, "initializer_range": 0.02, "intermediate_size": 96, "max_position_embeddings": 128000,
        "max_window_layers": 2, "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
        "rms_norm_eps": 1e-6, "sliding_window": 32768, "tie_word_embeddings": False, "use_cache": True,
        "use_sliding_window": False, "vocab_size": V,
    }
    old = dict(text, architectures=["Qwen2_5_VLForConditionalGeneration"], model_type="qwen2_5_vl", rope_theta=theta,
               rope_scaling={"type": "mrope", "mrope_section": section}, torch_dtype="bfloat16",
               vision_config={"model_type": "qwen2_5_vl", "hidden_size": 7}, image_token_id=3)
    vision = [("visual.patch_embed.proj.weight", "F32", np.zeros((7, 3, 2, 2, 2), dtype=np.float32))]
    mm.write_folder(os.path.join(out, "qwen2_5_vl"), old, tok, {"model.safetensors": st.tensors + vision})
    new = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "dtype": "bfloat16",
           "text_config": dict(text, model_type="qwen2_5_vl_text",
                               rope_parameters={"rope_type": "default", "rope_theta": theta, "mrope_section": section}),
           "vision_config": {"model_type": "qwen2_5_vl", "hidden_size": 7}, "image_token_id": 3,
           "transformers_version": "5.0.0"}
    renamed = [(v5_names(n), dt, raw) for n, dt, raw in st.tensors] + [("model.visual.patch_embed.proj.weight",) + vision[0][1:]]
    mm.write_folder(os.path.join(out, "qwen2_5_vl_v5"), new, tok, {"model.safetensors": renamed})
    ids = mm.random_ids(np.random.RandomState(152), tok.size)
    cases = mm.rope_cases(W, cfg, ids, theta, None, "qwen2_5_vl")
    for name in ["qwen2_5_vl", "qwen2_5_vl_v5"]:
        mm.write_reference(os.path.join(out, name + ".reference.json"), ids, tok, cases)


# ---- Mixtures of experts ----------------------------------------------------------------------


def route(h_row, router, k, renormalize):
    """One token's experts: softmax over every expert, the k largest (stable order), renormalized."""
    logits = router @ h_row
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    idx = np.argsort(-p, kind="stable")[:k]
    w = p[idx]
    if renormalize:
        w = w / w.sum()
    return idx, w


def moe_forward(W, c, ids, inv_freq, window):
    """Qwen3-MoE / Mixtral: Llama's block (Qwen3's per-head q/k RMSNorm when present); a sparse layer's
    MLP sums its chosen experts' down(silu(gate·x) ⊙ up·x), each × its routing weight."""
    H, G, d, eps, n = c["heads"], c["kv_heads"], c["head_dim"], c["eps"], len(ids)
    pos = np.arange(n)
    x = W["embed"][ids]
    attn, routes = [], []
    for p in W["layers"]:
        h = mm.rms_norm(x, p["ln_in"], eps)
        q, k, v = mm.linear(h, p["q"]).reshape(n, H, d), mm.linear(h, p["k"]).reshape(n, G, d), mm.linear(h, p["v"]).reshape(n, G, d)
        if "q_norm" in p:
            q, k = mm.rms_norm(q, p["q_norm"], eps), mm.rms_norm(k, p["k_norm"], eps)
        if inv_freq is not None:
            q, k = mf.rope(q, inv_freq, pos), mf.rope(k, inv_freq, pos)
        out, w = mf.attention(q, k, v, d ** -0.5, window=window)
        attn.append(w)
        x = x + mm.linear(out, p["o"])
        h = mm.rms_norm(x, p["ln_post"], eps)
        if "router" not in p:
            routes.append([])
            x = x + mm.linear(mm.silu(mm.linear(h, p["gate"])) * mm.linear(h, p["up"]), p["down"])
            continue
        m = np.zeros_like(x)
        chosen = []
        for t in range(n):
            idx, wt = route(h[t], p["router"], c["top"], c["renormalize"])
            chosen.append([[int(e), float(v_)] for e, v_ in zip(idx, wt)])
            for e, v_ in zip(idx, wt):
                ex = p["experts"][e]
                m[t] += v_ * (ex["down"] @ (mm.silu(ex["gate"] @ h[t]) * (ex["up"] @ h[t])))
        routes.append(chosen)
        x = x + m
    return np.array(attn), mm.linear(mm.rms_norm(x, W["norm"], eps), W["lm_head"]), routes


def moe_weights(rs, st, c, V, names, dense_layers, qk_norm):
    """Random weights; names(layer, kind, expert) gives each tensor's name (None: stacked later)."""
    n, H, G, d, I, Ie, E = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["inter"], c["expert_inter"], c["experts"]
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (V, n), 1.0)), "layers": []}
    for i in range(c["layers"]):
        pre = f"model.layers.{i}."
        p = {"ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0)),
             "q": st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), 0.3)),
             "k": st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), 0.3)),
             "v": st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.1)),
             "o": st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1))}
        if qk_norm:
            p["q_norm"] = st.add(pre + "self_attn.q_norm.weight", normal(rs, (d,), 0.3, 1.5))
            p["k_norm"] = st.add(pre + "self_attn.k_norm.weight", normal(rs, (d,), 0.3, 1.5))
        p["ln_post"] = st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))
        if i in dense_layers:
            p["gate"] = st.add(pre + "mlp.gate_proj.weight", normal(rs, (I, n), 0.1))
            p["up"] = st.add(pre + "mlp.up_proj.weight", normal(rs, (I, n), 0.1))
            p["down"] = st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1))
        else:
            p["router"] = st.add(names(i, "router", None), normal(rs, (E, n), 1.0))
            p["experts"] = [{"gate": normal(rs, (Ie, n), 0.2), "up": normal(rs, (Ie, n), 0.2), "down": normal(rs, (n, Ie), 0.2)}
                            for _ in range(E)]
        W["layers"].append(p)
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = st.add("lm_head.weight", normal(rs, (V, n), 0.1))
    return W


def expert_tensors(W, dtype, split_name, stacked_name):
    """The experts as stored: one tensor each (split_name(layer, kind, e)) or stacked (stacked_name(layer, kind)).
    Values are rounded to the dtype first, so both forms hold the same numbers."""
    out = []
    for i, p in enumerate(W["layers"]):
        if "experts" not in p:
            continue
        for ex in p["experts"]:
            for key in ("gate", "up", "down"):
                raw, ex[key] = mm.stored(ex[key], dtype)
                ex[key + "_raw"] = raw
        if split_name:
            for e, ex in enumerate(p["experts"]):
                for key in ("gate", "up", "down"):
                    out.append((split_name(i, key, e), dtype, ex[key + "_raw"]))
        else:
            gate_up = np.stack([np.concatenate([ex["gate_raw"], ex["up_raw"]]) for ex in p["experts"]])
            down = np.stack([ex["down_raw"] for ex in p["experts"]])
            out += [(stacked_name(i, "gate_up"), dtype, gate_up), (stacked_name(i, "down"), dtype, down)]
    return out


def build_qwen3_moe(out):
    tok = mm.Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False, merges_as_pairs=True)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 8, "inter": 48, "expert_inter": 16, "experts": 4, "top": 2,
         "layers": 3, "eps": 1e-6, "renormalize": True}
    theta = 1000000.0
    base_config = {
        "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "decoder_sparse_step": 1,
        "eos_token_id": tok.special_id, "head_dim": 8, "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 48,
        "max_position_embeddings": 40960, "max_window_layers": 3, "mlp_only_layers": [1], "model_type": "qwen3_moe",
        "moe_intermediate_size": 16, "norm_topk_prob": True, "num_attention_heads": 4, "num_experts": 4,
        "num_experts_per_tok": 2, "num_hidden_layers": 3, "num_key_value_heads": 2, "output_router_logits": False,
        "rms_norm_eps": 1e-6, "router_aux_loss_coef": 0.001, "sliding_window": None, "tie_word_embeddings": False,
        "use_cache": True, "use_sliding_window": False, "vocab_size": V,
    }
    results = {}
    for name, fused in [("qwen3_moe", False), ("qwen3_moe_fused", True)]:
        rs = np.random.RandomState(53)
        st = mm.Store("BF16")
        W = moe_weights(rs, st, c, V, lambda i, kind, e: f"model.layers.{i}.mlp.gate.weight", {1}, qk_norm=True)
        experts = expert_tensors(W, "BF16", None if fused else (lambda i, k, e: f"model.layers.{i}.mlp.experts.{e}.{k}_proj.weight"),
                                 lambda i, k: f"model.layers.{i}.mlp.experts.{k}_proj")
        config = dict(base_config, torch_dtype="bfloat16")
        if fused:
            config["rope_parameters"] = {"rope_type": "default", "rope_theta": theta}
        else:
            config["rope_theta"], config["rope_scaling"] = theta, None
        mm.write_folder(os.path.join(out, name), config, tok, {"model.safetensors": st.tensors + experts})
        results[name] = W
    ids = mm.random_ids(np.random.RandomState(153), tok.size)
    write_moe_reference(out, ["qwen3_moe", "qwen3_moe_fused"], results["qwen3_moe"], c, ids, tok, theta, {"base": None})


def build_mixtral(out):
    tok = mm.Tokenizer(special="<s>", special_in_vocab=True, bos=True)
    V = mm.padded_vocab(tok.size)
    c = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 8, "inter": 16, "expert_inter": 16, "experts": 4, "top": 2,
         "layers": 2, "eps": 1e-5, "renormalize": True}
    theta = 1000000.0
    for name, window in [("mixtral", None), ("mixtral_window", 4)]:
        rs = np.random.RandomState(54)
        st = mm.Store("F32")
        W = moe_weights(rs, st, c, V, lambda i, kind, e: f"model.layers.{i}.block_sparse_moe.gate.weight", set(), qk_norm=False)
        kinds = {"gate": "w1", "up": "w3", "down": "w2"}
        experts = expert_tensors(W, "F32", lambda i, k, e: f"model.layers.{i}.block_sparse_moe.experts.{e}.{kinds[k]}.weight", None)
        config = {
            "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": tok.special_id,
            "eos_token_id": tok.special_id, "head_dim": 8, "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 16,
            "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 4, "num_experts_per_tok": 2,
            "num_hidden_layers": 2, "num_key_value_heads": 2, "num_local_experts": 4, "output_router_logits": False,
            "rms_norm_eps": 1e-5, "rope_theta": theta, "router_aux_loss_coef": 0.02, "router_jitter_noise": 0.0,
            "sliding_window": window, "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True, "vocab_size": V,
        }
        mm.write_folder(os.path.join(out, name), config, tok, {"model.safetensors": st.tensors + experts})
        ids = mm.random_ids(np.random.RandomState(154), tok.size, bos=tok.special_id)
        write_moe_reference(out, [name], W, c, ids, tok, theta, {"base": window, "window_none": None} if window else {"base": None})


def write_moe_reference(out, names, W, c, ids, tok, theta, windows):
    d = c["head_dim"]
    cases = {}
    specs = [("base", mm.rope_default_inv_freq(theta, d), windows["base"]), ("rope_off", None, windows["base"]),
             ("rope_theta_10000", mm.rope_default_inv_freq(10000.0, d), windows["base"])]
    if "window_none" in windows:
        specs.append(("window_none", mm.rope_default_inv_freq(theta, d), None))
    for case, inv, window in specs:
        attn, logits, routes = moe_forward(W, c, ids, inv, window)
        cases[case] = mf.case_entry(attn, logits, ids, experts=routes)
    mf.check_cases(names[0], cases, {k: [w] * c["layers"] for k, (_, _, w) in zip(cases, specs)})
    for name in names:
        mf.write_reference(out, name, ids, tok, [mf.layer_info("rope", windows["base"], theta, d, rope_style="half")] * c["layers"], cases)
    print(f"{', '.join(names)}: base loss {cases['base']['loss']:.4f}, layer 0 position 0 experts {cases['base']['experts'][0][0]}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_wrapper_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in FOLDERS:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    build_olmo2(out)
    build_olmo3(out)
    with tempfile.TemporaryDirectory() as tmp:
        build_wrappers(out, tmp)
    build_qwen2_5_vl(out)
    build_qwen3_moe(out)
    build_mixtral(out)
    print(f"{out}: {', '.join(FOLDERS)}")


if __name__ == "__main__":
    main()
