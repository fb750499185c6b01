#!/usr/bin/python3
"""Independent reference for PosLab's forward pass of Hugging Face causal language models.

Written from Hugging Face transformers' published model definitions (modeling_llama,
modeling_qwen2, modeling_gpt2 and modeling_rope_utils' default / linear / llama3 inverse
frequencies) and the safetensors / tokenizers file formats, NOT from PosLab's C++ code.
Only NumPy is used; every computation is in float64 from the weights exactly as stored
(BF16 / F16 / F32 values converted back to float).

Usage:  /usr/bin/python3 tests/reference/make_model_reference.py OUTDIR

Writes (deterministically; a fixed legacy NumPy RandomState seed per model):
  OUTDIR/llama/            LlamaForCausalLM, GQA 8/2 heads, llama3 rope_scaling, tied, BF16
  OUTDIR/qwen2/            Qwen2ForCausalLM, q/k/v biases, untied lm_head, F32, two shards
  OUTDIR/gpt2/             GPT2LMHeadModel, openai-community/gpt2's unprefixed names, F32
  OUTDIR/gpt2_prefixed/    the same GPT-2 weights as F16 under "transformer." names
  OUTDIR/<folder>.reference.json   {"ids", "texts", "cases": {case: {attention, logits, loss, ...}}}
  OUTDIR/bad_missing_tensor/, bad_shape/, bad_arch/ (llama copies), bad_shard/ (qwen2 copy)
"""
import json
import math
import os
import re
import shutil
import sys

import numpy as np

T = 12  # tokens per reference sequence

# --------------------------------------------------------------------------------------------
# Number formatting and JSON
# --------------------------------------------------------------------------------------------


def num(v):
    """A float as a JSON number with 9 significant digits (float32 round-trips)."""
    v = float(v)
    if v == 0.0:
        return "0.0"
    s = format(v, ".9g")
    return s if any(c in s for c in ".en") else s + ".0"  # keep it a float in JSON


def to_json(obj, indent=0):
    """JSON text with compact numeric arrays (one innermost list per line)."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad}  {json.dumps(k)}: {to_json(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
        if obj.ndim == 1:
            return "[" + ", ".join(num(v) for v in obj) + "]"
        return "[\n" + ",\n".join(pad + "  " + to_json(r, indent + 1) for r in obj) + "\n" + pad + "]"
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, (list, tuple)):
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in obj):
            return "[" + ", ".join(str(int(v)) for v in obj) + "]"
        return json.dumps(obj)
    if isinstance(obj, float):
        return repr(obj)
    return json.dumps(obj)


def write_text(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")


# --------------------------------------------------------------------------------------------
# Storage dtypes: round float32 to what the file holds, and back
# --------------------------------------------------------------------------------------------


def to_bf16_bits(x):
    """float32 → bfloat16 bit patterns, round to nearest, ties to even (no NaNs here)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_bits_to_f32(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def stored(x, dtype):
    """(raw array as written to the file, float64 value the reference computes with)."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "F32":
        return x, x.astype(np.float64)
    if dtype == "F16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    if dtype == "BF16":
        b = to_bf16_bits(x)
        return b, bf16_bits_to_f32(b).astype(np.float64)
    raise ValueError(dtype)


# --------------------------------------------------------------------------------------------
# safetensors: u64 little-endian header length, JSON header (space padded to 8), raw data
# --------------------------------------------------------------------------------------------

NP_OF = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}


def write_safetensors(path, tensors):
    """tensors: list of (name, dtype string, raw array in the matching NumPy type)."""
    header = {}
    chunks = []
    offset = 0
    for name, dtype, raw in tensors:
        data = np.ascontiguousarray(raw).astype(NP_OF[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(raw.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for c in chunks:
            f.write(c)
    return offset  # bytes of tensor data


def read_safetensors(path):
    """Read back {name: float64 array} (used to check the writer)."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = np.frombuffer(data[b:e], dtype=NP_OF[info["dtype"]]).reshape(info["shape"])
        out[name] = (bf16_bits_to_f32(raw) if info["dtype"] == "BF16" else raw).astype(np.float64)
    return out


# --------------------------------------------------------------------------------------------
# Byte-level BPE tokenizer (GPT-2's bytes_to_unicode, rank-ordered merges)
# --------------------------------------------------------------------------------------------


def bytes_to_unicode():
    """GPT-2's map, in its own order: printable bytes first (as themselves), then the rest
    mapped to U+0100, U+0101, … in increasing byte order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


# Merges in rank order; "Ġ" is the byte-level space. Chosen so that the sample sentences
# below collapse into whole-word tokens.
MERGES = [
    ("Ġ", "d"), ("Ġd", "o"), ("Ġdo", "g"), ("T", "h"), ("Th", "e"),
    ("c", "h"), ("a", "s"), ("Ġ", "ch"), ("Ġch", "as"), ("e", "d"),
    ("Ġchas", "ed"), ("a", "n"), ("Ġ", "an"), ("o", "t"), ("h", "e"),
    ("he", "r"), ("ot", "her"), ("Ġan", "other"), ("a", "t"), ("Ġ", "c"),
    ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"), ("o", "n"), ("Ġ", "on"),
    ("Ġ", "t"), ("Ġt", "he"), ("Ġ", "m"), ("Ġm", "at"), ("Ġan", "d"),
    ("Ġ", "a"), ("Ġ", "r"), ("Ġr", "an"), ("i", "n"), ("Ġ", "in"),
    ("Ġ", "p"), ("a", "r"), ("Ġp", "ar"), ("Ġpar", "k"), ("e", "r"),
]

TEXTS = [
    "The dog chased another dog",
    "The cat sat on the mat.",
    "A dog and a cat ran in the park.",
]

# GPT-2's pre-tokenizer pattern restricted to ASCII (enough for TEXTS).
ASCII_GPT2_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


class Tokenizer:
    def __init__(self, special=None, special_in_vocab=False, bos=False, merges_as_pairs=False):
        self.b2u = dict(bytes_to_unicode())
        self.vocab = {}
        for i, (_, u) in enumerate(bytes_to_unicode()):
            self.vocab[u] = i
        for a, b in MERGES:
            assert a in self.vocab and b in self.vocab, (a, b)
            assert a + b not in self.vocab, a + b
            self.vocab[a + b] = len(self.vocab)
        self.rank = {m: r for r, m in enumerate(MERGES)}
        self.special = special
        self.special_id = len(self.vocab) if special else None
        self.special_in_vocab = special_in_vocab
        self.bos = bos
        self.merges_as_pairs = merges_as_pairs
        self.size = len(self.vocab) + (1 if special else 0)

    def bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            ranked = [(self.rank.get((parts[i], parts[i + 1]), math.inf), i) for i in range(len(parts) - 1)]
            best, _ = min(ranked)
            if best == math.inf:
                break
            a, b = MERGES[best]
            merged, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        return parts

    def encode(self, text):
        ids = [self.special_id] if self.bos else []
        for piece in ASCII_GPT2_SPLIT.findall(text):
            word = "".join(self.b2u[b] for b in piece.encode("utf-8"))
            ids += [self.vocab[p] for p in self.bpe(word)]
        return ids

    def json(self):
        vocab = dict(self.vocab)
        added = []
        if self.special:
            if self.special_in_vocab:
                vocab[self.special] = self.special_id
            added.append({"id": self.special_id, "content": self.special, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True})
        post = None
        if self.bos:
            bos = {"SpecialToken": {"id": self.special, "type_id": 0}}
            post = {
                "type": "TemplateProcessing",
                "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": self.special, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {self.special: {"id": self.special, "ids": [self.special_id], "tokens": [self.special]}},
            }
        merges = [[a, b] for a, b in MERGES] if self.merges_as_pairs else [f"{a} {b}" for a, b in MERGES]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": post,
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": merges},
        }


def padded_vocab(size):
    return (size + 7) // 8 * 8


# --------------------------------------------------------------------------------------------
# Hugging Face ops (float64)
# --------------------------------------------------------------------------------------------


def rms_norm(x, w, eps):
    """LlamaRMSNorm / Qwen2RMSNorm: x / sqrt(mean(x²) + eps) · w."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def layer_norm(x, w, b, eps):
    """nn.LayerNorm: biased variance."""
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def silu(x):
    return x / (1.0 + np.exp(-x))


def gelu_new(x):
    """GPT-2's NewGELUActivation (tanh approximation)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def linear(x, w, b=None):
    """torch.nn.Linear with PyTorch layout w: [out, in]."""
    y = x @ w.T
    return y if b is None else y + b


def conv1d(x, w, b):
    """GPT-2's Conv1D with w: [in, out]."""
    return x @ w + b


def rope_default_inv_freq(theta, head_dim):
    """θ_i = theta^(−2i/d), i = 0 … d/2 − 1."""
    return theta ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


def rope_linear_inv_freq(inv_freq, factor):
    """rope_type "linear": positions divided by factor ≡ θ_i / factor."""
    return inv_freq / factor


def rope_llama3_inv_freq(inv_freq, scaling):
    """_compute_llama3_parameters: long wavelengths divided by factor, short kept, a smooth
    blend between. Returns (new inv_freq, kind per pair: 'kept' | 'scaled' | 'blended')."""
    factor = scaling["factor"]
    low = scaling["low_freq_factor"]
    high = scaling["high_freq_factor"]
    old_ctx = scaling["original_max_position_embeddings"]
    low_freq_wavelen = old_ctx / low
    high_freq_wavelen = old_ctx / high
    out, kinds = [], []
    for f in inv_freq:
        wavelen = 2.0 * math.pi / f
        if wavelen < high_freq_wavelen:
            out.append(f)
            kinds.append("kept")
        elif wavelen > low_freq_wavelen:
            out.append(f / factor)
            kinds.append("scaled")
        else:
            smooth = (old_ctx / wavelen - low) / (high - low)
            out.append((1.0 - smooth) * f / factor + smooth * f)
            kinds.append("blended")
    return np.array(out), kinds


def rope_cos_sin(inv_freq, positions):
    """cos, sin [T, d] from concat(freqs, freqs), freqs = p · θ_i (float64 angles)."""
    freqs = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def apply_rope_half(x, cos, sin):
    """HF apply_rotary_pos_emb on x [T, heads, d]: pair i = dims (i, i + d/2)."""
    return x * cos[:, None, :] + rotate_half(x) * sin[:, None, :]


def apply_rope_interleaved(x, inv_freq, positions):
    """The same θ_i but pair i = dims (2i, 2i + 1) (RoFormer / Meta's original layout)."""
    ang = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)  # [T, d/2]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_attention(q, k, v):
    """Scaled dot-product attention, causal. q [T, H, d]; k, v [T, G, d], query head h reads
    kv head h // (H/G). Returns (output [T, H·d], weights [H, T, T] with 0 above the diagonal)."""
    Tq, H, d = q.shape
    G = k.shape[1]
    rep = H // G
    kh = np.repeat(k, rep, axis=1)  # head h ← kv head h // rep
    vh = np.repeat(v, rep, axis=1)
    scores = np.einsum("thd,shd->hts", q, kh) / math.sqrt(d)
    mask = np.triu(np.ones((Tq, Tq), dtype=bool), k=1)
    scores = np.where(mask[None], -np.inf, scores)
    w = softmax(scores, axis=-1)
    out = np.einsum("hts,shd->thd", w, vh)
    return out.reshape(Tq, H * d), w


def llama_mlp(x, p):
    """down(silu(gate(x)) · up(x))."""
    return linear(silu(linear(x, p["gate"])) * linear(x, p["up"]), p["down"])


def frequency_usage(q, k):
    """[H, d/2]: mean over t of ‖q_{t,h,i}‖·‖k_{t,g(h),i}‖, pair i = dims (i, i + d/2)."""
    h = q.shape[-1] // 2
    qn = np.sqrt(q[..., :h] ** 2 + q[..., h:] ** 2)  # [T, H, d/2]
    kn = np.sqrt(k[..., :h] ** 2 + k[..., h:] ** 2)  # [T, G, d/2]
    kn = np.repeat(kn, q.shape[1] // k.shape[1], axis=1)
    return np.mean(qn * kn, axis=0)


def causal_lm_loss(logits, ids):
    """Mean over t = 0 … T−2 of −log softmax(logits[t])[ids[t+1]]."""
    m = np.max(logits, axis=-1, keepdims=True)
    logz = (m + np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True)))[:, 0]
    nll = [logz[t] - logits[t, ids[t + 1]] for t in range(len(ids) - 1)]
    return float(np.mean(nll))


# --------------------------------------------------------------------------------------------
# Forward passes
# --------------------------------------------------------------------------------------------


def llama_forward(W, cfg, ids, rope, residuals=None):
    """LlamaForCausalLM / Qwen2ForCausalLM. rope: {"mode": "half"|"interleaved"|"off",
    "inv_freq": array}. Returns (attention [L][H][T][T], logits [T][V], frequency usage); the
    residual stream after each layer is appended to `residuals` when given."""
    H, G = cfg["heads"], cfg["kv_heads"]
    d = cfg["head_dim"]
    eps = cfg["eps"]
    pos = np.arange(len(ids))
    x = W["embed"][ids]
    attn, usage = [], []
    for p in W["layers"]:
        h = rms_norm(x, p["ln_in"], eps)
        q = linear(h, p["q"], p.get("q_b")).reshape(len(ids), H, d)
        k = linear(h, p["k"], p.get("k_b")).reshape(len(ids), G, d)
        v = linear(h, p["v"], p.get("v_b")).reshape(len(ids), G, d)
        usage.append(frequency_usage(q, k))
        if rope["mode"] == "half":
            cos, sin = rope_cos_sin(rope["inv_freq"], pos)
            q, k = apply_rope_half(q, cos, sin), apply_rope_half(k, cos, sin)
        elif rope["mode"] == "interleaved":
            q, k = apply_rope_interleaved(q, rope["inv_freq"], pos), apply_rope_interleaved(k, rope["inv_freq"], pos)
        out, w = causal_attention(q, k, v)
        attn.append(w)
        x = x + linear(out, p["o"])
        x = x + llama_mlp(rms_norm(x, p["ln_post"], eps), p)
        if residuals is not None:
            residuals.append(x.copy())
    x = rms_norm(x, W["norm"], eps)
    logits = linear(x, W["lm_head"])
    return np.array(attn), logits, np.array(usage)


def residual_top(residuals, count=5):
    """Per layer, the `count` largest |x| of the residual stream as [position, dim, value], largest
    first, and the median |x| (Sun et al. 2024's massive activations)."""
    tops, medians = [], []
    for x in residuals:
        flat = np.abs(x).ravel()
        order = np.argsort(-flat, kind="stable")[:count]
        tops.append([[int(k // x.shape[1]), int(k % x.shape[1]), float(x.ravel()[k])] for k in order])
        medians.append(float(np.median(flat)))
    return tops, medians


def gpt2_forward(W, cfg, ids, wpe):
    """GPT2LMHeadModel with a given position table (rows indexed by position)."""
    H = cfg["heads"]
    n = W["wte"].shape[1]
    d = n // H
    eps = cfg["eps"]
    Tn = len(ids)
    x = W["wte"][ids] + wpe[:Tn]
    attn = []
    for p in W["layers"]:
        h = layer_norm(x, p["ln_1_w"], p["ln_1_b"], eps)
        qkv = conv1d(h, p["c_attn_w"], p["c_attn_b"])
        q, k, v = (qkv[:, i * n:(i + 1) * n].reshape(Tn, H, d) for i in range(3))
        out, w = causal_attention(q, k, v)
        attn.append(w)
        x = x + conv1d(out, p["attn_c_proj_w"], p["attn_c_proj_b"])
        h = layer_norm(x, p["ln_2_w"], p["ln_2_b"], eps)
        x = x + conv1d(gelu_new(conv1d(h, p["c_fc_w"], p["c_fc_b"])), p["mlp_c_proj_w"], p["mlp_c_proj_b"])
    x = layer_norm(x, W["ln_f_w"], W["ln_f_b"], eps)
    return np.array(attn), x @ W["wte"].T


# --------------------------------------------------------------------------------------------
# Model builders
# --------------------------------------------------------------------------------------------


class Store:
    """Collects tensors in file order: name → (dtype, raw stored array); values for the math."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.tensors = []

    def add(self, name, x, dtype=None):
        dtype = dtype or self.dtype
        raw, value = stored(x, dtype)
        self.tensors.append((name, dtype, raw))
        return value

    def without(self, name):
        return [t for t in self.tensors if t[0] != name]

    def replaced(self, name, x):
        raw, _ = stored(x, self.dtype)
        return [(n, d, raw if n == name else r) for n, d, r in self.tensors]


def normal(rs, shape, std, mean=0.0):
    return (mean + std * rs.standard_normal(shape)).astype(np.float32)


def summarize_attention(label, case, attn):
    """Print how far from uniform the attention is, over queries t ≥ 3 (uniform: max 1/(t+1))."""
    a = attn[:, :, 3:, :]
    t1 = np.arange(3, attn.shape[2]) + 1.0
    mx = a.max(axis=-1)
    entropy = -np.sum(a * np.log(np.where(a > 0, a, 1.0)), axis=-1) / np.log(t1)
    print(f"  {label}/{case}: max weight per query: mean {mx.mean():.3f}, min {mx.min():.3f} "
          f"(uniform: {np.mean(1 / t1):.3f}); entropy / log(t+1): mean {entropy.mean():.3f}")


def dropped(inv_freq, fraction, highest):
    out = np.array(inv_freq, dtype=np.float64)
    k = int(np.floor(fraction * len(out) + 0.5))
    if k:
        if highest:
            out[:k] = 0.0
        else:
            out[len(out) - k:] = 0.0
    return out


def rope_cases(W, cfg, ids, theta, scaling, label):
    """The RoPE cases (base, another base, off, the other pairing, linear ×4, pairs dropped). scaling: None or the llama3 dict."""
    d = cfg["head_dim"]

    def inv(theta_):
        base = rope_default_inv_freq(theta_, d)
        if scaling is None:
            return base, None
        return rope_llama3_inv_freq(base, scaling)

    base_inv, kinds = inv(theta)
    if kinds:
        print(f"  {label}: llama3 scaling per pair: {kinds}; θ {rope_default_inv_freq(theta, d).tolist()} → {base_inv.tolist()}")
        assert {"kept", "scaled", "blended"} <= set(kinds), kinds
    inv10k, kinds10k = inv(10000.0)
    if kinds10k:
        print(f"  {label}: rope_theta 10000 with the same scaling: {kinds10k}")
    specs = {
        "base": {"mode": "half", "inv_freq": base_inv},
        "rope_theta_10000": {"mode": "half", "inv_freq": inv10k},
        "rope_off": {"mode": "off", "inv_freq": None},
        "interleaved": {"mode": "interleaved", "inv_freq": base_inv},
        "linear_4": {"mode": "half", "inv_freq": rope_linear_inv_freq(rope_default_inv_freq(theta, d), 4.0)},
        # p-RoPE at inference (--drop-pairs): round(F · d/2) pairs get θ = 0, the first (highest
        # frequencies) or the last (lowest); θ = 0 turns nothing, so those dimensions carry no position.
        "drop_high_0.5": {"mode": "half", "inv_freq": dropped(base_inv, 0.5, highest=True)},
        "drop_low_0.25": {"mode": "half", "inv_freq": dropped(base_inv, 0.25, highest=False)},
    }
    cases = {}
    for name, spec in specs.items():
        residuals = []
        attn, logits, usage = llama_forward(W, cfg, ids, spec, residuals)
        case = {"attention": attn, "logits": logits, "loss": causal_lm_loss(logits, ids)}
        if name == "base":
            case["residual_top"], case["residual_median"] = residual_top(residuals)
        if spec["inv_freq"] is not None:
            case["inv_freq"] = np.asarray(spec["inv_freq"])
        if name == "base":
            case["frequency_usage"] = usage
            summarize_attention(label, name, attn)
        cases[name] = case
    return cases


def llama_like_weights(rs, st, cfg, vocab, prefix_bias, tied, names_in_shard=None):
    """Random Llama / Qwen2 weights, registered with st in HF's names. Returns the values."""
    n, H, G, d, I, L = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["head_dim"], cfg["inter"], cfg["layers"]
    W = {"embed": st.add("model.embed_tokens.weight", normal(rs, (vocab, n), 1.0)), "layers": []}
    for i in range(L):
        pre = f"model.layers.{i}."
        p = {"ln_in": st.add(pre + "input_layernorm.weight", normal(rs, (n,), 0.1, 1.0))}
        p["q"] = st.add(pre + "self_attn.q_proj.weight", normal(rs, (H * d, n), cfg["qk_std"]))
        if prefix_bias:
            p["q_b"] = st.add(pre + "self_attn.q_proj.bias", normal(rs, (H * d,), 0.2))
        p["k"] = st.add(pre + "self_attn.k_proj.weight", normal(rs, (G * d, n), cfg["qk_std"]))
        if prefix_bias:
            p["k_b"] = st.add(pre + "self_attn.k_proj.bias", normal(rs, (G * d,), 0.2))
        p["v"] = st.add(pre + "self_attn.v_proj.weight", normal(rs, (G * d, n), 0.1))
        if prefix_bias:
            p["v_b"] = st.add(pre + "self_attn.v_proj.bias", normal(rs, (G * d,), 0.2))
        p["o"] = st.add(pre + "self_attn.o_proj.weight", normal(rs, (n, H * d), 0.1))
        p["ln_post"] = st.add(pre + "post_attention_layernorm.weight", normal(rs, (n,), 0.1, 1.0))
        p["gate"] = st.add(pre + "mlp.gate_proj.weight", normal(rs, (I, n), 0.1))
        p["up"] = st.add(pre + "mlp.up_proj.weight", normal(rs, (I, n), 0.1))
        p["down"] = st.add(pre + "mlp.down_proj.weight", normal(rs, (n, I), 0.1))
        W["layers"].append(p)
    W["norm"] = st.add("model.norm.weight", normal(rs, (n,), 0.1, 1.0))
    W["lm_head"] = W["embed"] if tied else st.add("lm_head.weight", normal(rs, (vocab, n), 0.1))
    return W


def random_ids(rs, size, bos=None):
    ids = [int(v) for v in rs.randint(0, size, size=T)]
    if bos is not None:
        ids[0] = bos
    return ids


def write_folder(folder, config, tok, files):
    os.makedirs(folder, exist_ok=True)
    write_text(os.path.join(folder, "config.json"), json.dumps(config, indent=2))
    write_text(os.path.join(folder, "tokenizer.json"), json.dumps(tok.json(), indent=2, ensure_ascii=False))
    for fname, tensors in files.items():
        write_safetensors(os.path.join(folder, fname), tensors)


def write_reference(path, ids, tok, cases):
    texts = {t: tok.encode(t) for t in TEXTS}
    write_text(path, to_json({"ids": ids, "tokenizer_size": tok.size, "texts": texts, "cases": cases}))


def check_roundtrip(path, st_tensors):
    back = read_safetensors(path)
    assert set(back) == {n for n, _, _ in st_tensors}, path
    for name, dtype, raw in st_tensors:
        want = (bf16_bits_to_f32(raw) if dtype == "BF16" else raw).astype(np.float64)
        assert back[name].shape == want.shape and np.array_equal(back[name], want), name


# ---- Llama -----------------------------------------------------------------------------------

LLAMA_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                 "original_max_position_embeddings": 256}


def build_llama(out):
    rs = np.random.RandomState(1)
    tok = Tokenizer(special="<|begin_of_text|>", special_in_vocab=False, bos=True)
    V = padded_vocab(tok.size)
    cfg = {"hidden": 64, "heads": 8, "kv_heads": 2, "head_dim": 8, "inter": 96, "layers": 2, "eps": 1e-5, "qk_std": 0.2}
    st = Store("BF16")
    W = llama_like_weights(rs, st, cfg, V, prefix_bias=False, tied=True)
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V, "hidden_size": 64,
        "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 8, "hidden_act": "silu", "max_position_embeddings": 2048, "initializer_range": 0.02,
        "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "rope_scaling": LLAMA_SCALING, "attention_bias": False,
        "attention_dropout": 0.0, "mlp_bias": False, "pretraining_tp": 1, "tie_word_embeddings": True,
        "bos_token_id": tok.special_id, "use_cache": True, "torch_dtype": "bfloat16",
    }
    folder = os.path.join(out, "llama")
    write_folder(folder, config, tok, {"model.safetensors": st.tensors})
    check_roundtrip(os.path.join(folder, "model.safetensors"), st.tensors)
    ids = random_ids(np.random.RandomState(101), tok.size, bos=tok.special_id)
    cases = rope_cases(W, cfg, ids, 500000.0, LLAMA_SCALING, "llama")
    write_reference(os.path.join(out, "llama.reference.json"), ids, tok, cases)

    # Bad copies.
    for name, edit in [
        ("bad_missing_tensor", lambda d: write_safetensors(os.path.join(d, "model.safetensors"),
                                                           st.without("model.layers.1.mlp.up_proj.weight"))),
        ("bad_shape", lambda d: write_safetensors(os.path.join(d, "model.safetensors"), st.replaced(
            "model.layers.0.self_attn.k_proj.weight", normal(np.random.RandomState(7), (24, 64), 0.25)))),
        ("bad_arch", lambda d: write_text(os.path.join(d, "config.json"), json.dumps(
            dict(config, architectures=["XLNetLMHeadModel"], model_type="xlnet"), indent=2))),
    ]:
        dst = os.path.join(out, name)
        shutil.copytree(folder, dst)
        edit(dst)
    return ids, tok


# ---- Llama as transformers 5 saves it ----------------------------------------------------------
# rope_parameters, and no top-level rope_theta or rope_scaling: the form every config.json written
# by transformers 5 has. Bases far from the default 10000, so that reading the old keys alone fails.

LLAMA_V5 = {
    "llama_v5": {"rope_type": "default", "rope_theta": 100.0},
    "llama_v5_llama3": {"rope_type": "llama3", "rope_theta": 100.0, "factor": 8.0, "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
}


def build_llama_v5(out, name, seed):
    rs = np.random.RandomState(seed)
    tok = Tokenizer(special="<|begin_of_text|>", special_in_vocab=False, bos=True)
    V = padded_vocab(tok.size)
    cfg = {"hidden": 64, "heads": 8, "kv_heads": 2, "head_dim": 8, "inter": 96, "layers": 2, "eps": 1e-5, "qk_std": 0.2}
    st = Store("F32")
    W = llama_like_weights(rs, st, cfg, V, prefix_bias=False, tied=False)
    rope = LLAMA_V5[name]
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V, "hidden_size": 64,
        "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 8, "hidden_act": "silu", "max_position_embeddings": 2048, "initializer_range": 0.02,
        "rms_norm_eps": 1e-5, "rope_parameters": rope, "attention_bias": False, "attention_dropout": 0.0,
        "mlp_bias": False, "pretraining_tp": 1, "tie_word_embeddings": False, "bos_token_id": tok.special_id,
        "use_cache": True, "dtype": "float32", "transformers_version": "5.0.0",
    }
    write_folder(os.path.join(out, name), config, tok, {"model.safetensors": st.tensors})
    ids = random_ids(np.random.RandomState(seed + 100), tok.size, bos=tok.special_id)
    scaling = None if rope["rope_type"] == "default" else {k: v for k, v in rope.items() if k != "rope_theta"}
    cases = rope_cases(W, cfg, ids, rope["rope_theta"], scaling, name)
    write_reference(os.path.join(out, name + ".reference.json"), ids, tok, cases)
    return ids, tok


# ---- Qwen2 -----------------------------------------------------------------------------------

SHARD1, SHARD2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"


def build_qwen2(out):
    rs = np.random.RandomState(2)
    tok = Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False, merges_as_pairs=True)
    V = padded_vocab(tok.size)
    cfg = {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "inter": 128, "layers": 2, "eps": 1e-6, "qk_std": 0.2}
    st = Store("F32")
    W = llama_like_weights(rs, st, cfg, V, prefix_bias=True, tied=False)
    config = {
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": V, "hidden_size": 64,
        "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "hidden_act": "silu", "max_position_embeddings": 2048, "initializer_range": 0.02, "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0, "attention_dropout": 0.0, "use_sliding_window": False, "sliding_window": 2048,
        "max_window_layers": 2, "tie_word_embeddings": False, "bos_token_id": tok.special_id,
        "eos_token_id": tok.special_id, "use_cache": True, "torch_dtype": "float32",
    }
    # Shard 1: embeddings and layer 0; shard 2: layer 1, the final norm and lm_head.
    first = [t for t in st.tensors if t[0].startswith(("model.embed_tokens.", "model.layers.0."))]
    second = [t for t in st.tensors if t not in first]
    weight_map = {n: SHARD1 for n, _, _ in first}
    weight_map.update({n: SHARD2 for n, _, _ in second})
    total = sum(np.asarray(r).nbytes for _, _, r in st.tensors)
    folder = os.path.join(out, "qwen2")
    write_folder(folder, config, tok, {SHARD1: first, SHARD2: second})
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    write_text(os.path.join(folder, "model.safetensors.index.json"), json.dumps(index, indent=2))
    check_roundtrip(os.path.join(folder, SHARD1), first)
    check_roundtrip(os.path.join(folder, SHARD2), second)
    ids = random_ids(np.random.RandomState(102), tok.size)
    cases = rope_cases(W, cfg, ids, 1000000.0, None, "qwen2")
    write_reference(os.path.join(out, "qwen2.reference.json"), ids, tok, cases)

    dst = os.path.join(out, "bad_shard")
    shutil.copytree(folder, dst)
    bad = dict(index, weight_map=dict(index["weight_map"]))
    bad["weight_map"]["model.layers.1.mlp.down_proj.weight"] = "model-00003-of-00003.safetensors"
    write_text(os.path.join(dst, "model.safetensors.index.json"), json.dumps(bad, indent=2))
    return ids, tok


# ---- GPT-2 -----------------------------------------------------------------------------------


def build_gpt2(out):
    rs = np.random.RandomState(3)
    tok = Tokenizer(special="<|endoftext|>", special_in_vocab=True, bos=False)
    V = padded_vocab(tok.size)
    n, L, H, P, eps = 48, 2, 4, 64, 1e-5
    # Float32 originals, in openai-community/gpt2's order and names (no prefix).
    raw = [("wte.weight", normal(rs, (V, n), 1.0)), ("wpe.weight", normal(rs, (P, n), 0.5))]
    for i in range(L):
        pre = f"h.{i}."
        c_attn = np.concatenate([normal(rs, (n, n), 0.25), normal(rs, (n, n), 0.25), normal(rs, (n, n), 0.1)], axis=1)
        raw += [(pre + "ln_1.weight", normal(rs, (n,), 0.1, 1.0)), (pre + "ln_1.bias", normal(rs, (n,), 0.1))]
        if i == 0:  # the legacy causal-mask buffer of old checkpoints
            raw.append((pre + "attn.bias", np.tril(np.ones((P, P), dtype=np.float32)).reshape(1, 1, P, P)))
        raw += [
            (pre + "attn.c_attn.weight", c_attn), (pre + "attn.c_attn.bias", normal(rs, (3 * n,), 0.1)),
            (pre + "attn.c_proj.weight", normal(rs, (n, n), 0.1)), (pre + "attn.c_proj.bias", normal(rs, (n,), 0.1)),
            (pre + "ln_2.weight", normal(rs, (n,), 0.1, 1.0)), (pre + "ln_2.bias", normal(rs, (n,), 0.1)),
            (pre + "mlp.c_fc.weight", normal(rs, (n, 4 * n), 0.1)), (pre + "mlp.c_fc.bias", normal(rs, (4 * n,), 0.1)),
            (pre + "mlp.c_proj.weight", normal(rs, (4 * n, n), 0.1)), (pre + "mlp.c_proj.bias", normal(rs, (n,), 0.1)),
        ]
    raw += [("ln_f.weight", normal(rs, (n,), 0.1, 1.0)), ("ln_f.bias", normal(rs, (n,), 0.1))]
    ids = random_ids(np.random.RandomState(103), tok.size)
    config = {
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": V, "n_embd": n, "n_layer": L,
        "n_head": H, "n_positions": P, "n_ctx": P, "n_inner": None, "activation_function": "gelu_new",
        "layer_norm_epsilon": eps, "initializer_range": 0.02, "resid_pdrop": 0.1, "embd_pdrop": 0.1,
        "attn_pdrop": 0.1, "bos_token_id": tok.special_id, "eos_token_id": tok.special_id,
        "torch_dtype": "float32",
    }
    for folder_name, dtype, prefix in [("gpt2", "F32", ""), ("gpt2_prefixed", "F16", "transformer.")]:
        st = Store(dtype)
        vals = {name: st.add(prefix + name, x) for name, x in raw}
        W = {"wte": vals["wte.weight"], "wpe": vals["wpe.weight"], "ln_f_w": vals["ln_f.weight"],
             "ln_f_b": vals["ln_f.bias"], "layers": []}
        for i in range(L):
            g = lambda s: vals[f"h.{i}.{s}"]
            W["layers"].append({
                "ln_1_w": g("ln_1.weight"), "ln_1_b": g("ln_1.bias"),
                "c_attn_w": g("attn.c_attn.weight"), "c_attn_b": g("attn.c_attn.bias"),
                "attn_c_proj_w": g("attn.c_proj.weight"), "attn_c_proj_b": g("attn.c_proj.bias"),
                "ln_2_w": g("ln_2.weight"), "ln_2_b": g("ln_2.bias"),
                "c_fc_w": g("mlp.c_fc.weight"), "c_fc_b": g("mlp.c_fc.bias"),
                "mlp_c_proj_w": g("mlp.c_proj.weight"), "mlp_c_proj_b": g("mlp.c_proj.bias"),
            })
        folder = os.path.join(out, folder_name)
        cfg_json = dict(config, torch_dtype="float32" if dtype == "F32" else "float16")
        write_folder(folder, cfg_json, tok, {"model.safetensors": st.tensors})
        check_roundtrip(os.path.join(folder, "model.safetensors"), st.tensors)
        cfg = {"heads": H, "eps": eps}
        wpe = W["wpe"]
        cases = {}
        for name, table in [("base", wpe), ("wpe_zero", np.zeros_like(wpe)), ("wpe_shift_3", wpe[3:])]:
            attn, logits = gpt2_forward(W, cfg, ids, table)
            cases[name] = {"attention": attn, "logits": logits, "loss": causal_lm_loss(logits, ids)}
            if name == "base":
                summarize_attention(folder_name, name, attn)
        write_reference(os.path.join(out, folder_name + ".reference.json"), ids, tok, cases)
    return ids, tok



# ---- PosLab's own folders (models trained by `poslab train`) -----------------------------------
# Llama's block with the positional encoding named by config.json's "poslab_positions": none,
# sinusoidal or learned (added to the embeddings), alibi or t5 (a bias on the scores), or rope
# with "poslab_rope_fraction" (p-RoPE). Written from the papers' definitions (FORMULAS.md).


def sinusoid_table(T, n, base=10000.0):
    """PE(p, 2i) = sin(p·θ_i), PE(p, 2i+1) = cos(p·θ_i), θ_i = base^(−2i/n)."""
    pe = np.zeros((T, n))
    for p_ in range(T):
        for i in range(n // 2):
            a = p_ * base ** (-2.0 * i / n)
            pe[p_, 2 * i], pe[p_, 2 * i + 1] = math.sin(a), math.cos(a)
    return pe


def alibi_slopes(H):
    """Press et al.: 2^(−8(h+1)/H) for H a power of two (the only case built here)."""
    assert H & (H - 1) == 0
    return np.array([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)])


def t5_causal_bucket(rel, buckets, max_distance):
    """HF T5 _relative_position_bucket, bidirectional=False: rel = key − query."""
    n = max(-rel, 0)
    exact = buckets // 2
    if n < exact:
        return n
    large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (buckets - exact))
    return min(large, buckets - 1)


def poslab_forward(W, cfg, ids, kind, positions_on):
    """The block of llama_forward with PosLab's positions. Returns (attention, logits)."""
    H, d, eps, T_ = cfg["heads"], cfg["head_dim"], cfg["eps"], len(ids)
    x = W["embed"][ids].copy()
    if positions_on and kind == "learned":
        x = x + W["pos"][:T_]
    if positions_on and kind == "sinusoidal":
        x = x + sinusoid_table(T_, cfg["hidden"])
    bias = np.zeros((H, T_, T_))
    if positions_on and kind == "alibi":
        m = alibi_slopes(H)
        for i in range(T_):
            for j in range(T_):
                bias[:, i, j] = -m * (i - j)
    if positions_on and kind == "t5":
        for i in range(T_):
            for j in range(T_):
                bias[:, i, j] = W["t5"][t5_causal_bucket(j - i, cfg["buckets"], cfg["max_distance"])]
    inv = rope_default_inv_freq(10000.0, d)
    rotating = int(round(cfg.get("fraction", 1.0) * len(inv)))
    inv = np.where(np.arange(len(inv)) < rotating, inv, 0.0)  # p-RoPE: the rest do not turn
    attn = []
    for p in W["layers"]:
        h = rms_norm(x, p["ln_in"], eps)
        q = linear(h, p["q"]).reshape(T_, H, d)
        k = linear(h, p["k"]).reshape(T_, H, d)
        v = linear(h, p["v"]).reshape(T_, H, d)
        if positions_on and kind == "rope":
            cos, sin = rope_cos_sin(inv, np.arange(T_))
            q, k = apply_rope_half(q, cos, sin), apply_rope_half(k, cos, sin)
        scores = np.einsum("thd,shd->hts", q, k) / math.sqrt(d) + bias
        scores = np.where(np.triu(np.ones((T_, T_), dtype=bool), k=1)[None], -np.inf, scores)
        w = softmax(scores, axis=-1)
        attn.append(w)
        x = x + linear(np.einsum("hts,shd->thd", w, v).reshape(T_, H * d), p["o"])
        x = x + llama_mlp(rms_norm(x, p["ln_post"], eps), p)
    logits = linear(rms_norm(x, W["norm"], eps), W["lm_head"])
    return np.array(attn), logits


def build_poslab(out):
    tok = Tokenizer(special="<|endoftext|>", special_in_vocab=False, bos=False)
    V = padded_vocab(tok.size)
    cfg = {"hidden": 32, "heads": 4, "kv_heads": 4, "head_dim": 8, "inter": 64, "layers": 2, "eps": 1e-5, "qk_std": 0.3,
           "buckets": 8, "max_distance": 16, "fraction": 0.5}
    ids = random_ids(np.random.RandomState(104), tok.size)
    for seed, kind in enumerate(["none", "sinusoidal", "learned", "alibi", "t5", "rope"]):
        rs = np.random.RandomState(20 + seed)
        st = Store("F32")
        W = llama_like_weights(rs, st, cfg, V, prefix_bias=False, tied=True)
        config = {
            "architectures": ["PosLabForCausalLM"], "model_type": "poslab", "vocab_size": V, "hidden_size": 32,
            "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
            "head_dim": 8, "hidden_act": "silu", "max_position_embeddings": 16, "rms_norm_eps": 1e-5,
            "rope_theta": 10000.0, "tie_word_embeddings": True, "poslab_positions": kind,
        }
        if kind == "learned":
            W["pos"] = st.add("model.embed_positions.weight", normal(rs, (16, 32), 0.8))
        if kind == "t5":
            W["t5"] = st.add("model.relative_attention_bias.weight", normal(rs, (8, 4), 1.5))
            config.update({"poslab_t5_buckets": 8, "poslab_t5_max_distance": 16})
        if kind == "rope":
            config["poslab_rope_fraction"] = 0.5
        folder = os.path.join(out, "poslab_" + kind)
        write_folder(folder, config, tok, {"model.safetensors": st.tensors})
        cases = {}
        for name, on in [("base", True), ("positions_off", False)]:
            attn, logits = poslab_forward(W, cfg, ids, kind, on)
            cases[name] = {"attention": attn, "logits": logits, "loss": causal_lm_loss(logits, ids)}
        write_reference(os.path.join(out, "poslab_" + kind + ".reference.json"), ids, tok, cases)
    return ids, tok

# --------------------------------------------------------------------------------------------


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_model_reference.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in ["llama", "llama_v5", "llama_v5_llama3", "qwen2", "gpt2", "gpt2_prefixed", "bad_missing_tensor", "bad_shape", "bad_arch", "bad_shard"] + \
            ["poslab_" + k for k in ["none", "sinusoidal", "learned", "alibi", "t5", "rope"]]:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    for label, build in [("llama", build_llama), ("llama_v5", lambda o: build_llama_v5(o, "llama_v5", 11)),
                         ("llama_v5_llama3", lambda o: build_llama_v5(o, "llama_v5_llama3", 12)), ("qwen2", build_qwen2), ("gpt2", build_gpt2), ("poslab", build_poslab)]:
        ids, tok = build(out)
        print(f"{label}: tokenizer size {tok.size}, ids {ids}")
        for t in TEXTS:
            print(f"  {t!r} → {tok.encode(t)}")
    total = 0
    for root, _, files in os.walk(out):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    print(f"{out}: {total} bytes")


if __name__ == "__main__":
    main()
