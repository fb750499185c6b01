#!/usr/bin/python3
"""Reference timing: the Llama or Gemma 3 forward pass in plain PyTorch ops, on a folder from
make_llama1b.py or make_gemma3_1b.py (the family is config.json's model_type).

    /usr/bin/python3 bench/model_forward_torch.py DIR --tokens 64 --threads 2 [--repeat 3]
    /usr/bin/python3 bench/model_forward_torch.py DIR --ids-file PREDICT.json --predict [--threads 2]

Reads DIR/config.json and DIR/model.safetensors (header parsed here, tensors read through a NumPy
memmap, BF16 -> float32 as uint16 << 16; the `safetensors` package is not used), builds float32
torch tensors, then times the forward pass of T fixed token ids, ids = (arange(T) * 7919) % vocab,
under torch.no_grad() with torch.set_num_threads(threads). Only the forward is timed: the weights
are already float32 torch tensors before the clock starts. --ids-file takes the ids instead from a
JSON file (a list, or an object with "ids", such as `poslab predict`'s output). --predict adds to
each timed forward what `poslab predict --top 1` does with the logits (the mean next-token
cross-entropy and each position's most likely token with its probability), and reports them
(loss in float64 from the last run's logits, top1_ids, top1_p) for the comparison with PosLab.

Holding the weights as float32 is PyTorch's usual way to run a BF16 checkpoint on CPU (the C++
side instead keeps BF16 and converts per block), so rss_peak_mb is dominated by the ~4 bytes per
parameter of float32 weights. After the float32 timings, the weights are cast to torch.bfloat16
(freeing the float32 copies one by one; rss_peak_end_mb is the peak after that phase) and, when one probe layer
suggests a whole forward fits in --bf16-max-s, one bfloat16 forward is timed: forward_bf16_s.

The model follows Hugging Face's LlamaForCausalLM definitions: RMSNorm (computed in float32,
weight applied after casting back), q/k/v projections, rotate-half RoPE with the llama3
frequency scaling, grouped-query causal attention with scale 1/sqrt(head_dim) and a float32
softmax, o_proj, residual, SwiGLU MLP (down(silu(gate(x)) * up(x))), residual, final norm and
the tied lm_head (embedding matrix) giving logits for all T positions.

PyTorch's float32 matmuls go to the system BLAS: with Debian's default libblas3 (the reference
implementation) the float32 forward is ~25x slower, so install libopenblas0-pthread first, as
bench/run.sh does. OPENBLAS_CORETYPE is left as found and reported (Haswell forces AVX2 kernels
on AVX-512 CPUs). The bfloat16 matmuls go to oneDNN, fast only on CPUs with AVX-512 BF16.

Gemma 3 (model_type gemma3_text) follows Hugging Face's modeling_gemma3 (Gemma3ForCausalLM):
embeddings × √hidden (the factor rounded to the weights' dtype, as HF builds it), Gemma3RMSNorm
(float32, × (1 + w)) before and after attention and before and after the MLP, q_norm and k_norm
per head before RoPE, RoPE with rope_local_base_freq on the sliding layers and rope_theta (with
rope_scaling, linear here) on the global ones (layer_types, else every sliding_window_pattern-th
layer global), the sliding window (key j visible from query i iff 0 <= i - j < window), scores ×
query_pre_attn_scalar^-0.5 (with attn_logit_softcapping when set), float32 softmax, o_proj,
down(gelu_tanh(gate(x)) * up(x)), the final norm and the tied lm_head (final_logit_softcapping
when set).

Prints one JSON object on stdout; progress goes to stderr.
"""
import argparse
import json
import math
import os
import resource
import struct
import subprocess
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="timed float32 forwards (after one warm-up)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--ids-file", help="token ids from this JSON file (a list, or an object with \"ids\")")
    ap.add_argument("--predict", action="store_true",
                    help="time the loss and top-1 with the forward, and report them for the comparison")
    ap.add_argument("--between", metavar="CMD",
                    help="a shell command run before each timed forward (its stdout, one JSON object, kept in "
                         "\"between\"): the other side of a comparison, interleaved run by run")
    ap.add_argument("--bf16-max-s", type=float, default=300.0,
                    help="skip the bfloat16 forward when the probe projects it above this (0: never run it)")
    return ap.parse_args()


ARGS = parse_args()
# Before NumPy/PyTorch start their thread pools (OpenMP, and OpenBLAS which ignores set_num_threads).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def rss_peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def blas_libraries():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if any(k in os.path.basename(path) for k in ("blas", "mkl_", "libdnnl", "libmkldnn")):
                libs.add(os.path.realpath(path))
    return sorted(libs)


# ---------------------------------------------------------------- loading

def read_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return 8 + n, header


def load_f32(path, data_start, entry, chunk=1 << 22):
    """One BF16 tensor -> float32 torch tensor, converted in chunks (no full-size temporaries)."""
    if entry["dtype"] != "BF16":
        raise ValueError(f"expected BF16, got {entry['dtype']}")
    b, e = entry["data_offsets"]
    n = (e - b) // 2
    src = np.memmap(path, dtype="<u2", mode="r", offset=data_start + b, shape=(n,))
    out = torch.empty(entry["shape"], dtype=torch.float32)
    bits = out.numpy().reshape(-1).view(np.uint32)
    for i in range(0, n, chunk):
        dst = bits[i:i + chunk]
        dst[...] = src[i:i + chunk]
        dst <<= np.uint32(16)
    del src  # unmaps, so the file pages do not stay in this process's RSS
    return out


def load_model(d):
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    path = os.path.join(d, "model.safetensors")
    data_start, header = read_header(path)
    weights = {}
    for name, entry in header.items():
        weights[name] = load_f32(path, data_start, entry)
    cfg["_stored_dtype"] = header["model.embed_tokens.weight"]["dtype"]
    if "lm_head.weight" not in weights:  # tied
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"]
    return cfg, weights


# ---------------------------------------------------------------- model

def llama3_inv_freq(cfg):
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    rs = cfg.get("rope_scaling") or {}
    if rs.get("rope_type", rs.get("type")) == "llama3":
        factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old_ctx = rs["original_max_position_embeddings"]
        wavelen = 2.0 * math.pi / inv
        lo_wavelen, hi_wavelen = old_ctx / lo, old_ctx / hi
        # Long wavelengths (low frequencies) are divided by factor, short ones kept, and the band
        # in between interpolated linearly in old_ctx / wavelen.
        smooth = (old_ctx / wavelen - lo) / (hi - lo)
        interpolated = (1.0 - smooth) * inv / factor + smooth * inv
        scaled = torch.where(wavelen > lo_wavelen, inv / factor, inv)
        medium = (wavelen >= hi_wavelen) & (wavelen <= lo_wavelen)
        inv = torch.where(medium, interpolated, scaled)
    return inv, head_dim


def rms_norm(x, w, eps):
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return w * h.to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(cfg, W, ids, layers=None):
    """Logits [T, vocab] for token ids [T] (one sequence, positions 0..T-1)."""
    dtype = W["model.embed_tokens.weight"].dtype
    T = ids.shape[0]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    eps = cfg["rms_norm_eps"]
    inv_freq, hd = llama3_inv_freq(cfg)
    freqs = torch.arange(T, dtype=torch.float32)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)  # [T, hd], broadcast over heads
    mask = torch.full((T, T), float("-inf"), dtype=torch.float32).triu(1)
    scale = 1.0 / math.sqrt(hd)

    x = F.embedding(ids, W["model.embed_tokens.weight"])
    for i in range(cfg["num_hidden_layers"] if layers is None else layers):
        p = f"model.layers.{i}."
        h = rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = F.linear(h, W[p + "self_attn.q_proj.weight"]).view(T, nh, hd).transpose(0, 1)
        k = F.linear(h, W[p + "self_attn.k_proj.weight"]).view(T, nkv, hd).transpose(0, 1)
        v = F.linear(h, W[p + "self_attn.v_proj.weight"]).view(T, nkv, hd).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # GQA: query head j reads kv head j // (nh / nkv).
        k = k.repeat_interleave(nh // nkv, dim=0)
        v = v.repeat_interleave(nh // nkv, dim=0)
        s = torch.matmul(q, k.transpose(1, 2)) * scale + mask.to(q.dtype)
        a = torch.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(a, v).transpose(0, 1).reshape(T, nh * hd)
        x = x + F.linear(o, W[p + "self_attn.o_proj.weight"])
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        m = F.silu(F.linear(h, W[p + "mlp.gate_proj.weight"])) * F.linear(h, W[p + "mlp.up_proj.weight"])
        x = x + F.linear(m, W[p + "mlp.down_proj.weight"])
    if layers is not None:
        return x
    x = rms_norm(x, W["model.norm.weight"], eps)
    return F.linear(x, W["lm_head.weight"])


STORED_DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}


def gemma_norm(x, w, eps):
    """Gemma3RMSNorm: in float32, x / sqrt(mean(x²) + eps) × (1 + w), back to x's dtype."""
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (h * (1.0 + w.float())).to(x.dtype)


def rope_cos_sin(base, head_dim, T, dtype, linear_factor=1.0):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    inv = inv / linear_factor
    freqs = torch.arange(T, dtype=torch.float32)[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def gemma3_layer_is_sliding(cfg):
    n = cfg["num_hidden_layers"]
    if cfg.get("layer_types"):
        return [t == "sliding_attention" for t in cfg["layer_types"][:n]]
    every = cfg.get("sliding_window_pattern", 6)
    return [(i + 1) % every != 0 for i in range(n)]


def gemma3_forward(cfg, W, ids, layers=None):
    """Gemma3ForCausalLM's logits [T, vocab] for token ids [T] (positions 0..T-1)."""
    dtype = W["model.embed_tokens.weight"].dtype
    T = ids.shape[0]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps = cfg["rms_norm_eps"]
    rs = cfg.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type", "default"))
    if kind not in ("default", "linear"):
        raise ValueError(f"rope_scaling {kind} is not written here")
    factor = rs.get("factor", 1.0) if kind == "linear" else 1.0
    rope = {False: rope_cos_sin(cfg["rope_theta"], hd, T, dtype, factor),
            True: rope_cos_sin(cfg["rope_local_base_freq"], hd, T, dtype)}
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    neg = torch.tensor(float("-inf"))
    zero = torch.tensor(0.0)
    masks = {False: torch.where(j <= i, zero, neg),
             True: torch.where((j <= i) & (i - j < cfg["sliding_window"]), zero, neg)}
    sliding = gemma3_layer_is_sliding(cfg)
    scale = cfg["query_pre_attn_scalar"] ** -0.5
    attn_cap = cfg.get("attn_logit_softcapping")
    final_cap = cfg.get("final_logit_softcapping")

    E = W["model.embed_tokens.weight"]
    # HF forms the factor as a tensor of the model's dtype: a BF16 checkpoint multiplies by √hidden
    # rounded to BF16 (34.0 for 1152, not 33.94), also when its weights are computed in float32 here.
    normalizer = torch.tensor(cfg["hidden_size"] ** 0.5, dtype=STORED_DTYPES[cfg["_stored_dtype"]]).to(dtype)
    x = F.embedding(ids, E) * normalizer
    for l in range(cfg["num_hidden_layers"] if layers is None else layers):
        p = f"model.layers.{l}."
        cos, sin = rope[sliding[l]]
        h = gemma_norm(x, W[p + "input_layernorm.weight"], eps)
        q = gemma_norm(F.linear(h, W[p + "self_attn.q_proj.weight"]).view(T, nh, hd), W[p + "self_attn.q_norm.weight"], eps)
        k = gemma_norm(F.linear(h, W[p + "self_attn.k_proj.weight"]).view(T, nkv, hd), W[p + "self_attn.k_norm.weight"], eps)
        v = F.linear(h, W[p + "self_attn.v_proj.weight"]).view(T, nkv, hd)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(nh // nkv, dim=0)
        v = v.repeat_interleave(nh // nkv, dim=0)
        s = torch.matmul(q, k.transpose(1, 2)) * scale
        if attn_cap:
            s = torch.tanh(s / attn_cap) * attn_cap
        s = s + masks[sliding[l]].to(s.dtype)
        a = torch.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(a, v).transpose(0, 1).reshape(T, nh * hd)
        o = gemma_norm(F.linear(o, W[p + "self_attn.o_proj.weight"]), W[p + "post_attention_layernorm.weight"], eps)
        x = x + o
        h = gemma_norm(x, W[p + "pre_feedforward_layernorm.weight"], eps)
        m = F.gelu(F.linear(h, W[p + "mlp.gate_proj.weight"]), approximate="tanh") * F.linear(h, W[p + "mlp.up_proj.weight"])
        m = gemma_norm(F.linear(m, W[p + "mlp.down_proj.weight"]), W[p + "post_feedforward_layernorm.weight"], eps)
        x = x + m
    if layers is not None:
        return x
    x = gemma_norm(x, W["model.norm.weight"], eps)
    logits = F.linear(x, W["lm_head.weight"])
    if final_cap:
        logits = torch.tanh(logits / final_cap) * final_cap
    return logits


FORWARDS = {"llama": forward, "gemma3_text": gemma3_forward}
# Fields a forward adds to the printed result (bench/moe_forward_torch.py registers its qwen3_moe
# forward in FORWARDS and reports its layer-0 routing here).
REPORT = {}


def model_forward(cfg, W, ids, layers=None):
    return FORWARDS[cfg.get("model_type", "llama")](cfg, W, ids, layers)


def predict_outputs(logits, ids):
    """What `poslab predict --top 1` computes from the logits: the mean cross-entropy of each next
    token, and each position's most likely token with its probability."""
    lse = torch.logsumexp(logits, dim=-1)
    loss = (lse[:-1] - logits[:-1].gather(1, ids[1:, None])[:, 0]).mean()
    best, best_id = logits.max(dim=-1)
    return loss, best_id, torch.exp(best - lse)


# ---------------------------------------------------------------- main

def main():
    torch.set_num_threads(ARGS.threads)
    result = {"threads": ARGS.threads, "tokens": ARGS.tokens, "torch": torch.__version__}

    t0 = time.perf_counter()
    cfg, W = load_model(ARGS.dir)
    result["load_s"] = time.perf_counter() - t0
    result["layers"] = cfg["num_hidden_layers"]
    result["params"] = sum(t.numel() for n, t in W.items() if n != "lm_head.weight")
    log(f"loaded {result['params'] / 1e9:.3f} G params as float32 in {result['load_s']:.1f} s, "
        f"peak RSS {rss_peak_mb():.0f} MB")

    if cfg.get("model_type", "llama") not in FORWARDS:
        raise SystemExit(f"model_type {cfg.get('model_type')} has no forward here ({', '.join(FORWARDS)})")
    if ARGS.ids_file:
        with open(ARGS.ids_file) as f:
            given = json.load(f)
        ids = torch.tensor(given["ids"] if isinstance(given, dict) else given, dtype=torch.int64)
        result["tokens"] = int(ids.shape[0])
    else:
        ids = torch.from_numpy((np.arange(ARGS.tokens, dtype=np.int64) * 7919) % cfg["vocab_size"])
    times, between = [], []
    with torch.no_grad():
        for r in range(ARGS.warmup + ARGS.repeat):
            if ARGS.between and r >= ARGS.warmup:
                # Interleaved with ours, so that both sides see the same moments of a shared machine.
                out = subprocess.run(ARGS.between, shell=True, check=True, stdout=subprocess.PIPE, text=True).stdout
                between.append(json.loads(out))
            t0 = time.perf_counter()
            logits = model_forward(cfg, W, ids)
            if ARGS.predict:
                predicted = predict_outputs(logits, ids)
            dt = time.perf_counter() - t0
            log(f"float32 forward {'warm-up' if r < ARGS.warmup else 'run'} {dt:.3f} s")
            if r >= ARGS.warmup:
                times.append(dt)
    if not torch.isfinite(logits).all():
        raise RuntimeError("non-finite logits")
    result["forward_s_min"] = min(times)
    result["forward_s_median"] = float(np.median(times))
    result["forward_s_all"] = times
    if ARGS.between:
        result["between"] = between
    result["logits_checksum"] = float(logits[-1, :16].double().sum())
    if ARGS.predict:
        loss, _, _ = predict_outputs(logits.double(), ids)  # float64, as PosLab sums the loss
        result["loss"] = float(loss)
        result["loss_float32"] = float(predicted[0])
        result["top1_ids"] = predicted[1].tolist()
        result["top1_p"] = predicted[2].tolist()
    result["rss_peak_mb"] = rss_peak_mb()
    result["blas"] = blas_libraries()
    result["openblas_coretype"] = os.environ.get("OPENBLAS_CORETYPE")  # forcing Haswell costs AVX-512 CPUs
    del logits

    # bfloat16: one forward, if it is supported and not too slow on this build.
    result["forward_bf16_s"] = None
    if ARGS.bf16_max_s > 0:
        try:
            tied = W["lm_head.weight"] is W["model.embed_tokens.weight"]
            if tied:
                del W["lm_head.weight"]  # drop the second reference so the float32 copy is freed
            for n in list(W):
                W[n] = W[n].to(torch.bfloat16)  # exact: the file holds BF16 values
            if tied:
                W["lm_head.weight"] = W["model.embed_tokens.weight"]
            with torch.no_grad():
                t0 = time.perf_counter()
                model_forward(cfg, W, ids, layers=1)
                probe = time.perf_counter() - t0
                # lm_head ~ vocab*hidden MACs, a layer ~ its projection MACs.
                h, it = cfg["hidden_size"], cfg["intermediate_size"]
                hd = cfg.get("head_dim") or h // cfg["num_attention_heads"]
                qw, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
                layer_macs = 2 * h * qw + 2 * h * kv + 3 * h * it
                projected = probe * (cfg["num_hidden_layers"] + cfg["vocab_size"] * h / layer_macs)
                result["bf16_probe_layer_s"] = probe
                result["bf16_projected_s"] = projected
                log(f"bfloat16 probe layer {probe:.3f} s, projected forward {projected:.1f} s")
                if projected <= ARGS.bf16_max_s:
                    t0 = time.perf_counter()
                    logits = model_forward(cfg, W, ids)
                    result["forward_bf16_s"] = time.perf_counter() - t0
                    result["logits_checksum_bf16"] = float(logits[-1, :16].double().sum())
                    log(f"bfloat16 forward {result['forward_bf16_s']:.3f} s")
                else:
                    result["bf16_skipped"] = f"projected {projected:.0f} s > --bf16-max-s {ARGS.bf16_max_s:g}"
        except (RuntimeError, NotImplementedError) as e:
            result["bf16_skipped"] = f"{type(e).__name__}: {e}"
        if "bf16_skipped" in result:
            log("bfloat16 skipped:", result["bf16_skipped"])
    result["rss_peak_end_mb"] = rss_peak_mb()
    result.update(REPORT)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
