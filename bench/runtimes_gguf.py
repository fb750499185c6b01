#!/usr/bin/python3
"""Writes a make_llama1b.py folder as GGUF files that llama.cpp loads (architecture "llama"), for
bench/runtimes_run.sh. NumPy only; the format is written here from the GGUF v3 specification.

    /usr/bin/python3 bench/runtimes_gguf.py DIR OUTDIR [--types F32,BF16,Q8_0]

OUTDIR gets model-F32.gguf, model-BF16.gguf and model-Q8_0.gguf (those asked for). What is in them:

- Matrices in the file's type: F32 (the BF16 values widened, exact), BF16 (the checkpoint's own
  bits) or Q8_0 (blocks of 32 values along a row: an f16 scale d = max|x| / 127 and 32 int8
  q = x / d rounded half away from zero). Vectors (the RMSNorm weights) stay F32 in every file, as
  llama.cpp's own converter keeps them.
- q_proj and k_proj rows reordered for llama.cpp's RoPE: Hugging Face rotates the two halves of
  each head (dimension i with i + head_dim/2), llama.cpp rotates neighbours (2i with 2i + 1), so
  within each head new row 2i + j = old row j * head_dim/2 + i (j = 0, 1).
- The llama3 RoPE scaling as llama.cpp takes it: a rope_freqs.weight tensor (F32, head_dim/2) of
  per-frequency divisors, old inverse frequency / scaled inverse frequency (1 for the short
  wavelengths, rope_scaling.factor for the long ones, interpolated between), computed with the
  same formula as model_forward_torch.llama3_inv_freq.
- No output.weight: the embeddings are tied, and llama.cpp then uses token_embd for the logits.
- A synthetic byte-level BPE vocabulary of vocab_size tokens (tokenizer.ggml.model "gpt2", pre
  "llama-bpe", no merges): ids 0-255 are the 256 single-byte tokens (GPT-2's byte -> printable
  character map), 256..127999 "t<id>" and 128000.. Llama 3's special tokens (type control). The
  benchmark feeds token ids, so only loading matters; printable ASCII names keep llama.cpp's
  piece cache (which maps every character back to a byte) happy.

Metadata keys are llama.cpp's names for Llama (llama.block_count, llama.rope.freq_base, ...).
Every tensor is streamed from the safetensors file through a NumPy memmap, a few MB at a time.
Prints one JSON object (paths, sizes, seconds) on stdout.
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np

ALIGN = 32  # general.alignment, written explicitly
# GGUF metadata value types
U8, I8, U16, I16, U32, I32, F32V, BOOL, STR, ARR, U64, I64, F64 = range(13)
# ggml tensor types
GGML = {"F32": 0, "F16": 1, "Q8_0": 8, "BF16": 30}
# llama.cpp's llama_ftype for general.file_type
FILE_TYPE = {"F32": 0, "Q8_0": 7, "BF16": 32}
QK8_0 = 32


# ------------------------------------------------------------------ encoding

def gstr(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    """One metadata pair. Arrays: value = (element type, list)."""
    out = gstr(key) + struct.pack("<I", vtype)
    if vtype == ARR:
        etype, items = value
        out += struct.pack("<IQ", etype, len(items))
        if etype == STR:
            out += b"".join(gstr(x) for x in items)
        else:
            fmt = {U32: "<u4", I32: "<i4", F32V: "<f4"}[etype]
            out += np.asarray(items, dtype=fmt).tobytes()
        return out
    if vtype == STR:
        return out + gstr(value)
    fmt = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32V: "<f", BOOL: "<?",
           U64: "<Q", I64: "<q", F64: "<d"}[vtype]
    return out + struct.pack(fmt, value)


# ------------------------------------------------------------------ the checkpoint

def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return 8 + n, header


def bf16_rows(path, start, entry, rows):
    """Rows `rows` (a slice or index array) of a BF16 tensor, as uint16."""
    if entry["dtype"] != "BF16":
        raise ValueError(f"expected BF16, got {entry['dtype']}")
    shape = entry["shape"]
    b, _ = entry["data_offsets"]
    m = np.memmap(path, dtype="<u2", mode="r", offset=start + b, shape=tuple(shape))
    return np.array(m[rows])


def widen(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def rope_permutation(rows, head_dim):
    """Row order for llama.cpp's neighbour-pair RoPE: new row h*hd + 2i + j <- old h*hd + j*hd/2 + i."""
    half = head_dim // 2
    heads = rows // head_dim
    h = np.arange(heads)[:, None, None] * head_dim
    i = np.arange(half)[None, :, None]
    j = np.arange(2)[None, None, :] * half
    return (h + j + i).reshape(-1)


def llama3_rope_divisors(cfg):
    """Old inverse frequency / llama3-scaled inverse frequency, per frequency (head_dim/2)."""
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    inv = 1.0 / (cfg["rope_theta"] ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    rs = cfg.get("rope_scaling") or {}
    if rs.get("rope_type", rs.get("type")) != "llama3":
        return None
    factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    old_ctx = rs["original_max_position_embeddings"]
    wavelen = 2.0 * math.pi / inv
    smooth = (old_ctx / wavelen - lo) / (hi - lo)
    scaled = np.where(wavelen > old_ctx / lo, inv / factor, inv)
    medium = (wavelen >= old_ctx / hi) & (wavelen <= old_ctx / lo)
    scaled = np.where(medium, (1.0 - smooth) * inv / factor + smooth * inv, scaled)
    return (inv / scaled).astype(np.float32)


def gpt2_byte_chars():
    """GPT-2's byte -> character map: printable Latin-1 bytes stand for themselves, the other 68
    bytes take the characters from U+0100 upward, in byte order."""
    keep = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAC + 1)) | set(range(0xAE, 0xFF + 1))
    out, extra = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(0x100 + extra))
            extra += 1
    return out


def vocabulary(vocab_size, bos, eos):
    tokens, types = [], []
    first_special = 128000 if vocab_size > 128000 else vocab_size
    names = {128000: "<|begin_of_text|>", 128001: "<|end_of_text|>", 128006: "<|start_header_id|>",
             128007: "<|end_header_id|>", 128008: "<|eom_id|>", 128009: "<|eot_id|>"}
    byte_chars = gpt2_byte_chars()
    for i in range(vocab_size):
        if i < 256:
            tokens.append(byte_chars[i])
            types.append(1)
        elif i < first_special:
            tokens.append(f"t{i}")
            types.append(1)
        else:
            tokens.append(names.get(i, f"<|reserved_special_token_{i - first_special}|>"))
            types.append(3)  # control
    return tokens, types


# ------------------------------------------------------------------ tensors

def encode_rows(x, kind):
    """float32 rows [n, cols] -> bytes in the ggml type `kind`."""
    if kind == "F32":
        return np.ascontiguousarray(x, dtype="<f4").tobytes()
    if kind == "BF16":  # only ever given values that are BF16 already: exact truncation
        return (x.view(np.uint32) >> np.uint32(16)).astype("<u2").tobytes()
    if kind == "Q8_0":
        blocks = x.reshape(-1, QK8_0).astype(np.float32)
        amax = np.abs(blocks).max(axis=1)
        d = amax / np.float32(127.0)
        inv = np.divide(np.float32(1.0), d, out=np.zeros_like(d), where=d > 0)
        v = blocks * inv[:, None]
        q = (np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))).astype(np.int8)
        out = np.empty(blocks.shape[0], dtype=[("d", "<f2"), ("qs", "i1", (QK8_0,))])
        out["d"] = d.astype(np.float16)
        out["qs"] = q
        return out.tobytes()
    raise ValueError(kind)


def row_bytes(cols, kind):
    if kind == "Q8_0":
        return cols // QK8_0 * (2 + QK8_0)
    return cols * {"F32": 4, "BF16": 2}[kind]


def plan(cfg, header, kind):
    """[(gguf name, safetensors name or None, numpy shape, ggml type, row permutation or None)]"""
    L = cfg["num_hidden_layers"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    mat = kind
    out = [("token_embd.weight", "model.embed_tokens.weight", mat, None)]
    for i in range(L):
        p, b = f"model.layers.{i}.", f"blk.{i}."
        out += [
            (b + "attn_norm.weight", p + "input_layernorm.weight", "F32", None),
            (b + "attn_q.weight", p + "self_attn.q_proj.weight", mat, hd),
            (b + "attn_k.weight", p + "self_attn.k_proj.weight", mat, hd),
            (b + "attn_v.weight", p + "self_attn.v_proj.weight", mat, None),
            (b + "attn_output.weight", p + "self_attn.o_proj.weight", mat, None),
            (b + "ffn_norm.weight", p + "post_attention_layernorm.weight", "F32", None),
            (b + "ffn_gate.weight", p + "mlp.gate_proj.weight", mat, None),
            (b + "ffn_up.weight", p + "mlp.up_proj.weight", mat, None),
            (b + "ffn_down.weight", p + "mlp.down_proj.weight", mat, None),
        ]
    out.append(("output_norm.weight", "model.norm.weight", "F32", None))
    if "lm_head.weight" in header:
        out.append(("output.weight", "lm_head.weight", mat, None))
    res = []
    for name, src, t, perm_hd in out:
        shape = header[src]["shape"]
        if len(shape) == 1:
            t = "F32"
        elif t == "Q8_0" and shape[1] % QK8_0:
            t = "F32"
        res.append((name, src, tuple(shape), t, perm_hd))
    return res


def write_gguf(path, cfg, st_path, st_start, header, kind, divisors, vocab):
    tensors = plan(cfg, header, kind)
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    meta = [
        kv("general.architecture", STR, "llama"),
        kv("general.name", STR, f"PosLab random Llama-3.2-1B-shaped ({cfg['num_hidden_layers']} layers)"),
        kv("general.file_type", U32, FILE_TYPE[kind]),
        kv("general.alignment", U32, ALIGN),
        kv("llama.context_length", U32, cfg["max_position_embeddings"]),
        kv("llama.embedding_length", U32, cfg["hidden_size"]),
        kv("llama.block_count", U32, cfg["num_hidden_layers"]),
        kv("llama.feed_forward_length", U32, cfg["intermediate_size"]),
        kv("llama.attention.head_count", U32, cfg["num_attention_heads"]),
        kv("llama.attention.head_count_kv", U32, cfg["num_key_value_heads"]),
        kv("llama.attention.key_length", U32, hd),
        kv("llama.attention.value_length", U32, hd),
        kv("llama.attention.layer_norm_rms_epsilon", F32V, cfg["rms_norm_eps"]),
        kv("llama.rope.freq_base", F32V, cfg["rope_theta"]),
        kv("llama.rope.dimension_count", U32, hd),
        kv("llama.vocab_size", U32, cfg["vocab_size"]),
        kv("tokenizer.ggml.model", STR, "gpt2"),
        kv("tokenizer.ggml.pre", STR, "llama-bpe"),
        kv("tokenizer.ggml.tokens", ARR, (STR, vocab[0])),
        kv("tokenizer.ggml.token_type", ARR, (I32, vocab[1])),
        kv("tokenizer.ggml.merges", ARR, (STR, [])),
        kv("tokenizer.ggml.bos_token_id", U32, cfg["bos_token_id"]),
        kv("tokenizer.ggml.eos_token_id", U32, cfg["eos_token_id"]),
        kv("tokenizer.ggml.add_bos_token", BOOL, False),
    ]
    if kind == "Q8_0":
        meta.append(kv("general.quantization_version", U32, 2))

    infos, offset, layout = [], 0, []
    entries = [(n, s, shp, t, p) for n, s, shp, t, p in tensors]
    if divisors is not None:
        entries.append(("rope_freqs.weight", None, (divisors.shape[0],), "F32", None))
    for name, src, shape, t, _ in entries:
        rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        nbytes = rows * row_bytes(shape[-1], t)
        offset += -offset % ALIGN
        dims = list(reversed(shape))  # ggml's ne[0] is the fastest-moving (the row length)
        infos.append(gstr(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
                     + struct.pack("<IQ", GGML[t], offset))
        layout.append(offset)
        offset += nbytes

    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, len(entries), len(meta)))
        for m in meta:
            f.write(m)
        for info in infos:
            f.write(info)
        f.write(b"\0" * (-f.tell() % ALIGN))
        data_start = f.tell()
        for (name, src, shape, t, perm_hd), off in zip(entries, layout):
            f.write(b"\0" * (data_start + off - f.tell()))
            if src is None:  # rope_freqs
                f.write(divisors.astype("<f4").tobytes())
                continue
            entry = header[src]
            if len(shape) == 1:
                f.write(encode_rows(widen(bf16_rows(st_path, st_start, entry, slice(None))), t))
                continue
            order = rope_permutation(shape[0], perm_hd) if perm_hd else None
            step = max(1, (1 << 22) // shape[1])  # ~4M values per step
            for r in range(0, shape[0], step):
                rows = order[r:r + step] if order is not None else slice(r, min(r + step, shape[0]))
                bits = bf16_rows(st_path, st_start, entry, rows)
                f.write(bits.astype("<u2").tobytes() if t == "BF16" else encode_rows(widen(bits), t))
        end = f.tell()
    assert end - data_start == offset, (end - data_start, offset)
    os.replace(tmp, path)
    return end


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("outdir")
    ap.add_argument("--types", default="F32,BF16,Q8_0")
    args = ap.parse_args()
    with open(os.path.join(args.dir, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("model_type", "llama") != "llama":
        sys.exit(f"{args.dir}: model_type {cfg.get('model_type')}; this writer is for the Llama folder")
    st_path = os.path.join(args.dir, "model.safetensors")
    st_start, header = read_safetensors(st_path)
    divisors = llama3_rope_divisors(cfg)
    vocab = vocabulary(cfg["vocab_size"], cfg["bos_token_id"], cfg["eos_token_id"])
    os.makedirs(args.outdir, exist_ok=True)
    result = {"files": {}}
    for kind in args.types.split(","):
        if kind not in FILE_TYPE:
            sys.exit(f"--types: {kind} is not one of {', '.join(FILE_TYPE)}")
        t0 = time.perf_counter()
        path = os.path.join(args.outdir, f"model-{kind}.gguf")
        size = write_gguf(path, cfg, st_path, st_start, header, kind, divisors, vocab)
        result["files"][kind] = {"path": path, "bytes": size, "seconds": round(time.perf_counter() - t0, 1)}
        print(f"wrote {path}: {size / 1e9:.2f} GB in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
