#!/usr/bin/python3
"""Reference timing: the Llama forward pass in plain PyTorch ops, on a folder from make_llama1b.py.

    /usr/bin/python3 bench/model_forward_torch.py DIR --tokens 64 --threads 2 [--repeat 3]

Reads DIR/config.json and DIR/model.safetensors (header parsed here, tensors read through a NumPy
memmap, BF16 -> float32 as uint16 << 16; the `safetensors` package is not used), builds float32
torch tensors, then times the forward pass of T fixed token ids, ids = (arange(T) * 7919) % vocab,
under torch.no_grad() with torch.set_num_threads(threads). Only the forward is timed: the weights
are already float32 torch tensors before the clock starts.

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

Prints one JSON object on stdout; progress goes to stderr.
"""
import argparse
import json
import math
import os
import resource
import struct
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="timed float32 forwards (after one warm-up)")
    ap.add_argument("--warmup", type=int, default=1)
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

    ids = torch.from_numpy((np.arange(ARGS.tokens, dtype=np.int64) * 7919) % cfg["vocab_size"])
    times = []
    with torch.no_grad():
        for r in range(ARGS.warmup + ARGS.repeat):
            t0 = time.perf_counter()
            logits = forward(cfg, W, ids)
            dt = time.perf_counter() - t0
            log(f"float32 forward {'warm-up' if r < ARGS.warmup else 'run'} {dt:.3f} s")
            if r >= ARGS.warmup:
                times.append(dt)
    if not torch.isfinite(logits).all():
        raise RuntimeError("non-finite logits")
    result["forward_s_min"] = min(times)
    result["forward_s_median"] = float(np.median(times))
    result["forward_s_all"] = times
    result["logits_checksum"] = float(logits[-1, :16].double().sum())
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
                forward(cfg, W, ids, layers=1)
                probe = time.perf_counter() - t0
                # lm_head ~ vocab*hidden MACs, a layer ~ its projection MACs.
                h, it = cfg["hidden_size"], cfg["intermediate_size"]
                kv = cfg["num_key_value_heads"] * (cfg.get("head_dim") or h // cfg["num_attention_heads"])
                layer_macs = 2 * h * h + 2 * h * kv + 3 * h * it
                projected = probe * (cfg["num_hidden_layers"] + cfg["vocab_size"] * h / layer_macs)
                result["bf16_probe_layer_s"] = probe
                result["bf16_projected_s"] = projected
                log(f"bfloat16 probe layer {probe:.3f} s, projected forward {projected:.1f} s")
                if projected <= ARGS.bf16_max_s:
                    t0 = time.perf_counter()
                    logits = forward(cfg, W, ids)
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
    print(json.dumps(result))


if __name__ == "__main__":
    main()
